/*
 * test_synth.c - Philox known answers and the determinism of synthetic inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runners/digest.h"
#include "runners/synth.h"
#include "base/util.h"

/* Known-answer vectors of Philox4x32-10 from Random123's kat_vectors. */
static void test_philox_known_answers(void **state)
{
    (void)state;
    static const uint32_t cases[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
         0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
         0x5001e420, 0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        uint32_t out[4];
        synth_philox4x32(cases[i], cases[i] + 4, out);
        for (int k = 0; k < 4; k++)
            assert_int_equal(out[k], cases[i][6 + k]);
    }
}

static struct synth_input ids(int batch)
{
    struct synth_input in = {.dtype = SYNTH_INT32, .ndim = 2, .shape = {batch, 64}, .dist = SYNTH_UNIFORM,
                             .low = 0, .high = 28996};
    strcpy(in.name, "token_ids");
    return in;
}

static void hash_fill(const struct synth_input *in, uint64_t key, char hex[65])
{
    size_t n = synth_nbytes(in);
    void *buf = malloc(n);
    assert_non_null(buf);
    assert_int_equal(synth_fill(in, key, buf), 0);
    assert_int_equal(sha256_hex(buf, n, hex), 0);
    free(buf);
}

static void test_same_cell_same_bytes(void **state)
{
    (void)state;
    struct synth_input in = ids(4);
    uint64_t k1 = synth_stream_key(0, "bert", "fit", 4, "tiny", "token_ids");
    uint64_t k2 = synth_stream_key(0, "bert", "fit", 4, "tiny", "token_ids");
    assert_true(k1 == k2);
    char a[65], b[65];
    hash_fill(&in, k1, a);
    hash_fill(&in, k2, b);
    assert_string_equal(a, b);
}

static void test_keys_separate_streams(void **state)
{
    (void)state;
    uint64_t base = synth_stream_key(0, "bert", "fit", 4, "tiny", "token_ids");
    assert_true(base != synth_stream_key(1, "bert", "fit", 4, "tiny", "token_ids"));
    assert_true(base != synth_stream_key(0, "gemma", "fit", 4, "tiny", "token_ids"));
    assert_true(base != synth_stream_key(0, "bert", "predict", 4, "tiny", "token_ids"));
    assert_true(base != synth_stream_key(0, "bert", "fit", 8, "tiny", "token_ids"));
    assert_true(base != synth_stream_key(0, "bert", "fit", 4, "published", "token_ids"));
    assert_true(base != synth_stream_key(0, "bert", "fit", 4, "tiny", "padding_mask"));
    /* the separator keeps ("ab","c") and ("a","bc") apart */
    assert_true(synth_stream_key(0, "ab", "c", 1, "x", "y") != synth_stream_key(0, "a", "bc", 1, "x", "y"));
}

/* Element i depends only on (key, i): a larger batch starts with the same rows. */
static void test_prefix_stable(void **state)
{
    (void)state;
    struct synth_input small = ids(2), big = ids(8);
    uint64_t key = 12345;
    int32_t *a = malloc(synth_nbytes(&small)), *b = malloc(synth_nbytes(&big));
    assert_int_equal(synth_fill(&small, key, a), 0);
    assert_int_equal(synth_fill(&big, key, b), 0);
    assert_memory_equal(a, b, synth_nbytes(&small));
    free(a);
    free(b);
}

static void test_ranges_and_moments(void **state)
{
    (void)state;
    struct synth_input u = ids(64);
    int32_t *v = malloc(synth_nbytes(&u));
    assert_int_equal(synth_fill(&u, 7, v), 0);
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (int i = 0; i < 64 * 64; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    assert_true(lo >= 0 && hi < 28996);
    assert_true(hi > 28000 && lo < 1000); /* covers the range */
    free(v);

    struct synth_input g = {.name = "img", .dtype = SYNTH_FLOAT32, .ndim = 1, .shape = {100000},
                            .dist = SYNTH_NORMAL, .low = 2.0, .high = 3.0};
    float *f = malloc(synth_nbytes(&g));
    assert_int_equal(synth_fill(&g, 99, f), 0);
    double sum = 0, sq = 0;
    for (int i = 0; i < 100000; i++) {
        sum += f[i];
        sq += (double)f[i] * f[i];
    }
    double mean = sum / 100000, var = sq / 100000 - mean * mean;
    assert_true(fabs(mean - 2.0) < 0.05);
    assert_true(fabs(sqrt(var) - 3.0) < 0.05);
    free(f);

    struct synth_input c = {.name = "mask", .dtype = SYNTH_UINT8, .ndim = 1, .shape = {33}, .dist = SYNTH_CONST,
                            .low = 1};
    uint8_t m[33];
    assert_int_equal(synth_fill(&c, 1, m), 0);
    for (int i = 0; i < 33; i++)
        assert_int_equal(m[i], 1);
}

static void test_rejects_bad_requests(void **state)
{
    (void)state;
    struct synth_input in = ids(1);
    in.high = in.low; /* empty integer range */
    int32_t buf[64];
    assert_true(synth_fill(&in, 1, buf) < 0);
    in = ids(1);
    in.dist = SYNTH_NORMAL; /* normal ints make no sense */
    assert_true(synth_fill(&in, 1, buf) < 0);
    in = ids(1);
    in.shape[1] = 0;
    assert_int_equal(synth_nbytes(&in), 0);
    in.shape[1] = INT64_MAX;
    assert_int_equal(synth_nbytes(&in), 0);
    assert_int_equal(synth_dtype_parse("int64"), SYNTH_INT64);
    assert_int_equal(synth_dtype_parse("float64"), -1);
    assert_int_equal(synth_dist_parse("normal"), SYNTH_NORMAL);
    assert_int_equal(synth_dist_parse("poisson"), -1);
}

/* The worker module's own SHA-256 (runners/digest.c) against OpenSSL's, on
 * lengths around every block boundary and in uneven pieces. */
static void test_digest_matches_openssl(void **state)
{
    (void)state;
    static unsigned char data[1000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 131 + 7);
    for (size_t n = 0; n <= sizeof(data); n += (n < 200 ? 1 : 97)) {
        char want[65], got[65];
        assert_int_equal(sha256_hex(data, n, want), 0);
        struct digest_sha256 d;
        digest_sha256_init(&d);
        for (size_t off = 0; off < n;) {
            size_t take = (off * 7 + 3) % 71 + 1;
            take = take > n - off ? n - off : take;
            digest_sha256_update(&d, data + off, take);
            off += take;
        }
        digest_sha256_final(&d, got);
        assert_string_equal(got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_known_answers), cmocka_unit_test(test_same_cell_same_bytes),
        cmocka_unit_test(test_keys_separate_streams), cmocka_unit_test(test_prefix_stable),
        cmocka_unit_test(test_ranges_and_moments),   cmocka_unit_test(test_rejects_bad_requests),
        cmocka_unit_test(test_digest_matches_openssl),
    };
    return cmocka_run_group_tests_name("synth", tests, NULL, NULL);
}
