import Basics
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

extension TusUploadRecord {
    /// The record as its file beside the bytes holds it: the JSON `StateCoding.encoder` makes of it
    /// (which reads it back), built directly, as `AssemblyRecord.stateJSON` is.
    func stateJSON() -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "offset": .int(Int(offset)), "metadata": .object(metadata.mapValues(JSONValue.string)),
            "created": .string(AuthTime.format(created)), "expires": .string(AuthTime.format(expires)),
        ]
        object["length"] = length.map { .int(Int($0)) }
        return .object(object)
    }
}
