import COpenSSL

/// Lowercase hexadecimal encoding.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The bytes as lowercase hex.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// SHA-256 of bytes in memory (OpenSSL), for ids, keys and token hashes.
public enum SHA256 {
    /// Lowercase hex SHA-256 of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) }
        return Hex.encode(digest.prefix(Int(length)))
    }

    /// Lowercase hex SHA-256 of the UTF-8 bytes of `text`.
    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }
}
