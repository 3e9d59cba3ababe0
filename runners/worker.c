/*
 * worker.c - forking, watching and judging one cell worker (see worker.h).
 */
#include "runners/worker.h"
#include "plan/catalog.h"
#include "runners/cell.h"
#include "runners/channel.h"
#include "base/error.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define WATCH_INTERVAL_MS 100

/* Resident memory of every process in group pgid, in bytes. The worker's
 * own children (compile workers, data loaders) count against its limit. */
static int64_t group_rss(pid_t pgid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    int64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* Fields after the parenthesised command: state ppid pgrp ... */
        char *rp = strrchr(buf, ')');
        long pgrp = 0;
        if (!rp || sscanf(rp + 2, "%*c %*d %ld", &pgrp) != 1 || pgrp != pgid)
            continue;
        snprintf(path, sizeof(path), "/proc/%s/statm", e->d_name);
        f = fopen(path, "r");
        long long size = 0, resident = 0;
        if (f) {
            if (fscanf(f, "%lld %lld", &size, &resident) == 2)
                total += resident * page;
            fclose(f);
        }
    }
    closedir(d);
    return total;
}

static const char *signal_text(int sig)
{
    const char *s = sigabbrev_np(sig);
    return s ? s : "?";
}

/* Compilers that keep caches across processes (TorchInductor, Triton, the
 * CUDA JIT, JAX's persistent cache) are pointed at the cell's own empty
 * directory, so every cell pays, and reports, its full compile time whatever
 * ran on the machine before. TMPDIR follows, so nothing a cell leaves behind
 * outlives it. */
static void isolate_caches(const char *scratch)
{
    static const char *const vars[][2] = {{"TORCHINDUCTOR_CACHE_DIR", "inductor"},
                                          {"TRITON_CACHE_DIR", "triton"},
                                          {"CUDA_CACHE_PATH", "cuda"},
                                          {"JAX_COMPILATION_CACHE_DIR", "jax"},
                                          {"TMPDIR", "tmp"}};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        char *dir = util_printf("%s/%s", scratch, vars[i][1]);
        if (dir && util_mkdir_p(dir, 0700) == 0)
            setenv(vars[i][0], dir, 1);
        free(dir);
    }
}

static _Noreturn void child(const struct worker_job *job, int wfd, int64_t t0, const char *scratch)
{
    setpgid(0, 0);
    /* A SIGKILLed parent must not leave a worker running on its own. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* The parent's handlers must not run here; Ctrl-C goes to the parent,
     * which decides what happens to the cell. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    int log = open(job->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) {
        dup2(null, 0);
        close(null);
    }
    if (log >= 0) {
        dup2(log, 1);
        dup2(log, 2);
        close(log);
    }
    fcntl(wfd, F_SETFD, FD_CLOEXEC); /* not inherited by anything Python execs */
    if (scratch)
        isolate_caches(scratch);
    cell_main(job->cell, job->python, job->home, wfd, t0);
}

/* Decides the final status from what the parent saw. */
static void judge(struct result *r, const struct cell *c, const struct channel_reader *cr, int wstatus,
                  const char *killed_for)
{
    const char *status;
    char *detail = NULL;
    if (killed_for) {
        status = killed_for;
        if (strcmp(killed_for, "timeout") == 0)
            detail = util_printf("killed after the cell's timeout of %g s", c->timeout);
        else if (strcmp(killed_for, "oom") == 0)
            detail = util_printf("killed: resident memory %.0f MiB exceeded the limit of %.0f MiB",
                                 r->peak_rss / 1048576.0, c->memory_limit / 1048576.0);
        else
            detail = strdup("stopped by the user (SIGINT/SIGTERM)");
    } else if (cr->final && strcmp(cr->final_type, "done") == 0) {
        status = "ok";
    } else if (cr->final && strcmp(cr->final_type, "unsupported") == 0) {
        status = "unsupported";
    } else if (cr->final && strcmp(cr->final_type, "error") == 0) {
        status = strcmp(cr->final_kind, "oom") == 0 ? "oom" : "error";
    } else if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) {
        /* Nobody here sent it: on Linux that is the kernel's OOM killer. */
        status = "oom";
        detail = strdup("killed by SIGKILL without a report (most likely the kernel's OOM killer)");
    } else if (WIFSIGNALED(wstatus)) {
        status = "crash";
        detail = util_printf("worker died of signal %d (SIG%s)%s", WTERMSIG(wstatus),
                             signal_text(WTERMSIG(wstatus)), r->detail ? "" : "; see the cell log");
    } else {
        status = "error";
        detail = util_printf("worker exited with status %d without reporting a result; see the cell log",
                             WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    }
    snprintf(r->status, sizeof(r->status), "%s", status);
    if (detail) {
        if (r->detail) {
            char *both = util_printf("%s\n%s", detail, r->detail);
            free(detail);
            detail = both;
        }
        free(r->detail);
        r->detail = detail;
    }
    r->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    r->term_signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
}

int worker_run(const struct worker_job *job, struct result *out, volatile sig_atomic_t *stop,
               worker_tick_fn tick, void *tick_arg)
{
    const struct cell *c = job->cell;
    const char *tmp = getenv("TMPDIR");
    char *scratch = util_printf("%s/benchgen-cell-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!scratch || !mkdtemp(scratch)) {
        int e = errno;
        free(scratch);
        return error_set(BG_EIO, "cannot create the cell's scratch directory: %s", strerror(e));
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        util_rm_rf(scratch);
        free(scratch);
        return error_set(BG_EIO, "pipe: %s", strerror(errno));
    }
    fflush(NULL); /* or the child inherits and re-prints our buffered output */
    out->started = time(NULL);
    int64_t t0 = util_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        util_rm_rf(scratch);
        free(scratch);
        return error_set(BG_EIO, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child(job, fds[1], t0, scratch);
    }
    setpgid(pid, pid); /* also done by the child: whichever runs first wins the race */
    close(fds[1]);

    struct channel_reader cr = {0};
    const char *killed_for = NULL;
    int64_t deadline = t0 + (int64_t)(c->timeout * 1e9);
    int64_t next_watch = 0;
    int eof = 0, wstatus = 0, reaped = 0;
    while (!eof) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        int pr = poll(&p, 1, WATCH_INTERVAL_MS);
        if (pr > 0) {
            char buf[65536];
            ssize_t n = read(fds[0], buf, sizeof(buf));
            if (n > 0)
                channel_feed(&cr, buf, (size_t)n, out);
            else if (n == 0 || (errno != EINTR && errno != EAGAIN))
                eof = 1;
        }
        int64_t now = util_now_ns();
        if (killed_for)
            continue; /* already killed: drain until EOF */
        if (stop && *stop)
            killed_for = "interrupted";
        else if (now > deadline)
            killed_for = "timeout";
        else if (now >= next_watch) {
            /* A worker that exited while something it forked still holds
             * the pipe open would otherwise keep us here until the timeout. */
            if (!reaped && waitpid(pid, &wstatus, WNOHANG) == pid) {
                reaped = 1;
                kill(-pid, SIGKILL);
            }
            int64_t rss = group_rss(pid);
            if (rss > out->peak_rss)
                out->peak_rss = rss;
            if (c->memory_limit && rss > (int64_t)c->memory_limit)
                killed_for = "oom";
            next_watch = now + WATCH_INTERVAL_MS * 1000000LL;
            if (tick)
                tick(tick_arg, out, now - t0);
        }
        if (killed_for)
            kill(-pid, SIGKILL);
    }
    close(fds[0]);
    while (!reaped) {
        if (waitpid(pid, &wstatus, 0) == pid)
            reaped = 1;
        else if (errno != EINTR)
            break;
    }
    /* Anything the worker started that outlived it goes too. */
    kill(-pid, SIGKILL);
    out->finished = time(NULL);
    out->wall_s = (double)(util_now_ns() - t0) / 1e9;
    judge(out, c, &cr, wstatus, killed_for);
    channel_reader_free(&cr);
    util_rm_rf(scratch);
    free(scratch);
    return 0;
}
