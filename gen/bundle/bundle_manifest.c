/*
 * bundle_manifest.c - MANIFEST.json's run and environment parts (see
 * bundle_manifest.h).
 */
#include "bundle/bundle_manifest.h"
#include "bundle/bundle_fs.h"
#include "base/json.h"
#include "envs/envs.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bundle_manifest_envs(const struct rundata *rd, const char *root, json_t *list, const struct voice *voice)
{
    struct strlist names = {0};
    int err = 0;
    for (size_t i = 0; i < rd->ncells && !err; i++)
        if (rd->cells[i].cell.env[0] && !strlist_has_sorted(&names, rd->cells[i].cell.env)) {
            err = strlist_add(&names, rd->cells[i].cell.env);
            strlist_sort(&names, false);
        }
    if (!err && names.n && (err = bundle_fs_mkparents(root, "envs/x")) < 0)
        goto done;
    for (size_t k = 0; k < names.n && !err; k++) {
        const char *name = names.v[k];
        if (!util_is_safe_name(name)) {
            voice_note(voice, "bundle", NULL, "environment name '%s' is not a safe file name; left out", name);
            continue;
        }
        const struct rd_cell *rep = NULL; /* the first ok cell of this environment */
        for (size_t i = 0; i < rd->ncells && !rep; i++)
            if (!strcmp(rd->cells[i].cell.env, name) && rd->cells[i].result.status == STATUS_OK)
                rep = &rd->cells[i];
        json_t *o = json_object(); /* never NULL: jansson allocates with the x-family */
        json_put(o, "name", json_str(name), &err);

        struct env_info info = {0};
        char *lock_rel = NULL, *lock_dst = NULL;
        if (envs_resolve(name, &info) == 0 && info.lock_path) {
            lock_rel = xprintf("envs/%s.txt", name);
            lock_dst = xprintf("%s/envs/%s.txt", root, name);
            err = bundle_fs_copy(info.lock_path, lock_dst);
            /* Does today's lock still describe the venv the run used? The
             * venv directory is named <name>-<hash of lock + Python>. */
            const char *prefix = rep ? kvlist_get(&rep->result.env, "python.prefix") : NULL;
            json_t *matches = json_null();
            if (prefix && info.hash[0]) {
                size_t pl = strlen(prefix), hl = strlen(info.hash);
                matches = json_boolean(pl > hl && prefix[pl - hl - 1] == '-' &&
                                       !strcmp(prefix + pl - hl, info.hash));
                if (!json_is_true(matches))
                    voice_warn(voice, "bundle", NULL,
                               "%s differs from the lock the run used (venv %s); the manifest says so",
                               info.lock_path, prefix);
            }
            json_put(o, "lock", json_str(lock_rel), &err);
            json_put(o, "lock_matches_run", matches, &err);
        } else {
            error_clear();
            voice_note(voice, "bundle", NULL, "no lock file for environment %s; its resolved versions only", name);
            json_put(o, "lock", json_null(), &err);
            json_put(o, "lock_matches_run", json_null(), &err);
        }
        env_info_free(&info);
        free(lock_rel);
        free(lock_dst);

        struct strbuf sb = {0};
        if (!err && rep) {
            const char *py = kvlist_get(&rep->result.env, "python.version");
            strbuf_printf(&sb, "# packages recorded by the run for environment %s (cell %s)\n# python %s\n", name,
                          rep->cell.key, py ? py : "unknown");
            for (size_t i = 0; i < rep->result.env.n; i++) {
                const struct kv *e = &rep->result.env.items[i];
                if (!strncmp(e->key, "pkg.", 4))
                    strbuf_printf(&sb, "%s==%s\n", e->key + 4, e->value ? e->value : "");
            }
            err = strbuf_error(&sb);
        }
        char *res_rel = NULL, *res_dst = NULL;
        if (!err && rep) {
            res_rel = xprintf("envs/%s.resolved.txt", name);
            res_dst = xprintf("%s/envs/%s.resolved.txt", root, name);
            err = bundle_fs_write(res_dst, sb.buf, sb.len);
        }
        json_put(o, "resolved", json_str(res_rel), &err);
        json_put(o, "python", json_str(rep ? kvlist_get(&rep->result.env, "python.version") : NULL), &err);
        strbuf_free(&sb);
        free(res_rel);
        free(res_dst);
        json_push(list, o, &err);
    }
done:
    strlist_free(&names);
    return err;
}

json_t *bundle_manifest_run(const struct rundata *rd, int *err)
{
    json_t *o = json_object(), *statuses = json_object();
    json_put(o, "name", json_str(rd->name), err);
    json_put(o, "description", json_str(rd->description), err);
    json_put(o, "created_utc", json_str(rd->created_utc), err);
    json_put(o, "started_utc", json_str(rd->started_utc), err);
    json_put(o, "finished_utc", json_str(rd->finished_utc), err);
    json_put(o, "benchgen_version", json_str(rd->benchgen_version), err);
    json_put(o, "git_commit", json_str(rd->git_commit), err);
    json_put(o, "git_dirty", json_integer(rd->git_dirty), err);
    json_put(o, "spec_path", json_str(rd->spec_path), err);
    json_put(o, "spec_sha256", json_str(rd->spec_sha256), err);
    json_put(o, "cells", json_integer((json_int_t)rd->ncells), err);
    for (size_t i = 0; i < rd->ncells && !*err; i++) {
        const char *s = rd->cells[i].result.status ? status_name(rd->cells[i].result.status) : "pending";
        json_t *n = json_object_get(statuses, s);
        json_put(statuses, s, json_integer(n ? json_integer_value(n) + 1 : 1), err);
    }
    json_put(o, "statuses", statuses, err);
    return o;
}

