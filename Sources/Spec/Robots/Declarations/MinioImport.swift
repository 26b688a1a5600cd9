/// `/minio/import`: `/s3/import` from an S3-compatible service at the step's `host` (MinIO,
/// SeaweedFS, R2…), buckets addressed in the path.
public enum MinioImport: RobotDeclaration {
    public static let names = ["/minio/import"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.wholeAssembly

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case credentials, path, bucket, key, secret, host, recursive
            case filesPerPage = "files_per_page", pageNumber = "page_number"
        }

        /// Where the bucket is and as whom.
        public let connection: S3ConnectionOptions
        /// The keys or folders to import (`""`: the whole bucket).
        public let paths: [String]
        /// Whether folders below are imported too.
        public let recursive: Bool
        /// The page size of a recursive import.
        public let filesPerPage: Int
        /// The page of a recursive import.
        public let pageNumber: Int

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            connection = try S3ConnectionOptions(
                credentials: options.set(.credentials)?.stringValue, bucket: options.set(.bucket)?.stringValue, bucketRegion: nil,
                key: options.set(.key)?.stringValue, secret: options.set(.secret)?.stringValue, sessionToken: nil,
                host: options.set(.host)?.stringValue, noVhost: nil)
            paths = try options.strings(.path) ?? [""]
            recursive = try options.bool(.recursive, default: false)
            filesPerPage = try options.integer(.filesPerPage, in: 1...1000, default: 1000)
            pageNumber = try options.integer(.pageNumber, in: 1...Int.max, default: 1)
        }
    }
}
