/*
 * fake_nvml.c - a stand-in libnvidia-ml.so.1 for tests on machines without
 * a GPU. It exports the NVML entry points benchgen calls (machine/nvml.c,
 * machine/gpu.c) and returns scripted values for one device:
 *
 *   name "NVIDIA H100 80GB HBM3", persistence on, application clocks
 *   1755/2619 MHz, max 1980/2619 MHz, power limit 700 W;
 *   power 350 W, and an energy counter that grows by exactly 350 J per
 *   second of CLOCK_MONOTONIC since nvmlInit (so J/step = 350 W x step time);
 *   temperature 65 C, utilisation 97% / 40%;
 *   memory used 2 GiB, 6 GiB from 0.5 s after nvmlInit on (the peak);
 *   throttle: "sw power cap" in every other 200 ms slot (about half the
 *   time), SM clock 1410 MHz then and 1980 MHz otherwise;
 *   FAKE_NVML_THROTTLE=0 turns the throttle off;
 *   processes: the calling process (benchgen, 1.5 GiB) and, when
 *   FAKE_NVML_FOREIGN_PID is set, that pid (512 MiB): a process that is not
 *   the cell's on its GPU;
 *   driver "999.99-fake" for CUDA 13.0, or FAKE_NVML_DRIVER and FAKE_NVML_CUDA
 *   ("570.124.06", "12080"): the driver env sync chooses a CUDA variant for.
 *
 * Variations, for the cases a GPU node shows and this machine cannot:
 *   FAKE_NVML_NAME       the device name ("NVIDIA H200 NVL");
 *   FAKE_NVML_OWN_PID    the pid reported for the calling process instead of
 *                        its own: an older driver inside a PID namespace,
 *                        which gives host pids /proc does not show;
 *   FAKE_NVML_MIG=1      MIG mode on (nvmlDeviceGetMigMode); unset: a GPU
 *                        without MIG (NVML_ERROR_NOT_SUPPORTED);
 *   FAKE_NVML_ENERGY=clock  the energy counter reads CLOCK_MONOTONIC in
 *                        microseconds (1000 W): each sample then carries the
 *                        absolute time it was taken, so a test can check
 *                        the clock the series and windows are on.
 *
 * FAKE_NVML_COUNT=N (1 to 8, default 1) makes N such devices, device i with
 * UUID "GPU-0000000i-fake-0000-0000-000000000000" (index i).
 *
 * Built by the tests themselves (tests/integration/test_telemetry.sh):
 *   cc -shared -fPIC -o libnvidia-ml.so.1 tests/fake/fake_nvml.c
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned gpu, memory;
} nvmlUtilization_t;
typedef struct {
    unsigned pid;
    unsigned long long usedGpuMemory;
    unsigned gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

#define OK 0
#define INVALID_ARGUMENT 2
#define UNINITIALIZED 1
#define NOT_SUPPORTED 3
#define INSUFFICIENT_SIZE 7
#define GIB (1024ULL * 1024 * 1024)

static int inited;
static double t_init;
static struct nvmlDevice_st {
    int index;
} devs[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
#define dev0 (devs[0])

static unsigned device_count(void)
{
    const char *v = getenv("FAKE_NVML_COUNT");
    int n = v ? atoi(v) : 1;
    return n >= 1 && n <= 8 ? (unsigned)n : 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double elapsed(void) { return now_s() - t_init; }

static int throttled(void)
{
    const char *v = getenv("FAKE_NVML_THROTTLE");
    if (v && strcmp(v, "0") == 0)
        return 0;
    return ((long)(elapsed() / 0.2)) % 2 == 1;
}

#define CHECK_DEV(d)                                                                                         \
    do {                                                                                                     \
        if (!inited)                                                                                         \
            return UNINITIALIZED;                                                                            \
        if ((d) < &devs[0] || (d) >= &devs[device_count()])                                                  \
            return INVALID_ARGUMENT;                                                                         \
    } while (0)

nvmlReturn_t nvmlInit_v2(void)
{
    if (!inited++)
        t_init = now_s();
    return OK;
}
nvmlReturn_t nvmlShutdown(void)
{
    if (inited)
        inited--;
    return OK;
}
const char *nvmlErrorString(nvmlReturn_t r) { return r == OK ? "Success" : "Fake error"; }
nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned n)
{
    const char *d = getenv("FAKE_NVML_DRIVER"); /* env sync's CUDA variant tests: "570.124.06" */
    snprintf(v, n, "%s", d && *d ? d : "999.99-fake");
    return OK;
}
/* The CUDA version the driver supports: FAKE_NVML_CUDA ("12080"), else 13000. */
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    const char *c = getenv("FAKE_NVML_CUDA");
    *v = c && *c ? atoi(c) : 13000;
    return OK;
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
    if (!inited)
        return UNINITIALIZED;
    *n = device_count();
    return OK;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
    if (!inited)
        return UNINITIALIZED;
    if (i >= device_count())
        return INVALID_ARGUMENT;
    *d = &devs[i];
    return OK;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned n)
{
    CHECK_DEV(d);
    const char *v = getenv("FAKE_NVML_NAME");
    snprintf(name, n, "%s", v && *v ? v : "NVIDIA H100 80GB HBM3");
    return OK;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned n)
{
    CHECK_DEV(d);
    snprintf(uuid, n, "GPU-0000000%d-fake-0000-0000-000000000000", d->index);
    return OK;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
    CHECK_DEV(d);
    *mhz = type == 2 ? 2619 : throttled() ? 1410 : 1980;
    return OK;
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
    CHECK_DEV(d);
    *mhz = type == 2 ? 2619 : 1980;
    return OK;
}
nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t d, int type, unsigned *mhz)
{
    CHECK_DEV(d);
    *mhz = type == 2 ? 2619 : 1755;
    return OK;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw)
{
    CHECK_DEV(d);
    *mw = 350000;
    return OK;
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw)
{
    CHECK_DEV(d);
    *mw = 700000;
    return OK;
}
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
    CHECK_DEV(d);
    const char *v = getenv("FAKE_NVML_ENERGY");
    if (v && strcmp(v, "clock") == 0)
        *mj = (unsigned long long)(now_s() * 1e6);
    else
        *mj = 1000000ULL + (unsigned long long)(elapsed() * 350000.0);
    return OK;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *c)
{
    CHECK_DEV(d);
    if (sensor != 0)
        return INVALID_ARGUMENT;
    *c = 65;
    return OK;
}
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r)
{
    CHECK_DEV(d);
    *r = throttled() ? 0x4ULL : 0;
    return OK;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
    CHECK_DEV(d);
    u->gpu = 97;
    u->memory = 40;
    return OK;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    CHECK_DEV(d);
    m->total = 80 * GIB;
    m->used = elapsed() >= 0.5 ? 6 * GIB : 2 * GIB;
    m->free = m->total - m->used;
    return OK;
}
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *mode)
{
    CHECK_DEV(d);
    *mode = 1;
    return OK;
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_t *p)
{
    CHECK_DEV(d);
    const char *f = getenv("FAKE_NVML_FOREIGN_PID");
    unsigned n = f && *f ? 2 : 1;
    if (*count < n) {
        *count = n;
        return INSUFFICIENT_SIZE;
    }
    memset(p, 0, n * sizeof(*p));
    const char *own = getenv("FAKE_NVML_OWN_PID");
    p[0].pid = own && *own ? (unsigned)strtoul(own, NULL, 10) : (unsigned)getpid();
    p[0].usedGpuMemory = 3 * GIB / 2;
    if (n == 2) {
        p[1].pid = (unsigned)atoi(f);
        p[1].usedGpuMemory = GIB / 2;
    }
    *count = n;
    return OK;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *current, unsigned *pending)
{
    CHECK_DEV(d);
    const char *v = getenv("FAKE_NVML_MIG");
    if (!v || strcmp(v, "1") != 0)
        return NOT_SUPPORTED;
    *current = *pending = 1;
    return OK;
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_t *p)
{
    CHECK_DEV(d);
    (void)p;
    *count = 0;
    return OK;
}
