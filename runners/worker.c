/*
 * worker.c - starting, watching and judging one cell worker (see worker.h).
 */
#include "runners/worker.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "plan/catalog.h"
#include "runners/ablate.h"
#include "runners/channel.h"
#include "runners/contain.h"
#include "runners/logcap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* close_range(2) is number 436 on every architecture (Linux 5.9); glibc
 * 2.31's headers (the kit's build root, docs/GPU.md) do not name it, and an
 * older kernel answers ENOSYS, which the callers handle. */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#ifndef BENCHGEN_EXT_SUBDIR
#define BENCHGEN_EXT_SUBDIR "build/python"
#endif

#define WATCH_INTERVAL_MS 100
#define REPORT_FD 3
#define CELL_DIR_WORD "{cell}"
/* After the worker is gone, how long its pipes may stay open (they cannot
 * once the container is killed; this only bounds a kernel that is slow). */
#define DRAIN_GRACE_NS 2000000000LL

extern char **environ;

const char worker_bootstrap[] = "import sys;sys.path[:]=sys.argv[1:3]+[p for p in sys.path if p];"
                                "import _benchgen;_benchgen._main(sys.argv[3:])";

const char *worker_ext_dir(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("BENCHGEN_EXT_DIR");
    if (env && *env)
        snprintf(dir, sizeof(dir), "%s", env);
    else
        snprintf(dir, sizeof(dir), "%s/%s", util_home_dir(), BENCHGEN_EXT_SUBDIR);
    return dir;
}

static const char *signal_text(int sig)
{
    const char *s = util_signal_name(sig);
    return s ? s : "?";
}

/* ---- the channel ------------------------------------------------------------ */

/* How the report reaches the parent: the pipe on fd 3 (no prefix), the pipe
 * or else the socket (a prefix: it may or may not pass descriptors), or the
 * socket only (a prefix that names the cell's directory: a container). */
enum chan_mode { CHAN_FD, CHAN_AUTO, CHAN_SOCKET };

static enum chan_mode chan_mode(const char *const *prefix)
{
    if (!prefix || !prefix[0])
        return CHAN_FD;
    for (const char *const *p = prefix; *p; p++)
        if (strstr(*p, CELL_DIR_WORD))
            return CHAN_SOCKET;
    return CHAN_AUTO;
}

char **worker_prefix_expand(const char *const *prefix, const char *cell_dir)
{
    size_t n = 0;
    while (prefix && prefix[n])
        n++;
    char **out = xcalloc(n + 1, sizeof(*out));
    size_t wlen = strlen(CELL_DIR_WORD);
    for (size_t i = 0; i < n; i++) {
        struct strbuf sb = {0};
        const char *p = prefix[i], *hit;
        while ((hit = strstr(p, CELL_DIR_WORD))) {
            strbuf_append(&sb, p, (size_t)(hit - p));
            strbuf_puts(&sb, cell_dir);
            p = hit + wlen;
        }
        strbuf_puts(&sb, p);
        out[i] = strbuf_detach(&sb);
        if (!out[i])
            out[i] = xstrdup("");
    }
    return out;
}

void worker_prefix_free(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

/* The variables a container started by the prefix should receive: what
 * benchgen sets for a worker and what the harness records (runners/harness.py
 * RECORDED_ENV), never the host's PATH, HOME or library paths. */
static bool env_for_container(const char *name, size_t n)
{
    static const char *const exact[] = {
        "TMPDIR", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "CUDA_CACHE_PATH", "JAX_COMPILATION_CACHE_DIR",
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES",
        "KERAS_BACKEND", "TF_USE_LEGACY_KERAS", "XLA_FLAGS", "TF_XLA_FLAGS", "TF_ENABLE_ONEDNN_OPTS",
        "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "TF_FORCE_GPU_ALLOW_GROWTH",
        "NVIDIA_TF32_OVERRIDE", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "JAX_DEFAULT_MATMUL_PRECISION",
        "JAX_ENABLE_X64", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
        "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"};
    if ((n >= 6 && strncmp(name, "PYTHON", 6) == 0) || (n >= 9 && strncmp(name, "BENCHGEN_", 9) == 0))
        return true;
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
        if (strlen(exact[i]) == n && strncmp(name, exact[i], n) == 0)
            return true;
    return false;
}

/* DIR/env: those variables as NAME=VALUE lines, for `--env-file {cell}/env`
 * (docker and podman read it; a value holding a newline cannot be passed). */
static void write_env_file(const char *dir)
{
    char *path = util_printf("%s/env", dir);
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
    free(path);
    if (fd < 0)
        return;
    for (char **e = environ; e && *e; e++) {
        size_t n = strcspn(*e, "=");
        if ((*e)[n] == '=' && !strchr(*e, '\n') && env_for_container(*e, n))
            dprintf(fd, "%s\n", *e);
    }
    close(fd);
}

/* ---- the child ------------------------------------------------------------- */

/* Compilers that keep caches across processes (TorchInductor, Triton, the
 * CUDA JIT, JAX's persistent cache) are pointed at the cell's own empty
 * directory, so every cell pays, and reports, its full compile time whatever
 * ran on the machine before; or, given a kept cache (an A/B arm's for this
 * cell), at that one, so the arm's later processes reuse what its first
 * compiled. TMPDIR is always the cell's own, so nothing else a cell leaves
 * behind outlives it. BENCHGEN_COMPILE_CACHE tells the harness which it is
 * (cell | cold | warm: runners/harness.py records it). */
static void isolate_caches(const char *scratch, const char *kept, bool warm)
{
    static const char *const vars[][2] = {{"TORCHINDUCTOR_CACHE_DIR", "inductor"},
                                          {"TRITON_CACHE_DIR", "triton"},
                                          {"CUDA_CACHE_PATH", "cuda"},
                                          {"JAX_COMPILATION_CACHE_DIR", "jax"},
                                          {"TMPDIR", "tmp"}};
    size_t n = sizeof(vars) / sizeof(vars[0]);
    for (size_t i = 0; i < n; i++) {
        char *dir = util_printf("%s/%s", kept && i + 1 < n ? kept : scratch, vars[i][1]);
        if (dir && util_mkdir_p(dir, 0700) == 0)
            setenv(vars[i][0], dir, 1);
        free(dir);
    }
    setenv("BENCHGEN_COMPILE_CACHE", !kept ? "cell" : warm ? "warm" : "cold", 1);
    if (kept) {
        /* JAX writes only programs that took a second to compile, and
         * (newer releases) above a size: every program, so a warm process
         * compiles nothing a cold one did. Releases without an option
         * ignore its variable. */
        setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0", 1);
        setenv("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1", 1);
    }
}

/* Whether dir holds anything but directories, at any depth (a cache the
 * worker made but nothing wrote into is still cold). Symlinks are not
 * followed; one counts as content. */
static bool holds_files(const char *dir, int depth)
{
    DIR *d = depth < 32 ? opendir(dir) : NULL;
    bool found = false;
    if (!d)
        return depth >= 32;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *path = xprintf("%s/%s", dir, e->d_name);
        struct stat st;
        found = lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || holds_files(path, depth + 1);
        free(path);
    }
    closedir(d);
    return found;
}

/* The interpreter's environment: no PYTHON* variable of the user's (they
 * could point it at other code or change hashing), and the settings that
 * make a run repeatable: hash seed 0, UTF-8 mode, unbuffered output, no
 * user site-packages. BENCHGEN_ABLATE=env keeps the user's environment and
 * sets none of them, =tmpdir sets no TMPDIR or cache directory (test-only,
 * runners/ablate.h). */
static void set_environment(const struct worker_job *job, const char *scratch, const char *token, bool warm,
                            unsigned ablate)
{
    const struct cell *c = job->cell;
    while (!(ablate & ABLATE_ENV)) {
        char **e = environ;
        while (e && *e && strncmp(*e, "PYTHON", 6) != 0)
            e++;
        if (!e || !*e)
            break;
        char name[256];
        size_t n = strcspn(*e, "=");
        snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), *e);
        if (unsetenv(name) < 0 || n >= sizeof(name))
            break;
    }
    if (!(ablate & ABLATE_ENV)) {
        setenv("PYTHONHASHSEED", "0", 1);
        setenv("PYTHONUTF8", "1", 1);
        setenv("PYTHONUNBUFFERED", "1", 1);
        setenv("PYTHONNOUSERSITE", "1", 1);
    }
    const struct catalog_backend *b = catalog_backend_find(c->backend);
    for (const char *const *v = b ? b->env_vars : NULL; v && *v; v++)
        putenv((char *)*v);
    setenv("BENCHGEN_BACKEND", c->backend, 1);
    setenv("BENCHGEN_CELL", c->key, 1);
    if (token)
        putenv((char *)token);
    if (scratch && !(ablate & ABLATE_TMPDIR))
        isolate_caches(scratch, job->compile_cache, warm);
}

/* Moves fd to target (which must end up without FD_CLOEXEC). */
static void place_fd(int fd, int target)
{
    if (fd == target)
        fcntl(fd, F_SETFD, 0);
    else
        dup2(fd, target);
}

static void close_from(int lowfd)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = lowfd; fd < (max > 0 ? max : 65536); fd++)
        close((int)fd);
}

/* argv: [prefix...] python -s -u -X utf8 -c BOOT ext runners FD t0 key=value...
 * FD is "3", or "-" when the channel is the socket only; key channel= names
 * the socket when one is offered, key ablate= the test-only knobs in effect
 * (runners/ablate.h; with `env`, no -s -u -X utf8). {cell} in the prefix is
 * the cell's directory. */
static char **build_argv(const struct worker_job *job, int64_t t0, const char *scratch, enum chan_mode mode,
                         const struct channel_listener *lis)
{
    const struct cell *c = job->cell;
    const struct catalog_backend *b = catalog_backend_find(c->backend);
    char **prefix = worker_prefix_expand(job->prefix, scratch);
    size_t np = 0;
    while (prefix[np])
        np++;
    char **argv = calloc(np + 40, sizeof(*argv));
    if (!argv)
        return NULL;
    unsigned ablate = ablate_active();
    size_t k = 0;
    for (size_t i = 0; i < np; i++)
        argv[k++] = prefix[i]; /* the child execs or exits: nothing to free */
    argv[k++] = (char *)job->python;
    if (!(ablate & ABLATE_ENV)) {
        argv[k++] = "-s";
        argv[k++] = "-u";
        argv[k++] = "-X";
        argv[k++] = "utf8";
    }
    argv[k++] = "-c";
    argv[k++] = (char *)worker_bootstrap;
    argv[k++] = (char *)worker_ext_dir();
    argv[k++] = util_printf("%s/runners", job->home);
    argv[k++] = mode == CHAN_SOCKET ? "-" : util_printf("%d", REPORT_FD);
    argv[k++] = util_printf("%lld", (long long)t0);
    argv[k++] = util_printf("key=%s", c->key);
    argv[k++] = util_printf("model=%s", c->model);
    argv[k++] = util_printf("task=%s", c->task);
    argv[k++] = util_printf("backend=%s", c->backend);
    argv[k++] = util_printf("family=%s", b && b->family ? b->family : "");
    argv[k++] = util_printf("size=%s", c->size);
    argv[k++] = util_printf("precision=%s", c->precision ? c->precision : "");
    argv[k++] = util_printf("env=%s", c->env ? c->env : "");
    argv[k++] = util_printf("workload=%s", c->workload ? c->workload : "");
    argv[k++] = util_printf("method=%s", c->method ? c->method : "corrected");
    argv[k++] = util_printf("batch=%d", c->batch);
    argv[k++] = util_printf("steps=%d", c->steps);
    argv[k++] = util_printf("warmup=%d", c->warmup);
    argv[k++] = util_printf("repeat=%d", c->repeat);
    argv[k++] = util_printf("seed=%llu", (unsigned long long)c->seed);
    argv[k++] = util_printf("device=%s", job->device ? job->device : "cpu");
    argv[k++] = util_printf("device_rule=%s", c->device ? c->device : "auto");
    if (job->declare_only)
        argv[k++] = "check=1";
    if (lis)
        argv[k++] = util_printf("channel=%s/%s", scratch, CHANNEL_SOCKET_NAME);
    if (ablate) {
        char list[128];
        ablate_format(ablate, list, sizeof(list));
        argv[k++] = util_printf("ablate=%s", list);
    }
    argv[k] = NULL;
    for (size_t i = 0; i < k; i++)
        if (!argv[i])
            return NULL; /* the child exits over it; nothing to free there */
    return argv;
}

static _Noreturn void child(const struct worker_job *job, struct contain *ct, int report_w, int log_w,
                            int64_t t0, const char *scratch, pid_t parent, enum chan_mode mode,
                            const struct channel_listener *lis, bool warm)
{
    setpgid(0, 0);
    /* A SIGKILLed parent must not leave a worker running on its own (its
     * descendants are the container's and the watchdog's business). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    /* Ctrl-C goes to the parent, which decides what happens to the cell. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    int joined = contain_enter(ct);

    /* Lift the two pipe ends above 0..3 before placing them, so no dup2()
     * overwrites the other. */
    int rep = fcntl(report_w, F_DUPFD_CLOEXEC, 10), log = fcntl(log_w, F_DUPFD_CLOEXEC, 10);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (rep < 0 || log < 0 || null < 0)
        _exit(127);
    place_fd(null, 0);
    place_fd(log, 1);
    place_fd(log, 2);
    place_fd(rep, REPORT_FD);
    /* Socket only: the pipe stays for this process's own failure to exec. */
    if (mode == CHAN_SOCKET)
        fcntl(REPORT_FD, F_SETFD, FD_CLOEXEC);
    close_from(REPORT_FD + 1);
    if (joined < 0)
        dprintf(2, "benchgen: could not join the cell's container (%s)\n", strerror(errno));

    set_environment(job, scratch, contain_token(ct), warm, ablate_active());
    if (lis) {
        setenv(CHANNEL_TOKEN_VAR, lis->token, 1);
        setenv("BENCHGEN_CELL_DIR", scratch, 1);
        write_env_file(scratch);
    }
    char **argv = build_argv(job, t0, scratch, mode, lis);
    if (argv)
        execvp(argv[0], argv);
    char msg[PATH_MAX + 128];
    snprintf(msg, sizeof(msg), "cannot execute the environment's interpreter %s: %s",
             argv ? argv[0] : job->python, argv ? strerror(errno) : "out of memory");
    dprintf(2, "benchgen: %s\n", msg);
    channel_send_final(REPORT_FD, "error", "error", msg);
    _exit(127);
}

/* ---- the parent ------------------------------------------------------------ */

struct watch {
    struct channel_reader cr;
    struct logcap log;
    int report_fd, log_fd;      /* -1 once at EOF */
    struct channel_listener *lis; /* the offered socket, NULL when none */
    int sock_fd;                /* the accepted connection; -1 before and after */
    bool sock_used, sock_ok;    /* a connection came; it presented the token */
    bool pipe_spoke;            /* the pipe delivered a byte */
    bool poll_memory;           /* the 10 Hz memory poll (off under BENCHGEN_ABLATE=cgroup or sampling) */
    char peer[64];              /* SO_PEERCRED of the connection */
    enum status killed_for;     /* STATUS_NONE, or why the parent killed it: timeout, oom, interrupted, error */
    int wstatus, reaped;
    int64_t reaped_at;
};

/* Feeds report bytes; on the socket, the hello line comes first. */
static void feed_report(struct watch *w, int fd, const char *buf, size_t n, struct result *out)
{
    if (fd == w->report_fd && n && !w->pipe_spoke) {
        w->pipe_spoke = true;
        if (w->lis)
            channel_listener_close(w->lis); /* the pipe is the channel: no socket from now on */
    }
    if (fd == w->sock_fd && !w->sock_ok) {
        int ok = 0;
        long used = w->cr.problem[0] ? 0 : channel_hello(w->lis, buf, n, &ok);
        if (used < 0 && !w->cr.problem[0])
            snprintf(w->cr.problem, sizeof(w->cr.problem),
                     "the connection to the report socket did not present this cell's token");
        if (!ok)
            return;
        w->sock_ok = true;
        buf += used;
        n -= (size_t)used;
    }
    if (n && channel_feed(&w->cr, buf, n, out) < 0 && !w->cr.problem[0])
        snprintf(w->cr.problem, sizeof(w->cr.problem), "%s", error_last());
}

/* Reads what is ready on one descriptor; 1 at EOF. */
static int drain(struct watch *w, int fd, struct result *out)
{
    char buf[65536];
    for (int rounds = 0; rounds < 16; rounds++) { /* bounded: the deadlines are checked between */
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0) {
            if (fd == w->log_fd)
                logcap_write(&w->log, buf, (size_t)n);
            else
                feed_report(w, fd, buf, (size_t)n, out);
            if ((size_t)n < sizeof(buf))
                return 0;
            continue;
        }
        if (n == 0)
            return 1;
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    }
    return 0;
}

static void set_detail(struct result *r, char *detail)
{
    if (!detail)
        return;
    if (r->detail) {
        char *both = util_printf("%s\n%s", detail, r->detail);
        free(detail);
        detail = both;
    }
    free(r->detail);
    r->detail = detail;
}

/* The signal the worker died of: its wait status's, or, behind a prefix, an
 * exit status of 128+N, which is how container runtimes and shells report
 * that their child died of signal N. */
static int death_signal(const struct watch *w, const char **how)
{
    int ws = w->wstatus;
    *how = "";
    if (!w->reaped)
        return 0;
    if (WIFSIGNALED(ws))
        return WTERMSIG(ws);
    if (w->lis && WIFEXITED(ws) && WEXITSTATUS(ws) > 128 && WEXITSTATUS(ws) - 128 < NSIG) {
        *how = " (the prefix's exit status 128+N)";
        return WEXITSTATUS(ws) - 128;
    }
    return 0;
}

/* Decides the final status from what the parent saw. */
static void judge(struct result *r, const struct cell *c, const struct watch *w, bool oom_killed)
{
    const struct channel_reader *cr = &w->cr;
    int ws = w->wstatus;
    const char *how;
    int sig = death_signal(w, &how);
    bool exited0 = w->reaped && WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
    const char *final = cr->final ? cr->final_type : "";
    enum status status;
    char *detail = NULL;
    if (w->killed_for == STATUS_ERROR) {
        status = STATUS_ERROR;
        detail = util_printf("worker killed: %s", cr->problem);
    } else if (w->killed_for == STATUS_TIMEOUT) {
        status = STATUS_TIMEOUT;
        detail = util_printf("killed after the cell's timeout of %g s", c->timeout);
    } else if (w->killed_for == STATUS_OOM || oom_killed) {
        status = STATUS_OOM;
        detail = util_printf("killed: memory %.0f MiB reached the limit of %.0f MiB", r->peak_rss / 1048576.0,
                             c->memory_limit / 1048576.0);
    } else if (w->killed_for) {
        status = STATUS_INTERRUPTED;
        detail = strdup("stopped by the user (SIGINT/SIGTERM)");
    } else if (!w->reaped) {
        status = STATUS_ERROR;
        detail = strdup("the worker could not be reaped");
    } else if (sig == SIGKILL) {
        /* Nobody here sent it: on Linux that is the kernel's OOM killer. */
        status = STATUS_OOM;
        detail = util_printf("killed by SIGKILL without a report (most likely the kernel's OOM killer)%s", how);
    } else if (sig) {
        status = STATUS_CRASH;
        detail = util_printf("worker died of signal %d (SIG%s)%s%s%s", sig, signal_text(sig), how,
                             strcmp(final, "done") == 0 ? " after reporting done" : "",
                             r->detail ? "" : "; see the cell log");
    } else if (cr->problem[0]) {
        status = STATUS_ERROR;
        detail = strdup(cr->problem);
    } else if (strcmp(final, "error") == 0) {
        status = status_parse(cr->final_kind) == STATUS_OOM ? STATUS_OOM : STATUS_ERROR;
    } else if (!exited0) {
        status = STATUS_ERROR;
        detail = util_printf("worker exited with status %d %s; see the cell log", WEXITSTATUS(ws),
                             cr->final ? "after its final report" : "without reporting a result");
    } else if (strcmp(final, "unsupported") == 0) {
        status = STATUS_UNSUPPORTED;
    } else if (strcmp(final, "done") != 0) {
        status = STATUS_ERROR;
        detail = strdup("worker exited with status 0 without reporting a result; see the cell log");
    } else if (r->nwarmup != (size_t)c->warmup || r->ntimed != (size_t)c->steps) {
        status = STATUS_ERROR;
        detail = util_printf("worker reported %zu warm-up and %zu timed samples, expected %d and %d",
                             r->nwarmup, r->ntimed, c->warmup, c->steps);
    } else {
        status = STATUS_OK;
    }
    r->status = status;
    /* A worker that did not end `ok` may have forged anything it reported. */
    if (status != STATUS_OK && strcmp(final, "done") == 0) {
        r->nwarmup = r->ntimed = 0;
        free(r->detail);
        r->detail = NULL;
    }
    set_detail(r, detail);
    r->exit_code = w->reaped && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    r->term_signal = sig;
}

/* The one connection the socket takes; from then on it is the channel, and
 * the pipe (closed by the prefix, or never used) is dropped. */
static void accept_socket(struct watch *w)
{
    if (w->pipe_spoke || w->sock_used) {
        channel_listener_close(w->lis);
        return;
    }
    int fd = channel_accept(w->lis, w->peer, sizeof(w->peer));
    if (fd < 0)
        return;
    w->sock_fd = fd;
    w->sock_used = true;
    if (w->report_fd >= 0) {
        close(w->report_fd);
        w->report_fd = -1;
    }
}

/* The parent's side of a running cell: every wait bounded. */
static void watch_cell(struct watch *w, pid_t pid, struct contain *ct, const struct worker_job *job,
                       struct result *out, volatile sig_atomic_t *stop, worker_tick_fn tick, void *tick_arg,
                       int64_t t0)
{
    const struct cell *c = job->cell;
    int64_t deadline = t0 + (int64_t)(c->timeout * 1e9), next_watch = 0, killed_at = 0;
    for (;;) {
        int64_t now = util_now_ns();
        if (w->reaped && ((w->report_fd < 0 && w->log_fd < 0 && w->sock_fd < 0) ||
                          now - w->reaped_at > DRAIN_GRACE_NS))
            break;
        if (w->killed_for && !w->reaped && now - killed_at > DRAIN_GRACE_NS * 5)
            break; /* unkillable (D state): give up on it rather than hang */
        struct pollfd p[4];
        int np = 0;
        if (w->report_fd >= 0)
            p[np++] = (struct pollfd){.fd = w->report_fd, .events = POLLIN};
        if (w->log_fd >= 0)
            p[np++] = (struct pollfd){.fd = w->log_fd, .events = POLLIN};
        if (w->sock_fd >= 0)
            p[np++] = (struct pollfd){.fd = w->sock_fd, .events = POLLIN};
        int lfd = w->lis ? w->lis->fd : -1;
        if (lfd >= 0)
            p[np++] = (struct pollfd){.fd = lfd, .events = POLLIN};
        int64_t wait_ms = WATCH_INTERVAL_MS;
        if (!w->killed_for && deadline - now < wait_ms * 1000000LL)
            wait_ms = deadline > now ? (deadline - now) / 1000000LL + 1 : 0;
        if (poll(p, (nfds_t)np, (int)wait_ms) > 0) {
            for (int i = 0; i < np; i++) {
                if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                if (p[i].fd == lfd) {
                    accept_socket(w);
                    continue;
                }
                if (p[i].fd != w->report_fd && p[i].fd != w->log_fd && p[i].fd != w->sock_fd)
                    continue; /* closed earlier in this round */
                if (drain(w, p[i].fd, out)) {
                    close(p[i].fd);
                    if (p[i].fd == w->report_fd)
                        w->report_fd = -1;
                    else if (p[i].fd == w->sock_fd)
                        w->sock_fd = -1;
                    else
                        w->log_fd = -1;
                }
            }
        }
        now = util_now_ns();
        if (!w->reaped && waitpid(pid, &w->wstatus, WNOHANG) == pid) {
            w->reaped = 1;
            w->reaped_at = now;
            /* Whatever the worker left behind (holding its pipes or not) goes now. */
            contain_kill(ct);
        }
        if (!w->killed_for) {
            if (w->cr.problem[0])
                w->killed_for = STATUS_ERROR;
            else if (stop && *stop)
                w->killed_for = STATUS_INTERRUPTED;
            else if (now >= deadline)
                w->killed_for = STATUS_TIMEOUT;
        }
        if (now >= next_watch) {
            int64_t peak = 0, mem = w->poll_memory ? contain_memory(ct, &peak) : 0;
            if (peak > out->peak_rss)
                out->peak_rss = peak;
            if (mem > out->peak_rss)
                out->peak_rss = mem;
            if (!w->killed_for && !contain_limits_memory(ct) && c->memory_limit && mem > (int64_t)c->memory_limit)
                w->killed_for = STATUS_OOM;
            next_watch = now + WATCH_INTERVAL_MS * 1000000LL;
            if (tick && !w->killed_for)
                tick(tick_arg, out, now - t0);
        }
        if (w->killed_for && !killed_at) {
            killed_at = now;
            contain_kill(ct);
        }
    }
}

int worker_run(const struct worker_job *job, struct result *out, volatile sig_atomic_t *stop,
               worker_tick_fn tick, void *tick_arg)
{
    const struct cell *c = job->cell;
    unsigned ablate = 0;
    if (ablate_from_env(&ablate) < 0)
        return error_code(); /* a test-only knob misspelt: refused before any cell starts */
    struct watch w = {.report_fd = -1, .log_fd = -1, .sock_fd = -1,
                      .poll_memory = !(ablate & (ABLATE_CGROUP | ABLATE_SAMPLING))};
    struct channel_listener lis = {.fd = -1};
    enum chan_mode mode = chan_mode(job->prefix);
    struct contain *ct = NULL;
    int rep[2] = {-1, -1}, logp[2] = {-1, -1}, err;
    const char *tmp = getenv("TMPDIR");
    char *scratch = util_printf("%s/benchgen-cell-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    w.log.fd = -1;
    if (!scratch || !mkdtemp(scratch)) {
        err = error_set(BG_EIO, "cannot create the cell's scratch directory: %s", strerror(errno));
        free(scratch);
        scratch = NULL;
        goto done;
    }
    if (pipe2(rep, O_CLOEXEC) < 0 || pipe2(logp, O_CLOEXEC) < 0) {
        err = error_set(BG_EIO, "pipe: %s", strerror(errno));
        goto done;
    }
    if (mode != CHAN_FD) {
        /* Offered beside fd 3, a socket that cannot be made (a TMPDIR too
         * long for a socket address) is only not offered. */
        if ((err = channel_listen(&lis, scratch)) < 0 && mode == CHAN_SOCKET)
            goto done;
        if (err < 0)
            mode = CHAN_FD;
        else
            w.lis = &lis;
    }
    if ((err = logcap_open(&w.log, job->log_path, c->log_limit)) < 0 ||
        (err = contain_open(&ct, c->key, c->memory_limit)) < 0)
        goto done;
    contain_scratch(ct, scratch);
    /* the kept cache: cold when nothing in it yet (made here when missing) */
    bool warm = false;
    if (job->compile_cache) {
        if ((err = util_mkdir_p(job->compile_cache, 0700)) < 0)
            goto done;
        warm = holds_files(job->compile_cache, 0);
    }
    fflush(NULL); /* or the child inherits and re-prints our buffered output */
    out->started = time(NULL);
    int64_t t0 = util_now_ns();
    out->t0_ns = t0; /* the markers' origin, for the telemetry (machine/telemetry.c) */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        err = error_set(BG_EIO, "fork: %s", strerror(errno));
        goto done;
    }
    if (pid == 0)
        child(job, ct, rep[1], logp[1], t0, scratch, parent, mode, w.lis, warm);
    setpgid(pid, pid); /* also done by the child: whichever runs first wins the race */
    contain_started(ct, pid);
    util_pipe_keep_read(rep, &w.report_fd);
    util_pipe_keep_read(logp, &w.log_fd);

    watch_cell(&w, pid, ct, job, out, stop, tick, tick_arg, t0);
    contain_kill(ct);
    if (!w.reaped && waitpid(pid, &w.wstatus, WNOHANG) == pid)
        w.reaped = 1;
    out->finished = time(NULL);
    out->wall_s = (double)(util_now_ns() - t0) / 1e9;
    int64_t peak = 0;
    contain_memory(ct, &peak);
    if (peak > out->peak_rss)
        out->peak_rss = peak;
    judge(out, c, &w, contain_oom(ct));
    if (w.lis && !w.sock_used && !w.pipe_spoke && out->status != STATUS_OK)
        set_detail(out, util_printf("no report arrived: fd 3 did not reach the worker and it never connected to "
                                    "the report socket in the cell's directory (bind-mount {cell}; see the cell log)"));
    if (w.sock_used)
        kvlist_addf(&out->env, "worker.channel", "unix socket (%s)", w.peer);
    uint64_t dropped = logcap_close(&w.log);
    if (dropped)
        kvlist_addf(&out->facts, "log.dropped_bytes", "%llu", (unsigned long long)dropped);
    kvlist_add(&out->env, "worker.containment", contain_describe(ct));
    /* set last, so a fact of the same name the worker sent cannot stand (store_record keeps the last) */
    kvlist_add(&out->facts, "compile.cache", warm ? "warm" : "cold");
    if (ablate) {
        char list[128];
        ablate_format(ablate, list, sizeof(list));
        kvlist_add(&out->facts, "ablate", list);
    }
    err = 0;
done:
    util_close_fds(rep, 2);
    util_close_fds(logp, 2);
    util_close_fds(&w.report_fd, 1);
    util_close_fds(&w.log_fd, 1);
    util_close_fds(&w.sock_fd, 1);
    channel_listener_close(&lis);
    if (w.log.fd >= 0)
        logcap_close(&w.log);
    channel_reader_free(&w.cr);
    contain_close(ct);
    if (scratch)
        util_rm_rf(scratch);
    free(scratch);
    return err;
}
