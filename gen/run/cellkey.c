/*
 * cellkey.c - Ed25519 keys and signatures for result files (see cellkey.h),
 * through OpenSSL's EVP interface.
 */
#include "run/cellkey.h"
#include "base/error.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

static void to_hex(char *out, const unsigned char *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static int nibble(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Exactly 2n lower-case hex digits into n bytes; -1 otherwise. */
static int from_hex(unsigned char *out, size_t n, const char *hex)
{
    if (!hex || strlen(hex) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

int cellkey_new(char priv[CELLKEY_HEX], char pub[CELLKEY_HEX])
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
    EVP_PKEY *key = NULL;
    unsigned char raw[32];
    size_t n = sizeof(raw);
    int err = 0;
    if (!ctx || EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_keygen(ctx, &key) <= 0 ||
        EVP_PKEY_get_raw_private_key(key, raw, &n) <= 0 || n != 32) {
        err = error_set(BG_EGENERIC, "cannot make an attempt key (OpenSSL Ed25519)");
        goto done;
    }
    to_hex(priv, raw, 32);
    n = sizeof(raw);
    if (EVP_PKEY_get_raw_public_key(key, raw, &n) <= 0 || n != 32) {
        err = error_set(BG_EGENERIC, "cannot make an attempt key (OpenSSL Ed25519)");
        goto done;
    }
    to_hex(pub, raw, 32);
done:
    OPENSSL_cleanse(raw, sizeof(raw));
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
    return err;
}

int cellkey_sign(char sig[CELLKEY_SIG_HEX], const char *priv, const void *msg, size_t n)
{
    unsigned char raw[32], out[64];
    size_t len = sizeof(out);
    EVP_PKEY *key = NULL;
    EVP_MD_CTX *md = NULL;
    int err = 0;
    if (from_hex(raw, sizeof(raw), priv) < 0) {
        err = error_set(BG_EUSAGE, "%s: not an attempt key", CELLKEY_ENV);
        goto done;
    }
    key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, raw, sizeof(raw));
    md = EVP_MD_CTX_new();
    if (!key || !md || EVP_DigestSignInit(md, NULL, NULL, NULL, key) <= 0 ||
        EVP_DigestSign(md, out, &len, msg, n) <= 0 || len != sizeof(out))
        err = error_set(BG_EGENERIC, "cannot sign the result (OpenSSL Ed25519)");
    else
        to_hex(sig, out, sizeof(out));
done:
    OPENSSL_cleanse(raw, sizeof(raw));
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    return err;
}

int cellkey_verify(const char *pub, const char *sig, const void *msg, size_t n)
{
    unsigned char raw[32], s[64];
    if (from_hex(raw, sizeof(raw), pub) < 0 || from_hex(s, sizeof(s), sig) < 0)
        return 0;
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw, sizeof(raw));
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = key && md && EVP_DigestVerifyInit(md, NULL, NULL, NULL, key) > 0 &&
             EVP_DigestVerify(md, s, sizeof(s), msg, n) == 1;
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    return ok;
}

void cellkey_wipe(char *key, size_t n)
{
    OPENSSL_cleanse(key, n);
}
