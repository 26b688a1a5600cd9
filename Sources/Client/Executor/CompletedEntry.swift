import APIClients
import Basics
import Foundation
import Planning
import Wire

extension RunResults.Entry {
    /// The entry of `planned` made by the completed Assembly `status` (run with the instructions
    /// `sent`): every result, left-out file and warning traced back to its source by the upload's
    /// field (`file_N` is the planned file at N); a result no store step exported expires at
    /// `temporaryUntil`, when the service deletes it.
    init(completed status: AssemblyState, planned: PlannedAssembly, sent: JSONValue, temporaryUntil: Date?) {
        let sources = Dictionary(status.uploads.map { upload in
            (upload.id, AssemblyRun.index(of: upload.field).flatMap { planned.files.indices.contains($0) ? planned.files[$0].path : nil })
        }, uniquingKeysWith: { first, _ in first })
        var results: [String: [RunResults.ResultFile]] = [:]
        for (step, files) in status.results {
            let expires = AssemblyRun.stores(step: step, in: sent) == false ? temporaryUntil : nil
            results[step] = files.map { file in
                RunResults.ResultFile(
                    source: file.originalID.flatMap { sources[$0] ?? nil }, name: file.name,
                    url: file.url, size: file.size, md5: file.md5, mime: file.mime, meta: file.meta,
                    expires: expires)
            }.sorted { $0.order < $1.order }
        }
        self.init(
            job: planned.job, planID: planned.id, assemblyID: status.assemblyID, assemblyURL: status.assemblyURL,
            status: AssemblyStatusCode.completed.rawValue, message: nil, cached: false, files: planned.files, results: results)
        leftOut = status.ignoredErrors.map { ignored in
            RunResults.LeftOut(source: ignored.originalID.flatMap { sources[$0] ?? nil }, step: ignored.step, error: ignored.error.rawValue, message: ignored.message)
        }.sorted { $0.order < $1.order }
        warnings = status.warnings.map { warned in
            RunResults.Warning(source: warned.originalID.flatMap { sources[$0] ?? nil }, step: warned.step, message: warned.message)
        }.sorted { $0.order < $1.order }
    }
}
