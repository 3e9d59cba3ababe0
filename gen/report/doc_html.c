/*
 * doc_html.c - report.html, one self-contained file (see doc_html.h).
 *
 * Charts are the figures' own SVG, inlined. cairo names glyphs and clips
 * "glyph0-1", "clip1", ... in every file, and ids must be unique in an HTML
 * document, so each inlined SVG gets its ids prefixed ("f3-glyph0-1").
 */
#include "report/doc_html.h"
#include "base/error.h"
#include "base/escape.h"
#include "report/tables.h"
#include "base/template.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int doc_html_table(struct strbuf *sb, const struct table *t)
{
    int err = 0;
    if (t->ncols == 0 || t->nrows == 0)
        return strbuf_puts(sb, "<p><em>None.</em></p>\n");
    err = strbuf_puts(sb, "<div class=\"scroll\"><table>\n");
    if (err == 0 && t->caption) {
        err = strbuf_puts(sb, "<caption>");
        err = err ? err : escape_html(sb, t->caption);
        err = err ? err : strbuf_puts(sb, "</caption>\n");
    }
    err = err ? err : strbuf_puts(sb, "<thead><tr>");
    for (size_t c = 0; c < t->ncols && err == 0; c++) {
        err = strbuf_puts(sb, t->numeric[c] ? "<th class=\"num\">" : "<th>");
        err = err ? err : escape_html(sb, t->head[c]);
        err = err ? err : strbuf_puts(sb, "</th>");
    }
    err = err ? err : strbuf_puts(sb, "</tr></thead>\n<tbody>\n");
    for (size_t r = 0; r < t->nrows && err == 0; r++) {
        err = strbuf_puts(sb, "<tr>");
        for (size_t c = 0; c < t->ncols && err == 0; c++) {
            const struct tcell *cell = table_at(t, r, c);
            char cls[64] = "";
            size_t n = 0;
            if (t->numeric[c] && !(cell->flags & TC_NA))
                n += (size_t)snprintf(cls + n, sizeof(cls) - n, " num");
            if (cell->flags & TC_BOLD)
                n += (size_t)snprintf(cls + n, sizeof(cls) - n, " best");
            if (cell->flags & TC_NA)
                n += (size_t)snprintf(cls + n, sizeof(cls) - n, " na");
            if ((cell->flags & TC_WARN) && cell->text[0])
                n += (size_t)snprintf(cls + n, sizeof(cls) - n, " warn");
            if (cell->flags & TC_MONO)
                snprintf(cls + n, sizeof(cls) - n, " mono");
            err = strbuf_puts(sb, "<td");
            if (err == 0 && cls[0])
                err = strbuf_printf(sb, " class=\"%s\"", cls + 1);
            if (err == 0 && (cell->flags & TC_HEAT)) {
                /* a light tint of the heatmap colour keeps black text readable */
                unsigned bg = chart_mix(cell->bg, 0xFFFFFF, 0.55);
                err = strbuf_printf(sb, " style=\"background:#%06X\"", bg);
            }
            err = err ? err : strbuf_puts(sb, ">");
            err = err ? err : escape_html(sb, cell->text);
            err = err ? err : strbuf_puts(sb, "</td>");
        }
        err = err ? err : strbuf_puts(sb, "</tr>\n");
    }
    return err ? err : strbuf_puts(sb, "</tbody></table></div>\n");
}

static int html_built_table(struct strbuf *sb, const struct rctx *x, enum table_kind kind)
{
    struct table t;
    int err = tables_build(x, kind, &t);
    if (err == 0)
        err = doc_html_table(sb, &t);
    table_free(&t);
    return err;
}

int doc_html_paragraphs(struct strbuf *sb, char **paras, size_t n)
{
    int err = 0, in_list = 0;
    for (size_t i = 0; i < n && err == 0; i++) {
        int bullet = strncmp(paras[i], "- ", 2) == 0;
        if (bullet && !in_list)
            err = strbuf_puts(sb, "<ul>\n");
        if (!bullet && in_list)
            err = strbuf_puts(sb, "</ul>\n");
        in_list = bullet;
        err = err ? err : strbuf_puts(sb, bullet ? "<li>" : "<p>");
        err = err ? err : escape_html(sb, paras[i] + (bullet ? 2 : 0));
        err = err ? err : strbuf_puts(sb, bullet ? "</li>\n" : "</p>\n");
    }
    if (err == 0 && in_list)
        err = strbuf_puts(sb, "</ul>\n");
    return err;
}

/* ---- inline SVG ------------------------------------------------------------ */

/* cairo writes every glyph a chart uses as a <symbol> of outline paths, in
 * every file. Inlined in one HTML document, the same glyph at the same size
 * would be defined once per chart; the table below keeps the first
 * definition of each distinct outline (shared id "g<N>") and points later
 * charts at it, which makes a large report's HTML about 40% smaller. */
struct doc_html_glyph {
    const char *body; /* "<path .../>" inside the symbol, in a figure's SVG (borrowed) */
    size_t len;
    uint64_t hash;
};

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* Shared index of a glyph outline, adding it when new (*fresh = 1). -1 on ENOMEM. */
static long glyphs_intern(struct doc_html_glyphs *g, const char *body, size_t len, int *fresh)
{
    if (g->n * 2 >= g->nslots) {
        size_t ns = g->nslots ? g->nslots * 2 : 1024;
        size_t *slots = calloc(ns, sizeof(*slots));
        if (!slots)
            return -1;
        for (size_t i = 0; i < g->n; i++) {
            size_t k = (size_t)(g->defs[i].hash & (ns - 1));
            while (slots[k])
                k = (k + 1) & (ns - 1);
            slots[k] = i + 1;
        }
        free(g->slots);
        g->slots = slots;
        g->nslots = ns;
    }
    uint64_t h = fnv1a(body, len);
    size_t k = (size_t)(h & (g->nslots - 1));
    for (; g->slots[k]; k = (k + 1) & (g->nslots - 1)) {
        const struct doc_html_glyph *d = &g->defs[g->slots[k] - 1];
        if (d->hash == h && d->len == len && memcmp(d->body, body, len) == 0) {
            *fresh = 0;
            return (long)(g->slots[k] - 1);
        }
    }
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 512;
        struct doc_html_glyph *nd = realloc(g->defs, cap * sizeof(*nd));
        if (!nd)
            return -1;
        g->defs = nd;
        g->cap = cap;
    }
    g->defs[g->n] = (struct doc_html_glyph){body, len, h};
    g->slots[k] = g->n + 1;
    *fresh = 1;
    return (long)g->n++;
}

void doc_html_glyphs_free(struct doc_html_glyphs *g)
{
    free(g->defs);
    free(g->slots);
    memset(g, 0, sizeof(*g));
}

/* A figure's local glyph ids ("glyph<font>-<index>") and their shared index. */
struct glyph_map {
    struct {
        long font, index, shared;
    } * e;
    size_t n, cap;
};

static long map_find(const struct glyph_map *m, long font, long index)
{
    for (size_t i = m->n; i-- > 0;) /* recent first: symbols and their uses cluster */
        if (m->e[i].font == font && m->e[i].index == index)
            return m->e[i].shared;
    return -1;
}

/* Parses "glyph<font>-<index>" at p; returns the length parsed, 0 if p is not one. */
static size_t parse_glyph_id(const char *p, long *font, long *index)
{
    if (strncmp(p, "glyph", 5) != 0)
        return 0;
    char *e1, *e2;
    *font = strtol(p + 5, &e1, 10);
    if (e1 == p + 5 || *e1 != '-')
        return 0;
    *index = strtol(e1 + 1, &e2, 10);
    if (e2 == e1 + 1)
        return 0;
    return (size_t)(e2 - p);
}

/* Appends svg without its XML declaration: glyph symbols shared across the
 * document, every other id prefixed with "f<k>-" so figures cannot clash. */
static int inline_svg(struct strbuf *sb, const char *svg, size_t k, struct doc_html_glyphs *g)
{
    const char *p = svg;
    struct glyph_map map = {0};
    int err = 0;
    if (strncmp(p, "<?xml", 5) == 0) {
        const char *end = strstr(p, "?>");
        p = end ? end + 2 : p;
        while (*p == '\n')
            p++;
    }
    static const char sym_open[] = "<symbol overflow=\"visible\" id=\"";
    static const char *const pats[] = {"id=\"", "href=\"#", "url(#"};
    const char *run = p; /* start of the text not yet copied */
    while (*p && err == 0) {
        if (*p == '<' && strncmp(p, sym_open, sizeof(sym_open) - 1) == 0) {
            long font, index;
            const char *idp = p + sizeof(sym_open) - 1;
            size_t idlen = parse_glyph_id(idp, &font, &index);
            const char *body = idlen && idp[idlen] == '"' ? strchr(idp, '>') : NULL;
            const char *close = body ? strstr(body, "</symbol>") : NULL;
            if (close) {
                body++;
                int fresh = 0;
                long shared = glyphs_intern(g, body, (size_t)(close - body), &fresh);
                if (shared < 0) {
                    err = error_set(BG_ENOMEM, "out of memory");
                    break;
                }
                if (map.n == map.cap) {
                    map.cap = map.cap ? map.cap * 2 : 256;
                    void *ne = realloc(map.e, map.cap * sizeof(*map.e));
                    if (!ne) {
                        err = error_set(BG_ENOMEM, "out of memory");
                        break;
                    }
                    map.e = ne;
                }
                map.e[map.n].font = font;
                map.e[map.n].index = index;
                map.e[map.n++].shared = shared;
                err = strbuf_append(sb, run, (size_t)(p - run));
                if (err == 0 && fresh) /* first definition in the document */
                    err = strbuf_printf(sb, "<symbol overflow=\"visible\" id=\"g%ld\">", shared);
                if (err == 0 && fresh)
                    err = strbuf_append(sb, body, (size_t)(close - body) + strlen("</symbol>"));
                p = close + strlen("</symbol>");
                if (*p == '\n')
                    p++;
                run = p;
                continue;
            }
        }
        if (*p == 'h' && strncmp(p, "href=\"#glyph", 12) == 0) {
            long font, index;
            size_t idlen = parse_glyph_id(p + 7, &font, &index);
            long shared = idlen ? map_find(&map, font, index) : -1;
            if (shared >= 0) {
                err = strbuf_append(sb, run, (size_t)(p - run));
                err = err ? err : strbuf_printf(sb, "href=\"#g%ld", shared);
                p += 7 + idlen;
                run = p;
                continue;
            }
        }
        if (*p == 'i' || *p == 'h' || *p == 'u') {
            size_t i = 0;
            while (i < 3 && strncmp(p, pats[i], strlen(pats[i])) != 0)
                i++;
            if (i < 3) {
                size_t len = strlen(pats[i]);
                err = strbuf_append(sb, run, (size_t)(p - run) + len);
                err = err ? err : strbuf_printf(sb, "f%zu-", k);
                p += len;
                run = p;
                continue;
            }
        }
        p++;
    }
    free(map.e);
    return err ? err : strbuf_puts(sb, run);
}

int doc_html_figure(struct strbuf *sb, const struct figure *f, size_t k, struct doc_html_glyphs *g)
{
    int err = strbuf_printf(sb, "<figure id=\"fig-%s\">\n", f->name);
    if (err == 0 && f->svg)
        err = inline_svg(sb, f->svg, k, g);
    err = err ? err : strbuf_puts(sb, "<figcaption><b>");
    err = err ? err : escape_html(sb, f->title);
    err = err ? err : strbuf_puts(sb, ".</b> ");
    err = err ? err : escape_html(sb, f->caption);
    err = err ? err
              : strbuf_printf(sb,
                              " <a href=\"charts/%s.png\">PNG</a> <a href=\"charts/%s.svg\">SVG</a> "
                              "<a href=\"charts/%s.pdf\">PDF</a></figcaption>\n</figure>\n",
                              f->name, f->name, f->name);
    return err;
}

static int html_figures(struct strbuf *sb, const struct rctx *x, int section, struct doc_html_glyphs *g)
{
    int err = 0;
    for (size_t i = 0; i < x->nfigs && err == 0; i++)
        if (x->figs[i].section == section)
            err = doc_html_figure(sb, &x->figs[i], i, g);
    return err;
}

static int html_warnings(struct strbuf *sb, const struct rctx *x)
{
    int err = 0;
    size_t nwarn = 0;
    for (size_t i = 0; i < x->rd->ncells && err == 0; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        char w[200];
        grid_warnings(&c->st, w, sizeof(w));
        if (!w[0] || !c->status || strcmp(c->status, "ok"))
            continue;
        if (nwarn++ == 0)
            err = strbuf_puts(sb, "<h3>Warnings</h3>\n<ul class=\"warnings\">\n");
        err = err ? err : strbuf_puts(sb, "<li><code>");
        err = err ? err : escape_html(sb, c->key);
        err = err ? err : strbuf_puts(sb, "</code>: ");
        err = err ? err : escape_html(sb, w);
        err = err ? err : strbuf_puts(sb, "</li>\n");
    }
    if (err == 0 && nwarn)
        err = strbuf_puts(sb, "</ul>\n");
    size_t nf = rctx_nfailures(x);
    if (err == 0 && nf)
        err = strbuf_printf(sb,
                            "<p class=\"note\">%zu cell%s did not produce a number: see "
                            "<a href=\"#failures\">Failures</a>.</p>\n",
                            nf, nf == 1 ? "" : "s");
    return err;
}

static int html_failures(struct strbuf *sb, const struct rctx *x)
{
    int err = html_built_table(sb, x, TABLE_FAILURES);
    for (size_t i = 0; i < x->rd->ncells && err == 0; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        if ((c->status && strcmp(c->status, "ok") == 0) || !c->detail || !strchr(c->detail, '\n'))
            continue;
        err = strbuf_puts(sb, "<details><summary><code>");
        err = err ? err : escape_html(sb, c->key);
        err = err ? err : strbuf_puts(sb, "</code></summary><pre>");
        err = err ? err : escape_html(sb, c->detail);
        err = err ? err : strbuf_puts(sb, "</pre></details>\n");
    }
    return err;
}

static int put(struct kvlist *vars, const char *key, struct strbuf *sb)
{
    int err = kvlist_add(vars, key, sb->buf ? sb->buf : "");
    strbuf_free(sb);
    return err;
}

int doc_html_write(const struct rctx *x, const char *path)
{
    struct kvlist vars = {0};
    struct strbuf sb = {0}, out = {0};
    struct doc_html_glyphs glyphs = {0};
    char *tmpl = NULL, *css = NULL, *title = NULL;
    int err = 0;
    if ((err = template_load(&tmpl, "report.html")) < 0 || (err = template_load(&css, "report.css")) < 0)
        goto done;
    title = util_printf("Benchmark report: %s", x->rd->name);
    if (!title) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    char gen[64];
    snprintf(gen, sizeof(gen), "benchgen %s", BENCHGEN_VERSION);
    if ((err = kvlist_add(&vars, "title", title)) < 0 ||
        (err = kvlist_add(&vars, "description", x->rd->description)) < 0 ||
        (err = kvlist_add(&vars, "generator", gen)) < 0 || (err = kvlist_add(&vars, "css", css)) < 0 ||
        (err = kvlist_add(&vars, "spec", x->rd->spec_text)) < 0 ||
        (err = kvlist_add(&vars, "nav_reference", x->ref ? "<a href=\"#reference\">Published</a>" : "")) < 0)
        goto done;
#define SECTION(key, expr)                                          \
    do {                                                            \
        strbuf_append(&sb, "", 0);                                  \
        if ((err = (expr)) < 0 || (err = put(&vars, key, &sb)) < 0) \
            goto done;                                              \
    } while (0)
    SECTION("meta", html_built_table(&sb, x, TABLE_META));
    SECTION("warnings", html_warnings(&sb, x));
    SECTION("summary", html_built_table(&sb, x, TABLE_SUMMARY));
    SECTION("summary_detail", html_built_table(&sb, x, TABLE_DETAIL));
    SECTION("charts_summary", html_figures(&sb, x, FIG_SUMMARY, &glyphs));
    SECTION("speedup", html_built_table(&sb, x, TABLE_SPEEDUP));
    SECTION("charts_speedup", html_figures(&sb, x, FIG_SPEEDUP, &glyphs));
    SECTION("charts_heatmap", html_figures(&sb, x, FIG_HEATMAP, &glyphs));
    strbuf_append(&sb, "", 0);
    if (x->ref) {
        err = strbuf_puts(&sb, "<section id=\"reference\">\n<h2>Measured vs published</h2>\n");
        if (err == 0 && x->hardware_note[0]) {
            err = strbuf_puts(&sb, "<p class=\"note\">");
            err = err ? err : escape_html(&sb, x->hardware_note);
            err = err ? err : strbuf_puts(&sb, "</p>\n");
        }
        err = err ? err : html_built_table(&sb, x, TABLE_REFERENCE);
        err = err ? err : html_figures(&sb, x, FIG_REFERENCE, &glyphs);
        err = err ? err : strbuf_puts(&sb, "</section>\n");
    }
    if (err < 0 || (err = put(&vars, "reference", &sb)) < 0)
        goto done;
    SECTION("statistics", html_built_table(&sb, x, TABLE_STATISTICS));
    SECTION("charts_cells", html_figures(&sb, x, FIG_CELLS, &glyphs));
    SECTION("method", doc_html_paragraphs(&sb, x->method, x->nmethod));
    strbuf_append(&sb, "", 0);
    if ((err = doc_html_paragraphs(&sb, x->fairness, x->nfairness)) < 0 ||
        (err = strbuf_puts(&sb, "<h3>Facts recorded per backend</h3>\n")) < 0 ||
        (err = html_built_table(&sb, x, TABLE_FACTS)) < 0 || (err = put(&vars, "fairness", &sb)) < 0)
        goto done;
    strbuf_append(&sb, "", 0);
    if ((err = strbuf_puts(&sb, "<h3>Machine and run</h3>\n")) < 0 ||
        (err = html_built_table(&sb, x, TABLE_RUN_ENV)) < 0 ||
        (err = strbuf_puts(&sb, "<h3>Python environments</h3>\n")) < 0 ||
        (err = html_built_table(&sb, x, TABLE_PY_ENV)) < 0 || (err = put(&vars, "environment", &sb)) < 0)
        goto done;
    SECTION("failures", html_failures(&sb, x));
#undef SECTION
    if ((err = template_render(&out, "report.html", tmpl, &vars, escape_html)) < 0)
        goto done;
    err = chart_write_file(path, out.buf, out.len);
done:
    kvlist_free(&vars);
    strbuf_free(&sb);
    strbuf_free(&out);
    doc_html_glyphs_free(&glyphs);
    free(tmpl);
    free(css);
    free(title);
    return err;
}
