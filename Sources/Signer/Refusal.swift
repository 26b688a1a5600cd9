import Basics
import Wire

/// A request the signer will not sign, with its HTTP status and, for policy refusals, every violation.
struct Refusal: Error, Sendable {
    var status: Int
    var code: SignerErrorCode
    var message: String
    var violations: [SignerRefusal.Violation] = []
    var retryIn: Int?

    /// The answer's body.
    var body: String { SignerDocuments.text(SignerRefusal(error: code, message: message, violations: violations, retryIn: retryIn)) }

    static func unauthorized(_ code: SignerErrorCode, _ message: String) -> Refusal { Refusal(status: 401, code: code, message: message) }
}

extension Refusal {
    /// 400 for JSON that cannot be read: `DUPLICATE_KEY` naming the key, else `MALFORMED_REQUEST`.
    static func unreadable(_ error: JSONParseError, what: String) -> Refusal {
        if case .duplicateKey(let key) = error.kind {
            return Refusal(status: 400, code: .duplicateKey, message: "\(what) has the key '\(key)' twice in one object; send each key once")
        }
        return Refusal(status: 400, code: .malformedRequest, message: "\(what) is not valid JSON (\(error))")
    }
}
