import Basics
import Foundation

extension Policy {
    /// The params keys a policy can reason about; anything else is refused.
    public static let knownParams = ["auth", "steps", "template_id", "fields", "notify_url"]
    /// Step keys that are structure, not robot options: what the step is and uses, whether its
    /// results are listed, which failures leave a file out. Allowed under every allowed robot; a
    /// constraint a policy gives one (`result: {type: boolean}`) still holds.
    public static let structuralStepKeys: Set<String> = ["robot", "use", "result", "ignore_errors"]

    /// Every way `request` breaks this policy; empty when it is allowed. The same function serves
    /// `pipeline plan`, the signer and the local engine.
    public func check(_ request: AssemblyRequest) -> [PolicyFinding] {
        guard var params = request.params.objectValue else {
            return [PolicyFinding(id: "policy.bad-params", message: "params must be a JSON object", path: [])]
        }
        var findings: [PolicyFinding] = []
        // A Template write (create or update: `name` and `template`): its name under the policy's
        // `templates` rules, its steps under the robot rules.
        if params["name"] != nil, let template = params["template"], template["name"] == nil {
            return checkTemplateWrite(params, template: template, lifetime: request.lifetime)
        }
        // A listing of Templates: `auth` and paging only.
        if params["page"] != nil || params["pagesize"] != nil {
            return checkListing(params, lifetime: request.lifetime)
        }
        // The Template the template_id stands for (looked up, or a manifest Template): judged by
        // its name, and its steps under the robot rules. A `template` key in the params is not
        // part of the Assembly API and is refused below as any unknown key is.
        if let template = request.template {
            params["template_id"] = .string(template.name)
            findings += checkTemplateContent(template.content)
        }
        for key in params.keys.sorted() where !Self.knownParams.contains(key) {
            findings.append(PolicyFinding(
                id: "policy.unknown-param", message: "'\(key)' is not allowed in params",
                hint: "allowed: " + Self.knownParams.joined(separator: ", "), path: [key], concernsKey: true))
        }
        findings += checkAuth(params["auth"], lifetime: request.lifetime)
        findings += checkTemplate(params)
        if let steps = params["steps"] { findings += checkSteps(steps) }
        if let fields = params["fields"] { findings += checkFields(fields) }
        if let notifyURL = params["notify_url"] { findings += checkNotifyURL(notifyURL) }
        if let sizes = request.fileSizes { findings += checkLimits(sizes) }
        return findings
    }

    /// The Template that `params`' `template_id` stands for when this policy does not list the id
    /// itself: what `lookup` finds for that id, for `check` to judge by name and content, as it
    /// judges a manifest's Template. Nil when the id is listed, or `lookup` finds nothing.
    public func templateToJudge<E: Error>(
        for params: JSONValue, lookup: (String) throws(E) -> NamedTemplate?
    ) throws(E) -> NamedTemplate? {
        guard let id = params["template_id"]?.stringValue, let rules = templates, !rules.allowed.contains(id) else { return nil }
        return try lookup(id)
    }

    /// The params keys of a Template write.
    public static let templateWriteParams = ["auth", "name", "template", "require_signature_auth"]

    private func checkTemplateWrite(_ params: [String: JSONValue], template: JSONValue, lifetime: Duration?) -> [PolicyFinding] {
        var findings: [PolicyFinding] = []
        for key in params.keys.sorted() where !Self.templateWriteParams.contains(key) {
            findings.append(PolicyFinding(
                id: "policy.unknown-param", message: "'\(key)' is not allowed in a Template write",
                hint: "allowed: " + Self.templateWriteParams.joined(separator: ", "), path: [key], concernsKey: true))
        }
        findings += checkAuth(params["auth"], lifetime: lifetime)
        let name = params["name"]?.stringValue ?? ""
        if let templates {
            if !templates.allowed.contains(name) {
                findings.append(PolicyFinding(
                    id: "policy.template-not-allowed", message: "Template '\(name)' is not allowed",
                    hint: templates.allowed.isEmpty ? nil : "allowed templates: " + templates.allowed.sorted().joined(separator: ", "),
                    path: ["name"]))
            }
        } else {
            findings.append(PolicyFinding(
                id: "policy.template-not-allowed", message: "templates are not allowed by this policy",
                hint: "ask the policy owners to allow Template '\(name)'", path: ["name"]))
        }
        findings += checkTemplateContent(template)
        return findings
    }

    /// The keys a Template's content may hold under a policy.
    public static let templateContentKeys = ["steps", "allow_steps_override", "notify_url", "auth"]

    /// A Template's content: the object itself or, as the API also takes it, its JSON text; its
    /// steps under the robot rules and its `notify_url` under the notify rules (an Assembly that
    /// names the Template gets both).
    private func checkTemplateContent(_ content: JSONValue) -> [PolicyFinding] {
        var content = content
        if let text = content.stringValue {
            do { content = try JSONValue.parse(Data(text.utf8)) } catch {
                return [PolicyFinding(id: "policy.bad-params", message: "the Template's content is not valid JSON (\(error))", path: ["template"])]
            }
        }
        guard let object = content.objectValue else {
            return [PolicyFinding(id: "policy.bad-params", message: "the Template's content must be a JSON object", path: ["template"])]
        }
        var findings: [PolicyFinding] = []
        for key in object.keys.sorted() where !Self.templateContentKeys.contains(key) {
            findings.append(PolicyFinding(
                id: "policy.unknown-param", message: "'\(key)' is not allowed in a Template",
                hint: "allowed: " + Self.templateContentKeys.joined(separator: ", "), path: ["template", key], concernsKey: true))
        }
        if let steps = object["steps"] { findings += checkSteps(steps) }
        if let notifyURL = object["notify_url"] { findings += checkNotifyURL(notifyURL) }
        return findings
    }

    /// The params keys of a Templates listing.
    public static let listingParams = ["auth", "page", "pagesize"]

    private func checkListing(_ params: [String: JSONValue], lifetime: Duration?) -> [PolicyFinding] {
        var findings: [PolicyFinding] = []
        for key in params.keys.sorted() where !Self.listingParams.contains(key) {
            findings.append(PolicyFinding(
                id: "policy.unknown-param", message: "'\(key)' is not allowed in a Templates listing",
                hint: "allowed: " + Self.listingParams.joined(separator: ", "), path: [key], concernsKey: true))
        }
        findings += checkAuth(params["auth"], lifetime: lifetime)
        if templates?.allowListing != true {
            findings.append(PolicyFinding(
                id: "policy.template-listing", message: "listing the account's Templates is not allowed by this policy",
                hint: "'pipeline run' and 'pipeline templates' list Templates to find them by name: the policy owners can allow it with 'templates: {allow_listing: true}'",
                path: ["page"]))
        }
        return findings
    }

    private func checkAuth(_ auth: JSONValue?, lifetime: Duration?) -> [PolicyFinding] {
        var findings: [PolicyFinding] = []
        if let authKey, let key = auth?["key"]?.stringValue, key != authKey {
            findings.append(PolicyFinding(
                id: "policy.auth-key", message: "the Auth Key is not the one this policy allows",
                hint: "use the Auth Key named in \(file)", path: ["auth", "key"]))
        }
        if let maxExpiresIn, let lifetime, lifetime > maxExpiresIn {
            findings.append(PolicyFinding(
                id: "policy.lifetime",
                message: "signature lifetime \(DurationText.format(lifetime)) is longer than the allowed \(DurationText.format(maxExpiresIn))",
                hint: "set 'auth.expires_in' to \(DurationText.format(maxExpiresIn)) or less", path: ["auth", "expires_in"]))
        }
        return findings
    }

    private func checkTemplate(_ params: [String: JSONValue]) -> [PolicyFinding] {
        guard let template = params["template_id"] else { return [] }
        let id = template.stringValue ?? template.serialized()
        guard let templates else {
            return [PolicyFinding(
                id: "policy.template-not-allowed", message: "templates are not allowed by this policy",
                hint: "use 'steps', or ask the policy owners to allow template '\(id)'", path: ["template_id"])]
        }
        var findings: [PolicyFinding] = []
        if !templates.allowed.contains(id) {
            findings.append(PolicyFinding(
                id: "policy.template-not-allowed", message: "template '\(id)' is not allowed",
                hint: templates.allowed.isEmpty ? nil : "allowed templates: " + templates.allowed.sorted().joined(separator: ", "),
                path: ["template_id"]))
        }
        if params["steps"] != nil, !templates.allowStepsOverride {
            findings.append(PolicyFinding(
                id: "policy.steps-override", message: "steps may not override a template's steps under this policy",
                hint: "remove 'steps' and let the template define them", path: ["steps"], concernsKey: true))
        }
        return findings
    }

    private func checkSteps(_ steps: JSONValue) -> [PolicyFinding] {
        guard let steps = steps.objectValue else {
            return [PolicyFinding(id: "policy.bad-params", message: "'steps' must be an object", path: ["steps"])]
        }
        var findings: [PolicyFinding] = []
        for (name, step) in steps.sorted(by: { $0.key < $1.key }) {
            let path = ["steps", name]
            guard let robot = step["robot"]?.stringValue else {
                findings.append(PolicyFinding(id: "policy.bad-params", message: "step '\(name)' has no robot", path: path))
                continue
            }
            guard let rules = robots[robot] else {
                findings.append(PolicyFinding(
                    id: "policy.robot-not-allowed", message: "robot \(robot) is not allowed (step '\(name)')",
                    hint: robots.isEmpty ? "this policy allows no robots" : "allowed robots: " + robots.keys.sorted().joined(separator: ", "),
                    path: path + ["robot"]))
                continue
            }
            for (option, value) in (step.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) where option != "robot" {
                guard let constraint = rules.options[option] else {
                    if Self.structuralStepKeys.contains(option) { continue }
                    findings.append(PolicyFinding(
                        id: "policy.option-not-allowed", message: "option '\(option)' of \(robot) is not allowed (step '\(name)')",
                        hint: optionHint(option, rules: rules, robot: robot), path: path + [option], concernsKey: true))
                    continue
                }
                if let problem = constraint.violation(of: value) {
                    findings.append(PolicyFinding(
                        id: "policy.option-value", message: "option '\(option)' of \(robot) \(problem) (step '\(name)')",
                        path: path + [option]))
                }
            }
        }
        return findings
    }

    /// What the policy allows of `robot` and, apart from that, whether the robot itself takes
    /// `option` (the catalog's word): never the policy's list presented as the robot's.
    private func optionHint(_ option: String, rules: RobotRules, robot: String) -> String {
        let allowed = rules.options.keys.sorted()
        let policy = allowed.isEmpty
            ? "the policy allows \(robot) with no options"
            : "the policy allows these options of \(robot): " + allowed.joined(separator: ", ")
        guard let parameters = RobotCatalog.bundled.robots[robot]?.parameters else { return policy }
        if parameters[option] != nil || RobotCatalog.legacy[option] != nil {
            return "\(policy); \(robot) itself takes '\(option)': ask the policy's owners to allow it"
        }
        let close = Suggestions.closest(to: option, in: allowed) ?? Suggestions.closest(to: option, in: parameters.keys)
        return (close.map { "did you mean '\($0)'? " } ?? "") + "\(robot) has no option '\(option)' ('pipeline robots \(robot)' lists what it takes); " + policy
    }

    private func checkFields(_ fields: JSONValue) -> [PolicyFinding] {
        guard let fields = fields.objectValue else {
            return [PolicyFinding(id: "policy.bad-params", message: "'fields' must be an object", path: ["fields"])]
        }
        return fields.keys.sorted().compactMap { name in
            if allowedFields?.contains(name) == true { return nil }
            let allowed = allowedFields ?? []
            return PolicyFinding(
                id: "policy.field-not-allowed", message: "field '\(name)' is not allowed",
                hint: allowed.isEmpty ? "this policy allows no fields" : Suggestions.hint(for: name, in: allowed.sorted(), kind: "fields"),
                path: ["fields", name], concernsKey: true)
        }
    }

    private func checkNotifyURL(_ url: JSONValue) -> [PolicyFinding] {
        let text = url.stringValue ?? url.serialized()
        if allowedNotifyURLs?.contains(text) == true { return [] }
        let allowed = allowedNotifyURLs ?? []
        return [PolicyFinding(
            id: "policy.notify-url-not-allowed", message: "notify_url '\(text)' is not allowed",
            hint: allowed.isEmpty ? "this policy allows no notify_url" : "allowed: " + allowed.sorted().joined(separator: ", "),
            path: ["notify_url"])]
    }

    private func checkLimits(_ sizes: [Int64]) -> [PolicyFinding] {
        var findings: [PolicyFinding] = []
        if let most = limits.filesPerAssembly, sizes.count > most {
            findings.append(PolicyFinding(
                id: "policy.too-many-files", message: "an Assembly of \(sizes.count) files exceeds the limit of \(most)",
                hint: "lower 'batch' to \(most) or less", path: []))
        }
        if let largest = limits.fileSize, let biggest = sizes.max(), biggest > largest.bytes {
            let count = sizes.filter { $0 > largest.bytes }.count
            findings.append(PolicyFinding(
                id: "policy.file-too-large",
                message: "\(plural(count, "file")) larger than the limit of \(largest) (largest: \(ByteSize(bytes: biggest)))",
                hint: "exclude large files from 'inputs' with a '!' pattern", path: []))
        }
        let total = sizes.reduce(0, +)
        if let most = limits.assemblySize, total > most.bytes {
            findings.append(PolicyFinding(
                id: "policy.assembly-too-large", message: "an Assembly of \(ByteSize(bytes: total)) exceeds the limit of \(most)",
                hint: "lower 'batch' so fewer files go into one Assembly", path: []))
        }
        return findings
    }
}
