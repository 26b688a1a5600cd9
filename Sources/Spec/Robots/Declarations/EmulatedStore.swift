/// The export robots (`/s3/store` and every other `/…/store` of the catalog), emulated: the
/// local engine copies the files into its own `exports/` folder instead of sending them anywhere.
public enum EmulatedStore: RobotDeclaration {
    /// Every `/…/store` robot of the catalog.
    public static let names = RobotCatalog.exports.sorted()
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.perSourceFile
    /// Where a file goes below the account's folder when the step gives no `path`.
    public static let defaultPath = "${unique_prefix}/${file.url_name}"

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case credentials, path
        }

        /// The folder the files go to: named credentials get their own; keys given inline do not name themselves.
        public let account: String
        /// Where each file goes below it, with the service's variables.
        public let path: String

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            let credentials = try options.value(.credentials)?.stringValue ?? "default"
            guard credentials.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9._-]{0,99}/) != nil else {
                throw RobotOptionError(Option.credentials, "credentials '\(credentials)' must be a name of letters, digits, '.', '-' and '_'")
            }
            account = credentials
            path = try options.value(.path)?.stringValue ?? EmulatedStore.defaultPath
            guard !path.isEmpty else { throw RobotOptionError(Option.path, "'path' is empty") }
        }
    }
}
