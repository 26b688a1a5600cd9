import Basics
import YAML

extension PolicyLoader {
    static let smartCDNKeys = ["workspaces", "templates", "params", "max_expires_in"]

    /// `smart_cdn: {workspaces: [...], templates: [...], params: {NAME: CONSTRAINT}, max_expires_in: D}`;
    /// a list or mapping left out allows none.
    func smartCDNRules(_ node: Node, decoder: NodeDecoder) -> Policy.SmartCDNRules? {
        guard let fields = decoder.fields(node, what: "'smart_cdn'", allowed: Self.smartCDNKeys) else { return nil }
        var rules = Policy.SmartCDNRules()
        rules.workspaces = fields["workspaces"].flatMap { allowedList($0, what: "'smart_cdn.workspaces'", decoder: decoder) } ?? []
        rules.templates = fields["templates"].flatMap { allowedList($0, what: "'smart_cdn.templates'", decoder: decoder) } ?? []
        rules.maxExpiresIn = fields["max_expires_in"].flatMap { decoder.duration($0, what: "'smart_cdn.max_expires_in'")?.value }
        if let node = fields["params"], !isNull(node, decoder: decoder), let entries = decoder.entries(node, what: "'smart_cdn.params'") {
            for entry in entries {
                let name = entry.keyText
                if ["auth_key", "exp", "sig"].contains(name) {
                    decoder.report(.error("policy.smart-cdn-param", "'smart_cdn.params' cannot allow '\(name)': the signature sets it", at: entry.key.location,
                                          hint: "the lifetime is 'smart_cdn.max_expires_in'; the Auth Key is 'auth_key'"))
                    continue
                }
                let constraint = constraint(entry, what: "URL parameter '\(name)' of 'smart_cdn'", decoder: decoder)
                if let type = constraint.type, !OptionConstraint.urlParameterTypes.contains(type) {
                    decoder.report(.error("policy.bad-type", "a URL parameter is text, so it cannot be \(type.rawValue)", at: entry.value.location,
                                          hint: "use one of: " + OptionConstraint.urlParameterTypes.map(\.rawValue).joined(separator: ", ")))
                }
                rules.parameters[name] = constraint
            }
        }
        return rules
    }

    private func isNull(_ node: Node, decoder: NodeDecoder) -> Bool {
        if case .scalar = node.kind, decoder.resolve(node) == .null { return true }
        return false
    }
}
