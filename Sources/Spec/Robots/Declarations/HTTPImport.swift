import Foundation

/// `/http/import`: fetches the files at `url` into the Assembly.
public enum HTTPImport: RobotDeclaration {
    public static let names = ["/http/import"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.wholeAssembly
    /// The most URLs one step fetches.
    public static let maxURLs = 100
    /// Headers that frame the request or its connection, which a step cannot set.
    public static let reservedHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "expect",
        "proxy-authorization", "proxy-connection", "accept-encoding",
    ]

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case url, headers
            case urlDelimiter = "url_delimiter"
            case forceName = "force_name"
            case ignoreErrors = "ignore_errors"
            case importOnErrors = "import_on_errors"
            case maxFileSize = "max_file_size"
        }

        /// The URLs, in the order given (not yet checked to be http(s): the engine does that).
        public let urls: [String]
        /// The names the files get, in order (the last one for the rest).
        public let forcedNames: [String]
        /// Request headers.
        public let headers: [(name: String, value: String)]
        /// The largest file fetched.
        public let maxBytes: Int64?
        /// `ignore_errors` (or `import_on_errors`) includes "import": URLs that fail are skipped.
        public let skipsFailures: Bool

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            let delimiter = try options.string(.urlDelimiter, default: "|")
            var urls = try options.strings(.url) ?? []
            if try options.value(.url)?.stringValue != nil { urls = urls.flatMap { $0.components(separatedBy: delimiter) } }
            urls = urls.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !urls.isEmpty else { throw RobotOptionError(Option.url, "'url' must give the URL to import") }
            guard urls.count <= HTTPImport.maxURLs else {
                throw RobotOptionError(Option.url, "'url' lists \(urls.count) URLs; one step imports at most \(HTTPImport.maxURLs)")
            }
            self.urls = urls
            forcedNames = try options.strings(.forceName) ?? []
            headers = try (options.strings(.headers) ?? []).map(Self.header)
            maxBytes = try options.integer(.maxFileSize, in: 1...Int.max).map(Int64.init)
            let onErrors = try options.strings(.importOnErrors) ?? []
            skipsFailures = (RobotCatalog.ignoredPhases(try options.value(.ignoreErrors)) ?? []).contains("import") || onErrors.contains("import")
        }

        private static func header(_ line: String) throws(RobotOptionError) -> (name: String, value: String) {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].range(of: #"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"#, options: .regularExpression) != nil,
                  !parts[1].unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw RobotOptionError(Option.headers, "each of 'headers' must be 'Name: value' on one line")
            }
            guard !HTTPImport.reservedHeaders.contains(parts[0].lowercased()) else {
                throw RobotOptionError(Option.headers, "'headers' may not set '\(parts[0])': the engine sets it for each request")
            }
            return (parts[0], parts[1])
        }
    }
}
