/*
 * canary.c - the drift canary's kernels (see canary.h).
 */
#include "machine/canary.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CANARY_MAX_THREADS 256

struct gemm_job {
    const double *a, *b;
    double *c;
    int n, row0, row1;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Rows row0..row1 of C = A * B, i-k-j order (unit stride inner loop). */
static void *gemm_rows(void *arg)
{
    const struct gemm_job *j = arg;
    int n = j->n;
    for (int i = j->row0; i < j->row1; i++) {
        double *ci = j->c + (size_t)i * n;
        memset(ci, 0, (size_t)n * sizeof(*ci));
        for (int k = 0; k < n; k++) {
            double aik = j->a[(size_t)i * n + k];
            const double *bk = j->b + (size_t)k * n;
            for (int x = 0; x < n; x++)
                ci[x] += aik * bk[x];
        }
    }
    return NULL;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* One GEMM split by rows over nt threads (the caller's thread is one). */
static void gemm(const double *a, const double *b, double *c, int n, int nt)
{
    struct gemm_job jobs[CANARY_MAX_THREADS];
    pthread_t tid[CANARY_MAX_THREADS];
    int started[CANARY_MAX_THREADS] = {0};
    for (int t = 0; t < nt; t++)
        jobs[t] = (struct gemm_job){a, b, c, n, n * t / nt, n * (t + 1) / nt};
    for (int t = 1; t < nt; t++)
        started[t] = pthread_create(&tid[t], NULL, gemm_rows, &jobs[t]) == 0;
    gemm_rows(&jobs[0]);
    for (int t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            gemm_rows(&jobs[t]); /* no thread: do its rows here */
    }
}

int canary_measure(struct canary *out)
{
    memset(out, 0, sizeof(*out));
    int n = CANARY_GEMM_N;
    size_t nn = (size_t)n * n;
    double *a = xmalloc(nn * sizeof(*a)), *b = xmalloc(nn * sizeof(*b)), *c = xmalloc(nn * sizeof(*c));
    unsigned char *src = xmalloc(CANARY_COPY_BYTES), *dst = xmalloc(CANARY_COPY_BYTES);
    /* Fixed contents: the same work every time. */
    for (size_t i = 0; i < nn; i++) {
        a[i] = (double)(i % 17) / 17.0;
        b[i] = (double)(i % 13) / 13.0 - 0.5;
    }
    for (size_t i = 0; i < CANARY_COPY_BYTES; i++)
        src[i] = (unsigned char)(i * 131u);

    int nt = util_cpus_usable();
    if (nt > CANARY_MAX_THREADS)
        nt = CANARY_MAX_THREADS;
    if (nt > n)
        nt = n;
    out->threads = nt;

    double tg[CANARY_REPS], tc[CANARY_REPS];
    gemm(a, b, c, n, nt); /* warm caches and page tables once, untimed */
    memcpy(dst, src, CANARY_COPY_BYTES);
    for (int r = 0; r < CANARY_REPS; r++) {
        double t0 = now_ms();
        gemm(a, b, c, n, nt);
        double t1 = now_ms();
        memcpy(dst, src, CANARY_COPY_BYTES);
        __asm__ __volatile__("" : : "r"(dst) : "memory"); /* the copy is not dead */
        double t2 = now_ms();
        tg[r] = t1 - t0;
        tc[r] = t2 - t1;
    }
    out->gemm_ms = median(tg, CANARY_REPS);
    out->copy_ms = median(tc, CANARY_REPS);
    free(a);
    free(b);
    free(c);
    free(src);
    free(dst);
    return 0;
}

int canary_facts(const struct canary *c, struct kvlist *facts)
{
    int err = kvlist_addf(facts, "canary.gemm_ms", "%.6f", c->gemm_ms);
    if (!err)
        err = kvlist_addf(facts, "canary.copy_ms", "%.6f", c->copy_ms);
    if (!err)
        err = kvlist_addf(facts, "canary.threads", "%d", c->threads);
    return err;
}
