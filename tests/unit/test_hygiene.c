/*
 * test_hygiene.c - the pieces of measurement hygiene that need no GPU and no
 * busy machine: the peak table matches NVML device names (and not their
 * look-alikes), picks the column for a precision, and keeps dense figures;
 * hostload accounts a child's CPU time as benchgen's own, never as "other";
 * throttle reasons read as words.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "machine/hostload.h"
#include "machine/nvml.h"
#include "machine/peaks.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void test_peaks_match_names(void **state)
{
    (void)state;
    static const struct {
        const char *name, *device;
    } cases[] = {
        {"NVIDIA A100-SXM4-40GB", "NVIDIA A100 (SXM4 and PCIe, 40/80 GB)"},
        {"NVIDIA A100 80GB PCIe", "NVIDIA A100 (SXM4 and PCIe, 40/80 GB)"},
        {"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5"},
        {"NVIDIA H100 PCIe", "NVIDIA H100 PCIe"},
        {"NVIDIA H100 NVL", "NVIDIA H100 NVL"},
        {"NVIDIA H200", "NVIDIA H200 SXM"},
        {"NVIDIA GH200 480GB", "NVIDIA GH200 (H100 GPU)"},
        {"NVIDIA L4", "NVIDIA L4"},
        {"NVIDIA L40S", "NVIDIA L40S"},
        {"NVIDIA L40", "NVIDIA L40"},
        {"NVIDIA A10", "NVIDIA A10"},
        {"Tesla T4", "NVIDIA T4"},
        {"Tesla V100-SXM2-16GB", "NVIDIA V100 (SXM2)"},
        {"Tesla V100-PCIE-16GB", "NVIDIA V100 PCIe"},
        {"NVIDIA A100-PCIE-40GB", "NVIDIA A100 (SXM4 and PCIe, 40/80 GB)"},
        {"NVIDIA H200 NVL", "NVIDIA H200 NVL"},
        {"NVIDIA H100 NVL", "NVIDIA H100 NVL"},
        {"NVIDIA H100 PCIE", "NVIDIA H100 PCIe"},
        {"NVIDIA GH200 144G HBM3e", "NVIDIA GH200 (H100 GPU)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct peak *p = peaks_find(cases[i].name);
        assert_non_null(p);
        assert_string_equal(p->device, cases[i].device);
        assert_non_null(p->source);
    }
    assert_null(peaks_find("NVIDIA A1000")); /* an A10 look-alike */
    /* a variant without an entry has no peak, never its model's SXM figures */
    assert_null(peaks_find("NVIDIA L4 NVL"));
    assert_null(peaks_find("NVIDIA H800 PCIe"));
    assert_null(peaks_find("NVIDIA GeForce RTX 9999"));
    assert_null(peaks_find(""));
    assert_null(peaks_find(NULL));
}

static void test_peaks_columns(void **state)
{
    (void)state;
    const struct peak *a100 = peaks_find("NVIDIA A100-SXM4-80GB");
    const char *which = NULL;
    assert_true(peaks_tflops(a100, "bfloat16", false, &which) == 312);
    assert_string_equal(which, "bfloat16 tensor");
    assert_true(peaks_tflops(a100, "mixed_bfloat16", false, NULL) == 312);
    assert_true(peaks_tflops(a100, "float32", false, &which) == 19.5);
    assert_string_equal(which, "FP32");
    assert_true(peaks_tflops(a100, "float32", true, &which) == 156);
    assert_string_equal(which, "TF32 tensor");
    /* dense, not the datasheet's sparse figure */
    assert_true(peaks_tflops(peaks_find("NVIDIA H100 80GB HBM3"), "bfloat16", false, NULL) < 1000);
    /* no bfloat16 on a V100 */
    assert_true(peaks_tflops(peaks_find("Tesla V100-SXM2-16GB"), "bfloat16", false, NULL) == 0);
    assert_true(peaks_tflops(NULL, "bfloat16", false, NULL) == 0);
    /* NVL and PCIe boards: their own columns, not the SXM board's */
    assert_true(peaks_tflops(peaks_find("NVIDIA H200"), "bfloat16", false, NULL) == 989);
    assert_true(peaks_tflops(peaks_find("NVIDIA H200 NVL"), "bfloat16", false, NULL) == 835);
    assert_true(peaks_tflops(peaks_find("NVIDIA H200 NVL"), "float32", true, NULL) == 417.5);
    assert_true(peaks_tflops(peaks_find("NVIDIA H100 NVL"), "bfloat16", false, NULL) == 835);
    assert_true(peaks_tflops(peaks_find("NVIDIA H100 PCIe"), "bfloat16", false, NULL) == 756);
}

/* A child that spins for 0.3 s of CPU time is benchgen's own time, never
 * "other" (CPU time, not wall time: the machine may be busy). */
static void test_child_time_is_ours(void **state)
{
    (void)state;
    struct hostload_snap a, b;
    assert_int_equal(hostload_snap(&a, 1), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct timespec t0, t;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        volatile unsigned long x = 0;
        do {
            for (int i = 0; i < 100000; i++)
                x += (unsigned long)i;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000000L);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    assert_int_equal(hostload_snap(&b, 1), 0);
    /* the child's spin, reaped into our cutime (ticks of 10 ms round down) */
    assert_true(b.ours_s - a.ours_s >= 0.25);
    double other_s = hostload_other_cores(&a, &b) * (double)(b.t_ns - a.t_ns) / 1e9;
    assert_true(other_s <= (b.busy_s - a.busy_s) - (b.ours_s - a.ours_s) + 0.02);
    for (size_t i = 0; i < b.nforeign; i++)
        assert_true(b.foreign[i].pid != pid && b.foreign[i].pid != getpid());
    hostload_snap_free(&a);
    hostload_snap_free(&b);
}

static void test_our_pids(void **state)
{
    (void)state;
    pid_t pids[64];
    size_t n = hostload_our_pids(pids, 64);
    assert_true(n >= 1);
    assert_int_equal(pids[0] == getpid() || n > 1, 1);
    bool self = false;
    for (size_t i = 0; i < n; i++)
        self |= pids[i] == getpid();
    assert_true(self);
}

static void test_throttle_text(void **state)
{
    (void)state;
    char buf[128];
    nvml_throttle_text(NVML_THR_SW_POWER_CAP | NVML_THR_HW_THERMAL | NVML_THR_GPU_IDLE, buf, sizeof(buf));
    assert_string_equal(buf, "sw power cap, hw thermal");
    nvml_throttle_text(NVML_THR_GPU_IDLE | NVML_THR_APP_CLOCKS, buf, sizeof(buf));
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peaks_match_names), cmocka_unit_test(test_peaks_columns),
        cmocka_unit_test(test_child_time_is_ours), cmocka_unit_test(test_our_pids),
        cmocka_unit_test(test_throttle_text),
    };
    return cmocka_run_group_tests_name("hygiene", tests, NULL, NULL);
}
