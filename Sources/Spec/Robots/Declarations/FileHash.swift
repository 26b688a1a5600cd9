/// `/file/hash`: adds the file's digest to its `meta`.
public enum FileHash: RobotDeclaration {
    public static let names = ["/file/hash"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.perSourceFile

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case algorithm

            public var localValues: [String]? { ["md5", "sha1", "sha256", "sha384", "sha512"] }
        }

        /// The digest's algorithm (what the hosted robot offers that OpenSSL computes here).
        public let algorithm: String

        public init(from decoder: any Decoder) throws {
            algorithm = try OptionReader<Option>(decoder).choice(.algorithm, default: "sha256")
        }
    }
}
