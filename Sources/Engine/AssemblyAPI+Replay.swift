import Basics
import Foundation
import HTTPServer
import Spec
import Wire

/// `POST /assemblies/{id}/replay`: runs an ended Assembly's uploads again, as a new Assembly,
/// with the steps, `template_id`, `fields` and `notify_url` the signed params give, else the
/// parent's (`reparse_template` and `wait` are taken and need nothing here: a Template is read
/// afresh, and the answer never waits). The new Assembly names its parent (`parent_id`).
extension AssemblyAPI {
    func replay(_ parentID: String, form: FormData, origin: String, client: String?) -> Result<AssemblyRecord, APIRefusal> {
        guard let parent = store.get(parentID) else { return .failure(.assemblyNotFound(parentID)) }
        guard parent.isTerminal else { return .failure(.cannotBeReplayed(parentID, "it has not ended; cancel it or wait for it")) }
        if let removed = parent.filesRemoved { return .failure(.cannotBeReplayed(parentID, parent.filesRemovedMessage(removed))) }
        guard !parent.readsFilesInPlace else {
            return .failure(.cannotBeReplayed(parentID, "its files were read where they are (handed over by a process on this machine) and never kept"))
        }
        var params: [String: JSONValue]
        // Authenticated when admitted: parse only (a second check would count as a reused signature).
        do { params = try SignedParams.read(form.field("params"), signature: nil, auth: nil, missing: Self.noParams).objectValue ?? [:] } catch {
            return .failure(error)
        }
        for unused in ["reparse_template", "wait"] { params.removeValue(forKey: unused) }
        if params["steps"] == nil, params["template_id"] == nil { params["steps"] = parent.steps }
        if params["fields"] == nil { params["fields"] = .object(parent.fields) }
        if params["notify_url"] == nil, let notifyURL = parent.notifyURL { params["notify_url"] = .string(notifyURL) }
        // The parent's uploads, linked (or copied) for the new Assembly to take as its own.
        let incoming = dataDirectory + "/incoming/" + AssemblyFile.newID()
        defer { FileSystem.cleanUp(incoming) }
        var parts: [FormData.FilePart] = []
        do {
            let folder = try LinkFreeFolder.open(incoming, below: dataDirectory)
            for upload in parent.uploads {
                let name = AssemblyFile.newID()
                if linkat(AT_FDCWD, upload.path, folder.descriptor, name, 0) != 0 { _ = try folder.placeCopy(of: upload.path, as: name) }
                parts.append(FormData.FilePart(field: upload.field, filename: upload.name, contentType: upload.mime, path: incoming + "/" + name, size: upload.size))
            }
        } catch {
            return .failure(.cannotBeReplayed(parentID, "its uploads are no longer in the engine's data folder (\(error))"))
        }
        let id = AssemblyFile.newID()
        // The record keeps the params as text, as it keeps a request's; the new Assembly reads them as they are.
        let creation = AssemblyCreation(params: .object(params), rawParams: JSONValue.object(params).serialized(), expectedUploads: 0, files: parts)
        let created = create(id: id, creation, origin: origin, client: client)
        guard case .success = created else { return created }
        return store.update(id) { $0.parentID = parentID }.map { .success($0) } ?? created
    }

    /// The answer to a replay: the new Assembly's status, as `ASSEMBLY_REPLAYING` while it runs.
    func replaying(_ record: AssemblyRecord, origin: String) -> ServerResponse {
        var document = AssemblyStatus.document(record, tusPath: LocalEngine.tusPath, addresses: .served(origin: origin))
        if !record.isTerminal { (document.ok, document.message) = (.replaying, "The Assembly is now in the process of being replayed.") }
        return .json(200, document.jsonText(), headers: [("Cache-Control", "no-store")])
    }

    /// `POST /assembly_notifications/{id}/replay`: announces an ended Assembly's end again, to
    /// the signed params' `notify_url` when they give one (kept as the Assembly's from then on).
    func planNotificationReplay(_ head: RequestHead) -> RequestPlan {
        let parts = head.path.split(separator: "/").map(String.init)
        guard head.method == "POST", parts.count == 3, parts[2] == "replay" else { return .respond(APIRefusal.noRoute(head.method, head.path).response) }
        guard AssemblyStore.isValidID(parts[1]) else { return .respond(APIRefusal.invalidAssemblyID.response) }
        guard store.get(parts[1]) != nil else { return .respond(APIRefusal.assemblyNotFound(parts[1]).response) }
        return .form(directory: dataDirectory + "/incoming/" + AssemblyFile.newID(), limit: 1 << 20, admit: admit) { form in
            // Authenticated when admitted: parse only (a second check would count as a reused signature).
            let params: [String: JSONValue]
            do throws(APIRefusal) { params = try SignedParams.read(form.field("params"), signature: nil, auth: nil, missing: Self.noParams).objectValue ?? [:] } catch {
                return error.response
            }
            // A new notify_url passes the policy's notify rules, as at creation.
            if let policy, let url = params["notify_url"] {
                let findings = policy.check(AssemblyRequest(params: .object(["notify_url": url]), fileSizes: [], template: nil)).filter { $0.path == ["notify_url"] }
                if !findings.isEmpty { return APIRefusal.policyViolation(findings.map(\.message)).response }
            }
            var refusal: APIRefusal?
            let record = store.update(parts[1]) { record in
                guard record.isTerminal else { return refusal = .cannotBeReplayed(record.id, "it has not ended, so there is nothing to announce yet") }
                if let url = params["notify_url"]?.stringValue { record.notifyURL = url }
                if record.notifyURL == nil { refusal = .cannotBeReplayed(record.id, "it has no notify_url; give one in the params") }
            }
            if let refusal { return refusal.response }
            if let record { renotify(record) }
            return .json(200, JSONValue.object([
                "ok": .string(AssemblyStatusCode.notificationReplayed.rawValue), "assembly_id": .string(parts[1]), "success": .bool(true),
            ]).serialized())
        }
    }
}
