/*
 * nvml.h - the NVIDIA Management Library, loaded with dlopen, for sampling
 * GPUs while a cell runs (clocks, power, energy, temperature, throttle
 * reasons, utilisation, memory, processes) and for their settings
 * (persistence mode, application clocks, MIG mode).
 *
 * NVML creates no CUDA context, so the parent may use it while it forks
 * workers that do. The library is "libnvidia-ml.so.1" (it ships with the
 * driver) or the path in $BENCHGEN_NVML_LIB, which tests point at a fake
 * built by the test suite (tests/fake/fake_nvml.c).
 *
 * Every reading is optional: a call the device or driver does not support
 * leaves its NVML_HAVE_* bit clear. Nothing here calls error_set() from
 * nvml_sample(), so the telemetry thread may call it.
 *
 * Ownership: nvml_open() gives a handle nvml_close() releases.
 */
#ifndef BENCHGEN_NVML_H
#define BENCHGEN_NVML_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NVML_MAX_DEVICES 16
#define NVML_MAX_PROCS 64

/* Throttle ("clocks event") reasons, nvml.h nvmlClocksThrottleReason*. */
#define NVML_THR_GPU_IDLE 0x1ULL
#define NVML_THR_APP_CLOCKS 0x2ULL
#define NVML_THR_SW_POWER_CAP 0x4ULL
#define NVML_THR_HW_SLOWDOWN 0x8ULL
#define NVML_THR_SYNC_BOOST 0x10ULL
#define NVML_THR_SW_THERMAL 0x20ULL
#define NVML_THR_HW_THERMAL 0x40ULL
#define NVML_THR_HW_POWER_BRAKE 0x80ULL
#define NVML_THR_DISPLAY_CLOCKS 0x100ULL
/* The reasons that mean "slower than it could run" (idle, the application
 * clock setting, sync boost and display clocks do not). */
#define NVML_THR_SLOWDOWN                                                                                    \
    (NVML_THR_SW_POWER_CAP | NVML_THR_HW_SLOWDOWN | NVML_THR_SW_THERMAL | NVML_THR_HW_THERMAL |             \
     NVML_THR_HW_POWER_BRAKE)

enum {
    NVML_HAVE_CLOCKS = 1 << 0,
    NVML_HAVE_POWER = 1 << 1,
    NVML_HAVE_ENERGY = 1 << 2,
    NVML_HAVE_TEMP = 1 << 3,
    NVML_HAVE_THROTTLE = 1 << 4,
    NVML_HAVE_UTIL = 1 << 5,
    NVML_HAVE_MEMORY = 1 << 6,
    NVML_HAVE_PROCS = 1 << 7
};

struct nvml_sample {
    unsigned have;                 /* NVML_HAVE_* */
    unsigned sm_mhz, mem_mhz;      /* current clocks */
    unsigned power_mw;             /* board power */
    unsigned long long energy_mj;  /* total energy since the driver loaded */
    unsigned temp_c;               /* GPU core */
    unsigned long long throttle;   /* NVML_THR_* bits */
    unsigned util_gpu, util_mem;   /* percent over the driver's last sample period */
    unsigned long long mem_used;   /* bytes, whole device */
    unsigned nprocs;               /* compute and graphics processes, up to NVML_MAX_PROCS */
    pid_t pids[NVML_MAX_PROCS];
    unsigned long long proc_mem[NVML_MAX_PROCS]; /* bytes; 0 when unknown */
};

/* Settings that change speed, read once per cell. -1 / 0 when unknown. */
struct nvml_settings {
    char name[96];
    char uuid[96];
    int persistence;                     /* 1 on, 0 off, -1 unknown */
    unsigned app_sm_mhz, app_mem_mhz;    /* application clocks */
    unsigned max_sm_mhz, max_mem_mhz;    /* max clocks */
    unsigned power_limit_mw;             /* enforced power limit */
    unsigned long long mem_total;        /* bytes */
    int mig;                             /* MIG mode now: 1 on, 0 off (or not supported), -1 unknown */
};

struct nvml;

/* Loads and initialises NVML. BG_ENOTFOUND with the reason when there is
 * no library or no driver (not an error for callers: no GPU telemetry). */
int nvml_open(struct nvml **out);
void nvml_close(struct nvml *n);

/* Devices NVML sees (at most NVML_MAX_DEVICES). */
int nvml_count(const struct nvml *n);

/* The library that was loaded ("libnvidia-ml.so.1" or the override). */
const char *nvml_library(const struct nvml *n);

/* Reads device dev now. 0, or -1 when the device handle cannot be had. */
int nvml_sample(struct nvml *n, int dev, struct nvml_sample *s);

int nvml_settings(struct nvml *n, int dev, struct nvml_settings *s);

/* "sw power cap, hw thermal" for the slowdown bits of mask ("" for none). */
void nvml_throttle_text(unsigned long long mask, char *buf, size_t len);

#endif /* BENCHGEN_NVML_H */
