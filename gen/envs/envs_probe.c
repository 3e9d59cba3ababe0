/*
 * envs_probe.c - an untrusted interpreter run like a cell: contained, with a
 * deadline, a memory limit and bounded output (see envs_probe.h).
 *
 * The child mirrors runners/worker.c's: its own process group, killed when
 * benchgen dies (PR_SET_PDEATHSIG, and the containment's watchdog for what
 * it started), the container joined before exec and its token in the
 * environment so the tree sweep finds every descendant. The parent polls
 * both pipes with every wait bounded by the deadline.
 */
#include "envs/envs_probe.h"
#include "envs/envs_proc.h"
#include "runners/contain.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define POLL_MS 100
#define GRACE_NS 1000000000LL /* after it exits, for its pipes to drain */

static int probe_timeout(double *out)
{
    const char *s = getenv("BENCHGEN_PROBE_TIMEOUT");
    *out = ENVS_PROBE_TIMEOUT_S;
    if (!s || !*s)
        return 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v <= 0 || v > 86400)
        return error_set(BG_EUSAGE, "BENCHGEN_PROBE_TIMEOUT=%s: expected seconds, a number > 0 and <= 86400", s);
    *out = v;
    return 0;
}

static _Noreturn void child(char *const argv[], struct contain *ct, int out_w, int err_w, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    envs_proc_child_signals();
    int joined = contain_enter(ct);
    int joined_errno = errno;
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int o = fcntl(out_w, F_DUPFD_CLOEXEC, 10), e = fcntl(err_w, F_DUPFD_CLOEXEC, 10);
    if (null < 0 || o < 0 || e < 0 || dup2(null, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
        _exit(127);
    if (joined < 0) /* voice-ok: the forked child's own stderr (the pipe the parent passes on) */
        dprintf(2, "benchgen: could not join the probe's container (%s)\n", strerror(joined_errno));
    putenv((char *)contain_token(ct));
    execvp(argv[0], argv);
    /* voice-ok: the forked child's own stderr (the pipe the parent passes on), after a failed exec */
    dprintf(2, "benchgen: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

struct probe {
    int out_fd, err_fd; /* -1 once at EOF */
    struct strbuf *out;
    size_t err_passed;
    unsigned long long err_dropped;
    bool too_much;
};

/* Reads what is ready on one pipe; true at EOF. Bounded: at most a few
 * buffers per call, so the deadline is checked between. */
static bool drain(struct probe *p, int fd)
{
    char buf[16384];
    for (int round = 0; round < 8; round++) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno != EAGAIN && errno != EWOULDBLOCK;
        if (n == 0)
            return true;
        if (fd == p->out_fd) {
            if (p->out->len + (size_t)n > ENVS_PROBE_MAX_OUT) {
                p->too_much = true;
                return false;
            }
            strbuf_append(p->out, buf, (size_t)n);
        } else {
            size_t pass = (size_t)n;
            if (p->err_passed + pass > ENVS_PROBE_MAX_ERR)
                pass = ENVS_PROBE_MAX_ERR - p->err_passed;
            /* voice-ok: the probed interpreter's own stderr passed on as it comes (a traceback),
             * like an installer's output (envs_proc.h): its words, not benchgen's; bounded */
            if (pass && write(STDERR_FILENO, buf, pass) < 0)
                pass = 0;
            p->err_passed += pass;
            p->err_dropped += (unsigned long long)n - pass;
        }
    }
    return false;
}

int envs_probe_run(char *const argv[], const char *what, struct strbuf *out, int *status)
{
    struct probe p = {.out_fd = -1, .err_fd = -1, .out = out};
    struct contain *ct = NULL;
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, err;
    double timeout_s;
    const char *why = NULL;
    char whybuf[96];
    *status = 0;
    if ((err = probe_timeout(&timeout_s)) < 0)
        return err;
    if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
        err = error_set(BG_EIO, "pipe: %s", strerror(errno));
        goto done;
    }
    if ((err = contain_open(&ct, "env-probe", ENVS_PROBE_MEMORY)) < 0)
        goto done;
    fflush(NULL); /* the child must not inherit and repeat buffered output */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        err = error_set(BG_EIO, "fork: %s", strerror(errno));
        goto done;
    }
    if (pid == 0)
        child(argv, ct, outp[1], errp[1], parent);
    setpgid(pid, pid); /* also done by the child: whichever runs first wins the race */
    contain_started(ct, pid);
    util_pipe_keep_read(outp, &p.out_fd);
    util_pipe_keep_read(errp, &p.err_fd);

    int64_t t0 = util_now_ns(), deadline = t0 + (int64_t)(timeout_s * 1e9), reaped_at = 0, killed_at = 0;
    bool reaped = false;
    for (;;) {
        int64_t now = util_now_ns();
        if (reaped && ((p.out_fd < 0 && p.err_fd < 0) || now - reaped_at > GRACE_NS))
            break;
        if (killed_at && !reaped && now - killed_at > 5 * GRACE_NS)
            break; /* unkillable (D state): give up on it rather than hang */
        struct pollfd pf[2];
        int np = 0;
        if (p.out_fd >= 0)
            pf[np++] = (struct pollfd){.fd = p.out_fd, .events = POLLIN};
        if (p.err_fd >= 0)
            pf[np++] = (struct pollfd){.fd = p.err_fd, .events = POLLIN};
        int64_t wait_ms = POLL_MS;
        if (!why && deadline - now < wait_ms * 1000000LL)
            wait_ms = deadline > now ? (deadline - now) / 1000000LL + 1 : 0;
        if (np == 0) {
            struct timespec nap = {0, wait_ms * 1000000L};
            nanosleep(&nap, NULL);
        } else if (poll(pf, (nfds_t)np, (int)wait_ms) > 0) {
            for (int i = 0; i < np; i++) {
                if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                if (drain(&p, pf[i].fd)) {
                    close(pf[i].fd);
                    if (pf[i].fd == p.out_fd)
                        p.out_fd = -1;
                    else
                        p.err_fd = -1;
                }
            }
        }
        now = util_now_ns();
        if (!reaped && waitpid(pid, status, WNOHANG) == pid) {
            reaped = true;
            reaped_at = now;
            contain_kill(ct); /* whatever it left behind, holding its pipes or not */
        }
        if (!why) {
            int64_t mem = contain_memory(ct, NULL);
            if (p.too_much) {
                snprintf(whybuf, sizeof(whybuf), "printed more than %u KiB", ENVS_PROBE_MAX_OUT >> 10);
                why = whybuf;
            } else if (contain_oom(ct) ||
                       (!contain_limits_memory(ct) && mem > (int64_t)ENVS_PROBE_MEMORY)) {
                snprintf(whybuf, sizeof(whybuf), "used more than %llu GiB of memory", ENVS_PROBE_MEMORY >> 30);
                why = whybuf;
            } else if (!reaped && now >= deadline) {
                snprintf(whybuf, sizeof(whybuf), "did not answer within %g s", timeout_s);
                why = whybuf;
            }
            if (why) {
                killed_at = now;
                contain_kill(ct);
            }
        }
    }
    contain_kill(ct);
    if (!reaped && waitpid(pid, status, WNOHANG) == pid)
        reaped = true;
    /* voice-ok: ends the probe's stderr passed on above (drain()), in the same stream */
    if (p.err_dropped)
        dprintf(STDERR_FILENO, "\nbenchgen: %llu more bytes of %s's stderr dropped\n", p.err_dropped, what);
    if (why)
        err = error_set(BG_EUSAGE, "%s %s: stopped, with every process it started%s", what, why,
                        why[0] == 'd' ? " (BENCHGEN_PROBE_TIMEOUT=SECONDS sets the deadline)" : "");
    else if (!reaped)
        err = error_set(BG_EIO, "%s could not be stopped", what);
done:
    util_close_fds(outp, 2);
    util_close_fds(errp, 2);
    util_close_fds(&p.out_fd, 1);
    util_close_fds(&p.err_fd, 1);
    contain_close(ct);
    return err;
}
