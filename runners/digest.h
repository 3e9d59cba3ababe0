/*
 * digest.h - SHA-256 in plain C, for the worker's Python module.
 *
 * The module (runners/ext) is loaded into whatever interpreter an
 * environment has, possibly inside a container, so it carries its own hash
 * instead of linking libcrypto. tests/unit/test_synth.c checks it against
 * OpenSSL's (base/util.h sha256_*), so an input hash means the same thing
 * on both sides.
 */
#ifndef BENCHGEN_DIGEST_H
#define BENCHGEN_DIGEST_H

#include <stddef.h>
#include <stdint.h>

struct digest_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t fill;
};

void digest_sha256_init(struct digest_sha256 *d);
void digest_sha256_update(struct digest_sha256 *d, const void *data, size_t n);
/* Lower-case hex digest, NUL-terminated. */
void digest_sha256_final(struct digest_sha256 *d, char hex[65]);

#endif /* BENCHGEN_DIGEST_H */
