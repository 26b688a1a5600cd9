/// The options every S3 import robot shares, whatever the service: what to import, and which page.
public protocol S3ImportOption: RobotOption {
    /// `path`: the keys or folders to import.
    static var path: Self { get }
    /// `recursive`: folders below too.
    static var recursive: Self { get }
    /// `files_per_page`: the page size of a recursive import.
    static var filesPerPage: Self { get }
    /// `page_number`: the page of a recursive import.
    static var pageNumber: Self { get }
}

/// What an S3 import step imports: `/s3/import`'s and `/minio/import`'s `path`, `recursive`,
/// `files_per_page` and `page_number`.
public struct S3ImportSelection: Sendable, Equatable {
    /// The keys or folders to import (`""`: the whole bucket).
    public let paths: [String]
    /// Whether folders below are imported too.
    public let recursive: Bool
    /// The page size of a recursive import.
    public let filesPerPage: Int
    /// The page of a recursive import.
    public let pageNumber: Int

    /// Reads the selection from a step's options.
    public init<Option: S3ImportOption>(_ options: OptionReader<Option>) throws {
        paths = try options.strings(.path) ?? [""]
        recursive = try options.bool(.recursive, default: false)
        filesPerPage = try options.integer(.filesPerPage, in: 1...1000, default: 1000)
        pageNumber = try options.integer(.pageNumber, in: 1...Int.max, default: 1)
    }
}
