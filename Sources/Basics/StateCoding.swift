import Foundation

/// The JSON coding of files the tool keeps for itself (resume and engine state): sorted keys,
/// unescaped slashes, ISO 8601 dates.
public enum StateCoding {
    /// An encoder for state files.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Decodes a state file, refusing the duplicate keys that `JSONDecoder` would let through.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        _ = try JSONParser.parse(data)
        return try decoder.decode(type, from: data)
    }

    /// A state file that is a cache (remembered digests, resume records, downloads): read when it
    /// reads, nil when it is missing, damaged or unreadable, and then simply made again.
    public static func cached<Value: Decodable>(_ type: Value.Type, at path: String) -> Value? {
        do { return try decode(type, from: try FileReading.read(path, limit: 1 << 30)) } catch { return nil }  // a cache: missing, unreadable or damaged means none
    }

    /// A cache read into `data` already (see `cached(_:at:)`): nil when there is none or it is damaged.
    public static func cached<Value: Decodable>(_ type: Value.Type, from data: Data?) -> Value? {
        guard let data else { return nil }
        do { return try decode(type, from: data) } catch { return nil }  // a cache: damaged means none
    }

    /// Writes a cache state file (see `cached`), below the folder `trusted` when given; a cache
    /// that cannot be written is only read again next time, so the failure is returned, not thrown.
    @discardableResult
    public static func saveCache<Value: Encodable>(_ value: Value, to path: String, below trusted: String? = nil) -> (any Error)? {
        do {
            let data = try encoder.encode(value)
            try FileManager.default.createDirectory(atPath: FolderPath.of(path), withIntermediateDirectories: true)
            if let trusted { try AtomicFile.write(data, to: path, below: trusted, durable: false) } else { try AtomicFile.write(data, to: path, durable: false) }
            return nil
        } catch {
            return error
        }
    }

    /// A decoder for state files.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
