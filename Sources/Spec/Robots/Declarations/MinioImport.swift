/// `/minio/import`: `/s3/import` from an S3-compatible service at the step's `host` (MinIO,
/// SeaweedFS, R2…), buckets addressed in the path.
public enum MinioImport: RobotDeclaration {
    public static let names = ["/minio/import"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.wholeAssembly

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, S3ImportOption {
            case credentials, path, bucket, key, secret, host, recursive
            case filesPerPage = "files_per_page", pageNumber = "page_number"
        }

        /// Where the bucket is and as whom.
        public let connection: S3ConnectionOptions
        /// What is imported.
        public let selection: S3ImportSelection

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            connection = try S3ConnectionOptions(
                credentials: options.set(.credentials)?.stringValue, bucket: options.set(.bucket)?.stringValue, bucketRegion: nil,
                key: options.set(.key)?.stringValue, secret: options.set(.secret)?.stringValue, sessionToken: nil,
                host: options.set(.host)?.stringValue, noVhost: nil)
            selection = try S3ImportSelection(options)
        }
    }
}
