internal import COpenSSL

/// Lowercase hexadecimal encoding.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The bytes as lowercase hex.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { output in
            var index = 0
            for byte in bytes {
                output[index] = digits[Int(byte >> 4)]
                output[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// The bytes of lowercase or uppercase hex text; nil for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        func value(_ character: UInt8) -> UInt8? {
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let high = value(characters[index]), let low = value(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}

/// SHA-256 of bytes in memory, for ids, keys and token hashes.
public enum SHA256 {
    /// Lowercase hex SHA-256 of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        Hex.encode(bytes.withUnsafeBytes { StreamingDigest.inMemory(.sha256, $0) })
    }

    /// Lowercase hex SHA-256 of the UTF-8 bytes of `text`.
    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }
}
