import Basics
import Crypto
import Foundation

/// Fills in `auth` (key, expiry and a fresh nonce) and serializes params exactly once: the
/// string returned is the one to sign and to send.
public enum AuthParams {
    /// `params` with `auth.key`, `auth.expires` (now + `lifetime`, UTC) and `auth.nonce` set.
    public static func prepare(_ params: JSONValue, key: String, lifetime: Duration, now: Date = Date()) -> JSONValue {
        var object = params.objectValue ?? [:]
        var auth = object["auth"]?.objectValue ?? [:]
        auth["key"] = .string(key)
        auth["expires"] = .string(expires(now.addingTimeInterval(TimeInterval(lifetime.components.seconds))))
        auth["nonce"] = .string(nonce())
        object["auth"] = .object(auth)
        return .object(object)
    }

    /// `2021-01-06T21:11:07.883Z`: ISO 8601 in UTC with milliseconds, built from the epoch
    /// without any locale or calendar setting.
    public static func expires(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(milliseconds % 1000))
    }

    /// Parses `auth.expires` in the formats the SDKs send: ISO 8601 (`2021-01-06T21:11:07.883Z`)
    /// or `2021/01/06 21:11:07+00:00`.
    public static func parseExpires(_ text: String) -> Date? {
        if let date = parseWritten(text) { return date }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: text) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy/MM/dd HH:mm:ssXXXXX"
        return formatter.date(from: text)
    }

    /// `2021-01-06T21:11:07.883Z` exactly as `expires(_:)` writes it, read by hand (a results file
    /// holds one per temporary result); nil for any other form.
    static func parseWritten(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58, bytes[16] == 58, bytes[19] == 46, bytes[23] == 90 else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int32(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), let milliseconds = number(20..<23),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday, fields.tm_hour, fields.tm_min, fields.tm_sec) = (year - 1900, month - 1, day, hour, minute, second)
        return Date(timeIntervalSince1970: TimeInterval(timegm(&fields)) + TimeInterval(milliseconds) / 1000)
    }

    /// 16 random bytes, as 32 hex digits.
    public static func nonce() -> String { RandomID.hex32() }
}
