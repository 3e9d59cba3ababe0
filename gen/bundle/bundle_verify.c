/*
 * bundle_verify.c - `benchgen verify`: proves a bundle is what it says (see
 * bundle.h). Extraction is bounded (verify_extract.h); then every file is
 * checked against SHA256SUMS, SHA256SUMS against MANIFEST.json, and the
 * report is re-rendered from the bundled run.db and compared byte for byte.
 * Lookups go through sorted indexes, so the cost is linear (n log n) in the
 * number of files; every printed line is escaped (verify_log.h).
 */
#include "bundle/bundle.h"
#include "bundle/bundle_fs.h"
#include "bundle/bundle_inputs.h"
#include "bundle/bundle_render.h"
#include "bundle/verify_extract.h"
#include "bundle/verify_log.h"
#include "base/error.h"
#include "base/util.h"
#include "base/version.h"
#include "base/xalloc.h"
#include "store/rundata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* The hash SHA256SUMS gives path (sums sorted by read_sums), or NULL. */
static const char *sum_of(const struct kvlist *sums, const char *path)
{
    struct kv key = {(char *)path, NULL};
    const struct kv *hit = sums->n ? bsearch(&key, sums->items, sums->n, sizeof(key), cmp_kv) : NULL;
    return hit ? hit->value : NULL;
}

/* SHA256SUMS lines "<64 hex>  <path>", as path -> hash. */
static int read_sums_(const char *root, struct kvlist *sums, struct verify_log *v)
{
    char *p = xprintf("%s/SHA256SUMS", root), *text = NULL;
    int err = 0;
    if (!util_is_file(p)) {
        verify_problem(v, "MISSING", "SHA256SUMS", "nothing can be checked without it");
        free(p);
        return 0;
    }
    if ((err = util_read_file(p, &text, NULL)) < 0) {
        free(p);
        return err;
    }
    int lineno = 0;
    for (char *line = text, *next; line && *line && !err; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        size_t hl = strspn(line, "0123456789abcdef");
        if (hl != 64 || line[64] != ' ' || line[65] != ' ' || !line[66] || !verify_path_safe(line + 66)) {
            char where[32];
            snprintf(where, sizeof(where), "SHA256SUMS:%d", lineno);
            verify_problem(v, "MALFORMED", where, "expected '<sha256>  <path>'");
            continue;
        }
        line[64] = '\0';
        err = kvlist_add(sums, line + 66, line);
    }
    free(text);
    free(p);
    if (err || sums->n < 2)
        return err;
    /* sorted for lookups; a path listed twice keeps its first line */
    qsort(sums->items, sums->n, sizeof(*sums->items), cmp_kv);
    size_t k = 1;
    for (size_t i = 1; i < sums->n; i++) {
        if (!strcmp(sums->items[i].key, sums->items[k - 1].key)) {
            verify_problem(v, "DUPLICATE", sums->items[i].key, "listed twice in SHA256SUMS");
            free(sums->items[i].key);
            free(sums->items[i].value);
        } else {
            sums->items[k++] = sums->items[i];
        }
    }
    sums->n = k;
    return 0;
}

static int check_manifest_(const char *root, const struct verify_extracted *x, const struct kvlist *sums,
                           json_t **manifest_out, struct verify_log *v)
{
    char *p = xprintf("%s/MANIFEST.json", root);
    json_error_t je;
    *manifest_out = NULL;
    json_t *m = util_is_file(p) ? json_load_file(p, 0, &je) : NULL;
    free(p);
    if (!m) {
        verify_problem(v, "MISSING", "MANIFEST.json", "%s", "absent or not JSON");
        return 0;
    }
    const char *fmt = json_string_value(json_object_get(m, "format"));
    if (!fmt || strcmp(fmt, BUNDLE_FORMAT) != 0)
        verify_problem(v, "MANIFEST", "MANIFEST.json", "format is %s, expected %s", fmt ? fmt : "missing",
                 BUNDLE_FORMAT);
    json_t *files = json_object_get(m, "files");
    size_t i;
    json_t *f;
    struct strlist seen = {0};
    int err = 0;
    json_array_foreach(files, i, f)
    {
        const char *path = json_string_value(json_object_get(f, "path"));
        const char *sha = json_string_value(json_object_get(f, "sha256"));
        json_t *size = json_object_get(f, "size");
        if (!path || !sha || !json_is_integer(size)) {
            verify_problem(v, "MANIFEST", "MANIFEST.json", "files[%zu] lacks path, sha256 or size", i);
            continue;
        }
        if ((err = strlist_add(&seen, path)) < 0)
            break;
        const char *want = sum_of(sums, path);
        if (!want) {
            verify_problem(v, "MANIFEST", path, "in MANIFEST.json but not in SHA256SUMS");
            continue;
        }
        if (strcmp(want, sha) != 0)
            verify_problem(v, "MANIFEST", path, "MANIFEST.json and SHA256SUMS disagree on its hash");
        const struct verify_file *got = verify_find(x, path);
        if (got && (json_int_t)got->size != json_integer_value(size))
            verify_problem(v, "MODIFIED", path, "size %llu, the manifest says %lld", (unsigned long long)got->size,
                           (long long)json_integer_value(size));
    }
    strlist_sort(&seen, false);
    for (size_t k = 0; !err && k < sums->n; k++)
        if (strcmp(sums->items[k].key, "MANIFEST.json") != 0 && !strlist_has_sorted(&seen, sums->items[k].key))
            verify_problem(v, "MANIFEST", sums->items[k].key, "in SHA256SUMS but not in MANIFEST.json");
    strlist_free(&seen);
    if (err) {
        json_decref(m);
        return err;
    }
    *manifest_out = m;
    return 0;
}

/* The bundled run.db, extracted to root/run/ (its header already checked
 * while extracting): present, and a benchgen run that reads back whole; then
 * the input files it recorded (bundle_inputs.h). */
static bool check_run_(const char *root, const struct verify_extracted *x, struct verify_log *v)
{
    if (!verify_find(x, "run/run.db")) {
        verify_problem(v, "MISSING", "run/run.db", "a bundle carries its run's run.db; nothing can be re-rendered");
        return false;
    }
    char *dir = xprintf("%s/run", root);
    struct rundata *rd = NULL;
    int err = rundata_load(&rd, dir);
    if (err < 0) { /* the message names the file: said once */
        const char *msg = error_last();
        size_t n = strlen(dir);
        if (!strncmp(msg, dir, n) && !strncmp(msg + n, "/run.db: ", 9))
            msg += n + 9;
        verify_problem(v, "NOT A RUN", "run/run.db", "%s", msg);
    }
    else {
        verify_note(v, "run/run.db is a benchgen run: %zu cell%s", rd->ncells, rd->ncells == 1 ? "" : "s");
        bundle_inputs_verify(rd, x, v);
    }
    rundata_free(rd);
    error_clear();
    free(dir);
    return err == 0;
}

/* Re-renders the report from the bundled run and compares it file by file.
 * A bundle always carries its report (`benchgen bundle` renders it): one
 * without is refused, as re-rendering is what ties its numbers to run.db. */
static int check_report_(const char *root, const struct verify_extracted *x, json_t *manifest,
                         struct verify_log *v, bundle_render_fn fn)
{
    json_t *rep = json_object_get(manifest, "report");
    size_t nhave = 0;
    for (size_t i = 0; i < x->nfiles; i++)
        nhave += !strncmp(x->file[i].path, "report/", 7);
    if (!json_is_object(rep) || !nhave) {
        verify_problem(v, "NO REPORT", json_is_object(rep) ? "report/" : "MANIFEST.json",
                       "%s: a bundle carries the report rendered from its run.db, and re-rendering it is what "
                       "proves the bundle's numbers",
                       json_is_object(rep) ? "the bundle holds no report files" : "\"report\" is not an object");
        return 0;
    }
    json_t *nfiles = json_object_get(rep, "files");
    if (!json_is_integer(nfiles) || json_integer_value(nfiles) != (json_int_t)nhave)
        verify_problem(v, "REPORT", "MANIFEST.json", "report.files is not the %zu report files the bundle holds",
                       nhave);
    json_t *jb = json_object_get(rep, "baseline");
    const char *baseline = json_is_string(jb) ? json_string_value(jb) : NULL;
    if (baseline && (!baseline[0] || baseline[0] == '-' || !util_is_safe_name(baseline))) {
        verify_problem(v, "MANIFEST", "MANIFEST.json", "report.baseline '%s' is not a backend name", baseline);
        return 0;
    }
    struct strlist have = {0}, got = {0};
    char *b = NULL;
    int err = 0;
    /* rendered where the bundle was: root/run/run.db -> root/report/ (the
     * bundle's own report files were hashed, never written) */
    char *logs = xprintf("%s/run/logs", root);
    util_mkdir_p(logs, 0755);
    free(logs);
    if ((err = bundle_render_in(fn, root, baseline)) < 0) {
        verify_problem(v, "REPORT", "report/", "re-rendering failed: %s", error_last());
        err = 0;
        goto done;
    }
    b = xprintf("%s/report", root);
    /* the bundled report/ files, as hashed while extracting */
    for (size_t i = 0; i < x->nfiles && !err; i++)
        if (!strncmp(x->file[i].path, "report/", 7))
            err = strlist_add(&have, x->file[i].path + 7);
    if (!err && util_is_dir(b) && (err = bundle_fs_walk(b, "", &got, NULL)) < 0)
        goto done;
    strlist_sort(&have, false);
    strlist_sort(&got, false);
    size_t same = 0, bad = v->problems;
    for (size_t i = 0; i < have.n && !err; i++) {
        char *rel = xprintf("report/%s", have.v[i]), *y = xprintf("%s/%s", b, have.v[i]), hex[65];
        const struct verify_file *f = verify_find(x, rel); /* have holds x's report/ files */
        if (!strlist_has_sorted(&got, have.v[i]))
            verify_problem(v, "REPORT", rel, "in the bundle, but re-rendering did not produce it");
        else if (sha256_file(y, hex) != 0 || !f || strcmp(hex, f->sha256) != 0)
            verify_problem(v, "DIFFERS", rel, "the re-rendered file differs from the bundled one");
        else
            same++;
        free(rel);
        free(y);
    }
    for (size_t i = 0; i < got.n && !err; i++) {
        if (strlist_has_sorted(&have, got.v[i]))
            continue;
        char *rel = xprintf("report/%s", got.v[i]);
        verify_problem(v, "REPORT", rel, "re-rendering produced it, the bundle lacks it");
        free(rel);
    }
    if (!err && v->problems == bad)
        verify_note(v, "report re-rendered from the bundled run.db: %zu files identical", same);
done:
    strlist_free(&have);
    strlist_free(&got);
    free(b);
    return err;
}

int bundle_verify(const char *path, FILE *out, size_t *problems, const struct bundle_options *opt)
{
    struct verify_log v = {.out = out, .problems_only = opt && opt->problems_only};
    struct verify_extracted x = {0};
    struct kvlist sums = {0};
    json_t *manifest = NULL;
    char *tmp = NULL, *xdir = NULL, *root = NULL;
    int err = 0;

    *problems = 0;
    if (!util_is_file(path))
        return error_set(BG_ENOTFOUND, "%s: no such file", path);
    if (!(tmp = bundle_fs_tmpdir("verify")))
        return error_code();
    xdir = xprintf("%s/x", tmp);
    if ((err = util_mkdir_p(xdir, 0755)) < 0)
        goto done;
    verify_line(&v, "verify %s", path);
    char digest[65];
    if ((err = sha256_file(path, digest)) < 0)
        goto done;
    verify_note(&v, "sha256 of the bundle: %s", digest);
    if ((err = verify_extract(&x, path, xdir, &v)) < 0 ||
        (err = verify_check_gzip(path, verify_gzip_budget(&x), &v)) < 0)
        goto done;
    if (!x.top[0] || !x.nfiles) {
        verify_problem(&v, "EMPTY", path, "no files in the bundle");
        goto done;
    }
    root = xprintf("%s/%s", xdir, x.top);
    v.root = root;
    v.scratch = tmp;

    /* every listed file present and intact; nothing unlisted */
    if ((err = read_sums_(root, &sums, &v)) < 0)
        goto done;
    size_t intact = 0;
    for (size_t i = 0; i < sums.n; i++) {
        const char *rel = sums.items[i].key;
        const struct verify_file *f = verify_find(&x, rel);
        if (!f)
            verify_problem(&v, "MISSING", rel, "listed in SHA256SUMS, absent from the bundle");
        else if (strcmp(f->sha256, sums.items[i].value) != 0)
            verify_problem(&v, "MODIFIED", rel, "its SHA-256 differs from SHA256SUMS");
        else
            intact++;
    }
    for (size_t i = 0; i < x.nfiles; i++)
        if (strcmp(x.file[i].path, "SHA256SUMS") != 0 && !sum_of(&sums, x.file[i].path))
            verify_problem(&v, "UNLISTED", x.file[i].path, "in the bundle but not in SHA256SUMS");

    if ((err = check_manifest_(root, &x, &sums, &manifest, &v)) < 0)
        goto done;
    /* one count: the files in the archive, as bundle and MANIFEST.json say
     * (a missing or extra file was already named above) */
    json_t *count = json_object_get(manifest, "file_count");
    if (json_is_integer(count) && json_integer_value(count) != (json_int_t)x.nfiles && !v.problems)
        verify_problem(&v, "COUNT", "MANIFEST.json", "file_count is %lld, the bundle holds %zu files",
                       (long long)json_integer_value(count), x.nfiles);
    bool counted = json_is_integer(count) && json_integer_value(count) == (json_int_t)x.nfiles;
    verify_note(&v, "%zu file%s in the bundle%s", x.nfiles, x.nfiles == 1 ? "" : "s",
                counted ? ", as MANIFEST.json counts them" : "");
    if (sums.n)
        verify_note(&v, "%zu of the %zu files SHA256SUMS lists match it (every file but SHA256SUMS itself)",
                    intact, sums.n);
    if (!manifest)
        goto done;
    size_t listed = json_array_size(json_object_get(manifest, "files"));
    verify_note(&v, "MANIFEST.json lists %zu file%s with hash and size (every file but itself and SHA256SUMS)",
                listed, listed == 1 ? "" : "s");
    const char *ver =
        json_string_value(json_object_get(json_object_get(manifest, "bundled_by"), "benchgen_version"));
    const char *commit =
        json_string_value(json_object_get(json_object_get(manifest, "bundled_by"), "git_commit"));
    if (ver && commit && (strcmp(ver, BENCHGEN_VERSION) != 0 || strcmp(commit, BENCHGEN_GIT_COMMIT) != 0))
        verify_note(&v,
                    "note: bundled by benchgen %s (%s), verified with %s (%s): a report that differs may come "
                    "from that",
                    ver, commit, BENCHGEN_VERSION, BENCHGEN_GIT_COMMIT);
    if (check_run_(root, &x, &v))
        err = check_report_(root, &x, manifest, &v, opt ? opt->render : NULL);
done:
    if (!err) {
        if (v.problems)
            verify_line(&v, "FAILED: %zu problem%s in %s", v.problems, v.problems == 1 ? "" : "s", path);
        else
            verify_line(&v, "verified: %s", path);
    }
    *problems = v.problems;
    json_decref(manifest);
    kvlist_free(&sums);
    verify_extracted_free(&x);
    if (tmp)
        util_rm_rf(tmp);
    free(tmp);
    free(xdir);
    free(root);
    return err;
}
