// libcrypto through its EVP interfaces only, plus inline helpers for macros Swift cannot import.
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/kdf.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#include <openssl/bio.h>

/// OPENSSL_free is a macro over CRYPTO_free.
static inline void gh_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

/// EVP_PKEY_PUBLIC_KEY is a compound macro that Swift does not import.
static inline int gh_evp_pkey_public_key_selection(void) {
    return EVP_PKEY_PUBLIC_KEY;
}
