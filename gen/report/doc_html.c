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

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int doc_html_table(struct strbuf *sb, const struct table *t)
{
    int err = 0;
    if (t->ncols == 0 || t->nrows == 0)
        return strbuf_puts(sb, "<p><em>None.</em></p>\n");
    /* several rows: sortable by report.js (numbers by data-v) */
    err = strbuf_puts(sb, t->nrows > 1 ? "<div class=\"scroll\"><table class=\"sortable\">\n"
                                       : "<div class=\"scroll\"><table>\n");
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
            if (err == 0 && isfinite(cell->num) && !(cell->flags & TC_NA))
                err = strbuf_printf(sb, " data-v=\"%.17g\"", cell->num);
            err = err ? err : strbuf_puts(sb, ">");
            if (err == 0 && cell->href) {
                err = strbuf_puts(sb, "<a href=\"#");
                err = err ? err : escape_html(sb, cell->href);
                err = err ? err : strbuf_puts(sb, "\">");
            }
            err = err ? err : escape_html(sb, cell->text);
            err = err ? err : cell->href ? strbuf_puts(sb, "</a>") : 0;
            err = err ? err : strbuf_puts(sb, "</td>");
        }
        err = err ? err : strbuf_puts(sb, "</tr>\n");
    }
    return err ? err : strbuf_puts(sb, "</tbody></table></div>\n");
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

int doc_html_figure(struct strbuf *sb, const struct figure *f, size_t k, struct doc_html_glyphs *g,
                    unsigned chart_files)
{
    static const struct {
        unsigned bit;
        const char *ext, *label;
    } files[] = {{CHART_PNG, "png", "PNG"}, {CHART_SVG, "svg", "SVG"}, {CHART_PDF, "pdf", "PDF"}};
    int err = strbuf_printf(sb, "<figure id=\"fig-%s\">\n", f->name);
    if (err == 0 && f->svg)
        err = inline_svg(sb, f->svg, k, g);
    err = err ? err : strbuf_puts(sb, "<figcaption><b>");
    err = err ? err : escape_html(sb, f->title);
    err = err ? err : strbuf_puts(sb, ".</b> ");
    err = err ? err : escape_html(sb, f->caption);
    /* links only to the chart files this render wrote */
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !err; i++)
        if (chart_files & files[i].bit)
            err = strbuf_printf(sb, " <a href=\"charts/%s.%s\">%s</a>", f->name, files[i].ext,
                                files[i].label);
    err = err ? err : strbuf_puts(sb, "</figcaption>\n</figure>\n");
    return err;
}

/* ---- the document ---------------------------------------------------------- */

static int html_link(const char *s, size_t n, const char *anchor, size_t alen, void *ctx)
{
    struct strbuf *sb = ctx;
    char *t = strndup(s, n);
    int err = t ? 0 : error_set(BG_ENOMEM, "out of memory");
    if (!err && anchor) {
        err = strbuf_puts(sb, "<a href=\"#");
        char *a = strndup(anchor, alen);
        err = err ? err : a ? escape_html(sb, a) : error_set(BG_ENOMEM, "out of memory");
        free(a);
        err = err ? err : strbuf_puts(sb, "\">");
    }
    err = err ? err : escape_html(sb, t);
    err = err ? err : anchor ? strbuf_puts(sb, "</a>") : 0;
    free(t);
    return err;
}

static int html_para(struct strbuf *sb, const struct doc_block *b)
{
    static const char *const open[] = {"<p>", "<p class=\"muted\">", "<p><b>", "<p class=\"note\"><b>",
                                       "<p class=\"ok\"><b>", "<p class=\"note\">"};
    static const char *const close[] = {"</p>\n", "</p>\n", "</b></p>\n", "</b></p>\n", "</b></p>\n", "</p>\n"};
    int err = strbuf_puts(sb, open[b->style]);
    if (err == 0)
        err = (b->flags & DOC_LINKS) ? doc_links(b->text, html_link, sb) : escape_html(sb, b->text);
    return err ? err : strbuf_puts(sb, close[b->style]);
}

int doc_html_render(struct strbuf *sb, const struct doc *d, struct doc_html_glyphs *g)
{
    int err = 0;
    for (size_t i = 0; i < d->n && err == 0; i++) {
        const struct doc_block *b = &d->b[i];
        int in_list = i > 0 && d->b[i - 1].kind == DOC_WARNING;
        if (in_list && b->kind != DOC_WARNING && (err = strbuf_puts(sb, "</ul>\n")) < 0)
            break;
        switch (b->kind) {
        case DOC_SECTION:
            err = strbuf_puts(sb, "<section id=\"");
            err = err ? err : escape_html(sb, b->id);
            err = err ? err : strbuf_puts(sb, "\">\n");
            if (!err && b->text) {
                err = strbuf_puts(sb, "<h2>");
                err = err ? err : escape_html(sb, b->text);
                err = err ? err : strbuf_puts(sb, "</h2>\n");
            }
            break;
        case DOC_END: err = strbuf_puts(sb, "</section>\n"); break;
        case DOC_HEADING:
            err = strbuf_puts(sb, "<h3>");
            err = err ? err : escape_html(sb, b->text);
            err = err ? err : strbuf_puts(sb, "</h3>\n");
            break;
        case DOC_PARA: err = html_para(sb, b); break;
        case DOC_PARAS: err = doc_html_paragraphs(sb, b->items, b->nitems); break;
        case DOC_WARNING:
            err = in_list ? 0 : strbuf_puts(sb, "<ul class=\"warnings\">\n");
            err = err ? err : strbuf_puts(sb, "<li>");
            if (!err && b->id) {
                err = strbuf_puts(sb, "<code>");
                err = err ? err : escape_html(sb, b->id);
                err = err ? err : strbuf_puts(sb, "</code>: ");
            }
            err = err ? err : escape_html(sb, b->text);
            err = err ? err : strbuf_puts(sb, "</li>\n");
            if (!err && i + 1 == d->n)
                err = strbuf_puts(sb, "</ul>\n");
            break;
        case DOC_TABLE: err = doc_html_table(sb, &b->table); break;
        case DOC_FIGURE:
            if (b->fig < d->nfigs)
                err = doc_html_figure(sb, &d->figs[b->fig], b->fig, g, d->chart_files);
            break;
        case DOC_CODE:
            err = strbuf_puts(sb, "<pre>");
            err = err ? err : escape_html(sb, b->text);
            err = err ? err : strbuf_puts(sb, "</pre>\n");
            break;
        case DOC_DETAILS: {
            char anchor[300]; /* a cell's log: the tables link its key here */
            table_log_anchor(b->id, anchor, sizeof(anchor));
            err = strbuf_printf(sb, "<details id=\"%s\"><summary><code>", anchor);
            err = err ? err : escape_html(sb, b->id);
            err = err ? err : strbuf_puts(sb, "</code></summary><pre>");
            err = err ? err : escape_html(sb, b->text);
            err = err ? err : strbuf_puts(sb, "</pre></details>\n");
            break;
        }
        }
    }
    return err;
}

/* The navigation: a link to every titled section. */
static int html_nav(struct strbuf *sb, const struct doc *d)
{
    int err = strbuf_append(sb, "", 0);
    for (size_t i = 0; i < d->n && err == 0; i++) {
        const struct doc_block *b = &d->b[i];
        if (b->kind != DOC_SECTION || !b->text || !b->id)
            continue;
        err = strbuf_puts(sb, "<a href=\"#");
        err = err ? err : escape_html(sb, b->id);
        err = err ? err : strbuf_puts(sb, "\">");
        err = err ? err : escape_html(sb, b->text);
        err = err ? err : strbuf_puts(sb, "</a>");
    }
    return err;
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
    if ((err = strbuf_append(&body, "", 0)) < 0 || (err = doc_html_render(&body, d, &glyphs)) < 0 ||
        (err = html_nav(&nav, d)) < 0)
        goto done;
    if ((err = kvlist_add(&vars, "title", d->title)) < 0 ||
        (err = kvlist_add(&vars, "description", d->subtitle)) < 0 ||
        (err = kvlist_add(&vars, "generator", gen)) < 0 || (err = kvlist_add(&vars, "css", css)) < 0 ||
        (err = kvlist_add(&vars, "nav", nav.buf)) < 0 || (err = kvlist_add(&vars, "body", body.buf)) < 0 ||
        (err = kvlist_add(&vars, "script", js)) < 0 || (err = kvlist_add(&vars, "csp", csp)) < 0)
        goto done;
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
