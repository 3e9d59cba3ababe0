/*
 * bundle_inputs.c - a run's input files in a bundle (see bundle_inputs.h).
 */
#include "bundle/bundle_inputs.h"
#include "bundle/bundle_fs.h"
#include "base/error.h"
#include "base/json.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool bundle_input_path_ok(const char *path)
{
    return verify_path_safe(path) &&
           ((!strncmp(path, "inputs/", 7) && path[7]) || (!strncmp(path, "envs/recorded/", 14) && path[14]));
}

int bundle_inputs_write(const struct rundata *rd, const char *root, json_t *list, const struct voice *voice)
{
    int err = 0;
    for (size_t i = 0; i < rd->inputs.n && !err; i++) {
        const struct run_input *in = &rd->inputs.v[i];
        if (!bundle_input_path_ok(in->path)) {
            voice_note(voice, "bundle", NULL,
                       "run.db records an input at '%s', outside inputs/ and envs/recorded/; left out", in->path);
            continue;
        }
        char *dst = xprintf("%s/%s", root, in->path);
        bool stored = false;
        if ((err = bundle_fs_mkparents(root, in->path)) < 0) {
            free(dst);
            break;
        }
        if (in->content) {
            err = bundle_fs_write(dst, in->content, in->len);
            stored = err == 0;
        } else { /* only its hash in run.db: the file, if it still is what the run read */
            char hex[65];
            if (in->origin && sha256_file(in->origin, hex) == 0 && !strcmp(hex, in->sha256))
                stored = (err = bundle_fs_copy(in->origin, dst)) == 0;
            else {
                error_clear();
                voice_warn(voice, "bundle", NULL,
                           "%s is over 16 MiB, so run.db has only its hash, and %s no longer has it; left out (the "
                           "manifest says so)",
                           in->path, in->origin ? in->origin : "its file");
            }
        }
        free(dst);
        json_t *o = json_object();
        json_put(o, "path", json_str(in->path), &err);
        json_put(o, "kind", json_str(in->kind), &err);
        json_put(o, "sha256", json_string(in->sha256), &err);
        json_put(o, "size", json_integer((json_int_t)in->size), &err);
        json_put(o, "stored", json_boolean(stored), &err);
        json_push(list, o, &err);
    }
    return err;
}

void bundle_inputs_verify(const struct rundata *rd, const struct verify_extracted *x, struct verify_log *v)
{
    size_t same = 0, bad = v->problems;
    for (size_t i = 0; i < rd->inputs.n; i++) {
        const struct run_input *in = &rd->inputs.v[i];
        if (!bundle_input_path_ok(in->path)) {
            verify_problem(v, "INPUTS", "run/run.db", "records an input at '%s', outside inputs/ and envs/recorded/",
                           in->path);
            continue;
        }
        const struct verify_file *f = verify_find(x, in->path);
        if (!f && !in->content)
            verify_note(v, "note: %s is not in the bundle: run.db has only its hash (over 16 MiB)", in->path);
        else if (!f)
            verify_problem(v, "MISSING", in->path, "run.db recorded it when the run was created; the bundle lacks it");
        else if (strcmp(f->sha256, in->sha256) != 0 || f->size != in->size)
            verify_problem(v, "MODIFIED", in->path,
                           "not the file run.db recorded when the run was created (sha256 %.12s, %llu bytes; "
                           "run.db: %.12s, %llu bytes)",
                           f->sha256, (unsigned long long)f->size, in->sha256, (unsigned long long)in->size);
        else
            same++;
    }
    for (size_t i = 0; i < x->nfiles; i++) {
        const char *p = x->file[i].path;
        if ((!strncmp(p, "inputs/", 7) || !strncmp(p, "envs/recorded/", 14)) && !run_inputs_find(&rd->inputs, p))
            verify_problem(v, "UNLISTED", p, "not among the files run.db recorded when the run was created");
    }
    if (rd->inputs.n && v->problems == bad)
        verify_note(v, "%zu input file%s (spec, workloads, environments) as run.db recorded them when the run "
                       "was created", same, same == 1 ? "" : "s");
    else if (!rd->inputs.n)
        verify_note(v, "note: run.db records no input files (a run made before benchgen recorded them)");
}
