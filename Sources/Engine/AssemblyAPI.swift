import Wire
import Foundation
import HTTPServer
import Basics
import Spec

/// `POST /assemblies[/{id}]`, `GET` and `DELETE /assemblies/{id}`, and `GET /results/...`.
struct AssemblyAPI: Sendable {
    let store: AssemblyStore
    let executor: AssemblyExecutor
    let auth: AssemblyAuth?
    let policy: Policy?
    let rateLimiter: RateLimiter?
    let dataDirectory: String
    let maxUploadSize: Int64
    let space: DiskSpace

    func plan(_ head: RequestHead) -> RequestPlan {
        let parts = head.path.split(separator: "/").map(String.init)
        switch (head.method, parts.count) {
        case ("POST", 1), ("POST", 2):
            let id = parts.count == 2 ? parts[1] : AssemblyFile.newID()
            guard AssemblyStore.isValidID(id) else {
                return .respond(failure("INVALID_ASSEMBLY_ID", "an Assembly id is 32 lowercase hex characters", 400))
            }
            if let wait = rateLimiter?.admit() {
                let body = JSONValue.object([
                    "error": .string("RATE_LIMIT_REACHED"), "message": .string("too many Assemblies; retry in \(Int(wait)) s"),
                    "http_code": .int(429), "info": .object(["retryIn": .double(wait)]),
                ]).serialized()
                return .respond(.json(429, body, headers: [("Retry-After", String(Int(wait.rounded(.up))))]))
            }
            if space.isShort(forBody: head.headers["Content-Length"]) { return .respond(failure("SERVER_STORAGE_FULL", DiskSpace.fullMessage, 507)) }
            let temporary = dataDirectory + "/incoming/" + AssemblyFile.newID()
            return .form(directory: temporary, limit: maxUploadSize, admit: admit) { form in
                create(id: id, form: form, origin: head.origin, client: head.headers["Transloadit-Client"] ?? head.headers["User-Agent"])
            }
        case ("GET", 2):
            guard let record = store.get(parts[1]) else { return .respond(notFound(parts[1])) }
            return .respond(status(record))
        case ("DELETE", 2):
            guard store.get(parts[1]) != nil else { return .respond(notFound(parts[1])) }
            let record = store.update(parts[1]) { record in
                guard !record.isTerminal else { return }
                record.ok = AssemblyStatusCode.canceled
                record.message = "The Assembly was canceled."
                record.finished = Date()
            }
            return .respond(record.map(status) ?? notFound(parts[1]))
        default:
            return .respond(failure("NOT_FOUND", "no such endpoint: \(head.method) \(head.path)", 404))
        }
    }

    /// `GET /results/{assembly}/{file}/{name}`: a stored upload or result.
    func serveFile(_ head: RequestHead) -> ServerResponse {
        let parts = head.path.split(separator: "/").map(String.init)
        guard head.method == "GET" || head.method == "HEAD", parts.count >= 3, let record = store.get(parts[1]) else {
            return .text(404, "no such file")
        }
        let files = record.uploads + record.results.values.flatMap { $0 }
        guard let file = files.first(where: { $0.id == parts[2] }) else { return .text(404, "no such file") }
        return ServerResponse(status: 200, headers: [("Content-Type", file.mime), ("Cache-Control", "public, max-age=31536000, immutable")],
                              body: .file(path: file.path, offset: 0, length: file.size))
    }

    /// Reads and authenticates the params before any file part is stored; `nil` admits the request.
    private func admit(_ form: FormData) -> ServerResponse? {
        let params: JSONValue
        do { params = try readParams(form) } catch { return error.response }
        guard let auth else { return nil }
        do { try auth.check(params: form.field("params") ?? "", parsed: params, signature: form.field("signature")) } catch {
            return failure(error.code, error.message, error.status)
        }
        return nil
    }

    /// The `params` field as a JSON object; sent before any file part (as every official SDK does).
    private func readParams(_ form: FormData) throws(SinkError) -> JSONValue {
        guard let raw = form.field("params") else {
            throw SinkError(failure(
                "NO_PARAMS_FIELD", "the request has no 'params' field before its files; send params (and signature) first", 400))
        }
        let params: JSONValue
        do { params = try JSONValue.parse(Data(raw.utf8)) } catch {
            if case .duplicateKey(let key) = error.kind {
                throw SinkError(failure(error.code, "'params' has the key '\(key)' twice in one object (\(error)); send each key once", 400))
            }
            throw SinkError(failure("INVALID_PARAMS_FIELD", "'params' is not valid JSON: \(error)", 400))
        }
        guard params.objectValue != nil else { throw SinkError(failure("INVALID_PARAMS_FIELD", "'params' is not a JSON object", 400)) }
        return params
    }

    /// Creates the Assembly of an admitted form.
    private func create(id: String, form: FormData, origin: String, client: String?) -> ServerResponse {
        let params: JSONValue
        do { params = try readParams(form) } catch { return error.response }
        let raw = form.field("params") ?? ""
        if params["template_id"] != nil {
            return failure("TEMPLATE_NOT_FOUND", "the local engine has no templates; send 'steps' instead", 404)
        }
        guard let steps = params["steps"], steps.objectValue?.isEmpty == false else {
            return failure("ASSEMBLY_INVALID_STEPS", "params have no 'steps'", 400)
        }
        if let problem = StepGraph.problem(in: steps) {
            return failure("ASSEMBLY_INVALID_STEPS", problem, 400)
        }
        if let policy {
            let findings = policy.check(AssemblyRequest(params: params, fileSizes: form.files.map(\.size)))
            if !findings.isEmpty {
                return failure("POLICY_VIOLATION", findings.map(\.message).joined(separator: "; "), 403)
            }
        }
        let expectedText = form.field("tus_num_expected_upload_files") ?? form.field("num_expected_upload_files") ?? "0"
        guard let expected = Int(expectedText), expected >= 0 else {
            return failure("ASSEMBLY_INVALID_NUM_EXPECTED_UPLOAD_FILES_PARAM", "the number of expected uploads must be a whole number", 400)
        }
        let reserved: Set<String> = ["params", "signature", "tus_num_expected_upload_files", "num_expected_upload_files"]
        var fields = params["fields"]?.objectValue ?? [:]
        for field in form.fields where !reserved.contains(field.name) { fields[field.name] = .string(field.value) }

        let uploadsFolder = store.directory + "/" + id + "/uploads"
        var uploads: [AssemblyFile] = []
        for part in form.files {
            try? FileManager.default.createDirectory(atPath: uploadsFolder, withIntermediateDirectories: true)
            let fileID = AssemblyFile.newID()
            let path = uploadsFolder + "/" + fileID
            guard rename(part.path, path) == 0 else { return failure("SERVER_500", "an uploaded file could not be stored", 500) }
            let name = FileNames.safeComponent(part.filename)
            uploads.append(FileFacts.describe(
                id: fileID, name: name, field: part.field, path: path, size: part.size, mime: part.contentType, isTus: false))
        }
        let record = AssemblyRecord(
            id: id, origin: origin, params: raw, steps: steps, fields: fields, notifyURL: params["notify_url"]?.stringValue,
            expectedTusUploads: expected, uploads: uploads, ok: expected > 0 ? AssemblyStatusCode.uploading : AssemblyStatusCode.executing,
            message: expected > 0 ? "The Assembly is waiting for its uploads." : "The Assembly is executing.",
            created: Date(), clientAgent: client.map { String($0.prefix(200)) })
        guard store.insert(record) else {
            return failure("DO_NOT_REUSE_ASSEMBLY_IDS", "Assembly \(id) exists already; use a new id", 409, id: id)
        }
        if expected == 0 { executor.start(id) }
        return status(record)
    }

    private func status(_ record: AssemblyRecord) -> ServerResponse {
        .json(200, AssemblyStatus.json(record, tusPath: LocalEngine.tusPath).serialized())
    }

    private func notFound(_ id: String) -> ServerResponse {
        failure("ASSEMBLY_NOT_FOUND", "no Assembly with id \(id)", 404, id: id)
    }

    private func failure(_ code: String, _ message: String, _ status: Int, id: String? = nil) -> ServerResponse {
        .json(status, AssemblyStatus.error(code, message, status: status, id: id))
    }
}
