/*
 * gpu.c - GPU, driver, CUDA runtime and cuDNN facts (see gpu.h).
 *
 * Why a forked child for the CUDA runtime: the first CUDA call creates
 * driver state that does not survive fork(), and benchgen's parent forks one
 * worker per cell whose frameworks use CUDA. So only a short-lived child
 * touches libcudart; it writes key=value lines to a pipe and _exits.
 *
 * Why dlopen for NVML and cuDNN: linking them would stop benchgen from even
 * starting where the driver or cuDNN is absent; both are facts to record, not
 * requirements. libcudart, by contrast, is linked statically at build time,
 * because struct cudaDeviceProp changes layout between major versions.
 */
#include "machine/gpu.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef HAVE_CUDA
#define HAVE_CUDA 0
#endif
#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* CUDA initialisation on a machine with many GPUs takes seconds; a driver
 * that hangs must not hang benchgen. */
#define CUDA_PROBE_TIMEOUT_MS 60000

/* ---- CUDA runtime, in a forked child ------------------------------------ */

#if HAVE_CUDA
/* Runs in the child only. Values go out as key=value lines; names are
 * stripped of newlines so the protocol stays line-based. */
static void cuda_child_report(int fd)
{
    int rt = 0, drv = 0, n = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    dprintf(fd, "runtime=%d\ndriver=%d\n", rt, drv);
    cudaError_t e = cudaGetDeviceCount(&n);
    dprintf(fd, "count_error=%d\ncount_error_name=%s\n", (int)e, cudaGetErrorName(e));
    if (e != cudaSuccess)
        n = 0;
    dprintf(fd, "count=%d\n", n);
    for (int i = 0; i < n && i < GPU_MAX_DEVICES; i++) {
        struct cudaDeviceProp p;
        memset(&p, 0, sizeof(p));
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess)
            continue;
        p.name[sizeof(p.name) - 1] = '\0';
        for (char *c = p.name; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        int sm_khz = 0, mem_khz = 0;
        /* cudaDeviceProp lost clockRate/memoryClockRate in CUDA 13. */
        cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, i);
        cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, i);
        const unsigned char *u = (const unsigned char *)p.uuid.bytes;
        dprintf(fd, "dev.%d.name=%s\ndev.%d.cc=%d.%d\ndev.%d.mem=%llu\ndev.%d.sms=%d\n", i, p.name, i,
                p.major, p.minor, i, (unsigned long long)p.totalGlobalMem, i, p.multiProcessorCount);
        dprintf(fd, "dev.%d.sm_khz=%d\ndev.%d.mem_khz=%d\ndev.%d.pci=%04x:%02x:%02x.0\n", i, sm_khz, i,
                mem_khz, i, (unsigned)p.pciDomainID, (unsigned)p.pciBusID, (unsigned)p.pciDeviceID);
        dprintf(fd, "dev.%d.uuid=GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
                i, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                u[14], u[15]);
    }
    dprintf(fd, "end=1\n");
}

static void cuda_parse_line(struct gpu_facts *f, char *line, bool *ended)
{
    char *eq = strchr(line, '=');
    if (!eq)
        return;
    *eq = '\0';
    const char *k = line, *v = eq + 1;
    if (strcmp(k, "runtime") == 0)
        f->runtime_version = atoi(v);
    else if (strcmp(k, "driver") == 0)
        f->driver_cuda_version = atoi(v);
    else if (strcmp(k, "count_error") == 0)
        f->count_error = atoi(v);
    else if (strcmp(k, "count_error_name") == 0)
        snprintf(f->count_error_name, sizeof(f->count_error_name), "%s", v);
    else if (strcmp(k, "count") == 0)
        f->count = atoi(v);
    else if (strcmp(k, "end") == 0)
        *ended = true;
    else if (strncmp(k, "dev.", 4) == 0) {
        char *field = NULL;
        long i = strtol(k + 4, &field, 10);
        if (i < 0 || i >= GPU_MAX_DEVICES || !field || *field != '.')
            return;
        struct gpu_device *d = &f->dev[i];
        field++;
        if (strcmp(field, "name") == 0)
            snprintf(d->name, sizeof(d->name), "%s", v);
        else if (strcmp(field, "cc") == 0)
            sscanf(v, "%d.%d", &d->cc_major, &d->cc_minor);
        else if (strcmp(field, "mem") == 0)
            d->mem_bytes = strtoull(v, NULL, 10);
        else if (strcmp(field, "sms") == 0)
            d->sm_count = atoi(v);
        else if (strcmp(field, "sm_khz") == 0)
            d->sm_clock_khz = atoi(v);
        else if (strcmp(field, "mem_khz") == 0)
            d->mem_clock_khz = atoi(v);
        else if (strcmp(field, "pci") == 0)
            snprintf(d->pci_bus_id, sizeof(d->pci_bus_id), "%s", v);
        else if (strcmp(field, "uuid") == 0)
            snprintf(d->uuid, sizeof(d->uuid), "%s", v);
    }
}

static void describe_wait_status(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, len, "ended with wait status %d", status);
}
#endif /* HAVE_CUDA */

static int cuda_probe_real(struct gpu_facts *f)
{
#if !HAVE_CUDA
    f->cuda_linked = false;
    return 0;
#else
    f->cuda_linked = true;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        snprintf(f->cuda_probe_error, sizeof(f->cuda_probe_error), "pipe: %s", strerror(errno));
        return 0;
    }
    fflush(NULL); /* or the child's exit path could repeat our buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(f->cuda_probe_error, sizeof(f->cuda_probe_error), "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        close(fds[0]);
        cuda_child_report(fds[1]);
        _exit(0);
    }
    close(fds[1]);

    struct strbuf sb = {0};
    bool timed_out = false;
    int64_t deadline = util_now_ns() + (int64_t)CUDA_PROBE_TIMEOUT_MS * 1000000;
    for (;;) {
        int64_t left_ms = (deadline - util_now_ns()) / 1000000;
        if (left_ms <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        int r = poll(&pfd, 1, (int)left_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            timed_out = r == 0;
            break;
        }
        char buf[4096];
        ssize_t n = read(fds[0], buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (strbuf_append(&sb, buf, (size_t)n) < 0)
            break;
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;

    bool ended = false;
    char *save = NULL;
    for (char *line = sb.buf ? strtok_r(sb.buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
        cuda_parse_line(f, line, &ended);
    strbuf_free(&sb);
    if (f->count > GPU_MAX_DEVICES)
        f->count = GPU_MAX_DEVICES;

    if (ended) {
        f->cuda_probed = true;
    } else if (timed_out) {
        snprintf(f->cuda_probe_error, sizeof(f->cuda_probe_error),
                 "the CUDA probe process did not answer within %d s", CUDA_PROBE_TIMEOUT_MS / 1000);
    } else {
        char how[96];
        describe_wait_status(status, how, sizeof(how));
        snprintf(f->cuda_probe_error, sizeof(f->cuda_probe_error), "the CUDA probe process %s", how);
    }
    return 0;
#endif
}

/* ---- NVML, through dlopen ----------------------------------------------- */

typedef int nvml_ret; /* nvmlReturn_t; 0 == NVML_SUCCESS */
typedef struct nvmlDevice_st *nvml_dev;

static int nvml_probe_real(struct gpu_facts *f)
{
    const char *override = getenv("BENCHGEN_NVML_LIB"); /* tests: a fake NVML (machine/nvml.h) */
    void *lib = dlopen(override && *override ? override : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(f->nvml_error, sizeof(f->nvml_error), "%s", why ? why : "libnvidia-ml.so.1 not found");
        return 0;
    }
    nvml_ret (*init)(void) = NULL, (*shutdown)(void) = NULL;
    nvml_ret (*driver_version)(char *, unsigned) = NULL;
    nvml_ret (*count)(unsigned *) = NULL, (*cuda_version)(int *) = NULL;
    nvml_ret (*by_index)(unsigned, nvml_dev *) = NULL;
    nvml_ret (*dev_name)(nvml_dev, char *, unsigned) = NULL;
    nvml_ret (*dev_uuid)(nvml_dev, char *, unsigned) = NULL;
    const char *(*err_str)(nvml_ret) = NULL;
    /* nvml.h #defines the unsuffixed names to the _v2 symbols. */
    *(void **)&init = dlsym(lib, "nvmlInit_v2");
    *(void **)&shutdown = dlsym(lib, "nvmlShutdown");
    *(void **)&driver_version = dlsym(lib, "nvmlSystemGetDriverVersion");
    *(void **)&count = dlsym(lib, "nvmlDeviceGetCount_v2");
    *(void **)&by_index = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void **)&dev_name = dlsym(lib, "nvmlDeviceGetName");
    *(void **)&dev_uuid = dlsym(lib, "nvmlDeviceGetUUID");
    *(void **)&err_str = dlsym(lib, "nvmlErrorString");
    *(void **)&cuda_version = dlsym(lib, "nvmlSystemGetCudaDriverVersion_v2"); /* optional */
    if (!init || !shutdown || !driver_version || !count || !by_index || !dev_name) {
        snprintf(f->nvml_error, sizeof(f->nvml_error), "libnvidia-ml.so.1 lacks the expected symbols");
        goto done;
    }
    nvml_ret r = init();
    if (r != 0) {
        snprintf(f->nvml_error, sizeof(f->nvml_error), "nvmlInit failed: %s (%d)",
                 err_str ? err_str(r) : "error", r);
        goto done;
    }
    f->nvml_ok = true;
    if (driver_version(f->driver_version, sizeof(f->driver_version)) != 0)
        f->driver_version[0] = '\0';
    if (!cuda_version || cuda_version(&f->nvml_cuda_version) != 0)
        f->nvml_cuda_version = 0;
    unsigned n = 0;
    if (count(&n) == 0) {
        f->nvml_count = n > GPU_MAX_DEVICES ? GPU_MAX_DEVICES : (int)n;
        for (int i = 0; i < f->nvml_count; i++) {
            nvml_dev d = NULL;
            if (by_index((unsigned)i, &d) != 0 || dev_name(d, f->nvml_name[i], sizeof(f->nvml_name[i])) != 0)
                f->nvml_name[i][0] = '\0';
            if (!d || !dev_uuid || dev_uuid(d, f->nvml_uuid[i], sizeof(f->nvml_uuid[i])) != 0)
                f->nvml_uuid[i][0] = '\0';
        }
    }
    shutdown();
done:
    dlclose(lib);
    return 0;
}

/* ---- cuDNN, through dlopen ---------------------------------------------- */

static int cudnn_probe_real(struct gpu_facts *f)
{
    static const char *const sonames[] = {"libcudnn.so.9", "libcudnn.so.8"};
    /* The CUDA toolkit's lib dirs are often not in the loader's path. */
    static const char *const dirs[] = {"/usr/local/cuda/lib64", "/usr/local/cuda/lib",
                                       "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"};
    void *lib = NULL;
    const char *cuda_home = getenv("CUDA_HOME");
    for (size_t s = 0; !lib && s < sizeof(sonames) / sizeof(sonames[0]); s++) {
        lib = dlopen(sonames[s], RTLD_NOW | RTLD_LOCAL);
        char path[512];
        if (!lib && cuda_home && *cuda_home) {
            snprintf(path, sizeof(path), "%s/lib64/%s", cuda_home, sonames[s]);
            lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
        for (size_t d = 0; !lib && d < sizeof(dirs) / sizeof(dirs[0]); d++) {
            snprintf(path, sizeof(path), "%s/%s", dirs[d], sonames[s]);
            lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (!lib)
        return 0;
    size_t (*get_version)(void) = NULL, (*get_cudart)(void) = NULL;
    *(void **)&get_version = dlsym(lib, "cudnnGetVersion");
    *(void **)&get_cudart = dlsym(lib, "cudnnGetCudartVersion");
    if (get_version) {
        f->cudnn_version = get_version();
        Dl_info info;
        if (dladdr((void *)get_version, &info) && info.dli_fname)
            snprintf(f->cudnn_library, sizeof(f->cudnn_library), "%s", info.dli_fname);
    }
    if (get_cudart)
        f->cudnn_cudart = get_cudart();
    dlclose(lib);
    return 0;
}

/* ---- the table ------------------------------------------------------------ */

static const struct gpu_ops real_ops = {cuda_probe_real, nvml_probe_real, cudnn_probe_real};
static struct gpu_ops ops = {cuda_probe_real, nvml_probe_real, cudnn_probe_real};

static int nvml_count_cache = -1; /* gpu_nvml_count(); -1: not asked yet */

void gpu_set_ops(const struct gpu_ops *o)
{
    ops = o ? *o : real_ops;
    nvml_count_cache = -1;
}

int gpu_collect(struct gpu_facts *f)
{
    memset(f, 0, sizeof(*f));
    int err;
    if (ops.cuda && (err = ops.cuda(f)) < 0)
        return err;
    if (ops.nvml && (err = ops.nvml(f)) < 0)
        return err;
    if (ops.cudnn && (err = ops.cudnn(f)) < 0)
        return err;
    return 0;
}

int gpu_collect_nvml(struct gpu_facts *f)
{
    memset(f, 0, sizeof(*f));
    return ops.nvml ? ops.nvml(f) : 0;
}

int gpu_nvml_count(void)
{
    if (nvml_count_cache < 0) {
        struct gpu_facts *f = xcalloc(1, sizeof(*f));
        nvml_count_cache = gpu_collect_nvml(f) == 0 && f->nvml_ok ? f->nvml_count : 0;
        free(f);
    }
    return nvml_count_cache;
}

/* ---- formatting ----------------------------------------------------------- */

const char *gpu_cuda_version_str(int v, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
    return buf;
}

const char *gpu_cudnn_version_str(size_t v, char *buf, size_t len)
{
    /* cuDNN 9 encodes MAJOR*10000 + MINOR*100 + PATCH; 8 and older MAJOR*1000. */
    size_t major = v >= 90000 ? v / 10000 : v / 1000;
    size_t rest = v >= 90000 ? v % 10000 : v % 1000;
    snprintf(buf, len, "%zu.%zu.%zu", major, rest / 100, rest % 100);
    return buf;
}

/* "NVIDIA H200 (compute capability 9.0, 139.8 GiB, 132 SMs)" */
static int describe_device(struct strbuf *sb, const struct gpu_device *d)
{
    return strbuf_printf(sb, "%s (compute capability %d.%d, %.1f GiB, %d SMs)", d->name, d->cc_major,
                         d->cc_minor, (double)d->mem_bytes / (1024.0 * 1024.0 * 1024.0), d->sm_count);
}

static int format_status(const struct gpu_facts *f, int count, struct strbuf *sb)
{
    char rt[32], drv[32];
    int err = 0;
    if (f->cuda_linked)
        gpu_cuda_version_str(f->runtime_version, rt, sizeof(rt));

    if (f->cuda_linked && f->cuda_probed && count > 0) {
        bool same = true;
        for (int i = 1; i < count; i++)
            if (strcmp(f->dev[i].name, f->dev[0].name) != 0 || f->dev[i].mem_bytes != f->dev[0].mem_bytes)
                same = false;
        if ((err = strbuf_printf(sb, "%d GPU%s: ", count, count == 1 ? "" : "s")) < 0)
            return err;
        if (same && count > 1 && (err = strbuf_printf(sb, "%d x ", count)) < 0)
            return err;
        for (int i = 0; i < (same ? 1 : count); i++) {
            if (i > 0 && (err = strbuf_puts(sb, "; ")) < 0)
                return err;
            if ((err = describe_device(sb, &f->dev[i])) < 0)
                return err;
        }
        if (f->driver_version[0] && (err = strbuf_printf(sb, "; driver %s", f->driver_version)) < 0)
            return err;
        if (f->driver_cuda_version > 0 &&
            (err = strbuf_printf(sb, "%s CUDA %s", f->driver_version[0] ? " for" : "; driver for",
                                 gpu_cuda_version_str(f->driver_cuda_version, drv, sizeof(drv)))) < 0)
            return err;
        return strbuf_printf(sb, "; CUDA runtime %s linked statically", rt);
    }

    if (!f->cuda_linked) {
        if (f->nvml_ok && f->nvml_count > 0) {
            if ((err = strbuf_printf(sb, "%d GPU%s seen by NVML: ", f->nvml_count,
                                     f->nvml_count == 1 ? "" : "s")) < 0)
                return err;
            for (int i = 0; i < f->nvml_count; i++)
                if ((err = strbuf_printf(sb, "%s%s", i ? ", " : "", f->nvml_name[i])) < 0)
                    return err;
            return strbuf_printf(sb,
                                 "; driver %s; benchgen was built without the CUDA runtime, so device "
                                 "properties and C-side GPU timing are unavailable (rebuild with the "
                                 "CUDA toolkit installed)",
                                 f->driver_version[0] ? f->driver_version : "unknown");
        }
        return strbuf_printf(sb,
                             "no GPU information: benchgen was built without the CUDA runtime (no CUDA "
                             "toolkit at build time, or USE_CUDA=no) and NVML is unavailable (%s)",
                             f->nvml_error[0] ? f->nvml_error : "no devices");
    }

    if (!f->cuda_probed)
        return strbuf_printf(sb, "no GPU information: %s; CUDA runtime linked statically",
                             f->cuda_probe_error[0] ? f->cuda_probe_error : "the CUDA probe failed");

    const char *ename = f->count_error_name[0] ? f->count_error_name : "cudaSuccess";
    if (f->count_error == 35 && f->driver_cuda_version <= 0)
        return strbuf_printf(sb, "no GPU: no NVIDIA driver is loaded (%s); CUDA runtime %s linked statically",
                             ename, rt);
    if (f->count_error == 35)
        return strbuf_printf(sb,
                             "no usable GPU: the NVIDIA driver supports CUDA up to %s but benchgen links "
                             "CUDA runtime %s (%s); update the driver or rebuild benchgen with an older "
                             "CUDA toolkit",
                             gpu_cuda_version_str(f->driver_cuda_version, drv, sizeof(drv)), rt, ename);
    if (f->count_error == 100)
        return strbuf_printf(sb,
                             "no GPU: the NVIDIA driver is loaded but reports no CUDA device (%s; check "
                             "CUDA_VISIBLE_DEVICES); CUDA runtime %s linked statically",
                             ename, rt);
    if (f->count_error != 0)
        return strbuf_printf(sb,
                             "no usable GPU: cudaGetDeviceCount failed with %s (%d); CUDA runtime %s "
                             "linked statically",
                             ename, f->count_error, rt);
    return strbuf_printf(sb, "no GPU: the CUDA runtime reports 0 devices; CUDA runtime %s linked statically",
                         rt);
}

int gpu_format(const struct gpu_facts *f, struct kvlist *out)
{
    struct strbuf status = {0};
    char key[64], v[32], dnn[32];
    int err = 0;
    bool have_cuda_devices = f->cuda_linked && f->cuda_probed && f->count_error == 0 && f->count > 0;
    int count = have_cuda_devices ? f->count : (!f->cuda_linked && f->nvml_ok ? f->nvml_count : 0);
    if (count > GPU_MAX_DEVICES)
        count = GPU_MAX_DEVICES;

#define ADD(k, ...)                                                                                          \
    do {                                                                                                     \
        if ((err = kvlist_addf(out, k, __VA_ARGS__)) < 0)                                                    \
            goto done;                                                                                       \
    } while (0)

    ADD("gpu.count", "%d", count);
    for (int i = 0; i < count; i++) {
        if (!have_cuda_devices) {
            snprintf(key, sizeof(key), "gpu.%d.name", i);
            ADD(key, "%s", f->nvml_name[i]);
            continue;
        }
        const struct gpu_device *d = &f->dev[i];
        snprintf(key, sizeof(key), "gpu.%d.name", i);
        ADD(key, "%s", d->name);
        snprintf(key, sizeof(key), "gpu.%d.compute_capability", i);
        ADD(key, "%d.%d", d->cc_major, d->cc_minor);
        snprintf(key, sizeof(key), "gpu.%d.memory_bytes", i);
        ADD(key, "%llu", d->mem_bytes);
        snprintf(key, sizeof(key), "gpu.%d.sm_count", i);
        ADD(key, "%d", d->sm_count);
        if (d->sm_clock_khz > 0) {
            snprintf(key, sizeof(key), "gpu.%d.sm_clock_khz", i);
            ADD(key, "%d", d->sm_clock_khz);
        }
        if (d->mem_clock_khz > 0) {
            snprintf(key, sizeof(key), "gpu.%d.mem_clock_khz", i);
            ADD(key, "%d", d->mem_clock_khz);
        }
        if (d->pci_bus_id[0]) {
            snprintf(key, sizeof(key), "gpu.%d.pci_bus_id", i);
            ADD(key, "%s", d->pci_bus_id);
        }
        if (d->uuid[0]) {
            snprintf(key, sizeof(key), "gpu.%d.uuid", i);
            ADD(key, "%s", d->uuid);
        }
    }
    if (f->driver_version[0])
        ADD("gpu.driver", "%s", f->driver_version);
    ADD("nvml.status", "%s", f->nvml_ok ? "ok" : (f->nvml_error[0] ? f->nvml_error : "unavailable"));
    ADD("cuda.linked", "%s", f->cuda_linked ? "static" : "no");
    if (f->cuda_linked && f->runtime_version > 0)
        ADD("cuda.runtime", "%s", gpu_cuda_version_str(f->runtime_version, v, sizeof(v)));
    if (f->cuda_linked && f->cuda_probed)
        ADD("cuda.driver", "%s",
            f->driver_cuda_version > 0 ? gpu_cuda_version_str(f->driver_cuda_version, v, sizeof(v)) : "none");
    if (f->cudnn_version > 0) {
        ADD("cudnn.version", "%s", gpu_cudnn_version_str(f->cudnn_version, dnn, sizeof(dnn)));
        if (f->cudnn_cudart > 0)
            ADD("cudnn.cudart", "%s", gpu_cuda_version_str((int)f->cudnn_cudart, v, sizeof(v)));
        if (f->cudnn_library[0])
            ADD("cudnn.library", "%s", f->cudnn_library);
    } else {
        ADD("cudnn.version", "%s", "not found");
    }
    if ((err = format_status(f, count, &status)) < 0)
        goto done;
    if (f->cudnn_version > 0 && (err = strbuf_printf(&status, "; cuDNN %s", dnn)) < 0)
        goto done;
    ADD("gpu.status", "%s", status.buf);
#undef ADD
done:
    strbuf_free(&status);
    return err;
}

int gpu_describe(struct kvlist *out)
{
    struct gpu_facts *f = xcalloc(1, sizeof(*f)); /* ~8 KiB: keep it off small stacks */
    int err = gpu_collect(f);
    if (!err)
        err = gpu_format(f, out);
    free(f);
    return err;
}

/* ---- the devices a cell may be given ---------------------------------------- */

int gpu_entry_index(const struct gpu_facts *f, const char *entry)
{
    if (!f->nvml_ok || !*entry)
        return -1;
    char *end;
    long i = strtol(entry, &end, 10);
    if (end != entry && !*end)
        return i >= 0 && i < f->nvml_count ? (int)i : -1;
    if (strncmp(entry, "GPU-", 4) != 0)
        return -1;
    int found = -1;
    for (int d = 0; d < f->nvml_count; d++) {
        if (f->nvml_uuid[d][0] && strncmp(f->nvml_uuid[d], entry, strlen(entry)) == 0) {
            if (found >= 0)
                return -1; /* a prefix of two UUIDs names neither */
            found = d;
        }
    }
    return found;
}

int gpu_allowed(struct strlist *out, const struct gpu_facts *f, const char *inherited)
{
    if (!inherited) {
        for (int i = 0; f->nvml_ok && i < f->nvml_count; i++) {
            char v[16];
            snprintf(v, sizeof(v), "%d", i);
            strlist_add(out, v);
        }
        return 0;
    }
    if (!*inherited || strcmp(inherited, "-1") == 0 || strcmp(inherited, "NoDevFiles") == 0)
        return 0;
    for (const char *p = inherited; *p;) {
        size_t n = strcspn(p, ",");
        char entry[128];
        snprintf(entry, sizeof(entry), "%.*s", (int)(n < sizeof(entry) ? n : sizeof(entry) - 1), p);
        if (!entry[0] || n >= sizeof(entry))
            return error_set(BG_EUSAGE, "CUDA_VISIBLE_DEVICES=%s: an empty or overlong entry", inherited);
        bool mig = strncmp(entry, "MIG-", 4) == 0;
        if (!mig && f->nvml_ok && f->nvml_count > 0 && gpu_entry_index(f, entry) < 0)
            return error_set(BG_EUSAGE,
                             "CUDA_VISIBLE_DEVICES=%s: '%s' is none of the %d GPU(s) NVML sees here (an index "
                             "0-%d or a UUID \"GPU-...\")", inherited, entry, f->nvml_count, f->nvml_count - 1);
        if (!strlist_contains(out, entry))
            strlist_add(out, entry);
        p += n;
        if (*p)
            p++;
    }
    return 0;
}
