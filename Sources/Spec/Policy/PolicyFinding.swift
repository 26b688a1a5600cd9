import Basics

/// One way an Assembly request breaks a policy, pointing into the request's params.
public struct PolicyFinding: Hashable, Sendable {
    /// A stable id such as `policy.robot-not-allowed`.
    public var id: String
    /// What is not allowed.
    public var message: String
    /// What is allowed instead.
    public var hint: String?
    /// The path into the params, such as `["steps", "thumb", "width"]`.
    public var path: [String]
    /// Whether the finding is about the key at `path` (an unlisted option) rather than its value.
    public var concernsKey: Bool

    /// Creates a finding.
    public init(id: String, message: String, hint: String? = nil, path: [String], concernsKey: Bool = false) {
        self.id = id
        self.message = message
        self.hint = hint
        self.path = path
        self.concernsKey = concernsKey
    }

    /// The finding as a diagnostic, located through `locations` when they are known.
    public func diagnostic(locations: LocationIndex?) -> Diagnostic {
        let location = concernsKey ? locations?.keyLocation(path) : locations?.valueLocation(path)
        return .error(id, message, at: location, hint: hint)
    }
}

/// What the policy is asked to allow: params, and where known, the files and the lifetime.
public struct AssemblyRequest: Sendable {
    /// The params (Assembly Instructions, with `auth` when signing).
    public var params: JSONValue
    /// The sizes of the files the Assembly will receive, when known.
    public var fileSizes: [Int64]?
    /// The requested signature lifetime, when known.
    public var lifetime: Duration?
    /// The Template the params' `template_id` stands for, judged by its name and content: one
    /// the checker looked up by that id, or a manifest Template that is not created yet. Never
    /// taken from the params themselves, which cannot vouch for their own Template.
    public var template: NamedTemplate?

    /// Creates a request.
    public init(params: JSONValue, fileSizes: [Int64]? = nil, lifetime: Duration? = nil, template: NamedTemplate? = nil) {
        self.params = params
        self.fileSizes = fileSizes
        self.lifetime = lifetime
        self.template = template
    }
}

/// A Template by its name and content.
public struct NamedTemplate: Sendable, Equatable {
    /// The Template's name.
    public var name: String
    /// Its content (`steps` and the rest).
    public var content: JSONValue

    /// Creates a named Template.
    public init(name: String, content: JSONValue) {
        self.name = name
        self.content = content
    }
}
