/*
 * test_charts.c - what the charts promise a reader, asserted on the chart
 * data and the numbers they are drawn from (issue 11): the per-row step
 * charts (one axis kind per figure, the first call never flattening the
 * steady state, "(compile)" only on compiling backends, one outlier never
 * collapsing the histogram, a failed cell's exception line), and the
 * colours (one distinct colour per backend, none of them the better/worse
 * pair, text contrast computed from the colours used), and the heading
 * every chart kind draws (charts/chart.h: chart_heading).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "charts/bars.h"
#include "charts/chart.h"
#include "charts/distribution.h"
#include "charts/forest.h"
#include "charts/heatmap.h"
#include "charts/series.h"
#include "charts/textcache.h"
#include "charts/trend.h"
#include "plan/catalog.h"
#include "charts/scatter.h"
#include "report/doc_pdf.h"
#include "report/grid.h"
#include "report/reference.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <unistd.h>

#ifndef BENCHGEN_SOURCE_DIR
#define BENCHGEN_SOURCE_DIR "."
#endif

/* 100 timed steps around 200 ms (+/-2%), a deterministic wobble */
static void steady(double *v, size_t n, double mean)
{
    for (size_t i = 0; i < n; i++)
        v[i] = mean * (1.0 + 0.02 * sin((double)i * 1.7));
}

static void test_series_compile_point(void **state)
{
    (void)state;
    double timed[100], warm[2] = {8116.0, 330.0};
    steady(timed, 100, 200);
    struct series s = {.warmup = warm, .nwarmup = 2, .timed = timed, .ntimed = 100, .mean = 200};
    struct series *p[] = {&s};
    assert_int_equal(series_pick_scale(p, 1), 0);
    assert_int_equal(s.log, 0);
    struct chart_axis ay;
    assert_int_equal(series_axis(&s, &ay), 0);
    assert_false(ay.log);
    /* the axis spans the steady state, not the 40x first call: the timed
     * steps fill at least half of it */
    assert_true(ay.hi < 300);
    assert_true((204.0 - 196.0) / (ay.hi - ay.lo) > 0.25);
    assert_true(ay.lo <= 196.0 && ay.hi >= 204.0);
}

static void test_series_one_axis_kind(void **state)
{
    (void)state;
    /* a panel whose steady state really spans 20x (a bimodal step) needs a
     * log axis; then every panel of the figure gets one */
    double a[100], b[100], w[1] = {5000.0};
    steady(a, 100, 200);
    for (size_t i = 0; i < 100; i++)
        b[i] = i % 2 ? 10.0 : 200.0;
    struct series s1 = {.warmup = w, .nwarmup = 1, .timed = a, .ntimed = 100, .mean = NAN};
    struct series s2 = {.warmup = w, .nwarmup = 1, .timed = b, .ntimed = 100, .mean = NAN};
    struct series *p[] = {&s1, &s2};
    assert_int_equal(series_pick_scale(p, 2), 0);
    assert_int_equal(s1.log, 1);
    assert_int_equal(s2.log, 1);
    /* without it, both are linear */
    p[1] = &s1;
    assert_int_equal(series_pick_scale(p, 2), 0);
    assert_int_equal(s1.log, 0);
}

static void test_histogram_outlier(void **state)
{
    (void)state;
    /* 99 steps near 222 ms and one at 578 (a first timed step that still
     * compiled): the fences leave 578 out, so it cannot set the bins */
    double v[100], lo, hi;
    steady(v, 100, 222);
    v[0] = 578;
    assert_int_equal(chart_fences(v, 100, &lo, &hi), 0);
    assert_true(hi < 578);
    assert_true(hi > 222 * 1.02 && lo < 222 * 0.98);
    /* a perfectly flat series keeps a band */
    for (size_t i = 0; i < 100; i++)
        v[i] = 10;
    assert_int_equal(chart_fences(v, 100, &lo, &hi), 0);
    assert_true(lo < 10 && hi > 10);
}

static void test_first_call_label(void **state)
{
    (void)state;
    static const char *const eager[] = {"torch-eager", "keras3-torch", "numpy"};
    static const char *const compiled[] = {"torch-compiled", "keras2-tensorflow", "keras3-tensorflow", "keras3-jax"};
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(catalog_backend_find(eager[i])->compiles, 0);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(catalog_backend_find(compiled[i])->compiles, 1);
}

static void test_detail_line(void **state)
{
    (void)state;
    const char *line;
    size_t n = grid_detail_line("Traceback (most recent call last):\n  File \"<workload>\", line 3\n"
                                "ValueError: bad shape\n",
                                &line);
    assert_int_equal(n, strlen("ValueError: bad shape"));
    assert_memory_equal(line, "ValueError: bad shape", n);
    /* torch's hints after the exception are not it */
    n = grid_detail_line("Traceback (most recent call last):\n  File \"x\", line 1, in step\n    f()\n"
                         "torch._dynamo.exc.Unsupported: setattr\n\nfrom user code:\n  File \"y\"\n",
                         &line);
    assert_memory_equal(line, "torch._dynamo.exc.Unsupported: setattr", n);
    /* a chained exception: the last one */
    n = grid_detail_line("Traceback (most recent call last):\n  File \"a\"\nKeyError: 'k'\n\nDuring handling of "
                         "the above exception, another exception occurred:\n\nTraceback (most recent call "
                         "last):\n  File \"b\"\nRuntimeError: out of memory",
                         &line);
    assert_memory_equal(line, "RuntimeError: out of memory", n);
    n = grid_detail_line("no result within timeout_s=600\nmore", &line);
    assert_memory_equal(line, "no result within timeout_s=600", n);
    assert_int_equal(n, strlen("no result within timeout_s=600"));
    n = grid_detail_line(NULL, &line);
    assert_int_equal(n, 0);
}

static void test_detail_frames(void **state)
{
    (void)state;
    char buf[200];
    /* the last frames of the exception grid_detail_line() reads, file names only */
    const char *tb = "Traceback (most recent call last):\n"
                     "  File \"/root/.cache/env/lib/harness.py\", line 90, in run\n    step()\n"
                     "  File \"/home/u/w/workload.py\", line 12, in step\n    y = f(x)\n"
                     "  File \"/home/u/w/model.py\", line 40, in forward\n    return x @ w\n"
                     "ValueError: bad shape\n";
    grid_detail_frames(tb, 2, buf, sizeof(buf));
    assert_string_equal(buf, "workload.py:12 in step; model.py:40 in forward");
    grid_detail_frames(tb, 5, buf, sizeof(buf));
    assert_string_equal(buf, "harness.py:90 in run; workload.py:12 in step; model.py:40 in forward");
    /* a chained exception: the frames of the last one */
    grid_detail_frames("Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nKeyError: 'k'\n\n"
                       "During handling of the above exception, another exception occurred:\n\n"
                       "Traceback (most recent call last):\n  File \"b.py\", line 2, in g\nRuntimeError: oom\n",
                       1, buf, sizeof(buf));
    assert_string_equal(buf, "b.py:2 in g");
    /* the summary line first (what failed: Type: message), the traceback after it */
    grid_detail_frames("warm-up step failed: ValueError: x\nTraceback (most recent call last):\n"
                       "  File \"w.py\", line 7, in step\nValueError: x\n",
                       2, buf, sizeof(buf));
    assert_string_equal(buf, "w.py:7 in step");
    /* no traceback, nothing; a frame without line or function keeps its file */
    grid_detail_frames("the worker died with signal 11", 2, buf, sizeof(buf));
    assert_string_equal(buf, "");
    grid_detail_frames(NULL, 2, buf, sizeof(buf));
    assert_string_equal(buf, "");
    grid_detail_frames("Traceback (most recent call last):\n  File \"<workload>\"\nE: e\n", 2, buf, sizeof(buf));
    assert_string_equal(buf, "<workload>");
    /* truncated to the buffer, still terminated */
    grid_detail_frames(tb, 3, buf, 10);
    assert_int_equal(strlen(buf), 9);
}

/* CIELAB (D65) of an sRGB colour */
static void lab(unsigned rgb, double out[3])
{
    double c[3], xyz[3];
    for (int i = 0; i < 3; i++) {
        double v = (double)(rgb >> (16 - 8 * i) & 0xFF) / 255.0;
        c[i] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
    xyz[0] = (0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047;
    xyz[1] = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    xyz[2] = (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883;
    for (int i = 0; i < 3; i++)
        xyz[i] = xyz[i] > 0.008856 ? cbrt(xyz[i]) : 7.787 * xyz[i] + 16.0 / 116.0;
    out[0] = 116 * xyz[1] - 16;
    out[1] = 500 * (xyz[0] - xyz[1]);
    out[2] = 200 * (xyz[1] - xyz[2]);
}

static double delta_e(unsigned a, unsigned b)
{
    double p[3], q[3];
    lab(a, p);
    lab(b, q);
    return sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}

/* hue angle in degrees, 0-360 */
static double hue(unsigned rgb)
{
    double p[3];
    lab(rgb, p);
    double h = atan2(p[2], p[1]) * 180 / M_PI;
    return h < 0 ? h + 360 : h;
}

static double hue_gap(double a, double b)
{
    double d = fabs(a - b);
    return d > 180 ? 360 - d : d;
}

/* Each catalog backend has its own colour, clearly apart from every other
 * backend's and from the better/worse pair (blue, orange); none is an
 * orange or a blue. Computed from the colours the charts use. */
static void test_backend_colours(void **state)
{
    (void)state;
    size_t n = 0;
    while (catalog_backend_at(n))
        n++;
    assert_true(n >= 7);
    double hb = hue(CHART_BETTER), hw = hue(CHART_WORSE);
    for (size_t i = 0; i < n; i++) {
        unsigned c = chart_palette(i);
        print_message("%-18s #%06X  dE to better %.0f, to worse %.0f\n", catalog_backend_at(i)->name, c,
                      delta_e(c, CHART_BETTER), delta_e(c, CHART_WORSE));
        assert_true(delta_e(c, CHART_BETTER) >= 30);
        assert_true(delta_e(c, CHART_WORSE) >= 30);
        assert_true(hue_gap(hue(c), hb) >= 25 || delta_e(c, CHART_BETTER) >= 45);
        assert_true(hue_gap(hue(c), hw) >= 25);
        assert_true(delta_e(c, GRID_KERAS3_BEST_COLOR) >= 20);
        for (size_t j = 0; j < i; j++)
            assert_true(delta_e(c, chart_palette(j)) >= 20);
    }
    /* PyTorch (compiled) and Keras 3 (PyTorch), both orange before */
    assert_true(delta_e(chart_palette(1), chart_palette(5)) >= 20);
}

/* Text drawn on the charts reaches 4.5:1 on white: every colour used for
 * text (labels, notes, NA, warnings, warm-up labels, verdict words). */
static void test_text_contrast(void **state)
{
    (void)state;
    static const unsigned text[] = {CHART_INK,  CHART_MUTED, CHART_NA,     CHART_WARN,
                                    CHART_BETTER, CHART_WORSE, CHART_UNSURE, SERIES_WARMUP_COLOR};
    for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
        assert_true(chart_contrast(text[i], 0xFFFFFF) >= 4.5);
    /* a label on a backend's bar is black or white, whichever reads */
    for (size_t i = 0; i < 9; i++)
        assert_true(chart_contrast(chart_text_on(chart_palette(i)), chart_palette(i)) >= 4.5);
}

/* Measured vs published: every published value has thousands separators,
 * the asterisk's footnote is found, and the scatter's legend names its
 * guide lines (the 2x lines) and the ratio panel's noise band. */
static void test_measured_vs_published(void **state)
{
    (void)state;
    static const char csv[] = "revision,model,task,batch,backend,ms_per_step,published,note\n"
                              "5,mistral,generate,1,torch-eager,1610.84,1610.84,\n"
                              "5,gemma,generate,1,keras3-torch,7649.40,\"7,649.40*\",\"Draft. Footnote *: LLM "
                              "inference is slow.\"\n"
                              "5,bert,fit,32,keras3-jax,222.37,222.37,\n";
    struct reference *ref = NULL;
    assert_int_equal(reference_parse(&ref, "mem.csv", csv, sizeof(csv) - 1), 0);
    const struct ref_row *r = reference_find(ref, 5, "mistral", "generate", 1, "torch-eager");
    assert_string_equal(r->published, "1,610.84");
    const char *foot;
    assert_int_equal(reference_footnote(r, &foot), 0);
    r = reference_find(ref, 5, "gemma", "generate", 1, "keras3-torch");
    assert_string_equal(r->published, "7,649.40*");
    size_t n = reference_footnote(r, &foot);
    assert_int_equal(n, strlen("LLM inference is slow."));
    assert_string_equal(reference_find(ref, 5, "bert", "fit", 32, "keras3-jax")->published, "222.37");
    reference_free(ref);

    const char *g[4];
    struct scatter sc = {.ratio_label = "measured / published"};
    n = scatter_guides(&sc, g, 4);
    assert_int_equal(n, 3);
    assert_non_null(strstr(g[1], "2x"));
    assert_non_null(strstr(g[2], "2%"));
    assert_true(SCATTER_BAND == 0.02);
}

/* The compare trend: every panel on one scale (the change from the
 * baseline), so 1 ms and 700 ms cells read alike; a run without a number
 * (a mismatched cell is given none) breaks the line. */
static void test_trend_one_scale(void **state)
{
    (void)state;
    static const double a[] = {1.203, 1.022, 1.002}, b[] = {699.2, 699.0, NAN}, c[] = {99.79, 110.2, 104.3};
    struct trend_series ser[] = {{.label = "a", .v = a}, {.label = "b", .v = b}, {.label = "c", .v = c}};
    struct trend t = {.npoints = 3, .nseries = 3, .series = ser, .relative = 1};
    struct chart_axis ay;
    assert_int_equal(trend_shared_axis(&t, &ay), 0);
    /* covers -16.7% (a) and +10.4% (c) on the same axis */
    assert_true(ay.lo <= -16.8 && ay.hi >= 10.5);
    assert_true(ay.hi < 40 && ay.lo > -40);
    /* only one panel: still at least +/-5% */
    t.nseries = 2;
    t.series = &ser[1];
    assert_int_equal(trend_shared_axis(&t, &ay), 0);
    assert_true(ay.lo <= -5 && ay.hi >= 5);
}

/* Cell names ("sd/predict/b1/torch-eager") in the HTML tables break at
 * "/" or "-", never inside a word ("torch-e ager"): no break-all. */
static void test_names_never_break_mid_word(void **state)
{
    (void)state;
    char *css = NULL;
    size_t len = 0;
    assert_int_equal(util_read_file(BENCHGEN_SOURCE_DIR "/templates/report.css", &css, &len), 0);
    char *rule = strstr(css, "td.mono");
    assert_non_null(rule);
    char *end = strchr(rule, '}');
    assert_non_null(end);
    *end = '\0';
    assert_null(strstr(rule, "break-all"));
    assert_null(strstr(rule, "anywhere"));
    free(css);
}

/* A tall chart in the PDF: its page grows, its 7 pt text never drops
 * under 5 pt; a chart that fits keeps an A4 page. */
static void test_pdf_tall_figure(void **state)
{
    (void)state;
    double page_h, scale = doc_pdf_figure_scale(760, 1283, &page_h); /* the 12-row speed-up chart */
    assert_true(scale * 6.5 >= 5.0);
    assert_true(page_h > 595.28 && page_h >= 1283 * scale);
    scale = doc_pdf_figure_scale(760, 400, &page_h);
    assert_true(scale == 1.0 && page_h == 595.28);
    scale = doc_pdf_figure_scale(1000, 857, &page_h); /* the ms/step panels, three a row */
    assert_true(scale * 7 >= 5.0);
}

/* ---- hover values (the HTML's inline SVG) ---------------------------------- */

/* The chart's SVG text as the HTML inlines it (no file written). */
static char *svg_of(chart_draw_fn fn, const void *data, double w, double h)
{
    char *svg = NULL;
    assert_int_equal(chart_render("/nonexistent/none", w, h, 0, NULL, fn, data, &svg), 0);
    assert_non_null(svg);
    return svg;
}

/* The <title> texts of the hover group, in order; returns their count. */
static size_t hover_titles(const char *svg, char out[][256], size_t cap)
{
    size_t n = 0;
    const char *g = strstr(svg, "<g class=\"hover\"");
    for (const char *p = g; p && (p = strstr(p, "<rect ")) != NULL; p++) {
        const char *t = strstr(p, "><title>"), *e = t ? strstr(t, "</title></rect>") : NULL;
        assert_non_null(e);
        if (n < cap)
            snprintf(out[n], 256, "%.*s", (int)(e - t - 8), t + 8);
        n++;
        p = e;
    }
    /* nothing outside the group: every <title> is a hover */
    size_t all = 0;
    for (const char *p = svg; (p = strstr(p, "<title>")) != NULL; p++)
        all++;
    assert_int_equal(all, n);
    return n;
}

static int has_title(char t[][256], size_t n, const char *want)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i], want) == 0)
            return 1;
    print_message("no hover \"%s\"; first is \"%s\"\n", want, n ? t[0] : "");
    return 0;
}

/* Every bar and point of every chart kind carries a <title> with its value
 * (issue 11: "a hover value on every bar and point"). */
static void test_hover_every_bar_and_point(void **state)
{
    (void)state;
    assert_int_equal(chart_fonts_init(BENCHGEN_SOURCE_DIR), 0);
    static char t[256][256];
    /* bars: 2 rows x 2 backends, one NA */
    static const char *const cat[] = {"BERT (fit)", "SAM (fit)"}, *const ser[] = {"eager", "compiled"};
    static const unsigned col[] = {0x4477AA, 0xCC6677};
    static const double v[] = {1234.5, 980.25, NAN, 12.5}, lo[] = {1230, 975, NAN, 12}, hi[] = {1240, 985, NAN, 13};
    static const char *const na[] = {NULL, NULL, "NA (unsupported)", NULL};
    struct bars b = {.axis_label = "ms/step", .ncat = 2, .nser = 2, .cat = cat, .ser = ser, .color = col,
                     .v = v, .lo = lo, .hi = hi, .na = na, .decimals = 2};
    char *svg = svg_of(bars_draw, &b, 500, bars_height(&b, 500));
    assert_int_equal(hover_titles(svg, t, 256), 4);
    assert_true(has_title(t, 4, "BERT (fit), eager: 1,234.50 ms/step [1,230.00, 1,240.00]"));
    assert_true(has_title(t, 4, "SAM (fit), eager: NA (unsupported)"));
    assert_true(has_title(t, 4, "SAM (fit), compiled: 12.50 ms/step [12.00, 13.00]"));
    free(svg);

    /* a per-row panel: its title names the row */
    struct bars panel = b;
    panel.title = "BERT (fit), b32";
    panel.ncat = 1;
    svg = svg_of(bars_draw, &panel, 500, bars_height(&panel, 500));
    assert_int_equal(hover_titles(svg, t, 256), 2);
    assert_true(has_title(t, 2, "BERT (fit), b32, compiled: 980.25 ms/step [975.00, 985.00]"));
    free(svg);

    /* step series: every warm-up and timed step */
    double timed[60], warm[2] = {8116.0, 330.0};
    steady(timed, 60, 200);
    struct series s = {.name = "eager", .warmup = warm, .nwarmup = 2, .timed = timed, .ntimed = 60, .mean = 200,
                       .first_label = "first call (compile)"};
    svg = svg_of(series_draw, &s, 300, 120);
    assert_int_equal(hover_titles(svg, t, 256), 62);
    assert_true(has_title(t, 62, "eager, step 1, first call (compile): 8,116.00 ms"));
    assert_true(has_title(t, 62, "eager, step 2, warm-up: 330.00 ms"));
    char want[256], num[64];
    chart_format_number(timed[59], 2, num, sizeof(num));
    snprintf(want, sizeof(want), "eager, step 62, timed: %s ms", num);
    assert_true(has_title(t, 62, want));
    free(svg);

    /* histogram: the bins' counts, with the far step on the edge, add up to every step */
    timed[7] = 900;
    struct distribution d = {.name = "eager", .ms = timed, .n = 60, .mean = 210, .median = 200, .p5 = 196,
                             .p95 = 204, .ci_lo = 199, .ci_hi = 201, .color = 0x4477AA};
    svg = svg_of(distribution_draw, &d, 300, 120);
    size_t nt = hover_titles(svg, t, 256), steps = 0;
    assert_true(nt >= 3);
    for (size_t i = 0; i < nt; i++) {
        assert_true(strncmp(t[i], "eager: ", 7) == 0);
        steps += strtoul(t[i] + 7, NULL, 10);
    }
    assert_int_equal(steps, 60);
    assert_true(has_title(t, nt, "eager: 1 step above the outlier fence, max 900 ms"));
    free(svg);

    /* scatter with its ratio panel: each point twice */
    static const double px[] = {100, 200, 400}, py[] = {110, 190, 400};
    static const size_t grp[] = {0, 1, 0};
    static const char *const glab[] = {"eager", "compiled"}, *const names[] = {"BERT", "SAM", "Gemma"};
    struct scatter sc = {.x_label = "published ms/step", .y_label = "measured ms/step", .n = 3, .x = px, .y = py,
                         .group = grp, .ngroups = 2, .group_label = glab, .group_color = col,
                         .point_label = names, .ratio_label = "measured / published"};
    svg = svg_of(scatter_draw, &sc, 500, 500);
    assert_int_equal(hover_titles(svg, t, 256), 6);
    assert_true(has_title(t, 6, "SAM, compiled: published ms/step 200.00, measured ms/step 190.00 (0.950x)"));
    free(svg);

    /* heatmap */
    static const double ratio[] = {1, 1.5, NAN, 1};
    static const char *const text[] = {"10.00 ms", "15.00 ms", NULL, "3.00 ms"};
    struct heatmap hm = {.nrows = 2, .ncols = 2, .row_label = cat, .col_label = ser, .ratio = ratio, .text = text,
                         .na = na};
    svg = svg_of(heatmap_draw, &hm, 500, heatmap_height(&hm, 500));
    assert_int_equal(hover_titles(svg, t, 256), 4);
    assert_true(has_title(t, 4, "BERT (fit), compiled: 15.00 ms, 1.50\xC3\x97 the row&#39;s best"));
    assert_true(has_title(t, 4, "SAM (fit), eager: NA (unsupported)"));
    free(svg);

    /* forest: every row, NA and summary included */
    struct forest_row rows[] = {
        {.label = "a", .est = 1.10, .lo = 1.05, .hi = 1.15, .color = 0x4477AA, .value = "1.1000 [1.0500, 1.1500]",
         .tag = "slower"},
        {.label = "b", .est = NAN, .lo = NAN, .hi = NAN, .na = "NA (mismatch)"},
        {.label = "all", .est = 1.02, .lo = NAN, .hi = NAN, .summary = 1, .value = "1.0200"}};
    struct forest fo = {.n = 3, .rows = rows, .ref = 1, .band_lo = NAN, .band_hi = NAN};
    svg = svg_of(forest_draw, &fo, 500, forest_height(&fo));
    assert_int_equal(hover_titles(svg, t, 256), 3);
    assert_true(has_title(t, 3, "a: 1.1000 [1.0500, 1.1500] slower"));
    assert_true(has_title(t, 3, "b: NA (mismatch)"));
    free(svg);

    /* trend: every point, NA points too */
    static const double tv[] = {100, 110, NAN}, tw[] = {5, 5, 5};
    static const char *const plab[] = {"[0]", "[1]", "[2]"}, *const tna[] = {NULL, NULL, "NA (mismatch)"};
    struct trend_series ts[] = {{.label = "x", .v = tv, .na = tna}, {.label = "y", .v = tw}};
    struct trend tr = {.npoints = 3, .point_label = plab, .nseries = 2, .series = ts, .value_unit = "ms/step",
                       .relative = 1};
    svg = svg_of(trend_draw, &tr, 600, trend_height(&tr));
    assert_int_equal(hover_titles(svg, t, 256), 6);
    assert_true(has_title(t, 6, "x, [1]: 110.0 ms/step (+10.0%)"));
    assert_true(has_title(t, 6, "x, [2]: NA (mismatch)"));
    free(svg);
}

/* ---- the heading every chart kind draws ---------------------------------------- */

struct heading_probe {
    int rows_ink[120], rows_red[120]; /* per pixel row: any non-white pixel, any red one */
    int min_x, max_x;                 /* the columns holding ink */
};

/* Draws h into a 200 x 120 pt rectangle at (0, top) of a white image (1 px
 * a point) and records where ink and red (CHART_WARN) pixels landed, as
 * rows counted from top. Returns what chart_heading() returned. */
static double heading_probe(const struct chart_heading *h, double top, struct heading_probe *p)
{
    int w = 200, hpx = 120 + (int)ceil(top);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, hpx);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    struct chart c;
    assert_int_equal(chart_init(&c, cr), 0);
    double used = chart_heading(&c, (struct chart_rect){0, top, w, 120}, h);
    chart_fini(&c);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    memset(p, 0, sizeof(*p));
    p->min_x = w;
    p->max_x = -1;
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int y = (int)top; y < hpx && y - (int)top < 120; y++)
        for (int x = 0; x < w; x++) {
            uint32_t v = *(const uint32_t *)(px + (size_t)y * (size_t)stride + 4 * (size_t)x);
            int r = (v >> 16) & 0xFF, g = (v >> 8) & 0xFF, b = v & 0xFF;
            if (r > 0xF0 && g > 0xF0 && b > 0xF0)
                continue;
            p->rows_ink[y - (int)top] = 1;
            if (r > g + 48 && r > b + 48)
                p->rows_red[y - (int)top] = 1;
            if (x < p->min_x)
                p->min_x = x;
            if (x > p->max_x)
                p->max_x = x;
        }
    cairo_surface_destroy(s);
    return used;
}

/* Some row of [from, to) is set. */
static int band_has(const int *rows, int from, int to)
{
    for (int y = from; y < to; y++)
        if (rows[y])
            return 1;
    return 0;
}

/* No row outside [lo, hi) is set. */
static int only_within(const int *rows, int lo, int hi)
{
    for (int y = 0; y < 120; y++)
        if (rows[y] && (y < lo || y >= hi)) {
            print_message("ink on row %d, outside [%d, %d)\n", y, lo, hi);
            return 0;
        }
    return 1;
}

/* chart_heading() (charts/chart.h): every line optional and taking no room
 * when absent, the height it returns is the height chart_heading_height()
 * gives the chart's size, its text stays inside that height and the
 * margins, and the warning alone is red, on its own line below the others. */
static void test_heading(void **state)
{
    (void)state;
    assert_int_equal(chart_fonts_init(BENCHGEN_SOURCE_DIR), 0);
    const char *long_title = "a title far too long for two hundred points, cut with an ellipsis at the margin";
    /* the sizes the charts were laid out with */
    struct chart_heading fig = {CHART_HEADING_FIGURE, NULL, NULL, NULL, NULL};
    assert_true(chart_heading_height(&fig) == CHART_MARGIN);
    fig.title = "t";
    assert_true(chart_heading_height(&fig) == CHART_MARGIN + 18);
    fig.subtitle = "s";
    assert_true(chart_heading_height(&fig) == CHART_MARGIN + 18 + 14);
    struct chart_heading panel = {CHART_HEADING_PANEL, "t", NULL, "n", "w"};
    assert_true(chart_heading_height(&panel) == CHART_PANEL_MARGIN + 12 + 10 + 10);
    panel.note = NULL;
    assert_true(chart_heading_height(&panel) == CHART_PANEL_MARGIN + 12 + 10);

    /* every combination of lines, both sizes, at two offsets */
    struct heading_probe p;
    for (int size = 0; size < 2; size++)
        for (unsigned bits = 0; bits < 16; bits++)
            for (int k = 0; k < 2; k++) {
                struct chart_heading h = {size ? CHART_HEADING_PANEL : CHART_HEADING_FIGURE,
                                          bits & 1 ? long_title : NULL, bits & 2 ? "a subtitle" : NULL,
                                          bits & 4 ? "a note" : NULL, bits & 8 ? "a warning" : NULL};
                double top = k ? 57.0 : 0.0, used = heading_probe(&h, top, &p);
                double pad = size ? CHART_PANEL_MARGIN : CHART_MARGIN;
                assert_true(used == chart_heading_height(&h));
                assert_true(only_within(p.rows_ink, (int)pad, (int)ceil(used)));
                assert_int_equal(band_has(p.rows_ink, 0, 120), bits != 0);
                if (bits) { /* inside the margins, the long title cut short */
                    assert_true(p.min_x >= (int)pad - 1);
                    assert_true(p.max_x <= 200 - (int)pad + 1);
                }
                /* red on the warning's line only, which is the last */
                double line = size ? 10 : 11;
                assert_int_equal(band_has(p.rows_red, 0, 120), (bits & 8) != 0);
                if (bits & 8)
                    assert_true(only_within(p.rows_red, (int)floor(used - line), (int)ceil(used)));
            }
    /* the title's line comes first: with a title and a note, the first
     * line's room holds ink and the note's does too */
    struct chart_heading tn = {CHART_HEADING_FIGURE, "Title", NULL, "note", NULL};
    double used = heading_probe(&tn, 0, &p);
    assert_true(used == CHART_MARGIN + 18 + 11);
    assert_true(band_has(p.rows_ink, (int)CHART_MARGIN, (int)CHART_MARGIN + 18));
    assert_true(band_has(p.rows_ink, (int)CHART_MARGIN + 18, (int)used));

    /* each chart kind sizes its heading with it: a title and a subtitle add
     * the same room to every figure's height */
    static const char *const cat[] = {"BERT (fit)"}, *const ser[] = {"eager"};
    static const unsigned col[] = {0x4477AA};
    static const double v[] = {10}, lo[] = {9}, hi[] = {11};
    struct bars b = {.cat = cat, .ncat = 1, .ser = ser, .nser = 1, .color = col, .v = v, .lo = lo, .hi = hi};
    double bare = bars_height(&b, 500);
    b.title = "t";
    b.subtitle = "s";
    assert_true(bars_height(&b, 500) == bare + 18 + 14);
    struct heatmap hm = {0};
    bare = heatmap_height(&hm, 500);
    hm.title = "t";
    assert_true(heatmap_height(&hm, 500) == bare + 18);
    struct forest fo = {0};
    bare = forest_height(&fo);
    fo.subtitle = "s";
    assert_true(forest_height(&fo) == bare + 14);
    struct trend tr = {0};
    bare = trend_height(&tr);
    tr.title = "t";
    tr.subtitle = "s";
    assert_true(trend_height(&tr) == bare + 18 + 14);
}

/* ---- the text cache ---------------------------------------------------------- */

/* Text in every form the charts use: plain, wrapped and centred, cut with
 * an ellipsis, unbroken at hyphens, rotated, in each font; *data picks
 * the same strings with other sizes, widths, alignments and angles. */
static int text_forms_draw(struct chart *c, struct chart_rect r, const void *data)
{
    int v = *(const int *)data;
    chart_rgb(c, CHART_INK);
    chart_text(c, v ? CHART_FONT_REGULAR : CHART_FONT_BOLD, 9, r.x + 10, r.y + 10, 0, 0, 0, 0, "BERT (fit), batch 32");
    static const char *caption = "a caption long enough to wrap over two or three lines of the box";
    if (v) { /* other alignment; other width */
        chart_text(c, CHART_FONT_REGULAR, 7, r.x + r.w / 2, r.y + 30, 0, 0, 120, CHART_WRAP, caption);
        chart_text(c, CHART_FONT_REGULAR, 7, r.x + r.w / 2, r.y + 30, 0.5, 0, 150, CHART_WRAP, caption);
    } else {
        chart_text(c, CHART_FONT_REGULAR, 7, r.x + r.w / 2, r.y + 30, 0.5, 0, 120, CHART_WRAP, caption);
    }
    chart_text(c, CHART_FONT_ITALIC, 7, r.x + r.w - 10, r.y + 70, 1, 0, 60, v ? CHART_WRAP : CHART_ELLIPSIZE,
               "cut with an ellipsis at sixty points");
    chart_text(c, CHART_FONT_MONO, 7, r.x + 10, r.y + 90, 0, 0, 50, CHART_WRAP | (v ? 0 : CHART_KEEP_HYPHENS),
               "bert/fit/b32/torch-eager");
    chart_text_rotated(c, CHART_FONT_REGULAR, 8, r.x + 6, r.y + r.h / 2, 0.5, 0, v ? -M_PI / 4 : -M_PI / 2,
                       "ms/step");
    chart_text(c, CHART_FONT_REGULAR, v ? 9 : 7, r.x + 10, r.y + 130, 0, 0, 0, 0, "1,000");
    return 0;
}

/* The bytes of text_forms_draw's PNG (at scale), SVG and PDF, concatenated. */
static char *text_forms_bytes(const char *dir, int variant, double scale, size_t *len)
{
    char stem[512], path[600];
    snprintf(stem, sizeof(stem), "%s/forms", dir);
    struct chart_render_opts o = {.png_scale = scale, .pdf_date = "2024-03-12T10:00:00Z"};
    assert_int_equal(
        chart_render(stem, 300, 200, CHART_PNG | CHART_SVG | CHART_PDF, &o, text_forms_draw, &variant, NULL), 0);
    char *all = NULL;
    *len = 0;
    static const char *const ext[] = {"png", "svg", "pdf"};
    for (size_t i = 0; i < 3; i++) {
        char *b;
        size_t n;
        snprintf(path, sizeof(path), "%s.%s", stem, ext[i]);
        assert_int_equal(util_read_file(path, &b, &n), 0);
        all = realloc(all, *len + n);
        assert_non_null(all);
        memcpy(all + *len, b, n);
        *len += n;
        free(b);
        unlink(path);
    }
    return all;
}

/* Text laid out once and reused draws the same bytes as text laid out
 * afresh, whatever was drawn before: the same strings in other sizes,
 * widths, alignments and angles, or at another scale. */
static void test_text_cache_same_bytes(void **state)
{
    (void)state;
    assert_int_equal(chart_fonts_init(BENCHGEN_SOURCE_DIR), 0);
    char dir[] = "/tmp/test_charts.XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t n[4], m;
    char *b[4];
    textcache_clear();
    b[0] = text_forms_bytes(dir, 0, 1.5, &n[0]);
    b[1] = text_forms_bytes(dir, 0, 1.5, &n[1]); /* every label from the cache */
    textcache_clear();
    free(text_forms_bytes(dir, 1, 1.5, &m)); /* the same strings drawn otherwise first */
    b[2] = text_forms_bytes(dir, 0, 1.5, &n[2]);
    textcache_clear();
    free(text_forms_bytes(dir, 0, 2.0, &m)); /* at another scale first */
    b[3] = text_forms_bytes(dir, 0, 1.5, &n[3]);
    for (size_t i = 1; i < 4; i++) {
        assert_int_equal(n[i], n[0]);
        assert_memory_equal(b[i], b[0], n[0]);
    }
    for (size_t i = 0; i < 4; i++)
        free(b[i]);
    rmdir(dir);
    textcache_clear();
}

/* A text over CHART_TEXT_MAX bytes is drawn as its first CHART_TEXT_MAX
 * bytes, cut at a character's start, and an ellipsis: a 1 MiB model name in
 * a stranger's run.db (fuzz_runsql) gives the bytes of the cut one. */
static int long_text_draw(struct chart *c, struct chart_rect r, const void *data)
{
    chart_rgb(c, CHART_INK);
    chart_text(c, CHART_FONT_REGULAR, 7, r.x + 10, r.y + 10, 0, 0, r.w - 20, CHART_ELLIPSIZE, data);
    chart_text(c, CHART_FONT_REGULAR, 7, r.x + 10, r.y + 40, 0, 0, r.w - 20, CHART_WRAP, data);
    return 0;
}

/* Unbounded widths of CHART_TEXT_MAX, CHART_TEXT_MAX + 1 and 1 MiB x's. */
static int long_text_widths(struct chart *c, struct chart_rect r, const void *data)
{
    (void)r;
    double *w = (double *)data;
    size_t lens[3] = {CHART_TEXT_MAX, CHART_TEXT_MAX + 1, 1u << 20};
    for (int i = 0; i < 3; i++) {
        char *t = xmalloc(lens[i] + 1);
        memset(t, 'x', lens[i]);
        t[lens[i]] = '\0';
        chart_text_size(c, CHART_FONT_REGULAR, 7, 0, 0, t, &w[i], NULL);
        free(t);
    }
    return 0;
}

static char *long_text_bytes(const char *dir, const char *text, size_t *len)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/long", dir);
    assert_int_equal(chart_render(path, 300, 200, CHART_SVG, NULL, long_text_draw, text, NULL), 0);
    strcat(path, ".svg");
    char *b = NULL;
    assert_int_equal(util_read_file(path, &b, len), 0);
    unlink(path);
    return b;
}

static void test_long_text_cut(void **state)
{
    (void)state;
    assert_int_equal(chart_fonts_init(BENCHGEN_SOURCE_DIR), 0);
    char dir[] = "/tmp/test_charts.XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t big = 1u << 20;
    char *huge = xmalloc(big + 1), *cut = xmalloc(CHART_TEXT_MAX + 4);
    /* "e" with an acute accent (2 bytes) from byte 1 on: byte CHART_TEXT_MAX
     * is a continuation byte, so the cut steps back to the character's start */
    huge[0] = 'x';
    for (size_t i = 1; i + 1 < big; i += 2)
        memcpy(huge + i, "\xC3\xA9", 2);
    huge[big - 1] = 'x';
    huge[big] = '\0';
    assert_true(((unsigned char)huge[CHART_TEXT_MAX] & 0xC0) == 0x80);
    memcpy(cut, huge, CHART_TEXT_MAX - 1);
    memcpy(cut + CHART_TEXT_MAX - 1, "\xE2\x80\xA6", 4);
    size_t n1, n2;
    char *a = long_text_bytes(dir, huge, &n1), *b = long_text_bytes(dir, cut, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    /* widths, unbounded: CHART_TEXT_MAX x's whole; one more byte or a MiB of
     * them, the same CHART_TEXT_MAX x's and the ellipsis */
    double w[3];
    assert_int_equal(chart_render(dir, 100, 100, CHART_SVG, NULL, long_text_widths, w, NULL), 0);
    char svg[600];
    snprintf(svg, sizeof(svg), "%s.svg", dir);
    unlink(svg);
    assert_true(w[0] < w[1]);
    assert_true(w[1] == w[2]);
    char *c = NULL;
    free(a);
    free(b);
    free(c);
    free(huge);
    free(cut);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_compile_point), cmocka_unit_test(test_series_one_axis_kind),
        cmocka_unit_test(test_histogram_outlier),    cmocka_unit_test(test_first_call_label),
        cmocka_unit_test(test_detail_line),
        cmocka_unit_test(test_detail_frames),          cmocka_unit_test(test_backend_colours),
        cmocka_unit_test(test_text_contrast),        cmocka_unit_test(test_measured_vs_published),
        cmocka_unit_test(test_trend_one_scale),      cmocka_unit_test(test_names_never_break_mid_word),
        cmocka_unit_test(test_pdf_tall_figure),      cmocka_unit_test(test_hover_every_bar_and_point),
        cmocka_unit_test(test_text_cache_same_bytes), cmocka_unit_test(test_heading),
        cmocka_unit_test(test_long_text_cut),
    };
    return cmocka_run_group_tests_name("charts", tests, NULL, NULL);
}
