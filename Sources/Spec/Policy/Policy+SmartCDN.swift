import Basics

extension Policy {
    /// Which Smart CDN URLs may be signed (`smart_cdn:`): workspaces, Templates, URL parameters
    /// and the longest lifetime. What is not listed is refused.
    public struct SmartCDNRules: Sendable {
        /// The workspaces a URL may name.
        public var workspaces: Set<String>
        /// The Smart CDN Templates a URL may name.
        public var templates: Set<String>
        /// The URL parameters a URL may carry, each with the values it may take.
        public var parameters: [String: OptionConstraint]
        /// The longest lifetime of a URL; `nil` follows the policy's own `max_expires_in`.
        public var maxExpiresIn: Duration?

        /// Creates Smart CDN rules.
        public init(
            workspaces: Set<String> = [], templates: Set<String> = [], parameters: [String: OptionConstraint] = [:], maxExpiresIn: Duration? = nil
        ) {
            self.workspaces = workspaces
            self.templates = templates
            self.parameters = parameters
            self.maxExpiresIn = maxExpiresIn
        }
    }

    /// The longest lifetime this policy allows a Smart CDN URL: `smart_cdn.max_expires_in`, else
    /// `max_expires_in`; `nil` when neither limits it.
    public var smartCDNMaxExpiresIn: Duration? { smartCDN?.maxExpiresIn ?? maxExpiresIn }

    /// Every way a Smart CDN URL breaks this policy; empty when it may be signed. Findings point
    /// into the manifest's `smart_cdn:` (`["smart_cdn", "params", NAME]`).
    public func check(_ request: SmartCDNRequest) -> [PolicyFinding] {
        var findings: [PolicyFinding] = []
        if let authKey, let key = request.authKey, key != authKey {
            findings.append(PolicyFinding(
                id: "policy.auth-key", message: "the Auth Key is not the one this policy allows",
                hint: "use the Auth Key named in \(file)", path: ["auth", "key"]))
        }
        guard let rules = smartCDN else {
            findings.append(PolicyFinding(
                id: "policy.smart-cdn-not-allowed", message: "Smart CDN URLs are not allowed by this policy",
                hint: "ask the policy owners for a 'smart_cdn:' section that allows workspace '\(request.workspace)' and Template '\(request.template)'",
                path: ["smart_cdn"], concernsKey: true))
            return findings
        }
        if !rules.workspaces.contains(request.workspace) {
            findings.append(PolicyFinding(
                id: "policy.smart-cdn-workspace", message: "Smart CDN workspace '\(request.workspace)' is not allowed",
                hint: Self.listHint(request.workspace, rules.workspaces, rule: "smart_cdn.workspaces"), path: ["smart_cdn", "workspace"]))
        }
        if !rules.templates.contains(request.template) {
            findings.append(PolicyFinding(
                id: "policy.smart-cdn-template", message: "Smart CDN Template '\(request.template)' is not allowed",
                hint: Self.listHint(request.template, rules.templates, rule: "smart_cdn.templates"), path: ["smart_cdn", "template"]))
        }
        var refused: Set<String> = []
        for parameter in request.parameters {
            let path = ["smart_cdn", "params", parameter.name]
            guard let constraint = rules.parameters[parameter.name] else {
                if refused.insert(parameter.name).inserted {
                    findings.append(PolicyFinding(
                        id: "policy.smart-cdn-param", message: "Smart CDN URL parameter '\(parameter.name)' is not allowed",
                        hint: Self.listHint(parameter.name, Set(rules.parameters.keys), rule: "smart_cdn.params"), path: path, concernsKey: true))
                }
                continue
            }
            if let problem = constraint.violation(ofParameter: parameter.value) {
                findings.append(PolicyFinding(
                    id: "policy.smart-cdn-param-value", message: "Smart CDN URL parameter '\(parameter.name)' \(problem)",
                    hint: "the policy's smart_cdn.params.\(parameter.name) says which values are allowed", path: path))
            }
        }
        if let most = smartCDNMaxExpiresIn, request.lifetime > most {
            let rule = rules.maxExpiresIn == nil ? "max_expires_in (smart_cdn has none of its own)" : "smart_cdn.max_expires_in"
            findings.append(PolicyFinding(
                id: "policy.smart-cdn-lifetime",
                message: "Smart CDN URL lifetime \(DurationText.format(request.lifetime)) is longer than the allowed \(DurationText.format(most))",
                hint: "the policy's \(rule) is \(DurationText.format(most)): ask for \(DurationText.format(most)) or less", path: ["smart_cdn", "expires_in"]))
        }
        return findings
    }

    private static func listHint(_ word: String, _ allowed: Set<String>, rule: String) -> String {
        if allowed.isEmpty { return "the policy's \(rule) allows none" }
        if let match = Suggestions.closest(to: word, in: allowed) { return "did you mean '\(match)'? (the policy's \(rule))" }
        return "the policy's \(rule) allows: " + allowed.sorted().joined(separator: ", ")
    }
}

/// A Smart CDN URL the policy is asked to allow.
public struct SmartCDNRequest: Sendable {
    /// The workspace (the CDN host's first label).
    public var workspace: String
    /// The Smart CDN Template's name.
    public var template: String
    /// The URL parameters, in order (a name may repeat).
    public var parameters: [(name: String, value: String)]
    /// How long the URL works.
    public var lifetime: Duration
    /// The Auth Key it is signed for, when the policy should judge it too.
    public var authKey: String?

    /// Creates a request.
    public init(workspace: String, template: String, parameters: [(name: String, value: String)] = [], lifetime: Duration, authKey: String? = nil) {
        self.workspace = workspace
        self.template = template
        self.parameters = parameters
        self.lifetime = lifetime
        self.authKey = authKey
    }

    /// The URLs a job's `smart_cdn:` asks for.
    public init(_ spec: SmartCDNSpec, authKey: String? = nil) {
        self.init(
            workspace: spec.workspace, template: spec.template, parameters: spec.parameters.map { ($0.name, $0.value) },
            lifetime: spec.expiresIn, authKey: authKey)
    }
}
