/*
 * workbook_cells.c - the cells, tables, printing and file handling every
 * workbook uses (see workbook_cells.h). Every string goes through
 * escape_xlsx; every number through workbook_put_num, which refuses NaN and
 * Inf (libxlsxwriter would write them as invalid XML numbers).
 */
#include "report/workbook_cells.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void workbook_put_str(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
                      lxw_format *f)
{
    if (w->err)
        return;
    char *e = escape_xlsx(s ? s : "");
    lxw_error le = e[0] ? worksheet_write_string(ws, r, c, e, f) : worksheet_write_blank(ws, r, c, f);
    free(e);
    if (le != LXW_NO_ERROR)
        w->err = error_set(BG_EIO, "workbook: %s", lxw_strerror(le));
}

/* A number, or "NA" text when it is not finite: never NaN/Inf in the file. */
void workbook_put_num(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v,
                      lxw_format *f)
{
    if (w->err)
        return;
    if (!isfinite(v)) {
        workbook_put_str(w, ws, r, c, "NA", w->na);
        return;
    }
    lxw_error le = worksheet_write_number(ws, r, c, v, f);
    if (le != LXW_NO_ERROR)
        w->err = error_set(BG_EIO, "workbook: %s", lxw_strerror(le));
}

/* A number when finite, else an empty cell (for optional statistics and chart data). */
void workbook_put_num_or_blank(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v,
                               lxw_format *f)
{
    if (isfinite(v))
        workbook_put_num(w, ws, r, c, v, f);
    else if (!w->err)
        worksheet_write_blank(ws, r, c, f);
}


lxw_worksheet *workbook_sheet(struct workbook *w, const char *name)
{
    lxw_worksheet *ws = w->err ? NULL : workbook_add_worksheet(w->wb, name);
    if (!ws && !w->err)
        w->err = error_set(BG_EIO, "workbook: cannot add sheet %s", name);
    return ws;
}

static void make_formats(struct workbook *w)
{
    lxw_workbook *wb = w->wb;
    w->title = workbook_add_format(wb);
    format_set_bold(w->title);
    format_set_font_size(w->title, 14);
    w->subtitle = workbook_add_format(wb);
    format_set_font_color(w->subtitle, 0x555555);
    format_set_italic(w->subtitle);
    w->head = workbook_add_format(wb);
    format_set_bold(w->head);
    format_set_bg_color(w->head, 0xE8E8E8);
    format_set_bottom(w->head, LXW_BORDER_THIN);
    format_set_text_wrap(w->head);
    format_set_align(w->head, LXW_ALIGN_VERTICAL_TOP);
    w->text = workbook_add_format(wb);
    format_set_align(w->text, LXW_ALIGN_VERTICAL_TOP);
    w->wrap = workbook_add_format(wb);
    format_set_text_wrap(w->wrap);
    format_set_align(w->wrap, LXW_ALIGN_VERTICAL_TOP);
    w->mono = workbook_add_format(wb);
    format_set_font_name(w->mono, "DejaVu Sans Mono");
    format_set_font_size(w->mono, 10);
    w->na = workbook_add_format(wb);
    format_set_italic(w->na);
    format_set_font_color(w->na, CHART_MUTED);
    format_set_align(w->na, LXW_ALIGN_RIGHT);
    w->num = workbook_add_format(wb);
    format_set_num_format(w->num, "#,##0.00");
    w->best = workbook_add_format(wb);
    format_set_num_format(w->best, "#,##0.00");
    format_set_bold(w->best);
    format_set_border(w->best, LXW_BORDER_MEDIUM);
    w->int0 = workbook_add_format(wb);
    format_set_num_format(w->int0, "0");
    w->pct = workbook_add_format(wb);
    format_set_num_format(w->pct, "+0.0%;-0.0%;0.0%");
    w->pct_plain = workbook_add_format(wb);
    format_set_num_format(w->pct_plain, "0.0%");
    w->warn = workbook_add_format(wb);
    format_set_font_color(w->warn, 0xB3261E);
    w->bold = workbook_add_format(wb);
    format_set_bold(w->bold);
}


/* Printing: A4 landscape, one page wide, the header row repeated on every
 * page, the print area the data (rows 0..last_row, columns 0..last_col). */
void workbook_print_setup(struct workbook *w, lxw_worksheet *ws, lxw_row_t head_row, lxw_row_t last_row,
                          lxw_col_t last_col)
{
    if (w->err || !ws)
        return;
    worksheet_set_paper(ws, 9);
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    worksheet_set_margins(ws, 0.4, 0.4, 0.5, 0.5);
    worksheet_repeat_rows(ws, head_row, head_row);
    worksheet_print_area(ws, 0, 0, last_row > head_row ? last_row : head_row, last_col);
}

/* Display width of UTF-8 text in characters. */
static size_t text_width(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Display width of the longest space-separated word of s, in characters. */
static size_t longest_word(const char *s)
{
    size_t best = 0, cur = 0;
    for (; s && *s; s++) {
        if (*s == ' ') {
            cur = 0;
            continue;
        }
        cur += ((unsigned char)*s & 0xC0) != 0x80;
        best = cur > best ? cur : best;
    }
    return best;
}

/* Column widths that hold every cell of t (from column c0 on) without
 * clipping, between min and max characters, and a header row tall enough for
 * its wrapped names; a name wraps between words, never inside one
 * ("(TensorFlow)" stays whole). */
void workbook_fit_table(struct workbook *w, lxw_worksheet *ws, lxw_row_t head_row, lxw_col_t c0,
                        const struct table *t, double min, double max)
{
    if (w->err)
        return;
    size_t lines = 1;
    for (size_t c = 0; c < t->ncols; c++) {
        size_t cw = 0;
        for (size_t r = 0; r < t->nrows; r++) {
            size_t n = text_width(table_at(t, r, c)->text);
            cw = n > cw ? n : cw;
        }
        double width = (double)cw * 1.1 + 2, word = (double)longest_word(t->head[c]) * 1.15 + 2; /* bold */
        width = width < word ? word : width;
        width = width < min ? min : width > max ? max : width;
        size_t hl = (size_t)((double)text_width(t->head[c]) * 1.15 / width) + 1;
        lines = hl > lines ? hl : lines;
        worksheet_set_column(ws, c0 + (lxw_col_t)c, c0 + (lxw_col_t)c, width, NULL);
    }
    worksheet_set_row(ws, head_row, 15.0 * (double)lines + 3, w->head);
}


lxw_row_t workbook_put_paragraphs(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, char **paras, size_t n)
{
    for (size_t i = 0; i < n; i++, r++) {
        int bullet = strncmp(paras[i], "- ", 2) == 0;
        char *line = bullet ? xprintf("\xE2\x80\xA2 %s", paras[i] + 2) : xstrdup(paras[i]);
        workbook_put_str(w, ws, r, 0, line, w->wrap);
        /* rows do not grow to wrapped text by themselves: about 110 characters a line at this width */
        size_t len = strlen(line);
        worksheet_set_row(ws, r, 15.0 * (double)(len / 110 + 1), NULL);
        free(line);
    }
    return r;
}

lxw_row_t workbook_put_table(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, const struct table *t)
{
    for (size_t c = 0; c < t->ncols; c++)
        workbook_put_str(w, ws, r, (lxw_col_t)c, t->head[c], w->head);
    for (size_t i = 0; i < t->nrows; i++)
        for (size_t c = 0; c < t->ncols; c++) {
            const struct tcell *cell = table_at(t, i, c);
            workbook_put_str(w, ws, r + 1 + (lxw_row_t)i, (lxw_col_t)c, cell->text,
                             (cell->flags & TC_NA)     ? w->na
                             : (cell->flags & TC_MONO) ? w->mono
                                                       : w->text);
        }
    return r + 1 + (lxw_row_t)t->nrows;
}


lxw_row_t workbook_put_section(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, const struct doc *d,
                               const char *id)
{
    size_t i = 0;
    while (i < d->n && !(d->b[i].kind == DOC_SECTION && d->b[i].id && !strcmp(d->b[i].id, id)))
        i++;
    for (; i < d->n && !w->err; i++) {
        const struct doc_block *b = &d->b[i];
        if (b->kind == DOC_END)
            break;
        switch (b->kind) {
        case DOC_SECTION:
            if (b->text)
                workbook_put_str(w, ws, r++, 0, b->text, w->title);
            break;
        case DOC_HEADING: workbook_put_str(w, ws, r++, 0, b->text, w->bold); break;
        case DOC_PARA: {
            char *text = b->text;
            r = workbook_put_paragraphs(w, ws, r, &text, 1);
            break;
        }
        case DOC_PARAS: r = workbook_put_paragraphs(w, ws, r, b->items, b->nitems); break;
        case DOC_TABLE:
            if (b->table.caption)
                workbook_put_str(w, ws, r++, 0, b->table.caption, w->subtitle);
            r = workbook_put_table(w, ws, r, &b->table) + 1;
            break;
        default: break;
        }
    }
    return r;
}


int workbook_begin(struct workbook *w, const char *path, const char *title, const char *subject,
                   const char *comments, time_t created)
{
    memset(w, 0, sizeof(*w));
    w->tmp = xprintf("%s.tmp", path);
    w->etitle = escape_xlsx(title);
    w->ecomments = escape_xlsx(comments);
    w->esubject = escape_xlsx(subject);
    lxw_workbook_options opt = {.constant_memory = LXW_FALSE, .tmpdir = NULL, .use_zip64 = LXW_FALSE};
    w->wb = workbook_new_opt(w->tmp, &opt);
    if (!w->wb) { /* libxlsxwriter's own failure (it prints why) */
        int err = error_set(BG_EIO, "libxlsxwriter cannot create %s", w->tmp);
        workbook_finish(w, NULL, err);
        return err;
    }
    /* created != 0: libxlsxwriter would otherwise stamp the current time */
    lxw_doc_properties props = {.title = w->etitle,
                                .author = "benchgen",
                                .comments = w->ecomments,
                                .subject = w->esubject,
                                .created = created};
    workbook_set_properties(w->wb, &props);
    make_formats(w);
    return 0;
}

int workbook_finish(struct workbook *w, const char *path, int err)
{
    if (err == 0)
        err = w->err;
    if (w->wb) {
        lxw_error le = workbook_close(w->wb); /* frees everything, even after an error */
        if (err == 0 && le != LXW_NO_ERROR)
            err = error_set(BG_EIO, "cannot write %s: %s", path ? path : w->tmp, lxw_strerror(le));
        if (err == 0 && path && rename(w->tmp, path) != 0)
            err = error_set(BG_EIO, "cannot rename %s to %s", w->tmp, path);
        if (err < 0 || !path)
            remove(w->tmp);
    }
    free(w->tmp);
    free(w->etitle);
    free(w->ecomments);
    free(w->esubject);
    memset(w, 0, sizeof(*w));
    return err;
}

