/*
 * sysinfo.c - what a run was measured on (see sysinfo.h).
 *
 * Everything is read from files and system calls; nothing here starts
 * Python or initialises CUDA (the GPU part is gpu.c's forked probe). The CPU
 * flags and environment variables recorded are the ones that change numerics
 * or speed, so two runs whose numbers differ can be told apart.
 */
#include "run/sysinfo.h"
#include "envs/envs.h"
#include "base/error.h"
#include "run/calibrate.h"
#include "machine/gpu.h"
#include "base/version.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>


/* Flags that select different kernels in oneDNN, XLA, PyTorch and NumPy's
 * BLAS, so they change speed and sometimes rounding. */
static const char *const cpu_flags[] = {"avx2",        "fma",         "avx512f",  "avx512_vnni",
                                        "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_int8"};

/* Variables that change thread counts, precision or backend choice. */
static const char *const numeric_env[] = {"OMP_NUM_THREADS",       "MKL_NUM_THREADS",
                                          "OPENBLAS_NUM_THREADS",  "OPENBLAS_CORETYPE",
                                          "CUDA_VISIBLE_DEVICES",  "NVIDIA_TF32_OVERRIDE",
                                          "TF_ENABLE_ONEDNN_OPTS", "XLA_FLAGS",
                                          "TF_XLA_FLAGS",          "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
                                          "JAX_ENABLE_X64",        "JAX_DEFAULT_MATMUL_PRECISION",
                                          "KERAS_BACKEND"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Value of KEY=value in an os-release file, unquoted, into buf. */
static bool os_release_get(const char *text, const char *key, char *buf, size_t len)
{
    size_t klen = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, klen) != 0 || line[klen] != '=')
            continue;
        const char *v = line + klen + 1;
        size_t n = strcspn(v, "\n");
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v++;
            n -= 2;
        }
        snprintf(buf, len, "%.*s", (int)n, v);
        return true;
    }
    return false;
}

static int collect_os(struct kvlist *out)
{
    int err = 0;
    char *text = NULL;
    char buf[256];
    const char *osr = util_is_file("/etc/os-release") ? "/etc/os-release" : "/usr/lib/os-release";
    if (util_is_file(osr) && util_read_file(osr, &text, NULL) < 0)
        text = NULL;
    if (text && os_release_get(text, "PRETTY_NAME", buf, sizeof(buf)))
        err = kvlist_add(out, "os.name", buf);
    else if (text && os_release_get(text, "NAME", buf, sizeof(buf)))
        err = kvlist_add(out, "os.name", buf);
    else
        err = kvlist_add(out, "os.name", "unknown");
    if (!err && text && os_release_get(text, "VERSION_ID", buf, sizeof(buf)))
        err = kvlist_add(out, "os.release", buf);
    free(text);
    if (err)
        return err;

    struct utsname u;
    if (uname(&u) == 0) {
        if ((err = kvlist_add(out, "os.kernel", u.release)) < 0 ||
            (err = kvlist_add(out, "os.kernel_version", u.version)) < 0 ||
            (err = kvlist_add(out, "os.arch", u.machine)) < 0)
            return err;
    }
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1) == 0)
        err = kvlist_add(out, "os.hostname", host);
    return err;
}

static int collect_cpu(struct kvlist *out)
{
    int err = 0;
    char *text = NULL;
    if (util_read_file("/proc/cpuinfo", &text, NULL) < 0)
        text = NULL; /* not Linux /proc: record what sysconf knows */
    char model[256] = "unknown";
    const char *flags_line = NULL;
    size_t flags_len = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (strncmp(line, "model name", 10) == 0 && strcmp(model, "unknown") == 0) {
            const char *colon = memchr(line, ':', n);
            if (colon) {
                snprintf(model, sizeof(model), "%.*s", (int)(n - (size_t)(colon + 1 - line)), colon + 1);
                char *t = trim(model);
                memmove(model, t, strlen(t) + 1);
            }
        } else if (!flags_line && (strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0)) {
            const char *colon = memchr(line, ':', n);
            if (colon) {
                flags_line = colon + 1;
                flags_len = n - (size_t)(colon + 1 - line);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    if ((err = kvlist_add(out, "cpu.model", model)) < 0)
        goto done;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if ((err = kvlist_addf(out, "cpu.cores", "%ld", online > 0 ? online : 1)) < 0)
        goto done;
    /* A container or taskset can give benchgen fewer CPUs than are online. */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 &&
        (err = kvlist_addf(out, "cpu.affinity", "%d", CPU_COUNT(&set))) < 0)
        goto done;
    for (size_t i = 0; i < COUNT(cpu_flags); i++) {
        bool have = false;
        size_t fl = strlen(cpu_flags[i]);
        for (const char *p = flags_line; p && p < flags_line + flags_len;) {
            while (p < flags_line + flags_len && *p == ' ')
                p++;
            size_t w = 0;
            while (p + w < flags_line + flags_len && p[w] != ' ')
                w++;
            if (w == fl && strncmp(p, cpu_flags[i], fl) == 0) {
                have = true;
                break;
            }
            p += w;
            if (w == 0)
                break;
        }
        char key[64];
        snprintf(key, sizeof(key), "cpu.flags.%s", cpu_flags[i]);
        if ((err = kvlist_add(out, key, have ? "1" : "0")) < 0)
            goto done;
    }
    const char *gov_path = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor";
    char *gov = NULL;
    if (util_is_file(gov_path) && util_read_file(gov_path, &gov, NULL) == 0)
        err = kvlist_add(out, "cpu.governor", trim(gov));
    free(gov);
done:
    free(text);
    return err;
}

unsigned long long sysinfo_mem_total(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    return (unsigned long long)pages * (unsigned long long)page;
}

static int collect_mem(struct kvlist *out)
{
    int err = kvlist_addf(out, "mem.total_bytes", "%llu", sysinfo_mem_total());
    if (err)
        return err;
    /* cgroup v2 limit: what a container actually lets benchgen use. */
    const char *lim_path = "/sys/fs/cgroup/memory.max";
    char *lim = NULL;
    if (util_is_file(lim_path) && util_read_file(lim_path, &lim, NULL) == 0) {
        char *v = trim(lim);
        if (*v && isdigit((unsigned char)*v)) /* "max" means no limit */
            err = kvlist_add(out, "mem.cgroup_limit_bytes", v);
    }
    free(lim);
    return err;
}

int sysinfo_gpu(struct kvlist *out) { return gpu_describe(out); }

int sysinfo_collect(struct kvlist *out)
{
    int err;
    if ((err = collect_os(out)) < 0 || (err = collect_cpu(out)) < 0 || (err = collect_mem(out)) < 0)
        return err;
    if ((err = kvlist_add(out, "benchgen.version", BENCHGEN_VERSION)) < 0 ||
        (err = kvlist_add(out, "benchgen.git_commit", BENCHGEN_GIT_COMMIT)) < 0 ||
        (err = kvlist_addf(out, "benchgen.git_dirty", "%d", BENCHGEN_GIT_DIRTY ? 1 : 0)) < 0 ||
        (err = kvlist_add(out, "python.base", envs_base_python_version())) < 0 ||
        (err = calibrate_describe(out)) < 0) /* the CPU peak for MFU, when measured */
        return err;
    for (size_t i = 0; i < COUNT(numeric_env); i++) {
        const char *v = getenv(numeric_env[i]);
        if (!v)
            continue;
        char key[80];
        snprintf(key, sizeof(key), "env.%s", numeric_env[i]);
        if ((err = kvlist_add(out, key, v)) < 0)
            return err;
    }
    return sysinfo_gpu(out);
}
