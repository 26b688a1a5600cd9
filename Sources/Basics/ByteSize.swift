/// A number of bytes, parsed strictly from `500`, `20KB`, `2GB` or `500MiB`.
public struct ByteSize: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number of bytes.
    public var bytes: Int64

    /// Creates a size from a byte count.
    public init(bytes: Int64) {
        self.bytes = bytes
    }

    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }

    /// The units a size may be written in, with their multipliers.
    public static let units: [(suffix: String, multiplier: Int64)] = [
        ("B", 1),
        ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000),
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
    ]

    /// Parses `<digits>[ ]<unit>` or plain digits (bytes); `nil` for anything else or on overflow.
    public init?(parsing text: String) {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int64(digits) else { return nil }
        var rest = text.dropFirst(digits.count)
        if rest.first == " " {
            rest = rest.dropFirst()
            guard !rest.isEmpty else { return nil }
        }
        let multiplier: Int64
        if rest.isEmpty {
            multiplier = 1
        } else if let unit = Self.units.first(where: { $0.suffix == rest }) {
            multiplier = unit.multiplier
        } else {
            return nil
        }
        let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        self.bytes = product
    }

    /// A short human form: `812 B`, `48.2 KB`, `1.5 GB` (decimal units).
    public var description: String {
        let value = Double(bytes)
        guard abs(value) >= 1000 else { return "\(bytes) B" }
        let steps: [(String, Double)] = [("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12)]
        for (index, (unit, size)) in steps.enumerated() {
            let rounded = (value / size * 10).rounded() / 10
            // 999,999 bytes is "1 MB", not "1000 KB".
            if abs(rounded) >= 1000, index < steps.count - 1 { continue }
            return rounded == rounded.rounded() ? "\(Int(rounded)) \(unit)" : "\(rounded) \(unit)"
        }
        return "\(bytes) B"
    }
}
