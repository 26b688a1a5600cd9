import COpenSSL

/// SHA-256 of bytes in memory, for ids derived from content.
enum Sha256 {
    static func hex(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) }
        return Hex.encode(digest.prefix(Int(length)))
    }
}
