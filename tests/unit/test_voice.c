/*
 * test_voice.c - the library's voice (base/voice.h) and the one terminal
 * writer (cli/term.h): no listener is silence; a listener gets the level,
 * topic, subject and formatted text; the writer prints today's lines per
 * topic (env on stdout, "benchgen bundle: warning: ", a cell's line), one
 * JSON object per event with --progress json (a phase once, not per tick),
 * nothing under --quiet, and refuses an unknown mode.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/voice.h"
#include "cli/term.h"

struct heard {
    int n;
    enum voice_level level;
    char topic[32], subject[32], text[128];
};

static void hear(void *payload, const struct voice_event *ev)
{
    struct heard *h = payload;
    h->n++;
    h->level = ev->level;
    snprintf(h->topic, sizeof(h->topic), "%s", ev->topic ? ev->topic : "");
    snprintf(h->subject, sizeof(h->subject), "%s", ev->subject ? ev->subject : "");
    snprintf(h->text, sizeof(h->text), "%s", ev->text ? ev->text : "");
}

static void test_no_listener_is_silence(void **state)
{
    (void)state;
    struct voice none = {0};
    assert_false(voice_on(NULL));
    assert_false(voice_on(&none));
    voice_note(NULL, "env", "base", "ready (%s)", "x"); /* nothing, no crash */
    voice_warn(&none, "bundle", NULL, "%d", 1);
    struct voice_event ev = {.kind = VOICE_CELL_START, .cell = "k"};
    voice_emit(&none, &ev);
}

static void test_listener_hears_the_event(void **state)
{
    (void)state;
    struct heard h = {0};
    struct voice v = {hear, &h};
    assert_true(voice_on(&v));
    voice_warn(&v, "env", "base", "FAILED after %.1f s: %s", 1.25, "why");
    assert_int_equal(h.n, 1);
    assert_int_equal(h.level, VOICE_WARNING);
    assert_string_equal(h.topic, "env");
    assert_string_equal(h.subject, "base");
    assert_string_equal(h.text, "FAILED after 1.2 s: why");
    assert_string_equal(voice_level_name(VOICE_PROGRESS), "progress");
}

/* What the writer printed on fd (1 or 2) while fn ran; malloc'd. */
static char *capture(int fd, void (*fn)(void))
{
    FILE *stream = fd == 1 ? stdout : stderr;
    char path[] = "/tmp/test_voice.XXXXXX";
    int tmp = mkstemp(path);
    assert_true(tmp >= 0);
    fflush(stream);
    int saved = dup(fd);
    dup2(tmp, fd);
    fn();
    fflush(stream);
    dup2(saved, fd);
    close(saved);
    char *buf = calloc(1, 4096);
    assert_non_null(buf);
    assert_true(pread(tmp, buf, 4095, 0) >= 0);
    close(tmp);
    unlink(path);
    return buf;
}

static void say_env_and_bundle(void)
{
    voice_note(term_voice(), "env", "base", "ready (%s)", "/c/base-1");
    voice_warn(term_voice(), "bundle", NULL, "%s has not finished", "runs/x");
    voice_note(term_voice(), "collect", NULL, "quarantined %s", "f.json");
    struct voice_event end = {.kind = VOICE_CELL_END, .cell = "mlp/fit/b32/numpy", .done = 1, .total = 2,
                              .status = "ok", .wall_s = 1.25, .text = "mean 1.000 ms/step"};
    voice_emit(term_voice(), &end);
}

static void test_text_lines_as_before(void **state)
{
    (void)state;
    assert_int_equal(term_setup(false, NULL), 0);
    char *out = capture(1, say_env_and_bundle);
    assert_string_equal(out, "env base: ready (/c/base-1)\n"); /* env speaks on stdout */
    free(out);
    char *err = capture(2, say_env_and_bundle);
    if (!isatty(STDERR_FILENO))
        assert_string_equal(err, "benchgen bundle: warning: runs/x has not finished\n"
                                 "benchgen: quarantined f.json\n"
                                 "[1/2] mlp/fit/b32/numpy                        ok             1.2 s  mean 1.000 ms/step\n");
    free(err);
}

static void ticks(void)
{
    struct voice_event st = {.kind = VOICE_CELL_START, .cell = "k", .index = 1, .total = 1};
    voice_emit(term_voice(), &st);
    for (int i = 1; i <= 3; i++) {
        struct voice_event ph = {.kind = VOICE_CELL_PHASE, .cell = "k", .index = 1, .total = 1, .phase = "timed",
                                 .step = i, .steps = 3, .elapsed_s = i, .eta_s = -1};
        voice_emit(term_voice(), &ph);
    }
    voice_note(term_voice(), "env", "base", "ready");
}

static void test_json_one_object_per_event(void **state)
{
    (void)state;
    assert_int_equal(term_setup(false, "json"), 0);
    char *err = capture(2, ticks);
    assert_string_equal(err, "{\"cell\":\"k\",\"event\":\"cell_start\",\"index\":1,\"total\":1,\"where\":null}\n"
                             "{\"cell\":\"k\",\"elapsed_s\":1.0,\"eta_s\":null,\"event\":\"phase\",\"index\":1,"
                             "\"phase\":\"timed\",\"step\":1,\"steps\":3,\"total\":1}\n"
                             "{\"event\":\"note\",\"subject\":\"base\",\"text\":\"ready\",\"topic\":\"env\"}\n");
    free(err);
    assert_int_equal(term_setup(false, NULL), 0);
}

static void test_quiet_says_nothing(void **state)
{
    (void)state;
    assert_int_equal(term_setup(true, "json"), 0);
    char *err = capture(2, ticks), *out = capture(1, say_env_and_bundle);
    assert_string_equal(err, "");
    assert_string_equal(out, "");
    free(err);
    free(out);
    assert_true(term_quiet());
    assert_int_equal(term_setup(false, "yaml"), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "text or json"));
    assert_int_equal(term_setup(false, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_listener_is_silence),
        cmocka_unit_test(test_listener_hears_the_event),
        cmocka_unit_test(test_text_lines_as_before),
        cmocka_unit_test(test_json_one_object_per_event),
        cmocka_unit_test(test_quiet_says_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
