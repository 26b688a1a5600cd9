#ifndef PIPELINE_COPENSSL_SHIM_H
#define PIPELINE_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <string.h>

/* Verifies an RS256 signature (RSASSA-PKCS1-v1_5 with SHA-256) with the public key given by its
   modulus and exponent (big-endian bytes, as in a JWK). Returns 1 valid, 0 invalid, -1 on error. */
static inline int pipeline_verify_rs256(
    const unsigned char *n, size_t n_length, const unsigned char *e, size_t e_length,
    const unsigned char *data, size_t data_length, const unsigned char *signature, size_t signature_length)
{
    int result = -1;
    BIGNUM *modulus = BN_bin2bn(n, (int)n_length, NULL), *exponent = BN_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    EVP_PKEY *key = NULL;
    EVP_MD_CTX *digest = EVP_MD_CTX_new();
    if (modulus && exponent && builder && context && digest
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent)
        && (params = OSSL_PARAM_BLD_to_param(builder)) != NULL
        && EVP_PKEY_fromdata_init(context) == 1
        && EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) == 1
        && EVP_DigestVerifyInit(digest, NULL, EVP_sha256(), NULL, key) == 1) {
        result = EVP_DigestVerify(digest, signature, signature_length, data, data_length) == 1 ? 1 : 0;
    }
    EVP_MD_CTX_free(digest);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    return result;
}

/* Verifies an ES256 signature (ECDSA P-256 with SHA-256; `signature` is the 64-byte r||s of a
   JWS) with the public key given by its 32-byte x and y. Returns 1 valid, 0 invalid, -1 on error. */
static inline int pipeline_verify_es256(
    const unsigned char *x, const unsigned char *y, const unsigned char *data, size_t data_length,
    const unsigned char *signature)
{
    int result = -1;
    unsigned char point[65];
    point[0] = 4;
    memcpy(point + 1, x, 32);
    memcpy(point + 33, y, 32);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *key = NULL;
    EVP_MD_CTX *digest = EVP_MD_CTX_new();
    ECDSA_SIG *parts = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(signature, 32, NULL), *s = BN_bin2bn(signature + 32, 32, NULL);
    unsigned char *der = NULL;
    int der_length = 0;
    if (parts && r && s && ECDSA_SIG_set0(parts, r, s) == 1) {
        r = NULL;
        s = NULL;
        der_length = i2d_ECDSA_SIG(parts, &der);
    }
    if (der_length > 0 && builder && context && digest
        && OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0)
        && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof(point))
        && (params = OSSL_PARAM_BLD_to_param(builder)) != NULL
        && EVP_PKEY_fromdata_init(context) == 1
        && EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) == 1
        && EVP_DigestVerifyInit(digest, NULL, EVP_sha256(), NULL, key) == 1) {
        result = EVP_DigestVerify(digest, der, (size_t)der_length, data, data_length) == 1 ? 1 : 0;
    }
    OPENSSL_free(der);
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(parts);
    EVP_MD_CTX_free(digest);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    return result;
}
#endif
