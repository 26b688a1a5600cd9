import Basics
import Crypto
import Foundation

/// Base64url without padding, as JWTs use it.
enum Base64URL {
    static func decode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// The public keys of an identity provider (a JWKS file): RSA keys for RS256, P-256 keys for ES256.
struct JSONWebKeys: Sendable {
    enum Key: Sendable {
        case rsa(modulus: Data, exponent: Data)
        case ec(x: Data, y: Data)
    }

    let keys: [(id: String?, key: Key)]

    /// Reads `{"keys": [...]}`; keys of other types or curves are skipped.
    init(json: JSONValue) {
        keys = (json["keys"]?.arrayValue ?? []).compactMap { jwk in
            let id = jwk["kid"]?.stringValue
            switch jwk["kty"]?.stringValue {
            case "RSA":
                guard let n = jwk["n"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }),
                      let e = jwk["e"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }) else { return nil }
                return (id, .rsa(modulus: n, exponent: e))
            case "EC":
                guard jwk["crv"]?.stringValue == "P-256",
                      let x = jwk["x"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }), x.count == 32,
                      let y = jwk["y"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }), y.count == 32 else { return nil }
                return (id, .ec(x: x, y: y))
            default:
                return nil
            }
        }
    }
}

/// Verifies OpenID Connect identity tokens: RS256 or ES256 only (never `none` or HMAC), a key
/// from the JWKS, and `iss`, `aud`, `exp`, `nbf`, `iat` within a small leeway.
struct JWTVerifier: Sendable {
    let keys: JSONWebKeys
    let issuer: String
    let audience: String
    let leeway: TimeInterval

    func verify(_ token: String, now: Date = Date()) throws(Refusal) -> [String: JSONValue] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payloadData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONValue.parse(headerData), let claims = (try? JSONValue.parse(payloadData))?.objectValue else {
            throw .unauthorized("INVALID_TOKEN", "the bearer token is not a well-formed JWT")
        }
        let algorithm = header["alg"]?.stringValue ?? ""
        guard algorithm == "RS256" || algorithm == "ES256" else {
            throw .unauthorized("UNSUPPORTED_ALGORITHM", "JWT algorithm '\(algorithm)' is refused; only RS256 and ES256 are accepted")
        }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        let kid = header["kid"]?.stringValue
        let candidates = keys.keys.filter { kid == nil || $0.id == nil || $0.id == kid }
        guard candidates.contains(where: { Self.verify(signed, signature, with: $0.key, algorithm: algorithm) }) else {
            throw .unauthorized("INVALID_TOKEN", "the JWT's signature does not match any key in the JWKS")
        }
        let time = now.timeIntervalSince1970
        guard let expires = claims["exp"]?.doubleValue else { throw .unauthorized("INVALID_TOKEN", "the JWT has no 'exp'") }
        guard expires + leeway > time else { throw .unauthorized("TOKEN_EXPIRED", "the JWT expired") }
        if let notBefore = claims["nbf"]?.doubleValue, notBefore - leeway > time {
            throw .unauthorized("TOKEN_NOT_YET_VALID", "the JWT is not valid yet (nbf)")
        }
        if let issuedAt = claims["iat"]?.doubleValue, issuedAt - leeway > time {
            throw .unauthorized("TOKEN_NOT_YET_VALID", "the JWT was issued in the future (iat)")
        }
        guard claims["iss"]?.stringValue == issuer else {
            throw .unauthorized("WRONG_ISSUER", "the JWT's issuer is not \(issuer)")
        }
        let audiences = claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? claims["aud"]?.stringValue.map { [$0] } ?? []
        guard audiences.contains(audience) else { throw .unauthorized("WRONG_AUDIENCE", "the JWT is not meant for \(audience)") }
        return claims
    }

    private static func verify(_ data: Data, _ signature: Data, with key: JSONWebKeys.Key, algorithm: String) -> Bool {
        switch (key, algorithm) {
        case (.rsa(let modulus, let exponent), "RS256"):
            JWSVerification.rs256(message: Array(data), signature: Array(signature), modulus: Array(modulus), exponent: Array(exponent))
        case (.ec(let x, let y), "ES256"):
            JWSVerification.es256(message: Array(data), signature: Array(signature), x: Array(x), y: Array(y))
        default:
            false
        }
    }
}
