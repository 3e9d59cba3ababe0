/*
 * envs_releases.c - a package's releases between two versions, from its
 * package index (see envs_releases.h; the reading is runners/releases.py).
 */
#include "run/envs_releases.h"
#include "run/envs_proc.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

const char *envs_releases_index(void)
{
    const char *vars[] = {"UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *s = getenv(vars[i]);
        if (s && *s)
            return s;
    }
    return "https://pypi.org/simple";
}

/* One "release VERSION WHEEL FILES" line into r->v. */
static int add_release(struct envs_releases *r, char *line)
{
    char *ver = line + strlen("release ");
    char *wheel = strchr(ver, ' ');
    char *files = wheel ? strchr(wheel + 1, ' ') : NULL;
    if (!files)
        return error_set(BG_EIO, "runners/releases.py: unexpected line '%s'", line);
    *wheel = *files = '\0';
    r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
    r->v[r->n++] = (struct envs_release){xstrdup(ver), wheel[1] == '1', xstrdup(files + 1)};
    return 0;
}

int envs_releases_list(struct envs_releases *out, const char *pkg, const char *good, const char *bad,
                       const struct envs_releases_opts *o)
{
    memset(out, 0, sizeof(*out));
    if (strcmp(good, bad) == 0)
        return error_set(BG_EUSAGE, "--good and --bad are the same version (%s)", good);
    out->index = xstrdup(o->index ? o->index : envs_releases_index());
    char *helper = xprintf("%s/runners/releases.py", util_home_dir());
    char *argv[] = {(char *)o->python, "-I", helper, (char *)pkg, out->index, (char *)good, (char *)bad,
                    o->pre ? "1" : "0", o->yanked ? "1" : "0", NULL};
    struct strbuf text = {0};
    int status = 0, err = 0;
    if (envs_proc_run(argv, &text, &status) < 0 || !text.buf) {
        err = error_set(BG_EIO, "%s could not be run with %s", helper, o->python);
        goto done;
    }
    for (char *line = text.buf, *next; line && *line && !err; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "release ", 8) == 0) {
            err = add_release(out, line);
        } else if (strncmp(line, "excluded ", 9) == 0) {
            out->excluded = xrealloc(out->excluded, (out->nexcluded + 1) * sizeof(*out->excluded));
            out->excluded[out->nexcluded++] = xstrdup(line + 9);
        } else if (strncmp(line, "missing ", 8) == 0) {
            err = error_set(BG_EUSAGE, "%s", line + 8);
        } else if (strncmp(line, "error ", 6) == 0) {
            err = error_set(BG_EIO, "cannot list the releases of %s: %s", pkg, line + 6);
        }
    }
    if (!err && out->n < 2) {
        char why[64];
        envs_proc_status(status, why, sizeof(why));
        err = error_set(BG_EIO, "cannot list the releases of %s from %s (%s: %s)", pkg, out->index, helper, why);
    }
done:
    if (err < 0)
        envs_releases_free(out);
    free(helper);
    strbuf_free(&text);
    return err;
}

void envs_releases_free(struct envs_releases *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].version);
        free(r->v[i].files);
    }
    for (size_t i = 0; i < r->nexcluded; i++)
        free(r->excluded[i]);
    free(r->v);
    free(r->excluded);
    free(r->index);
    memset(r, 0, sizeof(*r));
}
