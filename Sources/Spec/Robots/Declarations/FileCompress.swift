/// `/file/compress`: all of a step's input files in one archive.
public enum FileCompress: RobotDeclaration {
    public static let names = ["/file/compress"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.bundle

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case format, gzip, password
            case archiveName = "archive_name"
            case compressionLevel = "compression_level"
            case fileLayout = "file_layout"

            public var localValues: [String]? {
                switch self {
                case .format: ["tar", "zip"]
                case .fileLayout: ["advanced", "relative-path", "simple"]
                default: nil
                }
            }
        }

        /// Whether it writes a zip (else a tar).
        public let zip: Bool
        /// Whether a tar is gzipped.
        public let gzip: Bool
        /// The archive's name, without its extension.
        public let archiveName: String
        /// From 0 (none) to 9 (most).
        public let level: Int
        /// Whether every file sits at the archive's top (`file_layout: simple`).
        public let flat: Bool

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            zip = try options.choice(.format, default: "tar") == "zip"
            gzip = try options.bool(.gzip, default: false)
            archiveName = try options.string(.archiveName, default: "archive")
            level = -(try options.integer(.compressionLevel, in: -9...0, default: -6))
            flat = try options.choice(.fileLayout, default: "advanced") == "simple"
            if try options.set(.password) != nil {
                throw RobotOptionError(Option.password, "the local engine does not encrypt archives; remove 'password' or use another endpoint")
            }
        }
    }
}
