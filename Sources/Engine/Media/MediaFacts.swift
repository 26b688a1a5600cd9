import Basics
import Foundation

/// The `meta` the hosted service reports for audio and video files, read from ffprobe: duration,
/// dimensions, frame rate, codecs, bit rates, sample rate and channels.
struct MediaFacts: Sendable {
    var duration: Double?
    var width: Int?
    var height: Int?
    var meta: [String: JSONValue]

    /// The facts of the media file at `path`.
    init(path: String, name: String, context: RobotContext? = nil) throws(RobotError) {
        let probe = try FFmpeg.probe(path, name: name, context: context)
        let format = probe["format"] ?? .object([:])
        let streams = probe["streams"]?.arrayValue ?? []
        let video = streams.first { $0["codec_type"]?.stringValue == "video" && $0["disposition"]?["attached_pic"]?.intValue != 1 }
        let audio = streams.first { $0["codec_type"]?.stringValue == "audio" }
        var meta: [String: JSONValue] = [:]
        func number(_ value: JSONValue?) -> Double? { value?.stringValue.flatMap(Double.init) ?? value?.doubleValue }
        duration = number(format["duration"]) ?? number(video?["duration"]) ?? number(audio?["duration"])
        if let duration { meta["duration"] = .double((duration * 1000).rounded() / 1000) }
        if let rate = number(format["bit_rate"]) { meta["overall_bitrate"] = .int(Int(rate)) }
        if let video {
            // Frames stored landscape with a display rotation (a phone's portrait video) are shown,
            // encoded and thumbnailed upright (ffmpeg rotates them): so are their facts.
            let turned = Self.rotation(of: video).map { abs($0.truncatingRemainder(dividingBy: 180)) == 90 } ?? false
            width = video[turned ? "height" : "width"]?.intValue
            height = video[turned ? "width" : "height"]?.intValue
            if let width, let height {
                meta["width"] = .int(width)
                meta["height"] = .int(height)
            }
            meta["video_codec"] = video["codec_name"].map { $0 } ?? .null
            if let rate = video["avg_frame_rate"]?.stringValue ?? video["r_frame_rate"]?.stringValue, let framerate = Self.ratio(rate) {
                meta["framerate"] = .double((framerate * 1000).rounded() / 1000)
            }
            if let rate = number(video["bit_rate"]) { meta["video_bitrate"] = .int(Int(rate)) }
            if let aspect = video["display_aspect_ratio"]?.stringValue, aspect != "0:1" { meta["aspect_ratio"] = .string(aspect) }
        }
        if let audio {
            meta["audio_codec"] = audio["codec_name"].map { $0 } ?? .null
            if let rate = number(audio["sample_rate"]) { meta["audio_samplerate"] = .int(Int(rate)) }
            if let channels = audio["channels"]?.intValue { meta["audio_channels"] = .int(channels) }
            if let rate = number(audio["bit_rate"]) { meta["audio_bitrate"] = .int(Int(rate)) }
        }
        self.meta = meta
    }

    /// The display rotation of a video stream in degrees, from its display matrix (or the older
    /// `rotate` tag); nil when it has none.
    static func rotation(of stream: JSONValue) -> Double? {
        let fromMatrix = stream["side_data_list"]?.arrayValue?.lazy.compactMap { $0["rotation"]?.doubleValue }.first
        return fromMatrix ?? stream["tags"]?["rotate"]?.stringValue.flatMap(Double.init)
    }

    /// Refuses media longer than the engine takes, from the duration `file` already reports
    /// (uploads and results carry it), else from ffprobe.
    static func checkDuration(of file: AssemblyFile, context: RobotContext) throws(RobotError) {
        if let known = file.meta["duration"]?.doubleValue {
            try check(duration: known, of: file.name, limit: context.limits.mediaDuration)
        } else {
            try check(duration: try MediaFacts(path: file.path, name: file.name, context: context).duration, of: file.name, limit: context.limits.mediaDuration)
        }
    }

    /// Refuses media longer than `limit` seconds.
    static func check(duration: Double?, of name: String, limit: Double) throws(RobotError) {
        if let duration, duration > limit {
            throw RobotError(code: .fileTooLong, message: "'\(name)' lasts \(Int(duration)) s; the local engine takes at most \(Int(limit)) s")
        }
    }

    /// "30000/1001" as a number; nil for "0/0".
    static func ratio(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] != 0 else { return parts.count == 1 ? parts[0] : nil }
        return parts[0] / parts[1]
    }
}
