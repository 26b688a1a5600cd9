/// A SHA-256 digest in 32 bytes held inline (no allocation): a plan keeps one per file, so a
/// million files cost 32 MB of digests rather than four times that as hex strings.
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    // Big-endian words: the first byte of the digest is the top byte of `first`.
    private var first: UInt64 = 0, second: UInt64 = 0, third: UInt64 = 0, fourth: UInt64 = 0

    /// The digest made of exactly 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        for (index, byte) in bytes.enumerated() {
            self[index / 8] |= UInt64(byte) << UInt64(56 - 8 * (index % 8))
        }
    }

    /// The digest written as exactly 64 lowercase hexadecimal digits; nil for anything else.
    public init?(hex: String) {
        var text = hex
        guard let digest = text.withUTF8({ SHA256Digest(hexDigits: $0) }) else { return nil }
        self = digest
    }

    /// The digest from the UTF-8 bytes of 64 lowercase hexadecimal digits; nil for anything else.
    public init?(hexDigits digits: UnsafeBufferPointer<UInt8>) {
        guard digits.count == 64 else { return nil }
        // Checked in one pass without branches, then converted: '0'-'9' and 'a'-'f' map to their
        // values by their low four bits, plus 9 for letters (bit 6 set).
        var valid: UInt8 = 1
        for digit in digits {
            let isDigit: UInt8 = digit &- UInt8(ascii: "0") < 10 ? 1 : 0
            let isLetter: UInt8 = digit &- UInt8(ascii: "a") < 6 ? 1 : 0
            valid &= isDigit | isLetter
        }
        guard valid == 1 else { return nil }
        func word(_ start: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in start..<start + 16 {
                let digit = digits[index]
                value = value << 4 | UInt64((digit & 0xF) &+ 9 &* (digit >> 6))
            }
            return value
        }
        (first, second, third, fourth) = (word(0), word(16), word(32), word(48))
    }

    /// The digest in the 32 bytes at `raw`, which must hold at least that many.
    public init(raw: UnsafeRawPointer) {
        (first, second, third, fourth) = (
            UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
            UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)), UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        )
    }

    /// Appends the 32 bytes to `output`.
    public func appendBytes(to output: inout [UInt8]) {
        for word in [first, second, third, fourth] {
            withUnsafeBytes(of: word.bigEndian) { output.append(contentsOf: $0) }
        }
    }

    /// The 32 bytes.
    public var bytes: [UInt8] {
        (0..<32).map { UInt8(truncatingIfNeeded: self[$0 / 8] >> UInt64(56 - 8 * ($0 % 8))) }
    }

    /// The 64 lowercase hexadecimal digits.
    public var hex: String {
        var output: [UInt8] = []
        appendHex(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the 64 lowercase hexadecimal digits to `output`, without making a string.
    public func appendHex(to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digits in
            for slot in 0..<4 {
                let word = self[slot]
                for index in 0..<16 {
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * index)) & 0xF
                    digits[slot * 16 + index] = nibble &+ (nibble < 10 ? UInt8(ascii: "0") : UInt8(ascii: "a") &- 10)
                }
            }
            output.append(contentsOf: digits)
        }
    }

    /// The hexadecimal digits.
    public var description: String { hex }

    private subscript(word: Int) -> UInt64 {
        get {
            switch word {
            case 0: first
            case 1: second
            case 2: third
            default: fourth
            }
        }
        set {
            switch word {
            case 0: first = newValue
            case 1: second = newValue
            case 2: third = newValue
            default: fourth = newValue
            }
        }
    }
}

extension SHA256 {
    /// The SHA-256 of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> SHA256Digest {
        // OpenSSL's SHA-256 output is 32 bytes.
        SHA256Digest(bytes: bytes.withUnsafeBytes { StreamingDigest.inMemory(.sha256, $0) }) ?? SHA256Digest()
    }

    /// The SHA-256 of the UTF-8 bytes of `text`.
    public static func digest(_ text: String) -> SHA256Digest { digest(Array(text.utf8)) }
}

extension SHA256Digest {
    /// The digest of 32 zero bytes.
    init() {}
}
