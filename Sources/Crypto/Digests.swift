import COpenSSL

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
}

/// SHA-256 of bytes in memory, for ids, keys and token hashes.
public enum SHA256 {
    /// Lowercase hex SHA-256 of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digest = StreamingDigest(.sha256)
        bytes.withUnsafeBytes { digest.update($0) }
        return Hex.encode(digest.finish())
    }

    /// Lowercase hex SHA-256 of the UTF-8 bytes of `text`.
    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }
}
