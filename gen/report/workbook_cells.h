/*
 * workbook_cells.h - what every benchgen workbook (report.xlsx,
 * compare.xlsx) is written with: the file's life (begin, finish through a
 * temporary file), the shared cell formats, cells that never hold NaN or
 * Inf, tables, paragraphs, a section of a document (doc.h), column widths
 * that fit their text and the print setup.
 */
#ifndef BENCHGEN_WORKBOOK_CELLS_H
#define BENCHGEN_WORKBOOK_CELLS_H

#include <time.h>

#include <xlsxwriter.h>

#include "report/doc.h"
#include "report/rctx.h"
#include "report/tables.h"

/* A workbook is written to PATH.tmp and renamed into place by
 * workbook_finish(), so a reader never sees half a file.
 *
 * Every helper does nothing once w->err is set, and sets it on the first
 * failure, so a sheet can be written without checking each cell; the
 * first error comes back from workbook_finish(). Memory comes from the
 * x-family (base/xalloc.h) and never fails here; what w->err holds is a
 * failure libxlsxwriter reports (lxw_strerror), reported as the library's,
 * or an error a sheet's builder sets (a table's). */
struct workbook {
    lxw_workbook *wb;
    const struct rctx *x; /* workbook_write's run; NULL for other documents */
    /* the shared cell formats, made by workbook_begin() */
    lxw_format *title, *subtitle, *head, *text, *wrap, *mono, *na, *num, *best, *int0, *pct, *pct_plain,
        *warn, *bold;
    int err;
    char *tmp, *etitle, *ecomments, *esubject; /* private */
};

/* Starts PATH.tmp with the document properties (escaped here; created: the
 * run's date, never the clock) and the formats. 0, or BG_EIO when
 * libxlsxwriter cannot create the file; after a failure there is nothing to
 * finish. */
int workbook_begin(struct workbook *w, const char *path, const char *title, const char *subject,
                   const char *comments, time_t created);
/* Closes the workbook and renames it to path when err and w->err are 0
 * (path NULL: discards it). Returns err, else w->err, else the close's. */
int workbook_finish(struct workbook *w, const char *path, int err);

lxw_worksheet *workbook_sheet(struct workbook *w, const char *name);
/* A string through escape_xlsx ("" as a blank cell). */
void workbook_put_str(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
                      lxw_format *f);
/* A number, or "NA" text when it is not finite: never NaN/Inf in the file. */
void workbook_put_num(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v,
                      lxw_format *f);
/* A number when finite, else an empty cell. */
void workbook_put_num_or_blank(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v,
                               lxw_format *f);
/* A table's header and text cells from row r (NA cells in the NA format);
 * returns the row after it. */
lxw_row_t workbook_put_table(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, const struct table *t);
/* Printing: A4 landscape, one page wide, row head_row repeated on every
 * page, the print area rows 0..last_row and columns 0..last_col. */
void workbook_print_setup(struct workbook *w, lxw_worksheet *ws, lxw_row_t head_row, lxw_row_t last_row,
                          lxw_col_t last_col);
/* Column widths (min..max characters) that hold every cell of t, written
 * from column c0, without clipping; the header row tall enough for its
 * wrapped names. */
void workbook_fit_table(struct workbook *w, lxw_worksheet *ws, lxw_row_t head_row, lxw_col_t c0,
                        const struct table *t, double min, double max);
/* The blocks of d's section `id` (its title, headings, paragraphs, tables)
 * from row r down column 0; returns the row after them. */
lxw_row_t workbook_put_section(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, const struct doc *d,
                               const char *id);
/* Paragraphs in column 0, one a row, wrapped; returns the row after them. */
lxw_row_t workbook_put_paragraphs(struct workbook *w, lxw_worksheet *ws, lxw_row_t r, char **paras, size_t n);

#endif /* BENCHGEN_WORKBOOK_CELLS_H */
