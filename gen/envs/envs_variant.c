/*
 * envs_variant.c - choosing an environment's CPU or CUDA variant (see
 * envs_variant.h).
 *
 * Why NVML and not the CUDA runtime: NVML creates no CUDA context and needs
 * no fork, so resolving a name stays cheap; it is what `info` reads too
 * (machine/gpu.h), and tests fake it (BENCHGEN_NVML_LIB, tests/fake/fake_nvml.c).
 */
#include "envs/envs_variant.h"
#include "machine/gpu.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum envs_want forced_want = ENVS_WANT_AUTO;
static int forced_major;

void envs_variant_set(enum envs_want want, int major)
{
    forced_want = want;
    forced_major = want == ENVS_WANT_CUDA ? major : 0;
}

int envs_variant_min_driver(int major) { return major >= 13 ? 580 : major == 12 ? 525 : major == 11 ? 450 : 0; }

/* The CUDA major a driver branch supports, when NVML cannot say. */
static int major_of_driver(const char *driver)
{
    int branch = atoi(driver);
    for (int m = 13; m >= 11; m--)
        if (branch >= envs_variant_min_driver(m))
            return m;
    return 0;
}

const struct envs_gpu *envs_variant_gpu(void)
{
    static struct envs_gpu g;
    static char probed_for[512] = "\1"; /* the BENCHGEN_NVML_LIB it was probed with */
    const char *lib = getenv("BENCHGEN_NVML_LIB");
    if (strcmp(probed_for, lib ? lib : "") == 0)
        return &g;
    snprintf(probed_for, sizeof(probed_for), "%s", lib ? lib : "");
    memset(&g, 0, sizeof(g));
    struct gpu_facts *f = xcalloc(1, sizeof(*f));
    gpu_collect_nvml(f);
    if (!f->nvml_ok || f->nvml_count <= 0) {
        snprintf(g.why, sizeof(g.why), "no NVIDIA GPU (NVML: %s)",
                 f->nvml_ok ? "no devices" : f->nvml_error[0] ? f->nvml_error : "unavailable");
    } else {
        g.gpus = f->nvml_count;
        snprintf(g.driver, sizeof(g.driver), "%s", f->driver_version);
        g.cuda_major = f->nvml_cuda_version ? f->nvml_cuda_version / 1000 : major_of_driver(g.driver);
        char v[32];
        if (f->nvml_cuda_version)
            snprintf(v, sizeof(v), "%d.%d", f->nvml_cuda_version / 1000, (f->nvml_cuda_version % 1000) / 10);
        else
            snprintf(v, sizeof(v), "%d", g.cuda_major);
        snprintf(g.why, sizeof(g.why), "%d NVIDIA GPU%s, driver %s for CUDA %s", g.gpus, g.gpus == 1 ? "" : "s",
                 g.driver[0] ? g.driver : "?", g.cuda_major ? v : "?");
    }
    free(f);
    return &g;
}

/* The major of a CUDA lock's file name "NAME-cuN.txt"; 0 when it is not one. */
static int lock_major(const char *name, const char *file)
{
    size_t n = strlen(name);
    if (strncmp(file, name, n) != 0 || strncmp(file + n, "-cu", 3) != 0)
        return 0;
    char *end = NULL;
    long m = strtol(file + n + 3, &end, 10);
    return end && strcmp(end, ".txt") == 0 && m > 0 && m < 100 ? (int)m : 0;
}

/* NAME's CUDA locks, newest major first; majors[i] beside locks->v[i]. */
static int cuda_locks(const char *name, struct strlist *locks, int majors[16])
{
    char *dir = xprintf("%s/data/envs/cuda", util_home_dir());
    DIR *d = opendir(dir);
    int found[16] = {0}, n = 0, err = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && n < 16)
            if ((found[n] = lock_major(name, e->d_name)) > 0)
                n++;
        closedir(d);
    }
    for (int i = 0; i < n; i++) /* newest first */
        for (int j = i + 1; j < n; j++)
            if (found[j] > found[i]) {
                int t = found[i];
                found[i] = found[j];
                found[j] = t;
            }
    for (int i = 0; i < n && !err; i++) {
        char *p = xprintf("%s/%s-cu%d.txt", dir, name, found[i]);
        majors[i] = found[i];
        err = strlist_add(locks, p);
        free(p);
    }
    free(dir);
    return err < 0 ? err : n;
}

int envs_variant_all(const char *name, const char *base_lock, struct strlist *locks)
{
    int majors[16];
    int err = strlist_add(locks, base_lock);
    return err < 0 ? err : cuda_locks(name, locks, majors) < 0 ? BG_ENOMEM : 0;
}

void envs_variant_label(const char *name, const char *lock, char out[16])
{
    const char *file = strrchr(lock, '/') ? strrchr(lock, '/') + 1 : lock;
    const char *cu = strstr(file, "-cu");
    char *cuda_dir = xprintf("%s/data/envs/cuda/", util_home_dir());
    bool in_cuda = strncmp(lock, cuda_dir, strlen(cuda_dir)) == 0;
    free(cuda_dir);
    if (in_cuda && cu) {
        int m = atoi(cu + 3);
        snprintf(out, 16, "cu%d", m);
        return;
    }
    struct strlist l = {0};
    int majors[16];
    int n = cuda_locks(name, &l, majors);
    strlist_free(&l);
    snprintf(out, 16, "%s", n > 0 ? "cpu" : "-");
}

/* Reads lock's `# KEY: VALUE` lines into vals (the values). */
static void lock_lines(const char *lock, const char *key, struct strlist *vals)
{
    char *text = NULL;
    if (util_read_file(lock, &text, NULL) < 0)
        return;
    size_t k = strlen(key);
    for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "# ", 2) != 0 || strncmp(line + 2, key, k) != 0 || strncmp(line + 2 + k, ": ", 2) != 0)
            continue;
        const char *v = line + 4 + k;
        size_t n = strcspn(v, "\r\n");
        char *s = xstrndup(v, n);
        strlist_add(vals, s);
        free(s);
    }
    free(text);
}

bool envs_variant_no_deps(const char *lock)
{
    struct strlist v = {0};
    lock_lines(lock, "install", &v);
    bool yes = strlist_contains(&v, "no-deps");
    strlist_free(&v);
    return yes;
}

/* data/envs/cuda/STEM.txt, else data/envs/STEM.txt; NULL when neither. */
static char *stem_lock(const char *stem)
{
    if (!util_is_safe_name(stem))
        return NULL;
    char *p = xprintf("%s/data/envs/cuda/%s.txt", util_home_dir(), stem);
    if (!util_is_file(p)) {
        free(p);
        p = xprintf("%s/data/envs/%s.txt", util_home_dir(), stem);
        if (!util_is_file(p)) {
            free(p);
            p = NULL;
        }
    }
    return p;
}

/* The lock backend runs from when lock sends it elsewhere; NULL otherwise. */
static char *split_for(const char *lock, const char *backend)
{
    struct strlist v = {0};
    char *out = NULL;
    lock_lines(lock, "backend", &v);
    for (size_t i = 0; i < v.n && !out; i++) {
        char b[128], stem[128];
        if (sscanf(v.v[i], "%127s %127s", b, stem) == 2 && backend && strcmp(b, backend) == 0)
            out = stem_lock(stem);
    }
    strlist_free(&v);
    return out;
}

int envs_variant_splits(const char *lock, struct strlist *locks)
{
    struct strlist v = {0};
    int err = 0;
    lock_lines(lock, "backend", &v);
    for (size_t i = 0; i < v.n && !err; i++) {
        char b[128], stem[128];
        char *p = sscanf(v.v[i], "%127s %127s", b, stem) == 2 ? stem_lock(stem) : NULL;
        if (p)
            err = strlist_add_unique(locks, p);
        free(p);
    }
    strlist_free(&v);
    return err;
}

/* The forced variant: --cpu/--cuda, else BENCHGEN_ENV_VARIANT. */
static enum envs_want wanted(int *major)
{
    *major = forced_major;
    if (forced_want != ENVS_WANT_AUTO)
        return forced_want;
    const char *v = getenv("BENCHGEN_ENV_VARIANT");
    if (!v || !*v || strcmp(v, "auto") == 0)
        return ENVS_WANT_AUTO;
    if (strcmp(v, "cpu") == 0)
        return ENVS_WANT_CPU;
    if (strncmp(v, "cuda", 4) == 0) {
        *major = atoi(v + 4);
        return ENVS_WANT_CUDA;
    }
    return ENVS_WANT_AUTO;
}

int envs_variant_candidates(const char *name, const char *base_lock, const char *backend, struct strlist *locks,
                            bool *strict, char **note)
{
    struct strlist cuda = {0}, order = {0};
    int majors[16], major = 0, err = 0;
    enum envs_want want = wanted(&major);
    const struct envs_gpu *g = NULL;
    char *why = NULL;
    int n = cuda_locks(name, &cuda, majors);
    *strict = want != ENVS_WANT_AUTO;
    if (n <= 0) {
        strlist_add(&order, base_lock);
        goto done;
    }
    g = envs_variant_gpu();
    int fit = -1; /* the newest CUDA lock the driver runs (any, without a GPU) */
    for (int i = 0; i < n && fit < 0; i++)
        if ((want == ENVS_WANT_CUDA && major) ? majors[i] == major : (!g->gpus || majors[i] <= g->cuda_major))
            fit = i;
    if (want == ENVS_WANT_CPU) {
        strlist_add(&order, base_lock);
        why = xprintf("the CPU variant (--cpu or BENCHGEN_ENV_VARIANT=cpu)");
    } else if (want == ENVS_WANT_CUDA) {
        if (fit < 0) {
            err = major ? error_set(BG_EUSAGE, "environment %s has no CUDA %d variant (data/envs/cuda/%s-cu%d.txt)",
                                    name, major, name, major)
                        : error_set(BG_EUSAGE,
                                    "environment %s: this machine has %s, older than every CUDA variant of %s "
                                    "(the oldest needs CUDA %d, driver R%d or newer): update the driver, or run "
                                    "its CPU variant (--cpu)",
                                    name, g->why, name, majors[n - 1], envs_variant_min_driver(majors[n - 1]));
            goto done;
        }
        strlist_add(&order, cuda.v[fit]);
        why = xprintf("the CUDA %d variant (forced; this machine: %s)", majors[fit], g->why);
    } else if (g->gpus && fit >= 0) {
        for (int i = fit; i < n; i++)
            strlist_add(&order, cuda.v[i]);
        strlist_add(&order, base_lock);
        why = xprintf("the CUDA %d variant (%s; --cpu builds the CPU one)", majors[fit], g->why);
    } else if (g->gpus) {
        strlist_add(&order, base_lock);
        why = xprintf("the CPU variant: %s, older than its CUDA variants need (CUDA %d, driver R%d)", g->why,
                      majors[n - 1], envs_variant_min_driver(majors[n - 1]));
    } else {
        strlist_add(&order, base_lock);
        for (int i = 0; i < n; i++)
            strlist_add(&order, cuda.v[i]);
        why = xprintf("the CPU variant (%s; --cuda builds the CUDA one)", g->why);
    }
done:
    for (size_t i = 0; i < order.n && !err; i++) {
        char *to = split_for(order.v[i], backend);
        err = strlist_add_unique(locks, to ? to : order.v[i]);
        free(to);
    }
    if (note && !err)
        *note = why ? why : NULL;
    else
        free(why);
    strlist_free(&cuda);
    strlist_free(&order);
    return err;
}
