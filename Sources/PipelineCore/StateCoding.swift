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

    /// A decoder for state files.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
