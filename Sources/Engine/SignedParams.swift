import Basics
import Foundation
import Wire
import HTTPServer

/// The `params` (and `signature`) of an API request, from a form or a query string: parsed
/// strictly and, when the engine has credentials, authenticated. Shared by every API route.
enum SignedParams {
    /// The params as a JSON object, or the refusal of the request.
    static func read(_ raw: String?, signature: String?, auth: AssemblyAuth?, missing: String, remember: Bool = true) throws(APIRefusal) -> JSONValue {
        guard let raw else { throw APIRefusal.noParams(missing) }
        let params: JSONValue
        do { params = try JSONValue.parse(Data(raw.utf8)) } catch {
            if case .duplicateKey(let key) = error.kind {
                throw APIRefusal.duplicateKey(key, "line \(error.line), column \(error.column)")
            }
            throw APIRefusal.paramsNotJSON("\(error)")
        }
        guard params.objectValue != nil else { throw APIRefusal.paramsNotObject }
        try auth?.check(params: raw, parsed: params, signature: signature, remember: remember)
        return params
    }

    /// The signed params of a request without a body, from its query: required when the engine
    /// checks signatures, else read if given. Reads are not recorded against reuse; other methods are.
    static func fromQuery(_ head: RequestHead, auth: AssemblyAuth?) throws(APIRefusal) -> JSONValue {
        guard auth != nil || head.query["params"] != nil else { return .object([:]) }
        return try read(head.query["params"], signature: head.query["signature"], auth: auth, missing: "send 'params' in the query",
                        remember: head.method != "GET")
    }

    /// A listing's `page` (from 1) and `pagesize` (1 to 5,000, default 50) as an offset and a size;
    /// numbers too large to multiply simply give an empty page.
    static func page(_ query: [String: String]) -> (offset: Int, size: Int) {
        let size = min(5000, max(1, Int(query["pagesize"] ?? "") ?? 50))
        let page = min(1 << 40, max(1, Int(query["page"] ?? "") ?? 1))
        return ((page - 1) * size, size)
    }
}
