import Wire
import Foundation
import HTTPServer
import Basics
import Spec

/// `POST /assemblies[/{id}]`, `GET` and `DELETE /assemblies/{id}`, and `GET /results/...`.
struct AssemblyAPI: Sendable {
    let store: any AssemblyRecords
    let templates: any TemplateRecords
    let executor: AssemblyExecutor
    let auth: AssemblyAuth?
    let policy: Policy?
    let rateLimiter: (any CreationLimit)?
    let dataDirectory: String
    let maxUploadSize: Int64
    let space: DiskSpace
    /// Called with an Assembly canceled while it waited for uploads: what they received goes.
    var onCancel: @Sendable (AssemblyRecord) -> Void = { _ in }
    /// Announces an ended Assembly's end again (`POST /assembly_notifications/{id}/replay`).
    var renotify: @Sendable (AssemblyRecord) -> Void = { _ in }

    func plan(_ head: RequestHead) -> RequestPlan {
        let parts = head.path.split(separator: "/").map(String.init)
        switch (head.method, parts.count) {
        case ("POST", 1), ("POST", 2):
            let id = parts.count == 2 ? parts[1] : AssemblyFile.newID()
            guard AssemblyStore.isValidID(id) else {
                return .respond(APIRefusal.invalidAssemblyID.response)
            }
            // Before the signature is checked (and recorded): a client retrying a create whose answer
            // it lost learns its Assembly exists, rather than that it reused a signature.
            if parts.count == 2, store.get(id) != nil {
                return .respond(APIRefusal.assemblyIDTaken(id).response)
            }
            if let wait = rateLimiter?.admit() { return .respond(APIRefusal.rateLimited(retryIn: wait).response) }
            if space.isShort(forBody: head.headers["Content-Length"]) { return .respond(APIRefusal.storageFull.response) }
            let temporary = dataDirectory + "/incoming/" + AssemblyFile.newID()
            return .form(directory: temporary, limit: maxUploadSize, admit: admit) { form in
                switch create(id: id, form: form, origin: head.origin, client: head.headers["Transloadit-Client"] ?? head.headers["User-Agent"]) {
                case .success(let record): status(record, origin: head.origin)
                case .failure(let refusal): refusal.response
                }
            }
        case ("POST", 3) where parts[2] == "replay":
            guard AssemblyStore.isValidID(parts[1]) else { return .respond(APIRefusal.invalidAssemblyID.response) }
            guard store.get(parts[1]) != nil else { return .respond(notFound(parts[1])) }
            if let wait = rateLimiter?.admit() { return .respond(APIRefusal.rateLimited(retryIn: wait).response) }
            // The params only: a replay carries no files (it runs the parent's again).
            return .form(directory: dataDirectory + "/incoming/" + AssemblyFile.newID(), limit: 1 << 20, admit: admit) { form in
                switch replay(parts[1], form: form, origin: head.origin, client: head.headers["Transloadit-Client"] ?? head.headers["User-Agent"]) {
                case .success(let record): replaying(record, origin: head.origin)
                case .failure(let refusal): refusal.response
                }
            }
        case ("GET", 1):
            // The listing the SDKs call, signed like the Templates API's: newest first, `page` and `pagesize`.
            do { _ = try SignedParams.fromQuery(head, auth: auth) } catch { return .respond(error.response) }
            let all = store.allStored().sorted { ($0.created, $0.id) > ($1.created, $1.id) }
            let page = SignedParams.page(head.query)
            let items = all.dropFirst(page.offset).prefix(page.size).map { AssemblyStatus.document($0, tusPath: LocalEngine.tusPath, addresses: .served(origin: head.origin)).jsonText() }
            return .respond(.json(200, "{\"count\":\(all.count),\"items\":[" + items.joined(separator: ",") + "]}"))
        case ("GET", 2):
            let wait = StatusWait.seconds(head.headers[StatusWait.header])
            return .respond(current(parts[1], waiting: wait, clientGone: head.clientGone, whenAnswered: head.whenEnded).map { status($0, origin: head.origin) } ?? notFound(parts[1]))
        case ("DELETE", 2):
            return .respond(cancel(parts[1]).map { status($0, origin: head.origin) } ?? notFound(parts[1]))
        default:
            return .respond(APIRefusal.noRoute(head.method, head.path).response)
        }
    }

    /// Assembly `id` as a client may be told of it; held first, when `waiting` seconds are asked
    /// for, until it moves on (see `StatusWait`); a stop waits for its answer until
    /// `whenAnswered` says it is sent. Nil when there is none.
    @available(*, noasync, message: "holds its thread while it waits")
    func current(_ id: String, waiting: Int?, clientGone: () -> Bool, whenAnswered: (@escaping @Sendable () -> Void) -> Void) -> AssemblyRecord? {
        guard let current = store.get(id) else { return nil }
        if let waiting, !current.isTerminal {
            _ = store.waitForChange(
                of: current.id, from: current.phase, until: store.clock.now + .seconds(waiting), clientGone: clientGone, whenAnswered: whenAnswered)
        }
        return store.reported(id) ?? current
    }

    /// Cancels Assembly `id`: its robots see the cancel and stop, the executor then discards what
    /// they wrote, and what its unfinished uploads received goes. Nil when there is none.
    func cancel(_ id: String) -> AssemblyRecord? {
        guard store.get(id) != nil else { return nil }
        var endedUploading: AssemblyRecord?
        store.update(id) { record in
            let wasUploading = record.phase == .uploading
            _ = record.apply(.cancel)
            if wasUploading, record.phase == .canceled { endedUploading = record }
        }
        if let endedUploading { onCancel(endedUploading) }
        return store.reported(id)
    }

    /// `GET /results/{assembly}/{file}/{name}`: a stored upload or result (never an upload read
    /// where its owner keeps it).
    func serveFile(_ head: RequestHead) -> ServerResponse {
        guard head.method == "GET" || head.method == "HEAD", let result = ResultPath(head.path),
              let record = store.get(result.assembly), let file = record.file(result.file), file.inPlace == nil else {
            return .text(404, "no such file")
        }
        if let removed = record.filesRemoved { return .text(410, record.filesRemovedMessage(removed)) }
        if let files = executor.files { return serveShared(file, from: files, head: head) }
        // A file removed from the data folder since (by hand, or a cleanup) is gone, not an error.
        var facts = stat()
        guard stat(file.path, &facts) == 0, (facts.st_mode & S_IFMT) == S_IFREG, Int64(facts.st_size) == file.size else {
            return .text(404, "the file is no longer in the engine's data folder")
        }
        return ServerResponse(status: 200, headers: [("Content-Type", file.mime), ("Cache-Control", "public, max-age=31536000, immutable")],
                              body: .file(path: file.path, offset: 0, length: file.size))
    }

    /// A file of shared engines: copied from the bucket for this answer, removed once it is sent.
    private func serveShared(_ file: AssemblyFile, from files: any SharedFiles, head: RequestHead) -> ServerResponse {
        let copy = FolderPath.of(store.directory) + "/serving/" + UUID().uuidString
        do throws(RobotError) { try files.copy(file, to: copy) } catch {
            return .text(404, "the file is no longer in the shared store")
        }
        head.whenEnded { unlink(copy) }
        return ServerResponse(status: 200, headers: [("Content-Type", file.mime), ("Cache-Control", "public, max-age=31536000, immutable")],
                              body: .file(path: copy, offset: 0, length: file.size))
    }

    /// Reads and authenticates the params before any file part is stored; `nil` admits the request.
    func admit(_ form: FormData) -> ServerResponse? {
        do {
            _ = try SignedParams.read(form.field("params"), signature: form.field("signature"), auth: auth, missing: Self.noParams)
            return nil
        } catch {
            return error.response
        }
    }

    /// Creates Assembly `id` for a caller in the engine's process: the params (signed when the
    /// engine checks signatures), parsed once here, and the number of files it will hand over.
    func create(id: String, params: String, signature: String?, expectedUploads: Int, client: String?) -> Result<AssemblyRecord, APIRefusal> {
        guard AssemblyStore.isValidID(id) else { return .failure(.invalidAssemblyID) }
        guard store.get(id) == nil else { return .failure(.assemblyIDTaken(id)) }
        let parsed: JSONValue
        do { parsed = try SignedParams.read(params, signature: signature, auth: auth, missing: Self.noParams) } catch { return .failure(error) }
        return create(id: id, AssemblyCreation(params: parsed, rawParams: params, expectedUploads: expectedUploads), origin: "", client: client)
    }

    static let noParams = "the request has no 'params' field before its files; send params (and signature) first"

    /// Creates the Assembly of an admitted form.
    func create(id: String, form: FormData, origin: String, client: String?) -> Result<AssemblyRecord, APIRefusal> {
        do throws(APIRefusal) { return create(id: id, try AssemblyCreation.of(form, missing: Self.noParams), origin: origin, client: client) } catch {
            return .failure(error)
        }
    }

    /// Creates the Assembly `creation` describes.
    func create(id: String, _ creation: AssemblyCreation, origin: String, client: String?) -> Result<AssemblyRecord, APIRefusal> {
        var params = creation.params
        if let policy {
            // Checked as sent, before the Template's steps are merged in; a Template the policy does
            // not list by id is checked by its name and its content, as the signer does.
            let template = policy.templateToJudge(for: params) { id in templates.get(id).map { NamedTemplate(name: $0.name, content: $0.content) } }
            let findings = policy.check(AssemblyRequest(params: params, fileSizes: creation.files.map(\.size), template: template))
            if !findings.isEmpty {
                return .failure(.policyViolation(findings.map(\.message)))
            }
        }
        if let templateID = params["template_id"].map({ $0.stringValue ?? $0.serialized() }) {
            switch templates.instructions(templateID, runtime: params) {
            case .success(let merged): params = merged
            case .failure(let refusal): return .failure(refusal)
            }
        }
        guard let given = params["steps"], given.objectValue?.isEmpty == false else {
            return .failure(.noSteps)
        }
        // Inline secrets of storage steps stay in memory: the record, the status and the logs get `[hidden]`.
        let (steps, secrets) = InlineSecrets.redact(steps: given)
        let raw = secrets.isEmpty ? creation.rawParams : InlineSecrets.redact(params: creation.rawParams)
        if let problem = StepGraph.problem(in: steps) {
            return .failure(.invalidSteps(problem))
        }
        guard let expected = creation.expectedUploads, expected >= 0 else {
            return .failure(.expectedUploadsNotANumber)
        }
        var fields = params["fields"]?.objectValue ?? [:]
        for field in creation.extraFields { fields[field.name] = .string(field.value) }

        let uploadsFolder = store.directory + "/" + id + "/uploads"
        var uploads: [AssemblyFile] = []
        // The folder is opened without following links below the data folder (the id is the client's).
        let folder = creation.files.isEmpty ? nil : try? LinkFreeFolder.open(uploadsFolder, below: FolderPath.of(store.directory))  // nil: refused below
        for part in creation.files {
            let fileID = AssemblyFile.newID()
            let path = uploadsFolder + "/" + fileID
            guard let folder, renameat(AT_FDCWD, part.path, folder.descriptor, fileID) == 0 else {
                return .failure(.uploadNotStored)
            }
            let name = FileNames.safeComponent(part.filename)
            uploads.append(FileFacts.describe(
                id: fileID, name: name, field: part.field, path: path, size: part.size, mime: part.contentType, isTus: false))
        }
        // Where every engine finds them before any engine can run the Assembly.
        do throws(RobotError) { try executor.files?.publish(uploads) } catch { return .failure(.uploadNotStored) }
        let record = AssemblyRecord(
            id: id, origin: origin, params: raw, steps: steps, fields: fields, notifyURL: params["notify_url"]?.stringValue,
            expectedTusUploads: expected, uploads: uploads, created: Date(), clientAgent: client.map { String($0.prefix(200)) })
        do {
            guard try store.insert(record) else {
                return .failure(.assemblyIDTaken(id))
            }
        } catch {
            return .failure(.assemblyNotSaved(id, "\(error)"))
        }
        executor.secrets.keep(secrets, for: id)
        if record.phase == .executing { executor.execute(id) }
        return .success(record)
    }

    private func status(_ record: AssemblyRecord, origin: String) -> ServerResponse {
        .json(200, AssemblyStatus.document(record, tusPath: LocalEngine.tusPath, addresses: .served(origin: origin)).jsonText(),
              headers: [(StatusWait.header, String(StatusWait.longest)), ("Cache-Control", "no-store")])
    }

    private func notFound(_ id: String) -> ServerResponse {
        guard store.isReachable else { return APIRefusal.storeUnreachable.response }
        return APIRefusal.assemblyNotFound(id).response
    }
}
