import Basics

/// What an identity requires of one claim: any of its alternatives, each an exact value or a
/// pattern where `*` stands for any run of characters (`refs/tags/v*`; `*` alone asks only that
/// the claim is there). Booleans and numbers match their text (`true`, `"true"` and JSON true
/// alike, as Sign in with Apple sends both), and a list claim matches when one of its items does.
struct ClaimRule: Sendable, Equatable {
    let alternatives: [String]

    /// Whether `claim` (absent: nil) satisfies the rule.
    func matches(_ claim: JSONValue?) -> Bool {
        guard let claim else { return false }
        return Self.texts(of: claim).contains { text in alternatives.contains { Self.match(text, pattern: $0) } }
    }

    private static func texts(of claim: JSONValue) -> [String] {
        switch claim {
        case .string(let text): [text]
        case .bool(let flag): [flag ? "true" : "false"]
        case .int(let number): [String(number)]
        case .double(let number): [number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)]
        case .array(let items): items.flatMap { item in item.arrayValue == nil ? texts(of: item) : [] }
        default: []
        }
    }

    /// `text` against a pattern whose `*` matches any run of characters (none included).
    static func match(_ text: String, pattern: String) -> Bool {
        guard pattern.contains("*") else { return text == pattern }
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        var rest = Substring(text)
        guard let first = pieces.first, rest.hasPrefix(first) else { return false }
        rest = rest.dropFirst(first.count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        let last = pieces.last ?? ""
        return pieces.count == 1 || (rest.count >= last.count && rest.hasSuffix(last))
    }
}
