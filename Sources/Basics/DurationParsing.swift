/// Strict parsing and formatting of durations written as `90s`, `15m`, `1h30m`, `7d`.
public enum DurationText {
    private static let units: [(suffix: String, seconds: Int64)] = [
        ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1),
    ]

    /// The accepted units, for hints.
    public static let accepted = "a number followed by d, h, m or s, such as 90s, 15m, 1h30m"

    /// Parses one or more `<digits><unit>` groups; `nil` for anything else or for zero.
    public static func parse(_ text: String) -> Duration? {
        var total: Int64 = 0
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let number = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let unit = units.first(where: { rest.hasPrefix($0.suffix) }) else { return nil }
            rest = rest.dropFirst(unit.suffix.count)
            let (product, overflow) = number.multipliedReportingOverflow(by: unit.seconds)
            guard !overflow else { return nil }
            let (sum, sumOverflow) = total.addingReportingOverflow(product)
            guard !sumOverflow else { return nil }
            total = sum
        }
        return total > 0 ? .seconds(total) : nil
    }

    /// The shortest text for a whole number of seconds: `15m`, `1h30m`, `45s`.
    public static func format(_ duration: Duration) -> String {
        var remaining = duration.components.seconds
        guard remaining > 0 else { return "0s" }
        var text = ""
        for unit in units where remaining >= unit.seconds {
            text += "\(remaining / unit.seconds)\(unit.suffix)"
            remaining %= unit.seconds
        }
        return text
    }
}
