import Foundation

/// What the engine remembers about one tus upload (stored as JSON beside its bytes).
public struct TusUploadRecord: Codable, Sendable, Equatable {
    /// 32 lowercase hex characters.
    public var id: String
    /// The total length; `nil` while deferred.
    public var length: Int64?
    /// The bytes stored so far.
    public var offset: Int64
    /// Decoded `Upload-Metadata`.
    public var metadata: [String: String]
    /// When the upload was created.
    public var created: Date
    /// When an unfinished upload is forgotten.
    public var expires: Date

    /// Whether every byte has arrived.
    public var isFinished: Bool { length.map { offset == $0 } ?? false }

    enum CodingKeys: String, CodingKey {
        case id, length, offset, metadata, created, expires
    }
}
