import Basics

/// `/s3/store`: stores each file in an S3 bucket (AWS or any S3-compatible `host`) when the step
/// has credentials the engine knows, a key or a host; otherwise it is emulated as the other
/// stores are (`EmulatedStore`). See `StorageSteps`.
public enum S3Store: RobotDeclaration {
    public static let names = ["/s3/store"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.perSourceFile

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case credentials, path, bucket, key, secret, host, headers, tags, acl
            case bucketRegion = "bucket_region", sessionToken = "session_token", noVhost = "no_vhost", urlPrefix = "url_prefix"
            case checkIntegrity = "check_integrity", signURLsFor = "sign_urls_for"

            public var localValues: [String]? { self == .acl ? ["public-read", "public", "private", "bucket-default"] : nil }
        }

        /// Where the bucket is and as whom.
        public let connection: S3ConnectionOptions
        /// Where each file goes in the bucket, with the service's variables.
        public let path: String
        /// What the results' URLs start with; nil for the bucket's own URL.
        public let urlPrefix: String?
        /// The canned ACL; nil for the bucket's default.
        public let acl: String?
        /// Headers for each object (values may hold variables), in name order.
        public let headers: [(name: String, value: String)]
        /// Object tags.
        public let tags: [String: String]
        /// Whether each body's SHA-256 is sent for the service to check.
        public let checkIntegrity: Bool
        /// How long pre-signed URLs last, in seconds; nil for none.
        public let signURLsFor: Int?

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            connection = try S3ConnectionOptions(
                credentials: options.set(.credentials)?.stringValue, bucket: options.set(.bucket)?.stringValue,
                bucketRegion: options.set(.bucketRegion)?.stringValue, key: options.set(.key)?.stringValue, secret: options.set(.secret)?.stringValue,
                sessionToken: options.set(.sessionToken)?.stringValue, host: options.set(.host)?.stringValue, noVhost: options.set(.noVhost)?.boolValue)
            if let name = connection.credentials, name.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9._-]{0,99}/) == nil {
                throw RobotOptionError(Option.credentials, "credentials '\(name)' must be a name of letters, digits, '.', '-' and '_'")
            }
            path = try options.string(.path, default: EmulatedStore.defaultPath)
            guard !path.isEmpty else { throw RobotOptionError(Option.path, "'path' is empty") }
            urlPrefix = try options.set(.urlPrefix)?.stringValue
            let acl = try options.choice(.acl, default: "public-read")
            self.acl = acl == "bucket-default" ? nil : acl == "public" ? "public-read" : acl
            var headers: [(name: String, value: String)] = []
            if let given = try options.set(.headers) {
                guard let object = given.objectValue else { throw RobotOptionError(Option.headers, "'headers' is an object of header names and values") }
                for (name, value) in object.sorted(by: { $0.key < $1.key }) {
                    guard name.wholeMatch(of: /[A-Za-z0-9-]{1,100}/) != nil, let text = value.stringValue, !text.contains("\r"), !text.contains("\n") else {
                        throw RobotOptionError(Option.headers, "'headers' takes names of letters, digits and '-' with one-line string values")
                    }
                    headers.append((name, text))
                }
            }
            self.headers = headers
            let tags = try options.set(.tags)?.objectValue ?? [:]
            guard tags.count <= 10, tags.values.allSatisfy({ $0.stringValue != nil }) else {
                throw RobotOptionError(Option.tags, "'tags' is an object of at most 10 string values")
            }
            self.tags = tags.compactMapValues(\.stringValue)
            checkIntegrity = try options.bool(.checkIntegrity, default: false)
            signURLsFor = try options.integer(.signURLsFor, in: 1...604_800)
        }
    }
}

/// `/s3/import`: fetches the object at each `path`, or the objects below it, from an S3 bucket.
public enum S3Import: RobotDeclaration {
    public static let names = ["/s3/import"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.wholeAssembly

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, S3ImportOption {
            case credentials, path, bucket, key, secret, recursive
            case bucketRegion = "bucket_region", filesPerPage = "files_per_page", pageNumber = "page_number"
        }

        /// Where the bucket is and as whom (its host only from named credentials).
        public let connection: S3ConnectionOptions
        /// What is imported.
        public let selection: S3ImportSelection

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            connection = try S3ConnectionOptions(
                credentials: options.set(.credentials)?.stringValue, bucket: options.set(.bucket)?.stringValue,
                bucketRegion: options.set(.bucketRegion)?.stringValue, key: options.set(.key)?.stringValue, secret: options.set(.secret)?.stringValue,
                sessionToken: nil, host: nil, noVhost: nil)
            selection = try S3ImportSelection(options)
        }
    }
}

/// Where a storage step's bucket is and as whom, as the step writes it (any of it may come from
/// named credentials instead).
public struct S3ConnectionOptions: Sendable, Equatable {
    /// The named credentials.
    public var credentials: String?
    /// The bucket.
    public var bucket: String?
    /// Its region.
    public var bucketRegion: String?
    /// The access key id.
    public var key: String?
    /// The secret (`[hidden]` once the engine has taken it out of the step).
    public var secret: String?
    /// A temporary key's session token.
    public var sessionToken: String?
    /// An S3-compatible service's host.
    public var host: String?
    /// Whether the bucket goes in the path (nil: the default for the host).
    public var noVhost: Bool?

    /// Creates connection options.
    public init(credentials: String?, bucket: String?, bucketRegion: String?, key: String?, secret: String?, sessionToken: String?, host: String?, noVhost: Bool?) {
        self.credentials = credentials
        self.bucket = bucket
        self.bucketRegion = bucketRegion
        self.key = key
        self.secret = secret
        self.sessionToken = sessionToken
        self.host = host
        self.noVhost = noVhost
    }
}
