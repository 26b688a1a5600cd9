/// `/audio/waveform`: a picture of the waveform, or its peaks as JSON.
public enum AudioWaveform: RobotDeclaration {
    public static let names = ["/audio/waveform"]
    public static let inputs = RobotInputs.kinds([.audio, .video])
    public static let digest = RobotDigest.perSourceFile

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case width, height, format
            case outerColor = "outer_color"

            public var localValues: [String]? { self == .format ? ["image", "json"] : nil }
        }

        /// Whether it writes the peaks as JSON (else a PNG).
        public let json: Bool
        /// The picture's size, or the number of peaks' columns.
        public let width: Int
        /// The picture's height in pixels.
        public let height: Int
        /// The waveform's colour as ffmpeg takes it (`0xrrggbb` or `0xrrggbbaa`).
        public let color: String

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            json = try options.choice(.format, default: "image") == "json"
            width = try options.integer(.width, in: 1...10_000, default: 256)
            height = try options.integer(.height, in: 1...10_000, default: 64)
            let text = try options.value(.outerColor)?.stringValue ?? "000000ff"
            let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard [6, 8].contains(hex.count), hex.allSatisfy(\.isHexDigit) else {
                throw RobotOptionError(Option.outerColor, "outer_color '\(text)' is not a color such as #000000ff")
            }
            color = "0x" + hex
        }
    }
}
