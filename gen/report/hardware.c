/*
 * hardware.c - TFLOP/s, MFU, energy, throttling, contention and the method
 * audit in the report (see hardware.h; docs/GPU.md explains each column).
 */
#include "report/hardware.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "charts/chart.h"
#include "machine/peaks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *fact(const struct rd_cell *c, const char *name) { return kvlist_get(&c->result.facts, name); }

static bool fact_is(const struct rd_cell *c, const char *name, const char *value)
{
    const char *v = fact(c, name);
    return v && !strcmp(v, value);
}

static double fact_num(const struct rd_cell *c, const char *name)
{
    const char *v = fact(c, name);
    char *end = NULL;
    double d = v ? strtod(v, &end) : NAN;
    return v && end != v ? d : NAN;
}

static bool cell_ok(const struct rd_cell *c) { return c->result.status == STATUS_OK && c->st.n > 0; }

void hardware_cell_warnings(const struct rd_cell *c, char *buf, size_t n)
{
    size_t off = strlen(buf);
    if (fact_is(c, "contention", "yes")) {
        const char *why = fact(c, "contention.reason");
        off += (size_t)snprintf(buf + off, off < n ? n - off : 0, "%scontended: %s", off ? "; " : "",
                                why ? why : "other processes were busy");
    }
    const char *ablate = fact(c, "ablate");
    if (ablate && *ablate) /* runners/ablate.h: containment, sampling or the environment switched off */
        off += (size_t)snprintf(buf + off, off < n ? n - off : 0,
                                "%sran with the test-only BENCHGEN_ABLATE=%s: not a measurement to publish",
                                off ? "; " : "", ablate);
    if (fact_is(c, "gpu.throttled", "yes")) {
        const char *why = fact(c, "gpu.throttle.reasons");
        snprintf(buf + off, off < n ? n - off : 0, "%sGPU throttled %.0f%% of the timed steps (%s)",
                 off ? "; " : "", fact_num(c, "gpu.throttled.share") * 100, why ? why : "reason unknown");
    }
}

/* Whether the workload ran on a GPU: torch's "cuda...", JAX's and
 * TensorFlow's "gpu" (Keras cells), or the audit's word for either. */
static bool ran_on_gpu(const struct rd_cell *c)
{
    const char *d = fact(c, "device");
    return fact_is(c, "audit.device", "gpu") ||
           (d && (strncasecmp(d, "cuda", 4) == 0 || strcasecmp(d, "gpu") == 0 || strncasecmp(d, "gpu:", 4) == 0));
}

/* The peak of device p for cell c. A float32 cell's matrix products and
 * convolutions may differ in TF32 (torch: matmuls off, cuDNN on by
 * default): the peak is then the one that does the cell's FLOPs in the
 * least time at both rates, FLOPs / (matmul FLOPs / their peak + conv FLOPs
 * / theirs), with flops.conv_share splitting them. */
static double device_peak(const struct rd_cell *c, const struct peak *p, char *name, size_t n)
{
    bool tf32 = fact_is(c, "audit.tf32", "on");
    bool tf32_conv = fact(c, "audit.tf32.conv") ? fact_is(c, "audit.tf32.conv", "on") : tf32;
    double share = fact_num(c, "flops.conv_share");
    share = isfinite(share) && share > 0 ? (share > 1 ? 1 : share) : 0;
    const char *which = "", *which_conv = "";
    double mm = peaks_tflops(p, c->cell.precision, tf32, &which);
    double conv = peaks_tflops(p, c->cell.precision, tf32_conv, &which_conv);
    if (!(mm > 0) || !(conv > 0))
        return 0;
    if (mm == conv || share == 0) {
        if (name)
            snprintf(name, n, "%s %s %g TFLOP/s", p->device, which, mm);
        return mm;
    }
    double peak = 1 / ((1 - share) / mm + share / conv);
    if (name)
        snprintf(name, n, "%s %s for convolutions (%.0f%% of FLOPs), %s for the rest: %.4g TFLOP/s", p->device,
                 which_conv, share * 100, which, peak);
    return peak;
}

void hardware_mfu(const struct rundata *rd, const struct rd_cell *c, double *tflops, double *mfu_pct,
                  char *peak_name, size_t n)
{
    *tflops = *mfu_pct = NAN;
    if (peak_name && n)
        peak_name[0] = '\0';
    double flops = fact_num(c, "flops.per_step");
    if (!cell_ok(c) || !(flops > 0) || !(c->st.median > 0))
        return;
    *tflops = flops / (c->st.median / 1e3) / 1e12;
    bool gpu = ran_on_gpu(c) || fact(c, "gpu.name");
    const char *dev = fact(c, "gpu.name");
    if (!dev && gpu)
        dev = fact(c, "device.name");
    double peak = 0;
    if (gpu) {
        /* A MIG slice has a fraction of the GPU's SMs: the board's peak
         * does not apply. A GPU without a name has no peak either, never
         * the CPU's. */
        if (dev && !fact_is(c, "gpu.mig", "on"))
            peak = device_peak(c, peaks_find(dev), peak_name && n ? peak_name : NULL, n);
    } else {
        /* CPU: the GEMM peak `benchgen info --calibrate` measured, recorded
         * in the run-wide environment when the run was created. */
        const char *g = kvlist_get(&rd->env, "cpu.peak_gflops.float32");
        peak = g ? atof(g) / 1e3 : 0;
        if (peak > 0 && peak_name)
            snprintf(peak_name, n, "this CPU's float32 GEMM (calibrated) %.3g TFLOP/s", peak);
    }
    if (peak > 0)
        *mfu_pct = *tflops / peak * 100;
    else if (peak_name && n)
        peak_name[0] = '\0';
}

static bool has_hardware_facts(const struct rd_cell *c)
{
    return fact(c, "flops.per_step") || fact(c, "gpu.devices") || fact(c, "contention");
}

int hardware_table(const struct rctx *x, struct table *t)
{
    static const char *const head[] = {"Cell",         "Device",         "GFLOP/step", "TFLOP/s",
                                       "MFU",          "J/step",         "GPU throttled",
                                       "GPU peak mem", "Other CPU (cores)", "Contended"};
    static const int numeric[] = {0, 0, 1, 1, 1, 1, 0, 1, 1, 0};
    size_t any = 0;
    for (size_t i = 0; i < x->rd->ncells; i++)
        any += cell_ok(&x->rd->cells[i]) && has_hardware_facts(&x->rd->cells[i]);
    table_init(t, any ? 10 : 0);
    if (!any)
        return table_finish(t);
    t->caption = xstrdup("Hardware use per cell: achieved FLOP/s and model FLOPs utilisation against the "
                         "device's dense peak for the cell's dtype, GPU energy per timed step, share of "
                         "the timed steps with throttled clocks, peak GPU memory, and CPU time taken by "
                         "processes outside benchgen while the cell ran (docs/GPU.md).");
    for (size_t c = 0; c < 10; c++)
        table_head(t, c, head[c], numeric[c]);
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        if (!cell_ok(c) || !has_hardware_facts(c))
            continue;
        size_t r = table_row(t);
        double tflops, mfu, gflop = fact_num(c, "flops.per_step") / 1e9;
        char peak[160], v[64];
        hardware_mfu(x->rd, c, &tflops, &mfu, peak, sizeof(peak));
        const char *dev = fact(c, "gpu.name");
        if (!dev && ran_on_gpu(c))
            dev = fact(c, "device.name") ? fact(c, "device.name") : "GPU";
        table_set(t, r, 0, TC_MONO, NAN, "%s", c->cell.key);
        table_set(t, r, 1, 0, NAN, "%s%s", dev ? dev : "CPU", fact_is(c, "gpu.mig", "on") ? " (MIG)" : "");
        chart_format_number(gflop, gflop < 10 ? 3 : 1, v, sizeof(v));
        table_set(t, r, 2, isfinite(gflop) ? 0 : TC_NA, gflop, "%s", isfinite(gflop) ? v : "NA");
        chart_format_number(tflops, tflops < 1 ? 4 : 2, v, sizeof(v));
        table_set(t, r, 3, isfinite(tflops) ? 0 : TC_NA, tflops, "%s", isfinite(tflops) ? v : "NA");
        chart_format_number(mfu, 1, v, sizeof(v));
        table_set(t, r, 4, isfinite(mfu) ? 0 : TC_NA, mfu, "%s%s", isfinite(mfu) ? v : "NA (no peak)",
                  isfinite(mfu) ? "%" : "");
        double j = fact_num(c, "gpu.energy_j_per_step");
        chart_format_number(j, 3, v, sizeof(v));
        table_set(t, r, 5, isfinite(j) ? 0 : TC_NA, j, "%s", isfinite(j) ? v : "NA");
        double share = fact_num(c, "gpu.throttled.share");
        const char *why = fact(c, "gpu.throttle.reasons");
        if (isfinite(share))
            table_set(t, r, 6, fact_is(c, "gpu.throttled", "yes") ? TC_WARN : 0, share * 100, "%.0f%%%s%s%s",
                      share * 100, share > 0 ? " (" : "", share > 0 && why ? why : "", share > 0 ? ")" : "");
        else
            table_set(t, r, 6, TC_NA, NAN, "NA");
        double mem = fact_num(c, "gpu.mem_cell.peak");
        if (!isfinite(mem))
            mem = fact_num(c, "gpu.mem_used.peak");
        chart_format_number(mem / 1073741824.0, 2, v, sizeof(v));
        table_set(t, r, 7, isfinite(mem) ? 0 : TC_NA, mem, "%s%s", isfinite(mem) ? v : "NA",
                  isfinite(mem) ? " GiB" : "");
        double other = fact_num(c, "host.other_cpu.cell");
        chart_format_number(other, 2, v, sizeof(v));
        table_set(t, r, 8, isfinite(other) ? 0 : TC_NA, other, "%s", isfinite(other) ? v : "NA");
        bool cont = fact_is(c, "contention", "yes");
        table_set(t, r, 9, cont ? TC_WARN : 0, NAN, "%s", fact(c, "contention") ? (cont ? "yes" : "no") : "NA");
    }
    return table_finish(t);
}

/* ---- method audit ---------------------------------------------------------- */

struct audit_item {
    const char *fact, *what;
    bool gpu_only; /* a setting with no effect on a CPU (TF32) */
};

static const struct audit_item audit_items[] = {
    {"audit.synchronised", "device synchronisation", false},
    {"audit.tf32", "TF32", true},
    {"audit.tf32.conv", "TF32 for convolutions", true},
    {"audit.conv_autotune", "convolution autotuning", true},
    {"audit.input_copy", "host-to-device input copies", true},
    {"audit.dtype", "bfloat16 handling", false},
    {"audit.memory", "GPU memory policy", true},
    {"audit.compile_mode", "torch.compile mode", false},
};

static void add_line(char ***lines, size_t *n, char *s)
{
    *lines = xrealloc(*lines, (*n + 2) * sizeof(**lines));
    (*lines)[(*n)++] = s;
    (*lines)[*n] = NULL;
}

int hardware_audit_lines(const struct rctx *x, char ***out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    int err = 0;
    for (size_t r = 0; r < x->g->nrows && !err; r++) {
        const struct grid_row *row = &x->g->rows[r];
        bool on_gpu = false;
        for (size_t c = 0; c < x->g->ncols; c++) {
            const struct rd_cell *cell = grid_at(x->g, r, c)->cell;
            on_gpu |= cell && fact_is(cell, "audit.device", "gpu");
        }
        for (size_t k = 0; k < sizeof(audit_items) / sizeof(audit_items[0]) && !err; k++) {
            const struct audit_item *it = &audit_items[k];
            if (it->gpu_only && !on_gpu)
                continue;
            struct strbuf sb = {0};
            const char *first = NULL;
            bool differ = false, unsynced = false;
            for (size_t c = 0; c < x->g->ncols; c++) {
                const struct rd_cell *cell = grid_at(x->g, r, c)->cell;
                const char *v = cell && cell_ok(cell) ? fact(cell, it->fact) : NULL;
                if (!v)
                    continue;
                if (!strcmp(it->fact, "audit.synchronised") && strcmp(v, "yes"))
                    unsynced = true;
                if (first && strcmp(first, v))
                    differ = true;
                if (!first)
                    first = v;
                strbuf_printf(&sb, "%s%s (%s)", sb.len ? ", " : "", v, x->g->cols[c].backend);
            }
            err = strbuf_error(&sb);
            if (!err && (differ || unsynced))
                add_line(out, nout,
                         xprintf("%s: %s %s: %s", row->title, it->what,
                                 unsynced ? "missing on some backend" : "differs between backends", sb.buf));
            strbuf_free(&sb);
        }
    }
    if (err) {
        hardware_free_lines(*out, *nout);
        *out = NULL;
        *nout = 0;
    }
    return err;
}

void hardware_free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}
