import Basics
import Foundation
import Spec
import Wire

/// `/video/encode` with ffmpeg: the common presets, `width`/`height`/`resize_strategy`,
/// `format` (mp4 or gif) and a few `ffmpeg` options (bit rates, quality, frame rate).
struct VideoEncodeRobot: Sendable {
    /// A preset: the container's extension and the codec arguments; `box` is the frame size it
    /// fits into unless the step gives `width` or `height`.
    struct Preset: Sendable {
        var ext: String
        var video: [String]
        var audio: [String]
        var box: (width: Int, height: Int)?
    }

    static let h264 = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast"]
    static let presets: [String: Preset] = [
        "empty": Preset(ext: "mp4", video: h264 + ["-crf", "23"], audio: ["-c:a", "aac", "-b:a", "128k"]),
        "ipad-high": Preset(ext: "mp4", video: h264 + ["-profile:v", "high", "-b:v", "2000k", "-maxrate", "2500k", "-bufsize", "5000k"],
                            audio: ["-c:a", "aac", "-b:a", "160k"], box: (1024, 768)),
        "ipad": Preset(ext: "mp4", video: h264 + ["-profile:v", "main", "-b:v", "1200k"], audio: ["-c:a", "aac", "-b:a", "128k"], box: (1024, 768)),
        "iphone-high": Preset(ext: "mp4", video: h264 + ["-profile:v", "main", "-b:v", "1500k"], audio: ["-c:a", "aac", "-b:a", "128k"], box: (960, 640)),
        "iphone": Preset(ext: "mp4", video: h264 + ["-profile:v", "baseline", "-b:v", "800k"], audio: ["-c:a", "aac", "-b:a", "96k"], box: (480, 320)),
        "android": Preset(ext: "mp4", video: h264 + ["-profile:v", "baseline", "-b:v", "800k"], audio: ["-c:a", "aac", "-b:a", "96k"], box: (480, 320)),
        "web/mp4/720p": Preset(ext: "mp4", video: h264 + ["-crf", "23"], audio: ["-c:a", "aac", "-b:a", "128k"], box: (1280, 720)),
        "web/mp4/1080p": Preset(ext: "mp4", video: h264 + ["-crf", "23"], audio: ["-c:a", "aac", "-b:a", "160k"], box: (1920, 1080)),
        "webm": Preset(ext: "webm", video: ["-c:v", "libvpx", "-b:v", "1000k", "-deadline", "realtime", "-cpu-used", "8"],
                       audio: ["-c:a", "libvorbis", "-b:a", "128k"]),
        "web/webm/720p": Preset(ext: "webm", video: ["-c:v", "libvpx", "-b:v", "1500k", "-deadline", "realtime", "-cpu-used", "8"],
                                audio: ["-c:a", "libvorbis", "-b:a", "128k"], box: (1280, 720)),
    ].merging(hls) { first, _ in first }

    /// The `hls-*` (and `hls/*`) presets: H.264 and AAC in MPEG-TS with a key frame every two
    /// seconds, ready to be cut into HLS segments (which `/video/adaptive` does on the service).
    static let hls: [String: Preset] = {
        let renditions: [(name: String, width: Int, height: Int, video: String, audio: String)] = [
            ("270p", 480, 270, "400k", "64k"), ("360p", 640, 360, "800k", "96k"), ("480p", 854, 480, "1200k", "128k"),
            ("540p", 960, 540, "1500k", "128k"), ("576p", 1024, 576, "1800k", "128k"), ("720p", 1280, 720, "2500k", "128k"),
            ("1080p", 1920, 1080, "5000k", "160k"),
        ]
        var presets: [String: Preset] = [:]
        for rendition in renditions {
            let preset = Preset(
                ext: "ts",
                video: h264 + ["-profile:v", "main", "-b:v", rendition.video, "-force_key_frames", "expr:gte(t,n_forced*2)", "-sc_threshold", "0"],
                audio: ["-c:a", "aac", "-b:a", rendition.audio, "-ac", "2"], box: (rendition.width, rendition.height))
            presets["hls-" + rendition.name] = preset
            presets["hls/" + rendition.name] = preset
        }
        return presets
    }()
    let preset: Preset
    let gif: Bool
    let width: Int?
    let height: Int?
    let strategy: String
    let extra: [String]

    init(_ parameters: VideoEncode.Parameters) throws(RobotError) {
        let name = parameters.preset
        guard let preset = Self.presets[name] else {
            throw RobotError(code: .invalidStepParameter, message: "preset '\(name)' does not run locally; it runs " + Self.presets.keys.sorted().joined(separator: ", "))
        }
        self.preset = preset
        gif = parameters.format == "gif"
        if gif, parameters.presetGiven, name != "empty" {
            throw RobotError(code: .invalidStepParameter, message: "'format: gif' makes an animated GIF, which preset '\(name)' has no part in; drop one of them")
        }
        if parameters.format == "mp4", preset.ext != "mp4" {
            throw RobotError(code: .invalidStepParameter, message: "preset '\(name)' makes \(preset.ext), not mp4; drop 'format' or choose an mp4 preset")
        }
        width = parameters.width ?? (parameters.heightGiven ? nil : preset.box?.width)
        height = parameters.height ?? (parameters.widthGiven ? nil : preset.box?.height)
        strategy = parameters.resizeStrategy
        extra = parameters.ffmpegArguments
    }

    func encode(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        try MediaFacts.checkDuration(of: file, context: context)
        let slot = try ResultSlot(name: file.basename + "." + (gif ? "gif" : preset.ext), in: context.folder)
        var arguments = FFmpeg.input(file.path)
        let geometry = VideoGeometry.filter(width: width, height: height, strategy: strategy)
        if gif {
            arguments += ["-vf", geometry + ",fps=10", "-an", "-f", "gif"]
        } else {
            arguments += ["-vf", geometry] + preset.video + preset.audio + extra
            if preset.ext == "mp4" { arguments += ["-movflags", "+faststart"] }
        }
        try FFmpeg.run(arguments + [slot.path], for: file, context: context, code: .videoEncodeValidation)
        return slot.file(from: file)
    }
}

extension VideoEncode: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) throws(RobotError) -> RobotWork { .eachFile(try VideoEncodeRobot(parameters)) }
}

extension VideoEncodeRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try encode(file, context: context)] }
}
