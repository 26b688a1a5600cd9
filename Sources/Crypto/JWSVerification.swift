internal import COpenSSL
import Foundation

/// Verifies JWS signatures with public keys given as JWK numbers: RS256 (RSASSA-PKCS1-v1_5 with
/// SHA-256) and ES256 (ECDSA P-256 with SHA-256). Every OpenSSL object is freed on every path.
public enum JWSVerification {
    /// Whether `signature` over `message` verifies under the RSA key (`n`, `e`: big-endian bytes).
    public static func rs256(message: [UInt8], signature: [UInt8], modulus: [UInt8], exponent: [UInt8]) -> Bool {
        guard let n = BigNumber(modulus), let e = BigNumber(exponent), let builder = ParameterBuilder() else { return false }
        // The builder keeps pointers to the names and numbers until the key is made: they must live until then.
        let key = withCStrings([OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E]) { names in
            withExtendedLifetime((n, e)) { () -> PublicKey? in
                guard OSSL_PARAM_BLD_push_BN(builder.pointer, names[0], n.pointer) == 1,
                      OSSL_PARAM_BLD_push_BN(builder.pointer, names[1], e.pointer) == 1 else { return nil }
                return PublicKey(type: "RSA", parameters: builder)
            }
        }
        return key?.verifySHA256(message: message, signature: signature) ?? false
    }

    /// Whether the 64-byte `r || s` `signature` over `message` verifies under the P-256 point (`x`, `y`: 32 bytes each).
    public static func es256(message: [UInt8], signature: [UInt8], x: [UInt8], y: [UInt8]) -> Bool {
        guard signature.count == 64, x.count == 32, y.count == 32, let der = derSignature(signature),
              let builder = ParameterBuilder() else { return false }
        let point: [UInt8] = [4] + x + y
        // The builder keeps pointers to the strings and bytes until the key is made.
        let key = withCStrings([OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", OSSL_PKEY_PARAM_PUB_KEY]) { strings in
            point.withUnsafeBytes { bytes -> PublicKey? in
                guard OSSL_PARAM_BLD_push_utf8_string(builder.pointer, strings[0], strings[1], 0) == 1,
                      OSSL_PARAM_BLD_push_octet_string(builder.pointer, strings[2], bytes.baseAddress, bytes.count) == 1 else { return nil }
                return PublicKey(type: "EC", parameters: builder)
            }
        }
        return key?.verifySHA256(message: message, signature: der) ?? false
    }

    /// A JWS `r || s` as the DER sequence OpenSSL verifies.
    private static func derSignature(_ raw: [UInt8]) -> [UInt8]? {
        guard let parts = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(parts) }
        guard let r = raw[0..<32].withUnsafeBytes({ BN_bin2bn($0.baseAddress, 32, nil) }) else { return nil }
        guard let s = raw[32..<64].withUnsafeBytes({ BN_bin2bn($0.baseAddress, 32, nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(parts, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(parts, &der)
        guard length > 0, let der else { return nil }
        defer { CRYPTO_free(der, #file, #line) }
        return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }
}

/// `body`'s result, given `strings` as C strings that live until it returns: the parameter
/// builder keeps pointers to names and values until the key is made, so one call's C strings
/// must outlive each `push`, and each call makes its own.
private func withCStrings<Result>(
    _ strings: ArraySlice<String>, _ made: [UnsafePointer<CChar>] = [], _ body: ([UnsafePointer<CChar>]) -> Result
) -> Result {
    guard let first = strings.first else { return body(made) }
    return first.withCString { withCStrings(strings.dropFirst(), made + [$0], body) }
}

/// An OpenSSL big number, freed with it.
private final class BigNumber {
    let pointer: OpaquePointer

    init?(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, let pointer = bytes.withUnsafeBytes({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else { return nil }
        self.pointer = pointer
    }

    deinit { BN_free(pointer) }
}

/// An OpenSSL parameter builder, freed with it.
private final class ParameterBuilder {
    let pointer: OpaquePointer

    init?() {
        guard let pointer = OSSL_PARAM_BLD_new() else { return nil }
        self.pointer = pointer
    }

    deinit { OSSL_PARAM_BLD_free(pointer) }
}

/// A public key made from parameters, freed with it.
private final class PublicKey {
    let pointer: OpaquePointer

    init?(type: String, parameters builder: ParameterBuilder) {
        guard let parameters = OSSL_PARAM_BLD_to_param(builder.pointer) else { return nil }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, Self.publicKeySelection, parameters) == 1,
              let key else { return nil }
        pointer = key
    }

    deinit { EVP_PKEY_free(pointer) }

    /// EVP_PKEY_PUBLIC_KEY, a macro Swift cannot import: every parameter and the public key.
    static let publicKeySelection = Int32(OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY)

    func verifySHA256(message: [UInt8], signature: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { data in
                EVP_DigestVerify(
                    context, sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count,
                    data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count) == 1
            }
        }
    }
}
