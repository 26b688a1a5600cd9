/// `/audio/encode`: audio re-encoded with ffmpeg by a preset.
public enum AudioEncode: RobotDeclaration {
    public static let names = ["/audio/encode"]
    public static let inputs = RobotInputs.kinds([.audio, .video])
    public static let digest = RobotDigest.perSourceFile

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case preset, bitrate
            case sampleRate = "sample_rate"

            public var localValues: [String]? { self == .preset ? ["aac", "flac", "mp3", "ogg", "opus"] : nil }
        }

        /// The preset's name.
        public let preset: String
        /// Bits per second.
        public let bitrate: Int?
        /// Samples per second.
        public let sampleRate: Int?

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            preset = try options.choice(.preset, default: "mp3")
            bitrate = try options.integer(.bitrate, in: 8_000...640_000)
            sampleRate = try options.integer(.sampleRate, in: 8_000...192_000)
        }
    }
}
