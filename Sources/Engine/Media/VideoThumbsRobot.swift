import Basics
import Foundation
import Spec
import Wire

/// `/video/thumbs` with ffmpeg: `count` frames spread over the video, or frames at `offsets`
/// (seconds, or percentages such as "50%"), sized by `width`/`height`/`resize_strategy`, as jpeg
/// or png. Each thumbnail's `meta` has `thumb_index` and `thumb_offset`.
struct VideoThumbsRobot: Sendable {
    typealias Offset = VideoThumbs.Offset

    let count: Int
    let offsets: [Offset]
    let ext: String
    let width: Int?
    let height: Int?
    let strategy: String

    init(_ parameters: VideoThumbs.Parameters) {
        count = parameters.count
        offsets = parameters.offsets
        ext = parameters.ext
        width = parameters.width
        height = parameters.height
        strategy = parameters.resizeStrategy
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

extension VideoThumbs: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork { .eachFile(VideoThumbsRobot(parameters)) }
}

extension VideoThumbsRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { try thumbnails(of: file, context: context) }

    var decodesImages: Bool { true }
}
