#ifndef PIPELINE_COPENSSL_SHIM_H
#define PIPELINE_COPENSSL_SHIM_H
/* Declarations only: every use of OpenSSL is Swift code in the Crypto module. */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#endif
