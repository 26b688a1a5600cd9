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

    /// A decoder for state files.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
