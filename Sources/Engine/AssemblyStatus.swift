import Foundation
import Basics

/// The status JSON of an Assembly, with the fields and codes the official SDKs read.
enum AssemblyStatus {
    /// Its URLs use `origin`, the address the client used for this request, when given: an engine
    /// restarted on another port (the embedded one gets a new port each run) still names itself.
    static func json(_ record: AssemblyRecord, tusPath: String, origin: String? = nil) -> JSONValue {
        var record = record
        if let origin { record.origin = origin }
        let assemblyURL = record.origin + "/assemblies/" + record.id
        var object: [String: JSONValue] = [
            "assembly_id": .string(record.id),
            "assembly_url": .string(assemblyURL),
            "assembly_ssl_url": .string(assemblyURL),
            "tus_url": .string(record.origin + tusPath),
            "message": .string(record.message),
            "http_code": .int(200),
            "bytes_received": .int(Int(record.bytesReceived)),
            "bytes_expected": .int(Int(record.bytesExpected)),
            "expected_tus_uploads": .int(record.expectedTusUploads),
            "started_tus_uploads": .int(record.tusLinks.count),
            "finished_tus_uploads": .int(record.finishedTusUploads),
            "tus_uploads": .array(record.tusLinks.map { link in
                .object([
                    "filename": .string(link.filename), "fieldname": .string(link.fieldname),
                    "size": link.size.map { .int(Int($0)) } ?? .null, "offset": .int(Int(link.offset)),
                    "finished": .bool(link.finished), "upload_url": .string(record.origin + tusPath + link.uploadID),
                ])
            }),
            "uploads": .array(record.uploads.map { $0.json(url: fileURL(record, $0)) }),
            "results": .object(record.results.mapValues { files in .array(files.map { $0.json(url: fileURL(record, $0)) }) }),
            "ignored_errors": .array(record.ignoredErrors ?? []),
            "warnings": .array(record.warnings ?? []),
            "fields": .object(record.fields),
            "params": .string(record.params),
            "execution_start": .string(AuthTime.format(record.created)),
            "client_agent": record.clientAgent.map { .string($0) } ?? .null,
        ]
        if let ok = record.phase.ok { object["ok"] = .string(ok) }
        if let error = record.phase.error { object["error"] = .string(error) }
        if let finished = record.finished {
            object["execution_duration"] = .double((finished.timeIntervalSince(record.created) * 1000).rounded() / 1000)
        }
        if let notifyURL = record.notifyURL { object["notify_url"] = .string(notifyURL) }
        return .object(object)
    }

    /// Where the engine serves a file of this Assembly.
    static func fileURL(_ record: AssemblyRecord, _ file: AssemblyFile) -> String {
        record.origin + ResultPath.path(assembly: record.id, file: file.id, name: file.name)
    }

    /// An error answer in the shape the SDKs expect.
    static func error(_ code: String, _ message: String, status: Int, id: String? = nil) -> String {
        var object: [String: JSONValue] = ["error": .string(code), "message": .string(message), "http_code": .int(status)]
        if let id { object["assembly_id"] = .string(id) }
        return JSONValue.object(object).serialized()
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
