import Wire
import Foundation
import Basics

/// Everything the engine knows about one Assembly; saved as JSON in the data folder.
struct AssemblyRecord: Codable, Sendable {
    /// A tus upload announced for this Assembly.
    struct TusLink: Codable, Sendable, Equatable {
        var uploadID: String
        var filename: String
        var fieldname: String
        var size: Int64?
        var offset: Int64
        var finished: Bool
    }

    var id: String
    /// `http://host:port` the Assembly was created through; URLs in its status start with it.
    var origin: String
    /// The params exactly as received.
    var params: String
    var steps: JSONValue
    var fields: [String: JSONValue]
    var notifyURL: String?
    var expectedTusUploads: Int
    var tusLinks: [TusLink] = []
    var uploads: [AssemblyFile] = []
    var results: [String: [AssemblyFile]] = [:]
    /// Errors steps skipped under `ignore_errors` (`step`, `robot`, `error`, `message`).
    var ignoredErrors: [JSONValue]?
    /// `ASSEMBLY_UPLOADING`, `ASSEMBLY_EXECUTING`, `ASSEMBLY_COMPLETED`, `ASSEMBLY_CANCELED`.
    var ok: String?
    var error: String?
    var message: String
    var created: Date
    var finished: Date?
    /// The client's `Transloadit-Client` (or `User-Agent`) header, as the hosted API reports it.
    var clientAgent: String?

    var isTerminal: Bool { error != nil || AssemblyStatusCode.isTerminal(ok) }
    var finishedTusUploads: Int { tusLinks.filter(\.finished).count }
    /// Bytes of the files sent with the creating request plus the announced tus uploads.
    var bytesExpected: Int64 { uploads.filter { !$0.isTusFile }.reduce(0) { $0 + $1.size } + tusLinks.reduce(0) { $0 + ($1.size ?? 0) } }
    var bytesReceived: Int64 { uploads.reduce(0) { $0 + $1.size } + tusLinks.filter { !$0.finished }.reduce(0) { $0 + $1.offset } }
}
