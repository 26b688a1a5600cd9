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
    let store: TemplateStore
    let auth: AssemblyAuth?
    let dataDirectory: String

    func plan(_ head: RequestHead) -> RequestPlan {
        let parts = head.path.split(separator: "/").map(String.init)
        guard parts.count <= 2 else { return .respond(APIRefusal.noRoute(head.method, head.path).response) }
        let id = parts.count == 2 ? parts[1] : nil
        switch (head.method, id) {
        case ("POST", nil):
            return form(head) { params in create(params) }
        case ("PUT", let id?):
            return form(head) { params in update(id, params) }
        case ("GET", nil):
            return .respond(queried(head) { _ in list(head.query) })
        case ("GET", let id?):
            return .respond(queried(head) { _ in store.get(id).map { answer(TemplateStatusCode.found, $0) } ?? notFound(id) })
        case ("DELETE", let id?):
            // The SDKs send a DELETE's signed params as a form body, or in the query.
            let delete: @Sendable (JSONValue) -> ServerResponse = { _ in
                store.delete(id) ? .json(200, JSONValue.object(["ok": .string(TemplateStatusCode.deleted), "id": .string(id)]).serialized()) : notFound(id)
            }
            return head.query["params"] == nil && (Int(head.headers["Content-Length"] ?? "0") ?? 0) > 0
                ? form(head, then: delete) : .respond(queried(head, then: delete))
        default:
            return .respond(APIRefusal.noRoute(head.method, head.path).response)
        }
    }

    /// A form request: its signed params, then `then`.
    private func form(_ head: RequestHead, then: @escaping @Sendable (JSONValue) -> ServerResponse) -> RequestPlan {
        let auth = self.auth
        return .form(directory: dataDirectory + "/incoming/" + RandomID.hex32(), limit: 1 << 20, admit: { _ in nil }) { form in
            let params: JSONValue
            do throws(SinkError) {
                params = try SignedParams.read(form.field("params"), signature: form.field("signature"), auth: auth, missing: "send 'params'")
            } catch {
                return error.response
            }
            return then(params)
        }
    }

    /// A request without a body: signed params in the query when the engine checks signatures.
    private func queried(_ head: RequestHead, then: (JSONValue) -> ServerResponse) -> ServerResponse {
        do { return then(try SignedParams.fromQuery(head, auth: auth)) } catch { return error.response }
    }

    private func create(_ params: JSONValue) -> ServerResponse {
        let fields: (name: String, content: JSONValue, requireSignature: Bool)
        do { fields = try Self.fields(params, existing: nil) } catch { return error.response }
        switch store.create(name: fields.name, content: fields.content, requireSignatureAuth: fields.requireSignature) {
        case .success(let record): return answer(TemplateStatusCode.created, record)
        case .failure(.notSaved(let reason)): return Self.notSaved(reason)
        case .failure: return APIRefusal.templateNameTaken(fields.name, creating: true).response
        }
    }

    private func update(_ id: String, _ params: JSONValue) -> ServerResponse {
        guard let existing = store.get(id) else { return notFound(id) }
        let fields: (name: String, content: JSONValue, requireSignature: Bool)
        do { fields = try Self.fields(params, existing: existing) } catch { return error.response }
        switch store.update(id, { record in
            record.name = fields.name
            record.content = fields.content
            record.requireSignatureAuth = fields.requireSignature
        }) {
        case .success(let record): return answer(TemplateStatusCode.updated, record)
        case .failure(.nameTaken): return APIRefusal.templateNameTaken(fields.name, creating: false).response
        case .failure(.notFound): return notFound(id)
        case .failure(.notSaved(let reason)): return Self.notSaved(reason)
        }
    }

    /// `name`, `template` (an object, or JSON text as the docs have it) and `require_signature_auth`;
    /// an update keeps what it does not send.
    private static func fields(_ params: JSONValue, existing: TemplateRecord?) throws(SinkError) -> (name: String, content: JSONValue, requireSignature: Bool) {
        let name = params["name"]?.stringValue ?? existing?.name ?? ""
        guard TemplateSpec.isValidName(name) else {
            throw SinkError(APIRefusal.templateNameInvalid(name).response)
        }
        var content = existing?.content ?? .object([:])
        if let template = params["template"] {
            switch template {
            case .object: content = template
            case .string(let text):
                let parsed: JSONValue
                do { parsed = try JSONValue.parse(Data(text.utf8)) } catch {
                    throw SinkError(APIRefusal.templateInvalid("'template' is not valid JSON (\(error))").response)
                }
                guard parsed.objectValue != nil else { throw SinkError(APIRefusal.templateInvalid("'template' is not a JSON object").response) }
                content = parsed
            default:
                throw SinkError(APIRefusal.templateInvalid("'template' must be an object with 'steps'").response)
            }
        }
        guard let steps = content["steps"]?.objectValue else {
            throw SinkError(APIRefusal.templateInvalid("a Template needs 'steps' (an object of steps)").response)
        }
        if let problem = StepGraph.problem(in: .object(steps)) {
            throw SinkError(APIRefusal.templateInvalid(problem).response)
        }
        let flag = params["require_signature_auth"]
        let requireSignature = flag.map { $0.boolValue ?? ($0.intValue == 1 || $0.stringValue == "1" || $0.stringValue == "true") }
            ?? existing?.requireSignatureAuth ?? false
        return (name, content, requireSignature)
    }

    private func list(_ query: [String: String]) -> ServerResponse {
        let all = store.all
        let page = SignedParams.page(query)
        let items = all.dropFirst(page.offset).prefix(page.size).map(Self.json)
        return .json(200, JSONValue.object(["items": .array(Array(items)), "count": .int(all.count)]).serialized())
    }

    private func answer(_ ok: String, _ record: TemplateRecord) -> ServerResponse {
        var object = Self.json(record).objectValue ?? [:]
        object["ok"] = .string(ok)
        return .json(200, JSONValue.object(object).serialized())
    }

    private static func json(_ record: TemplateRecord) -> JSONValue {
        .object([
            "id": .string(record.id), "name": .string(record.name), "content": record.content,
            "require_signature_auth": .int(record.requireSignatureAuth ? 1 : 0),
            "created": .string(AuthTime.format(record.created)), "modified": .string(AuthTime.format(record.modified)),
        ])
    }

    private static func notSaved(_ reason: String) -> ServerResponse {
        APIRefusal.templateNotSaved(reason).response
    }

    private func notFound(_ id: String) -> ServerResponse { APIRefusal.templateNotFound(id).response }
}
