internal import COpenSSL

/// Random identifiers from OpenSSL's generator.
public enum RandomID {
    /// `count` random bytes (the system generator if OpenSSL's fails).
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        if RAND_bytes(&bytes, Int32(count)) != 1 {
            var generator = SystemRandomNumberGenerator()
            bytes = bytes.map { _ in generator.next() }
        }
        return bytes
    }

    /// 32 lowercase hex digits (128 bits): Assembly ids, upload ids, nonces.
    public static func hex32() -> String { Hex.encode(bytes(16)) }
}
