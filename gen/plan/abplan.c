/*
 * abplan.c - ABBA ordering of an A/B plan (see abplan.h).
 */
#include "plan/abplan.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

int abplan_interleave(struct matrix *out, unsigned char **arm, const struct matrix *a, const struct matrix *b)
{
    int err = 0;
    *arm = NULL;
    memset(out, 0, sizeof(*out));
    if (a->ncells != b->ncells)
        return error_set(BG_EUSAGE, "A/B plans differ in size (%zu and %zu cells)", a->ncells, b->ncells);
    for (size_t i = 0; i < a->ncells; i++)
        if (strcmp(a->cells[i].key, b->cells[i].key) != 0)
            return error_set(BG_EUSAGE, "A/B plans differ at cell %zu (%s and %s)", i + 1, a->cells[i].key,
                             b->cells[i].key);
    *arm = xmalloc(2 * a->ncells + 1);
    /* pos counts cells within one repeat (the plan is repeat-major), so the
     * first side flips from cell to cell and from repeat to repeat. */
    int repeat = 0;
    size_t pos = 0;
    for (size_t i = 0; i < a->ncells && !err; i++) {
        const struct cell *c = &a->cells[i];
        if (c->repeat != repeat) {
            repeat = c->repeat;
            pos = 0;
        }
        int b_first = (int)((pos + (size_t)(repeat > 0 ? repeat - 1 : 0)) % 2);
        pos++;
        const struct cell *first = b_first ? &b->cells[i] : c, *second = b_first ? c : &b->cells[i];
        (*arm)[out->ncells] = (unsigned char)b_first;
        if ((err = matrix_add(out, first)) < 0)
            break;
        (*arm)[out->ncells] = (unsigned char)!b_first;
        err = matrix_add(out, second);
    }
    if (err) {
        matrix_free(out);
        free(*arm);
        *arm = NULL;
    }
    return err;
}
