import Basics
import Foundation
import Wire

/// Checks signed params the way the hosted API does: a signature over the raw params bytes,
/// the right Auth Key, an expiry in the future, and no signature used twice (across restarts).
final class AssemblyAuth: Sendable {
    /// A refusal, with the code and HTTP status the SDKs expect.
    struct Refusal: Error {
        var code: String
        var message: String
        var status: Int
    }

    private let key: String
    private let secret: String
    private let ledger: SignatureLedger

    init(key: String, secret: String, ledger: SignatureLedger) {
        self.key = key
        self.secret = secret
        self.ledger = ledger
    }

    /// `remember`: record the signature against reuse (requests that change something); reads
    /// are not, since SDKs may sign two identical reads within one second.
    func check(params raw: String, parsed: JSONValue, signature: String?, remember: Bool = true, now: Date = Date()) throws(Refusal) {
        guard let signature, !signature.isEmpty else {
            throw Refusal(code: "NO_SIGNATURE_FIELD", message: "the request has no signature field; sign the params with the Auth Secret", status: 400)
        }
        guard Signature.constantTimeEquals(signature, Signature.sign(raw, secret: secret)) else {
            throw Refusal(code: "INVALID_SIGNATURE", message: "the signature does not match the params; sign the exact params string sent", status: 403)
        }
        guard parsed["auth"]?["key"]?.stringValue == key else {
            throw Refusal(code: "GET_ACCOUNT_UNKNOWN_AUTH_KEY", message: "auth.key is not this engine's Auth Key", status: 403)
        }
        guard let expiresText = parsed["auth"]?["expires"]?.stringValue else {
            throw Refusal(code: "NO_AUTH_EXPIRES_PARAMETER", message: "auth.expires is missing", status: 400)
        }
        guard let expires = AuthParams.parseExpires(expiresText) else {
            throw Refusal(code: "INVALID_AUTH_EXPIRES_PARAMETER", message: "auth.expires '\(expiresText)' is not a date", status: 400)
        }
        guard expires > now else {
            throw Refusal(code: APIErrorCode.authExpired.rawValue, message: "the signature expired at \(expiresText)", status: 403)
        }
        guard !remember || ledger.insert(signature, expires: expires) else {
            throw Refusal(code: "SIGNATURE_REUSE_DETECTED", message: "this signature was used before; add auth.nonce so each request is unique", status: 403)
        }
    }
}
