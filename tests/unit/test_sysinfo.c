/*
 * test_sysinfo.c - host facts and GPU facts: the keys a run records are
 * there and plausible, numerics-relevant environment variables are captured,
 * and the GPU sentences are right for every case, through fake probes
 * (gpu_set_ops) so the "GPU present" path is tested on a machine without one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "envs/envs.h"
#include "machine/gpu.h"
#include "run/sysinfo.h"
#include "base/error.h"
#include "base/util.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- real host ------------------------------------------------------------ */

static void test_collect_keys(void **state)
{
    (void)state;
    struct kvlist kl = {0};
    assert_int_equal(sysinfo_collect(&kl), 0);
    static const char *const required[] = {"os.name",
                                           "os.kernel",
                                           "os.arch",
                                           "os.hostname",
                                           "cpu.model",
                                           "cpu.cores",
                                           "cpu.flags.avx2",
                                           "cpu.flags.avx512_bf16",
                                           "cpu.flags.amx_bf16",
                                           "mem.total_bytes",
                                           "benchgen.version",
                                           "benchgen.git_commit",
                                           "benchgen.git_dirty",
                                           "python.base",
                                           "gpu.count",
                                           "gpu.status",
                                           "cuda.linked",
                                           "cudnn.version",
                                           "nvml.status"};
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        const char *v = kvlist_get(&kl, required[i]);
        if (!v || !*v)
            fail_msg("key %s missing or empty", required[i]);
    }
    assert_true(atol(kvlist_get(&kl, "cpu.cores")) >= 1);
    unsigned long long mem = strtoull(kvlist_get(&kl, "mem.total_bytes"), NULL, 10);
    assert_true(mem > 0);
    assert_true(mem == sysinfo_mem_total());
    const char *dirty = kvlist_get(&kl, "benchgen.git_dirty");
    assert_true(strcmp(dirty, "0") == 0 || strcmp(dirty, "1") == 0);
    const char *flag = kvlist_get(&kl, "cpu.flags.avx2");
    assert_true(strcmp(flag, "0") == 0 || strcmp(flag, "1") == 0);
    assert_string_equal(kvlist_get(&kl, "python.base"), envs_base_python_version());
    /* no key twice */
    for (size_t i = 0; i < kl.n; i++)
        for (size_t j = i + 1; j < kl.n; j++)
            if (strcmp(kl.items[i].key, kl.items[j].key) == 0)
                fail_msg("key %s appears twice", kl.items[i].key);
    kvlist_free(&kl);
}

static void test_env_vars_recorded(void **state)
{
    (void)state;
    struct kvlist kl = {0};
    setenv("OMP_NUM_THREADS", "3", 1);
    setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=false", 1);
    unsetenv("KERAS_BACKEND");
    setenv("BENCHGEN_UNRELATED_VAR", "x", 1);
    assert_int_equal(sysinfo_collect(&kl), 0);
    assert_string_equal(kvlist_get(&kl, "env.OMP_NUM_THREADS"), "3");
    assert_string_equal(kvlist_get(&kl, "env.XLA_FLAGS"), "--xla_cpu_enable_fast_math=false");
    assert_null(kvlist_get(&kl, "env.KERAS_BACKEND"));
    assert_null(kvlist_get(&kl, "env.BENCHGEN_UNRELATED_VAR"));
    kvlist_free(&kl);
    unsetenv("OMP_NUM_THREADS");
    unsetenv("XLA_FLAGS");
    unsetenv("BENCHGEN_UNRELATED_VAR");
}

static void test_real_gpu_status_is_a_sentence(void **state)
{
    (void)state;
    struct kvlist kl = {0};
    assert_int_equal(sysinfo_gpu(&kl), 0);
    const char *s = kvlist_get(&kl, "gpu.status");
    assert_non_null(s);
    assert_true(strlen(s) > 10);
    assert_null(strchr(s, '\n'));
    assert_true(isalnum((unsigned char)s[0]));
    int count = atoi(kvlist_get(&kl, "gpu.count"));
    if (count == 0)
        assert_true(starts_with(s, "no "));
    else
        assert_non_null(kvlist_get(&kl, "gpu.0.name"));
#if HAVE_CUDA
    assert_string_equal(kvlist_get(&kl, "cuda.linked"), "static");
    assert_non_null(kvlist_get(&kl, "cuda.runtime"));
#else
    assert_string_equal(kvlist_get(&kl, "cuda.linked"), "no");
    if (count == 0)
        assert_non_null(strstr(s, "without the CUDA runtime"));
#endif
    kvlist_free(&kl);
}

/* ---- fake probes ------------------------------------------------------------ */

static int fake_cuda_h200(struct gpu_facts *f)
{
    f->cuda_linked = true;
    f->cuda_probed = true;
    f->runtime_version = 13000;
    f->driver_cuda_version = 12080;
    f->count = 2;
    for (int i = 0; i < 2; i++) {
        struct gpu_device *d = &f->dev[i];
        snprintf(d->name, sizeof(d->name), "NVIDIA H200");
        d->cc_major = 9;
        d->cc_minor = 0;
        d->mem_bytes = 150121971712ULL; /* 139.8 GiB */
        d->sm_count = 132;
        d->sm_clock_khz = 1980000;
        snprintf(d->pci_bus_id, sizeof(d->pci_bus_id), "0000:%02x:00.0", 0x19 + i);
    }
    return 0;
}

static int fake_cuda_no_driver(struct gpu_facts *f)
{
    f->cuda_linked = true;
    f->cuda_probed = true;
    f->runtime_version = 13000;
    f->count_error = 35;
    snprintf(f->count_error_name, sizeof(f->count_error_name), "cudaErrorInsufficientDriver");
    return 0;
}

static int fake_cuda_old_driver(struct gpu_facts *f)
{
    fake_cuda_no_driver(f);
    f->driver_cuda_version = 12040;
    return 0;
}

static int fake_cuda_crashed(struct gpu_facts *f)
{
    f->cuda_linked = true;
    snprintf(f->cuda_probe_error, sizeof(f->cuda_probe_error), "the CUDA probe process killed by signal 11");
    return 0;
}

static int fake_cuda_not_built(struct gpu_facts *f)
{
    f->cuda_linked = false;
    return 0;
}

static int fake_nvml(struct gpu_facts *f)
{
    f->nvml_ok = true;
    snprintf(f->driver_version, sizeof(f->driver_version), "570.124.06");
    f->nvml_count = 1;
    snprintf(f->nvml_name[0], sizeof(f->nvml_name[0]), "NVIDIA H200");
    return 0;
}

static int fake_nvml_missing(struct gpu_facts *f)
{
    snprintf(f->nvml_error, sizeof(f->nvml_error), "libnvidia-ml.so.1: cannot open shared object file");
    return 0;
}

static int fake_cudnn(struct gpu_facts *f)
{
    f->cudnn_version = 91900;
    f->cudnn_cudart = 13010;
    snprintf(f->cudnn_library, sizeof(f->cudnn_library), "/usr/local/cuda/lib64/libcudnn.so.9");
    return 0;
}

static int fake_cudnn_missing(struct gpu_facts *f)
{
    (void)f;
    return 0;
}

static int restore_ops(void **state)
{
    (void)state;
    gpu_set_ops(NULL);
    return 0;
}

static void describe_with(const struct gpu_ops *ops, struct kvlist *kl)
{
    gpu_set_ops(ops);
    assert_int_equal(gpu_describe(kl), 0);
}

static void test_fake_gpus_present(void **state)
{
    (void)state;
    struct gpu_ops ops = {fake_cuda_h200, fake_nvml, fake_cudnn};
    struct kvlist kl = {0};
    describe_with(&ops, &kl);
    assert_string_equal(kvlist_get(&kl, "gpu.count"), "2");
    assert_string_equal(kvlist_get(&kl, "gpu.0.name"), "NVIDIA H200");
    assert_string_equal(kvlist_get(&kl, "gpu.1.name"), "NVIDIA H200");
    assert_string_equal(kvlist_get(&kl, "gpu.0.compute_capability"), "9.0");
    assert_string_equal(kvlist_get(&kl, "gpu.0.memory_bytes"), "150121971712");
    assert_string_equal(kvlist_get(&kl, "gpu.0.sm_count"), "132");
    assert_string_equal(kvlist_get(&kl, "gpu.0.sm_clock_khz"), "1980000");
    assert_null(kvlist_get(&kl, "gpu.0.mem_clock_khz")); /* unknown: left out */
    assert_string_equal(kvlist_get(&kl, "gpu.1.pci_bus_id"), "0000:1a:00.0");
    assert_string_equal(kvlist_get(&kl, "gpu.driver"), "570.124.06");
    assert_string_equal(kvlist_get(&kl, "cuda.runtime"), "13.0");
    assert_string_equal(kvlist_get(&kl, "cuda.driver"), "12.8");
    assert_string_equal(kvlist_get(&kl, "cudnn.version"), "9.19.0");
    assert_string_equal(kvlist_get(&kl, "cudnn.cudart"), "13.1");
    assert_string_equal(kvlist_get(&kl, "nvml.status"), "ok");
    assert_string_equal(kvlist_get(&kl, "gpu.status"),
                        "2 GPUs: 2 x NVIDIA H200 (compute capability 9.0, 139.8 GiB, 132 SMs); "
                        "driver 570.124.06 for CUDA 12.8; CUDA runtime 13.0 linked statically; cuDNN 9.19.0");
    kvlist_free(&kl);
}

static void test_fake_mixed_gpus(void **state)
{
    (void)state;
    struct gpu_ops ops = {fake_cuda_h200, fake_nvml_missing, fake_cudnn_missing};
    struct kvlist kl = {0};
    gpu_set_ops(&ops);
    struct gpu_facts *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(gpu_collect(f), 0);
    snprintf(f->dev[1].name, sizeof(f->dev[1].name), "NVIDIA L4");
    f->dev[1].cc_minor = 9;
    f->dev[1].cc_major = 8;
    f->dev[1].mem_bytes = 24ULL << 30;
    f->dev[1].sm_count = 58;
    assert_int_equal(gpu_format(f, &kl), 0);
    free(f);
    assert_string_equal(kvlist_get(&kl, "gpu.1.compute_capability"), "8.9");
    assert_null(kvlist_get(&kl, "gpu.driver"));
    assert_string_equal(kvlist_get(&kl, "cudnn.version"), "not found");
    assert_string_equal(kvlist_get(&kl, "gpu.status"),
                        "2 GPUs: NVIDIA H200 (compute capability 9.0, 139.8 GiB, 132 SMs); NVIDIA L4 "
                        "(compute capability 8.9, 24.0 GiB, 58 SMs); driver for CUDA 12.8; "
                        "CUDA runtime 13.0 linked statically");
    kvlist_free(&kl);
}

static void test_fake_no_driver(void **state)
{
    (void)state;
    struct gpu_ops ops = {fake_cuda_no_driver, fake_nvml_missing, fake_cudnn};
    struct kvlist kl = {0};
    describe_with(&ops, &kl);
    assert_string_equal(kvlist_get(&kl, "gpu.count"), "0");
    assert_null(kvlist_get(&kl, "gpu.0.name"));
    assert_string_equal(kvlist_get(&kl, "cuda.driver"), "none");
    assert_string_equal(kvlist_get(&kl, "nvml.status"), "libnvidia-ml.so.1: cannot open shared object file");
    assert_string_equal(kvlist_get(&kl, "gpu.status"),
                        "no GPU: no NVIDIA driver is loaded (cudaErrorInsufficientDriver); "
                        "CUDA runtime 13.0 linked statically; cuDNN 9.19.0");
    kvlist_free(&kl);
}

static void test_fake_old_driver(void **state)
{
    (void)state;
    struct gpu_ops ops = {fake_cuda_old_driver, fake_nvml, fake_cudnn_missing};
    struct kvlist kl = {0};
    describe_with(&ops, &kl);
    assert_string_equal(kvlist_get(&kl, "gpu.count"), "0");
    const char *s = kvlist_get(&kl, "gpu.status");
    assert_true(starts_with(s, "no usable GPU: the NVIDIA driver supports CUDA up to 12.4"));
    assert_non_null(strstr(s, "update the driver"));
    kvlist_free(&kl);
}

static void test_fake_probe_crashed(void **state)
{
    (void)state;
    struct gpu_ops ops = {fake_cuda_crashed, fake_nvml_missing, fake_cudnn_missing};
    struct kvlist kl = {0};
    describe_with(&ops, &kl);
    assert_string_equal(kvlist_get(&kl, "gpu.count"), "0");
    assert_null(kvlist_get(&kl, "cuda.driver"));
    assert_string_equal(kvlist_get(&kl, "gpu.status"),
                        "no GPU information: the CUDA probe process killed by signal 11; "
                        "CUDA runtime linked statically");
    kvlist_free(&kl);
}

static void test_fake_built_without_cuda(void **state)
{
    (void)state;
    struct gpu_ops ops = {fake_cuda_not_built, fake_nvml, fake_cudnn_missing};
    struct kvlist kl = {0};
    describe_with(&ops, &kl);
    assert_string_equal(kvlist_get(&kl, "gpu.count"), "1");
    assert_string_equal(kvlist_get(&kl, "gpu.0.name"), "NVIDIA H200");
    assert_string_equal(kvlist_get(&kl, "cuda.linked"), "no");
    assert_null(kvlist_get(&kl, "cuda.runtime"));
    assert_true(starts_with(kvlist_get(&kl, "gpu.status"),
                            "1 GPU seen by NVML: NVIDIA H200; driver 570.124.06; "
                            "benchgen was built without the CUDA runtime"));
    kvlist_free(&kl);

    struct gpu_ops none = {fake_cuda_not_built, fake_nvml_missing, fake_cudnn_missing};
    describe_with(&none, &kl);
    assert_string_equal(kvlist_get(&kl, "gpu.count"), "0");
    assert_true(starts_with(kvlist_get(&kl, "gpu.status"),
                            "no GPU information: benchgen was built without the CUDA runtime"));
    kvlist_free(&kl);
}

static void test_version_strings(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(gpu_cuda_version_str(13000, buf, sizeof(buf)), "13.0");
    assert_string_equal(gpu_cuda_version_str(12080, buf, sizeof(buf)), "12.8");
    assert_string_equal(gpu_cuda_version_str(11020, buf, sizeof(buf)), "11.2");
    /* cuDNN 9 packs MAJOR*10000, cuDNN 8 MAJOR*1000 */
    assert_string_equal(gpu_cudnn_version_str(91900, buf, sizeof(buf)), "9.19.0");
    assert_string_equal(gpu_cudnn_version_str(90100, buf, sizeof(buf)), "9.1.0");
    assert_string_equal(gpu_cudnn_version_str(8907, buf, sizeof(buf)), "8.9.7");
    assert_string_equal(gpu_cudnn_version_str(7605, buf, sizeof(buf)), "7.6.5");
}

/* The GPUs a cell may be given: NVML's, or an inherited allocation's. */
static void test_gpu_allowed(void **state)
{
    (void)state;
    struct gpu_facts f = {.nvml_ok = true, .nvml_count = 4};
    for (int i = 0; i < 4; i++)
        snprintf(f.nvml_uuid[i], sizeof(f.nvml_uuid[i]), "GPU-%d%d%d%d-aaaa", i, i, i, i);
    snprintf(f.nvml_uuid[3], sizeof(f.nvml_uuid[3]), "GPU-2222-bbbb"); /* shares a prefix with GPU 2 */
    struct strlist l = {0};
    assert_int_equal(gpu_allowed(&l, &f, NULL), 0);
    assert_int_equal((int)l.n, 4);
    assert_string_equal(l.v[0], "0");
    strlist_free(&l);
    assert_int_equal(gpu_allowed(&l, &f, "3,1"), 0);
    assert_int_equal((int)l.n, 2);
    assert_string_equal(l.v[0], "3");
    assert_string_equal(l.v[1], "1");
    strlist_free(&l);
    assert_int_equal(gpu_allowed(&l, &f, "GPU-1111,MIG-abc"), 0);
    assert_int_equal((int)l.n, 2);
    strlist_free(&l);
    assert_int_equal(gpu_entry_index(&f, "GPU-1111"), 1);
    assert_int_equal(gpu_entry_index(&f, "GPU-2222"), -1); /* ambiguous prefix */
    assert_int_equal(gpu_entry_index(&f, "GPU-2222-b"), 3);
    assert_int_equal(gpu_entry_index(&f, "4"), -1);
    assert_int_equal(gpu_allowed(&l, &f, "1,4"), BG_EUSAGE);
    strlist_free(&l);
    assert_int_equal(gpu_allowed(&l, &f, "GPU-2222"), BG_EUSAGE);
    strlist_free(&l);
    assert_int_equal(gpu_allowed(&l, &f, ""), 0);
    assert_int_equal((int)l.n, 0);
    assert_int_equal(gpu_allowed(&l, &f, "-1"), 0);
    assert_int_equal((int)l.n, 0);
    /* Without NVML an allocation is taken as given. */
    struct gpu_facts none = {0};
    assert_int_equal(gpu_allowed(&l, &none, "7,9"), 0);
    assert_int_equal((int)l.n, 2);
    strlist_free(&l);
    assert_int_equal(gpu_allowed(&l, &none, NULL), 0);
    assert_int_equal((int)l.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collect_keys),
        cmocka_unit_test(test_env_vars_recorded),
        cmocka_unit_test(test_real_gpu_status_is_a_sentence),
        cmocka_unit_test_teardown(test_fake_gpus_present, restore_ops),
        cmocka_unit_test_teardown(test_fake_mixed_gpus, restore_ops),
        cmocka_unit_test_teardown(test_fake_no_driver, restore_ops),
        cmocka_unit_test_teardown(test_fake_old_driver, restore_ops),
        cmocka_unit_test_teardown(test_fake_probe_crashed, restore_ops),
        cmocka_unit_test_teardown(test_fake_built_without_cuda, restore_ops),
        cmocka_unit_test(test_version_strings),
        cmocka_unit_test(test_gpu_allowed),
    };
    return cmocka_run_group_tests_name("sysinfo", tests, NULL, NULL);
}
