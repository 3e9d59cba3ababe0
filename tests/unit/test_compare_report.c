/*
 * test_compare_report.c - `benchgen compare --out DIR` in the report's
 * formats (compare_report.c) on the committed fixture runs in
 * tests/fixtures/compare/: byte-for-byte reproducibility (every file
 * rendered twice, SHA-256 compared), which charts a comparison gets (a forest
 * plot per comparison, the trend with three runs and not with two, stale
 * charts removed), the verdict table of compare.md against compare.json,
 * the workbook's sheets and numbers (no NaN/Inf, NA cells as text), escaping
 * of the hostile fixture in every format, the two chart kinds on degenerate
 * data, and an unwritable output directory.
 *
 * Renders go to a mkdtemp directory removed afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>

#include "charts/chart.h"
#include "cli/cli.h"
#include "compare/compare.h"
#include "compare/compare_report.h"
#include "base/error.h"
#include "charts/forest.h"
#include "charts/trend.h"
#include "base/util.h"
#include "testutil.h"

#define FIX BENCHGEN_SOURCE_DIR "/tests/fixtures/compare/"

static char tmp_root[64];

/* ---- helpers ------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    snprintf(tmp_root, sizeof(tmp_root), "/tmp/benchgen-compare-report-XXXXXX");
    if (!mkdtemp(tmp_root))
        return -1;
    setenv("BENCHGEN_HOME", BENCHGEN_SOURCE_DIR, 0); /* templates and fonts */
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return util_rm_rf(tmp_root);
}

static char *in_tmp(const char *name) { return util_printf("%s/%s", tmp_root, name); }

static bool exists(const char *dir, const char *name)
{
    char *path = util_printf("%s/%s", dir, name);
    bool yes = util_is_file(path);
    free(path);
    return yes;
}

static void load(struct compare_result *r, const char *const *dirs, size_t n)
{
    if (compare_load(r, dirs, n, NULL) != 0)
        fail_msg("compare_load: %s", error_last());
}

static void render(const struct compare_result *r, const char *dir)
{
    if (compare_report_render(r, dir) != 0)
        fail_msg("compare_report_render %s: %s", dir, error_last());
}


static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- reproducibility and which files ---------------------------------------- */

static const char *const three[] = {FIX "base", FIX "upgrade", FIX "later"};
static const char *const two[] = {FIX "base", FIX "upgrade"};


/* The page's one script is report.js, pinned by the Content-Security-Policy:
 * text that escaped escaping could not add another. */
static int only_own_script(const char *html)
{
    const char *s = strstr(html, "<script");
    return s && strncmp(s, "<script>/* report.js", 20) == 0 && !strstr(s + 1, "<script") &&
           strstr(html, "script-src 'sha256-") == NULL && strstr(html, "script-src &#39;sha256-") != NULL;
}

static void test_three_runs_twice_same_bytes(void **state)
{
    (void)state;
    struct compare_result r;
    load(&r, three, 3);
    char *a = in_tmp("three-a"), *b = in_tmp("three-b");
    render(&r, a);
    render(&r, b);
    size_t na = 0, nb = 0;
    char *ha = test_tree_hashes(a, &na), *hb = test_tree_hashes(b, &nb);
    assert_int_equal(na, 13); /* 4 documents, 3 charts x 3 formats */
    assert_int_equal(na, nb);
    assert_string_equal(ha, hb);
    static const char *const files[] = {"compare.html", "compare.md", "compare.pdf", "compare.xlsx"};
    for (size_t i = 0; i < 4; i++)
        assert_true(exists(a, files[i]));
    static const char *const charts[] = {"forest-1", "forest-2", "trend-1"};
    static const char *const ext[] = {"png", "svg", "pdf"};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 3; k++) {
            char name[64];
            snprintf(name, sizeof(name), "charts/%s.%s", charts[i], ext[k]);
            assert_true(exists(a, name));
        }

    /* a second render of the same comparison in another process gives the
     * same bytes too: nothing depends on what was drawn before */
    char *html = test_read_in(a, "compare.html");
    assert_int_equal(count(html, "<svg"), 3); /* every chart inlined */
    assert_non_null(strstr(html, "<section id=\"trend\">"));
    assert_non_null(strstr(html, "href=\"charts/trend-1.png\""));
    assert_true(only_own_script(html));
    assert_null(strstr(html, BENCHGEN_SOURCE_DIR)); /* nothing depends on where the runs are */
    free(html);
    char *md = test_read_in(a, "compare.md");
    assert_non_null(strstr(md, "](charts/forest-1.png)"));
    assert_non_null(strstr(md, "](charts/forest-2.png)"));
    assert_non_null(strstr(md, "](charts/trend-1.png)"));
    assert_non_null(strstr(md, "## Trend: mean ms/step in each run"));
    /* the trend table: a cell missing from a run says so */
    assert_non_null(strstr(md, "| mistral/generate/b1/torch-eager | 699.21 | NA (absent) | NA (absent) |"));
    assert_non_null(strstr(md, "| gemma/fit/b1/torch-eager | 249.79 | NA (error) | NA (absent) |"));
    /* the result line names the slower cell and by how much, in every run */
    assert_non_null(strstr(md, "Result: slower: sd/predict/b1/torch-eager by 10.4% in \\[1\\] diffusers-upgrade; "
                               "sd/predict/b1/torch-eager by 4.5% in \\[2\\] diffusers-later."));
    char *txt = NULL;
    size_t txt_len = 0;
    FILE *f = open_memstream(&txt, &txt_len);
    assert_int_equal(compare_write_text(&r, f), 0);
    fclose(f);
    assert_null(strstr(txt, "exit status"));
    assert_non_null(strstr(txt, "\nResult: slower: sd/predict/b1/torch-eager by 10.4% in [1]"));
    free(txt);
    free(md);
    char *pdf = NULL, *pdf_path = util_printf("%s/compare.pdf", a);
    size_t pdf_len = 0;
    static const char date[] = "/CreationDate (20260101000000Z)"; /* the baseline's created_utc */
    assert_int_equal(util_read_file(pdf_path, &pdf, &pdf_len), 0);
    assert_non_null(memmem(pdf, pdf_len, date, sizeof(date) - 1));
    free(pdf);
    free(pdf_path);
    free(ha);
    free(hb);
    free(a);
    free(b);
    compare_result_free(&r);
}

static void test_two_runs_no_trend_and_stale_charts_removed(void **state)
{
    (void)state;
    struct compare_result r3, r2;
    load(&r3, three, 3);
    load(&r2, two, 2);
    char *d = in_tmp("two");
    render(&r3, d); /* first a three-run comparison in the same place */
    assert_true(exists(d, "charts/trend-1.png"));
    char *keep = util_printf("%s/charts/heatmap.png", d); /* someone else's chart */
    assert_int_equal(util_write_file_atomic(keep, "x", 1), 0);
    render(&r2, d);
    assert_true(exists(d, "charts/forest-1.png"));
    assert_true(exists(d, "charts/forest-1.svg"));
    assert_true(exists(d, "charts/forest-1.pdf"));
    /* compare_report_render removes nothing: the earlier comparison's files
     * are removed by `compare --out` from its mark (report/outdir.h,
     * tests/integration/test_outputs_safe.sh) */
    assert_true(exists(d, "charts/forest-2.png"));
    assert_true(util_is_file(keep));
    char *html = test_read_in(d, "compare.html"), *md = test_read_in(d, "compare.md");
    assert_null(strstr(html, "trend"));
    assert_null(strstr(md, "Trend"));
    assert_int_equal(count(html, "<svg"), 1);
    free(html);
    free(md);
    char *xlsx = util_printf("%s/compare.xlsx", d);
    char *wbx = test_zip_entry(xlsx, "xl/workbook.xml");
    assert_non_null(wbx);
    assert_non_null(strstr(wbx, "name=\"Verdicts\""));
    assert_non_null(strstr(wbx, "name=\"Geomean\""));
    assert_non_null(strstr(wbx, "name=\"Environment diff\""));
    assert_non_null(strstr(wbx, "name=\"Runs\""));
    assert_null(strstr(wbx, "name=\"Trend\""));
    free(wbx);
    char *sheets3 = NULL;
    render(&r3, d);
    sheets3 = test_zip_entry(xlsx, "xl/workbook.xml");
    assert_non_null(strstr(sheets3, "name=\"Trend\""));
    /* Verdicts first: a reader converting the workbook gets it by default */
    assert_true(strstr(sheets3, "name=\"Verdicts\"") < strstr(sheets3, "name=\"Geomean\""));
    free(sheets3);
    free(xlsx);
    free(keep);
    free(d);
    compare_result_free(&r3);
    compare_result_free(&r2);
}

/* ---- compare.md's verdict table against compare.json ----------------------------- */

/* Markdown cell text without escapes and padding. */
static char *md_unescape(const char *s, size_t n)
{
    char *out = malloc(n + 1);
    size_t k = 0;
    while (n && *s == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n)
            i++;
        out[k++] = s[i];
    }
    out[k] = '\0';
    return out;
}

/* Splits a table row "| a | b\|c |" into its cells (escaped pipes stay). */
static size_t md_cells(const char *line, char **cells, size_t max)
{
    size_t n = 0;
    const char *p = strchr(line, '|');
    while (p && n < max) {
        const char *q = p + 1;
        while (*q && *q != '\n' && !(*q == '|' && q[-1] != '\\'))
            q++;
        if (*q != '|')
            break;
        cells[n++] = md_unescape(p + 1, (size_t)(q - p - 1));
        p = q;
    }
    return n;
}

static void fmt4(char *buf, size_t n, json_t *v) { snprintf(buf, n, "%.4f", json_real_value(v)); }

/* The text the verdict column must show for a JSON cell. */
static void expected_verdict(char *buf, size_t n, json_t *c)
{
    const char *match = json_string_value(json_object_get(c, "match"));
    const char *verdict = json_string_value(json_object_get(c, "verdict"));
    if (!strcmp(match, "mismatch"))
        snprintf(buf, n, "mismatch");
    else if (!strcmp(match, "only_baseline"))
        snprintf(buf, n, "only in baseline");
    else if (!strcmp(match, "only_run"))
        snprintf(buf, n, "only in this run");
    else if (!strcmp(verdict, "none"))
        snprintf(buf, n, "none (%s / %s)",
                 json_string_value(json_object_get(json_object_get(c, "a"), "status")),
                 json_string_value(json_object_get(json_object_get(c, "b"), "status")));
    else if (!strcmp(verdict, "same") && json_real_value(json_object_get(c, "band")) > SIGNIFICANCE_NOISE)
        snprintf(buf, n, "same (within +/-%.1f%%)", json_real_value(json_object_get(c, "band")) * 100.0);
    else
        snprintf(buf, n, "%s", verdict);
}

static void test_verdict_table_matches_json(void **state)
{
    (void)state;
    char *d = in_tmp("main");
    char *argv[] = {"compare", FIX "base", FIX "upgrade", FIX "later", "--out", d, NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 6, argv, 6, argv), 3);
    char *js = util_printf("%s/compare.json", d);
    json_error_t je;
    json_t *root = json_load_file(js, 0, &je);
    assert_non_null(root);
    char *md = test_read_in(d, "compare.md");
    json_t *pairs = json_object_get(root, "comparisons");
    assert_int_equal(json_array_size(pairs), 2);
    size_t checked = 0, tested = 0, untested = 0;
    for (size_t k = 0; k < json_array_size(pairs); k++) {
        json_t *p = json_array_get(pairs, k), *cells = json_object_get(p, "cells");
        char heading[32];
        snprintf(heading, sizeof(heading), "\n## \\[%d\\] ",
                 (int)json_integer_value(json_object_get(p, "run")));
        const char *sec = strstr(md, heading);
        assert_non_null(sec);
        const char *table =
            strstr(sec, "\n| Cell | A ms/step (geomean of processes) | B ms/step (geomean of processes) | Processes A/B | Noise (CV) | B/A | 95% CI | q (BH) | Verdict | Note |");
        assert_non_null(table);
        const char *line = strchr(strchr(table + 1, '\n') + 1, '\n') + 1; /* past the header and rule */
        for (size_t i = 0; i < json_array_size(cells); i++) {
            json_t *c = json_array_get(cells, i);
            char *col[16];
            size_t n = md_cells(line, col, 16);
            assert_int_equal(n, 10);
            assert_string_equal(col[0], json_string_value(json_object_get(c, "id")));
            char want[128];
            expected_verdict(want, sizeof(want), c);
            assert_string_equal(col[8], want);
            if (json_is_true(json_object_get(c, "tested"))) {
                char lo[32], hi[32], ratio[32], ci[80];
                fmt4(ratio, sizeof(ratio), json_object_get(c, "ratio"));
                fmt4(lo, sizeof(lo), json_object_get(c, "ci_lo"));
                fmt4(hi, sizeof(hi), json_object_get(c, "ci_hi"));
                snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
                assert_string_equal(col[5], ratio);
                assert_string_equal(col[6], ci);
                /* A and B: what the ratio is the ratio of */
                char ma[32], mb[32];
                compare_fmt_ms(ma, sizeof(ma), json_real_value(json_object_get(c, "ratio_a_ms")));
                compare_fmt_ms(mb, sizeof(mb), json_real_value(json_object_get(c, "ratio_b_ms")));
                assert_string_equal(col[1], ma);
                assert_string_equal(col[2], mb);
                assert_true(col[7][0] >= '0' && col[7][0] <= '9'); /* q */
                /* processes per side and the measured noise, as in the JSON */
                char procs[32];
                snprintf(procs, sizeof(procs), "%d/%d", (int)json_integer_value(json_object_get(c, "processes_a")),
                         (int)json_integer_value(json_object_get(c, "processes_b")));
                assert_string_equal(col[3], procs);
                assert_true(strchr(col[4], '%') != NULL);
                tested++;
            } else {
                /* no verdict: NA and the reason, never a number */
                assert_true(json_is_null(json_object_get(c, "ratio")));
                assert_true(strncmp(col[5], "NA (", 4) == 0);
                assert_string_equal(col[6], "NA");
                assert_string_equal(col[7], "NA");
                const char *match = json_string_value(json_object_get(c, "match"));
                if (!strcmp(match, "mismatch"))
                    assert_string_equal(col[5], "NA (mismatch)");
                if (!strcmp(match, "only_baseline")) {
                    assert_string_equal(col[5], "NA (only in baseline)");
                    assert_string_equal(col[2], "NA (not in this run)");
                }
                if (!strcmp(match, "only_run")) {
                    assert_string_equal(col[5], "NA (only in this run)");
                    assert_string_equal(col[1], "NA (not in the baseline)");
                }
                untested++;
            }
            /* a side that is not ok shows its status, never a number */
            json_t *b = json_object_get(c, "b");
            if (json_is_object(b) && strcmp(json_string_value(json_object_get(b, "status")), "ok")) {
                char na[64];
                snprintf(na, sizeof(na), "NA (%s)", json_string_value(json_object_get(b, "status")));
                assert_string_equal(col[2], na);
            }
            for (size_t j = 0; j < n; j++)
                free(col[j]);
            line = strchr(line, '\n') + 1;
            checked++;
        }
        assert_true(strncmp(line, "|", 1) != 0); /* the table has exactly the JSON's cells */
    }
    assert_int_equal(checked, 23);
    assert_int_equal(tested, 12);
    assert_int_equal(untested, 11);
    /* the summary lines and the geometric means agree too */
    assert_non_null(strstr(md, "**1 slower, 1 faster, 4 same, 1 ambiguous, 1 untested, 2 mismatched, 1 only "
                               "in baseline, 1 only in this run; 7 confounded; 0 confounded by machine drift."));
    assert_non_null(strstr(md, "5 confounded by machine drift. Drift canary B/A 1.3013"));
    assert_non_null(strstr(md, "MACHINE DRIFT: the drift canary"));
    /* the overall speed-up is over the affected cells, the control apart,
     * and the two add up to every tested cell */
    json_t *p0 = json_array_get(pairs, 0), *backends = json_object_get(p0, "backends");
    json_t *aff = json_object_get(p0, "affected"), *una = json_object_get(p0, "unaffected");
    json_int_t ngeo = 0;
    for (size_t i = 0; i < json_array_size(backends); i++)
        ngeo += json_integer_value(json_object_get(json_array_get(backends, i), "cells"));
    json_int_t na = json_integer_value(json_object_get(aff, "cells")), nu = json_integer_value(json_object_get(una, "cells"));
    assert_int_equal(na + nu, ngeo);
    assert_int_equal(nu, 2);
    char g[128];
    snprintf(g, sizeof(g), "| **Overall: cells the change can affect** | **%d** | **%d** | **%.4f** |", (int)na,
             (int)json_integer_value(json_object_get(aff, "decided")),
             json_real_value(json_object_get(aff, "geomean_ratio")));
    assert_non_null(strstr(md, g));
    snprintf(g, sizeof(g), "| Unaffected cells (a control) | %d | %d | %.4f |", (int)nu,
             (int)json_integer_value(json_object_get(una, "decided")),
             json_real_value(json_object_get(una, "geomean_ratio")));
    assert_non_null(strstr(md, g));
    /* the result names the slower cells by how much, in words, not as an exit status */
    assert_non_null(strstr(md, "**Result: "));
    assert_null(strstr(md, "exit status 3"));
    assert_non_null(strstr(md, "## What changed"));
    json_t *pcells = json_object_get(p0, "cells");
    for (size_t i = 0; i < json_array_size(pcells); i++) {
        json_t *c = json_array_get(pcells, i);
        const char *v = json_string_value(json_object_get(c, "verdict"));
        if (v && (!strcmp(v, "slower") || !strcmp(v, "faster"))) {
            const char *id = json_string_value(json_object_get(c, "id"));
            double ratio = json_real_value(json_object_get(c, "ratio"));
            char want[256];
            snprintf(want, sizeof(want), "%s %+.1f%%", id, (ratio - 1) * 100);
            assert_non_null(strstr(md, want)); /* named, with its change, under What changed */
        }
    }
    json_decref(root);
    free(md);
    free(js);
    free(d);
}

static void test_workbook_contents(void **state)
{
    (void)state;
    struct compare_result r;
    load(&r, three, 3);
    char *d = in_tmp("xlsx");
    render(&r, d);
    char *xlsx = util_printf("%s/compare.xlsx", d);
    struct strbuf all = {0};
    for (int i = 1; i <= 5; i++) {
        char name[64];
        snprintf(name, sizeof(name), "xl/worksheets/sheet%d.xml", i);
        char *s = test_zip_entry(xlsx, name);
        assert_non_null(s);
        strbuf_puts(&all, s);
        free(s);
    }
    /* no NaN or Inf anywhere: NA cells are text */
    assert_null(strstr(all.buf, "<v>nan"));
    assert_null(strstr(all.buf, "<v>-nan"));
    assert_null(strstr(all.buf, "<v>inf"));
    assert_null(strstr(all.buf, "<v>-inf"));
    char *verdicts = test_zip_entry(xlsx, "xl/worksheets/sheet1.xml");
    assert_non_null(strstr(verdicts, "<conditionalFormatting")); /* verdict colours, ratio scale */
    assert_non_null(strstr(verdicts, "<autoFilter"));
    assert_non_null(strstr(verdicts, "<pane"));
    free(verdicts);
    char *sst = test_zip_entry(xlsx, "xl/sharedStrings.xml");
    assert_non_null(strstr(sst, ">NA (mismatch)<"));
    assert_non_null(strstr(sst, ">NA (only in baseline)<"));
    assert_non_null(strstr(sst, ">NA (error)<"));
    assert_non_null(strstr(sst, ">Unintended changes<"));
    free(sst);
    char *core = test_zip_entry(xlsx, "docProps/core.xml");
    assert_non_null(strstr(core, "2026-01-01T00:00:00Z")); /* the baseline's date, not the clock */
    free(core);
    strbuf_free(&all);
    free(xlsx);
    free(d);
    compare_result_free(&r);
}

/* ---- escaping ------------------------------------------------------------------ */

static void test_hostile_strings_escaped(void **state)
{
    (void)state;
    static const char *const hostile[] = {FIX "base", FIX "hostile"};
    struct compare_result r;
    load(&r, hostile, 2);
    assert_non_null(strstr(r.runs[1]->name, "<script>"));
    char *d = in_tmp("hostile");
    render(&r, d);

    char *html = test_read_in(d, "compare.html");
    assert_true(only_own_script(html));
    assert_null(strstr(html, "<img"));
    assert_null(strstr(html, "<b>evil"));
    assert_non_null(
        strstr(html, "diffusers-&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&amp;&#39;q&#39;|*_"));
    assert_non_null(strstr(html, "0.30.0&quot;&lt;script&gt;alert(&#39;pkg&#39;)&lt;/script&gt;"));
    assert_non_null(strstr(html, "m&lt;script&gt;|*_/fit/b1/torch-eager"));
    assert_non_null(strstr(html, "RuntimeError: &lt;script&gt;alert(&#39;detail&#39;)"));
    assert_non_null(strstr(html, "bfloat16&lt;script&gt;alert(&#39;p&#39;)&lt;/script&gt;"));
    free(html);

    char *md = test_read_in(d, "compare.md");
    int in_code = 0;
    for (char *line = md; line && *line;) {
        char *nl = strchr(line, '\n');
        if (!strncmp(line, "```", 3))
            in_code = !in_code;
        for (char *p = line; !in_code && p && (!nl || p < nl); p = strchr(p + 1, '<'))
            if (p[0] == '<' && (p == md || p[-1] != '\\'))
                fail_msg("unescaped '<' in compare.md: %.*s", (int)(nl ? nl - line : 80), line);
        line = nl ? nl + 1 : NULL;
    }
    assert_non_null(strstr(md, "diffusers-\\<script\\>alert(\"name\")\\</script\\>\\&'q'\\|\\*\\_"));
    assert_non_null(strstr(md, "m\\<script\\>\\|\\*\\_/fit/b1/torch-eager"));
    assert_non_null(strstr(md, "0.30.0\"\\<script\\>alert('pkg')\\</script\\>"));
    free(md);

    char *xlsx = util_printf("%s/compare.xlsx", d);
    char *sst = test_zip_entry(xlsx, "xl/sharedStrings.xml");
    assert_null(strstr(sst, "<script"));
    assert_non_null(strstr(sst, "diffusers-&lt;script&gt;alert(\"name\")&lt;/script&gt;&amp;'q'|*_"));
    free(sst);
    free(xlsx);
    /* chart file names never come from the runs */
    assert_true(exists(d, "charts/forest-1.png"));
    free(d);
    compare_result_free(&r);
}

/* ---- the chart kinds on degenerate data, and errors ------------------------------ */

static void test_charts_degenerate(void **state)
{
    (void)state;
    assert_int_equal(chart_fonts_init(BENCHGEN_SOURCE_DIR), 0);
    struct chart_render_opts o = {.png_scale = 1, .pdf_date = "2026-01-01T00:00:00Z", .pdf_title = NULL};
    /* only NA rows, and a ratio far from 1 on a wide range */
    struct forest_row rows[] = {
        {.label = "a", .est = NAN, .lo = NAN, .hi = NAN, .na = "NA (mismatch)"},
        {.label = "b",
         .est = 12.0,
         .lo = 0.05,
         .hi = 40.0,
         .color = 0xD55E00,
         .value = "12",
         .tag = "slower"},
        {.label = "geomean", .est = NAN, .lo = NAN, .hi = NAN, .summary = 1},
    };
    struct forest only_na = {.title = "t", .n = 1, .rows = rows, .ref = 1, .band_lo = NAN, .band_hi = NAN};
    struct forest wide = {.n = 3, .rows = rows, .ref = 1, .band_lo = 0.98, .band_hi = 1.02};
    struct forest none = {.n = 0, .rows = rows, .ref = 1, .band_lo = NAN, .band_hi = NAN};
    char *p1 = in_tmp("forest-na"), *p2 = in_tmp("forest-wide"), *p3 = in_tmp("forest-none");
    assert_true(forest_height(&wide) > forest_height(&only_na));
    assert_int_equal(chart_render(p1, 400, forest_height(&only_na), CHART_PNG | CHART_SVG | CHART_PDF, &o,
                                  forest_draw, &only_na, NULL),
                     0);
    assert_int_equal(chart_render(p2, 400, forest_height(&wide), CHART_PNG, &o, forest_draw, &wide, NULL), 0);
    assert_int_equal(chart_render(p3, 400, forest_height(&none), CHART_PNG, &o, forest_draw, &none, NULL), 0);
    /* a trend whose series has no value at all, one with a single run, and a gap */
    double v0[] = {NAN, NAN, NAN}, v1[] = {5.0, NAN, 5.0};
    const char *na[] = {"NA (error)", NULL, "NA (absent)"};
    const char *labels[] = {"[0]", "[1]", "[2]"};
    struct trend_series ser[] = {{.label = "none", .v = v0, .na = na},
                                 {.label = "flat", .v = v1, .lo = v1, .hi = v1}};
    struct trend t = {
        .title = "t", .key = "k", .npoints = 3, .point_label = labels, .nseries = 2, .series = ser};
    struct trend one = {.npoints = 1, .point_label = labels, .nseries = 1, .series = &ser[1], .cols = 5};
    char *p4 = in_tmp("trend-a"), *p5 = in_tmp("trend-b");
    assert_int_equal(chart_render(p4, 600, trend_height(&t), CHART_PNG | CHART_SVG, &o, trend_draw, &t, NULL),
                     0);
    assert_int_equal(chart_render(p5, 300, trend_height(&one), CHART_PNG, &o, trend_draw, &one, NULL), 0);
    char *svg = NULL;
    size_t len = 0;
    char *svgpath = util_printf("%s.svg", p4);
    assert_int_equal(util_read_file(svgpath, &svg, &len), 0);
    assert_true(len > 100);
    free(svg);
    free(svgpath);
    free(p1);
    free(p2);
    free(p3);
    free(p4);
    free(p5);
}

static void test_unwritable_output(void **state)
{
    (void)state;
    struct compare_result r;
    load(&r, two, 2);
    char *file = in_tmp("a-file");
    assert_int_equal(util_write_file_atomic(file, "x", 1), 0);
    char *under = util_printf("%s/out", file); /* a directory inside a file */
    assert_true(compare_report_render(&r, under) < 0);
    assert_true(error_last()[0] != '\0');
    char *argv[] = {"compare", FIX "base", FIX "upgrade", "--out", under, NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 5, argv, 5, argv), 1);
    free(under);
    free(file);
    compare_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_runs_twice_same_bytes),
        cmocka_unit_test(test_two_runs_no_trend_and_stale_charts_removed),
        cmocka_unit_test(test_verdict_table_matches_json),
        cmocka_unit_test(test_workbook_contents),
        cmocka_unit_test(test_hostile_strings_escaped),
        cmocka_unit_test(test_charts_degenerate),
        cmocka_unit_test(test_unwritable_output),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
