import Basics
import YAML

/// What an identity requires of one claim: any of its alternatives, each an exact value or a
/// pattern where `*` stands for any run of characters (`refs/tags/v*`; `*` alone asks only that
/// the claim is there). Booleans and numbers match their text (`true`, `"true"` and JSON true
/// alike, as Sign in with Apple sends both). A list claim (such as `groups`) matches only a rule
/// written `{contains: …}`, and then when one of its items does (such a rule matches lists
/// only); a plain rule never matches a list, so a token cannot pass by listing the expected
/// value among others.
struct ClaimRule: Sendable, Equatable {
    let alternatives: [String]
    /// Whether the claim is a list whose items are matched (`{contains: …}`).
    var matchesItems = false

    /// Whether `claim` (absent: nil) satisfies the rule.
    func matches(_ claim: JSONValue?) -> Bool {
        guard let claim else { return false }
        let texts: [String]
        switch claim {
        case .array(let items) where matchesItems: texts = items.compactMap(Self.text)
        case _ where matchesItems: texts = []
        default: texts = Self.text(of: claim).map { [$0] } ?? []
        }
        return texts.contains { text in alternatives.contains { Self.match(text, pattern: $0) } }
    }

    /// The rule a callers file gives for `claim`: a value, a list of alternatives, or
    /// `{contains: value or list}`; nil (reported) when it is none of them.
    static func read(_ node: Node, claim: String, decoder: NodeDecoder) -> ClaimRule? {
        let what = "claim '\(claim)'"
        if node.pairs != nil {
            guard let fields = decoder.fields(node, what: what, allowed: ["contains"], required: ["contains"]), let inner = fields["contains"] else { return nil }
            return alternatives(inner, what: what, decoder: decoder).map { ClaimRule(alternatives: $0, matchesItems: true) }
        }
        return alternatives(node, what: what, decoder: decoder).map { ClaimRule(alternatives: $0) }
    }

    private static func alternatives(_ node: Node, what: String, decoder: NodeDecoder) -> [String]? {
        let values = node.elements.map { $0.map { decoder.string($0, what: "each value of \(what)", acceptingNumbers: true) } }
            ?? [decoder.string(node, what: what, acceptingNumbers: true)]
        guard !values.contains(where: { $0 == nil }) else { return nil }
        guard !values.isEmpty else {
            decoder.report(.error("callers.empty-value", "\(what) lists no value", at: node.location, hint: "give the value (or values) the claim must have"))
            return nil
        }
        return values.compactMap { $0?.value }
    }

    private static func text(of claim: JSONValue) -> String? {
        switch claim {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        default: nil
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
