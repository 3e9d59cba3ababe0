/*
 * reference.c - loads published reference tables from CSV (see reference.h).
 *
 * The CSV reader follows RFC 4180 (quoted fields, doubled quotes, CRLF or LF)
 * because the published cells carry thousands separators ("1,306.85") and
 * so always arrive quoted.
 */
#include "report/reference.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "charts/chart.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct csv {
    const char *p, *end;
    const char *path;
    int line;
};

/* Reads one record into fields (each malloc'd). Returns the number of fields,
 * 0 at end of input, or a negative code. */
static int csv_record(struct csv *c, char ***fields_out, size_t *nfields)
{
    char **fields = NULL;
    size_t n = 0, cap = 0;
    struct strbuf f = {0};
    int err = 0;
    *fields_out = NULL;
    *nfields = 0;
    if (c->p >= c->end)
        return 0;
    c->line++;
    for (;;) {
        int quoted = 0;
        strbuf_append(&f, "", 0);
        if (c->p < c->end && *c->p == '"') {
            quoted = 1;
            c->p++;
            for (;;) {
                if (c->p >= c->end) {
                    err = error_set(BG_ESPEC, "%s:%d: unterminated quoted field", c->path, c->line);
                    goto done;
                }
                if (*c->p == '"') {
                    if (c->p + 1 < c->end && c->p[1] == '"') {
                        if ((err = strbuf_append(&f, "\"", 1)) < 0)
                            goto done;
                        c->p += 2;
                        continue;
                    }
                    c->p++;
                    break;
                }
                if (*c->p == '\n')
                    c->line++;
                if ((err = strbuf_append(&f, c->p, 1)) < 0)
                    goto done;
                c->p++;
            }
        }
        while (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r') {
            if (quoted) {
                err = error_set(BG_ESPEC, "%s:%d: text after a closing quote", c->path, c->line);
                goto done;
            }
            if ((err = strbuf_append(&f, c->p, 1)) < 0)
                goto done;
            c->p++;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            fields = xrealloc(fields, cap * sizeof(*fields));
        }
        fields[n++] = strbuf_detach(&f);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == '\r')
            c->p++;
        if (c->p < c->end && *c->p == '\n')
            c->p++;
        break;
    }
done:
    strbuf_free(&f);
    if (err < 0) {
        for (size_t i = 0; i < n; i++)
            free(fields[i]);
        free(fields);
        return err;
    }
    *fields_out = fields;
    *nfields = n;
    return (int)n;
}

static void free_fields(char **fields, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(fields[i]);
    free(fields);
}

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 1000000000)
        return -1;
    *out = (int)v;
    return 0;
}

/* "1,306.85" or "1306.85*" -> 1306.85; "" or "NA" -> NAN. */
static int parse_ms(const char *s, double *out)
{
    char buf[64];
    size_t j = 0;
    if (!*s || strcmp(s, "NA") == 0) {
        *out = NAN;
        return 0;
    }
    for (const char *p = s; *p && j + 1 < sizeof(buf); p++)
        if (*p != ',' && *p != '*')
            buf[j++] = *p;
    buf[j] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (errno || end == buf || *end || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

enum {
    C_REVISION,
    C_MODEL,
    C_TASK,
    C_BATCH,
    C_BACKEND,
    C_MS,
    C_PUBLISHED,
    C_DATE,
    C_SOURCE,
    C_HARDWARE,
    C_GPU,
    C_NOTE,
    C_COUNT
};
static const char *const col_names[C_COUNT] = {"revision", "model",       "task",      "batch",
                                               "backend",  "ms_per_step", "published", "date",
                                               "source",   "hardware",    "gpu",       "note"};
#define C_REQUIRED 6

static char *dup_or_empty(char **fields, size_t n, int idx)
{
    return xstrdup(idx >= 0 && (size_t)idx < n ? fields[idx] : "");
}

/* Rows ordered by (revision, model, task, batch, backend), then file order. */
static int key_cmp(const struct ref_row *r, int revision, const char *model, const char *task, int batch,
                   const char *backend)
{
    int c;
    if (r->revision != revision)
        return r->revision < revision ? -1 : 1;
    if ((c = strcmp(r->model, model)) != 0 || (c = strcmp(r->task, task)) != 0)
        return c;
    if (r->batch != batch)
        return r->batch < batch ? -1 : 1;
    return strcmp(r->backend, backend);
}

static int index_cmp(const void *a, const void *b, void *arg)
{
    const struct reference *ref = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const struct ref_row *y = &ref->rows[j];
    int c = key_cmp(&ref->rows[i], y->revision, y->model, y->task, y->batch, y->backend);
    return c ? c : (i > j) - (i < j);
}

static void build_index(struct reference *ref)
{
    ref->index = xmalloc((ref->nrows ? ref->nrows : 1) * sizeof(*ref->index));
    for (size_t i = 0; i < ref->nrows; i++)
        ref->index[i] = i;
    qsort_r(ref->index, ref->nrows, sizeof(*ref->index), index_cmp, ref);
}

int reference_parse(struct reference **out, const char *path, const char *text, size_t len)
{
    struct reference *ref = xcalloc(1, sizeof(*ref));
    struct csv c = {.p = text, .end = text + len, .path = path, .line = 0};
    char **fields = NULL;
    size_t nf = 0, cap = 0;
    int col[C_COUNT], err = 0;
    *out = NULL;
    ref->path = xstrdup(path);
    /* a UTF-8 byte-order mark (spreadsheet exports add one) */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        c.p += 3;
    if ((err = csv_record(&c, &fields, &nf)) <= 0) {
        if (err == 0)
            err = error_set(BG_ESPEC, "%s: empty file (expected a header row)", path);
        goto done;
    }
    for (int k = 0; k < C_COUNT; k++) {
        col[k] = -1;
        for (size_t i = 0; i < nf; i++)
            if (strcmp(fields[i], col_names[k]) == 0)
                col[k] = (int)i;
        if (k < C_REQUIRED && col[k] < 0) {
            err = error_set(BG_ESPEC, "%s:1: missing required column \"%s\"", path, col_names[k]);
            goto done;
        }
    }
    free_fields(fields, nf);
    fields = NULL;
    for (;;) {
        int rc = csv_record(&c, &fields, &nf);
        if (rc < 0) {
            err = rc;
            goto done;
        }
        if (rc == 0)
            break;
        if (nf == 1 && fields[0][0] == '\0') { /* blank line */
            free_fields(fields, nf);
            fields = NULL;
            continue;
        }
        for (int k = 0; k < C_REQUIRED; k++)
            if ((size_t)col[k] >= nf) {
                err = error_set(BG_ESPEC, "%s:%d: %zu fields, expected a value for \"%s\"", path, c.line, nf,
                                col_names[k]);
                goto done;
            }
        if (ref->nrows == cap) {
            cap = cap ? cap * 2 : 256;
            ref->rows = xrealloc(ref->rows, cap * sizeof(*ref->rows));
        }
        struct ref_row *r = &ref->rows[ref->nrows];
        memset(r, 0, sizeof(*r));
        ref->nrows++;
        r->line = c.line;
        if (parse_int(fields[col[C_REVISION]], &r->revision) < 0) {
            err = error_set(BG_ESPEC, "%s:%d: revision \"%s\" is not a whole number", path, c.line,
                            fields[col[C_REVISION]]);
            goto done;
        }
        if (parse_int(fields[col[C_BATCH]], &r->batch) < 0 || r->batch < 1) {
            err = error_set(BG_ESPEC, "%s:%d: batch \"%s\" is not a positive whole number", path, c.line,
                            fields[col[C_BATCH]]);
            goto done;
        }
        if (parse_ms(fields[col[C_MS]], &r->ms) < 0) {
            err = error_set(BG_ESPEC, "%s:%d: ms_per_step \"%s\" is not a number (use an empty field for NA)",
                            path, c.line, fields[col[C_MS]]);
            goto done;
        }
        r->model = xstrdup(fields[col[C_MODEL]]);
        r->task = xstrdup(fields[col[C_TASK]]);
        r->backend = xstrdup(fields[col[C_BACKEND]]);
        r->published = dup_or_empty(fields, nf, col[C_PUBLISHED]);
        r->date = dup_or_empty(fields, nf, col[C_DATE]);
        r->source = dup_or_empty(fields, nf, col[C_SOURCE]);
        r->hardware = dup_or_empty(fields, nf, col[C_HARDWARE]);
        r->gpu = dup_or_empty(fields, nf, col[C_GPU]);
        r->note = dup_or_empty(fields, nf, col[C_NOTE]);
        if (!r->published[0] || isfinite(r->ms)) {
            /* the number as the page printed it (its decimals and its
             * footnote mark), with the thousands separators some revisions
             * left out ("1610.84"); no "published" column: the number */
            const char *dot = strchr(r->published, '.');
            int dec = r->published[0] ? (dot ? (int)strspn(dot + 1, "0123456789") : 0) : 2;
            char num[64];
            chart_format_number(r->ms, dec, num, sizeof(num));
            char *shown = isnan(r->ms) ? xstrdup("NA") : xprintf("%s%s", num, strchr(r->published, '*') ? "*" : "");
            free(r->published);
            r->published = shown;
        }
        free_fields(fields, nf);
        fields = NULL;
    }
done:
    free_fields(fields, nf);
    if (err < 0) {
        reference_free(ref);
        return err;
    }
    build_index(ref);
    *out = ref;
    return 0;
}

int reference_load(struct reference **out, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    if (!util_file_kind(path))
        return error_set(BG_ENOTFOUND, "reference file %s not found", path);
    int err = util_read_regular(path, "reference table", REFERENCE_MAX_BYTES, &text, &len);
    if (err == 0)
        err = reference_parse(out, path, text, len);
    free(text);
    return err;
}

const struct ref_row *reference_find(const struct reference *ref, int revision, const char *model,
                                     const char *task, int batch, const char *backend)
{
    if (!ref || !ref->index)
        return NULL;
    /* The first row (in file order) with that key: a lower bound over the
     * index, so a lookup costs O(log rows) (the report makes one per grid
     * cell and revision; a scan each made a large file quadratic). */
    size_t lo = 0, hi = ref->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&ref->rows[ref->index[mid]], revision, model, task, batch, backend) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ref->nrows && key_cmp(&ref->rows[ref->index[lo]], revision, model, task, batch, backend) == 0)
        return &ref->rows[ref->index[lo]];
    return NULL;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

size_t reference_revisions(const struct reference *ref, int *revs, size_t cap)
{
    if (!ref || !ref->nrows)
        return 0;
    /* Sorted, whatever the file's order; O(rows log rows) however many
     * distinct revisions a file names (a scan per revision was quadratic). */
    int *all = xmalloc(ref->nrows * sizeof(*all));
    for (size_t i = 0; i < ref->nrows; i++)
        all[i] = ref->rows[i].revision;
    qsort(all, ref->nrows, sizeof(*all), cmp_int);
    size_t n = 0;
    for (size_t i = 0; i < ref->nrows; i++) {
        if (i && all[i] == all[i - 1])
            continue;
        if (n < cap)
            revs[n] = all[i];
        n++;
    }
    free(all);
    return n;
}

const struct ref_row *reference_first(const struct reference *ref, int revision)
{
    for (size_t i = 0; ref && i < ref->nrows; i++)
        if (ref->rows[i].revision == revision)
            return &ref->rows[i];
    return NULL;
}

void reference_free(struct reference *ref)
{
    if (!ref)
        return;
    for (size_t i = 0; i < ref->nrows; i++) {
        struct ref_row *r = &ref->rows[i];
        free(r->model);
        free(r->task);
        free(r->backend);
        free(r->published);
        free(r->date);
        free(r->source);
        free(r->hardware);
        free(r->gpu);
        free(r->note);
    }
    free(ref->rows);
    free(ref->index);
    free(ref->path);
    free(ref);
}

size_t reference_footnote(const struct ref_row *r, const char **text)
{
    static const char mark[] = "Footnote *:";
    const char *p = r && strchr(r->published, '*') ? strstr(r->note, mark) : NULL;
    *text = "";
    if (!p)
        return 0;
    p += sizeof(mark) - 1;
    p += strspn(p, " ");
    *text = p;
    return strlen(p);
}
