import Basics
import Crypto
import Foundation

/// A JWT split into its parts, nothing checked yet.
struct JWT: Sendable {
    let header: JSONValue
    let claims: [String: JSONValue]
    /// `header.payload`, the bytes the signature covers.
    let signedPart: Data
    let signature: Data

    /// Splits and decodes `token`; 401 when it is no well-formed JWT.
    init(_ token: String) throws(Refusal) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payloadData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = JSONValue.parseIfValid(headerData), let claims = JSONValue.parseIfValid(payloadData)?.objectValue else {
            throw .unauthorized(.invalidToken, "the bearer token is not a well-formed JWT")
        }
        guard header.objectValue != nil else { throw .unauthorized(.invalidToken, "the JWT's header is not a JSON object") }
        // Critical extensions must be understood to be honoured; the signer understands none.
        guard header["crit"] == nil else {
            throw .unauthorized(.invalidToken, "the JWT's header names critical extensions ('crit'), which the signer does not support")
        }
        for name in ["iss", "sub"] where claims[name] != nil && claims[name]?.stringValue == nil {
            throw .unauthorized(.invalidToken, "the JWT's '\(name)' claim must be a string")
        }
        self.header = header
        self.claims = claims
        self.signedPart = Data((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
    }

    var algorithm: String { header["alg"]?.stringValue ?? "" }
    var keyID: String? { header["kid"]?.stringValue }
    var issuer: String? { claims["iss"]?.stringValue }
    var subject: String? { claims["sub"]?.stringValue }
}

/// The public keys of an identity provider (a JWKS): RSA keys for RS256, P-256 keys for ES256.
struct JSONWebKeys: Sendable {
    enum Key: Sendable {
        case rsa(modulus: Data, exponent: Data)
        case ec(x: Data, y: Data)
    }

    /// A key with its id and the algorithm it is restricted to, if the JWKS says.
    struct Entry: Sendable {
        var id: String?
        var algorithm: String?
        var key: Key
    }

    /// The most keys one JWKS may list.
    static let maxKeys = 100
    /// The shortest RSA modulus accepted, in bits (NIST's floor since 2013).
    static let minimumRSABits = 2048

    let entries: [Entry]
    /// The ids of RSA keys left out for being under `minimumRSABits`.
    let weakKeyIDs: [String]

    /// Reads `{"keys": [...]}`; keys of other types or curves, RSA keys under 2048 bits, and keys
    /// not for signatures are skipped. The reason is thrown when the JWKS lists too many keys.
    init(json: JSONValue) throws(JWKSError) {
        let listed = json["keys"]?.arrayValue ?? []
        guard listed.count <= Self.maxKeys else { throw JWKSError(reason: "it lists \(listed.count) keys; the signer takes at most \(Self.maxKeys)") }
        var weak: [String] = []
        entries = listed.compactMap { jwk in
            if let use = jwk["use"]?.stringValue, use != "sig" { return nil }
            let id = jwk["kid"]?.stringValue, algorithm = jwk["alg"]?.stringValue
            switch jwk["kty"]?.stringValue {
            case "RSA":
                guard let n = jwk["n"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }),
                      let e = jwk["e"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }) else { return nil }
                guard Self.bits(of: n) >= Self.minimumRSABits else {
                    weak.append(id ?? "(no kid)")
                    return nil
                }
                return Entry(id: id, algorithm: algorithm, key: .rsa(modulus: n, exponent: e))
            case "EC":
                guard jwk["crv"]?.stringValue == "P-256",
                      let x = jwk["x"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }), x.count == 32,
                      let y = jwk["y"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }), y.count == 32 else { return nil }
                return Entry(id: id, algorithm: algorithm, key: .ec(x: x, y: y))
            default:
                return nil
            }
        }
        weakKeyIDs = weak
    }

    /// The keys of a JWKS file, with at least one usable key.
    init(file path: String) throws(JWKSError) {
        let data: Data
        do { data = try FileReading.read(path, limit: 1 << 20) } catch { throw JWKSError(reason: "\(error) (a JWKS file holds at most 1 MiB)") }
        let json: JSONValue
        do { json = try JSONValue.parse(data) } catch { throw JWKSError(reason: "'\(path)' is not JSON: \(error)") }
        try self.init(json: json)
        try requireUsableKey(in: "'\(path)'")
    }

    /// Refuses a JWKS with no key the signer uses; `source` names it ("'keys.json'", a URL).
    func requireUsableKey(in source: String) throws(JWKSError) {
        guard entries.isEmpty else { return }
        throw JWKSError(reason: "\(source) holds no RSA (2048 bits or more) or P-256 signing key")
    }

    /// The bit length of a big-endian unsigned number.
    static func bits(of number: Data) -> Int {
        guard let first = number.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (number.endIndex - first) * 8 - number[first].leadingZeroBitCount
    }

    /// Whether a key has the id `kid` (a token without `kid` may use any key).
    func contains(keyID kid: String?) -> Bool {
        kid == nil || entries.contains { $0.id == nil || $0.id == kid }
    }
}

/// Why a JWKS cannot be used as a whole.
struct JWKSError: Error, Sendable {
    var reason: String
}

/// Verifies OpenID Connect identity tokens: RS256 or ES256 only (never `none` or HMAC), a key
/// of the provider's, and `iss`, `aud`, `exp`, `nbf`, `iat` within a small leeway.
enum JWTVerifier {
    /// The algorithms accepted.
    static let algorithms: Set<String> = ["RS256", "ES256"]

    /// Refuses an algorithm other than RS256 and ES256 before any key is looked for.
    static func checkAlgorithm(of token: JWT) throws(Refusal) {
        guard algorithms.contains(token.algorithm) else {
            throw .unauthorized(.unsupportedAlgorithm, "JWT algorithm '\(token.algorithm)' is refused; only RS256 and ES256 are accepted")
        }
    }

    /// Checks the signature against `keys` and the claims against `issuer` and `audiences`.
    static func verify(_ token: JWT, keys: JSONWebKeys, issuer: String, audiences: [String], leeway: TimeInterval = 60, now: Date = Date()) throws(Refusal) {
        try checkAlgorithm(of: token)
        let candidates = keys.entries.filter { entry in
            (token.keyID == nil || entry.id == nil || entry.id == token.keyID) && (entry.algorithm == nil || entry.algorithm == token.algorithm)
        }
        guard candidates.contains(where: { verify(token.signedPart, token.signature, with: $0.key, algorithm: token.algorithm) }) else {
            throw .unauthorized(.invalidToken, "the JWT's signature does not match any key of its issuer")
        }
        let claims = token.claims
        let time = now.timeIntervalSince1970
        guard claims["exp"] != nil else { throw .unauthorized(.invalidToken, "the JWT has no 'exp'") }
        let expires = try seconds(claims, "exp") ?? 0
        guard expires + leeway > time else { throw .unauthorized(.tokenExpired, "the JWT expired") }
        guard expires - time <= maxLifetime else {
            throw .unauthorized(.invalidToken, "the JWT expires more than a day from now; identity tokens are short-lived")
        }
        if let notBefore = try seconds(claims, "nbf"), notBefore - leeway > time {
            throw .unauthorized(.tokenNotYetValid, "the JWT is not valid yet (nbf)")
        }
        if let issuedAt = try seconds(claims, "iat"), issuedAt - leeway > time {
            throw .unauthorized(.tokenNotYetValid, "the JWT was issued in the future (iat)")
        }
        guard token.issuer == issuer else { throw .unauthorized(.wrongIssuer, "the JWT's issuer is not \(issuer)") }
        let granted = claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? claims["aud"]?.stringValue.map { [$0] } ?? []
        guard granted.contains(where: audiences.contains) else {
            throw .unauthorized(.wrongAudience, "the JWT is not meant for " + audiences.joined(separator: " or "))
        }
    }

    /// The longest an identity token may still be valid for (providers issue minutes to an hour).
    static let maxLifetime: TimeInterval = 86_400

    /// A NumericDate claim (seconds since 1970); nil when absent, refused when it is no number.
    private static func seconds(_ claims: [String: JSONValue], _ name: String) throws(Refusal) -> Double? {
        guard let value = claims[name] else { return nil }
        let number: Double? = switch value {
        case .int(let whole): Double(whole)
        case .double(let fraction): fraction.isFinite ? fraction : nil
        default: nil
        }
        guard let number else { throw .unauthorized(.invalidToken, "the JWT's '\(name)' must be a number of seconds since 1970") }
        return number
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
