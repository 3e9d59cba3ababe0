/*
 * test_channel.c - the worker report: what the child writes, the parent reads,
 * including lines split across reads and a torn last line from a killed child.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <stdio.h>

#include "runners/channel.h"

static void drain(int fd, struct channel_reader *cr, struct result *r, size_t chunk)
{
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof(buf));
    assert_true(n > 0);
    for (ssize_t off = 0; off < n; off += (ssize_t)chunk) {
        size_t len = (size_t)(n - off) < chunk ? (size_t)(n - off) : chunk;
        assert_int_equal(channel_feed(cr, buf + off, len, r), 0);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    char hash[65];
    memset(hash, 'a', 64);
    hash[64] = '\0';
    assert_int_equal(channel_send_marker(fds[1], "python", 1234), 0);
    assert_int_equal(channel_send_inputs(fds[1], hash, 4096), 0);
    assert_int_equal(channel_send_sample(fds[1], 1, 999), 0);
    assert_int_equal(channel_send_sample(fds[1], 0, 100), 0);
    assert_int_equal(channel_send_sample(fds[1], 0, 101), 0);
    assert_int_equal(channel_send_kv(fds[1], "fact", "tf32", "off \"quoted\" \n newline"), 0);
    assert_int_equal(channel_send_kv(fds[1], "env", "pkg.numpy", "2.3.5"), 0);
    assert_int_equal(channel_send_final(fds[1], "done", NULL, NULL), 0);
    assert_int_equal(channel_send_sample(fds[1], 0, 5), 0); /* after final: ignored */
    close(fds[1]);

    struct channel_reader cr = {0};
    struct result r = {0};
    drain(fds[0], &cr, &r, 7); /* odd chunking splits every line */
    close(fds[0]);
    assert_int_equal(cr.final, 1);
    assert_string_equal(cr.final_type, "done");
    assert_int_equal(r.nwarmup, 1);
    assert_int_equal(r.warmup_ns[0], 999);
    assert_int_equal(r.ntimed, 2);
    assert_int_equal(r.timed_ns[1], 101);
    assert_string_equal(r.input_sha256, hash);
    assert_int_equal(r.input_bytes, 4096);
    assert_string_equal(kvlist_get(&r.phases, "python"), "1234");
    assert_string_equal(kvlist_get(&r.facts, "tf32"), "off \"quoted\" \n newline");
    assert_string_equal(kvlist_get(&r.env, "pkg.numpy"), "2.3.5");
    channel_reader_free(&cr);
    result_free(&r);
}

static void test_error_and_torn_line(void **state)
{
    (void)state;
    struct channel_reader cr = {0};
    struct result r = {0};
    const char *text = "{\"t\":\"sample\",\"warmup\":0,\"ns\":42}\n{\"t\":\"error\",\"kind\":\"oom\","
                       "\"detail\":\"MemoryError\"}\n{\"t\":\"sample\",\"war";
    assert_int_equal(channel_feed(&cr, text, strlen(text), &r), 0);
    assert_int_equal(r.ntimed, 1);
    assert_int_equal(cr.final, 1);
    assert_string_equal(cr.final_type, "error");
    assert_string_equal(cr.final_kind, "oom");
    assert_string_equal(r.detail, "MemoryError");
    channel_reader_free(&cr);
    result_free(&r);

    struct channel_reader cr2 = {0};
    struct result r2 = {0};
    const char *msg = "{\"t\":\"unsupported\",\"reason\":\"Keras 2 has no Gemma\"}\n";
    assert_int_equal(channel_feed(&cr2, msg, strlen(msg), &r2), 0);
    assert_string_equal(cr2.final_type, "unsupported");
    assert_string_equal(r2.detail, "Keras 2 has no Gemma");
    assert_string_equal(cr2.problem, "");
    channel_reader_free(&cr2);
    result_free(&r2);
}

/* Lines after a protocol violation do not count, whether they arrive in
 * the same read or a later one: found by tests/fuzz/fuzz_channel (corpus
 * regress-lines-after-problem), where one read of a bad line followed by a
 * sample and a final message recorded both, a byte at a time neither. */
static void test_nothing_after_violation(void **state)
{
    (void)state;
    const char *text = "{\"t\":\"marker\",\"name\":\"a\",\"ns\":1}\n"
                       "{\"t\":\"sample\",\"warmup\":0,\"ns\":-1}\n"
                       "{\"t\":\"sample\",\"warmup\":0,\"ns\":7}\n"
                       "{\"t\":\"unsupported\",\"reason\":\"x\"}\n";
    for (size_t chunk = 1; chunk <= strlen(text); chunk = chunk == 1 ? strlen(text) : chunk + 1) {
        struct channel_reader cr = {0};
        struct result r = {0};
        for (size_t off = 0; off < strlen(text); off += chunk) {
            size_t n = strlen(text) - off < chunk ? strlen(text) - off : chunk;
            assert_int_equal(channel_feed(&cr, text + off, n, &r), 0);
        }
        assert_non_null(strstr(cr.problem, "-1 ns"));
        assert_int_equal(cr.final, 0);
        assert_int_equal(r.ntimed, 0);
        assert_null(r.detail);
        assert_int_equal(r.phases.n, 1);
        channel_reader_free(&cr);
        result_free(&r);
    }
}

/* What a hostile workload can write to the pipe: garbage, a forged
 * negative sample, and a line that never ends. */
static void test_protocol_violations(void **state)
{
    (void)state;
    struct channel_reader cr = {0};
    struct result r = {0};
    const char *garbage = "not json\n";
    assert_int_equal(channel_feed(&cr, garbage, strlen(garbage), &r), 0);
    assert_non_null(strstr(cr.problem, "not a JSON object"));
    channel_reader_free(&cr);

    struct channel_reader cr2 = {0};
    const char *neg = "{\"t\":\"sample\",\"warmup\":0,\"ns\":-5}\n";
    assert_int_equal(channel_feed(&cr2, neg, strlen(neg), &r), 0);
    assert_non_null(strstr(cr2.problem, "-5 ns"));
    assert_int_equal(r.ntimed, 0);
    channel_reader_free(&cr2);

    /* 3 MiB without a newline, fed in 64 KiB reads: cut off at 1 MiB, and
     * the reader holds no more than that. */
    struct channel_reader cr3 = {0};
    static char chunk[65536];
    memset(chunk, 'x', sizeof(chunk));
    size_t fed = 0;
    while (fed < 3u << 20 && !cr3.problem[0]) {
        assert_int_equal(channel_feed(&cr3, chunk, sizeof(chunk), &r), 0);
        fed += sizeof(chunk);
    }
    assert_non_null(strstr(cr3.problem, "more than 1048576 bytes"));
    assert_true(fed <= (1u << 20) + sizeof(chunk));
    assert_true(cr3.len == 0);
    channel_reader_free(&cr3);
    result_free(&r);
}

/* Linear parsing: 20,000 lines fed one byte at a time scan each byte once
 * (the old reader rescanned its buffer on every read). */
static void test_byte_at_a_time(void **state)
{
    (void)state;
    struct channel_reader cr = {0};
    struct result r = {0};
    const char *line = "{\"t\":\"sample\",\"warmup\":0,\"ns\":7}\n";
    for (int i = 0; i < 20000; i++)
        for (const char *p = line; *p; p++)
            assert_int_equal(channel_feed(&cr, p, 1, &r), 0);
    assert_int_equal(r.ntimed, 20000);
    assert_string_equal(cr.problem, "");
    channel_reader_free(&cr);
    result_free(&r);
}

/* The socket: one connection, the token first, a second one refused. */
static void test_socket_hello(void **state)
{
    (void)state;
    char dir[] = "/tmp/benchgen-unit-sock-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct channel_listener l;
    assert_int_equal(channel_listen(&l, dir), 0);
    assert_int_equal((int)strlen(l.token), CHANNEL_TOKEN_LEN);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, CHANNEL_SOCKET_NAME);
    int c1 = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(connect(c1, (struct sockaddr *)&a, sizeof(a)), 0);
    char peer[64] = "";
    int s = -1;
    for (int i = 0; i < 100 && s < 0; i++)
        s = channel_accept(&l, peer, sizeof(peer));
    assert_true(s >= 0);
    assert_non_null(strstr(peer, "pid "));
    assert_int_equal(l.fd, -1);
    assert_int_equal(access(a.sun_path, F_OK), -1); /* the file is gone: no second connection */
    int c2 = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(connect(c2, (struct sockaddr *)&a, sizeof(a)), -1);
    close(c2);
    /* The hello in two pieces, then report bytes in the same read. */
    char msg[256];
    int n = snprintf(msg, sizeof(msg), "%s%s\n{\"t\":\"done\"}\n", CHANNEL_HELLO, l.token);
    int ok = 0;
    assert_int_equal(channel_hello(&l, msg, 5, &ok), 5);
    assert_int_equal(ok, 0);
    long used = channel_hello(&l, msg + 5, (size_t)n - 5, &ok);
    assert_int_equal(ok, 1);
    assert_string_equal(msg + 5 + used, "{\"t\":\"done\"}\n");
    /* A wrong token is refused at its first wrong byte. */
    struct channel_listener l2 = l;
    l2.hello_len = 0;
    char bad[256];
    snprintf(bad, sizeof(bad), "%s%s\n", CHANNEL_HELLO, "00000000000000000000000000000000");
    if (strcmp(l.token, "00000000000000000000000000000000") != 0)
        assert_int_equal(channel_hello(&l2, bad, strlen(bad), &ok), -1);
    assert_int_equal(channel_hello(&l2, "{\"t\":\"done\"}\n", 12, &ok), -1);
    close(c1);
    close(s);
    channel_listener_close(&l);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip), cmocka_unit_test(test_error_and_torn_line),
                                       cmocka_unit_test(test_protocol_violations),
                                       cmocka_unit_test(test_nothing_after_violation),
                                       cmocka_unit_test(test_byte_at_a_time),
                                       cmocka_unit_test(test_socket_hello)};
    return cmocka_run_group_tests_name("channel", tests, NULL, NULL);
}
