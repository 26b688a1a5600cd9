import Foundation

/// The state of one object written by appends (a tus upload, PATCH after PATCH, on any instance):
/// the parts of its multipart upload sent so far, each `partSize` long, and the tail, the bytes
/// after them (under one part), kept in an object of its own, `tailKey`. `S3ResumableWriter`
/// returns a new state from each call; the caller saves it, and S3 holds what the saved state says
/// even when a later call is cut short.
public struct S3ResumableUpload: Codable, Sendable, Equatable {
    /// A part sent.
    public typealias Part = S3UploadedPart

    /// The key of the object the upload makes.
    public let key: String
    /// The size of every part but the last (at least 5 MiB; 10,000 of them hold the largest size allowed).
    public let partSize: Int64
    /// The declared total, when known (tus's `Upload-Length`, which may come after the first appends).
    public var length: Int64?
    /// The headers the object is made with (`Content-Type`…).
    public var headers: [String: String]
    /// The multipart upload's id, once the first part was sent.
    public var uploadID: String?
    /// The parts sent, numbered from 1.
    public var parts: [Part]
    /// The bytes in the tail object.
    public var tailSize: Int64
    /// The ETag of the tail object as the last append wrote it (what names its local copy).
    public var tailETag: String?
    /// A tail object the state before this one used, removed by the next call (not sooner: until
    /// this state is saved, the one before may be continued from).
    public var staleTailKey: String?

    /// Bytes stored: the parts' and the tail's.
    public var offset: Int64 { parts.reduce(0) { $0 + $1.size } + tailSize }

    /// The tail object: `<key>.part<N>`, N the number it will be sent as. An append that sends
    /// parts writes the next tail beside this one, so this state stays whole until replaced.
    public var tailKey: String { Self.tailPrefix(key) + String(parts.count + 1) }

    /// The most bytes the upload may hold: 10,000 parts (and never more than S3's 5 TiB).
    public var capacity: Int64 { min(partSize * S3PartSize.maximumParts, S3PartSize.maximumObject) }

    /// A new, empty upload of `key`: parts sized for `length` bytes, or, when the length is not
    /// known yet, for `maximumSize` (the most any upload may hold). Throws when that is more than
    /// S3 stores in one object.
    public init(key: String, length: Int64?, maximumSize: Int64, headers: [String: String] = [:]) throws {
        guard let size = Self.partSize(length: length, maximumSize: maximumSize) else {
            throw S3Error(
                operation: "start the resumable upload of '\(key)'", status: nil, code: "EntityTooLarge",
                message: "\(length ?? maximumSize) bytes is more than S3 stores in one object (5 TiB): lower the maximum upload size")
        }
        self.key = key
        self.partSize = size
        self.length = length
        self.headers = headers
        self.parts = []
        self.tailSize = 0
    }

    /// The part size for an object of `length` bytes (of at most `maximumSize` when unknown): 5 MiB,
    /// or more when 10,000 parts of 5 MiB would not hold it; nil beyond 5 TiB.
    public static func partSize(length: Int64?, maximumSize: Int64) -> Int64? {
        S3PartSize(objectSize: length ?? maximumSize)?.partSize
    }

    /// What every tail object of the upload of `key` starts with.
    static func tailPrefix(_ key: String) -> String { key + ".part" }

    /// `headers` as requests take them, sorted by name.
    var headerList: [(name: String, value: String)] { headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
}
