import Foundation
import Basics
import Wire

/// How a status names the places of an Assembly.
enum StatusAddresses: Sendable {
    /// URLs on the origin a client reached (the record's own when nil): an engine restarted on
    /// another port still names itself.
    case served(origin: String?)
    /// `file://` URLs of the files themselves, for a client in the engine's process: the
    /// Assembly's record, the data folder's uploads, each upload and result where it is.
    case files(dataDirectory: String)
}

/// The status of an Assembly, with the fields and codes the official SDKs read.
enum AssemblyStatus {
    /// The status document, its URLs as `addresses` says.
    static func document(_ record: AssemblyRecord, tusPath: String, addresses: StatusAddresses = .served(origin: nil)) -> AssemblyStatusDocument {
        let assemblyURL: String, tusURL: String, fileURL: (AssemblyFile) -> String
        switch addresses {
        case .served(let origin):
            let origin = origin ?? record.origin
            (assemblyURL, tusURL) = (origin + "/assemblies/" + record.id, origin + tusPath)
            fileURL = { origin + ResultPath.path(assembly: record.id, file: $0.id, name: $0.name) }
        case .files(let data):
            let layout = EngineDataLayout(data)
            (assemblyURL, tusURL) = (Self.fileURL(layout.record(of: record.id)), Self.fileURL(layout.uploads) + "/")
            fileURL = { Self.fileURL($0.path) }
        }
        var document = AssemblyStatusDocument()
        document.ok = record.phase.ok
        document.error = record.phase.error
        document.message = record.message
        document.httpCode = 200
        (document.assemblyID, document.assemblyURL, document.assemblySSLURL) = (record.id, assemblyURL, assemblyURL)
        document.tusURL = tusURL
        (document.bytesReceived, document.bytesExpected) = (record.bytesReceived, record.bytesExpected)
        document.expectedTusUploads = record.expectedTusUploads
        document.startedTusUploads = record.tusLinks.count
        document.finishedTusUploads = record.finishedTusUploads
        document.tusUploads = record.tusLinks.map { link in
            .init(filename: link.filename, fieldname: link.fieldname, size: link.size, offset: link.offset, finished: link.finished,
                  uploadURL: tusURL + link.uploadID)
        }
        document.uploads = record.uploads.map { $0.document(url: fileURL($0)) }
        document.results = record.results.mapValues { files in files.map { $0.document(url: fileURL($0)) } }
        document.ignoredErrors = record.ignoredErrors ?? []
        document.warnings = record.warnings ?? []
        if let removed = record.filesRemoved { document.warnings.append(.init(level: "notice", msg: record.filesRemovedMessage(removed))) }
        document.fields = record.fields
        document.params = record.params
        document.executionStart = AuthTime.format(record.created)
        document.clientAgent = record.clientAgent
        if let finished = record.finished {
            document.executionDuration = (finished.timeIntervalSince(record.created) * 1000).rounded() / 1000
        }
        document.notifyURL = record.notifyURL
        document.parentID = record.parentID
        record.notification?.describe(&document)
        return document
    }

    /// The `file://` URL of `path`, percent-encoded: a `#`, `%`, `?`, space or accent in a name
    /// is part of the path, not the URL's syntax.
    static func fileURL(_ path: String) -> String { URL(fileURLWithPath: path).absoluteString }

    /// An error answer in the shape the SDKs expect.
    static func error(_ code: APIErrorCode, _ message: String, status: Int, id: String? = nil, retryIn: Double? = nil) -> String {
        var document = AssemblyStatusDocument()
        (document.error, document.message, document.httpCode, document.assemblyID) = (code, message, status, id)
        document.info = retryIn.map { AssemblyStatusDocument.Info(retryIn: $0) }
        return document.jsonText()
    }
}

/// UTC timestamps in the status, without locale: `2026-12-01T19:41:53Z`.
enum AuthTime {
    /// From the calendar fields `gmtime_r` gives: an ISO 8601 formatter reads the time zone
    /// database each time one is made, and a status is written at every change of an Assembly.
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))"
            + "T\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2))Z"
    }
}
