/*
 * test_base.c - the allocation policy of gen/base: the x* family never
 * returns NULL and, out of memory, prints one line and exits 1; a strbuf
 * grows through it and remembers its first (format) error, ignores later
 * appends and detaches to NULL; util_signal_name() names signals as
 * sigabbrev_np() does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

static void test_x_family(void **state)
{
    (void)state;
    char *s = xprintf("%s-%d", "cell", 7);
    assert_string_equal(s, "cell-7");
    free(s);
    s = xstrndup("abcdef", 3);
    assert_string_equal(s, "abc");
    free(s);
    int *z = xcalloc(0, sizeof(int)); /* zero is a valid, freeable allocation */
    assert_non_null(z);
    z = xrealloc(z, 4 * sizeof(int));
    free(z);
}

static void test_out_of_memory_exits(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    /* ASan's allocator aborts on an impossible request before malloc can
     * return NULL; the plain build (make test, make check) runs this. */
    skip();
#endif
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        volatile void *p = xmalloc(SIZE_MAX / 2); /* cannot be satisfied */
        (void)p;
        _exit(99); /* not reached */
    }
    close(fds[1]);
    char buf[256] = "";
    ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    assert_true(n > 0);
    assert_non_null(strstr(buf, "benchgen: out of memory"));
}

static void test_strbuf_first_error(void **state)
{
    (void)state;
    struct strbuf sb = {0};
    assert_int_equal(strbuf_puts(&sb, "kept"), 0);
    assert_int_equal(strbuf_error(&sb), 0);
    sb.err = BG_EGENERIC; /* what a format strbuf_printf cannot expand leaves */
    assert_int_equal(strbuf_puts(&sb, " lost"), BG_EGENERIC);
    assert_int_equal(strbuf_printf(&sb, "%d", 1), BG_EGENERIC);
    assert_string_equal(sb.buf, "kept"); /* nothing appended after the error */
    assert_int_equal(strbuf_error(&sb), BG_EGENERIC);
    assert_null(strbuf_detach(&sb)); /* and released */
    assert_null(sb.buf);
    assert_int_equal(sb.err, 0);
    strbuf_free(&sb);

    assert_int_equal(strbuf_printf(&sb, "%s=%d", "n", 3), 0);
    char *s = strbuf_detach(&sb);
    assert_string_equal(s, "n=3");
    free(s);
}

/* util_signal_name() stands in for sigabbrev_np() (glibc 2.32+), so the
 * kit builds on glibc 2.31: the same names, NULL where glibc gives NULL. */
/* util_cpus_usable() counts the CPUs of the affinity mask (taskset), not
 * the CPUs online: checked in a child pinned to one CPU. */
static void test_cpus_usable(void **state)
{
    (void)state;
    assert_true(util_cpus_usable() >= 1);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        if (sched_setaffinity(0, sizeof(one), &one) != 0)
            _exit(2);
        _exit(util_cpus_usable() == 1 ? 0 : 1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_signal_name(void **state)
{
    (void)state;
    assert_string_equal(util_signal_name(SIGHUP), "HUP");
    assert_string_equal(util_signal_name(SIGKILL), "KILL");
    assert_string_equal(util_signal_name(SIGUSR1), "USR1");
    assert_string_equal(util_signal_name(SIGTERM), "TERM");
    assert_string_equal(util_signal_name(SIGCHLD), "CHLD");
    assert_string_equal(util_signal_name(SIGXCPU), "XCPU");
    assert_string_equal(util_signal_name(SIGIO), "POLL"); /* glibc's abbreviation for 29 */
    assert_string_equal(util_signal_name(SIGSYS), "SYS");
    assert_null(util_signal_name(0));
    assert_null(util_signal_name(-1));
    assert_null(util_signal_name(SIGRTMIN));
    assert_null(util_signal_name(64));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x_family),
        cmocka_unit_test(test_out_of_memory_exits),
        cmocka_unit_test(test_strbuf_first_error),
        cmocka_unit_test(test_signal_name),
        cmocka_unit_test(test_cpus_usable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
