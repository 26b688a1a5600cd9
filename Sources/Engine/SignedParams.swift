import Basics
import Foundation
import HTTPServer

/// The `params` (and `signature`) of an API request, from a form or a query string: parsed
/// strictly and, when the engine has credentials, authenticated. Shared by every API route.
enum SignedParams {
    /// The params as a JSON object, or the answer that refuses the request.
    static func read(_ raw: String?, signature: String?, auth: AssemblyAuth?, missing: String, remember: Bool = true) throws(SinkError) -> JSONValue {
        guard let raw else { throw SinkError(answer("NO_PARAMS_FIELD", missing, 400)) }
        let params: JSONValue
        do { params = try JSONValue.parse(Data(raw.utf8)) } catch {
            if case .duplicateKey(let key) = error.kind {
                throw SinkError(answer(error.code, "'params' has the key '\(key)' twice in one object (\(error)); send each key once", 400))
            }
            throw SinkError(answer("INVALID_PARAMS_FIELD", "'params' is not valid JSON: \(error)", 400))
        }
        guard params.objectValue != nil else { throw SinkError(answer("INVALID_PARAMS_FIELD", "'params' is not a JSON object", 400)) }
        if let auth {
            do { try auth.check(params: raw, parsed: params, signature: signature, remember: remember) } catch {
                throw SinkError(answer(error.code, error.message, error.status))
            }
        }
        return params
    }

    /// An error answer in the shape the SDKs expect.
    static func answer(_ code: String, _ message: String, _ status: Int) -> ServerResponse {
        .json(status, AssemblyStatus.error(code, message, status: status))
    }
}
