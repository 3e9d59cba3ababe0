/*
 * telemetry.c - the sampler thread and the per-cell summary (see telemetry.h).
 */
#include "machine/telemetry.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "machine/hostload.h"
#include "machine/nvml.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define BEFORE_WINDOW_MS 250
#define IDLE_WINDOW_MS 500
#define PID_CACHE 128
#define FOREIGN_LIST 4
/* A cell is flagged throttled when a slowdown reason held for more than
 * this share of its GPU samples (brief power-cap blips are normal under load). */
#define THROTTLED_SHARE 0.05

/* Whose a process NVML lists is: benchgen's tree, another process, or
 * unknown - a pid /proc does not show. Older drivers give host pids inside
 * a PID namespace (a container), where the cell's own worker has another
 * number: such a pid is neither counted as the cell's nor as a foreign
 * process on its GPU. */
enum owner { OWNER_OURS, OWNER_FOREIGN, OWNER_UNKNOWN };

struct gsamp {
    int64_t t;
    unsigned have, sm, mem, power_mw, temp, util, mutil;
    unsigned long long energy_mj, throttle, mem_used, mem_ours;
    bool ours;                        /* a process of benchgen's tree was on the device */
    pid_t foreign;                    /* first process that is not; 0 when none */
    unsigned long long foreign_mem;
    pid_t unknown;                    /* first pid /proc does not show (another PID namespace) */
    unsigned long long unknown_mem;
};

struct hsamp {
    int64_t t;
    double busy_s, ours_s, load1;
};

struct telemetry {
    pthread_t th;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    int64_t t0;
    struct nvml *nvml; /* borrowed: opened once per process */
    int ndev;
    struct gsamp *g[NVML_MAX_DEVICES];
    size_t ng[NVML_MAX_DEVICES], capg[NVML_MAX_DEVICES];
    struct hsamp *h;
    size_t nh, caph;
    bool oom; /* the thread could not grow an array: the summary says so */
    struct hostload_snap first;
    double before_other, load_before, waited_s, wait_other;
    double wait_idle; /* telemetry_begin()'s wait_idle: seconds it might wait */
    bool wait_gave_up;
    char before_top[256];
    struct {
        pid_t pid;
        enum owner owner;
    } pids[PID_CACHE];
    size_t npids;
};

static struct nvml *shared_nvml;
static bool nvml_tried;

/* ---- the thread ------------------------------------------------------------ */

/* Whose pid is: walks its parent chain in /proc up to benchgen. A pid /proc
 * does not show at all is unknown (see enum owner); one that shows and does
 * not lead to benchgen is foreign. */
static enum owner pid_owner(struct telemetry *t, pid_t pid)
{
    for (size_t i = 0; i < t->npids; i++)
        if (t->pids[i].pid == pid)
            return t->pids[i].owner;
    pid_t self = getpid(), p = pid;
    enum owner owner = OWNER_FOREIGN;
    for (int depth = 0; depth < 64 && p > 1; depth++) {
        if (p == self) {
            owner = OWNER_OURS;
            break;
        }
        char path[48], buf[512];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
        FILE *f = fopen(path, "re");
        if (!f) {
            if (depth == 0)
                owner = OWNER_UNKNOWN;
            break;
        }
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *rp = strrchr(buf, ')');
        long ppid = 0;
        if (!rp || sscanf(rp + 2, "%*c %ld", &ppid) != 1)
            break;
        p = (pid_t)ppid;
    }
    if (t->npids < PID_CACHE) {
        t->pids[t->npids].pid = pid;
        t->pids[t->npids++].owner = owner;
    }
    return owner;
}

static bool grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 256;
    void *p = realloc(*arr, c * size);
    if (!p)
        return false;
    *arr = p;
    *cap = c;
    return true;
}

static void sample_gpus(struct telemetry *t, int64_t now)
{
    for (int d = 0; d < t->ndev; d++) {
        struct nvml_sample s;
        if (nvml_sample(t->nvml, d, &s) < 0)
            continue;
        if (!grow((void **)&t->g[d], &t->capg[d], t->ng[d], sizeof(struct gsamp))) {
            t->oom = true;
            return;
        }
        struct gsamp *g = &t->g[d][t->ng[d]++];
        memset(g, 0, sizeof(*g));
        g->t = now - t->t0;
        g->have = s.have;
        g->sm = s.sm_mhz;
        g->mem = s.mem_mhz;
        g->power_mw = s.power_mw;
        g->temp = s.temp_c;
        g->util = s.util_gpu;
        g->mutil = s.util_mem;
        g->energy_mj = s.energy_mj;
        g->throttle = s.throttle;
        g->mem_used = s.mem_used;
        for (unsigned i = 0; i < s.nprocs; i++) {
            enum owner o = pid_owner(t, s.pids[i]);
            if (o == OWNER_OURS) {
                g->ours = true;
                g->mem_ours += s.proc_mem[i];
            } else if (o == OWNER_FOREIGN && !g->foreign) {
                g->foreign = s.pids[i];
                g->foreign_mem = s.proc_mem[i];
            } else if (o == OWNER_UNKNOWN && !g->unknown) {
                g->unknown = s.pids[i];
                g->unknown_mem = s.proc_mem[i];
            }
        }
    }
}

static void sample_host(struct telemetry *t, int64_t now)
{
    struct hostload_snap s;
    if (hostload_snap(&s, 0) < 0)
        return;
    if (!grow((void **)&t->h, &t->caph, t->nh, sizeof(struct hsamp))) {
        t->oom = true;
        return;
    }
    t->h[t->nh++] = (struct hsamp){now - t->t0, s.busy_s, s.ours_s, hostload_load1()};
}

static void *sampler(void *arg)
{
    struct telemetry *t = arg;
    const int64_t gpu_period = 1000000000LL / TELEMETRY_GPU_HZ, host_period = 1000000000LL / TELEMETRY_HOST_HZ;
    int64_t next_g = t->t0, next_h = t->t0 + host_period;
    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        pthread_mutex_unlock(&t->mu);
        int64_t now = util_now_ns();
        if (t->ndev && now >= next_g) {
            sample_gpus(t, now);
            next_g += gpu_period;
            if (next_g <= now) /* fell behind: no burst to catch up */
                next_g = now + gpu_period;
        }
        if (now >= next_h) {
            sample_host(t, now);
            next_h += host_period;
            if (next_h <= now)
                next_h = now + host_period;
        }
        int64_t wake = t->ndev && next_g < next_h ? next_g : next_h;
        struct timespec ts = {(time_t)(wake / 1000000000LL), (long)(wake % 1000000000LL)};
        pthread_mutex_lock(&t->mu);
        while (!t->stop && pthread_cond_timedwait(&t->cv, &t->mu, &ts) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* ---- begin ------------------------------------------------------------------ */

/* Other processes' cores over a window of ms milliseconds; top list optional. */
static double measure_window(int ms, char *top, size_t len)
{
    struct hostload_snap a, b;
    double other = 0;
    if (top)
        top[0] = '\0';
    if (hostload_snap(&a, top != NULL) < 0)
        return 0;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    if (hostload_snap(&b, top != NULL) == 0) {
        other = hostload_other_cores(&a, &b);
        if (top)
            hostload_top(&a, &b, 3, top, len);
    }
    hostload_snap_free(&a);
    hostload_snap_free(&b);
    return other;
}

int telemetry_begin(struct telemetry **out, volatile sig_atomic_t *stop, double wait_idle)
{
    *out = NULL;
    struct telemetry *t = xcalloc(1, sizeof(*t));
    double wait_idle_s = wait_idle > 0 ? wait_idle : 0;
    t->wait_idle = wait_idle_s;
    if (wait_idle_s > 0) {
        int64_t start = util_now_ns(), limit = start + (int64_t)(wait_idle_s * 1e9);
        double other;
        while ((other = measure_window(IDLE_WINDOW_MS, NULL, 0)) > HOSTLOAD_CONTENDED_CORES &&
               util_now_ns() < limit && !(stop && *stop))
            ;
        t->waited_s = (double)(util_now_ns() - start) / 1e9;
        t->wait_other = other;
        t->wait_gave_up = other > HOSTLOAD_CONTENDED_CORES;
    }
    t->before_other = measure_window(BEFORE_WINDOW_MS, t->before_top, sizeof(t->before_top));
    t->load_before = hostload_load1();
    if (!nvml_tried) {
        nvml_tried = true;
        if (nvml_open(&shared_nvml) < 0)
            shared_nvml = NULL; /* no GPU telemetry: not an error */
    }
    t->nvml = shared_nvml;
    t->ndev = nvml_count(t->nvml);
    pthread_mutex_init(&t->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cv, &ca);
    pthread_condattr_destroy(&ca);
    t->t0 = util_now_ns();
    if (hostload_snap(&t->first, 1) < 0)
        memset(&t->first, 0, sizeof(t->first));
    int rc = pthread_create(&t->th, NULL, sampler, t);
    if (rc != 0) {
        telemetry_cancel(t);
        return error_set(BG_EIO, "cannot start the telemetry thread: %s", strerror(rc));
    }
    t->started = true;
    *out = t;
    return 0;
}

static void stop_thread(struct telemetry *t)
{
    if (!t->started)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = true;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->th, NULL);
    t->started = false;
}

void telemetry_cancel(struct telemetry *t)
{
    if (!t)
        return;
    stop_thread(t);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    for (int d = 0; d < NVML_MAX_DEVICES; d++)
        free(t->g[d]);
    free(t->h);
    hostload_snap_free(&t->first);
    free(t);
}

/* ---- summary ---------------------------------------------------------------- */

static int64_t marker_ns(const struct kvlist *phases, const char *name)
{
    const char *v = kvlist_get(phases, name);
    return v ? strtoll(v, NULL, 10) : -1;
}

#define FACT(name, ...)                                                                                      \
    do {                                                                                                     \
        if ((err = kvlist_addf(&r->facts, name, __VA_ARGS__)) < 0)                                           \
            goto done;                                                                                       \
    } while (0)

/* Host part: other processes over the cell and over its timed steps. */
static int summarise_host(struct telemetry *t, const struct hostload_snap *last, int64_t tw0, int64_t tw1,
                          struct result *r, struct strbuf *reason)
{
    int err = 0;
    double cell = hostload_other_cores(&t->first, last), timed = -1, peak = 0;
    /* The timed window, widened to the nearest samples around it (the
     * first and last snapshots bound every window). */
    if (tw0 >= 0 && tw1 > tw0) {
        struct hsamp a = {0, t->first.busy_s, t->first.ours_s, 0};
        struct hsamp b = {last->t_ns - t->t0, last->busy_s, last->ours_s, 0};
        for (size_t i = 0; i < t->nh; i++) {
            if (t->h[i].t <= tw0)
                a = t->h[i];
            if (t->h[i].t >= tw1 && t->h[i].t < b.t)
                b = t->h[i];
        }
        double dt = (double)(b.t - a.t) / 1e9, o = (b.busy_s - a.busy_s) - (b.ours_s - a.ours_s);
        timed = dt > 0 && o > 0 ? o / dt : 0;
    }
    double prev_busy = t->first.busy_s, prev_ours = t->first.ours_s;
    int64_t prev_t = 0;
    for (size_t i = 0; i < t->nh; i++) {
        double dt = (double)(t->h[i].t - prev_t) / 1e9;
        double o = (t->h[i].busy_s - prev_busy) - (t->h[i].ours_s - prev_ours);
        if (dt > 0 && o / dt > peak)
            peak = o / dt;
        prev_busy = t->h[i].busy_s;
        prev_ours = t->h[i].ours_s;
        prev_t = t->h[i].t;
    }
    char top[256], gov[160];
    hostload_top(&t->first, last, 3, top, sizeof(top));
    hostload_governor(gov, sizeof(gov));
    int turbo = hostload_turbo();
    FACT("host.accounting", "%s", "all CPU time in /proc/stat minus benchgen's process tree");
    FACT("host.other_cpu.before", "%.3f", t->before_other);
    if (t->before_top[0])
        FACT("host.other_top.before", "%s", t->before_top);
    FACT("host.other_cpu.cell", "%.3f", cell);
    if (timed >= 0)
        FACT("host.other_cpu.timed", "%.3f", timed);
    FACT("host.other_cpu.peak", "%.3f", peak > cell ? peak : cell);
    FACT("host.other_top", "%s", top[0] ? top : "none over 0.01 cores");
    if (t->load_before >= 0)
        FACT("host.load1.before", "%.2f", t->load_before);
    double l1 = hostload_load1();
    if (l1 >= 0)
        FACT("host.load1.after", "%.2f", l1);
    FACT("host.governor", "%s", gov[0] ? gov : "unknown (no cpufreq)");
    FACT("host.turbo", "%s", turbo < 0 ? "unknown" : turbo ? "on" : "off");
    if (t->wait_idle > 0)
        FACT("host.wait_idle_s", "%.1f", t->waited_s);
    double worst = timed > cell ? timed : cell;
    if (worst > HOSTLOAD_CONTENDED_CORES)
        err = strbuf_printf(reason, "other processes used %.2f cores %s (%s)", worst,
                            timed > cell ? "during the timed steps" : "while the cell ran",
                            top[0] ? top : "short-lived processes or the kernel");
    if (!err && t->wait_gave_up)
        err = strbuf_printf(reason, "%s--wait-idle gave up after %.0f s (other processes at %.2f cores)",
                            reason->len ? "; " : "", t->waited_s, t->wait_other);
done:
    return err;
}

static bool in_window(int64_t t, int64_t tw0, int64_t tw1) { return tw0 < 0 || tw1 <= tw0 || (t >= tw0 && t <= tw1); }

/* The energy counter at time at (J), interpolated between the samples
 * around it, so the window is exactly the timed steps. */
static double energy_at(const struct gsamp *g, size_t n, int64_t at)
{
    const struct gsamp *a = NULL, *b = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(g[i].have & NVML_HAVE_ENERGY))
            continue;
        if (g[i].t <= at)
            a = &g[i];
        if (g[i].t >= at && !b)
            b = &g[i];
    }
    if (!a)
        a = b;
    if (!b)
        b = a;
    if (!a)
        return 0;
    if (b->t == a->t)
        return (double)a->energy_mj / 1000.0;
    double f = (double)(at - a->t) / (double)(b->t - a->t);
    return ((double)a->energy_mj + f * ((double)b->energy_mj - (double)a->energy_mj)) / 1000.0;
}

/* Whether a workload's device fact names a GPU: torch's "cuda", "cuda:0";
 * JAX's and TensorFlow's "gpu" (Keras cells). */
static bool device_is_gpu(const char *dev)
{
    return dev && (strncasecmp(dev, "cuda", 4) == 0 || strcasecmp(dev, "gpu") == 0 || strncasecmp(dev, "gpu:", 4) == 0);
}

/* Adds "pid N on GPU d (M MiB)" to list once per pid (at most FOREIGN_LIST). */
static int note_pid(struct strbuf *list, pid_t *seen, size_t *nseen, pid_t pid, int d, unsigned long long mem)
{
    for (size_t k = 0; k < *nseen; k++)
        if (seen[k] == pid)
            return 0;
    if (*nseen >= FOREIGN_LIST)
        return 0;
    seen[(*nseen)++] = pid;
    return strbuf_printf(list, "%spid %d on GPU %d (%.0f MiB)", list->len ? ", " : "", (int)pid, d,
                         (double)mem / 1048576.0);
}

/* GPU part: the devices the cell used (its processes seen there). */
static int summarise_gpu(struct telemetry *t, int64_t tw0, int64_t tw1, struct result *r, struct strbuf *reason)
{
    int err = 0;
    bool use[NVML_MAX_DEVICES] = {false}, hidden = false;
    int nuse = 0;
    const char *match = "pid";
    for (int d = 0; d < t->ndev; d++) {
        for (size_t i = 0; i < t->ng[d]; i++) {
            use[d] |= t->g[d][i].ours;
            hidden |= t->g[d][i].unknown != 0;
        }
        nuse += use[d];
    }
    if (!nuse && device_is_gpu(kvlist_get(&r->facts, "device"))) {
        /* The workload says it ran on a GPU but NVML never showed one of
         * our pids (a PID namespace hides them): every device counts. */
        for (int d = 0; d < t->ndev; d++)
            use[d] = true;
        nuse = t->ndev;
        match = hidden ? "all devices (NVML gave pids this PID namespace does not show: "
                         "the cell's processes could not be told apart)"
                       : "all devices (the cell's processes were not visible to NVML)";
    }
    if (!nuse)
        return 0;

    struct strbuf devs = {0}, foreign = {0}, unknown = {0};
    double energy_j = 0, power_sum = 0, sm_sum = 0, mem_sum = 0, util_sum = 0;
    size_t nsm = 0, npow = 0, nutil = 0, nthr = 0, nthr_samples = 0, reason_n[5] = {0};
    unsigned sm_min = 0, temp_max = 0;
    unsigned long long peak_used = 0, peak_ours = 0;
    bool have_energy = true;
    pid_t seen[FOREIGN_LIST] = {0}, seen_unknown[FOREIGN_LIST] = {0};
    size_t nseen = 0, nseen_unknown = 0;
    static const unsigned long long reason_bits[5] = {NVML_THR_SW_POWER_CAP, NVML_THR_HW_SLOWDOWN,
                                                      NVML_THR_SW_THERMAL, NVML_THR_HW_THERMAL,
                                                      NVML_THR_HW_POWER_BRAKE};
    static const char *const reason_text[5] = {"sw power cap", "hw slowdown", "sw thermal", "hw thermal",
                                               "hw power brake"};
    struct nvml_settings set0 = {0};
    bool have_set0 = false;
    for (int d = 0; d < t->ndev; d++) {
        if (!use[d])
            continue;
        if ((err = strbuf_printf(&devs, "%s%d", devs.len ? "," : "", d)) < 0)
            goto done;
        if (!have_set0) {
            nvml_settings(t->nvml, d, &set0);
            have_set0 = true;
        }
        const struct gsamp *first = NULL, *lastw = NULL;
        double pj = 0; /* power integrated, for a device without an energy counter */
        const struct gsamp *prevw = NULL;
        for (size_t i = 0; i < t->ng[d]; i++) {
            const struct gsamp *g = &t->g[d][i];
            if (g->mem_used > peak_used)
                peak_used = g->mem_used;
            if (g->mem_ours > peak_ours)
                peak_ours = g->mem_ours;
            if ((g->foreign && (err = note_pid(&foreign, seen, &nseen, g->foreign, d, g->foreign_mem)) < 0) ||
                (g->unknown &&
                 (err = note_pid(&unknown, seen_unknown, &nseen_unknown, g->unknown, d, g->unknown_mem)) < 0))
                goto done;
            if (!in_window(g->t, tw0, tw1))
                continue;
            if (!first)
                first = g;
            lastw = g;
            if (g->have & NVML_HAVE_CLOCKS) {
                sm_sum += g->sm;
                mem_sum += g->mem;
                sm_min = nsm == 0 || g->sm < sm_min ? g->sm : sm_min;
                nsm++;
            }
            if (g->have & NVML_HAVE_POWER) {
                power_sum += g->power_mw / 1000.0;
                npow++;
                if (prevw && (prevw->have & NVML_HAVE_POWER))
                    pj += (prevw->power_mw + g->power_mw) / 2000.0 * (double)(g->t - prevw->t) / 1e9;
            }
            if ((g->have & NVML_HAVE_TEMP) && g->temp > temp_max)
                temp_max = g->temp;
            if (g->have & NVML_HAVE_UTIL) {
                util_sum += g->util;
                nutil++;
            }
            if (g->have & NVML_HAVE_THROTTLE) {
                nthr_samples++;
                if (g->throttle & NVML_THR_SLOWDOWN)
                    nthr++;
                for (int k = 0; k < 5; k++)
                    reason_n[k] += (g->throttle & reason_bits[k]) != 0;
            }
            prevw = g;
        }
        if (first && lastw && (first->have & lastw->have & NVML_HAVE_ENERGY))
            energy_j += energy_at(t->g[d], t->ng[d], tw1 > tw0 ? tw1 : lastw->t) -
                        energy_at(t->g[d], t->ng[d], tw1 > tw0 ? tw0 : first->t);
        else if (first && npow) {
            have_energy = false;
            energy_j += pj;
        }
    }
    FACT("gpu.devices", "%s", devs.buf);
    FACT("gpu.match", "%s", match);
    if (set0.name[0])
        FACT("gpu.name", "%s", set0.name);
    FACT("gpu.persistence", "%s", set0.persistence < 0 ? "unknown" : set0.persistence ? "on" : "off");
    if (set0.app_sm_mhz)
        FACT("gpu.app_clocks_mhz", "sm %u, mem %u", set0.app_sm_mhz, set0.app_mem_mhz);
    if (set0.max_sm_mhz)
        FACT("gpu.max_sm_mhz", "%u", set0.max_sm_mhz);
    if (set0.power_limit_mw)
        FACT("gpu.power_limit_w", "%.0f", set0.power_limit_mw / 1000.0);
    FACT("gpu.mig", "%s", set0.mig < 0 ? "unknown" : set0.mig ? "on" : "off");
    FACT("gpu.window", "%s", tw0 >= 0 && tw1 > tw0 ? "timed steps" : "whole cell (no timed steps)");
    if (nsm) {
        FACT("gpu.sm_mhz.mean", "%.0f", sm_sum / (double)nsm);
        FACT("gpu.sm_mhz.min", "%u", sm_min);
        FACT("gpu.mem_mhz.mean", "%.0f", mem_sum / (double)nsm);
    }
    if (npow)
        FACT("gpu.power_w.mean", "%.1f", power_sum / (double)npow);
    if (npow || have_energy) {
        FACT("gpu.energy_j", "%.3f", energy_j);
        FACT("gpu.energy.source", "%s", have_energy ? "energy counter" : "power integrated");
        if (r->ntimed && tw0 >= 0 && tw1 > tw0)
            FACT("gpu.energy_j_per_step", "%.4f", energy_j / (double)r->ntimed);
    }
    if (temp_max)
        FACT("gpu.temp_c.max", "%u", temp_max);
    if (nutil)
        FACT("gpu.util.mean", "%.1f", util_sum / (double)nutil);
    FACT("gpu.mem_used.peak", "%llu", peak_used);
    if (peak_ours)
        FACT("gpu.mem_cell.peak", "%llu", peak_ours);
    if (nthr_samples) {
        double share = (double)nthr / (double)nthr_samples;
        char why[200] = "";
        size_t off = 0;
        for (int k = 0; k < 5; k++)
            if (reason_n[k])
                off += (size_t)snprintf(why + off, off < sizeof(why) ? sizeof(why) - off : 0, "%s%s %.0f%%",
                                        off ? ", " : "", reason_text[k],
                                        100.0 * (double)reason_n[k] / (double)nthr_samples);
        FACT("gpu.throttled.share", "%.4f", share);
        FACT("gpu.throttle.reasons", "%s", why[0] ? why : "none");
        FACT("gpu.throttled", "%s", share > THROTTLED_SHARE ? "yes" : "no");
    }
    FACT("gpu.foreign", "%s", foreign.len ? foreign.buf : "none");
    if (unknown.len)
        FACT("gpu.unresolved", "%s (not in this PID namespace: neither the cell's nor counted as foreign)",
             unknown.buf);
    size_t nsamples = 0;
    for (int d = 0; d < t->ndev; d++)
        nsamples += use[d] ? t->ng[d] : 0;
    FACT("gpu.samples", "%zu", nsamples);
    if (foreign.len)
        err = strbuf_printf(reason, "%sanother process ran on the cell's GPU: %s", reason->len ? "; " : "",
                            foreign.buf);
done:
    strbuf_free(&devs);
    strbuf_free(&foreign);
    strbuf_free(&unknown);
    return err;
}

/* The series, on the markers' clock: t_ns since the worker started (shift
 * is how long after telemetry_begin() that was). */
static int add_series(struct telemetry *t, struct result *r, int64_t shift)
{
    int err = 0;
    for (size_t i = 0; !err && i < t->nh; i++) {
        const struct hsamp *h = &t->h[i];
        const struct hsamp *p = i ? &t->h[i - 1] : NULL;
        double pb = p ? p->busy_s : t->first.busy_s, po = p ? p->ours_s : t->first.ours_s;
        int64_t pt = p ? p->t : 0;
        double dt = (double)(h->t - pt) / 1e9, o = (h->busy_s - pb) - (h->ours_s - po);
        if ((err = tseries_add(&r->telemetry, "host.other_cpu", h->t - shift, dt > 0 && o > 0 ? o / dt : 0)) < 0)
            break;
        if (h->load1 >= 0)
            err = tseries_add(&r->telemetry, "host.load1", h->t - shift, h->load1);
    }
    const char *devs = kvlist_get(&r->facts, "gpu.devices");
    for (int d = 0; !err && devs && d < t->ndev; d++) {
        char want[16];
        snprintf(want, sizeof(want), "%d", d);
        bool used = false;
        for (const char *p = devs; *p;) {
            size_t n = strcspn(p, ",");
            used |= n == strlen(want) && strncmp(p, want, n) == 0;
            p += n + (p[n] == ',');
        }
        if (!used)
            continue;
        size_t stride = (t->ng[d] + TELEMETRY_MAX_POINTS - 1) / TELEMETRY_MAX_POINTS;
        stride = stride ? stride : 1;
        for (size_t i = 0; !err && i < t->ng[d]; i += stride) {
            const struct gsamp *g = &t->g[d][i];
            char name[32];
#define PUT(field, bit, value)                                                                              \
    do {                                                                                                     \
        if (!err && (g->have & (bit))) {                                                                    \
            snprintf(name, sizeof(name), "gpu.%d." field, d);                                                \
            err = tseries_add(&r->telemetry, name, g->t - shift, (value));                                    \
        }                                                                                                    \
    } while (0)
            PUT("sm_mhz", NVML_HAVE_CLOCKS, g->sm);
            PUT("mem_mhz", NVML_HAVE_CLOCKS, g->mem);
            PUT("power_w", NVML_HAVE_POWER, g->power_mw / 1000.0);
            PUT("energy_j", NVML_HAVE_ENERGY, g->energy_mj / 1000.0);
            PUT("temp_c", NVML_HAVE_TEMP, g->temp);
            PUT("throttle", NVML_HAVE_THROTTLE, (double)g->throttle);
            PUT("util", NVML_HAVE_UTIL, g->util);
            PUT("mem_util", NVML_HAVE_UTIL, g->mutil);
            PUT("mem_used", NVML_HAVE_MEMORY, (double)g->mem_used);
            PUT("foreign_pid", NVML_HAVE_PROCS, g->foreign);
#undef PUT
        }
    }
    return err;
}

int telemetry_end(struct telemetry *t, struct result *r)
{
    stop_thread(t);
    struct hostload_snap last;
    struct strbuf reason = {0};
    int err = 0;
    if (hostload_snap(&last, 1) < 0) {
        memset(&last, 0, sizeof(last));
        last.t_ns = util_now_ns();
    }
    /* The samples are timed from telemetry_begin(), the markers from the
     * worker's start, which comes later (the worker's pipes, log and
     * container are made in between): the timed window moves by that much
     * onto the samples' clock, and the series onto the markers'. */
    int64_t shift = r->t0_ns > t->t0 ? r->t0_ns - t->t0 : 0;
    int64_t tw0 = marker_ns(&r->phases, "warmup"), tw1 = marker_ns(&r->phases, "timed");
    if (tw0 >= 0)
        tw0 += shift;
    if (tw1 >= 0)
        tw1 += shift;
    if ((err = summarise_host(t, &last, tw0, tw1, r, &reason)) < 0 ||
        (err = summarise_gpu(t, tw0, tw1, r, &reason)) < 0)
        goto done;
    /* The closing snapshot ends the host series, so that a cell shorter
     * than the host period (1 s) has a point too. */
    if (last.t_ns > t->t0 && (t->nh == 0 || t->h[t->nh - 1].t < last.t_ns - t->t0)) {
        if (grow((void **)&t->h, &t->caph, t->nh, sizeof(struct hsamp)))
            t->h[t->nh++] = (struct hsamp){last.t_ns - t->t0, last.busy_s, last.ours_s, hostload_load1()};
        else
            t->oom = true;
    }
    if ((err = add_series(t, r, shift)) < 0)
        goto done;
    if (t->oom)
        FACT("telemetry.incomplete", "%s", "out of memory while sampling: the series stop early");
    FACT("contention", "%s", reason.len ? "yes" : "no");
    if (reason.len)
        FACT("contention.reason", "%s", reason.buf);
done:
    hostload_snap_free(&last);
    strbuf_free(&reason);
    telemetry_cancel(t);
    return err;
}
