/// `/file/decompress`: every regular file of each input archive becomes a result.
public enum FileDecompress: RobotDeclaration {
    public static let names = ["/file/decompress"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.wholeAssembly

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case password
        }

        /// What opens encrypted archives (anything but a string is no password, as on the service).
        public let password: String?

        public init(from decoder: any Decoder) throws {
            password = try OptionReader<Option>(decoder).value(.password)?.stringValue
        }
    }
}
