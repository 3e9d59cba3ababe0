/*
 * reference.h - published results to compare a run against (data/reference/).
 *
 * A reference file is CSV (RFC 4180, UTF-8, header row) with one row per
 * (revision, model, task, batch, backend); data/reference/README.md gives
 * the columns. Required: revision, model, task, batch, backend, ms_per_step
 * (empty when the cell was published as NA). Optional: date, date_verified,
 * source, hardware, gpu, published (the cell text as printed), note. Columns
 * are found by name, so extra columns are ignored.
 *
 * Ownership: reference_load() gives the caller a struct reference that
 * reference_free() releases; rows and their strings belong to it.
 */
#ifndef BENCHGEN_REFERENCE_H
#define BENCHGEN_REFERENCE_H

#include <stddef.h>

struct ref_row {
    int revision;
    char *model, *task, *backend;
    int batch;
    double ms;       /* NAN when published as NA */
    char *published; /* cell text as printed, thousands separators always added
                      * ("1,306.85", "7,952.67*", "NA"); never NULL */
    char *date, *source, *hardware, *gpu, *note; /* "" when the column is absent */
    int line;                                    /* 1-based line in the file, for messages */
};

struct reference {
    char *path;
    struct ref_row *rows;
    size_t nrows;
    size_t *index; /* rows by (revision, model, task, batch, backend, file order): reference_find() */
};

/* The largest reference file read (docs/SPEC.md, "Limits"). */
#define REFERENCE_MAX_BYTES (16u << 20)

/* BG_ENOTFOUND when path is missing; BG_EUSAGE ("path: message") when it is
 * not a regular file (a FIFO, a device, a directory) or is larger than
 * REFERENCE_MAX_BYTES; BG_ESPEC ("path:line: message") when a required
 * column is missing or a value does not parse. */
int reference_load(struct reference **out, const char *path);

/* Parses CSV text already in memory; path is only used in messages. */
int reference_parse(struct reference **out, const char *path, const char *text, size_t len);

/* The row for a cell in a revision, borrowed; NULL when absent. */
const struct ref_row *reference_find(const struct reference *ref, int revision, const char *model,
                                     const char *task, int batch, const char *backend);

/* Distinct revisions in ascending order: writes up to cap, returns how many exist. */
size_t reference_revisions(const struct reference *ref, int *revs, size_t cap);

/* Any row of a revision (for its date, source and hardware), borrowed; NULL when absent. */
const struct ref_row *reference_first(const struct reference *ref, int revision);

/* The footnote a published value's asterisk refers to: the text after
 * "Footnote *:" in its note. *text points into the row; returns its length,
 * 0 when the value has no asterisk or the note no footnote. */
size_t reference_footnote(const struct ref_row *r, const char **text);

void reference_free(struct reference *ref);

#endif /* BENCHGEN_REFERENCE_H */
