import Basics
import Crypto
import Foundation

/// Remembers upload URLs across process restarts: one small JSON file per upload, keyed by the
/// endpoint and the file's identity, written atomically and removed once the upload completes.
/// It holds no secret: URLs, paths, sizes and times only.
public struct ResumeStore: Sendable {
    /// What is remembered about one upload.
    public struct Entry: Codable, Sendable, Equatable {
        /// The upload's URL on the server.
        public var uploadURL: String
        /// The creation endpoint it belongs to.
        public var endpoint: String
        /// The file's absolute path.
        public var path: String
        /// The file's size.
        public var size: Int64
        /// When the server will forget the upload, if it said.
        public var expires: Date?

        /// Creates an entry.
        public init(uploadURL: String, endpoint: String, path: String, size: Int64, expires: Date?) {
            self.uploadURL = uploadURL
            self.endpoint = endpoint
            self.path = path
            self.size = size
            self.expires = expires
        }

        enum CodingKeys: String, CodingKey {
            case uploadURL = "upload_url", endpoint, path, size, expires
        }
    }

    /// The folder the entries live in.
    public let directory: String

    /// Creates a store in `directory` (created on first save).
    public init(directory: String) {
        self.directory = directory
    }

    /// The key of `file` uploaded to `endpoint`: SHA-256 of both identities.
    public static func key(endpoint: String, file: LocalFile) -> String {
        SHA256.hex([endpoint, file.path, String(file.size), String(file.modified), file.sample].joined(separator: "\n"))
    }

    /// The entry for `key`, unless missing, unreadable or expired (then it is removed).
    public func load(_ key: String, now: Date = Date()) -> Entry? {
        guard let entry = StateCoding.cached(Entry.self, at: path(key)) else { return nil }
        if let expires = entry.expires, expires <= now.addingTimeInterval(60) {
            remove(key)
            return nil
        }
        return entry
    }

    /// Saves the entry for `key` atomically.
    public func save(_ entry: Entry, for key: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try AtomicFile.write(try StateCoding.encoder.encode(entry), to: path(key))
    }

    /// Forgets `key`.
    public func remove(_ key: String) {
        unlink(path(key))
    }

    private func path(_ key: String) -> String { directory + "/" + key + ".json" }
}
