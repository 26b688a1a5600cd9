import Basics

/// The pairs of a mapping, looked up by key after unknown keys have been reported.
public struct Fields: Sendable {
    /// The mapping node itself.
    public let node: Node
    private let pairs: [String: Pair]

    init(node: Node, pairs: [String: Pair]) {
        self.node = node
        self.pairs = pairs
    }

    /// The value for `key`, if present.
    public subscript(key: String) -> Node? { pairs[key]?.value }

    /// The key node for `key`, if present.
    public func keyNode(_ key: String) -> Node? { pairs[key]?.key }
}

extension NodeDecoder {
    /// A mapping whose keys must come from `allowed`; unknown keys are reported with a hint.
    /// Missing required keys are reported at `owner` (the mapping's own key), else at the mapping.
    public func fields(
        _ node: Node, what: String, allowed: [String], required: [String] = [], owner: SourceLocation? = nil
    ) -> Fields? {
        guard let pairs = node.pairs else {
            typeMismatch(node, expected: "a mapping", what: what)
            return nil
        }
        var byKey: [String: Pair] = [:]
        for pair in pairs {
            let key = pair.keyText
            if allowed.contains(key) {
                byKey[key] = pair
            } else {
                report(.error(
                    "\(domain).unknown-key", "unknown key '\(key)' in \(what)", at: pair.key.location,
                    hint: Suggestions.hint(for: key, in: allowed)))
            }
        }
        for key in required where byKey[key] == nil {
            report(.error(
                "\(domain).missing-key", "\(what) is missing the required key '\(key)'", at: owner ?? node.location,
                hint: "add '\(key):'"))
        }
        return Fields(node: node, pairs: byKey)
    }

    /// The pairs of a mapping in document order, for user-named entries (jobs, steps).
    public func entries(_ node: Node, what: String) -> [Pair]? {
        guard let pairs = node.pairs else {
            typeMismatch(node, expected: "a mapping", what: what)
            return nil
        }
        return pairs
    }

    /// Any value as JSON, recording each key's and value's location under `path` in `index`.
    public func json(_ node: Node, path: [String], index: inout LocationIndex, key: SourceLocation? = nil) -> JSONValue? {
        index.record(path, key: key, value: node.location)
        switch node.kind {
        case .scalar:
            guard let resolved = resolve(node) else { return nil }
            switch resolved {
            case .null: return .null
            case .bool(let value): return .bool(value)
            case .int(let value): return .int(value)
            case .string(let value): return .string(value)
            case .double(let value):
                guard value.isFinite else {
                    report(.error(
                        "\(domain).not-json", "'\(node.scalar?.text ?? "")' has no JSON representation", at: node.location,
                        hint: "use a finite number, or quote the value to make it a string"))
                    return nil
                }
                return .double(value)
            }
        case .sequence(let elements):
            var values: [JSONValue] = []
            var failed = false
            for (offset, element) in elements.enumerated() {
                if let value = json(element, path: path + [String(offset)], index: &index) {
                    values.append(value)
                } else {
                    failed = true
                }
            }
            return failed ? nil : .array(values)
        case .mapping(let pairs):
            var members: [String: JSONValue] = [:]
            var failed = false
            for pair in pairs {
                let name = pair.keyText
                if let value = json(pair.value, path: path + [name], index: &index, key: pair.key.location) {
                    members[name] = value
                } else {
                    failed = true
                }
            }
            return failed ? nil : .object(members)
        }
    }
}
