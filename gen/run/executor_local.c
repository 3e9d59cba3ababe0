/*
 * executor_local.c - the local executor (see executor.h).
 *
 * Without --devices or --cpus-per-cell: one cell at a time, each in a fresh
 * worker forked by this process, with progress ticks; today's behaviour.
 *
 * With them: slots. --devices gives one slot per device (never two cells on
 * one device: a slot runs one cell at a time); --cpus-per-cell N alone gives
 * one slot per N cores this process may run on. Each slot runs its cell as a
 * `benchgen cell RUN_DIR ID` process with CUDA_VISIBLE_DEVICES set to its
 * device (CUDA_DEVICE_ORDER=PCI_BUS_ID, so the index means what NVML says)
 * and, with --cpus-per-cell, its own disjoint cores (sched_setaffinity) and
 * OMP_NUM_THREADS and kin = N. The cell writes its result as an attempt file
 * (run/cellfile.h), which comes back from next() for store_merge().
 */
#include "run/executor.h"
#include "run/cellfile.h"
#include "run/cellkey.h"
#include "run/collect.h"
#include "machine/gpu.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"
#include "store/store_record.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 50
#define STATE_EVERY_NS 1000000000LL

struct slot {
    char *device;     /* NULL: no device binding */
    cpu_set_t cpus;   /* valid when ncpus > 0 */
    int ncpus;
    char where[128];  /* "device 0, cores 2-3" */
    pid_t pid;        /* 0: free */
    const struct cell *cell;
    char tag[64];
    int64_t t0;
};

struct local {
    const struct matrix *todo;
    size_t next; /* index of the next cell to start */
    struct slot *slots;
    size_t nslots;
    char exe[PATH_MAX];
    char wait_idle[32]; /* --wait-idle for `benchgen cell`, "" for none */
    bool stopping;
    int64_t last_state;
};

/* ---- options -------------------------------------------------------------- */

/* An explicit device outside the inherited allocation is refused: on a node
 * without device cgroups it would land on another job's GPU. */
static int check_inherited(const struct gpu_facts *f, const char *inherited, const struct strlist *allowed,
                           const char *dev)
{
    int want = gpu_entry_index(f, dev);
    for (size_t i = 0; i < allowed->n; i++)
        if (strcmp(allowed->v[i], dev) == 0 || (want >= 0 && gpu_entry_index(f, allowed->v[i]) == want))
            return 0;
    return error_set(BG_EUSAGE, "--devices: device %s is not among the GPUs this process was given "
                                "(CUDA_VISIBLE_DEVICES=%s); use --devices auto, or unset CUDA_VISIBLE_DEVICES",
                     dev, inherited);
}

/* One slot per listed device; "auto": the GPUs this process may use (NVML's,
 * or those an inherited CUDA_VISIBLE_DEVICES names, machine/gpu.h). */
static int parse_devices(struct local *l, const char *list)
{
    struct strlist devs = {0}, allowed = {0};
    struct gpu_facts f;
    const char *inherited = getenv("CUDA_VISIBLE_DEVICES");
    int err = 0;
    if ((strcmp(list, "auto") == 0 || inherited) && (err = gpu_collect_nvml(&f)) < 0)
        return err;
    if (inherited && (err = gpu_allowed(&allowed, &f, inherited)) < 0)
        goto done;
    if (strcmp(list, "auto") == 0) {
        if (inherited) {
            if (allowed.n == 0)
                err = error_set(BG_EUSAGE, "--devices auto: the inherited CUDA_VISIBLE_DEVICES=%s allows no GPU",
                                inherited);
            for (size_t i = 0; !err && i < allowed.n; i++)
                strlist_add(&devs, allowed.v[i]);
        } else if (!f.nvml_ok || f.nvml_count == 0) {
            err = error_set(BG_EUSAGE, "--devices auto: NVML reports no GPU (%s); list them, e.g. --devices 0,1",
                            f.nvml_ok ? "0 devices" : f.nvml_error);
        } else {
            err = gpu_allowed(&devs, &f, NULL);
        }
    } else {
        const char *p = list;
        while (!err) {
            size_t n = strcspn(p, ",");
            char tok[96];
            if (n == 0 || n >= sizeof(tok)) {
                err = error_set(BG_EUSAGE, "--devices %s: expected auto or a comma-separated list of device ids", list);
                break;
            }
            memcpy(tok, p, n);
            tok[n] = '\0';
            for (char *q = tok; *q && !err; q++)
                if (!(*q >= '0' && *q <= '9') && !(*q >= 'a' && *q <= 'z') && !(*q >= 'A' && *q <= 'Z') &&
                    !strchr("-:/", *q))
                    err = error_set(BG_EUSAGE, "--devices %s: '%s' is not a device id", list, tok);
            if (!err && strlist_contains(&devs, tok))
                err = error_set(BG_EUSAGE, "--devices %s: device %s is listed twice (two cells must never share a device)",
                                list, tok);
            if (!err && inherited)
                err = check_inherited(&f, inherited, &allowed, tok);
            if (!err)
                err = strlist_add(&devs, tok);
            if (!p[n])
                break;
            p += n + 1;
        }
    }
    l->slots = err ? NULL : xcalloc(devs.n ? devs.n : 1, sizeof(*l->slots));
    for (size_t i = 0; !err && i < devs.n; i++) {
        l->slots[i].device = devs.v[i];
        devs.v[i] = NULL;
        l->nslots++;
    }
done:
    strlist_free(&devs);
    strlist_free(&allowed);
    return err;
}

/* Without --devices, one cell at a time still gets one GPU, the first this
 * process may use: JAX and TensorFlow would otherwise open every visible GPU
 * (and the cell's telemetry would sum them all). Nothing changes where NVML
 * sees no GPU. Without bind, only checks that it could. */
static int bind_one_gpu(bool bind)
{
    struct gpu_facts f;
    struct strlist allowed = {0};
    int err = gpu_collect_nvml(&f);
    if (err < 0 || !f.nvml_ok || f.nvml_count == 0)
        return err < 0 ? err : 0;
    const char *inherited = getenv("CUDA_VISIBLE_DEVICES");
    if ((err = gpu_allowed(&allowed, &f, inherited)) == 0 && allowed.n > 0 && bind) {
        setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
        setenv("CUDA_VISIBLE_DEVICES", allowed.v[0], 1);
    }
    strlist_free(&allowed);
    return err;
}

/* Gives each slot n cores of this process's affinity, disjoint; with no
 * device slots, makes as many slots as there are whole sets of n cores. */
static int assign_cpus(struct local *l, int n)
{
    cpu_set_t avail;
    if (sched_getaffinity(0, sizeof(avail), &avail) < 0)
        return error_set(BG_EIO, "sched_getaffinity: %s", strerror(errno));
    int ids[CPU_SETSIZE], navail = 0;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &avail))
            ids[navail++] = i;
    if (l->nslots == 0) {
        if (n > navail)
            return error_set(BG_EUSAGE, "--cpus-per-cell %d: this process may run on %d core(s) only", n, navail);
        l->nslots = (size_t)(navail / n);
        l->slots = xcalloc(l->nslots ? l->nslots : 1, sizeof(*l->slots));
    } else if ((size_t)n * l->nslots > (size_t)navail) {
        return error_set(BG_EUSAGE,
                         "--cpus-per-cell %d with %zu device(s) needs %zu cores; this process may run on %d only",
                         n, l->nslots, (size_t)n * l->nslots, navail);
    }
    for (size_t s = 0; s < l->nslots; s++) {
        CPU_ZERO(&l->slots[s].cpus);
        for (int k = 0; k < n; k++)
            CPU_SET(ids[s * (size_t)n + (size_t)k], &l->slots[s].cpus);
        l->slots[s].ncpus = n;
    }
    return 0;
}

static void describe_slot(struct slot *s)
{
    struct strbuf sb = {0};
    if (s->device)
        strbuf_printf(&sb, "device %s", s->device);
    if (s->ncpus) {
        strbuf_printf(&sb, "%scores ", sb.len ? ", " : "");
        for (int i = 0, first = 1; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &s->cpus)) {
                strbuf_printf(&sb, "%s%d", first ? "" : ",", i);
                first = 0;
            }
    }
    snprintf(s->where, sizeof(s->where), "%s", sb.len ? sb.buf : "");
    strbuf_free(&sb);
}

/* open(), and check() with bind false: nothing changed in this process. */
static int local_setup(struct executor *ex, bool bind)
{
    const struct exec_options *o = ex->opt;
    struct local *l = xcalloc(1, sizeof(*l));
    ex->priv = l;
    int err = 0;
    if (o->partition || o->gpus_per_cell || o->mem || o->time_limit || o->max_parallel || o->nsbatch_args ||
        o->no_wait || o->max_attempts)
        return error_set(BG_EUSAGE, "--partition, --gpus-per-cell, --mem, --time, --max-parallel, --sbatch-arg, "
                                    "--max-attempts and --no-wait are for --executor slurm");
    if (o->cpus_per_cell < 0)
        return error_set(BG_EUSAGE, "--cpus-per-cell %d: expected a positive number", o->cpus_per_cell);
    if (o->devices && (err = parse_devices(l, o->devices)) < 0)
        return err;
    if (!o->devices && (err = bind_one_gpu(bind)) < 0)
        return err;
    if (o->cpus_per_cell > 0 && (err = assign_cpus(l, o->cpus_per_cell)) < 0)
        return err;
    for (size_t i = 0; i < l->nslots; i++)
        describe_slot(&l->slots[i]);
    if (l->nslots) {
        ssize_t n = readlink("/proc/self/exe", l->exe, sizeof(l->exe) - 1);
        if (n <= 0)
            return error_set(BG_EIO, "cannot find the benchgen binary (/proc/self/exe): %s", strerror(errno));
        l->exe[n] = '\0';
    }
    if (o->wait_idle > 0)
        snprintf(l->wait_idle, sizeof(l->wait_idle), "%g", o->wait_idle);
    return 0;
}

static int local_open(struct executor *ex) { return local_setup(ex, true); }

static int local_start(struct executor *ex, const struct matrix *todo)
{
    struct local *l = ex->priv;
    l->todo = todo;
    l->next = 0;
    if (l->nslots == 0)
        return 0;
    /* The cell processes read the plan from the run directory. */
    return cellfile_ensure_plan(store_dir(ex->st), ex->st);
}

/* ---- one at a time, in this process ---------------------------------------- */

static int next_inline(struct executor *ex, struct local *l, struct exec_event *ev)
{
    if (!l->todo || l->next >= l->todo->ncells || (ex->stop && *ex->stop))
        return 0;
    const struct cell *c = &l->todo->cells[l->next++];
    if (ex->hooks.started)
        ex->hooks.started(ex->hooks.arg, c, NULL);
    ev->cell = c;
    ev->log_path = executor_log_path(store_dir(ex->st), c);
    int err = executor_run_cell(c, ev->log_path, NULL, ex->stop, &ex->hooks, ex->opt->wait_idle, &ev->result);
    if (err < 0) {
        exec_event_free(ev);
        return err;
    }
    return 1;
}

/* ---- slots: `benchgen cell` processes -------------------------------------- */

static _Noreturn void slot_child(const struct local *l, const struct slot *s, const char *run_dir, const char *key)
{
    /* The attempt's private key (cellkey.h): `benchgen cell` takes it out of
     * its environment before the workload starts. */
    setenv(CELLKEY_ENV, key, 1);
    /* A cell must not outlive a killed executor: it records `interrupted`. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (s->ncpus && sched_setaffinity(0, sizeof(s->cpus), &s->cpus) < 0) {
        /* voice-ok: a forked child's own stderr, before exec; no listener of the parent reaches it */
        fprintf(stderr, "benchgen: sched_setaffinity: %s\n", strerror(errno));
        _exit(127);
    }
    if (s->ncpus)
        executor_set_threads(s->ncpus, true);
    if (s->device) {
        setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
        setenv("CUDA_VISIBLE_DEVICES", s->device, 1);
    }
    char id[16];
    snprintf(id, sizeof(id), "%d", s->cell->id);
    if (l->wait_idle[0])
        execl(l->exe, "benchgen", "cell", run_dir, id, "--attempt", s->tag, "--wait-idle", l->wait_idle,
              (char *)NULL);
    else
        execl(l->exe, "benchgen", "cell", run_dir, id, "--attempt", s->tag, (char *)NULL);
    /* voice-ok: a forked child's own stderr, before exec; no listener of the parent reaches it */
    fprintf(stderr, "benchgen: exec %s: %s\n", l->exe, strerror(errno));
    _exit(127);
}

static int slot_start(struct executor *ex, struct local *l, struct slot *s, const struct cell *c)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    s->cell = c;
    snprintf(s->tag, sizeof(s->tag), "l%lld%09ld.%d", (long long)ts.tv_sec, ts.tv_nsec, (int)(s - l->slots));
    /* One key per attempt; run.db keeps the public half (store_issue). */
    char priv[CELLKEY_HEX], pub[CELLKEY_HEX];
    int err = cellkey_new(priv, pub);
    if (!err)
        err = store_issue(ex->st, c->id, s->tag, pub);
    if (err < 0)
        return err;
    if (ex->hooks.started)
        ex->hooks.started(ex->hooks.arg, c, s->where);
    fflush(NULL);
    s->t0 = util_now_ns();
    pid_t pid = fork();
    if (pid == 0)
        slot_child(l, s, store_dir(ex->st), priv);
    cellkey_wipe(priv, sizeof(priv));
    if (pid < 0)
        return error_set(BG_EIO, "fork: %s", strerror(errno));
    s->pid = pid;
    return 0;
}

/* The finished slot's result: its attempt file, or why there is none. */
static int slot_finish(struct executor *ex, struct slot *s, int wstatus, struct exec_event *ev)
{
    const char *dir = store_dir(ex->st);
    char *name = xprintf("%s.json", s->tag), tag[128];
    ev->cell = s->cell;
    ev->log_path = executor_log_path(dir, s->cell);
    int err = collect_read(ex->st, s->cell, true, &ev->result, tag, &ev->files, &ev->tags, &ev->statuses, NULL);
    if (!err && strcmp(tag, s->tag) != 0) {
        /* No result of this attempt that passes the checks: the cell process
         * itself failed (its message is on stderr), or its file was refused. */
        result_free(&ev->result);
        memset(&ev->result, 0, sizeof(ev->result));
        strlist_free(&ev->files);
        strlist_free(&ev->tags);
        strlist_free(&ev->statuses);
        bool sig = WIFSIGNALED(wstatus);
        ev->result.status = sig ? STATUS_CRASH : STATUS_ERROR;
        ev->result.detail = xprintf("`benchgen cell` %s %d without writing a result that passes the checks "
                                    "(see its messages and benchgen's warnings)",
                                    sig ? "died of signal" : "exited with status",
                                    sig ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus));
        ev->result.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
        ev->result.term_signal = sig ? WTERMSIG(wstatus) : 0;
        ev->result.started = ev->result.finished = time(NULL);
        ev->result.wall_s = (double)(util_now_ns() - s->t0) / 1e9;
        err = executor_note_place(&ev->result);
        if (!err && ((err = strlist_add(&ev->files, name)) < 0 || (err = strlist_add(&ev->tags, s->tag)) < 0 ||
                     (err = strlist_add(&ev->statuses, status_name(ev->result.status))) < 0))
            err = error_code();
    }
    free(name);
    s->pid = 0;
    s->cell = NULL;
    if (err < 0)
        exec_event_free(ev);
    return err;
}

static void report_state(struct executor *ex, struct local *l)
{
    int64_t now = util_now_ns();
    if (!ex->hooks.state || now - l->last_state < STATE_EVERY_NS)
        return;
    l->last_state = now;
    struct strbuf sb = {0};
    size_t running = 0;
    for (size_t i = 0; i < l->nslots; i++)
        running += l->slots[i].pid != 0;
    strbuf_printf(&sb, "%zu running, %zu waiting:", running, l->todo->ncells - l->next);
    for (size_t i = 0; i < l->nslots; i++)
        if (l->slots[i].pid)
            strbuf_printf(&sb, " %s (%s, %.0f s)", l->slots[i].cell->key, l->slots[i].where,
                          (double)(now - l->slots[i].t0) / 1e9);
    if (sb.len)
        ex->hooks.state(ex->hooks.arg, sb.buf);
    strbuf_free(&sb);
}

static int next_slots(struct executor *ex, struct local *l, struct exec_event *ev)
{
    for (;;) {
        if (ex->stop && *ex->stop && !l->stopping) {
            l->stopping = true;
            for (size_t i = 0; i < l->nslots; i++)
                if (l->slots[i].pid)
                    kill(l->slots[i].pid, SIGTERM);
        }
        size_t running = 0;
        for (size_t i = 0; i < l->nslots; i++) {
            struct slot *s = &l->slots[i];
            if (!s->pid && !l->stopping && l->todo && l->next < l->todo->ncells) {
                int err = slot_start(ex, l, s, &l->todo->cells[l->next++]);
                if (err < 0)
                    return err;
            }
            if (!s->pid)
                continue;
            int wstatus = 0;
            pid_t r = waitpid(s->pid, &wstatus, WNOHANG);
            if (r == s->pid || (r < 0 && errno == ECHILD)) {
                int err = slot_finish(ex, s, wstatus, ev);
                return err < 0 ? err : 1;
            }
            running++;
        }
        if (running == 0)
            return 0;
        report_state(ex, l);
        struct timespec nap = {0, POLL_MS * 1000000L};
        nanosleep(&nap, NULL);
    }
}

static int local_next(struct executor *ex, struct exec_event *ev)
{
    struct local *l = ex->priv;
    memset(ev, 0, sizeof(*ev));
    return l->nslots ? next_slots(ex, l, ev) : next_inline(ex, l, ev);
}

static void local_close(struct executor *ex)
{
    struct local *l = ex->priv;
    if (!l)
        return;
    /* Nothing is left running: an error ends the run, not the cells' care. */
    for (size_t i = 0; i < l->nslots; i++)
        if (l->slots[i].pid) {
            kill(l->slots[i].pid, SIGTERM);
            waitpid(l->slots[i].pid, NULL, 0);
        }
    for (size_t i = 0; i < l->nslots; i++)
        free(l->slots[i].device);
    free(l->slots);
    free(l);
    ex->priv = NULL;
}

static int local_check(const struct exec_options *opt)
{
    struct executor ex = {.opt = opt};
    int err = local_setup(&ex, false);
    local_close(&ex);
    return err;
}

const struct executor_ops executor_local_ops = {
    .name = "local",
    .open = local_open,
    .check = local_check,
    .start = local_start,
    .next = local_next,
    .close = local_close,
};
