/*
 * doc_pdf.c - report.pdf drawn with cairo + pango (see doc_pdf.h).
 *
 * A small flowing layout: a cursor moves down the page; headings,
 * paragraphs, tables (header repeated after a page break), figures (scaled
 * to fit, drawn with the charts' own draw functions, so they stay vectors)
 * and code blocks each ask for the room they need and start a new page when
 * it is not there. Sections get PDF outline entries.
 */
#include "report/doc_pdf.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "report/tables.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo-pdf.h>

#define PAGE_W 841.89 /* A4 landscape */
#define PAGE_H 595.28
#define MARGIN 36.0
#define FOOTER_H 18.0
/* The most of one heading or table cell the PDF shows, longer texts (a
 * spec's name, a description) cut by doc_cap with a note: a heading or a
 * row stays well inside a page, and laying it out stays cheap (pango's
 * line breaking of a long run without spaces is quadratic). */
#define PDF_SHORT_MAX 1024
#define PDF_HELD_MAX 3 /* headings held at once (a section's and its subsections') */
#define BODY_W (PAGE_W - 2 * MARGIN)
#define BOTTOM (p->page_h - MARGIN - FOOTER_H)
/* the least a figure is scaled to fit a page's height; below it the page
 * grows instead (chart text is 6.5 to 8.5 pt: never under 5 pt) */
#define MIN_FIG_SCALE 0.8
#define FIG_CAPTION_H 48.0

struct doc_pdf {
    cairo_surface_t *s;
    cairo_t *cr;
    struct chart c;
    double y;
    double page_h; /* PAGE_H, or more on a page that holds one tall figure */
    int page;
    char *held[PDF_HELD_MAX]; /* headings not drawn yet (a section's, then its first
                               * subsection's): they go down with what follows them */
    int held_level[PDF_HELD_MAX];
    int nheld;
    char footer[400];
    struct strbuf out;
};

static cairo_status_t write_strbuf(void *closure, const unsigned char *data, unsigned int length)
{
    return strbuf_append(closure, (const char *)data, length) == 0 ? CAIRO_STATUS_SUCCESS
                                                                   : CAIRO_STATUS_NO_MEMORY;
}

static void draw_footer(struct doc_pdf *p)
{
    char buf[480];
    snprintf(buf, sizeof(buf), "page %d", p->page);
    chart_rgb(&p->c, CHART_MUTED);
    cairo_set_line_width(p->cr, 0.5);
    cairo_move_to(p->cr, MARGIN, p->page_h - MARGIN - 8);
    cairo_line_to(p->cr, PAGE_W - MARGIN, p->page_h - MARGIN - 8);
    cairo_stroke(p->cr);
    chart_text(&p->c, CHART_FONT_REGULAR, 7.5, MARGIN, p->page_h - MARGIN - 4, 0, 0, BODY_W - 80,
               CHART_ELLIPSIZE, p->footer);
    chart_text(&p->c, CHART_FONT_REGULAR, 7.5, PAGE_W - MARGIN, p->page_h - MARGIN - 4, 1, 0, 0, 0, buf);
}

static void new_page(struct doc_pdf *p)
{
    draw_footer(p);
    cairo_show_page(p->cr);
    p->page++;
    p->y = MARGIN;
    if (p->page_h != PAGE_H) { /* after a tall figure's page, back to A4 */
        p->page_h = PAGE_H;
        cairo_pdf_surface_set_size(p->s, PAGE_W, PAGE_H);
    }
}

static double heading_size(int level)
{
    return level == 1 ? 20 : level == 2 ? 15 : 11.5;
}

/* The space above a heading, below what precedes it on its page. */
static double heading_before(int level)
{
    return level == 1 ? 0 : level == 2 ? 14 : 8;
}

/* The height a heading takes at the cursor: the space above it (none at a
 * page's top), its text and, for a section, the rule under it. */
static double heading_height(struct doc_pdf *p, const char *text, int level)
{
    double h;
    chart_text_size(&p->c, CHART_FONT_BOLD, heading_size(level), BODY_W, CHART_WRAP, text, NULL, &h);
    return (p->y > MARGIN + 1 ? heading_before(level) : 0) + h + (level == 2 ? 8 : 4);
}

static void draw_heading(struct doc_pdf *p, const char *text, int level)
{
    double size = heading_size(level);
    p->y += p->y > MARGIN + 1 ? heading_before(level) : 0;
    double h;
    chart_text_size(&p->c, CHART_FONT_BOLD, size, BODY_W, CHART_WRAP, text, NULL, &h);
    chart_rgb(&p->c, CHART_INK);
    chart_text(&p->c, CHART_FONT_BOLD, size, MARGIN, p->y, 0, 0, BODY_W, CHART_WRAP, text);
    if (level <= 2) {
        char attrs[96];
        snprintf(attrs, sizeof(attrs), "page=%d pos=[%.1f %.1f]", p->page, MARGIN, p->y);
        cairo_pdf_surface_add_outline(p->s, CAIRO_PDF_OUTLINE_ROOT, text, attrs, 0);
    }
    p->y += h + (level == 2 ? 2 : 4);
    if (level == 2) {
        chart_rgb(&p->c, 0xDDDDDD);
        cairo_set_line_width(p->cr, 1.2);
        cairo_move_to(p->cr, MARGIN, p->y);
        cairo_line_to(p->cr, PAGE_W - MARGIN, p->y);
        cairo_stroke(p->cr);
        p->y += 6;
    }
}

/* The height of the held headings together. */
static double held_height(struct doc_pdf *p)
{
    double h = 0;
    for (int i = 0; i < p->nheld; i++)
        h += heading_height(p, p->held[i], p->held_level[i]);
    return h;
}

/* Draws the held headings, if any, on a new page when they and the first h
 * points of what follows them do not fit on this one: a heading never ends
 * a page, and a section heading followed by a subsection's ("Environment",
 * "Machine and run") goes down with it. A section heading also wants 120
 * points of its section below it. */
static void release(struct doc_pdf *p, double h)
{
    if (!p->nheld)
        return;
    int section = 0;
    for (int i = 0; i < p->nheld; i++)
        section |= p->held_level[i] == 2;
    double after = section && h < 120 ? 120 : h;
    if (p->y + held_height(p) + after > BOTTOM && p->y > MARGIN + 1)
        new_page(p);
    for (int i = 0; i < p->nheld; i++) {
        draw_heading(p, p->held[i], p->held_level[i]);
        free(p->held[i]);
        p->held[i] = NULL;
    }
    p->nheld = 0;
}

static void need(struct doc_pdf *p, double h)
{
    release(p, h);
    if (p->y + h > BOTTOM && p->y > MARGIN + 1)
        new_page(p);
}

void doc_pdf_heading(struct doc_pdf *p, const char *text, int level)
{
    if (p->nheld == PDF_HELD_MAX)
        release(p, 0);
    char *t = doc_cap(text, PDF_SHORT_MAX, "the HTML document");
    p->held[p->nheld] = t ? t : xstrdup(text);
    p->held_level[p->nheld++] = level;
}

/* One piece of a paragraph: laid out as a whole, so never longer than
 * PDF_PIECE bytes. */
static void paragraph_piece(struct doc_pdf *p, const char *text, enum chart_font f, double size, unsigned color,
                            int bullet, int indent_only, int last)
{
    double indent = bullet || indent_only ? 12 : 0, h;
    chart_text_size(&p->c, f, size, BODY_W - indent, CHART_WRAP, text, NULL, &h);
    need(p, h);
    chart_rgb(&p->c, color);
    if (bullet)
        chart_text(&p->c, f, size, MARGIN + 2, p->y, 0, 0, 0, 0, "\xE2\x80\xA2");
    chart_text(&p->c, f, size, MARGIN + indent, p->y, 0, 0, BODY_W - indent, CHART_WRAP, text);
    p->y += h + (last ? size * 0.45 : 0);
}

/* Laying out a text costs more than its length (pango's line breaking of a
 * long run without spaces is quadratic), and a paragraph taller than a page
 * must flow onto the next: a long paragraph is laid out in pieces of at
 * most PDF_PIECE bytes, cut after a space or a line break near the end of
 * each piece, else at a character boundary. Linear in the text's length. */
#define PDF_PIECE 2048

void doc_pdf_paragraph(struct doc_pdf *p, const char *text, enum chart_font f, double size, unsigned color,
                       int bullet)
{
    size_t n = strlen(text);
    if (n <= PDF_PIECE) {
        paragraph_piece(p, text, f, size, color, bullet, 0, 1);
        return;
    }
    for (size_t at = 0, first = 1; at < n; first = 0) {
        size_t len = n - at;
        if (len > PDF_PIECE) {
            len = PDF_PIECE;
            size_t k = len;
            while (k > PDF_PIECE - 256 && text[at + k - 1] != ' ' && text[at + k - 1] != '\n')
                k--;
            if (k > PDF_PIECE - 256)
                len = k;
            else
                while (len > 1 && ((unsigned char)text[at + len] & 0xC0) == 0x80)
                    len--;
        }
        char *piece = xstrndup(text + at, len);
        paragraph_piece(p, piece, f, size, color, bullet && first, bullet && !first, at + len >= n);
        free(piece);
        at += len;
    }
}

void doc_pdf_paragraphs(struct doc_pdf *p, char **paras, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int bullet = strncmp(paras[i], "- ", 2) == 0;
        doc_pdf_paragraph(p, paras[i] + (bullet ? 2 : 0), CHART_FONT_REGULAR, 9, CHART_INK, bullet);
    }
}

/* ---- tables ----------------------------------------------------------------- */

static enum chart_font cell_font(unsigned flags, int head)
{
    return head || (flags & TC_BOLD) ? CHART_FONT_BOLD
           : (flags & TC_NA)         ? CHART_FONT_ITALIC
           : (flags & TC_MONO)       ? CHART_FONT_MONO
                                     : CHART_FONT_REGULAR;
}

#define CELL_PAD 3.0

/* Names (mono: "sd/predict/b1/torch-eager") wrap at '/' or a space, never
 * at a hyphen ("torch-" / "eager"). */
static unsigned wrap_flags(unsigned cell_flags)
{
    return CHART_WRAP | ((cell_flags & TC_MONO) ? CHART_KEEP_HYPHENS : 0);
}

/* Width of the longest piece of a name between '/' and spaces: a mono
 * column is never narrower, so the name wraps only there. */
static double longest_piece(struct doc_pdf *p, double size, const char *text)
{
    double best = 0;
    char piece[256];
    while (*text) {
        size_t n = strcspn(text, "/ ");
        size_t k = n < sizeof(piece) - 2 ? n : sizeof(piece) - 2;
        memcpy(piece, text, k);
        piece[k] = text[n] == '/' ? '/' : '\0'; /* the slash stays on its line */
        piece[k + 1] = '\0';
        double w;
        chart_text_size(&p->c, CHART_FONT_MONO, size, 0, 0, piece, &w, NULL);
        best = fmax(best, w);
        text += n + (text[n] != '\0');
    }
    return best;
}

/* Height of a row: one line unless some cell's natural width (nat, measured
 * once per cell) exceeds its column, then that cell's wrapped height. Laying
 * out text is the table's main cost, so single-line cells are never measured
 * twice. */
static double row_height(struct doc_pdf *p, const struct table *t, const double *cw, const double *nat,
                         double line_h, double size, size_t r, int head)
{
    double h = line_h;
    for (size_t c = 0; c < t->ncols; c++) {
        if (nat[c] <= cw[c] - 2 * CELL_PAD)
            continue;
        const char *text = head ? t->head[c] : table_at(t, r, c)->text;
        double th;
        chart_text_size(&p->c, cell_font(head ? 0 : table_at(t, r, c)->flags, head), size,
                        cw[c] - 2 * CELL_PAD, wrap_flags(head ? 0 : table_at(t, r, c)->flags), text, NULL, &th);
        if (th > h)
            h = th;
    }
    return h + 2 * CELL_PAD;
}

static void draw_row(struct doc_pdf *p, const struct table *t, const double *cw, const double *nat,
                     double size, size_t r, int head, double h)
{
    double x = MARGIN;
    for (size_t c = 0; c < t->ncols; c++) {
        const struct tcell *cell = head ? NULL : table_at(t, r, c);
        const char *text = head ? t->head[c] : cell->text;
        unsigned flags = head ? 0 : cell->flags;
        unsigned bg = head                ? 0xEFEFEF
                      : (flags & TC_HEAT) ? chart_mix(cell->bg, 0xFFFFFF, 0.55)
                      : (flags & TC_NA)   ? 0xF7F7F7
                                          : 0xFFFFFF;
        chart_rgb(&p->c, bg);
        cairo_rectangle(p->cr, x, p->y, cw[c], h);
        cairo_fill(p->cr);
        chart_rgb(&p->c, 0xD0D0D0);
        cairo_set_line_width(p->cr, 0.4);
        cairo_rectangle(p->cr, x, p->y, cw[c], h);
        cairo_stroke(p->cr);
        if (flags & TC_BOLD) {
            chart_rgb(&p->c, CHART_INK);
            cairo_set_line_width(p->cr, 1.1);
            cairo_rectangle(p->cr, x + 0.6, p->y + 0.6, cw[c] - 1.2, h - 1.2);
            cairo_stroke(p->cr);
        }
        if (text[0]) {
            int right = t->numeric[c] && !head && !(flags & TC_NA);
            int wraps = nat[c] > cw[c] - 2 * CELL_PAD;
            chart_rgb(&p->c, (flags & TC_NA) ? CHART_MUTED : (flags & TC_WARN) ? CHART_WARN : CHART_INK);
            chart_text(&p->c, cell_font(flags, head), size, right ? x + cw[c] - CELL_PAD : x + CELL_PAD,
                       p->y + CELL_PAD, right ? 1 : 0, 0, wraps ? cw[c] - 2 * CELL_PAD : 0,
                       wraps ? wrap_flags(flags) : 0, text);
        }
        x += cw[c];
    }
    p->y += h;
}

static void table_laid_out(struct doc_pdf *p, const struct table *t, double size)
{
    if (t->ncols == 0 || t->nrows == 0) {
        doc_pdf_paragraph(p, "None.", CHART_FONT_ITALIC, 9, CHART_MUTED, 0);
        return;
    }
    double *cw = xcalloc(t->ncols, sizeof(double));
    double *nat_head = xcalloc(t->ncols, sizeof(double));
    double *nat = xcalloc(t->ncols * (t->nrows + 1), sizeof(double)); /* per cell, then per-column max */
    double *minw = xcalloc(t->ncols, sizeof(double));
    /* natural width of every cell, measured once; columns take the longest,
     * capped, then shrink together to fit the page */
    double total = 0, line_h;
    chart_text_size(&p->c, CHART_FONT_REGULAR, size, 0, 0, "Ag", NULL, &line_h);
    for (size_t c = 0; c < t->ncols; c++) {
        chart_text_size(&p->c, CHART_FONT_BOLD, size, 0, 0, t->head[c], &nat_head[c], NULL);
        double col = fmin(nat_head[c], 90);
        for (size_t r = 0; r < t->nrows; r++) {
            const struct tcell *cell = table_at(t, r, c);
            double w = 0;
            if (cell->text[0])
                chart_text_size(&p->c, cell_font(cell->flags, 0), size, 0, 0, cell->text, &w, NULL);
            nat[r * t->ncols + c] = w;
            if (w > col)
                col = w;
            if ((cell->flags & TC_MONO) && w > minw[c])
                minw[c] = fmax(minw[c], longest_piece(p, size, cell->text) + 2 * CELL_PAD + 2);
        }
        cw[c] = fmin(col + 2 * CELL_PAD + 2, 260);
        total += cw[c];
    }
    if (total > BODY_W) {
        /* narrow columns (numbers, short names) keep their width; the wide
         * ones share what is left and wrap */
        double fixed = 0, flex = 0;
        for (size_t c = 0; c < t->ncols; c++)
            *(cw[c] <= 64 ? &fixed : &flex) += cw[c];
        double k = flex > 0 && BODY_W > fixed ? (BODY_W - fixed) / flex : BODY_W / total;
        for (size_t c = 0; c < t->ncols; c++)
            if (cw[c] > 64 || flex <= 0 || BODY_W <= fixed)
                cw[c] *= k;
        /* a name column keeps its longest piece whole; the other wide
         * columns give up what it takes back */
        double grow = 0, rest = 0;
        for (size_t c = 0; c < t->ncols; c++) {
            if (cw[c] < minw[c]) {
                grow += minw[c] - cw[c];
                cw[c] = minw[c];
            } else if (cw[c] > 64 && !minw[c]) {
                rest += cw[c];
            }
        }
        for (size_t c = 0; grow > 0 && rest > grow && c < t->ncols; c++)
            if (cw[c] > 64 && !minw[c])
                cw[c] *= (rest - grow) / rest;
    }
    double hh = row_height(p, t, cw, nat_head, line_h, size, 0, 1);
    /* a table that fits on a page starts on one that holds it whole: no
     * orphan rows at the top of the next page */
    double whole = hh;
    for (size_t r = 0; r < t->nrows && r < 60 && whole < BOTTOM - MARGIN; r++)
        whole += row_height(p, t, cw, nat + r * t->ncols, line_h, size, r, 0);
    double cap_h = 0;
    if (t->caption) {
        chart_text_size(&p->c, CHART_FONT_REGULAR, 8.5, BODY_W, CHART_WRAP, t->caption, NULL, &cap_h);
        cap_h += 8.5 * 0.45;
    }
    need(p, cap_h + (whole < BOTTOM - MARGIN ? whole : hh * 2.5)); /* the caption stays with its table */
    if (t->caption)
        doc_pdf_paragraph(p, t->caption, CHART_FONT_REGULAR, 8.5, CHART_MUTED, 0);
    draw_row(p, t, cw, nat_head, size, 0, 1, hh);
    for (size_t r = 0; r < t->nrows; r++) {
        const double *rn = nat + r * t->ncols;
        double h = row_height(p, t, cw, rn, line_h, size, r, 0);
        if (p->y + h > BOTTOM) {
            new_page(p);
            draw_row(p, t, cw, nat_head, size, 0, 1, hh);
        }
        draw_row(p, t, cw, rn, size, r, 0, h);
    }
    p->y += 10;
    free(cw);
    free(nat);
    free(nat_head);
    free(minw);
}

/* A table whose cells (or heads) hold longer texts than PDF_SHORT_MAX is
 * laid out from a view of it with those texts cut (doc_cap, with a note). */
void doc_pdf_table(struct doc_pdf *p, const struct table *t, double size)
{
    size_t n = t->ncols * t->nrows, longs = 0;
    for (size_t i = 0; i < n; i++)
        longs += strlen(t->cells[i].text) > PDF_SHORT_MAX;
    for (size_t c = 0; c < t->ncols; c++)
        longs += strlen(t->head[c]) > PDF_SHORT_MAX;
    if (!longs) {
        table_laid_out(p, t, size);
        return;
    }
    struct table view = *t;
    view.cells = xmalloc(n * sizeof(*view.cells));
    view.head = xmalloc(t->ncols * sizeof(*view.head));
    char **cut = xcalloc(n + t->ncols, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        view.cells[i] = t->cells[i];
        if ((cut[i] = doc_cap(t->cells[i].text, PDF_SHORT_MAX, "the HTML document")))
            view.cells[i].text = cut[i];
    }
    for (size_t c = 0; c < t->ncols; c++)
        view.head[c] = (cut[n + c] = doc_cap(t->head[c], PDF_SHORT_MAX, "the HTML document")) ? cut[n + c] : t->head[c];
    table_laid_out(p, &view, size);
    for (size_t i = 0; i < n + t->ncols; i++)
        free(cut[i]);
    free(cut);
    free(view.head);
    free(view.cells);
}

/* ---- figures and code ----------------------------------------------------------- */

double doc_pdf_figure_scale(double w, double h, double *page_h)
{
    double avail_h = PAGE_H - MARGIN - FOOTER_H - MARGIN - 24;
    double wscale = fmin(1, BODY_W / w), scale = fmin(wscale, avail_h / h);
    *page_h = PAGE_H;
    if (scale < wscale * MIN_FIG_SCALE) { /* too tall: a taller page, not tiny text */
        scale = wscale;
        *page_h = MARGIN + h * scale + 4 + FIG_CAPTION_H + FOOTER_H + MARGIN;
    }
    return scale;
}

int doc_pdf_figure(struct doc_pdf *p, const struct figure *f)
{
    double page_h;
    double scale = doc_pdf_figure_scale(f->w, f->h, &page_h);
    double h = f->h * scale;
    /* A figure taller than a page, or one that fills a page and has a heading
     * to take along: a page of its own, grown by what it holds above the figure. */
    bool full = p->nheld && h + 20 + held_height(p) > PAGE_H - 2 * MARGIN - FOOTER_H;
    if (page_h > PAGE_H || full) {
        if (p->y > MARGIN + 1)
            new_page(p);
        p->page_h = (page_h > PAGE_H ? page_h : PAGE_H) + held_height(p);
        cairo_pdf_surface_set_size(p->s, PAGE_W, p->page_h);
        release(p, 0);
    }
    need(p, h + 20);
    cairo_save(p->cr);
    cairo_translate(p->cr, MARGIN + (BODY_W - f->w * scale) / 2, p->y);
    cairo_scale(p->cr, scale, scale);
    int err = chart_draw_on(p->cr, (struct chart_rect){0, 0, f->w, f->h}, f->draw, f->data);
    cairo_restore(p->cr);
    p->y += h + 4;
    char cap[1024];
    snprintf(cap, sizeof(cap), "%s. %s", f->title, f->caption);
    doc_pdf_paragraph(p, cap, CHART_FONT_ITALIC, 8, CHART_MUTED, 0);
    p->y += 6;
    return err;
}

/* A code block, line by line; a line longer than PDF_PIECE bytes is laid
 * out in pieces of at most that (cut at a character boundary), as a long
 * paragraph is: linear in its length, and never a box taller than a page. */
void doc_pdf_code(struct doc_pdf *p, const char *text)
{
    const char *s = text ? text : "";
    double size = 7.5, lh = size * 1.35;
    while (*s) {
        size_t len = strcspn(s, "\n");
        if (len > PDF_PIECE) {
            len = PDF_PIECE;
            while (len > 1 && ((unsigned char)s[len] & 0xC0) == 0x80)
                len--;
        }
        char *line = xstrndup(s, len);
        double h;
        chart_text_size(&p->c, CHART_FONT_MONO, size, BODY_W - 8, CHART_WRAP, line, NULL, &h);
        if (h < lh)
            h = lh;
        need(p, h);
        chart_rgb(&p->c, 0xF4F6F8);
        cairo_rectangle(p->cr, MARGIN, p->y, BODY_W, h);
        cairo_fill(p->cr);
        chart_rgb(&p->c, CHART_INK);
        chart_text(&p->c, CHART_FONT_MONO, size, MARGIN + 4, p->y, 0, 0, BODY_W - 8, CHART_WRAP, line);
        p->y += h;
        free(line);
        s += len + (s[len] == '\n');
    }
    p->y += 8;
}

/* ---- the document ------------------------------------------------------------- */

static void pdf_link(const char *s, size_t n, const char *anchor, size_t alen, void *ctx)
{
    (void)anchor;
    (void)alen;
    strbuf_append(ctx, s, n);
}

static void pdf_para(struct doc_pdf *p, const struct doc_block *b)
{
    static const struct {
        enum chart_font font;
        double size;
        unsigned color;
    } look[] = {[DOC_NORMAL] = {CHART_FONT_REGULAR, 9, CHART_INK},
                [DOC_MUTED] = {CHART_FONT_REGULAR, 10, CHART_MUTED},
                [DOC_STRONG] = {CHART_FONT_BOLD, 9, CHART_INK},
                [DOC_NOTE] = {CHART_FONT_BOLD, 9, CHART_WARN},
                [DOC_GOOD] = {CHART_FONT_BOLD, 9, CHART_INK},
                [DOC_ALERT] = {CHART_FONT_REGULAR, 8.5, CHART_WARN}};
    struct strbuf sb = {0};
    const char *text = b->text;
    if (b->flags & DOC_LINKS) {
        strbuf_append(&sb, "", 0);
        doc_links(b->text, pdf_link, &sb);
        text = strbuf_error(&sb) ? b->text : sb.buf;
    }
    doc_pdf_paragraph(p, text, look[b->style].font, b->size > 0 ? b->size : look[b->style].size,
                      look[b->style].color, 0);
    strbuf_free(&sb);
}

int doc_pdf_render(struct doc_pdf *p, const struct doc *d)
{
    int err = 0;
    doc_pdf_heading(p, d->title, 1);
    if (d->subtitle[0])
        doc_pdf_paragraph(p, d->subtitle, CHART_FONT_REGULAR, 10, CHART_MUTED, 0);
    for (size_t i = 0; i < d->n && err == 0; i++) {
        const struct doc_block *b = &d->b[i];
        switch (b->kind) {
        case DOC_SECTION:
            if (b->text)
                doc_pdf_heading(p, b->text, 2);
            break;
        case DOC_END: break;
        case DOC_HEADING: doc_pdf_heading(p, b->text, 3); break;
        case DOC_PARA: pdf_para(p, b); break;
        case DOC_PARAS: doc_pdf_paragraphs(p, b->items, b->nitems); break;
        case DOC_WARNING: {
            char *line = b->id ? xprintf("%s: %s", b->id, b->text) : NULL;
            doc_pdf_paragraph(p, line ? line : b->text, CHART_FONT_REGULAR, 8.5, CHART_WARN, 1);
            free(line);
            break;
        }
        case DOC_TABLE: doc_pdf_table(p, &b->table, b->size > 0 ? b->size : 7.5); break;
        case DOC_FIGURE:
            if (b->fig < d->nfigs)
                err = doc_pdf_figure(p, &d->figs[b->fig]);
            break;
        case DOC_CODE: doc_pdf_code(p, b->text); break;
        case DOC_DETAILS:
            if (b->flags & DOC_SCREEN)
                break;
            doc_pdf_heading(p, b->id, 3);
            doc_pdf_code(p, b->text);
            break;
        }
    }
    release(p, 0);
    return err;
}

int doc_pdf_open(struct doc_pdf **out, const char *title, const char *subject, const char *date,
                 const char *footer)
{
    struct doc_pdf *p = xcalloc(1, sizeof(*p));
    *out = NULL;
    p->y = MARGIN;
    p->page_h = PAGE_H;
    p->page = 1;
    p->s = cairo_pdf_surface_create_for_stream(write_strbuf, &p->out, PAGE_W, PAGE_H);
    cairo_pdf_surface_set_metadata(p->s, CAIRO_PDF_METADATA_TITLE, title);
    cairo_pdf_surface_set_metadata(p->s, CAIRO_PDF_METADATA_AUTHOR, "benchgen");
    cairo_pdf_surface_set_metadata(p->s, CAIRO_PDF_METADATA_CREATOR, "benchgen " BENCHGEN_VERSION);
    cairo_pdf_surface_set_metadata(p->s, CAIRO_PDF_METADATA_SUBJECT, subject);
    /* the run's date, never the clock: the same run gives the same bytes */
    cairo_pdf_surface_set_metadata(p->s, CAIRO_PDF_METADATA_CREATE_DATE, date);
    cairo_pdf_surface_set_metadata(p->s, CAIRO_PDF_METADATA_MOD_DATE, date);
    p->cr = cairo_create(p->s);
    snprintf(p->footer, sizeof(p->footer), "%s", footer);
    int err = chart_init(&p->c, p->cr);
    if (err < 0) {
        cairo_destroy(p->cr);
        cairo_surface_destroy(p->s);
        strbuf_free(&p->out);
        free(p);
        return err;
    }
    *out = p;
    return 0;
}

int doc_pdf_close(struct doc_pdf *p, const char *path)
{
    int err = 0;
    release(p, 0);
    draw_footer(p);
    cairo_show_page(p->cr);
    chart_fini(&p->c);
    cairo_destroy(p->cr);
    cairo_surface_finish(p->s);
    if (cairo_surface_status(p->s) != CAIRO_STATUS_SUCCESS)
        err = error_set(BG_EIO, "cannot draw %s: %s", path ? path : "a PDF",
                        cairo_status_to_string(cairo_surface_status(p->s)));
    cairo_surface_destroy(p->s);
    if (err == 0 && path)
        err = chart_write_file(path, p->out.buf, p->out.len);
    strbuf_free(&p->out);
    free(p);
    return err;
}

int doc_pdf_write(const struct doc *d, const char *path, const char *subject, const char *date,
                  const char *footer)
{
    struct doc_pdf *p;
    int err = doc_error(d);
    if (err < 0 || (err = doc_pdf_open(&p, d->title, subject, date, footer)) < 0)
        return err;
    err = doc_pdf_render(p, d);
    int cerr = doc_pdf_close(p, err ? NULL : path); /* closed either way, written only when drawn */
    return err < 0 ? err : cerr;
}
