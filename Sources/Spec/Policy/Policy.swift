import Basics

/// What may be signed: robots and their options, templates, fields, notify URLs, sizes,
/// signature lifetimes and Smart CDN URLs. A robot or option that is not listed is refused.
public struct Policy: Sendable {
    /// The policy file, for messages.
    public var file: String
    /// The only Auth Key that may be used, if set.
    public var authKey: String?
    /// The longest signature lifetime allowed.
    public var maxExpiresIn: Duration?
    /// Size and count limits.
    public var limits: Limits
    /// Which templates may be used; `nil` means none.
    public var templates: TemplateRules?
    /// Which fields may be set; `nil` means none.
    public var allowedFields: Set<String>?
    /// Which notify URLs may be used; `nil` means none.
    public var allowedNotifyURLs: Set<String>?
    /// Whether a run that does not wait (`run --no-wait`) must have every Assembly announce its
    /// end to a `notify_url` (`notify_url.required_for_no_wait`).
    public var requiresNotifyURLWithoutWaiting = false
    /// Each allowed robot with its allowed options.
    public var robots: [String: RobotRules]
    /// Which Smart CDN URLs may be signed; `nil` means none.
    public var smartCDN: SmartCDNRules?

    /// Creates a policy.
    public init(
        file: String, authKey: String? = nil, maxExpiresIn: Duration? = nil, limits: Limits = Limits(),
        templates: TemplateRules? = nil, allowedFields: Set<String>? = nil, allowedNotifyURLs: Set<String>? = nil,
        robots: [String: RobotRules] = [:]
    ) {
        self.file = file
        self.authKey = authKey
        self.maxExpiresIn = maxExpiresIn
        self.limits = limits
        self.templates = templates
        self.allowedFields = allowedFields
        self.allowedNotifyURLs = allowedNotifyURLs
        self.robots = robots
    }

    /// Upper bounds on an Assembly's files.
    public struct Limits: Sendable {
        /// The most files one Assembly may hold.
        public var filesPerAssembly: Int?
        /// The largest single file.
        public var fileSize: ByteSize?
        /// The most bytes one Assembly may hold.
        public var assemblySize: ByteSize?
        /// The most bytes all input files of a whole run (every Assembly of the plan) may add up to.
        public var runSize: ByteSize?

        /// Creates limits.
        public init(filesPerAssembly: Int? = nil, fileSize: ByteSize? = nil, assemblySize: ByteSize? = nil) {
            self.filesPerAssembly = filesPerAssembly
            self.fileSize = fileSize
            self.assemblySize = assemblySize
        }
    }

    /// Which templates may be used and whether steps may be sent along with them.
    public struct TemplateRules: Sendable {
        /// The allowed Templates, by id or by name.
        public var allowed: Set<String>
        /// Whether `steps` may override a template's steps.
        public var allowStepsOverride: Bool
        /// Whether a listing of the account's Templates may be signed (which `run` and `templates`
        /// need to find a Template by name). The API signs params, not the method, so the same
        /// signature could also read or delete one Template.
        public var allowListing: Bool

        /// Creates template rules.
        public init(allowed: Set<String>, allowStepsOverride: Bool = false, allowListing: Bool = false) {
            self.allowed = allowed
            self.allowStepsOverride = allowStepsOverride
            self.allowListing = allowListing
        }
    }

    /// The options one robot may be given.
    public struct RobotRules: Sendable {
        /// Allowed options and their constraints.
        public var options: [String: OptionConstraint]

        /// Creates robot rules.
        public init(options: [String: OptionConstraint] = [:]) {
            self.options = options
        }
    }
}
