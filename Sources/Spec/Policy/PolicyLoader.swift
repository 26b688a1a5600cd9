import Foundation
import Basics
import YAML

/// Reads a policy file (YAML) into a `Policy`, collecting every problem with its location.
public struct PolicyLoader: Sendable {
    static let keys = ["version", "auth_key", "max_expires_in", "limits", "templates", "fields", "notify_url", "robots", "smart_cdn"]
    static let limitKeys = ["files_per_assembly", "file_size", "assembly_size", "run_size"]
    static let constraintKeys = ["type", "enum", "min", "max", "pattern"]

    /// The variables `${VAR}` refers to.
    public var environment: [String: String]

    /// Creates a loader.
    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// Loads the policy at `path`.
    public func load(path: String) -> Loaded<Policy> {
        decode(YAMLDocument(contentsOf: path, domain: "policy"), file: path)
    }

    /// Parses and decodes policy text that came from `file`.
    public func decode(_ data: Data, file: String) -> Loaded<Policy> {
        decode(YAMLDocument(parsing: data, file: file), file: file)
    }

    private func decode(_ document: YAMLDocument, file: String) -> Loaded<Policy> {
        let sources = document.sources
        guard document.diagnostics.isEmpty else { return Loaded(value: nil, diagnostics: document.diagnostics, sources: sources) }
        let root = document.root
        let decoder = NodeDecoder(environment: environment, domain: "policy", sources: sources)
        decoder.credentialVariables = AuthReader.credentialVariables
        decoder.refusesCredentialLikeNames = true
        decoder.credentialPlaces = "the signer's own configuration, never a policy"
        guard let root else {
            decoder.report(.error("policy.empty", "the policy is empty", at: SourceLocation(file: file, line: 1, column: 1),
                                  hint: "start with 'version: 1' and a 'robots:' mapping"))
            return Loaded(value: nil, diagnostics: decoder.diagnostics, sources: sources)
        }
        let policy = read(root, file: file, decoder: decoder)
        let diagnostics = decoder.diagnostics
        return Loaded(value: diagnostics.containsErrors ? nil : policy, diagnostics: diagnostics, sources: sources)
    }

    private func read(_ root: Node, file: String, decoder: NodeDecoder) -> Policy? {
        guard let fields = decoder.fields(root, what: "the policy", allowed: Self.keys, required: ["version", "robots"]) else {
            return nil
        }
        if let node = fields["version"], let version = decoder.int(node, what: "'version'"), version.value != 1 {
            decoder.report(.error("policy.unsupported-version", "policy version \(version.value) is not supported",
                                  at: node.location, hint: "this pipeline reads 'version: 1'"))
        }
        var policy = Policy(file: file)
        policy.authKey = fields["auth_key"].flatMap { node in
            decoder.toleratingUnsetVariables { decoder.allowingCredentialLikeNames { decoder.nonEmptyString(node, what: "'auth_key'")?.value } }
        }
        policy.maxExpiresIn = fields["max_expires_in"].flatMap { decoder.duration($0, what: "'max_expires_in'")?.value }
        if let node = fields["limits"], let limits = decoder.fields(node, what: "'limits'", allowed: Self.limitKeys) {
            policy.limits.filesPerAssembly = limits["files_per_assembly"].flatMap {
                decoder.int($0, what: "'files_per_assembly'", minimum: 1)?.value
            }
            policy.limits.fileSize = limits["file_size"].flatMap { decoder.size($0, what: "'file_size'")?.value }
            policy.limits.assemblySize = limits["assembly_size"].flatMap { decoder.size($0, what: "'assembly_size'")?.value }
            policy.limits.runSize = limits["run_size"].flatMap { decoder.size($0, what: "'run_size'")?.value }
        }
        if let node = fields["templates"], let templates = decoder.fields(node, what: "'templates'", allowed: ["allowed", "allow_steps_override", "allow_listing"]) {
            let allowed = templates["allowed"].flatMap { allowedList($0, what: "'templates.allowed'", decoder: decoder) } ?? []
            let override = templates["allow_steps_override"].flatMap { decoder.bool($0, what: "'allow_steps_override'") } ?? false
            let listing = templates["allow_listing"].flatMap { decoder.bool($0, what: "'allow_listing'") } ?? false
            policy.templates = Policy.TemplateRules(allowed: allowed, allowStepsOverride: override, allowListing: listing)
        }
        if let node = fields["fields"], let rules = decoder.fields(node, what: "'fields'", allowed: ["allowed"]) {
            policy.allowedFields = rules["allowed"].flatMap { allowedList($0, what: "'fields.allowed'", decoder: decoder) } ?? []
        }
        if let node = fields["notify_url"], let rules = decoder.fields(node, what: "'notify_url'", allowed: ["allowed", "required_for_no_wait"]) {
            policy.allowedNotifyURLs = rules["allowed"].flatMap { allowedList($0, what: "'notify_url.allowed'", decoder: decoder) } ?? []
            policy.requiresNotifyURLWithoutWaiting = rules["required_for_no_wait"].flatMap { decoder.bool($0, what: "'notify_url.required_for_no_wait'") } ?? false
        }
        policy.smartCDN = fields["smart_cdn"].flatMap { smartCDNRules($0, decoder: decoder) }
        if let node = fields["robots"], let entries = decoder.entries(node, what: "'robots'") {
            for entry in entries {
                policy.robots[entry.keyText] = robotRules(entry, decoder: decoder)
            }
        }
        return policy
    }

    func allowedList(_ node: Node, what: String, decoder: NodeDecoder) -> Set<String>? {
        guard let elements = node.elements else {
            decoder.typeMismatch(node, expected: "a list", what: what)
            return nil
        }
        return Set(elements.compactMap { decoder.string($0, what: "each entry of \(what)", acceptingNumbers: true)?.value })
    }

    private func robotRules(_ entry: Pair, decoder: NodeDecoder) -> Policy.RobotRules {
        let robot = entry.keyText
        if !robot.hasPrefix("/") {
            decoder.report(.error("policy.bad-robot", "robot '\(robot)' must start with '/'", at: entry.key.location,
                                  hint: "robots are named like paths, such as '/image/resize'"))
        }
        // What the service does not know can never be signed usefully: say so at the policy's line.
        let known = RobotCatalog.bundled.robots[robot]
        if robot.hasPrefix("/"), known == nil {
            let hint = Suggestions.closest(to: robot, in: RobotCatalog.bundled.robots.keys).map { "did you mean '\($0)'?" }
                ?? "'pipeline robots' lists the robots the service has"
            decoder.report(.warning("policy.unknown-robot", "the policy allows robot \(robot), which the service does not have", at: entry.key.location, hint: hint))
        }
        if case .scalar = entry.value.kind, decoder.resolve(entry.value) == .null { return Policy.RobotRules() }
        guard let options = decoder.entries(entry.value, what: "robot \(robot)") else { return Policy.RobotRules() }
        var rules = Policy.RobotRules()
        for option in options {
            if let known, known.parameters[option.keyText] == nil {
                let hint = Suggestions.closest(to: option.keyText, in: known.parameters.keys).map { "did you mean '\($0)'?" }
                    ?? "'pipeline robots \(robot)' lists its parameters"
                decoder.report(.warning(
                    "policy.unknown-parameter", "the policy allows '\(option.keyText)' for \(robot), which has no such parameter",
                    at: option.key.location, hint: hint))
            }
            rules.options[option.keyText] = constraint(option, what: "option '\(option.keyText)' of \(robot)", decoder: decoder)
        }
        return rules
    }

    /// The constraint `option` writes (`{type, enum, min, max, pattern}`, or nothing: any value).
    func constraint(_ option: Pair, what: String, decoder: NodeDecoder) -> OptionConstraint {
        if case .scalar = option.value.kind, decoder.resolve(option.value) == .null { return OptionConstraint() }
        guard let fields = decoder.fields(option.value, what: what, allowed: Self.constraintKeys) else { return OptionConstraint() }
        var constraint = OptionConstraint()
        if let node = fields["type"], let name = decoder.string(node, what: "'type'") {
            constraint.type = OptionConstraint.ValueType(rawValue: name.value)
            if constraint.type == nil {
                decoder.report(.error("policy.bad-type", "'\(name.value)' is not a type", at: node.location,
                                      hint: Suggestions.hint(for: name.value, in: OptionConstraint.ValueType.allCases.map(\.rawValue), kind: "types")))
            }
        }
        if let node = fields["enum"] {
            var index = LocationIndex()
            constraint.allowedValues = decoder.json(node, path: [], index: &index)?.arrayValue
            if node.elements == nil { decoder.typeMismatch(node, expected: "a list of values", what: "'enum'") }
        }
        constraint.minimum = fields["min"].flatMap { number($0, what: "'min'", decoder: decoder) }
        constraint.maximum = fields["max"].flatMap { number($0, what: "'max'", decoder: decoder) }
        if let node = fields["pattern"], let pattern = decoder.string(node, what: "'pattern'") {
            if OptionConstraint.isValidPattern(pattern.value) {
                constraint.pattern = pattern.value
            } else {
                decoder.report(.error("policy.bad-pattern", "'\(pattern.value)' is not a valid regular expression", at: node.location))
            }
        }
        return constraint
    }

    private func number(_ node: Node, what: String, decoder: NodeDecoder) -> Double? {
        guard node.scalar != nil else {
            decoder.typeMismatch(node, expected: "a number", what: what)
            return nil
        }
        switch decoder.resolve(node) {
        case .int(let value)?: return Double(value)
        case .double(let value)? where value.isFinite: return value
        case nil: return nil
        default:
            decoder.typeMismatch(node, expected: "a number", what: what)
            return nil
        }
    }
}
