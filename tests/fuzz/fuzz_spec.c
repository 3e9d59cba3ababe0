/*
 * fuzz_spec.c - the spec parser and the matrix expansion: YAML text in, a
 * plan or a "file:line:col" error out, as `benchgen run SPEC [--only F]`
 * does (spec_parse(), then matrix_expand()). A last line "#only=FILTER" (a
 * YAML comment, so the parser ignores it) is passed as --only.
 */
#include "fuzz_common.h"

#include "base/error.h"
#include "plan/matrix.h"
#include "plan/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    const char *only = NULL;
    char *mark = strstr(text, "\n#only=");
    if (mark)
        only = mark + 7;
    struct spec *spec = NULL;
    int err = spec_parse(&spec, "/nonexistent/fuzz/spec.yaml", text, size);
    if (err == 0) {
        struct matrix m = {0};
        if (matrix_expand(&m, spec, only) == 0) {
            for (size_t i = 0; i < m.ncells; i++) {
                char *f = matrix_key_filename(m.cells[i].key);
                if (!f || strchr(f, '/'))
                    abort(); /* a key must name a file */
                free(f);
            }
        }
        matrix_free(&m);
        spec_free(spec);
    } else {
        const char *msg = error_last();
        /* A spec error names its place: "file:line:col: message" or "file: message". */
        if (err == BG_ESPEC && strncmp(msg, "/nonexistent/fuzz/spec.yaml:", 28) != 0)
            abort();
    }
    free(text);
    return 0;
}
