/*
 * fuzz_reference.c - the reference CSV reader (`report --reference FILE`):
 * reference_parse(), then the lookups the report makes.
 */
#include "fuzz_common.h"

#include "report/reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct reference *ref = NULL;
    if (reference_parse(&ref, "fuzz.csv", (const char *)data, size) == 0) {
        int revs[8];
        size_t n = reference_revisions(ref, revs, 8);
        for (size_t i = 0; i < n && i < 8; i++)
            (void)reference_first(ref, revs[i]);
        for (size_t i = 0; i < ref->nrows; i++) {
            const struct ref_row *r = &ref->rows[i];
            const char *t;
            if (reference_find(ref, r->revision, r->model, r->task, r->batch, r->backend) == NULL)
                abort(); /* every row can be found */
            (void)reference_footnote(r, &t);
        }
        reference_free(ref);
    }
    return 0;
}
