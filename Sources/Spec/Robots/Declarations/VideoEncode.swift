import Basics
import Foundation

/// `/video/encode`: video re-encoded with ffmpeg by a preset, or made an animated GIF.
public enum VideoEncode: RobotDeclaration {
    public static let names = ["/video/encode"]
    public static let inputs = RobotInputs.kinds([.video])
    public static let digest = RobotDigest.perSourceFile

    /// The presets the local engine runs (their codecs are the engine's).
    public static let presets: [String] = {
        let hls = ["270p", "360p", "480p", "540p", "576p", "720p", "1080p"].flatMap { ["hls-" + $0, "hls/" + $0] }
        return ["android", "empty", "ipad", "ipad-high", "iphone", "iphone-high", "web/mp4/1080p", "web/mp4/720p", "web/webm/720p", "webm"] + hls
    }()

    /// The `ffmpeg` options a step may set, with the values they accept (bit rates in bits per
    /// second, `k` and `M` allowed): bounded, so an option cannot multiply the work of a file.
    public static let ffmpegOverrides: [String: ClosedRange<Double>] = [
        "b:v": 1_000...100_000_000, "b:a": 1_000...1_000_000, "crf": 0...63, "r": 1...240, "ar": 8_000...192_000, "ac": 1...8,
    ]

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case preset, width, height, format, ffmpeg
            case resizeStrategy = "resize_strategy"

            public var localValues: [String]? {
                switch self {
                case .preset: VideoEncode.presets
                case .format: ["gif", "mp4"]
                case .resizeStrategy: LocalChoices.strategies
                default: nil
                }
            }
        }

        /// The preset's name (`empty` when none is given).
        public let preset: String
        /// Whether the step names its preset.
        public let presetGiven: Bool
        /// `mp4` or `gif`, when given.
        public let format: String?
        /// The frame size asked for (nil: the preset's, else the video's own).
        public let width: Int?
        /// The frame height asked for.
        public let height: Int?
        /// Whether the step gives `width` (`null` included): it replaces the preset's size.
        public let widthGiven: Bool
        /// Whether the step gives `height` (`null` included): it replaces the preset's size.
        public let heightGiven: Bool
        /// How frames fit into that size.
        public let resizeStrategy: String
        /// The allowed `ffmpeg` options as arguments.
        public let ffmpegArguments: [String]

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            preset = try options.choice(.preset, default: "empty")
            presetGiven = options.isGiven(.preset)
            format = options.isGiven(.format) ? try options.choice(.format, default: "mp4") : nil
            width = try options.integer(.width, in: 1...7680)
            height = try options.integer(.height, in: 1...4320)
            widthGiven = options.isGiven(.width)
            heightGiven = options.isGiven(.height)
            resizeStrategy = try options.choice(.resizeStrategy, default: "pad")
            ffmpegArguments = try Self.ffmpegArguments(try options.value(.ffmpeg))
        }

        /// The allowed `ffmpeg` options as arguments: `{"b:v": "800k", "r": 25}`, and `map_metadata: -1`
        /// (none of the source's metadata, such as its GPS position and who made it, in the result).
        static func ffmpegArguments(_ value: JSONValue?) throws(RobotOptionError) -> [String] {
            guard let value else { return [] }
            guard let object = value.objectValue else { throw RobotOptionError(Option.ffmpeg, "'ffmpeg' must be an object") }
            var arguments: [String] = []
            for (key, option) in object.sorted(by: { $0.key < $1.key }) {
                if key == "map_metadata" {
                    guard option.intValue == -1 || option.stringValue == "-1" else {
                        throw RobotOptionError(Option.ffmpeg, "ffmpeg option 'map_metadata' runs locally only as -1 (no metadata of the source), not \(option.serialized())")
                    }
                    arguments += ["-map_metadata", "-1"]
                    continue
                }
                guard let range = ffmpegOverrides[key] else {
                    throw RobotOptionError(Option.ffmpeg, "ffmpeg option '\(key)' is not allowed locally; allowed: " + (ffmpegOverrides.keys.sorted() + ["map_metadata"]).joined(separator: ", "))
                }
                let text = option.stringValue ?? option.intValue.map(String.init) ?? option.doubleValue.map { String($0) } ?? ""
                let bitrate = key.hasPrefix("b:")
                let scale: Double = !bitrate ? 1 : text.hasSuffix("k") || text.hasSuffix("K") ? 1_000 : text.hasSuffix("M") || text.hasSuffix("m") ? 1_000_000 : 1
                let digits = scale == 1 ? text : String(text.dropLast())
                guard let number = Double(digits), number.isFinite, range.contains(number * scale),
                      text.range(of: bitrate ? #"^[0-9]+(\.[0-9]+)?[kKmM]?$"# : #"^[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil else {
                    let bounds = "\(Int(range.lowerBound)) to \(Int(range.upperBound))"
                    throw RobotOptionError(Option.ffmpeg, "ffmpeg option '\(key)' must be \(bitrate ? "a bit rate from " + bounds + " (800k)" : "a number from " + bounds), not '\(text)'")
                }
                arguments += ["-" + key, text]
            }
            return arguments
        }
    }
}
