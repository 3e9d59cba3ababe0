/*
 * nvml.c - NVML through dlopen (see nvml.h).
 *
 * The entry points and structs follow nvml.h (API 12/13). With dlsym the
 * versioned names must be asked for: nvml.h #defines nvmlInit to
 * nvmlInit_v2, nvmlDeviceGetCount and nvmlDeviceGetHandleByIndex to _v2,
 * and the process lists to _v3 (whose nvmlProcessInfo_t is 24 bytes: pid,
 * usedGpuMemory, gpuInstanceId, computeInstanceId). Older drivers lack _v3;
 * then the unversioned v1 (16-byte {pid, usedGpuMemory}) is used.
 */
#include "machine/nvml.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_ret; /* nvmlReturn_t; 0 == NVML_SUCCESS */
typedef struct nvmlDevice_st *nvml_dev;

#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7

struct nvml_memory { /* nvmlMemory_t */
    unsigned long long total, free, used;
};
struct nvml_util { /* nvmlUtilization_t */
    unsigned gpu, memory;
};
struct nvml_proc_v3 { /* nvmlProcessInfo_t (v2 layout, used by the _v3 calls) */
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id, compute_instance_id;
};
struct nvml_proc_v1 { /* nvmlProcessInfo_v1_t */
    unsigned pid;
    unsigned long long used_gpu_memory;
};

struct nvml {
    void *lib;
    char path[256];
    int count;
    nvml_dev dev[NVML_MAX_DEVICES];
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    const char *(*error_string)(nvml_ret);
    nvml_ret (*get_count)(unsigned *);
    nvml_ret (*by_index)(unsigned, nvml_dev *);
    nvml_ret (*name)(nvml_dev, char *, unsigned);
    nvml_ret (*uuid)(nvml_dev, char *, unsigned);
    nvml_ret (*clock)(nvml_dev, int, unsigned *);
    nvml_ret (*max_clock)(nvml_dev, int, unsigned *);
    nvml_ret (*app_clock)(nvml_dev, int, unsigned *);
    nvml_ret (*power)(nvml_dev, unsigned *);
    nvml_ret (*power_limit)(nvml_dev, unsigned *);
    nvml_ret (*energy)(nvml_dev, unsigned long long *);
    nvml_ret (*temperature)(nvml_dev, int, unsigned *);
    nvml_ret (*throttle)(nvml_dev, unsigned long long *);
    nvml_ret (*utilization)(nvml_dev, struct nvml_util *);
    nvml_ret (*memory)(nvml_dev, struct nvml_memory *);
    nvml_ret (*persistence)(nvml_dev, int *);
    nvml_ret (*mig_mode)(nvml_dev, unsigned *, unsigned *);
    nvml_ret (*compute_v3)(nvml_dev, unsigned *, struct nvml_proc_v3 *);
    nvml_ret (*graphics_v3)(nvml_dev, unsigned *, struct nvml_proc_v3 *);
    nvml_ret (*compute_v1)(nvml_dev, unsigned *, struct nvml_proc_v1 *);
    nvml_ret (*graphics_v1)(nvml_dev, unsigned *, struct nvml_proc_v1 *);
};

#define SYM(field, name) (*(void **)&n->field = dlsym(n->lib, name))

int nvml_open(struct nvml **out)
{
    *out = NULL;
    const char *override = getenv("BENCHGEN_NVML_LIB");
    const char *path = override && *override ? override : "libnvidia-ml.so.1";
    struct nvml *n = xcalloc(1, sizeof(*n));
    snprintf(n->path, sizeof(n->path), "%s", path);
    int err = 0;
    if (!(n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        const char *why = dlerror();
        err = error_set(BG_ENOTFOUND, "NVML unavailable: %s", why ? why : path);
        goto done;
    }
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(error_string, "nvmlErrorString");
    SYM(get_count, "nvmlDeviceGetCount_v2");
    SYM(by_index, "nvmlDeviceGetHandleByIndex_v2");
    if (!n->init || !n->shutdown || !n->get_count || !n->by_index) {
        err = error_set(BG_ENOTFOUND, "NVML unavailable: %s lacks nvmlInit_v2/nvmlDeviceGetCount_v2", path);
        goto done;
    }
    SYM(name, "nvmlDeviceGetName");
    SYM(uuid, "nvmlDeviceGetUUID");
    SYM(clock, "nvmlDeviceGetClockInfo");
    SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
    SYM(app_clock, "nvmlDeviceGetApplicationsClock");
    SYM(power, "nvmlDeviceGetPowerUsage");
    SYM(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    SYM(energy, "nvmlDeviceGetTotalEnergyConsumption");
    SYM(temperature, "nvmlDeviceGetTemperature");
    /* Renamed "clocks event reasons" in newer drivers; the old name stays. */
    if (!SYM(throttle, "nvmlDeviceGetCurrentClocksEventReasons"))
        SYM(throttle, "nvmlDeviceGetCurrentClocksThrottleReasons");
    SYM(utilization, "nvmlDeviceGetUtilizationRates");
    SYM(memory, "nvmlDeviceGetMemoryInfo");
    SYM(persistence, "nvmlDeviceGetPersistenceMode");
    SYM(mig_mode, "nvmlDeviceGetMigMode");
    SYM(compute_v3, "nvmlDeviceGetComputeRunningProcesses_v3");
    SYM(graphics_v3, "nvmlDeviceGetGraphicsRunningProcesses_v3");
    SYM(compute_v1, "nvmlDeviceGetComputeRunningProcesses");
    SYM(graphics_v1, "nvmlDeviceGetGraphicsRunningProcesses");
    nvml_ret r = n->init();
    if (r != 0) {
        err = error_set(BG_ENOTFOUND, "NVML unavailable: nvmlInit failed: %s (%d)",
                        n->error_string ? n->error_string(r) : "error", r);
        dlclose(n->lib);
        n->lib = NULL;
        goto done;
    }
    unsigned count = 0;
    if (n->get_count(&count) != 0)
        count = 0;
    for (unsigned i = 0; i < count && n->count < NVML_MAX_DEVICES; i++)
        if (n->by_index(i, &n->dev[n->count]) == 0)
            n->count++;
done:
    if (err) {
        if (n->lib)
            dlclose(n->lib);
        free(n);
        return err;
    }
    *out = n;
    return 0;
}
#undef SYM

void nvml_close(struct nvml *n)
{
    if (!n)
        return;
    if (n->lib) {
        n->shutdown();
        dlclose(n->lib);
    }
    free(n);
}

int nvml_count(const struct nvml *n) { return n ? n->count : 0; }

const char *nvml_library(const struct nvml *n) { return n ? n->path : ""; }

/* Appends the processes of one list (compute or graphics), without duplicates. */
static void add_procs(struct nvml *n, nvml_dev d, int graphics, struct nvml_sample *s)
{
    nvml_ret (*v3)(nvml_dev, unsigned *, struct nvml_proc_v3 *) = graphics ? n->graphics_v3 : n->compute_v3;
    nvml_ret (*v1)(nvml_dev, unsigned *, struct nvml_proc_v1 *) = graphics ? n->graphics_v1 : n->compute_v1;
    unsigned cnt = NVML_MAX_PROCS;
    pid_t pids[NVML_MAX_PROCS];
    unsigned long long mem[NVML_MAX_PROCS];
    nvml_ret r;
    if (v3) {
        struct nvml_proc_v3 p[NVML_MAX_PROCS];
        r = v3(d, &cnt, p);
        for (unsigned i = 0; r == 0 && i < cnt && i < NVML_MAX_PROCS; i++) {
            pids[i] = (pid_t)p[i].pid;
            mem[i] = p[i].used_gpu_memory;
        }
    } else if (v1) {
        struct nvml_proc_v1 p[NVML_MAX_PROCS];
        r = v1(d, &cnt, p);
        for (unsigned i = 0; r == 0 && i < cnt && i < NVML_MAX_PROCS; i++) {
            pids[i] = (pid_t)p[i].pid;
            mem[i] = p[i].used_gpu_memory;
        }
    } else {
        return;
    }
    if (r != 0 && r != NVML_ERROR_INSUFFICIENT_SIZE)
        return;
    s->have |= NVML_HAVE_PROCS;
    for (unsigned i = 0; r == 0 && i < cnt && i < NVML_MAX_PROCS; i++) {
        unsigned k = 0;
        while (k < s->nprocs && s->pids[k] != pids[i])
            k++;
        if (k < s->nprocs || s->nprocs == NVML_MAX_PROCS)
            continue;
        s->pids[s->nprocs] = pids[i];
        /* NVML_VALUE_NOT_AVAILABLE is all ones */
        s->proc_mem[s->nprocs++] = mem[i] == ~0ULL ? 0 : mem[i];
    }
}

int nvml_sample(struct nvml *n, int dev, struct nvml_sample *s)
{
    memset(s, 0, sizeof(*s));
    if (!n || dev < 0 || dev >= n->count)
        return -1;
    nvml_dev d = n->dev[dev];
    if (n->clock && n->clock(d, 1 /* NVML_CLOCK_SM */, &s->sm_mhz) == 0 &&
        n->clock(d, 2 /* NVML_CLOCK_MEM */, &s->mem_mhz) == 0)
        s->have |= NVML_HAVE_CLOCKS;
    if (n->power && n->power(d, &s->power_mw) == 0)
        s->have |= NVML_HAVE_POWER;
    if (n->energy && n->energy(d, &s->energy_mj) == 0)
        s->have |= NVML_HAVE_ENERGY;
    if (n->temperature && n->temperature(d, 0 /* NVML_TEMPERATURE_GPU */, &s->temp_c) == 0)
        s->have |= NVML_HAVE_TEMP;
    if (n->throttle && n->throttle(d, &s->throttle) == 0)
        s->have |= NVML_HAVE_THROTTLE;
    struct nvml_util u;
    if (n->utilization && n->utilization(d, &u) == 0) {
        s->util_gpu = u.gpu;
        s->util_mem = u.memory;
        s->have |= NVML_HAVE_UTIL;
    }
    struct nvml_memory m;
    if (n->memory && n->memory(d, &m) == 0) {
        s->mem_used = m.used;
        s->have |= NVML_HAVE_MEMORY;
    }
    add_procs(n, d, 0, s);
    add_procs(n, d, 1, s);
    return 0;
}

int nvml_settings(struct nvml *n, int dev, struct nvml_settings *s)
{
    memset(s, 0, sizeof(*s));
    s->persistence = -1;
    if (!n || dev < 0 || dev >= n->count)
        return -1;
    nvml_dev d = n->dev[dev];
    if (n->name && n->name(d, s->name, sizeof(s->name)) != 0)
        s->name[0] = '\0';
    if (n->uuid && n->uuid(d, s->uuid, sizeof(s->uuid)) != 0)
        s->uuid[0] = '\0';
    int mode = 0;
    if (n->persistence && n->persistence(d, &mode) == 0)
        s->persistence = mode ? 1 : 0;
    if (n->app_clock && (n->app_clock(d, 1, &s->app_sm_mhz) != 0 || n->app_clock(d, 2, &s->app_mem_mhz) != 0))
        s->app_sm_mhz = s->app_mem_mhz = 0;
    if (n->max_clock && (n->max_clock(d, 1, &s->max_sm_mhz) != 0 || n->max_clock(d, 2, &s->max_mem_mhz) != 0))
        s->max_sm_mhz = s->max_mem_mhz = 0;
    if (n->power_limit && n->power_limit(d, &s->power_limit_mw) != 0)
        s->power_limit_mw = 0;
    struct nvml_memory m;
    if (n->memory && n->memory(d, &m) == 0)
        s->mem_total = m.total;
    s->mig = -1;
    unsigned cur = 0, pending = 0;
    nvml_ret r = n->mig_mode ? n->mig_mode(d, &cur, &pending) : -1;
    if (r == 0)
        s->mig = cur ? 1 : 0; /* NVML_DEVICE_MIG_ENABLE is 1 */
    else if (r == NVML_ERROR_NOT_SUPPORTED)
        s->mig = 0; /* a GPU without MIG */
    return 0;
}

void nvml_throttle_text(unsigned long long mask, char *buf, size_t len)
{
    static const struct {
        unsigned long long bit;
        const char *text;
    } names[] = {{NVML_THR_SW_POWER_CAP, "sw power cap"}, {NVML_THR_HW_SLOWDOWN, "hw slowdown"},
                 {NVML_THR_SW_THERMAL, "sw thermal"},     {NVML_THR_HW_THERMAL, "hw thermal"},
                 {NVML_THR_HW_POWER_BRAKE, "hw power brake"}};
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (mask & names[i].bit)
            off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", off ? ", " : "", names[i].text);
}
