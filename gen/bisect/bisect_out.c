/*
 * bisect_out.c - the answer of `benchgen bisect`, in DIR: bisect.txt (also
 * printed), bisect.md and bisect.html (the steps as a chart,
 * bisect-steps.png, inlined as SVG in the HTML); bisect.json is the state
 * file (bisect_state.c). Same state, same bytes: no clock, no path of the
 * machine (step directories are relative to DIR).
 */
#include "bisect/bisect.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "charts/bars.h"
#include "charts/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fmt { FMT_TEXT, FMT_MD, FMT_HTML };

static void put(struct strbuf *sb, enum fmt f, const char *s)
{
    if (f == FMT_HTML)
        escape_html(sb, s);
    else if (f == FMT_MD)
        escape_md(sb, s);
    else
        strbuf_puts(sb, s);
}

/* The answer in one sentence (malloc'd). */
static char *answer(const struct bisect *b)
{
    const char *pkg = b->o.package, *dir = b->o.faster ? "faster" : "slower";
    const struct envs_release *lo = &b->rel.v[b->lo], *hi = &b->rel.v[b->hi];
    switch (b->outcome) {
    case BISECT_FOUND: {
        struct strbuf sk = {0};
        for (size_t i = b->lo + 1; i < b->hi; i++)
            strbuf_printf(&sk, "%s%s", sk.len ? ", " : "", b->rel.v[i].version);
        if (sk.len) {
            char *s = xprintf("the change is in one of %s (skipped: cannot be tested) and %s %s; %s %s is the "
                              "last good release.",
                              sk.buf, pkg, hi->version, pkg, lo->version);
            strbuf_free(&sk);
            return s;
        }
        strbuf_free(&sk);
    }
        return xprintf("%s %s is the first bad release: the cells were %s from it on; %s %s is the last good one.",
                       pkg, hi->version, dir, pkg, lo->version);
    case BISECT_NOTHING:
        return xprintf("nothing to bisect: no cell is %s with %s %s than with %s %s (the endpoints).", dir, pkg,
                       b->rel.v[b->rel.n - 1].version, pkg, b->rel.v[0].version);
    case BISECT_UNDECIDED:
        return xprintf("undecided: a step stayed ambiguous at %d processes a side; the change is after %s %s "
                       "and at or before %s %s.",
                       b->o.sequential ? b->o.cap : b->o.max_processes, pkg, lo->version, pkg, hi->version);
    default:
        return xprintf("not finished: the change is after %s %s and at or before %s %s so far "
                       "(`benchgen bisect --resume DIR` goes on).",
                       pkg, lo->version, pkg, hi->version);
    }
}

static void fmt_ratio(char *buf, size_t n, double r)
{
    if (isfinite(r))
        snprintf(buf, n, "%.3f", r);
    else
        snprintf(buf, n, "-");
}

/* The steps table. */
static void steps_table(struct strbuf *sb, const struct bisect *b, enum fmt f)
{
    static const char *const head[] = {"step", "good", "tested", "processes", "verdict", "B/A", "band", "directory"};
    if (f == FMT_TEXT)
        strbuf_printf(sb, "  %-6s %-12s %-12s %-9s %-10s %-7s %-7s %s\n", head[0], head[1], head[2], head[3],
                      head[4], head[5], head[6], head[7]);
    else if (f == FMT_MD)
        strbuf_puts(sb, "| step | good | tested | processes | verdict | B/A | band | directory |\n"
                        "|---|---|---|---:|---|---:|---:|---|\n");
    else
        strbuf_puts(sb, "<table>\n<tr><th>step</th><th>good</th><th>tested</th><th>processes</th><th>verdict</th>"
                        "<th>B/A</th><th>band</th><th>directory</th></tr>\n");
    for (size_t i = 0; i < b->nsteps; i++) {
        const struct bisect_step *s = &b->steps[i];
        char no[24], pr[16], ratio[24], band[24];
        if (s->no == 0)
            snprintf(no, sizeof(no), "ends");
        else
            snprintf(no, sizeof(no), "%d", s->no);
        snprintf(pr, sizeof(pr), "%d", s->processes);
        fmt_ratio(ratio, sizeof(ratio), s->ratio);
        snprintf(band, sizeof(band), "%.1f%%", s->noise * 100);
        const char *cols[] = {no, b->rel.v[s->a].version, b->rel.v[s->b].version, pr,
                              bisect_verdict_name(s->verdict), ratio, band, *s->dir ? s->dir : "-"};
        if (f == FMT_TEXT) {
            strbuf_printf(sb, "  %-6s %-12s %-12s %-9s %-10s %-7s %-7s %s\n", cols[0], cols[1], cols[2], cols[3],
                          cols[4], cols[5], cols[6], cols[7]);
        } else {
            strbuf_puts(sb, f == FMT_MD ? "|" : "<tr>");
            for (size_t k = 0; k < 8; k++) {
                strbuf_puts(sb, f == FMT_MD ? " " : "<td>");
                put(sb, f, cols[k]);
                strbuf_puts(sb, f == FMT_MD ? " |" : "</td>");
            }
            strbuf_puts(sb, f == FMT_MD ? "\n" : "</tr>\n");
        }
        if (*s->reason) {
            strbuf_puts(sb, f == FMT_TEXT ? "         " : f == FMT_MD ? "| | | | | | | | " : "<tr><td></td><td colspan=\"7\">");
            strbuf_puts(sb, s->verdict == BISECT_SKIP ? "skipped: " : "why: ");
            put(sb, f, s->reason);
            strbuf_puts(sb, f == FMT_TEXT ? "\n" : f == FMT_MD ? " |\n" : "</td></tr>\n");
        }
    }
    if (f == FMT_HTML)
        strbuf_puts(sb, "</table>\n");
}

/* A heading, a paragraph line, a list item in each format. */
static void heading(struct strbuf *sb, enum fmt f, const char *s)
{
    if (f == FMT_TEXT) {
        strbuf_printf(sb, "\n%s:\n", s);
    } else {
        strbuf_puts(sb, f == FMT_MD ? "\n## " : "<h2>");
        put(sb, f, s);
        strbuf_puts(sb, f == FMT_MD ? "\n\n" : "</h2>\n");
    }
}

static void item(struct strbuf *sb, enum fmt f, const char *s)
{
    strbuf_puts(sb, f == FMT_TEXT ? "  " : f == FMT_MD ? "- " : "<li>");
    put(sb, f, s);
    strbuf_puts(sb, f == FMT_HTML ? "</li>\n" : "\n");
}

static void document(struct strbuf *sb, const struct bisect *b, enum fmt f, const char *svg)
{
    char *title = xprintf("bisect of %s %s..%s", b->o.package, b->rel.v[0].version, b->rel.v[b->rel.n - 1].version);
    char *ans = answer(b);
    if (f == FMT_HTML) {
        strbuf_puts(sb, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
        put(sb, f, title);
        strbuf_puts(sb, "</title></head><body>\n<h1>");
        put(sb, f, title);
        strbuf_puts(sb, "</h1>\n<p>");
    } else if (f == FMT_MD) {
        strbuf_puts(sb, "# ");
        put(sb, f, title);
        strbuf_puts(sb, "\n\n");
    }
    put(sb, f, ans);
    strbuf_puts(sb, f == FMT_HTML ? "</p>\n" : "\n");
    char *line = xprintf("%zu releases from %s; cells bisected: %zu; steps: %zu", b->rel.n, b->rel.index,
                         b->ntargets, b->nsteps);
    strbuf_puts(sb, f == FMT_HTML ? "<p>" : f == FMT_MD ? "\n" : "");
    put(sb, f, line);
    strbuf_puts(sb, f == FMT_HTML ? "</p>\n" : "\n");
    free(line);
    if (b->ntargets) {
        heading(sb, f, b->o.faster ? "cells faster at the endpoints" : "cells slower at the endpoints");
        if (f == FMT_HTML)
            strbuf_puts(sb, "<ul>\n");
        for (size_t i = 0; i < b->ntargets; i++)
            item(sb, f, b->targets[i]);
        if (f == FMT_HTML)
            strbuf_puts(sb, "</ul>\n");
    }
    heading(sb, f, "steps (A is the good release, B the tested one; B/A over the bisected cells; band: "
                   "compare's noise band)");
    steps_table(sb, b, f);
    if (svg && f == FMT_HTML) {
        const char *tag = strstr(svg, "<svg"); /* inline: no XML declaration inside HTML */
        strbuf_printf(sb, "<figure>%s</figure>\n", tag ? tag : svg);
    }
    else if (svg && f == FMT_MD)
        strbuf_puts(sb, "\n![B/A of each step](bisect-steps.png)\n");
    if (b->rel.nexcluded) {
        heading(sb, f, "releases left out");
        if (f == FMT_HTML)
            strbuf_puts(sb, "<ul>\n");
        for (size_t i = 0; i < b->rel.nexcluded; i++)
            item(sb, f, b->rel.excluded[i]);
        if (f == FMT_HTML)
            strbuf_puts(sb, "</ul>\n");
    }
    if (b->outcome == BISECT_FOUND) {
        char *h = xprintf("environment diff, %s -> %s", b->rel.v[b->lo].version, b->rel.v[b->hi].version);
        heading(sb, f, h);
        free(h);
        if (f == FMT_HTML)
            strbuf_puts(sb, "<ul>\n");
        for (size_t i = 0; i < b->ndiff; i++) {
            struct strbuf c = {0};
            compare_env_describe_change(&c, &b->diff[i]);
            if (b->diff[i].intended)
                strbuf_puts(&c, " (intended)");
            item(sb, f, c.buf ? c.buf : "");
            strbuf_free(&c);
        }
        if (!b->ndiff)
            item(sb, f, "no package or component differs");
        if (f == FMT_HTML)
            strbuf_puts(sb, "</ul>\n");
    }
    if (f == FMT_HTML)
        strbuf_puts(sb, "</body></html>\n");
    free(title);
    free(ans);
}

int bisect_write_text(const struct bisect *b, FILE *out)
{
    struct strbuf sb = {0};
    document(&sb, b, FMT_TEXT, NULL);
    int err = strbuf_error(&sb);
    if (!err && sb.buf && fputs(sb.buf, out) < 0)
        err = error_set(BG_EIO, "cannot write the answer");
    strbuf_free(&sb);
    return err;
}

/* The steps as bars: the change B/A of each A/B step, in percent. */
static int steps_chart(const struct bisect *b, char **svg)
{
    size_t n = 0;
    char **cat = xcalloc(b->nsteps + 1, sizeof(*cat));
    double *v = xcalloc(b->nsteps + 1, sizeof(*v));
    for (size_t i = 0; i < b->nsteps; i++) {
        const struct bisect_step *s = &b->steps[i];
        if (!*s->dir || s->verdict == BISECT_PENDING)
            continue;
        cat[n] = xprintf("%s %s vs %s (%s)", s->no ? "step" : "ends", b->rel.v[s->b].version,
                         b->rel.v[s->a].version, bisect_verdict_name(s->verdict));
        v[n++] = isfinite(s->ratio) ? (s->ratio - 1) * 100 : NAN;
    }
    int err = 0;
    if (n) {
        static const unsigned color[] = {0x4c72b0};
        const char *ser[] = {"B/A"};
        struct bars bars = {.title = "Each step: the tested release against the good one",
                            .axis_label = "change of step time, B against A (%)",
                            .ncat = n,
                            .nser = 1,
                            .cat = (const char *const *)cat,
                            .ser = ser,
                            .color = color,
                            .v = v,
                            .percent = 1,
                            .decimals = 1};
        double w = 560, h = bars_height(&bars, w);
        char *path = xprintf("%s/bisect-steps", b->dir);
        struct chart_render_opts ro = {.png_scale = 2};
        if ((err = chart_fonts_init(util_home_dir())) == 0)
            err = chart_render(path, w, h, CHART_PNG, &ro, bars_draw, &bars, svg);
        free(path);
    }
    for (size_t i = 0; i < n; i++)
        free(cat[i]);
    free(cat);
    free(v);
    return err;
}

static int write_doc(const struct bisect *b, enum fmt f, const char *name, const char *svg)
{
    struct strbuf sb = {0};
    document(&sb, b, f, svg);
    int err = strbuf_error(&sb);
    char *path = xprintf("%s/%s", b->dir, name);
    if (!err)
        err = util_write_file_atomic(path, sb.buf ? sb.buf : "", sb.len);
    free(path);
    strbuf_free(&sb);
    return err;
}

int bisect_write_outputs(const struct bisect *b)
{
    char *svg = NULL;
    int err = steps_chart(b, &svg);
    if (!err)
        err = write_doc(b, FMT_TEXT, "bisect.txt", NULL);
    if (!err)
        err = write_doc(b, FMT_MD, "bisect.md", svg);
    if (!err)
        err = write_doc(b, FMT_HTML, "bisect.html", svg);
    free(svg);
    return err;
}
