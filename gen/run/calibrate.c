/*
 * calibrate.c - the CPU GEMM microbenchmark (see calibrate.h).
 *
 * C = A (M x K) * B (K x N), float32, N = K = 512: B is packed into panels
 * of 16 columns, and a 4 x 16 micro-kernel keeps its C block in registers
 * (GCC vector types; target_clones builds it for AVX-512, AVX2+FMA and the
 * baseline, and the loader picks the best the CPU has). Each thread owns
 * its own A and C and shares the packed B: threads never write the same
 * cache line. The rate is 2*M*N*K per call, per second of the thread's own
 * CPU time (CLOCK_THREAD_CPUTIME_ID): other processes taking turns on the
 * cores lengthen the wall time, not the CPU time, so a busy machine does not
 * lower the number (it is still reported, as the calibration is best done
 * on a quiet one).
 */
#include "run/calibrate.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "envs/envs.h"
#include "machine/hostload.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DIM 512
#define MR 4
#define NR 16

typedef float v16 __attribute__((vector_size(64), aligned(4)));

/* C[MR x NR] += A[MR x K] * Bp[K x NR]; lda and ldc in floats. */
__attribute__((target_clones("avx512f", "arch=haswell", "default"))) static void
micro(int k, const float *a, int lda, const float *bp, float *c, int ldc)
{
    v16 c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};
    for (int p = 0; p < k; p++) {
        v16 b;
        memcpy(&b, bp + (size_t)p * NR, sizeof(b));
        c0 += a[0 * lda + p] * b;
        c1 += a[1 * lda + p] * b;
        c2 += a[2 * lda + p] * b;
        c3 += a[3 * lda + p] * b;
    }
    v16 t;
    memcpy(&t, c + 0 * ldc, sizeof(t));
    t += c0;
    memcpy(c + 0 * ldc, &t, sizeof(t));
    memcpy(&t, c + 1 * ldc, sizeof(t));
    t += c1;
    memcpy(c + 1 * ldc, &t, sizeof(t));
    memcpy(&t, c + 2 * ldc, sizeof(t));
    t += c2;
    memcpy(c + 2 * ldc, &t, sizeof(t));
    memcpy(&t, c + 3 * ldc, sizeof(t));
    t += c3;
    memcpy(c + 3 * ldc, &t, sizeof(t));
}

static void gemm(const float *a, const float *bp, float *c)
{
    for (int j = 0; j < DIM; j += NR)
        for (int i = 0; i < DIM; i += MR)
            micro(DIM, a + (size_t)i * DIM, DIM, bp + (size_t)j * DIM, c + (size_t)i * DIM + j, DIM);
}

struct worker {
    pthread_t th;
    int cpu;
    const float *bp;
    double seconds;
    long calls;
    int64_t ns;
};

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *run(void *arg)
{
    struct worker *w = arg;
    if (w->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->cpu, &set);
        sched_setaffinity(0, sizeof(set), &set);
    }
    float *a = xaligned_alloc(64, sizeof(float) * DIM * DIM), *c = xaligned_alloc(64, sizeof(float) * DIM * DIM);
    for (size_t i = 0; i < (size_t)DIM * DIM; i++) {
        a[i] = (float)((i * 7) % 13) * 0.01f;
        c[i] = 0;
    }
    gemm(a, w->bp, c); /* warm the caches and the clock */
    int64_t t0 = cpu_ns(), limit = t0 + (int64_t)(w->seconds * 1e9);
    do {
        gemm(a, w->bp, c);
        w->calls++;
    } while (cpu_ns() < limit);
    w->ns = cpu_ns() - t0;
    free(a);
    free(c);
    return NULL;
}

/* GFLOP/s with n threads (pinned to the first n allowed CPUs). */
static double measure(int n, const int *cpus, const float *bp, double seconds)
{
    struct worker *w = xcalloc((size_t)n, sizeof(*w));
    for (int i = 0; i < n; i++) {
        w[i] = (struct worker){.cpu = cpus ? cpus[i] : -1, .bp = bp, .seconds = seconds};
        if (pthread_create(&w[i].th, NULL, run, &w[i]) != 0)
            w[i].seconds = -1;
    }
    double gflops = 0;
    for (int i = 0; i < n; i++) {
        if (w[i].seconds < 0)
            continue;
        pthread_join(w[i].th, NULL);
        if (w[i].ns > 0)
            gflops += 2.0 * DIM * DIM * DIM * (double)w[i].calls / (double)w[i].ns;
    }
    free(w);
    return gflops;
}

/* $BENCHGEN_CALIBRATION (tests), else the cache directory's file. */
static char *calibration_path(void)
{
    const char *p = getenv("BENCHGEN_CALIBRATION");
    return p && *p ? xstrdup(p) : xprintf("%s/calibration-cpu.txt", envs_cache_dir());
}

static void cpu_key(char *buf, size_t len)
{
    char *text = NULL, model[256] = "unknown";
    if (util_read_file("/proc/cpuinfo", &text, NULL) == 0) {
        const char *p = strstr(text, "model name");
        const char *colon = p ? strchr(p, ':') : NULL;
        if (colon) {
            colon++;
            while (*colon == ' ' || *colon == '\t')
                colon++;
            snprintf(model, sizeof(model), "%.*s", (int)strcspn(colon, "\n"), colon);
        }
        free(text);
    }
    snprintf(buf, len, "%s | %ld CPUs", model, sysconf(_SC_NPROCESSORS_ONLN));
}

int calibrate_cpu(double seconds, FILE *out)
{
    cpu_set_t set;
    int cpus[CPU_SETSIZE], n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &set))
                cpus[n++] = i;
    if (n == 0)
        n = 1;
    float *b = xaligned_alloc(64, sizeof(float) * DIM * DIM), *bp = xaligned_alloc(64, sizeof(float) * DIM * DIM);
    for (size_t i = 0; i < (size_t)DIM * DIM; i++)
        b[i] = (float)((i * 5) % 11) * 0.01f;
    for (int j = 0; j < DIM; j += NR) /* panels of NR columns, row by row */
        for (int p = 0; p < DIM; p++)
            memcpy(bp + (size_t)j * DIM + (size_t)p * NR, b + (size_t)p * DIM + j, NR * sizeof(float));
    fprintf(out, "calibrating: float32 GEMM %dx%dx%d, %.0f s of CPU time per thread and measurement\n", DIM, DIM,
            DIM, seconds);
    struct hostload_snap s0, s1;
    int have0 = hostload_snap(&s0, 0) == 0;
    double one = measure(1, cpus, bp, seconds);
    fprintf(out, "  1 thread:    %.1f GFLOP/s\n", one);
    double all = n > 1 ? measure(n, cpus, bp, seconds) : one;
    if (n > 1)
        fprintf(out, "  %d threads:  %.1f GFLOP/s\n", n, all);
    if (have0 && hostload_snap(&s1, 0) == 0) {
        double other = hostload_other_cores(&s0, &s1);
        if (other > HOSTLOAD_CONTENDED_CORES)
            fprintf(out, "note: other processes used %.2f cores meanwhile; the rate is per CPU-second, but shared "
                         "caches and memory bandwidth may still have lowered it (calibrate on a quiet machine)\n",
                    other);
    }
    free(b);
    free(bp);
    char key[320];
    cpu_key(key, sizeof(key));
    char *path = calibration_path();
    char *text = xprintf("cpu %s\nthreads %d\ngflops_float32 %.3f\ngflops_float32_1thread %.3f\n", key, n, all, one);
    int err = util_write_file_atomic(path, text, strlen(text));
    if (!err)
        fprintf(out, "stored in %s: runs created on this CPU record cpu.peak_gflops.float32 = %.1f\n", path, all);
    free(path);
    free(text);
    return err;
}

int calibrate_describe(struct kvlist *kl)
{
    char *path = calibration_path(), *text = NULL;
    int err = 0;
    if (path && util_is_file(path) && util_read_file(path, &text, NULL) == 0) {
        char key[320], want[340];
        cpu_key(key, sizeof(key));
        snprintf(want, sizeof(want), "cpu %s\n", key);
        const char *g = strstr(text, "\ngflops_float32 ");
        if (strncmp(text, want, strlen(want)) == 0 && g) {
            double v = atof(g + 16);
            if (v > 0 && (err = kvlist_addf(kl, "cpu.peak_gflops.float32", "%.3f", v)) == 0)
                err = kvlist_add(kl, "cpu.peak_gflops.source", "benchgen info --calibrate (C SGEMM, all CPUs)");
        }
    }
    free(text);
    free(path);
    return err;
}
