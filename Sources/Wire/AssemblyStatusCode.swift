/// The `ok` values of an Assembly's status, as the hosted API and the engine send them.
public enum AssemblyStatusCode {
    /// Waiting for its announced uploads.
    public static let uploading = "ASSEMBLY_UPLOADING"
    /// Its steps are running.
    public static let executing = "ASSEMBLY_EXECUTING"
    /// Running again after a replay request.
    public static let replaying = "ASSEMBLY_REPLAYING"
    /// Every step finished.
    public static let completed = "ASSEMBLY_COMPLETED"
    /// Canceled by a client.
    public static let canceled = "ASSEMBLY_CANCELED"
    /// The client went away before the Assembly was created.
    public static let aborted = "REQUEST_ABORTED"

    /// Whether an Assembly with this `ok` has ended.
    public static func isTerminal(_ ok: String?) -> Bool { [completed, canceled, aborted].contains(ok ?? "") }
}

/// The `ok` values of the Templates API's answers.
public enum TemplateStatusCode {
    /// A Template read.
    public static let found = "TEMPLATE_FOUND"
    /// A Template made.
    public static let created = "TEMPLATE_CREATED"
    /// A Template changed.
    public static let updated = "TEMPLATE_UPDATED"
    /// A Template removed.
    public static let deleted = "TEMPLATE_DELETED"
}
