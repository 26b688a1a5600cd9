import Basics
import Foundation
import Wire

/// `/video/thumbs` with ffmpeg: `count` frames spread over the video, or frames at `offsets`
/// (seconds, or percentages such as "50%"), sized by `width`/`height`/`resize_strategy`, as jpeg
/// or png. Each thumbnail's `meta` has `thumb_index` and `thumb_offset`.
struct VideoThumbsRobot: Sendable {
    enum Offset: Sendable { case seconds(Double), percent(Double) }

    let count: Int
    let offsets: [Offset]
    let ext: String
    let width: Int?
    let height: Int?
    let strategy: String

    init(options: [String: JSONValue]) throws(RobotError) {
        count = try StepOptions(options: options).integer("count", in: 1...999, default: 8)
        if let given = options["offsets"], given != .null, given.arrayValue == nil {
            throw RobotError(code: .invalidStepParameter, message: "'offsets' must be an array such as [2, \"50%\"], not \(given.serialized())")
        }
        var offsets: [Offset] = []
        for value in options["offsets"]?.arrayValue ?? [] {
            if let seconds = value.doubleValue, seconds >= 0 {
                offsets.append(.seconds(seconds))
            } else if let text = value.stringValue, text.hasSuffix("%"), let percent = Double(text.dropLast()), (0...100).contains(percent) {
                offsets.append(.percent(percent))
            } else {
                throw RobotError(code: .invalidStepParameter, message: "'offsets' holds seconds (2.5) or percentages (\"50%\"), not \(value.serialized())")
            }
        }
        guard offsets.count <= 999 else { throw RobotError(code: .invalidStepParameter, message: "'offsets' may hold at most 999 entries") }
        self.offsets = offsets
        let format = try StepOptions(options: options).choice("format", of: "/video/thumbs", default: "jpeg")
        ext = format == "png" ? "png" : "jpg"
        width = try StepOptions(options: options).integer("width", in: 1...1920)
        height = try StepOptions(options: options).integer("height", in: 1...1080)
        strategy = try VideoGeometry.strategy(in: options, of: "/video/thumbs", default: "pad")
    }

    func thumbnails(of file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        let facts = try MediaFacts(path: file.path, name: file.name, context: context)
        try MediaFacts.check(duration: facts.duration, of: file.name, limit: context.limits.mediaDuration)
        guard facts.width != nil else { throw RobotError(code: .videoThumbsError, message: "'\(file.name)' has no video stream") }
        let duration = facts.duration ?? 0
        // Frames strictly inside the video: the very end has no frame to show.
        let last = max(0, duration - 0.05)
        let times: [Double] = offsets.isEmpty
            ? (1...count).map { duration * Double($0) / Double(count + 1) }
            : offsets.map { offset in
                switch offset {
                case .seconds(let seconds): min(seconds, last)
                case .percent(let percent): min(duration * percent / 100, last)
                }
            }
        var thumbnails: [AssemblyFile] = []
        for (index, time) in times.enumerated() {
            let slot = try ResultSlot(name: "\(file.basename)_\(index + 1).\(ext)", in: context.folder)
            // One image, named as given (without -update, "%d" in a name would be a frame number).
            var arguments = ["-ss", String(format: "%.3f", time)] + FFmpeg.input(file.path) + ["-frames:v", "1", "-update", "1", "-an"]
            if width != nil || height != nil { arguments += ["-vf", VideoGeometry.filter(width: width, height: height, strategy: strategy)] }
            if ext == "jpg" { arguments += ["-q:v", "3"] }
            try FFmpeg.run(arguments + [slot.path], for: file, context: context, code: .videoThumbsError)
            thumbnails.append(slot.file(from: file, meta: ["thumb_index": .int(index + 1), "thumb_offset": .double((time * 1000).rounded() / 1000)]))
        }
        return thumbnails
    }
}
