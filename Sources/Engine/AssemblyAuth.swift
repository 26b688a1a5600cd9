import Basics
import Foundation
import Wire

/// Checks signed params the way the hosted API does: a signature over the raw params bytes,
/// the right Auth Key, an expiry in the future, and no signature used twice (across restarts).
final class AssemblyAuth: Sendable {
    private let key: String
    private let secret: String
    private let ledger: any UsedSignatures

    init(key: String, secret: String, ledger: any UsedSignatures) {
        self.key = key
        self.secret = secret
        self.ledger = ledger
    }

    /// `remember`: record the signature against reuse (requests that change something); reads
    /// are not, since SDKs may sign two identical reads within one second.
    func check(params raw: String, parsed: JSONValue, signature: String?, remember: Bool = true, now: Date = Date()) throws(APIRefusal) {
        guard let signature, !signature.isEmpty else {
            throw APIRefusal.noSignature
        }
        guard Signature.constantTimeEquals(signature, Signature.sign(raw, secret: secret)) else {
            throw APIRefusal.wrongSignature
        }
        guard parsed["auth"]?["key"]?.stringValue == key else {
            throw APIRefusal.unknownAuthKey
        }
        guard let expiresText = parsed["auth"]?["expires"]?.stringValue else {
            throw APIRefusal.noAuthExpires
        }
        guard let expires = AuthParams.parseExpires(expiresText) else {
            throw APIRefusal.authExpiresNotADate(expiresText)
        }
        guard expires > now else {
            throw APIRefusal.authExpired(at: expiresText)
        }
        guard !remember || ledger.insert(signature, expires: expires) else {
            throw APIRefusal.signatureReused
        }
    }
}
