/*
 * test_report.c - `benchgen report` from the committed fixture runs
 * (tests/fixtures/runs/): escaping per format, templates, the reference
 * CSV reader, number formatting, the grid and tables against run.db, the
 * command line, byte-for-byte reproducibility (every file rendered twice,
 * SHA-256 compared), and the workbook never holding NaN/Inf.
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

#include "charts/chart.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/xalloc.h"
#include "charts/bars.h"
#include "charts/heatmap.h"
#include "report/answer.h"
#include "report/doc.h"
#include "report/doc_html.h"
#include "report/doc_md.h"
#include "report/figure.h"
#include "report/grid.h"
#include "report/rctx.h"
#include "report/reference.h"
#include "cli/cli.h"
#include "report/report.h"
#include "store/rundata.h"
#include "report/tables.h"
#include "base/template.h"
#include "base/util.h"
#include "testutil.h"

#ifndef BENCHGEN_SOURCE_DIR
#define BENCHGEN_SOURCE_DIR "."
#endif
#define FIXTURES BENCHGEN_SOURCE_DIR "/tests/fixtures/runs"
#define PUBLISHED FIXTURES "/published"
#define TRICKY FIXTURES "/tricky"
#define REFERENCE BENCHGEN_SOURCE_DIR "/data/reference/keras-benchmarks.csv"

/* ---- helpers ------------------------------------------------------------- */

static char tmp_root[64];

static int group_setup(void **state)
{
    (void)state;
    snprintf(tmp_root, sizeof(tmp_root), "/tmp/benchgen-report-XXXXXX");
    if (!mkdtemp(tmp_root))
        return -1;
    /* renders read templates and fonts from the source tree */
    setenv("BENCHGEN_HOME", BENCHGEN_SOURCE_DIR, 0);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return util_rm_rf(tmp_root);
}

static char *esc(int (*fn)(struct strbuf *, const char *), const char *s)
{
    struct strbuf sb = {0};
    assert_int_equal(fn(&sb, s), 0);
    return strbuf_detach(&sb);
}

static int run_report(const char *a0, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    argv[argc++] = "report";
    va_start(ap, a0);
    for (const char *a = a0; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return cli_dispatch(&cli_report, argc, argv, argc, argv);
}

/* ---- escaping ------------------------------------------------------------ */


/* The page's one script is report.js, pinned by the Content-Security-Policy:
 * text that escaped escaping could not add another. */
static int only_own_script(const char *html)
{
    const char *s = strstr(html, "<script");
    return s && strncmp(s, "<script>/* report.js", 20) == 0 && !strstr(s + 1, "<script") &&
           strstr(html, "script-src 'sha256-") == NULL && strstr(html, "script-src &#39;sha256-") != NULL;
}

static void test_escape_html(void **state)
{
    (void)state;
    char *s = esc(escape_html, "<script>alert(\"x\" & 'y')</script>");
    assert_string_equal(s, "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
    free(s);
    s = esc(escape_html, "bad\x01"
                         "byte\xff end");
    assert_string_equal(s, "bad\xEF\xBF\xBD"
                           "byte\xEF\xBF\xBD end");
    free(s);
    s = esc(escape_html, NULL);
    assert_string_equal(s, "");
    free(s);
}

static void test_escape_md(void **state)
{
    (void)state;
    char *s = esc(escape_md, "<script>a|b*c_d`e[f](g)&h\nnext");
    assert_string_equal(s, "\\<script\\>a\\|b\\*c\\_d\\`e\\[f\\](g)\\&h next");
    free(s);
    s = esc(escape_md, "1. not a list");
    assert_string_equal(s, "1\\. not a list");
    free(s);
    s = esc(escape_md, "1.26.4");
    assert_string_equal(s, "1.26.4");
    free(s);
    s = esc(escape_md, "- not a bullet");
    assert_string_equal(s, "\\- not a bullet");
    free(s);
    s = esc(escape_md, "keras3-jax");
    assert_string_equal(s, "keras3-jax");
    free(s);

    struct strbuf sb = {0};
    assert_int_equal(escape_md_code(&sb, "a ``` b\n````\n", "text"), 0);
    /* the fence is longer than any backtick run inside */
    assert_true(strncmp(sb.buf, "`````text\n", 10) == 0);
    assert_non_null(strstr(sb.buf, "\n`````\n"));
    strbuf_free(&sb);
}

static void test_escape_other(void **state)
{
    (void)state;
    char *s = esc(escape_pango, "<b>&'\"");
    assert_string_equal(s, "&lt;b&gt;&amp;&apos;&quot;");
    free(s);

    s = escape_xlsx("ok\x02"
                    "ctl <kept>");
    assert_string_equal(s, "ok\xEF\xBF\xBD"
                           "ctl <kept>");
    free(s);
    char *big = malloc(40000);
    memset(big, 'x', 39999);
    big[39999] = '\0';
    s = escape_xlsx(big);
    /* cut with a note, within Excel's limit */
    assert_true(strlen(s) <= 32767 + 2); /* the ellipsis is 3 bytes, 1 character */
    assert_non_null(strstr(s, " \xE2\x80\xA6 [truncated: "));
    assert_non_null(strstr(s, " of 39999 characters shown]"));
    assert_int_equal(strspn(s, "x"), 32767 - 96);
    free(s);
    big[32767] = '\0'; /* exactly the limit: whole */
    s = escape_xlsx(big);
    assert_int_equal(strlen(s), 32767);
    free(s);
    free(big);

    s = escape_filename("bert/fit/b32 <x>");
    assert_string_equal(s, "bert_fit_b32__x_");
    free(s);
    s = escape_filename("..");
    assert_string_equal(s, "_");
    free(s);
}

/* ---- templates ------------------------------------------------------------- */

static void test_template(void **state)
{
    (void)state;
    struct kvlist vars = {0};
    struct strbuf out = {0};
    kvlist_add(&vars, "name", "<b>");
    kvlist_add(&vars, "frag", "<i>ok</i>");
    assert_int_equal(template_render(&out, "t", "a {{name}} b {{{frag}}} c {{name}}", &vars, escape_html), 0);
    assert_string_equal(out.buf, "a &lt;b&gt; b <i>ok</i> c &lt;b&gt;");
    strbuf_free(&out);
    assert_int_equal(template_render(&out, "t", "x\n{{missing}}", &vars, escape_html), BG_EGENERIC);
    assert_non_null(strstr(error_last(), "t:2: unknown placeholder {{missing}}"));
    strbuf_free(&out);
    assert_int_equal(template_render(&out, "t", "{{bad name}}", &vars, escape_html), BG_EGENERIC);
    strbuf_free(&out);
    kvlist_free(&vars);

    /* the shipped templates only use placeholders the writers fill */
    char *t = NULL;
    assert_int_equal(template_load(&t, "report.html"), 0);
    assert_non_null(strstr(t, "{{{body}}}"));
    assert_non_null(strstr(t, "{{{nav}}}"));
    free(t);
}

/* Colours a reader must tell apart, computed from the colours the writers
 * use: text at least 4.5:1 (WCAG AA), the heatmap a sequential scale whose
 * lightness alone carries the order, better against worse blue against orange. */
static unsigned css_color(const char *css, const char *prop)
{
    const char *p = strstr(css, prop);
    assert_non_null(p);
    p = strchr(p, '#');
    assert_non_null(p);
    unsigned v = (unsigned)strtoul(p + 1, NULL, 16);
    return strspn(p + 1, "0123456789abcdefABCDEF") == 3
               ? ((v >> 8 & 0xF) * 0x110000) | ((v >> 4 & 0xF) * 0x1100) | ((v & 0xF) * 0x11)
               : v;
}

static void test_palette_contrast(void **state)
{
    (void)state;
    assert_true(chart_contrast(CHART_NA, 0xFFFFFF) >= 4.5); /* NA notes in charts */
    assert_true(chart_contrast(CHART_MUTED, 0xF7F7F7) >= 4.5); /* NA cells in the PDF */
    assert_true(chart_contrast(CHART_MUTED, HEATMAP_NA_COLOR) >= 4.5);
    char *css = NULL;
    assert_int_equal(template_load(&css, "report.css"), 0);
    unsigned na = css_color(css, "--na:"), na_bg = css_color(css, "td.na {");
    assert_true(chart_contrast(na, na_bg) >= 4.5);
    assert_true(chart_contrast(css_color(css, "--muted:"), 0xFFFFFF) >= 4.5);
    free(css);
    double last_l = 2;
    for (double r = 1.0; r <= 5.0; r += 0.05) {
        unsigned bg = heatmap_color(r);
        assert_true(chart_contrast(chart_text_on(bg), bg) >= 4.5);        /* values in the heatmap */
        assert_true(chart_contrast(CHART_INK, chart_mix(bg, 0xFFFFFF, 0.55)) >= 4.5); /* shaded tables */
        unsigned R = bg >> 16 & 0xFF, G = bg >> 8 & 0xFF, B = bg & 0xFF;
        double l = 0.299 * R + 0.587 * G + 0.114 * B;
        assert_true(B >= R && B >= G);    /* one hue: blue */
        assert_true(l <= last_l * 255 + 1e-9 || last_l > 1); /* darker as it gets slower */
        last_l = l / 255;
    }
    /* better is blue, worse is orange: not a red-green pair */
    assert_true((CHART_BETTER & 0xFF) > (CHART_BETTER >> 16));
    assert_true((CHART_WORSE >> 16) > (CHART_WORSE & 0xFF) && (CHART_WORSE >> 8 & 0xFF) > (CHART_WORSE & 0xFF));
    static const unsigned tints[] = {CHART_BETTER_BG, CHART_WORSE_BG, CHART_UNSURE_BG};
    for (size_t i = 0; i < 3; i++)
        assert_true(chart_contrast(CHART_INK, tints[i]) >= 4.5);
    assert_true(chart_contrast(CHART_WARN, 0xFFFFFF) >= 4.5);
    /* verdict words are written in their colour, on white and on the forest's stripes */
    static const unsigned words[] = {CHART_BETTER, CHART_WORSE, CHART_UNSURE, CHART_NA};
    for (size_t i = 0; i < 4; i++)
        assert_true(chart_contrast(words[i], 0xF6F6F6) >= 4.5);
}

/* Environment per backend: each column holds what that backend's own cells
 * recorded, never a value copied from another backend of the same Python
 * environment (the three Keras 3 backends share one). */
static void test_environment_per_backend(void **state)
{
    (void)state;
    struct rundata *rd = NULL;
    struct rctx x;
    assert_int_equal(rundata_load(&rd, PUBLISHED), 0);
    assert_int_equal(rctx_init(&x, rd, NULL, NULL, -1), 0);
    struct table t;
    assert_int_equal(tables_build(&x, TABLE_PY_ENV, &t), 0);
    size_t checked = 0;
    for (size_t c = 1; c < t.ncols; c++) {
        int col = -1;
        for (size_t k = 0; k < x.g->ncols; k++)
            if (strcmp(x.g->cols[k].display, t.head[c]) == 0)
                col = (int)k;
        assert_true(col >= 0); /* one column per backend */
        for (size_t r = 0; r < t.nrows; r++) {
            const char *key = table_at(&t, r, 0)->text, *shown = table_at(&t, r, c)->text;
            /* the value of the backend's first cell that recorded an environment */
            const char *want = NULL;
            for (size_t i = 0; i < rd->ncells && !want; i++)
                if (rd->cells[i].result.env.n && !strcmp(rd->cells[i].cell.backend, x.g->cols[col].backend))
                    want = kvlist_get(&rd->cells[i].result.env, key);
            assert_string_equal(shown, want ? want : "-");
            checked++;
        }
    }
    assert_true(checked > 0);
    int kb = -1;
    for (size_t r = 0; r < t.nrows; r++)
        if (!strcmp(table_at(&t, r, 0)->text, "env.KERAS_BACKEND"))
            kb = (int)r;
    assert_true(kb >= 0);
    int seen_tf = 0, seen_jax = 0, seen_torch = 0;
    for (size_t c = 1; c < t.ncols; c++) {
        const char *v = table_at(&t, (size_t)kb, c)->text;
        seen_tf += !strcmp(v, "tensorflow");
        seen_jax += !strcmp(v, "jax");
        seen_torch += !strcmp(v, "torch");
    }
    assert_int_equal(seen_tf, 1);
    assert_int_equal(seen_jax, 1);
    assert_int_equal(seen_torch, 1);
    table_free(&t);
    /* memory in MiB / GiB, never raw bytes */
    assert_int_equal(tables_build(&x, TABLE_RUN_ENV, &t), 0);
    for (size_t r = 0; r < t.nrows; r++) {
        const char *key = table_at(&t, r, 0)->text;
        if (strlen(key) > 6 && !strcmp(key + strlen(key) - 6, "_bytes"))
            assert_true(strstr(table_at(&t, r, 1)->text, "GiB") || strstr(table_at(&t, r, 1)->text, "MiB"));
    }
    table_free(&t);
    rctx_free(&x);
    rundata_free(rd);
}

/* The answer: the fastest backend per row against the grid, a lead under
 * the noise band called a tie, the geometric means against the grid. */
static void test_answer(void **state)
{
    (void)state;
    struct rundata *rd = NULL;
    struct rctx x;
    struct answer a;
    assert_int_equal(rundata_load(&rd, PUBLISHED), 0);
    assert_int_equal(rctx_init(&x, rd, NULL, NULL, -1), 0);
    assert_int_equal(answer_build(&a, &x), 0);
    size_t wins = 0, ties = 0;
    for (size_t r = 0; r < x.g->nrows; r++) {
        const struct answer_row *ar = &a.rows[r];
        assert_int_equal(ar->best, x.g->rows[r].best_col);
        char *s = answer_sentence(&a, &x, r);
        assert_non_null(s);
        if (ar->kind == ANSWER_TIE) {
            assert_true(ar->ratio < 1 + ANSWER_NOISE);
            assert_non_null(strstr(s, "a tie"));
            ties++;
        } else if (ar->kind == ANSWER_CLEAR || ar->kind == ANSWER_LIKELY) {
            assert_true(ar->ratio >= 1 + ANSWER_NOISE);
            assert_true(ar->lo <= ar->ratio && ar->ratio <= ar->hi);
            assert_non_null(strstr(s, "is fastest"));
            assert_non_null(strstr(s, x.g->cols[ar->best].display));
            wins++;
        }
        free(s);
    }
    assert_true(ties > 0 && wins > 0); /* the fixture has both */
    size_t total = 0;
    for (size_t c = 0; c < x.g->ncols; c++)
        total += a.wins[c];
    assert_int_equal(total, wins);
    assert_int_equal(a.max_repeats, 1);
    for (size_t i = 0; i < a.ngeo; i++) {
        const struct answer_geo *ge = &a.geo[i];
        double sum = 0;
        size_t n = 0;
        for (size_t r = 0; r < x.g->nrows; r++) {
            const struct grid_cell *b = grid_at(x.g, r, (size_t)x.baseline), *v = grid_at(x.g, r, (size_t)ge->col);
            if (b->ok && v->ok) {
                sum += log(b->st.mean / v->st.mean);
                n++;
            }
        }
        assert_int_equal(ge->n, n);
        assert_true(fabs(ge->geo - exp(sum / (double)n)) < 1e-9);
        assert_true(ge->lo <= ge->geo && ge->geo <= ge->hi);
    }
    answer_free(&a);
    rctx_free(&x);
    rundata_free(rd);
}

/* The speed-up axis ends at -100%: the formula cannot go below it. */
static void test_speedup_axis(void **state)
{
    (void)state;
    static const double v[] = {-95.0, -40.0, 12.0, 310.0};
    struct bars b = {.ncat = 4, .nser = 1, .v = v, .percent = 1};
    struct chart_axis ax;
    bars_value_axis(&b, &ax, 600);
    assert_true(ax.lo >= -100.0);
    assert_true(ax.hi >= 310.0);
    for (size_t t = 0; t < ax.nticks; t++)
        assert_true(ax.ticks[t] >= -100.0);
    static const double pos[] = {5.0, 40.0};
    b = (struct bars){.ncat = 2, .nser = 1, .v = pos, .percent = 1};
    bars_value_axis(&b, &ax, 600);
    assert_true(ax.lo == 0);
}

/* One document, drawn by the HTML and Markdown writers: the same blocks,
 * escaped for each format, links only where benchgen wrote them. */
static void test_doc_model(void **state)
{
    (void)state;
    struct doc d;
    struct table t;
    doc_init(&d, "T <1>", "sub", NULL, 0);
    doc_section(&d, "s1", "Sec & one");
    doc_heading(&d, "Warnings");
    doc_warning(&d, "cell|a", "noisy <b>");
    doc_warning(&d, NULL, "second");
    doc_paraf(&d, DOC_ALERT, DOC_LINKS, "%d cells failed: see [Failures](#failures).", 2);
    doc_para(&d, DOC_NORMAL, "[not](#a link) from the run");
    table_init(&t, 1);
    table_head(&t, 0, "H", 0);
    size_t r = table_row(&t);
    table_set(&t, r, 0, 0, NAN, "v|1");
    assert_int_equal(table_finish(&t), 0);
    doc_table(&d, &t, 7);
    assert_null(t.cells); /* the document owns it now */
    doc_code(&d, "a: 1\n", "yaml");
    doc_end(&d);
    assert_int_equal(doc_error(&d), 0);

    struct strbuf h = {0}, m = {0};
    struct doc_html_glyphs g = {0};
    doc_html_render(&h, &d, &g);
    assert_int_equal(strbuf_error(&h), 0);
    assert_non_null(strstr(h.buf, "<section id=\"s1\">\n<h2>Sec &amp; one</h2>\n<h3>Warnings</h3>\n"
                                  "<ul class=\"warnings\">\n<li><code>cell|a</code>: noisy &lt;b&gt;</li>\n"
                                  "<li>second</li>\n</ul>\n"));
    assert_non_null(strstr(h.buf, "<p class=\"note\">2 cells failed: see <a href=\"#failures\">Failures</a>.</p>"));
    assert_non_null(strstr(h.buf, "<p>[not](#a link) from the run</p>"));
    assert_non_null(strstr(h.buf, "<pre>a: 1\n</pre>\n</section>\n"));
    doc_md_render(&m, &d, "charts");
    assert_int_equal(strbuf_error(&m), 0);
    assert_non_null(strstr(m.buf, "## Sec \\& one\n\n### Warnings\n\n- cell\\|a: noisy \\<b\\>\n"));
    assert_non_null(strstr(m.buf, "- second\n\n2 cells failed: see [Failures](#failures)."));
    assert_non_null(strstr(m.buf, "| v\\|1 |"));
    assert_non_null(strstr(m.buf, "```yaml\na: 1\n"));
    strbuf_free(&h);
    strbuf_free(&m);
    doc_html_glyphs_free(&g);
    doc_free(&d);
}

/* A table remembers its first error, as a strbuf does: a cell text whose
 * format cannot expand (a wide character the C locale cannot encode) is
 * BG_EGENERIC, the calls after it do nothing, table_finish() returns it once
 * and a document that takes the table over carries it. */
/* The spec as the documents show it: long lines cut with a note, the
 * lines past the limit left out with a note; short specs untouched. */
static void test_doc_cap_lines(void **state)
{
    (void)state;
    assert_null(doc_cap_lines("a: 1\nb: 2\n", 8, 100, "X"));
    char *s = doc_cap_lines("a: 1\nb: 123456789\nc: 3", 8, 100, "X");
    assert_string_equal(s, "a: 1\nb: 12345 \xE2\x80\xA6 [line truncated: 8 of 12 bytes shown]\nc: 3");
    free(s);
    s = doc_cap_lines("a\nb\nc\nd\n", 8, 4, "X");
    assert_string_equal(s, "a\nb\n\xE2\x80\xA6 [truncated: 2 of 4 lines shown; X has the whole text]\n");
    free(s);
    /* never inside a UTF-8 sequence */
    s = doc_cap_lines("\xC3\xA9\xC3\xA9\xC3\xA9", 3, 100, "X");
    assert_string_equal(s, "\xC3\xA9 \xE2\x80\xA6 [line truncated: 2 of 6 bytes shown]");
    free(s);
}

static void test_table_first_error(void **state)
{
    (void)state;
    struct table t;
    struct doc d;
    table_init(&t, 2);
    table_head(&t, 0, "A", 0);
    table_head(&t, 1, "B", 1);
    size_t r = table_row(&t);
    table_set(&t, r, 0, 0, NAN, "kept");
    assert_int_equal(table_error(&t), 0);
    table_set(&t, r, 1, 0, 1.0, "%ls", L"\u0100");
    assert_int_equal(table_error(&t), BG_EGENERIC);
    assert_non_null(strstr(error_last(), "could not be formatted"));
    table_set(&t, r, 1, 0, 2.0, "after");
    assert_null(table_at(&t, r, 1)->text); /* nothing happens after the first error */
    assert_int_equal(table_finish(&t), BG_EGENERIC);
    assert_string_equal(table_at(&t, r, 0)->text, "kept");
    doc_init(&d, "T", NULL, NULL, 0);
    doc_table(&d, &t, 7);
    assert_int_equal(doc_error(&d), BG_EGENERIC);
    doc_free(&d);
}

static int draw_nothing(struct chart *c, struct chart_rect r, const void *data)
{
    (void)c;
    (void)r;
    (void)data;
    return 0;
}

/* figures_add_arena() takes the arena, name and title over: a figure whose
 * label format could not expand is refused (BG_EGENERIC) and freed with
 * them, one that could is added with copies (ASan: nothing leaks either way). */
static void test_figures_add_arena(void **state)
{
    (void)state;
    struct figure *figs = NULL;
    size_t nfigs = 0;
    struct figure_arena *a = figure_arena_new(sizeof(*a));
    assert_non_null(figure_arena_printf(a, "%d ms", 3));
    assert_int_equal(figures_add_arena(&figs, &nfigs, FIG_SUMMARY, 100, 50, 1, draw_nothing, a, xprintf("f-%d", 1),
                                       xstrdup("Title"), "Caption."),
                     0);
    assert_int_equal(nfigs, 1);
    assert_string_equal(figs[0].name, "f-1");
    assert_string_equal(figs[0].title, "Title");
    a = figure_arena_new(sizeof(*a));
    assert_null(figure_arena_printf(a, "%ls", L"\u0100")); /* cannot expand in the C locale */
    assert_true(a->failed);
    assert_int_equal(figures_add_arena(&figs, &nfigs, FIG_SUMMARY, 100, 50, 1, draw_nothing, a, xstrdup("f-2"),
                                       xstrdup("Title"), "Caption."),
                     BG_EGENERIC);
    assert_non_null(strstr(error_last(), "f-2"));
    assert_int_equal(nfigs, 1);
    figures_free(figs, nfigs);
}

/* ---- reference ---------------------------------------------------------------- */

static void test_reference_parse(void **state)
{
    (void)state;
    static const char csv[] =
        "revision,model,task,batch,backend,ms_per_step,published,note\r\n"
        "4,bert,fit,32,keras3-jax,222.37,222.37,\r\n"
        "4,gemma,generate,1,keras3-torch,7649.40,\"7,649.40*\",\"a, \"\"quoted\"\" note\"\r\n"
        "4,gemma,fit,8,keras2-tensorflow,,NA,\r\n";
    struct reference *ref = NULL;
    assert_int_equal(reference_parse(&ref, "mem.csv", csv, sizeof(csv) - 1), 0);
    assert_int_equal(ref->nrows, 3);
    const struct ref_row *r = reference_find(ref, 4, "gemma", "generate", 1, "keras3-torch");
    assert_non_null(r);
    assert_true(fabs(r->ms - 7649.40) < 1e-9);
    assert_string_equal(r->published, "7,649.40*");
    assert_string_equal(r->note, "a, \"quoted\" note");
    r = reference_find(ref, 4, "gemma", "fit", 8, "keras2-tensorflow");
    assert_true(isnan(r->ms));
    assert_null(reference_find(ref, 3, "bert", "fit", 32, "keras3-jax"));
    reference_free(ref);

    static const char missing[] = "revision,model,task,batch,ms_per_step\n";
    assert_int_equal(reference_parse(&ref, "m.csv", missing, sizeof(missing) - 1), BG_ESPEC);
    assert_non_null(strstr(error_last(), "missing required column \"backend\""));
    static const char badnum[] = "revision,model,task,batch,backend,ms_per_step\n1,a,fit,1,b,fast\n";
    assert_int_equal(reference_parse(&ref, "b.csv", badnum, sizeof(badnum) - 1), BG_ESPEC);
    assert_non_null(strstr(error_last(), "b.csv:2:"));
}

/* Lookups go through a sorted index: a key given twice is the first row in
 * file order, whatever the order of the rows, and revisions come back
 * sorted and distinct. */
static void test_reference_index(void **state)
{
    (void)state;
    static const char csv[] = "revision,model,task,batch,backend,ms_per_step\n"
                              "9,b,fit,2,x,1\n"
                              "2,a,fit,1,x,2\n"
                              "9,b,fit,2,x,3\n"
                              "5,a,fit,1,x,4\n"
                              "2,a,fit,10,x,5\n"
                              "2,a,fit,1,y,6\n";
    struct reference *ref = NULL;
    assert_int_equal(reference_parse(&ref, "i.csv", csv, sizeof(csv) - 1), 0);
    assert_int_equal(reference_find(ref, 9, "b", "fit", 2, "x")->line, 2);
    assert_true(reference_find(ref, 2, "a", "fit", 1, "x")->ms == 2);
    assert_true(reference_find(ref, 2, "a", "fit", 10, "x")->ms == 5);
    assert_true(reference_find(ref, 2, "a", "fit", 1, "y")->ms == 6);
    assert_null(reference_find(ref, 2, "a", "fit", 2, "x"));
    assert_null(reference_find(ref, 3, "a", "fit", 1, "x"));
    assert_null(reference_find(ref, 9, "b", "fit", 2, "z"));
    int revs[2];
    assert_int_equal(reference_revisions(ref, revs, 2), 3);
    assert_int_equal(revs[0], 2);
    assert_int_equal(revs[1], 5);
    reference_free(ref);
    static const char header_only[] = "revision,model,task,batch,backend,ms_per_step\n";
    assert_int_equal(reference_parse(&ref, "h.csv", header_only, sizeof(header_only) - 1), 0);
    assert_null(reference_find(ref, 1, "a", "fit", 1, "x"));
    assert_int_equal(reference_revisions(ref, revs, 2), 0);
    reference_free(ref);
}

static void test_reference_committed(void **state)
{
    (void)state;
    struct reference *ref = NULL;
    assert_int_equal(reference_load(&ref, REFERENCE), 0);
    int revs[16];
    size_t n = reference_revisions(ref, revs, 16);
    assert_int_equal(n, 6);
    static const int want[] = {0, 1, 3, 4, 5, 6};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(revs[i], want[i]);
    const struct ref_row *r = reference_find(ref, 4, "bert", "fit", 32, "torch-compiled");
    assert_non_null(r);
    assert_true(fabs(r->ms - 202.43) < 1e-9);
    assert_string_equal(r->date, "2024-04-03");
    assert_non_null(strstr(r->source, "github.com/keras-team/keras-io"));
    assert_true(isnan(reference_find(ref, 6, "gemma", "fit", 8, "keras2-tensorflow")->ms));
    /* "Keras 3 (best)" is the minimum of the three Keras 3 columns in every row */
    for (size_t i = 0; i < ref->nrows; i++) {
        const struct ref_row *b = &ref->rows[i];
        if (strcmp(b->backend, "keras3-best") != 0)
            continue;
        double m = INFINITY;
        static const char *const k3[] = {"keras3-tensorflow", "keras3-jax", "keras3-torch"};
        for (int k = 0; k < 3; k++) {
            const struct ref_row *c = reference_find(ref, b->revision, b->model, b->task, b->batch, k3[k]);
            assert_non_null(c);
            m = fmin(m, c->ms);
        }
        assert_true(fabs(m - b->ms) < 1e-9);
    }
    reference_free(ref);
    assert_int_equal(reference_load(&ref, "/nonexistent.csv"), BG_ENOTFOUND);
}

/* ---- numbers, grid, tables ------------------------------------------------------- */

static void test_format_number(void **state)
{
    (void)state;
    char b[64];
    chart_format_number(1306.848, 2, b, sizeof(b));
    assert_string_equal(b, "1,306.85");
    chart_format_number(11054.67, 2, b, sizeof(b));
    assert_string_equal(b, "11,054.67");
    chart_format_number(-1234567.0, 0, b, sizeof(b));
    assert_string_equal(b, "-1,234,567");
    chart_format_number(-0.001, 2, b, sizeof(b));
    assert_string_equal(b, "0.00");
    chart_format_number(NAN, 2, b, sizeof(b));
    assert_string_equal(b, "NA");
    chart_format_number(INFINITY, 2, b, sizeof(b));
    assert_string_equal(b, "NA");
    rctx_fmt_pct(23.44, b, sizeof(b));
    assert_string_equal(b, "+23.4%");
    rctx_fmt_pct(-5.6, b, sizeof(b));
    assert_string_equal(b, "-5.6%");
}

static void test_grid_published(void **state)
{
    (void)state;
    struct rundata *rd = NULL;
    assert_int_equal(rundata_load(&rd, PUBLISHED), 0);
    struct grid *g = NULL;
    assert_int_equal(grid_build(&g, rd), 0);
    assert_int_equal(g->nrows, 12);
    assert_int_equal(g->ncols, 6);
    assert_int_equal(g->nkeras3, 3);
    assert_string_equal(g->cols[0].backend, "torch-eager");
    assert_string_equal(g->cols[5].backend, "keras3-torch");
    assert_string_equal(g->rows[4].title, "BERT (fit), batch 32");
    /* Keras 2 has no LLM cells: NA with the status, never a number */
    int k2 = grid_col_find(g, "keras2-tensorflow");
    const struct grid_cell *gc = grid_at(g, 6, (size_t)k2);
    assert_false(gc->ok);
    assert_string_equal(gc->na, "NA (unsupported)");
    assert_true(isnan(gc->st.mean));
    /* every ok position carries exactly the cell's statistics from run.db */
    for (size_t r = 0; r < g->nrows; r++)
        for (size_t c = 0; c < g->ncols; c++) {
            const struct grid_cell *x = grid_at(g, r, c);
            if (!x->ok)
                continue;
            assert_true(x->st.mean == x->cell->st.mean);
            assert_true(x->st.ci_lo <= x->st.mean && x->st.mean <= x->st.ci_hi);
        }
    /* the best column is the row minimum; Keras 3 (best) the minimum of the keras3-* columns */
    for (size_t r = 0; r < g->nrows; r++) {
        double best = INFINITY, k3 = INFINITY;
        for (size_t c = 0; c < g->ncols; c++) {
            const struct grid_cell *x = grid_at(g, r, c);
            if (!x->ok)
                continue;
            best = fmin(best, x->st.mean);
            if (g->cols[c].keras3)
                k3 = fmin(k3, x->st.mean);
        }
        assert_true(grid_at(g, r, (size_t)g->rows[r].best_col)->st.mean == best);
        assert_true(grid_keras3_best(g, r) == k3);
    }
    assert_int_equal(grid_default_baseline(g), grid_col_find(g, "torch-eager")); /* every published row has it */
    assert_true(k2 >= 0);
    assert_true(fabs(grid_speedup(200, 100) - 100.0) < 1e-12);
    assert_true(isnan(grid_speedup(NAN, 100)));
    grid_free(g);
    rundata_free(rd);
}

static void test_tables_match_rundata(void **state)
{
    (void)state;
    struct rundata *rd = NULL;
    struct rctx x;
    assert_int_equal(rundata_load(&rd, PUBLISHED), 0);
    assert_int_equal(rctx_init(&x, rd, NULL, REFERENCE, -1), 0);
    /* the revision matching most cells is the 2024-04-03 table (4 and 5 tie: the later) */
    assert_int_equal(x.ref_revision, 5);
    assert_string_equal(x.hardware_note, ""); /* the fixture ran on the published A100 */
    struct table t;
    assert_int_equal(tables_build(&x, TABLE_SUMMARY, &t), 0);
    assert_int_equal(t.nrows, 12);
    assert_int_equal(t.ncols, 2 + 6 + 1);
    assert_string_equal(t.head[8], "Keras 3 (best)");
    for (size_t r = 0; r < t.nrows; r++)
        for (size_t c = 0; c < 6; c++) {
            const struct tcell *cell = table_at(&t, r, 2 + c);
            const struct grid_cell *gc = grid_at(x.g, r, c);
            if (gc->ok) {
                assert_true(cell->num == gc->cell->st.mean);
            } else {
                assert_true(cell->flags & TC_NA);
                assert_true(strncmp(cell->text, "NA (", 4) == 0);
            }
        }
    table_free(&t);
    assert_int_equal(tables_build(&x, TABLE_REFERENCE, &t), 0);
    assert_non_null(strstr(t.caption, "revision 5"));
    table_free(&t);
    rctx_free(&x);

    assert_int_equal(rctx_init(&x, rd, "no-such-backend", NULL, -1), BG_EUSAGE);
    rundata_free(rd);
}

/* ---- command line ---------------------------------------------------------------- */

static void test_cli_errors(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof(out), "%s/cli", tmp_root);
    assert_int_equal(run_report("--help", NULL), 0);
    assert_int_equal(run_report(NULL), 2);                           /* no RUN_DIR */
    assert_int_equal(run_report("/nonexistent/run", "-q", NULL), 2); /* missing dir */
    assert_non_null(strstr(error_last(), "no such run directory"));
    assert_int_equal(run_report(tmp_root, "-q", NULL), 2); /* not a run */
    assert_non_null(strstr(error_last(), "no run.db"));
    assert_int_equal(run_report(PUBLISHED, "--bogus", NULL), 2);
    assert_int_equal(run_report(PUBLISHED, "--format", "docx", NULL), 2);
    assert_int_equal(run_report(PUBLISHED, "--out", out, "-q", "--baseline", "nope", NULL), 2);
    /* a missing file is a usage error (README: exit status 2) */
    assert_int_equal(run_report(PUBLISHED, "--out", out, "-q", "--reference", "/nonexistent.csv", NULL), 2);
    assert_int_equal(run_report(PUBLISHED, "--reference-revision", "4", NULL), 2); /* needs --reference */
    assert_int_equal(run_report(PUBLISHED, "--jobs", "0", NULL), 2);
}

/* ---- rendering ---------------------------------------------------------------------- */

static void test_render_twice_identical(void **state)
{
    (void)state;
    char a[256], b[256];
    snprintf(a, sizeof(a), "%s/twice-a", tmp_root);
    snprintf(b, sizeof(b), "%s/twice-b", tmp_root);
    /* once in this process, once with forked workers: neither may change a byte */
    assert_int_equal(run_report(PUBLISHED, "--out", a, "-q", "-j", "1", "--reference", REFERENCE, NULL), 0);
    assert_int_equal(run_report(PUBLISHED, "--out", b, "-q", "-j", "3", "--reference", REFERENCE, NULL), 0);
    size_t na, nb;
    char *ha = test_tree_hashes(a, &na), *hb = test_tree_hashes(b, &nb);
    assert_true(na > 50); /* 4 documents and every chart in 3 formats */
    assert_int_equal(na, nb);
    assert_string_equal(ha, hb);
    /* a re-render into the same directory gives the same bytes again */
    assert_int_equal(run_report(PUBLISHED, "--out", a, "-q", "-j", "2", "--reference", REFERENCE, NULL), 0);
    size_t na2;
    char *ha2 = test_tree_hashes(a, &na2);
    assert_string_equal(ha, ha2);
    free(ha);
    free(hb);
    free(ha2);

    char path[512];
    snprintf(path, sizeof(path), "%s/report.pdf", a);
    char *pdf = NULL;
    size_t len = 0;
    assert_int_equal(util_read_file(path, &pdf, &len), 0);
    assert_non_null(
        memmem(pdf, len, "/CreationDate (20240403120000Z)", 31)); /* the run's date, not the clock */
    free(pdf);
}

static void test_html_self_contained(void **state)
{
    (void)state;
    char dir[256], path[512];
    snprintf(dir, sizeof(dir), "%s/html", tmp_root);
    assert_int_equal(run_report(PUBLISHED, "--out", dir, "-q", "--format", "html", NULL), 0);
    snprintf(path, sizeof(path), "%s/report.html", dir);
    char *html = test_read_text(path);
    assert_true(only_own_script(html));
    assert_null(strstr(html, "src=\"http"));
    assert_null(strstr(html, "<link rel=\"stylesheet\""));
    assert_non_null(strstr(html, "<svg"));
    assert_non_null(strstr(html, "NA (unsupported)"));
    /* inlined SVG ids are prefixed per figure: no id appears twice */
    size_t n = 0, cap = 0;
    char **ids = NULL;
    for (const char *p = strstr(html, " id=\""); p; p = strstr(p + 1, " id=\"")) {
        const char *end = strchr(p + 5, '"');
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            ids = realloc(ids, cap * sizeof(*ids));
        }
        ids[n++] = strndup(p + 5, (size_t)(end - p - 5));
    }
    assert_true(n > 100);
    qsort(ids, n, sizeof(*ids), test_cmp_str);
    for (size_t i = 1; i < n; i++)
        if (strcmp(ids[i - 1], ids[i]) == 0)
            fail_msg("duplicate id %s", ids[i]);
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    free(html);
    /* only what was asked for */
    snprintf(path, sizeof(path), "%s/report.pdf", dir);
    assert_false(util_is_file(path));
}

static void test_tricky_escaped(void **state)
{
    (void)state;
    char dir[256], path[512];
    snprintf(dir, sizeof(dir), "%s/tricky", tmp_root);
    assert_int_equal(run_report(TRICKY, "--out", dir, "-q", "--reference", REFERENCE, NULL), 0);

    snprintf(path, sizeof(path), "%s/report.html", dir);
    char *html = test_read_text(path);
    assert_true(only_own_script(html));
    assert_null(strstr(html, "<img src=x"));
    assert_non_null(strstr(html, "tricky&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&#39;q&#39;"));
    assert_non_null(strstr(html, "1.26.4&quot;&lt;script&gt;alert(&#39;pkg&#39;)&lt;/script&gt;"));
    assert_non_null(strstr(html, "The hardware differs"));
    free(html);

    snprintf(path, sizeof(path), "%s/report.md", dir);
    char *md = test_read_text(path);
    assert_non_null(strstr(md, "# Benchmark report: tricky\\<script\\>alert(\"name\")\\</script\\>'q'"));
    assert_non_null(strstr(md, "1.26.4\"\\<script\\>alert('pkg')\\</script\\>"));
    /* outside code blocks, no raw tag survives */
    int in_code = 0;
    for (char *line = strtok(md, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "```", 3) == 0) {
            in_code = !in_code;
            continue;
        }
        for (const char *p = strstr(line, "<script"); !in_code && p; p = strstr(p + 1, "<script"))
            if (p == line || p[-1] != '\\')
                fail_msg("unescaped tag in Markdown: %s", line);
    }
    free(md);

    snprintf(path, sizeof(path), "%s/report.xlsx", dir);
    char *sst = test_zip_entry(path, "xl/sharedStrings.xml");
    assert_non_null(sst);
    assert_null(strstr(sst, "<script"));
    assert_non_null(strstr(sst, "1.26.4\"&lt;script&gt;alert('pkg')&lt;/script&gt;"));
    free(sst);
    char *core = test_zip_entry(path, "docProps/core.xml");
    assert_non_null(strstr(core, "tricky&lt;script&gt;"));
    assert_non_null(strstr(core, "2025-11-30T12:00:00Z")); /* the run's date */
    free(core);

    snprintf(path, sizeof(path), "%s/report.pdf", dir);
    assert_true(util_is_file(path));
    /* the output directory name is made safe; the name itself is kept in the documents */
    char def[512];
    snprintf(def, sizeof(def), "%s/cwd", tmp_root);
    assert_int_equal(util_mkdir_p(def, 0755), 0);
    char old[4096];
    assert_non_null(getcwd(old, sizeof(old)));
    assert_int_equal(chdir(def), 0);
    int rc = run_report(TRICKY, "-q", "--format", "md", NULL);
    assert_int_equal(rc, 0);
    assert_true(util_is_file("reports/tricky/report.md")); /* reports/<name of the run directory> */
    assert_int_equal(chdir(old), 0);
}

static void test_workbook_numbers(void **state)
{
    (void)state;
    char dir[256], path[512];
    snprintf(dir, sizeof(dir), "%s/xlsx", tmp_root);
    assert_int_equal(run_report(PUBLISHED, "--out", dir, "-q", "--format", "xlsx", NULL), 0);
    snprintf(path, sizeof(path), "%s/report.xlsx", dir);
    static const char *const sheets[] = {"xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml",
                                         "xl/worksheets/sheet3.xml", "xl/worksheets/sheet4.xml",
                                         "xl/worksheets/sheet5.xml", "xl/worksheets/sheet6.xml",
                                         "xl/worksheets/sheet7.xml", "xl/worksheets/sheet8.xml"};
    for (size_t i = 0; i < sizeof(sheets) / sizeof(sheets[0]); i++) {
        char *xml = test_zip_entry(path, sheets[i]);
        assert_non_null(xml);
        assert_null(strstr(xml, "<v>nan"));
        assert_null(strstr(xml, "<v>NAN"));
        assert_null(strstr(xml, "<v>inf"));
        assert_null(strstr(xml, "<v>INF"));
        assert_null(strstr(xml, "<v>-inf"));
        free(xml);
    }
    char *wb = test_zip_entry(path, "xl/workbook.xml");
    static const char *const names[] = {"Answer",  "Summary", "Throughput",  "Speedup",
                                        "Statistics", "Samples", "Environment", "Method"};
    for (size_t i = 0; i < 8; i++) {
        char want[64];
        snprintf(want, sizeof(want), "name=\"%s\"", names[i]);
        assert_non_null(strstr(wb, want));
    }
    char *s0 = test_zip_entry(path, "xl/worksheets/sheet1.xml"), *ss = test_zip_entry(path, "xl/sharedStrings.xml");
    assert_non_null(strstr(wb, "name=\"Answer\" sheetId=\"1\"")); /* the answer first */
    assert_non_null(strstr(ss, "is fastest"));
    assert_non_null(strstr(ss, "Speed-up (geometric mean)"));
    free(s0);
    free(ss);
    char *s1 = test_zip_entry(path, "xl/worksheets/sheet2.xml");
    assert_non_null(strstr(s1, "<pane ")); /* frozen header */
    assert_non_null(strstr(s1, "<autoFilter "));
    assert_non_null(strstr(s1, "<conditionalFormatting"));
    assert_non_null(strstr(s1, "<drawing ")); /* the native chart */
    assert_non_null(strstr(s1, "orientation=\"landscape\"")); /* printing */
    assert_non_null(strstr(s1, "fitToHeight=\"0\""));
    assert_non_null(strstr(s1, "<pageSetUpPr fitToPage=\"1\"/>"));
    free(s1);
    assert_non_null(strstr(wb, "_xlnm.Print_Titles\" localSheetId=\"1\">Summary!$4:$4"));
    assert_non_null(strstr(wb, "_xlnm.Print_Area\" localSheetId=\"3\">Speedup!"));
    assert_non_null(strstr(wb, "_xlnm.Print_Area\" localSheetId=\"5\">Samples!$A$1:$G$1<")); /* data: not printed */
    free(wb);

    /* the horizontal bar charts read like the cairo ones: categories top-down
     * (the category axis reversed), values left to right from the bottom axis
     * with their unit and number format, and a speed-up axis never below -100% */
    static const char *const charts[] = {"xl/charts/chart1.xml", "xl/charts/chart2.xml"};
    static const char *const fmts[] = {"formatCode=\"#,##0\"", "formatCode=\"+0%;-0%;0%\""};
    for (size_t i = 0; i < 2; i++) {
        char *xml = test_zip_entry(path, charts[i]);
        assert_non_null(xml);
        char *cat = strstr(xml, "<c:catAx>"), *val = strstr(xml, "<c:valAx>");
        assert_non_null(cat);
        assert_non_null(val);
        char *cat_end = strstr(cat, "</c:catAx>"), *val_end = strstr(val, "</c:valAx>");
        *cat_end = *val_end = '\0';
        assert_non_null(strstr(cat, "<c:orientation val=\"maxMin\"/>"));
        assert_non_null(strstr(cat, "<c:axPos val=\"l\"/>"));
        assert_non_null(strstr(cat, "<c:tickLblPos val=\"low\"/>"));
        assert_null(strstr(cat, "<c:title>"));
        assert_null(strstr(cat, "formatCode"));
        assert_non_null(strstr(val, "<c:orientation val=\"minMax\"/>"));
        assert_non_null(strstr(val, "<c:axPos val=\"b\"/>"));
        assert_non_null(strstr(val, "<c:title>"));
        assert_non_null(strstr(val, fmts[i]));
        char *min = strstr(val, "<c:min val=\"");
        if (min)
            assert_true(strtod(min + strlen("<c:min val=\""), NULL) >= -1.0);
        free(xml);
    }

    /* each native chart prints whole on a page of its own: a row break right
     * above its anchor, at most 640 px tall (an A4 landscape page holds 698 px
     * at 100% less a 3-line repeated header; fitting to width only shrinks),
     * and inside the sheet's print area */
    static const char *const sheet_of[] = {"xl/worksheets/sheet2.xml", "xl/worksheets/sheet4.xml"};
    static const char *const drawing_of[] = {"xl/drawings/drawing1.xml", "xl/drawings/drawing2.xml"};
    static const char *const area_of[] = {"localSheetId=\"1\">Summary!$A$1:$", "localSheetId=\"3\">Speedup!$A$1:$"};
    /* the Speedup sheet's long caption wraps over the table's width, at
     * least ten columns (merged row 2), instead of running past the print
     * area from A1 */
    char *sp = test_zip_entry(path, "xl/worksheets/sheet4.xml");
    assert_non_null(strstr(sp, "<mergeCell ref=\"A2:J2\"/>"));
    free(sp);
    wb = test_zip_entry(path, "xl/workbook.xml");
    for (size_t i = 0; i < 2; i++) {
        char *sheet = test_zip_entry(path, sheet_of[i]), *drawing = test_zip_entry(path, drawing_of[i]);
        assert_non_null(sheet);
        assert_non_null(drawing);
        char *brk = strstr(sheet, "<rowBreaks count=\"1\" manualBreakCount=\"1\"><brk id=\"");
        char *from = strstr(drawing, "<xdr:from>"), *to = strstr(drawing, "<xdr:to>");
        assert_non_null(brk);
        assert_non_null(from);
        assert_non_null(to);
        long brk_row = strtol(strstr(brk, "<brk id=\"") + 9, NULL, 10);
        long from_row = strtol(strstr(from, "<xdr:row>") + 9, NULL, 10);
        long to_row = strtol(strstr(to, "<xdr:row>") + 9, NULL, 10);
        long to_off = strtol(strstr(to, "<xdr:rowOff>") + 12, NULL, 10); /* EMU, 9525 a pixel */
        assert_int_equal(brk_row, from_row);
        assert_true((to_row - from_row) * 20 + to_off / 9525 <= 640);
        char *area = strstr(wb, area_of[i]);
        assert_non_null(area);
        area = strchr(area + strlen(area_of[i]), '$');
        assert_non_null(area);
        assert_true(strtol(area + 1, NULL, 10) >= to_row + 1); /* 1-based last printed row */
        free(sheet);
        free(drawing);
    }
    free(wb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_html),
        cmocka_unit_test(test_escape_md),
        cmocka_unit_test(test_escape_other),
        cmocka_unit_test(test_template),
        cmocka_unit_test(test_doc_model),
        cmocka_unit_test(test_doc_cap_lines),
        cmocka_unit_test(test_table_first_error),
        cmocka_unit_test(test_figures_add_arena),
        cmocka_unit_test(test_palette_contrast),
        cmocka_unit_test(test_environment_per_backend),
        cmocka_unit_test(test_answer),
        cmocka_unit_test(test_speedup_axis),
        cmocka_unit_test(test_reference_parse),
        cmocka_unit_test(test_reference_index),
        cmocka_unit_test(test_reference_committed),
        cmocka_unit_test(test_format_number),
        cmocka_unit_test(test_grid_published),
        cmocka_unit_test(test_tables_match_rundata),
        cmocka_unit_test(test_cli_errors),
        cmocka_unit_test(test_render_twice_identical),
        cmocka_unit_test(test_html_self_contained),
        cmocka_unit_test(test_tricky_escaped),
        cmocka_unit_test(test_workbook_numbers),
    };
    return cmocka_run_group_tests_name("report", tests, group_setup, group_teardown);
}
