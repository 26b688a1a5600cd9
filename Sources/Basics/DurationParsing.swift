/// Strict parsing and formatting of durations written as `90s`, `15m`, `1h30m`, `7d`.
public enum DurationText {
    private static let units: [(suffix: String, seconds: Int64)] = [
        ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1),
    ]

    /// The accepted units, for hints.
    public static let accepted = "a number followed by d, h, m or s, such as 90s, 15m, 1h30m"

    /// The longest duration accepted: 100 years of 365 days, far below anything a conversion to
    /// milliseconds or a date could overflow.
    public static let maximum: Duration = .seconds(36_500 * 86_400)

    /// The limit, for messages.
    public static let limit = "at most 36500d (100 years)"

    /// Parses one or more `<digits><unit>` groups; `nil` for anything else, for zero and for more
    /// than `maximum`.
    public static func parse(_ text: String) -> Duration? {
        guard case .seconds(let seconds) = read(text) else { return nil }
        return .seconds(seconds)
    }

    /// Whether `text` is written as a duration but is longer than `maximum`.
    public static func isTooLong(_ text: String) -> Bool {
        read(text) == .tooLong
    }

    private enum Reading: Equatable {
        case invalid, tooLong, seconds(Int64)
    }

    private static func read(_ text: String) -> Reading {
        var total: Int64 = 0
        var tooLong = false
        var rest = Substring(text)
        guard !rest.isEmpty else { return .invalid }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { return .invalid }
            rest = rest.dropFirst(digits.count)
            guard let unit = units.first(where: { rest.hasPrefix($0.suffix) }) else { return .invalid }
            rest = rest.dropFirst(unit.suffix.count)
            // Digits too many for Int64 are a number too large, not a malformed one.
            guard let number = Int64(digits) else { tooLong = true; continue }
            let (product, overflow) = number.multipliedReportingOverflow(by: unit.seconds)
            let (sum, sumOverflow) = total.addingReportingOverflow(product)
            if overflow || sumOverflow { tooLong = true } else { total = sum }
        }
        if tooLong || total > maximum.components.seconds { return .tooLong }
        return total > 0 ? .seconds(total) : .invalid
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
