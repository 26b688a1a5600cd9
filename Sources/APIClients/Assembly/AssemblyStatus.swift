import Wire
import Foundation
import Basics

/// What an Assembly status JSON says, in the fields a runner needs.
public struct AssemblyState: Sendable {
    /// A file in `uploads` or `results`.
    public struct File: Sendable, Equatable {
        /// The file's id.
        public var id: String
        /// The file name.
        public var name: String
        /// The form field or tus fieldname it came from.
        public var field: String
        /// The upload it derives from.
        public var originalID: String?
        /// The https URL when given, else the http one.
        public var url: String?
        /// Bytes; nil when the server gave none (the service may send `null`).
        public var size: Int64?
        /// `md5hash`, lowercase hex, when the server gave a well-formed one.
        public var md5: String?
        /// The media type.
        public var mime: String?
        /// Facts such as width and height.
        public var meta: JSONValue
    }

    /// The whole status document, as received.
    public var document: AssemblyStatusDocument
    /// `ASSEMBLY_UPLOADING`, `ASSEMBLY_EXECUTING`, `ASSEMBLY_COMPLETED`, ...
    public var ok: AssemblyStatusCode?
    /// An error code such as `INVALID_SIGNATURE`.
    public var error: APIErrorCode?
    /// The human message.
    public var message: String?
    /// The Assembly's id.
    public var assemblyID: String?
    /// The https URL when given, else the http one.
    public var assemblyURL: String?
    /// Where its files are uploaded.
    public var tusURL: String?
    /// How the service that answered is asked about it again: its id, and over HTTP its
    /// `assemblyURL` (a service in the engine's process names it by id alone); nil without an id.
    public var reference: AssemblyReference?
    /// The files it received.
    public var uploads: [File]
    /// Result files per step.
    public var results: [String: [File]]
    /// Failures the steps' `ignore_errors` skipped: the step, the file left out (by its
    /// `original_id`, when one was), and why.
    public var ignoredErrors: [(step: String, originalID: String?, error: APIErrorCode, message: String)]
    /// What the service's tools warned of while they made results anyway (`warnings`): the step
    /// when named, the file (by its `original_id`) when named, and the words.
    public var warnings: [(step: String, originalID: String?, message: String)]
    /// `info.retryIn` seconds, sent with rate-limit errors.
    public var retryIn: Double?
    /// The longest the server holds a status request until the Assembly moves on, when it said
    /// so (`StatusWait`); nil for servers that are polled.
    public var statusWait: Int?

    /// Reads a status document. What a server says in words (its codes, message and file names)
    /// is made printable here, once: a lying server's escape sequences and line breaks reach no
    /// terminal, log line or CI annotation.
    public init(_ document: AssemblyStatusDocument) {
        self.document = document
        ok = document.ok.map { AssemblyStatusCode(received: $0.rawValue.printable) }
        error = document.error.map { APIErrorCode(received: $0.rawValue.printable) }
        message = (document.message ?? document.reason)?.printable
        assemblyID = document.assemblyID
        assemblyURL = document.assemblySSLURL ?? document.assemblyURL
        tusURL = document.tusURL
        reference = document.assemblyID.map { AssemblyReference(id: $0, statusURL: document.assemblySSLURL ?? document.assemblyURL) }
        uploads = document.uploads.map(Self.file)
        results = document.results.mapValues { $0.map(Self.file) }
        retryIn = document.info?.retryIn
        ignoredErrors = document.ignoredErrors.map { item in
            ((item.step ?? "").printable, item.originalID, APIErrorCode(received: (item.error?.rawValue ?? "").printable), (item.message ?? "").printable)
        }
        warnings = document.warnings.compactMap { item in
            item.msg.map { ((item.step ?? "").printable, item.originalID, $0.printable) }
        }
    }

    /// The fieldnames of the tus uploads the Assembly has whole.
    public var finishedUploadFields: Set<String> {
        Set(document.tusUploads.filter { $0.finished == true }.compactMap(\.fieldname)).union(uploads.map(\.field))
    }

    /// Still uploading or executing.
    public var isBusy: Bool { error == nil && ok.map(AssemblyStatusCode.busy.contains) == true }
    /// The status in one word, as results and tables show it: the error code, else `ok`.
    public var word: String? { error?.rawValue ?? ok?.rawValue }
    /// Finished successfully.
    public var isCompleted: Bool { error == nil && ok == .completed }

    /// A file as the service writes it: `original_id` one id or a list (of which the first names
    /// the source), and the signed URL of a private bucket's export before the plain one.
    private static func file(_ value: AssemblyStatusDocument.File) -> File {
        File(
            id: value.id ?? "", name: (value.name ?? fallbackName(value)).printable, field: value.field ?? "",
            originalID: value.originalIDs.first, url: value.signedSSLURL ?? value.signedURL ?? value.sslURL ?? value.url,
            size: value.size, md5: value.md5hash.flatMap(MD5Text.normalized), mime: value.mime, meta: value.meta ?? .object([:]))
    }

    private static func fallbackName(_ value: AssemblyStatusDocument.File) -> String {
        if let base = value.basename, let ext = value.ext { return ext.isEmpty ? base : base + "." + ext }
        return "result"
    }
}
