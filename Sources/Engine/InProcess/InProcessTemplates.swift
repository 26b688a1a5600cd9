import APIClients
import Basics

/// The Templates API for a caller in the engine's process.
struct InProcessTemplates: TemplateTransport {
    let api: TemplateAPI

    func send(_ request: TemplateRequest) async throws -> JSONValue {
        let (call, params): (TemplateAPI.Call, [String: JSONValue]) = switch request {
        case .list(let page, let size): (.list(query: ["page": String(page), "pagesize": String(size)]), [:])
        case .get(let id): (.get(id: id), [:])
        case .create(let params): (.create, params)
        case .update(let id, let params): (.update(id: id), params)
        case .delete(let id): (.delete(id: id), [:])
        }
        switch api.answer(call, params: JSONValue.object(params).serialized(), signature: nil) {
        case .success(let answer): return answer
        case .failure(let refusal): throw refusal.failure
        }
    }
}
