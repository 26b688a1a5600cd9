import Crypto
import Foundation

/// A signed Smart CDN URL, as the official SDKs make one:
/// `https://{workspace}.tlcdn.com/{template}/{input}?{query}&sig=sha256%3A{hex}`, where the query
/// holds the parameters with `auth_key` and `exp` (Unix milliseconds), sorted by key (a repeated
/// key keeps its values' order), and the signature is the HMAC-SHA256, under the Auth Secret, of
/// `{workspace}/{template}/{input}?{query}`. Path parts are escaped as `encodeURIComponent`
/// does, the query as a form (`+` for a space).
public struct SmartCDNURL: Sendable, Equatable {
    /// The workspace (the host's first label).
    public var workspace: String
    /// The Template's name.
    public var template: String
    /// The input file's path in the workspace's storage; may be empty.
    public var input: String
    /// Parameters in the order given; a key given twice is sent twice.
    public var parameters: [(name: String, value: String)]
    /// The Auth Key.
    public var authKey: String
    /// When the URL stops working, in Unix milliseconds.
    public var expires: Int64

    /// A URL to sign.
    public init(workspace: String, template: String, input: String, parameters: [(name: String, value: String)] = [], authKey: String, expires: Int64) {
        (self.workspace, self.template, self.input, self.parameters, self.authKey, self.expires) = (workspace, template, input, parameters, authKey, expires)
    }

    public static func == (lhs: SmartCDNURL, rhs: SmartCDNURL) -> Bool {
        (lhs.workspace, lhs.template, lhs.input, lhs.authKey, lhs.expires) == (rhs.workspace, rhs.template, rhs.input, rhs.authKey, rhs.expires)
            && lhs.parameters.elementsEqual(rhs.parameters) { $0 == $1 }
    }

    /// The URL signed with `secret`.
    public func signed(secret: String) -> String {
        let path = [workspace, template, input].map(Self.component).joined(separator: "/")
        let given = parameters.filter { $0.name != "auth_key" && $0.name != "exp" && $0.name != "sig" }
        let all = given + [("auth_key", authKey), ("exp", String(expires))]
        // Sorted by key, stably: a repeated key keeps its values in the order given.
        // By UTF-16 code units, as the SDKs' URLSearchParams sorts (it differs from Swift's order past the basic plane).
        let sorted = all.enumerated().sorted { left, right in
            let (a, b) = (Array(left.element.name.utf16), Array(right.element.name.utf16))
            return a == b ? left.offset < right.offset : a.lexicographicallyPrecedes(b)
        }.map(\.element)
        let query = sorted.map { Self.formComponent($0.name) + "=" + Self.formComponent($0.value) }.joined(separator: "&")
        let signature = "sha256:" + Hex.encode(KeyedHash.sha256(path + "?" + query, key: secret))
        return "https://" + Self.component(workspace) + ".tlcdn.com/" + [template, input].map(Self.component).joined(separator: "/")
            + "?" + query + "&sig=" + Self.formComponent(signature)
    }

    /// Whether `workspace` can be the first label of the CDN's host name: ASCII letters, digits and
    /// inner hyphens (anything else would name another host, or none).
    public static func isValidWorkspace(_ workspace: String) -> Bool {
        let bytes = Array(workspace.utf8)
        return !bytes.isEmpty && bytes.count <= 63 && bytes.first != UInt8(ascii: "-") && bytes.last != UInt8(ascii: "-")
            && bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    /// `encodeURIComponent`: every byte escaped but ASCII letters, digits and `-_.!~*'()`.
    static func component(_ text: String) -> String {
        escape(text, keeping: "-_.!~*'()", spaceAsPlus: false)
    }

    /// The form encoding of a query part: every byte escaped but ASCII letters, digits and `*-._`, a space as `+`.
    static func formComponent(_ text: String) -> String {
        escape(text, keeping: "*-._", spaceAsPlus: true)
    }

    private static func escape(_ text: String, keeping marks: String, spaceAsPlus: Bool) -> String {
        let kept = Set(marks.utf8)
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " ") where spaceAsPlus:
                escaped += "+"
            case _ where kept.contains(byte):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return escaped
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
