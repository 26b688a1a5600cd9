/// `/image/optimize`: lossless re-encoding (jpegtran, optipng), never larger than the input.
public enum ImageOptimize: RobotDeclaration {
    public static let names = ["/image/optimize"]
    public static let inputs = RobotInputs.kinds([.image])
    public static let digest = RobotDigest.perSourceFile

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case progressive
            case preserveMetaData = "preserve_meta_data"
        }

        /// Whether JPEGs become progressive.
        public let progressive: Bool
        /// Whether the file's metadata is kept.
        public let keepMetadata: Bool

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            progressive = try options.bool(.progressive, default: false)
            keepMetadata = try options.bool(.preserveMetaData, default: true)
        }
    }
}
