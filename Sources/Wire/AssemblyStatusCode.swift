/// An Assembly status's `ok` value, as the hosted API and the engine send it: compared as a
/// value (`status.ok == .completed`), spelt only here.
public struct AssemblyStatusCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code as it travels.
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// A code as a server sent it (which may be one no constant here names).
    public init(received: String) { rawValue = received }

    public var description: String { rawValue }

    /// Waiting for its announced uploads.
    public static let uploading = AssemblyStatusCode("ASSEMBLY_UPLOADING")
    /// Its steps are running.
    public static let executing = AssemblyStatusCode("ASSEMBLY_EXECUTING")
    /// Running again after a replay request.
    public static let replaying = AssemblyStatusCode("ASSEMBLY_REPLAYING")
    /// Every step finished.
    public static let completed = AssemblyStatusCode("ASSEMBLY_COMPLETED")
    /// Canceled by a client.
    public static let canceled = AssemblyStatusCode("ASSEMBLY_CANCELED")
    /// The client went away before the Assembly was created.
    public static let aborted = AssemblyStatusCode("REQUEST_ABORTED")
    /// An ended Assembly's notification is being sent again (the answer to its replay).
    public static let notificationReplayed = AssemblyStatusCode("ASSEMBLY_NOTIFICATION_REPLAYED")

    /// The codes of an Assembly still uploading or executing.
    public static let busy: Set<AssemblyStatusCode> = [uploading, executing, replaying]

    /// Decodes the code from its string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the code as its string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// Whether the code `text` (as a results file records it) is `code`.
public func == (text: String, code: AssemblyStatusCode) -> Bool { text == code.rawValue }

/// Whether the code `text` (as a results file records it) is not `code`.
public func != (text: String, code: AssemblyStatusCode) -> Bool { text != code.rawValue }

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
