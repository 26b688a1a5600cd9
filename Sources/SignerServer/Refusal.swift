import PipelineCore

/// A request the signer will not sign, with its HTTP status and, for policy refusals, every violation.
struct Refusal: Error, Sendable {
    var status: Int
    var code: String
    var message: String
    var violations: [JSONValue] = []
    var retryIn: Int?

    var json: JSONValue {
        var object: [String: JSONValue] = ["error": .string(code), "message": .string(message), "violations": .array(violations)]
        if let retryIn { object["retry_in"] = .int(retryIn) }
        return .object(object)
    }

    static func unauthorized(_ code: String, _ message: String) -> Refusal { Refusal(status: 401, code: code, message: message) }
}
