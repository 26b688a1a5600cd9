import Foundation
import Basics
import Wire

/// The status of an Assembly, with the fields and codes the official SDKs read.
enum AssemblyStatus {
    /// Its URLs use `origin`, the address the client used for this request, when given: an engine
    /// restarted on another port (the embedded one gets a new port each run) still names itself.
    static func document(_ record: AssemblyRecord, tusPath: String, origin: String? = nil) -> AssemblyStatusDocument {
        var record = record
        if let origin { record.origin = origin }
        let assemblyURL = record.origin + "/assemblies/" + record.id
        var document = AssemblyStatusDocument()
        document.ok = record.phase.ok
        document.error = record.phase.error
        document.message = record.message
        document.httpCode = 200
        (document.assemblyID, document.assemblyURL, document.assemblySSLURL) = (record.id, assemblyURL, assemblyURL)
        document.tusURL = record.origin + tusPath
        (document.bytesReceived, document.bytesExpected) = (record.bytesReceived, record.bytesExpected)
        document.expectedTusUploads = record.expectedTusUploads
        document.startedTusUploads = record.tusLinks.count
        document.finishedTusUploads = record.finishedTusUploads
        document.tusUploads = record.tusLinks.map { link in
            .init(filename: link.filename, fieldname: link.fieldname, size: link.size, offset: link.offset, finished: link.finished,
                  uploadURL: record.origin + tusPath + link.uploadID)
        }
        document.uploads = record.uploads.map { $0.document(url: fileURL(record, $0)) }
        document.results = record.results.mapValues { files in files.map { $0.document(url: fileURL(record, $0)) } }
        document.ignoredErrors = record.ignoredErrors ?? []
        document.warnings = record.warnings ?? []
        document.fields = record.fields
        document.params = record.params
        document.executionStart = AuthTime.format(record.created)
        document.clientAgent = record.clientAgent
        if let finished = record.finished {
            document.executionDuration = (finished.timeIntervalSince(record.created) * 1000).rounded() / 1000
        }
        document.notifyURL = record.notifyURL
        return document
    }

    /// Where the engine serves a file of this Assembly.
    static func fileURL(_ record: AssemblyRecord, _ file: AssemblyFile) -> String {
        record.origin + ResultPath.path(assembly: record.id, file: file.id, name: file.name)
    }

    /// An error answer in the shape the SDKs expect.
    static func error(_ code: APIErrorCode, _ message: String, status: Int, id: String? = nil, retryIn: Double? = nil) -> String {
        var document = AssemblyStatusDocument()
        (document.error, document.message, document.httpCode, document.assemblyID) = (code.rawValue, message, status, id)
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
