/*
 * checkup.c - `benchgen info --check` (see checkup.h).
 */
#include "machine/checkup.h"
#include "base/error.h"
#include "base/util.h"
#include "machine/hostload.h"
#include "machine/nvml.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct tally {
    FILE *out;
    int warned;
};

static void ok(struct tally *t, const char *what) { fprintf(t->out, "ok    %s\n", what); }

static void warn(struct tally *t, const char *what, const char *todo)
{
    fprintf(t->out, "warn  %s\n      -> %s\n", what, todo);
    t->warned++;
}

static int read_int(const char *path, long *v)
{
    char *text = NULL;
    if (!util_is_file(path) || util_read_file(path, &text, NULL) < 0)
        return -1;
    char *end = NULL;
    *v = strtol(text, &end, 10);
    int rc = end == text ? -1 : 0;
    free(text);
    return rc;
}

static void check_cpu(struct tally *t)
{
    char line[512], top[256];
    struct hostload_snap a, b;
    if (hostload_snap(&a, 1) == 0) {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
        if (hostload_snap(&b, 1) == 0) {
            double other = hostload_other_cores(&a, &b);
            hostload_top(&a, &b, 3, top, sizeof(top));
            snprintf(line, sizeof(line), "other processes use %.2f cores now%s%s%s", other, top[0] ? " (" : "",
                     top, top[0] ? ")" : "");
            if (other > HOSTLOAD_CONTENDED_CORES)
                warn(t, line,
                     "stop them before measuring, or run with `--wait-idle SECONDS`; cells measured beside "
                     "them are flagged `contended`");
            else
                ok(t, line);
            hostload_snap_free(&b);
        }
        hostload_snap_free(&a);
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double l1 = hostload_load1();
    if (l1 >= 0) {
        snprintf(line, sizeof(line), "load average (1 min) %.2f on %ld CPUs", l1, ncpu);
        if (ncpu > 0 && l1 > 0.5 * (double)ncpu)
            warn(t, line, "the machine is busy; wait for it to calm down (`uptime`, `top`)");
        else
            ok(t, line);
    }
    char gov[160];
    hostload_governor(gov, sizeof(gov));
    if (!gov[0])
        ok(t, "CPU frequency governor: none exposed (a VM or container; the host decides)");
    else if (strcmp(gov, "performance") != 0) {
        snprintf(line, sizeof(line), "CPU frequency governor is %s", gov);
        warn(t, line, "`sudo cpupower frequency-set -g performance` (pyperf: `sudo python -m pyperf system tune`)");
    } else
        ok(t, "CPU frequency governor: performance");
    int turbo = hostload_turbo();
    if (turbo == 1)
        warn(t, "turbo boost is on: clock speed depends on temperature and the other cores' load",
             "for stable numbers `echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo` (Intel) or "
             "`echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost`; keep it on to measure peak speed, "
             "but then compare only runs made the same way");
    else if (turbo == 0)
        ok(t, "turbo boost is off");
    else
        ok(t, "turbo boost: not exposed (a VM or container)");
    long v = 0;
    if (read_int("/proc/sys/kernel/nmi_watchdog", &v) == 0) {
        if (v != 0)
            warn(t, "the NMI watchdog is on: a periodic interrupt on every CPU",
                 "`echo 0 | sudo tee /proc/sys/kernel/nmi_watchdog` while benchmarking");
        else
            ok(t, "NMI watchdog off");
    }
    char *text = NULL;
    unsigned long long avail = 0, total = 0, swap_total = 0, swap_free = 0;
    if (util_read_file("/proc/meminfo", &text, NULL) == 0) {
        for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
            sscanf(p, "MemTotal: %llu", &total);
            sscanf(p, "MemAvailable: %llu", &avail);
            sscanf(p, "SwapTotal: %llu", &swap_total);
            sscanf(p, "SwapFree: %llu", &swap_free);
        }
        free(text);
        snprintf(line, sizeof(line), "memory available %.1f of %.1f GiB", avail / 1048576.0, total / 1048576.0);
        if (total && avail < total / 5)
            warn(t, line, "less than 20% of memory is free: cells may swap or be killed; stop memory-hungry "
                          "processes");
        else
            ok(t, line);
        if (swap_total > swap_free && swap_total - swap_free > 256 * 1024) {
            snprintf(line, sizeof(line), "%.1f GiB of swap in use", (swap_total - swap_free) / 1048576.0);
            warn(t, line, "pages swapped out make step times spiky; free memory or `sudo swapoff -a && sudo "
                          "swapon -a`");
        }
    }
}

static void check_gpus(struct tally *t)
{
    struct nvml *n = NULL;
    char line[512];
    if (nvml_open(&n) < 0) {
        if (util_is_dir("/proc/driver/nvidia"))
            warn(t, "an NVIDIA driver is loaded but NVML cannot be used: no GPU telemetry, contention or energy",
                 "install the driver's libnvidia-ml.so.1 (it ships with the driver) or set BENCHGEN_NVML_LIB");
        else
            ok(t, "no NVIDIA GPU (no NVML): GPU checks skipped");
        return;
    }
    if (nvml_count(n) == 0)
        ok(t, "NVML loaded, no GPU");
    pid_t self = getpid();
    for (int d = 0; d < nvml_count(n); d++) {
        struct nvml_settings s;
        struct nvml_sample now;
        nvml_settings(n, d, &s);
        nvml_sample(n, d, &now);
        snprintf(line, sizeof(line), "GPU %d: %s", d, s.name[0] ? s.name : "(no name)");
        ok(t, line);
        if (s.persistence == 0) {
            snprintf(line, sizeof(line), "GPU %d: persistence mode is off (the driver re-initialises it for "
                                         "every process: slower starts, clocks reset)", d);
            warn(t, line, "`sudo nvidia-smi -pm 1`");
        }
        if (s.app_sm_mhz && s.max_sm_mhz && s.app_sm_mhz < s.max_sm_mhz) {
            snprintf(line, sizeof(line), "GPU %d: application clocks %u MHz SM / %u MHz memory, below the "
                                         "maximum %u / %u", d, s.app_sm_mhz, s.app_mem_mhz, s.max_sm_mhz,
                     s.max_mem_mhz);
            warn(t, line, "fine if every run uses the same setting (it is recorded per cell); for "
                          "repeatable clocks `sudo nvidia-smi -lgc BASE,BASE` (lock), `-rgc` to undo");
        }
        size_t nforeign = 0;
        char who[256] = "";
        size_t off = 0;
        for (unsigned i = 0; i < now.nprocs; i++)
            if (now.pids[i] != self) {
                nforeign++;
                off += (size_t)snprintf(who + off, off < sizeof(who) ? sizeof(who) - off : 0, "%spid %d",
                                        off ? ", " : "", (int)now.pids[i]);
            }
        if (nforeign) {
            snprintf(line, sizeof(line), "GPU %d: %zu other process%s on it (%s)", d, nforeign,
                     nforeign == 1 ? "" : "es", who);
            warn(t, line, "stop them (`nvidia-smi` lists them) or run on another GPU (CUDA_VISIBLE_DEVICES); "
                          "cells measured beside them are flagged `contended`");
        }
        if ((now.have & NVML_HAVE_THROTTLE) && (now.throttle & NVML_THR_SLOWDOWN)) {
            char why[160];
            nvml_throttle_text(now.throttle & NVML_THR_SLOWDOWN, why, sizeof(why));
            snprintf(line, sizeof(line), "GPU %d: clocks throttled right now (%s)", d, why);
            warn(t, line, "check cooling and the power limit (`nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE`)");
        }
    }
    nvml_close(n);
}

int checkup_run(FILE *out)
{
    struct tally t = {out, 0};
    check_cpu(&t);
    check_gpus(&t);
    if (t.warned)
        fprintf(out, "%d thing%s to fix before measuring (see docs/GPU.md, \"Before measuring\")\n", t.warned,
                t.warned == 1 ? "" : "s");
    else
        fprintf(out, "ready: nothing found that would disturb a measurement\n");
    return t.warned;
}
