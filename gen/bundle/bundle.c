/*
 * bundle.c - `benchgen bundle`: a deterministic release bundle of a run (see
 * bundle.h for the layout and the guarantees; docs/COMPARE.md for the
 * format as users see it).
 *
 * Everything is staged in a temporary directory first, so the bundle is
 * written from plain files in one sorted pass and a failure leaves nothing
 * half-written at the destination.
 */
#include "bundle/bundle.h"
#include "bundle/bundle_fs.h"
#include "bundle/bundle_inputs.h"
#include "base/json.h"
#include "bundle/bundle_manifest.h"
#include "bundle/bundle_render.h"
#include "bundle/bundle_tar.h"
#include "base/error.h"
#include "store/rundata.h"
#include "store/store.h"
#include "base/util.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "report/outdir.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>

/* The run's creation time ("2024-04-03T12:00:00Z" -> time_t); 0 when it is
 * not the canonical form run.db stores (util_utc_parse: strict). */
static time_t parse_utc(const char *s)
{
    time_t t = 0;
    return s && util_utc_parse(&t, s) == 0 ? t : 0;
}

static void sanitise(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; s && *s && k + 1 < n && k < 64; s++)
        out[k++] = (isalnum((unsigned char)*s) || *s == '.' || *s == '_' || *s == '-') ? *s : '_';
    if (k == 0)
        k = (size_t)snprintf(out, n, "run");
    out[k] = '\0';
}

int bundle_create(const char *run_dir, const char *out_path, const struct bundle_options *opt)
{
    struct bundle_options o = opt ? *opt : (struct bundle_options){0};
    struct rundata *rd = NULL;
    struct strlist files = {0}, logs = {0};
    struct strbuf sums = {0};
    json_t *manifest = NULL, *flist = NULL, *envs = NULL, *inputs = NULL;
    char *stage = NULL, *root = NULL, *path = NULL, *text = NULL;
    char top[128], name[80];
    int err = 0;

    struct stat ost;
    if ((err = outdir_check_path(out_path, 1)) < 0)
        return err;
    if (lstat(out_path, &ost) == 0 && (S_ISDIR(ost.st_mode) || !o.force))
        return error_set(BG_EUSAGE, "%s %s; %s", out_path, S_ISDIR(ost.st_mode) ? "is a directory" : "exists",
                         S_ISDIR(ost.st_mode) ? "give --out FILE.tar.gz" : "give --force to replace it, or another --out");
    if ((err = rundata_load(&rd, run_dir)) < 0)
        return err;
    if (!rd->finished_utc)
        voice_warn(&o.voice, "bundle", NULL, "%s has not finished (bundling what it has)", run_dir);
    time_t created = parse_utc(rd->created_utc);
    sanitise(rd->name, name, sizeof(name));
    {
        char compact[32] = "";
        size_t k = 0;
        for (const char *p = rd->created_utc; *p && k + 1 < sizeof(compact); p++)
            if (*p != '-' && *p != ':')
                compact[k++] = *p;
        compact[k] = '\0';
        snprintf(top, sizeof(top), "%s%s%s", name, created ? "-" : "", created ? compact : "");
    }
    if (!(stage = bundle_fs_tmpdir("bundle"))) {
        err = error_code();
        goto done;
    }
    root = xprintf("%s/%s", stage, top);
    path = xprintf("%s/run/run.db", root);
    /* run/logs/ always exists, as in a run directory, even when empty */
    if ((err = util_mkdir_p(root, 0755)) < 0 || (err = bundle_fs_mkparents(root, "run/logs/x")) < 0 ||
        (err = store_copy(run_dir, path)) < 0)
        goto done;

    /* logs */
    free(path);
    path = xprintf("%s/logs", run_dir);
    if (util_is_dir(path) && (err = bundle_fs_walk(path, "", &logs, NULL)) < 0)
        goto done;
    for (size_t i = 0; i < logs.n && !err; i++) {
        char *src = xprintf("%s/%s", path, logs.v[i]), *rel = xprintf("run/logs/%s", logs.v[i]);
        char *dst = xprintf("%s/%s", root, rel);
        if ((err = bundle_fs_mkparents(root, rel)) == 0)
            err = bundle_fs_copy(src, dst);
        free(src);
        free(rel);
        free(dst);
    }
    if (err)
        goto done;

    /* the spec as the run stored it */
    if (rd->spec_text[0]) {
        free(path);
        path = xprintf("%s/spec.yaml", root);
        if ((err = bundle_fs_write(path, rd->spec_text, strlen(rd->spec_text))) < 0)
            goto done;
    }

    manifest = json_object(); /* jansson allocates with the x-family: never NULL */
    flist = json_array();
    envs = json_array();
    inputs = json_array();
    if ((err = bundle_manifest_envs(rd, root, envs, &o.voice)) < 0 ||
        (err = bundle_inputs_write(rd, root, inputs, &o.voice)) < 0)
        goto done;

    /* the report, rendered from the bundled copy */
    voice_progress(&o.voice, "bundle", NULL, "rendering the report from the bundled run.db");
    if ((err = bundle_render_in(o.render, root, o.baseline)) < 0)
        goto done;

    /* manifest: every file so far, then SHA256SUMS over everything */
    if ((err = bundle_fs_walk(root, "", &files, NULL)) < 0)
        goto done;
    strlist_sort(&files, false);
    size_t nreport = 0;
    for (size_t i = 0; i < files.n && !err; i++) {
        char hex[65];
        struct stat st;
        char *full = xprintf("%s/%s", root, files.v[i]);
        if ((err = sha256_file(full, hex)) == 0 && stat(full, &st) != 0)
            err = error_set(BG_EIO, "cannot stat %s: %s", full, strerror(errno));
        free(full);
        json_t *f = err ? NULL : json_object();
        if (f) {
            json_put(f, "path", json_str(files.v[i]), &err);
            json_put(f, "sha256", json_string(hex), &err);
            json_put(f, "size", json_integer((json_int_t)st.st_size), &err);
        }
        json_push(flist, f, &err);
        nreport += !strncmp(files.v[i], "report/", 7);
    }
    if (err)
        goto done;

    json_t *by = json_object(), *cmds = json_object();
    json_put(manifest, "bundled_by", by, &err);
    json_put(by, "benchgen_version", json_string(BENCHGEN_VERSION), &err);
    json_put(by, "git_commit", json_string(BENCHGEN_GIT_COMMIT), &err);
    json_put(by, "git_dirty", json_integer(BENCHGEN_GIT_DIRTY), &err);
    json_put(manifest, "format", json_string(BUNDLE_FORMAT), &err);
    json_put(manifest, "root", json_str(top), &err);
    json_put(manifest, "run", bundle_manifest_run(rd, &err), &err);
    json_put(manifest, "commands", cmds, &err);
    json_put(cmds, "run", json_str(rd->command_line), &err);
    {
        /* Paths differ between machines and bundles; the commands are given
         * with placeholders so that they do not change the bytes. */
        char *b = xprintf("benchgen bundle RUN_DIR --out FILE.tar.gz%s%s",
                              o.baseline ? " --baseline " : "", o.baseline ? o.baseline : "");
        char *r = xprintf("benchgen report run --out report%s%s", o.baseline ? " --baseline " : "",
                              o.baseline ? o.baseline : "");
        json_put(cmds, "bundle", json_str(b), &err);
        json_put(cmds, "report", json_str(r), &err);
        json_put(cmds, "verify", json_string("benchgen verify FILE.tar.gz"), &err);
        free(b);
        free(r);
    }
    {
        json_t *rep = json_object();
        json_put(manifest, "report", rep, &err);
        json_put(rep, "baseline", json_str(o.baseline), &err);
        json_put(rep, "files", json_integer((json_int_t)nreport), &err);
    }
    /* one count everywhere: every file in the archive, these two included */
    json_put(manifest, "file_count", json_integer((json_int_t)files.n + 2), &err);
    json_put(manifest, "envs", envs, &err);
    envs = NULL;
    json_put(manifest, "inputs", inputs, &err);
    inputs = NULL;
    json_put(manifest, "files", flist, &err);
    flist = NULL;
    if (err)
        goto done;
    free(path);
    path = NULL;
    if (!(text = json_text(manifest))) { /* json_text said why */
        err = error_code();
        goto done;
    }
    path = xprintf("%s/MANIFEST.json", root);
    if ((err = bundle_fs_write(path, text, strlen(text))) < 0 ||
        (err = strlist_add(&files, "MANIFEST.json")) < 0)
        goto done;
    strlist_sort(&files, false);
    for (size_t i = 0; i < files.n && !err; i++) {
        char hex[65];
        char *full = xprintf("%s/%s", root, files.v[i]);
        if ((err = sha256_file(full, hex)) == 0)
            strbuf_printf(&sums, "%s  %s\n", hex, files.v[i]);
        free(full);
    }
    free(path);
    path = xprintf("%s/SHA256SUMS", root);
    if (err || (err = strbuf_error(&sums)) < 0 || (err = bundle_fs_write(path, sums.buf, sums.len)) < 0)
        goto done;

    err = bundle_tar_write(stage, top, created, out_path, o.force);
    char digest[65];
    if (!err && voice_on(&o.voice) && sha256_file(out_path, digest) == 0)
        voice_note(&o.voice, "bundle", NULL, "wrote %s (%zu files%s), sha256 %s", out_path, files.n + 1,
                   ", report included", digest);
done:
    if (stage)
        util_rm_rf(stage);
    json_decref(manifest);
    json_decref(flist);
    json_decref(envs);
    json_decref(inputs);
    strlist_free(&files);
    strlist_free(&logs);
    strbuf_free(&sums);
    free(stage);
    free(root);
    free(path);
    free(text);
    rundata_free(rd);
    return err;
}

