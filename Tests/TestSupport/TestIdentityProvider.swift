import Basics
import Foundation

/// A local HTTPS OpenID Connect identity provider for tests (`Tests/SignerTests/Fixtures/
/// identity_provider.py`): its own self-signed certificate for 127.0.0.1 (the CA to trust), RSA
/// keys made with openssl, a JWKS the test rotates, discovery, GitHub's token endpoint, and JWTs
/// minted with those keys.
public final class TestIdentityProvider: @unchecked Sendable {
    /// Where keys, certificate and the files the server answers with live.
    public let directory: TemporaryDirectory
    private let server: ServerProcess

    /// The issuer: `https://127.0.0.1:<port>`.
    public var issuer: String { "https://127.0.0.1:\(server.port)" }
    /// The certificate to trust (with `--ca-cert` or `SSL_CERT_FILE`).
    public var certificate: String { directory.path + "/cert.pem" }
    private var served: String { directory.path + "/served" }

    /// Starts a provider with RSA keys under the ids `keyIDs`, publishing the first.
    public init(keyIDs: [String] = ["rsa-1", "rsa-2"]) throws {
        directory = try TemporaryDirectory(prefix: "idp")
        try FileManager.default.createDirectory(atPath: directory.path + "/served", withIntermediateDirectories: true)
        let made = try ProcessRunner.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory.path + "/cert-key.pem", "-out", directory.path + "/cert.pem",
            "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard made.status == 0 else { throw ProviderError(message: made.stderr) }
        for id in keyIDs {
            let key = try ProcessRunner.run("/usr/bin/openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", directory.path + "/\(id).pem"])
            guard key.status == 0 else { throw ProviderError(message: key.stderr) }
        }
        server = try ServerProcess("/usr/bin/env", [
            "python3", PackageRoot.path + "/Tests/SignerTests/Fixtures/identity_provider.py", directory.path + "/served",
            directory.path + "/cert.pem", directory.path + "/cert-key.pem",
        ])
        try publish(keyIDs.prefix(1).map { $0 })
        try write("discovery.json", JSONValue.object(["issuer": .string(issuer), "jwks_uri": .string(issuer + "/jwks")]).serialized())
    }

    deinit { stop() }

    /// Stops the server and removes its folder.
    public func stop() {
        server.stop()
        directory.remove()
    }

    /// Writes a file the server answers with (see the script: `jwks.json`, `down`, `request-token`, …).
    public func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: served + "/" + name))
    }

    /// Removes such a file.
    public func remove(_ name: String) throws {
        try FileManager.default.removeItem(atPath: served + "/" + name)
    }

    /// Serves the public keys of `keyIDs` as the JWKS.
    public func publish(_ keyIDs: [String]) throws {
        let keys = try keyIDs.map { try Self.rsaJWK(directory.path + "/\($0).pem", kid: $0) }
        try write("jwks.json", JSONValue.object(["keys": .array(keys)]).serialized())
    }

    /// How many requests asked for `path` (its query aside): `/jwks`, `/token`.
    public func requests(to path: String) -> Int {
        ((try? String(contentsOfFile: served + "/requests.log", encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.split(separator: "?", maxSplits: 1).first.map(String.init) == path }.count
    }

    /// A JWT with `claims` (the issuer's `iss`, and `exp`, `iat` and `nbf` around now, unless
    /// given), signed RS256 with the key `signingKey` and naming `kid` in its header.
    public func mint(_ claims: [String: JSONValue], kid: String = "rsa-1", signingKey: String? = nil) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        var all: [String: JSONValue] = ["iss": .string(issuer), "exp": .int(now + 300), "iat": .int(now - 5), "nbf": .int(now - 5)]
        all.merge(claims) { $1 }
        let header = JSONValue.object(["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(kid)])
        let input = Base64URL.encode(Data(header.serialized().utf8)) + "." + Base64URL.encode(Data(JSONValue.object(all).serialized().utf8))
        let inputPath = directory.path + "/jwt-input-\(UUID().uuidString)"
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
        defer { unlink(inputPath); unlink(inputPath + ".sig") }
        let signed = try ProcessRunner.run("/usr/bin/openssl", [
            "dgst", "-sha256", "-sign", directory.path + "/\(signingKey ?? kid).pem", "-out", inputPath + ".sig", inputPath,
        ])
        guard signed.status == 0 else { throw ProviderError(message: signed.stderr) }
        return input + "." + Base64URL.encode(try Data(contentsOf: URL(fileURLWithPath: inputPath + ".sig")))
    }


    /// The public JWK of the RSA key in the PEM file at `path`.
    public static func rsaJWK(_ path: String, kid: String) throws -> JSONValue {
        let modulus = try ProcessRunner.run("/usr/bin/openssl", ["rsa", "-in", path, "-noout", "-modulus"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        let n = Data(stride(from: 0, to: modulus.count, by: 2).compactMap { offset -> UInt8? in
            let start = modulus.index(modulus.startIndex, offsetBy: offset)
            return UInt8(modulus[start..<modulus.index(start, offsetBy: 2)], radix: 16)
        })
        return .object(["kty": .string("RSA"), "kid": .string(kid), "n": .string(Base64URL.encode(n)), "e": .string("AQAB")])
    }

    struct ProviderError: Error {
        var message: String
    }
}
