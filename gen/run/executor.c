/*
 * executor.c - picking an executor and what every executor does to start one
 * cell where it runs (see executor.h).
 */
#include "run/executor.h"
#include "machine/canary.h"
#include "envs/envs.h"
#include "machine/gpu.h"
#include "plan/device.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"
#include "runners/ablate.h"
#include "runners/worker.h"
#include "machine/telemetry.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct exec_options defaults = {0};

/* The table for opt->kind, or NULL with the error set. */
static const struct executor_ops *find_ops(const struct exec_options *opt)
{
    static const struct executor_ops *const tables[] = {&executor_local_ops, &executor_slurm_ops};
    const char *kind = opt->kind ? opt->kind : "local";
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        if (strcmp(tables[i]->name, kind) == 0)
            return tables[i];
    error_set(BG_EUSAGE, "unknown executor '%s' (known: local, slurm)", kind);
    return NULL;
}

int executor_check(const struct exec_options *opt)
{
    unsigned ablate;
    if (ablate_from_env(&ablate) < 0) /* a misspelt test-only knob creates no run directory */
        return error_code();
    const struct executor_ops *ops = find_ops(opt ? opt : &defaults);
    return ops ? ops->check(opt ? opt : &defaults) : BG_EUSAGE;
}

int executor_open(struct executor *ex, const struct exec_options *opt, struct store *st,
                  volatile sig_atomic_t *stop, const struct exec_hooks *hooks)
{
    memset(ex, 0, sizeof(*ex));
    ex->opt = opt ? opt : &defaults;
    ex->st = st;
    ex->stop = stop;
    if (hooks)
        ex->hooks = *hooks;
    unsigned ablate;
    if (ablate_from_env(&ablate) < 0) /* a misspelt test-only knob (runners/ablate.h) */
        return error_code();
    if (!(ex->ops = find_ops(ex->opt)))
        return BG_EUSAGE;
    int err = ex->ops->open(ex);
    if (err < 0)
        ex->ops->close(ex);
    return err;
}

/* Tick adapter: the worker's hook knows no cell. */
struct tick_ctx {
    const struct cell *cell;
    const struct exec_hooks *hooks;
};

static void on_tick(void *arg, const struct result *partial, int64_t elapsed_ns)
{
    struct tick_ctx *t = arg;
    t->hooks->tick(t->hooks->arg, t->cell, partial, elapsed_ns);
}

int executor_run_cell(const struct cell *c, const char *log_path, const char *compile_cache,
                      volatile sig_atomic_t *stop, const struct exec_hooks *hooks, double wait_idle,
                      struct result *r)
{
    struct env_info env = {0};
    int err = 0;
    /* the variant for this machine and backend (envs/envs_variant.h) */
    if (envs_resolve_for(c->env, c->backend, &env) < 0 ||
        (strcmp(env.state, "ready") && strcmp(env.state, "external"))) {
        r->status = STATUS_SKIPPED;
        r->detail = env.state ? xprintf("environment %s is %s: run `benchgen env sync %s`", c->env, env.state, c->env)
                              : xstrdup(error_last());
        r->started = r->finished = time(NULL);
    } else {
        struct worker_job job = {.cell = c,
                                 .python = env.python,
                                 .prefix = (const char *const *)env.prefix,
                                 .log_path = log_path,
                                 .compile_cache = compile_cache,
                                 .home = util_home_dir(),
                                 .device = device_resolve(c->device, c->backend, gpu_nvml_count())};
        struct tick_ctx t = {.cell = c, .hooks = hooks};
        bool ticks = hooks && hooks->tick;
        /* The drift canary, right before the cell, with the affinity and
         * thread count its worker inherits (machine/canary.h). */
        struct canary cn;
        int cerr = canary_measure(&cn);
        /* The machine is measured around the worker (contention, GPU
         * telemetry); not under the test-only BENCHGEN_ABLATE=sampling
         * (runners/ablate.h), which measures what measuring costs. */
        struct telemetry *tm = NULL;
        bool sample = !(ablate_active() & ABLATE_SAMPLING);
        if (sample && (err = telemetry_begin(&tm, stop, wait_idle)) < 0)
            goto done;
        if ((err = worker_run(&job, r, stop, ticks ? on_tick : NULL, ticks ? &t : NULL)) < 0) {
            if (tm)
                telemetry_cancel(tm);
            goto done;
        }
        if (tm && (err = telemetry_end(tm, r)) < 0)
            goto done;
        if ((err = kvlist_add(&r->env, "environment.variant", env.variant)) < 0)
            goto done;
        if (cerr == 0 && (err = canary_facts(&cn, &r->facts)) < 0)
            goto done;
    }
    err = executor_note_place(r);
done:
    env_info_free(&env);
    return err;
}

/* "0-3,8,10-11" for a CPU set. */
static void format_cpus(const cpu_set_t *set, struct strbuf *sb)
{
    for (int i = 0; i < CPU_SETSIZE; i++) {
        if (!CPU_ISSET(i, set))
            continue;
        int j = i;
        while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set))
            j++;
        if (j > i)
            strbuf_printf(sb, "%s%d-%d", sb->len ? "," : "", i, j);
        else
            strbuf_printf(sb, "%s%d", sb->len ? "," : "", i);
        i = j;
    }
}

void executor_set_threads(int n, bool overwrite)
{
    static const char *const vars[] = {"OMP_NUM_THREADS",      "MKL_NUM_THREADS",        "OPENBLAS_NUM_THREADS",
                                       "BLIS_NUM_THREADS",     "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
                                       "NUMEXPR_MAX_THREADS",  "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"};
    char v[16];
    snprintf(v, sizeof(v), "%d", n);
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        setenv(vars[i], v, overwrite);
}

/* Inside a Slurm job: the job, array, node and GPUs, as slurm.* keys. */
static void note_slurm(struct kvlist *env)
{
    static const char *const vars[][2] = {
        {"SLURM_JOB_ID", "slurm.job_id"},         {"SLURM_ARRAY_JOB_ID", "slurm.array_job_id"},
        {"SLURM_ARRAY_TASK_ID", "slurm.array_task_id"}, {"SLURMD_NODENAME", "slurm.node"},
        {"SLURM_JOB_PARTITION", "slurm.partition"}, {"SLURM_JOB_GPUS", "slurm.job_gpus"},
        {"SLURM_RESTART_COUNT", "slurm.restart_count"}, {"SLURM_CPUS_PER_TASK", "slurm.cpus_per_task"}};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i][0]);
        if (v)
            kvlist_add(env, vars[i][1], v);
    }
}

/* The kind of CPU: /proc/cpuinfo's first "model name". */
static void cpu_model(char *buf, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, n, "?");
    while (f && fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += strspn(colon + 1, " \t") + 1;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, n, "%s", colon);
            break;
        }
    }
    if (f)
        fclose(f);
}

/* The kind of each visible GPU, by NVML name, for numeric
 * CUDA_VISIBLE_DEVICES entries (with CUDA_DEVICE_ORDER=PCI_BUS_ID, as the
 * local executor sets it, or under Slurm's device cgroup, NVML's own
 * numbering); "" when NVML sees none. */
static void gpu_kinds(const char *visible, struct strbuf *sb)
{
    struct gpu_facts f;
    if (!visible || !*visible || gpu_collect(&f) < 0 || !f.nvml_ok || f.nvml_count == 0)
        return;
    for (const char *p = visible; *p;) {
        char *end;
        long i = strtol(p, &end, 10);
        const char *name = end != p && i >= 0 && i < f.nvml_count ? f.nvml_name[i] : "?";
        strbuf_printf(sb, "%s%s", sb->len ? "," : "", name);
        p += strcspn(p, ",");
        if (*p)
            p++;
    }
}

int executor_note_place(struct result *r)
{
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1) < 0)
        snprintf(host, sizeof(host), "?");
    struct strbuf cores = {0};
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        format_cpus(&set, &cores);
    const char *dev = getenv("CUDA_VISIBLE_DEVICES");
    kvlist_add(&r->env, "where.host", host);
    kvlist_add(&r->env, "where.cores", cores.len ? cores.buf : "");
    kvlist_add(&r->env, "where.devices", dev ? dev : "");
    char cpu[256];
    cpu_model(cpu, sizeof(cpu));
    struct strbuf gpus = {0};
    gpu_kinds(dev, &gpus);
    kvlist_add(&r->env, "where.cpu", cpu);
    kvlist_add(&r->env, "where.gpu", gpus.len ? gpus.buf : "");
    strbuf_free(&gpus);
    if (getenv("SLURM_JOB_ID"))
        note_slurm(&r->env);
    strbuf_free(&cores);
    return 0;
}

char *executor_log_path(const char *run_dir, const struct cell *c)
{
    char *file = matrix_key_filename(c->key);
    char *log = xprintf("%s/logs/%s.log", run_dir, file);
    free(file);
    return log;
}

void exec_event_free(struct exec_event *ev)
{
    result_free(&ev->result);
    free(ev->log_path);
    strlist_free(&ev->files);
    strlist_free(&ev->tags);
    strlist_free(&ev->statuses);
    memset(ev, 0, sizeof(*ev));
}
