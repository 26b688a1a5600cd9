import Wire
import Basics
import Crypto
import Foundation
import HTTPServer
import Spec

/// The Templates API: `POST /templates`, `GET /templates` (`page`, `pagesize`), and `GET`, `PUT`,
/// `DELETE /templates/{id}`, signed like Assemblies (the params in the form, or in the query of
/// a request without a body).
struct TemplateAPI: Sendable {
    let store: any TemplateRecords
    let auth: AssemblyAuth?
    let dataDirectory: String

    /// One call of the Templates API, as a route or a caller in the engine's process names it.
    enum Call: Sendable {
        case create
        case update(id: String)
        /// A page of the listing (`page`, `pagesize`).
        case list(query: [String: String])
        case get(id: String)
        case delete(id: String)
    }

    func plan(_ head: RequestHead) -> RequestPlan {
        let parts = head.path.split(separator: "/").map(String.init)
        guard parts.count <= 2 else { return .respond(APIRefusal.noRoute(head.method, head.path).response) }
        let id = parts.count == 2 ? parts[1] : nil
        switch (head.method, id) {
        case ("POST", nil):
            return form(head, .create)
        case ("PUT", let id?):
            return form(head, .update(id: id))
        case ("GET", nil):
            return .respond(queried(head, .list(query: head.query)))
        case ("GET", let id?):
            return .respond(queried(head, .get(id: id)))
        case ("DELETE", let id?):
            // The SDKs send a DELETE's signed params as a form body, or in the query.
            return head.query["params"] == nil && (Int(head.headers["Content-Length"] ?? "0") ?? 0) > 0
                ? form(head, .delete(id: id)) : .respond(queried(head, .delete(id: id)))
        default:
            return .respond(APIRefusal.noRoute(head.method, head.path).response)
        }
    }

    /// Answers `call` with `params` (authenticated already): the answer's JSON, or the refusal.
    func answer(_ call: Call, params: JSONValue) -> Result<JSONValue, APIRefusal> {
        switch call {
        case .create: create(params)
        case .update(let id): update(id, params)
        case .list(let query): .success(list(query))
        case .get(let id): store.get(id).map { .success(answer(TemplateStatusCode.found, $0)) } ?? .failure(.templateNotFound(id))
        case .delete(let id):
            store.delete(id) ? .success(.object(["ok": .string(TemplateStatusCode.deleted), "id": .string(id)])) : .failure(.templateNotFound(id))
        }
    }

    /// Answers `call` for a caller in the engine's process, its params signed when the engine checks signatures.
    func answer(_ call: Call, params raw: String, signature: String?) -> Result<JSONValue, APIRefusal> {
        do throws(APIRefusal) {
            let reads: Bool
            if case .list = call { reads = true } else if case .get = call { reads = true } else { reads = false }
            let params = try SignedParams.read(raw, signature: signature, auth: auth, missing: "send 'params'", remember: !reads)
            return answer(call, params: params)
        } catch {
            return .failure(error)
        }
    }

    /// A form request: its signed params, then the call.
    private func form(_ head: RequestHead, _ call: Call) -> RequestPlan {
        let auth = self.auth
        return .form(directory: dataDirectory + "/incoming/" + RandomID.hex32(), limit: 1 << 20, admit: { _ in nil }) { form in
            do throws(APIRefusal) {
                let params = try SignedParams.read(form.field("params"), signature: form.field("signature"), auth: auth, missing: "send 'params'")
                return Self.response(answer(call, params: params))
            } catch {
                return error.response
            }
        }
    }

    /// A request without a body: signed params in the query when the engine checks signatures.
    private func queried(_ head: RequestHead, _ call: Call) -> ServerResponse {
        do { return Self.response(answer(call, params: try SignedParams.fromQuery(head, auth: auth))) } catch { return error.response }
    }

    private static func response(_ answer: Result<JSONValue, APIRefusal>) -> ServerResponse {
        switch answer {
        case .success(let json): .json(200, json.serialized())
        case .failure(let refusal): refusal.response
        }
    }

    private func create(_ params: JSONValue) -> Result<JSONValue, APIRefusal> {
        let fields: (name: String, content: JSONValue, requireSignature: Bool)
        do { fields = try Self.fields(params, existing: nil) } catch { return .failure(error) }
        switch store.create(name: fields.name, content: fields.content, requireSignatureAuth: fields.requireSignature) {
        case .success(let record): return .success(answer(TemplateStatusCode.created, record))
        case .failure(.notSaved(let reason)): return .failure(.templateNotSaved(reason))
        case .failure: return .failure(.templateNameTaken(fields.name, creating: true))
        }
    }

    private func update(_ id: String, _ params: JSONValue) -> Result<JSONValue, APIRefusal> {
        guard let existing = store.get(id) else { return .failure(.templateNotFound(id)) }
        let fields: (name: String, content: JSONValue, requireSignature: Bool)
        do { fields = try Self.fields(params, existing: existing) } catch { return .failure(error) }
        switch store.update(id, { record in
            record.name = fields.name
            record.content = fields.content
            record.requireSignatureAuth = fields.requireSignature
        }) {
        case .success(let record): return .success(answer(TemplateStatusCode.updated, record))
        case .failure(.nameTaken): return .failure(.templateNameTaken(fields.name, creating: false))
        case .failure(.notFound): return .failure(.templateNotFound(id))
        case .failure(.notSaved(let reason)): return .failure(.templateNotSaved(reason))
        }
    }

    /// `name`, `template` (an object, or JSON text as the docs have it) and `require_signature_auth`;
    /// an update keeps what it does not send.
    private static func fields(_ params: JSONValue, existing: TemplateRecord?) throws(APIRefusal) -> (name: String, content: JSONValue, requireSignature: Bool) {
        let name = params["name"]?.stringValue ?? existing?.name ?? ""
        guard TemplateSpec.isValidName(name) else {
            throw APIRefusal.templateNameInvalid(name)
        }
        var content = existing?.content ?? .object([:])
        if let template = params["template"] {
            switch template {
            case .object: content = template
            case .string(let text):
                let parsed: JSONValue
                do { parsed = try JSONValue.parse(Data(text.utf8)) } catch {
                    throw APIRefusal.templateInvalid("'template' is not valid JSON (\(error))")
                }
                guard parsed.objectValue != nil else { throw APIRefusal.templateInvalid("'template' is not a JSON object") }
                content = parsed
            default:
                throw APIRefusal.templateInvalid("'template' must be an object with 'steps'")
            }
        }
        guard let steps = content["steps"]?.objectValue else {
            throw APIRefusal.templateInvalid("a Template needs 'steps' (an object of steps)")
        }
        if let problem = StepGraph.problem(in: .object(steps)) {
            throw APIRefusal.templateInvalid(problem)
        }
        let flag = params["require_signature_auth"]
        let requireSignature = flag.map { $0.boolValue ?? ($0.intValue == 1 || $0.stringValue == "1" || $0.stringValue == "true") }
            ?? existing?.requireSignatureAuth ?? false
        return (name, content, requireSignature)
    }

    private func list(_ query: [String: String]) -> JSONValue {
        let all = store.all
        let page = SignedParams.page(query)
        return TemplateListDocument(items: all.dropFirst(page.offset).prefix(page.size).map { Self.document($0) }, count: all.count).json
    }

    private func answer(_ ok: String, _ record: TemplateRecord) -> JSONValue {
        Self.document(record, ok: ok).json
    }

    private static func document(_ record: TemplateRecord, ok: String? = nil) -> TemplateDocument {
        TemplateDocument(
            ok: ok, id: record.id, name: record.name, content: record.content, requireSignatureAuth: record.requireSignatureAuth,
            created: AuthTime.format(record.created), modified: AuthTime.format(record.modified))
    }
}
