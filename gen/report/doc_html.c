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
#include "base/xalloc.h"

#include <math.h>
#include <stdint.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text, HTML-escaped, between open and close. */
static void html_wrap(struct strbuf *sb, const char *open, const char *text, const char *close)
{
    strbuf_puts(sb, open);
    escape_html(sb, text);
    strbuf_puts(sb, close);
}

#define HTML_WIDE_COLS 14 /* columns from which a table is set in smaller type */

void doc_html_table(struct strbuf *sb, const struct table *t)
{
    if (t->ncols == 0 || t->nrows == 0) {
        strbuf_puts(sb, "<p><em>None.</em></p>\n");
        return;
    }
    /* several rows: sortable by report.js (numbers by data-v); a table of
     * many columns (Statistics per cell) in smaller type, so that it fits a
     * 1280 px page instead of scrolling */
    strbuf_puts(sb, t->ncols >= HTML_WIDE_COLS ? "<div class=\"scroll wide\">" : "<div class=\"scroll\">");
    strbuf_puts(sb, t->nrows > 1 ? "<table class=\"sortable\">\n" : "<table>\n");
    if (t->caption)
        html_wrap(sb, "<caption>", t->caption, "</caption>\n");
    strbuf_puts(sb, "<thead><tr>");
    for (size_t c = 0; c < t->ncols; c++)
        html_wrap(sb, t->numeric[c] ? "<th class=\"num\">" : "<th>", t->head[c], "</th>");
    strbuf_puts(sb, "</tr></thead>\n<tbody>\n");
    for (size_t r = 0; r < t->nrows; r++) {
        strbuf_puts(sb, "<tr>");
        for (size_t c = 0; c < t->ncols; c++) {
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
            strbuf_puts(sb, "<td");
            if (cls[0])
                strbuf_printf(sb, " class=\"%s\"", cls + 1);
            if (cell->flags & TC_HEAT) {
                /* a light tint of the heatmap colour keeps black text readable */
                unsigned bg = chart_mix(cell->bg, 0xFFFFFF, 0.55);
                strbuf_printf(sb, " style=\"background:#%06X\"", bg);
            }
            if (isfinite(cell->num) && !(cell->flags & TC_NA))
                strbuf_printf(sb, " data-v=\"%.17g\"", cell->num);
            strbuf_puts(sb, ">");
            if (cell->href)
                html_wrap(sb, "<a href=\"#", cell->href, "\">");
            escape_html(sb, cell->text);
            if (cell->href)
                strbuf_puts(sb, "</a>");
            strbuf_puts(sb, "</td>");
        }
        strbuf_puts(sb, "</tr>\n");
    }
    strbuf_puts(sb, "</tbody></table></div>\n");
}

void doc_html_paragraphs(struct strbuf *sb, char **paras, size_t n)
{
    int in_list = 0;
    for (size_t i = 0; i < n; i++) {
        int bullet = strncmp(paras[i], "- ", 2) == 0;
        if (bullet && !in_list)
            strbuf_puts(sb, "<ul>\n");
        if (!bullet && in_list)
            strbuf_puts(sb, "</ul>\n");
        in_list = bullet;
        html_wrap(sb, bullet ? "<li>" : "<p>", paras[i] + (bullet ? 2 : 0), bullet ? "</li>\n" : "</p>\n");
    }
    if (in_list)
        strbuf_puts(sb, "</ul>\n");
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

/* Shared index of a glyph outline, adding it when new (*fresh = 1). */
static size_t glyphs_intern(struct doc_html_glyphs *g, const char *body, size_t len, int *fresh)
{
    if (g->n * 2 >= g->nslots) {
        size_t ns = g->nslots ? g->nslots * 2 : 1024;
        size_t *slots = xcalloc(ns, sizeof(*slots));
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
            return g->slots[k] - 1;
        }
    }
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 512;
        g->defs = xrealloc(g->defs, g->cap * sizeof(*g->defs));
    }
    g->defs[g->n] = (struct doc_html_glyph){body, len, h};
    g->slots[k] = g->n + 1;
    *fresh = 1;
    return g->n++;
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
static void inline_svg(struct strbuf *sb, const char *svg, size_t k, struct doc_html_glyphs *g)
{
    const char *p = svg;
    struct glyph_map map = {0};
    if (strncmp(p, "<?xml", 5) == 0) {
        const char *end = strstr(p, "?>");
        p = end ? end + 2 : p;
        while (*p == '\n')
            p++;
    }
    static const char sym_open[] = "<symbol overflow=\"visible\" id=\"";
    static const char *const pats[] = {"id=\"", "href=\"#", "url(#"};
    const char *run = p; /* start of the text not yet copied */
    while (*p) {
        if (*p == '<' && strncmp(p, sym_open, sizeof(sym_open) - 1) == 0) {
            long font, index;
            const char *idp = p + sizeof(sym_open) - 1;
            size_t idlen = parse_glyph_id(idp, &font, &index);
            const char *body = idlen && idp[idlen] == '"' ? strchr(idp, '>') : NULL;
            const char *close = body ? strstr(body, "</symbol>") : NULL;
            if (close) {
                body++;
                int fresh = 0;
                long shared = (long)glyphs_intern(g, body, (size_t)(close - body), &fresh);
                if (map.n == map.cap) {
                    map.cap = map.cap ? map.cap * 2 : 256;
                    map.e = xrealloc(map.e, map.cap * sizeof(*map.e));
                }
                map.e[map.n].font = font;
                map.e[map.n].index = index;
                map.e[map.n++].shared = shared;
                strbuf_append(sb, run, (size_t)(p - run));
                if (fresh) { /* first definition in the document */
                    strbuf_printf(sb, "<symbol overflow=\"visible\" id=\"g%ld\">", shared);
                    strbuf_append(sb, body, (size_t)(close - body) + strlen("</symbol>"));
                }
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
                strbuf_append(sb, run, (size_t)(p - run));
                strbuf_printf(sb, "href=\"#g%ld", shared);
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
                strbuf_append(sb, run, (size_t)(p - run) + len);
                strbuf_printf(sb, "f%zu-", k);
                p += len;
                run = p;
                continue;
            }
        }
        p++;
    }
    free(map.e);
    strbuf_puts(sb, run);
}

void doc_html_figure(struct strbuf *sb, const struct figure *f, size_t k, struct doc_html_glyphs *g,
                     unsigned chart_files)
{
    static const struct {
        unsigned bit;
        const char *ext, *label;
    } files[] = {{CHART_PNG, "png", "PNG"}, {CHART_SVG, "svg", "SVG"}, {CHART_PDF, "pdf", "PDF"}};
    strbuf_printf(sb, "<figure id=\"fig-%s\">\n", f->name);
    if (f->svg)
        inline_svg(sb, f->svg, k, g);
    html_wrap(sb, "<figcaption><b>", f->title, ".</b> ");
    escape_html(sb, f->caption);
    /* links only to the chart files this render wrote */
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        if (chart_files & files[i].bit)
            strbuf_printf(sb, " <a href=\"charts/%s.%s\">%s</a>", f->name, files[i].ext, files[i].label);
    strbuf_puts(sb, "</figcaption>\n</figure>\n");
}

/* ---- the document ---------------------------------------------------------- */

static void html_link(const char *s, size_t n, const char *anchor, size_t alen, void *ctx)
{
    struct strbuf *sb = ctx;
    char *t = xstrndup(s, n);
    if (anchor) {
        char *a = xstrndup(anchor, alen);
        html_wrap(sb, "<a href=\"#", a, "\">");
        free(a);
    }
    escape_html(sb, t);
    if (anchor)
        strbuf_puts(sb, "</a>");
    free(t);
}

/* text escaped, each command-line option in it ("--repeats", "--only=x")
 * kept on one line: a browser may break a line after a hyphen, and
 * "--repeats" split as "--" / "repeats" reads as something else. */
static void html_text(struct strbuf *sb, const char *text)
{
    const char *p = text, *from = text;
    while (*p) {
        int at_word = p == text || p[-1] == ' ' || p[-1] == '(' || p[-1] == '\n';
        if (at_word && p[0] == '-' && p[1] == '-' && isalpha((unsigned char)p[2])) {
            const char *e = p + 2;
            while (isalnum((unsigned char)*e) || *e == '-' || *e == '_' || *e == '=')
                e++;
            char *pre = xstrndup(from, (size_t)(p - from)), *opt = xstrndup(p, (size_t)(e - p));
            escape_html(sb, pre);
            html_wrap(sb, "<span style=\"white-space:nowrap\">", opt, "</span>");
            free(pre);
            free(opt);
            from = p = e;
        } else {
            p++;
        }
    }
    escape_html(sb, from);
}

static void html_para(struct strbuf *sb, const struct doc_block *b)
{
    static const char *const open[] = {"<p>", "<p class=\"muted\">", "<p><b>", "<p class=\"note\"><b>",
                                       "<p class=\"ok\"><b>", "<p class=\"note\">"};
    static const char *const close[] = {"</p>\n", "</p>\n", "</b></p>\n", "</b></p>\n", "</b></p>\n", "</p>\n"};
    strbuf_puts(sb, open[b->style]);
    if (b->flags & DOC_LINKS)
        doc_links(b->text, html_link, sb);
    else
        html_text(sb, b->text);
    strbuf_puts(sb, close[b->style]);
}

void doc_html_render(struct strbuf *sb, const struct doc *d, struct doc_html_glyphs *g)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct doc_block *b = &d->b[i];
        int in_list = i > 0 && d->b[i - 1].kind == DOC_WARNING;
        if (in_list && b->kind != DOC_WARNING)
            strbuf_puts(sb, "</ul>\n");
        switch (b->kind) {
        case DOC_SECTION:
            html_wrap(sb, "<section id=\"", b->id, "\">\n");
            if (b->text)
                html_wrap(sb, "<h2>", b->text, "</h2>\n");
            break;
        case DOC_END: strbuf_puts(sb, "</section>\n"); break;
        case DOC_HEADING: html_wrap(sb, "<h3>", b->text, "</h3>\n"); break;
        case DOC_PARA: html_para(sb, b); break;
        case DOC_PARAS: doc_html_paragraphs(sb, b->items, b->nitems); break;
        case DOC_WARNING:
            if (!in_list)
                strbuf_puts(sb, "<ul class=\"warnings\">\n");
            strbuf_puts(sb, "<li>");
            if (b->id)
                html_wrap(sb, "<code>", b->id, "</code>: ");
            html_wrap(sb, "", b->text, "</li>\n");
            if (i + 1 == d->n)
                strbuf_puts(sb, "</ul>\n");
            break;
        case DOC_TABLE: doc_html_table(sb, &b->table); break;
        case DOC_FIGURE:
            if (b->fig < d->nfigs)
                doc_html_figure(sb, &d->figs[b->fig], b->fig, g, d->chart_files);
            break;
        case DOC_CODE: html_wrap(sb, "<pre>", b->text, "</pre>\n"); break;
        case DOC_DETAILS: {
            char anchor[300]; /* a cell's log: the tables link its key here */
            table_log_anchor(b->id, anchor, sizeof(anchor));
            strbuf_printf(sb, "<details id=\"%s\"><summary><code>", anchor);
            html_wrap(sb, "", b->id, "</code></summary><pre>");
            html_wrap(sb, "", b->text, "</pre></details>\n");
            break;
        }
        }
    }
}

/* The navigation: a link to every titled section. */
static void html_nav(struct strbuf *sb, const struct doc *d)
{
    strbuf_append(sb, "", 0);
    for (size_t i = 0; i < d->n; i++) {
        const struct doc_block *b = &d->b[i];
        if (b->kind != DOC_SECTION || !b->text || !b->id)
            continue;
        html_wrap(sb, "<a href=\"#", b->id, "\">");
        html_wrap(sb, "", b->text, "</a>");
    }
}

/* The page's Content-Security-Policy: nothing from anywhere, inline styles,
 * data: images, and only the script whose SHA-256 this is (so text that
 * escaped escaping could still not run). */
static int html_csp(char *buf, size_t n, const char *script)
{
    char hex[65];
    unsigned char raw[32];
    int err = sha256_hex(script, strlen(script), hex);
    if (err < 0)
        return err;
    for (size_t i = 0; i < 32; i++)
        raw[i] = (unsigned char)strtoul((char[3]){hex[2 * i], hex[2 * i + 1], 0}, NULL, 16);
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char enc[48];
    size_t o = 0;
    for (size_t i = 0; i < 32; i += 3) {
        unsigned v = (unsigned)raw[i] << 16 | (i + 1 < 32 ? (unsigned)raw[i + 1] << 8 : 0) | (i + 2 < 32 ? raw[i + 2] : 0);
        enc[o++] = b64[v >> 18 & 63];
        enc[o++] = b64[v >> 12 & 63];
        enc[o++] = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
        enc[o++] = i + 2 < 32 ? b64[v & 63] : '=';
    }
    enc[o] = '\0';
    snprintf(buf, n, "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-%s'", enc);
    return 0;
}

int doc_html_write(const struct doc *d, const char *template_name, const char *path)
{
    struct kvlist vars = {0};
    struct strbuf body = {0}, nav = {0}, out = {0};
    struct doc_html_glyphs glyphs = {0};
    char *tmpl = NULL, *css = NULL, *js = NULL;
    char gen[64], csp[200];
    int err = doc_error(d);
    snprintf(gen, sizeof(gen), "benchgen %s", BENCHGEN_VERSION);
    if (err < 0 || (err = template_load(&tmpl, template_name)) < 0 ||
        (err = template_load(&css, "report.css")) < 0 || (err = template_load(&js, "report.js")) < 0 ||
        (err = html_csp(csp, sizeof(csp), js)) < 0)
        goto done;
    strbuf_append(&body, "", 0);
    doc_html_render(&body, d, &glyphs);
    html_nav(&nav, d);
    if ((err = strbuf_error(&body)) < 0 || (err = strbuf_error(&nav)) < 0)
        goto done;
    kvlist_add(&vars, "title", d->title);
    kvlist_add(&vars, "description", d->subtitle);
    kvlist_add(&vars, "generator", gen);
    kvlist_add(&vars, "css", css);
    kvlist_add(&vars, "nav", nav.buf);
    kvlist_add(&vars, "body", body.buf);
    kvlist_add(&vars, "script", js);
    kvlist_add(&vars, "csp", csp);
    if ((err = template_render(&out, template_name, tmpl, &vars, escape_html)) < 0)
        goto done;
    err = chart_write_file(path, out.buf, out.len);
done:
    kvlist_free(&vars);
    strbuf_free(&body);
    strbuf_free(&nav);
    strbuf_free(&out);
    doc_html_glyphs_free(&glyphs);
    free(tmpl);
    free(css);
    free(js);
    return err;
}
