/*
 * bundle.c - deterministic release bundles and their verification (see
 * bundle.h for the layout and the guarantees; docs/COMPARE.md for the
 * format as users see it).
 *
 * Everything is staged in a temporary directory first, so the bundle is
 * written from plain files in one sorted pass and a failure leaves nothing
 * half-written at the destination.
 */
#include "bundle/bundle.h"
#include "run/envs.h"
#include "base/error.h"
#include "base/json.h"
#include "report/report.h"
#include "store/rundata.h"
#include "store/store.h"
#include "base/util.h"
#include "base/version.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>
#include <sqlite3.h>


#define BUNDLE_CHUNK 65536


/* ---- small file helpers --------------------------------------------------- */


/* Regular files (and, when dirs is not NULL, directories as "rel/") under
 * root/rel, as paths relative to root. Symbolic links and other special
 * files are left out: a bundle holds plain files only. */
static int walk_(const char *root, const char *rel, struct strlist *files, struct strlist *dirs)
{
    char *dir = rel[0] ? util_printf("%s/%s", root, rel) : strdup(root);
    if (!dir)
        return error_set(BG_ENOMEM, "out of memory");
    DIR *d = opendir(dir);
    int err = 0;
    if (!d) {
        err = error_set(BG_EIO, "cannot read directory %s: %s", dir, strerror(errno));
        free(dir);
        return err;
    }
    struct dirent *de;
    while (!err && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *r = rel[0] ? util_printf("%s/%s", rel, de->d_name) : strdup(de->d_name);
        char *full = util_printf("%s/%s", dir, de->d_name);
        struct stat st;
        if (!r || !full) {
            err = error_set(BG_ENOMEM, "out of memory");
        } else if (lstat(full, &st) != 0) {
            err = error_set(BG_EIO, "cannot stat %s: %s", full, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            if (dirs) {
                char *slash = util_printf("%s/", r);
                err = slash ? strlist_add(dirs, slash) : error_set(BG_ENOMEM, "out of memory");
                free(slash);
            }
            if (!err)
                err = walk_(root, r, files, dirs);
        } else if (S_ISREG(st.st_mode)) {
            err = strlist_add(files, r);
        }
        free(r);
        free(full);
    }
    closedir(d);
    free(dir);
    return err;
}

static int write_file_(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wbe");
    if (!f)
        return error_set(BG_EIO, "cannot create %s: %s", path, strerror(errno));
    bool ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : error_set(BG_EIO, "cannot write %s: %s", path, strerror(errno));
}

static int copy_file_(const char *src, const char *dst)
{
    char *buf = NULL;
    size_t len = 0;
    int err = util_read_file(src, &buf, &len);
    if (!err)
        err = write_file_(dst, buf, len);
    free(buf);
    return err;
}

/* Creates the parent directories of root/rel. */
static int mkparents_(const char *root, const char *rel)
{
    char *p = util_printf("%s/%s", root, rel);
    if (!p)
        return error_set(BG_ENOMEM, "out of memory");
    char *slash = strrchr(p, '/');
    *slash = '\0';
    int err = util_mkdir_p(p, 0755);
    free(p);
    return err;
}

static bool same_bytes_(const char *a, const char *b)
{
    char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    bool same = util_read_file(a, &x, &nx) == 0 && util_read_file(b, &y, &ny) == 0 && nx == ny &&
                memcmp(x, y, nx) == 0;
    free(x);
    free(y);
    return same;
}

static char *make_tmpdir_(const char *what)
{
    const char *base = getenv("TMPDIR");
    char *t = util_printf("%s/benchgen-%s-XXXXXX", base && *base ? base : "/tmp", what);
    if (!t) {
        error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    if (!mkdtemp(t)) {
        error_set(BG_EIO, "cannot create a temporary directory %s: %s", t, strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

/* "2024-04-03T12:00:00Z" -> time_t; 0 when it does not parse. */
static time_t parse_utc_(const char *s)
{
    struct tm tm = {0};
    char z = 0;
    if (!s ||
        sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &z) != 7 ||
        z != 'Z')
        return 0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    return t < 0 ? 0 : t;
}

/* Renders dir/run into dir/report, as `benchgen report run --out report
 * --quiet [--baseline B]` would from dir: the same layout on both sides. */
static int render_in_(bundle_render_fn fn, const char *dir, const char *baseline)
{
    char *run = util_printf("%s/run", dir), *out = util_printf("%s/report", dir);
    struct report_options ro = {.baseline = baseline, .reference_revision = -1, .formats = REPORT_ALL, .quiet = 1};
    int err = run && out ? 0 : error_set(BG_ENOMEM, "out of memory");
    fflush(stdout);
    if (!err && (err = (fn ? fn : report_render)(run, out, &ro)) < 0)
        err = error_prefix(err, "rendering the report failed");
    fflush(stdout);
    free(run);
    free(out);
    if (err)
        return err;
    /* a reader may leave SQLite's side files next to the database */
    char *shm = util_printf("%s/run/run.db-shm", dir), *wal = util_printf("%s/run/run.db-wal", dir);
    if (shm)
        unlink(shm);
    if (wal)
        unlink(wal);
    free(shm);
    free(wal);
    return 0;
}

/* ---- JSON: the one writer (base/json.h); local names keep the call sites -- */

static json_t *jstr_(const char *s) { return json_str(s); }
static void set_(json_t *o, const char *key, json_t *v, int *err) { json_put(o, key, v, err); }
static void push_(json_t *a, json_t *v, int *err) { json_push(a, v, err); }
static char *json_text_(json_t *root) { return json_text(root); }

/* ---- bundle ---------------------------------------------------------------- */

/* run.db through SQLite's backup API into dst, then out of WAL mode and
 * vacuumed, so the copy is one self-contained file whose bytes depend on the
 * run's content, not on its write history. */
static int copy_db_(const char *run_dir, const char *dst_path)
{
    struct store *st = NULL;
    sqlite3 *dst = NULL;
    int err = store_open(&st, run_dir, true);
    if (err)
        return err;
    if (sqlite3_open_v2(dst_path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        err = error_set(BG_EDB, "%s: %s", dst_path, dst ? sqlite3_errmsg(dst) : "cannot open");
        goto done;
    }
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", store_db(st), "main");
    if (!b) {
        err = error_set(BG_EDB, "copying run.db: %s", sqlite3_errmsg(dst));
        goto done;
    }
    int rc = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        err = error_set(BG_EDB, "copying run.db: %s", sqlite3_errstr(rc));
        goto done;
    }
    /* The copied header still says WAL; a fresh connection reads it, so the
     * switch to DELETE below really rewrites it. */
    sqlite3_close(dst);
    dst = NULL;
    if (sqlite3_open_v2(dst_path, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(dst, "PRAGMA journal_mode=DELETE; VACUUM;", NULL, NULL, NULL) != SQLITE_OK)
        err =
            error_set(BG_EDB, "preparing the copy of run.db: %s", dst ? sqlite3_errmsg(dst) : "cannot open");
done:
    if (dst)
        sqlite3_close(dst);
    store_close(st);
    return err;
}

static void sanitise_(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (; s && *s && k + 1 < n && k < 64; s++)
        out[k++] = (isalnum((unsigned char)*s) || *s == '.' || *s == '_' || *s == '-') ? *s : '_';
    if (k == 0)
        k = (size_t)snprintf(out, n, "run");
    out[k] = '\0';
}

/* envs/NAME.txt (the lock) and envs/NAME.resolved.txt (what the run
 * recorded) for every environment the run used; their manifest entries. */
static int bundle_envs_(const struct rundata *rd, const char *root, json_t *list, int quiet)
{
    struct strlist names = {0};
    int err = 0;
    for (size_t i = 0; i < rd->ncells && !err; i++)
        if (rd->cells[i].env[0] && !strlist_has_sorted(&names, rd->cells[i].env)) {
            err = strlist_add(&names, rd->cells[i].env);
            strlist_sort(&names, false);
        }
    if (!err && names.n && (err = mkparents_(root, "envs/x")) < 0)
        goto done;
    for (size_t k = 0; k < names.n && !err; k++) {
        const char *name = names.v[k];
        if (!util_is_safe_name(name)) {
            if (!quiet)
                fprintf(stderr, "benchgen bundle: environment name '%s' is not a safe file name; left out\n",
                        name);
            continue;
        }
        const struct rd_cell *rep = NULL; /* the first ok cell of this environment */
        for (size_t i = 0; i < rd->ncells && !rep; i++)
            if (!strcmp(rd->cells[i].env, name) && rd->cells[i].status && !strcmp(rd->cells[i].status, "ok"))
                rep = &rd->cells[i];
        json_t *o = json_object();
        if (!o) {
            err = error_set(BG_ENOMEM, "out of memory");
            break;
        }
        set_(o, "name", jstr_(name), &err);

        struct env_info info = {0};
        char *lock_rel = NULL, *lock_dst = NULL;
        if (envs_resolve(name, &info) == 0 && info.lock_path) {
            lock_rel = util_printf("envs/%s.txt", name);
            lock_dst = util_printf("%s/envs/%s.txt", root, name);
            if (!lock_rel || !lock_dst)
                err = error_set(BG_ENOMEM, "out of memory");
            else
                err = copy_file_(info.lock_path, lock_dst);
            /* Does today's lock still describe the venv the run used? The
             * venv directory is named <name>-<hash of lock + Python>. */
            const char *prefix = rep ? kvlist_get(&rep->environment, "python.prefix") : NULL;
            json_t *matches = json_null();
            if (prefix && info.hash[0]) {
                size_t pl = strlen(prefix), hl = strlen(info.hash);
                matches = json_boolean(pl > hl && prefix[pl - hl - 1] == '-' &&
                                       !strcmp(prefix + pl - hl, info.hash));
                if (!quiet && !json_is_true(matches))
                    fprintf(stderr,
                            "benchgen bundle: warning: %s differs from the lock the run used (venv %s); "
                            "the manifest says so\n",
                            info.lock_path, prefix);
            }
            set_(o, "lock", jstr_(lock_rel), &err);
            set_(o, "lock_matches_run", matches, &err);
        } else {
            error_clear();
            if (!quiet)
                fprintf(stderr,
                        "benchgen bundle: no lock file for environment %s; its resolved versions only\n",
                        name);
            set_(o, "lock", json_null(), &err);
            set_(o, "lock_matches_run", json_null(), &err);
        }
        env_info_free(&info);
        free(lock_rel);
        free(lock_dst);

        struct strbuf sb = {0};
        if (!err && rep) {
            const char *py = kvlist_get(&rep->environment, "python.version");
            err = strbuf_printf(&sb,
                                "# packages recorded by the run for environment %s (cell %s)\n# python %s\n",
                                name, rep->key, py ? py : "unknown");
            for (size_t i = 0; !err && i < rep->environment.n; i++) {
                const struct kv *e = &rep->environment.items[i];
                if (!strncmp(e->key, "pkg.", 4))
                    err = strbuf_printf(&sb, "%s==%s\n", e->key + 4, e->value ? e->value : "");
            }
        }
        char *res_rel = NULL, *res_dst = NULL;
        if (!err && rep) {
            res_rel = util_printf("envs/%s.resolved.txt", name);
            res_dst = util_printf("%s/envs/%s.resolved.txt", root, name);
            err = res_rel && res_dst ? write_file_(res_dst, sb.buf, sb.len)
                                     : error_set(BG_ENOMEM, "out of memory");
        }
        set_(o, "resolved", jstr_(res_rel), &err);
        set_(o, "python", jstr_(rep ? kvlist_get(&rep->environment, "python.version") : NULL), &err);
        strbuf_free(&sb);
        free(res_rel);
        free(res_dst);
        push_(list, o, &err);
    }
done:
    strlist_free(&names);
    return err;
}

static json_t *run_json_(const struct rundata *rd, int *err)
{
    json_t *o = json_object(), *statuses = json_object();
    if (!o || !statuses) {
        json_decref(o);
        json_decref(statuses);
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    set_(o, "name", jstr_(rd->name), err);
    set_(o, "description", jstr_(rd->description), err);
    set_(o, "created_utc", jstr_(rd->created_utc), err);
    set_(o, "started_utc", jstr_(rd->started_utc), err);
    set_(o, "finished_utc", jstr_(rd->finished_utc), err);
    set_(o, "benchgen_version", jstr_(rd->benchgen_version), err);
    set_(o, "git_commit", jstr_(rd->git_commit), err);
    set_(o, "git_dirty", json_integer(rd->git_dirty), err);
    set_(o, "spec_path", jstr_(rd->spec_path), err);
    set_(o, "spec_sha256", jstr_(rd->spec_sha256), err);
    set_(o, "cells", json_integer((json_int_t)rd->ncells), err);
    for (size_t i = 0; i < rd->ncells && !*err; i++) {
        const char *s = rd->cells[i].status ? rd->cells[i].status : "pending";
        json_t *n = json_object_get(statuses, s);
        set_(statuses, s, json_integer(n ? json_integer_value(n) + 1 : 1), err);
    }
    set_(o, "statuses", statuses, err);
    return o;
}

/* Writes the staged tree under stage/top into a deterministic tar.gz. */
static int write_tar_(const char *stage, const char *top, time_t mtime, const char *out_path)
{
    struct strlist files = {0}, dirs = {0}, all = {0};
    struct archive *a = NULL;
    struct archive_entry *e = NULL;
    char *root = util_printf("%s/%s", stage, top), *tmp = util_printf("%s.tmp.XXXXXX", out_path);
    char *buf = malloc(BUNDLE_CHUNK);
    int fd = -1, err = 0;
    if (!root || !tmp || !buf) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = walk_(root, "", &files, &dirs)) < 0)
        goto done;
    /* one sorted list: "top/", "top/envs/", "top/envs/x.txt", ... */
    char *topdir = util_printf("%s/", top);
    err = topdir ? strlist_add(&all, topdir) : error_set(BG_ENOMEM, "out of memory");
    free(topdir);
    for (int pass = 0; pass < 2 && !err; pass++) {
        const struct strlist *l = pass ? &files : &dirs;
        for (size_t i = 0; i < l->n && !err; i++) {
            char *p = util_printf("%s/%s", top, l->v[i]);
            err = p ? strlist_add(&all, p) : error_set(BG_ENOMEM, "out of memory");
            free(p);
        }
    }
    if (err)
        goto done;
    strlist_sort(&all, false);

    if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
        err = error_set(BG_EIO, "cannot create %s: %s", tmp, strerror(errno));
        goto done;
    }
    fchmod(fd, 0644);
    a = archive_write_new();
    e = archive_entry_new();
    if (!a || !e) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
        archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
        archive_write_open_fd(a, fd) != ARCHIVE_OK) {
        err = error_set(BG_EIO, "libarchive: %s", archive_error_string(a));
        goto done;
    }
    for (size_t i = 0; i < all.n && !err; i++) {
        const char *path = all.v[i];
        size_t len = strlen(path);
        bool is_dir = path[len - 1] == '/';
        char *full = util_printf("%s/%s", stage, path);
        struct stat st;
        FILE *f = NULL;
        if (!full) {
            err = error_set(BG_ENOMEM, "out of memory");
            break;
        }
        if (!is_dir && (stat(full, &st) != 0 || !(f = fopen(full, "rbe")))) {
            err = error_set(BG_EIO, "cannot read %s: %s", full, strerror(errno));
            free(full);
            break;
        }
        archive_entry_clear(e);
        archive_entry_set_pathname(e, path);
        archive_entry_set_filetype(e, is_dir ? AE_IFDIR : AE_IFREG);
        archive_entry_set_perm(e, is_dir ? 0755 : 0644);
        archive_entry_set_size(e, is_dir ? 0 : (la_int64_t)st.st_size);
        archive_entry_set_mtime(e, mtime, 0);
        archive_entry_set_uid(e, 0);
        archive_entry_set_gid(e, 0);
        archive_entry_set_uname(e, "root");
        archive_entry_set_gname(e, "root");
        if (archive_write_header(a, e) != ARCHIVE_OK)
            err = error_set(BG_EIO, "libarchive: %s: %s", path, archive_error_string(a));
        size_t n, total = 0;
        while (!err && f && (n = fread(buf, 1, BUNDLE_CHUNK, f)) > 0) {
            if (archive_write_data(a, buf, n) != (la_ssize_t)n)
                err = error_set(BG_EIO, "libarchive: %s: %s", path, archive_error_string(a));
            total += n;
        }
        if (!err && f && (ferror(f) || total != (size_t)st.st_size))
            err = error_set(BG_EIO, "%s changed while it was being bundled", full);
        if (f)
            fclose(f);
        free(full);
    }
    if (!err && archive_write_close(a) != ARCHIVE_OK)
        err = error_set(BG_EIO, "libarchive: %s", archive_error_string(a));
    if (!err && fsync(fd) != 0)
        err = error_set(BG_EIO, "cannot write %s: %s", tmp, strerror(errno));
    if (!err && rename(tmp, out_path) != 0)
        err = error_set(BG_EIO, "cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
done:
    if (a)
        archive_write_free(a);
    if (e)
        archive_entry_free(e);
    if (fd >= 0)
        close(fd);
    if (err && tmp && fd >= 0)
        unlink(tmp);
    strlist_free(&files);
    strlist_free(&dirs);
    strlist_free(&all);
    free(root);
    free(tmp);
    free(buf);
    return err;
}

int bundle_create(const char *run_dir, const char *out_path, const struct bundle_options *opt)
{
    struct bundle_options o = opt ? *opt : (struct bundle_options){0};
    struct rundata *rd = NULL;
    struct strlist files = {0}, logs = {0};
    struct strbuf sums = {0};
    json_t *manifest = NULL, *flist = NULL, *envs = NULL;
    char *stage = NULL, *root = NULL, *path = NULL, *text = NULL;
    char top[128], name[80];
    int err = 0;

    if ((err = rundata_load(&rd, run_dir)) < 0)
        return err;
    if (!o.quiet && !rd->finished_utc)
        fprintf(stderr, "benchgen bundle: warning: %s has not finished (bundling what it has)\n", run_dir);
    time_t created = parse_utc_(rd->created_utc);
    sanitise_(rd->name, name, sizeof(name));
    {
        char compact[32] = "";
        size_t k = 0;
        for (const char *p = rd->created_utc; *p && k + 1 < sizeof(compact); p++)
            if (*p != '-' && *p != ':')
                compact[k++] = *p;
        compact[k] = '\0';
        snprintf(top, sizeof(top), "%s%s%s", name, created ? "-" : "", created ? compact : "");
    }
    if (!(stage = make_tmpdir_("bundle"))) {
        err = error_code();
        goto done;
    }
    if (!(root = util_printf("%s/%s", stage, top)) || !(path = util_printf("%s/run/run.db", root))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    /* run/logs/ always exists, as in a run directory, even when empty */
    if ((err = util_mkdir_p(root, 0755)) < 0 || (err = mkparents_(root, "run/logs/x")) < 0 ||
        (err = copy_db_(run_dir, path)) < 0)
        goto done;

    /* logs */
    free(path);
    if (!(path = util_printf("%s/logs", run_dir))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (util_is_dir(path) && (err = walk_(path, "", &logs, NULL)) < 0)
        goto done;
    for (size_t i = 0; i < logs.n && !err; i++) {
        char *src = util_printf("%s/%s", path, logs.v[i]), *rel = util_printf("run/logs/%s", logs.v[i]);
        char *dst = rel ? util_printf("%s/%s", root, rel) : NULL;
        if (!src || !dst)
            err = error_set(BG_ENOMEM, "out of memory");
        else if ((err = mkparents_(root, rel)) == 0)
            err = copy_file_(src, dst);
        free(src);
        free(rel);
        free(dst);
    }
    if (err)
        goto done;

    /* the spec as the run stored it */
    if (rd->spec_text[0]) {
        free(path);
        if (!(path = util_printf("%s/spec.yaml", root))) {
            err = error_set(BG_ENOMEM, "out of memory");
            goto done;
        }
        if ((err = write_file_(path, rd->spec_text, strlen(rd->spec_text))) < 0)
            goto done;
    }

    manifest = json_object();
    flist = json_array();
    envs = json_array();
    if (!manifest || !flist || !envs) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = bundle_envs_(rd, root, envs, o.quiet)) < 0)
        goto done;

    /* the report, rendered from the bundled copy */
    if (!o.quiet)
        fprintf(stderr, "benchgen bundle: rendering the report from the bundled run.db\n");
    if ((err = render_in_(o.render, root, o.baseline)) < 0)
        goto done;

    /* manifest: every file so far, then SHA256SUMS over everything */
    if ((err = walk_(root, "", &files, NULL)) < 0)
        goto done;
    strlist_sort(&files, false);
    size_t nreport = 0;
    for (size_t i = 0; i < files.n && !err; i++) {
        char hex[65];
        struct stat st;
        char *full = util_printf("%s/%s", root, files.v[i]);
        if (!full) {
            err = error_set(BG_ENOMEM, "out of memory");
            break;
        }
        if ((err = sha256_file(full, hex)) == 0 && stat(full, &st) != 0)
            err = error_set(BG_EIO, "cannot stat %s: %s", full, strerror(errno));
        free(full);
        json_t *f = err ? NULL : json_object();
        if (f) {
            set_(f, "path", jstr_(files.v[i]), &err);
            set_(f, "sha256", json_string(hex), &err);
            set_(f, "size", json_integer((json_int_t)st.st_size), &err);
        }
        push_(flist, f, &err);
        nreport += !strncmp(files.v[i], "report/", 7);
    }
    if (err)
        goto done;

    json_t *by = json_object(), *cmds = json_object();
    set_(manifest, "bundled_by", by, &err);
    set_(by, "benchgen_version", json_string(BENCHGEN_VERSION), &err);
    set_(by, "git_commit", json_string(BENCHGEN_GIT_COMMIT), &err);
    set_(by, "git_dirty", json_integer(BENCHGEN_GIT_DIRTY), &err);
    set_(manifest, "format", json_string(BUNDLE_FORMAT), &err);
    set_(manifest, "root", jstr_(top), &err);
    set_(manifest, "run", run_json_(rd, &err), &err);
    set_(manifest, "commands", cmds, &err);
    set_(cmds, "run", jstr_(rd->command_line), &err);
    {
        /* Paths differ between machines and bundles; the commands are given
         * with placeholders so that they do not change the bytes. */
        char *b = util_printf("benchgen bundle RUN_DIR --out FILE.tar.gz%s%s",
                              o.baseline ? " --baseline " : "", o.baseline ? o.baseline : "");
        char *r = util_printf("benchgen report run --out report%s%s", o.baseline ? " --baseline " : "",
                              o.baseline ? o.baseline : "");
        set_(cmds, "bundle", jstr_(b), &err);
        set_(cmds, "report", jstr_(r), &err);
        set_(cmds, "verify", json_string("benchgen verify FILE.tar.gz"), &err);
        free(b);
        free(r);
    }
    {
        json_t *rep = json_object();
        set_(manifest, "report", rep, &err);
        set_(rep, "baseline", jstr_(o.baseline), &err);
        set_(rep, "files", json_integer((json_int_t)nreport), &err);
    }
    set_(manifest, "envs", envs, &err);
    envs = NULL;
    set_(manifest, "files", flist, &err);
    flist = NULL;
    if (err)
        goto done;
    free(path);
    path = NULL;
    if (!(text = json_text_(manifest))) { /* json_text_ said why */
        err = BG_ENOMEM;
        goto done;
    }
    if (!(path = util_printf("%s/MANIFEST.json", root))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = write_file_(path, text, strlen(text))) < 0 ||
        (err = strlist_add(&files, "MANIFEST.json")) < 0)
        goto done;
    strlist_sort(&files, false);
    for (size_t i = 0; i < files.n && !err; i++) {
        char hex[65];
        char *full = util_printf("%s/%s", root, files.v[i]);
        err = full ? sha256_file(full, hex) : error_set(BG_ENOMEM, "out of memory");
        if (!err)
            err = strbuf_printf(&sums, "%s  %s\n", hex, files.v[i]);
        free(full);
    }
    free(path);
    if (err || !(path = util_printf("%s/SHA256SUMS", root))) {
        err = err ? err : error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = write_file_(path, sums.buf, sums.len)) < 0)
        goto done;

    err = write_tar_(stage, top, created, out_path);
    char digest[65];
    if (!err && !o.quiet && sha256_file(out_path, digest) == 0)
        fprintf(stderr, "benchgen bundle: wrote %s (%zu files%s), sha256 %s\n", out_path, files.n + 1,
                ", report included", digest);
done:
    if (stage)
        util_rm_rf(stage);
    json_decref(manifest);
    json_decref(flist);
    json_decref(envs);
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

/* ---- verify ---------------------------------------------------------------- */

struct verify_ {
    FILE *out;
    size_t problems;
};

static void problem_(struct verify_ *v, const char *what, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void problem_(struct verify_ *v, const char *what, const char *path, const char *fmt, ...)
{
    v->problems++;
    if (!v->out)
        return;
    fprintf(v->out, "  %-9s %s", what, path);
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(v->out, ": ");
        vfprintf(v->out, fmt, ap);
        va_end(ap);
    }
    fprintf(v->out, "\n");
}

static void note_(struct verify_ *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_(struct verify_ *v, const char *fmt, ...)
{
    if (!v->out)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(v->out, "  ");
    vfprintf(v->out, fmt, ap);
    fprintf(v->out, "\n");
    va_end(ap);
}

/* A path from an archive that stays inside the extraction directory: no
 * absolute path, no "." or ".." component, no empty component. */
static bool safe_path_(const char *p)
{
    if (!p[0] || p[0] == '/')
        return false;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if ((n == 0 && e && e[1]) || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        if (!e)
            break;
        s = e + 1;
    }
    return true;
}

/* Extracts every entry under dir; top gets the bundle's top directory; the
 * files (relative to it) go to files. Damage is a problem, not an error. */
static int extract_(const char *path, const char *dir, char top[256], struct strlist *files,
                    struct verify_ *v)
{
    struct archive *a = archive_read_new();
    char *buf = malloc(BUNDLE_CHUNK), *last = NULL;
    int err = 0;
    top[0] = '\0';
    if (!a || !buf) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    if (archive_read_open_filename(a, path, BUNDLE_CHUNK) != ARCHIVE_OK) {
        err = error_set(util_is_file(path) ? BG_EIO : BG_ENOTFOUND, "%s: %s", path, archive_error_string(a));
        goto done;
    }
    struct archive_entry *e;
    int rc;
    while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
        const char *name = archive_entry_pathname(e);
        if (!name || !safe_path_(name)) {
            problem_(v, "UNSAFE", name ? name : "(no name)", "entry path leaves the bundle; not extracted");
            continue;
        }
        size_t tl = strcspn(name, "/");
        if (!top[0] && tl < 256)
            snprintf(top, 256, "%.*s", (int)tl, name);
        if (strncmp(name, top, tl) != 0 || strlen(top) != tl) {
            problem_(v, "UNEXPECTED", name, "outside the bundle's top directory %s/", top);
            continue;
        }
        free(last);
        last = strdup(name);
        const char *rel = name[tl] ? name + tl + 1 : "";
        char *full = util_printf("%s/%s", dir, name);
        if (!full || !last) {
            free(full);
            err = error_set(BG_ENOMEM, "out of memory");
            break;
        }
        mode_t type = archive_entry_filetype(e);
        if (type == AE_IFDIR) {
            util_mkdir_p(full, 0755);
        } else if (type != AE_IFREG) {
            problem_(v, "UNEXPECTED", name, "not a regular file or directory");
        } else {
            char *slash = strrchr(full, '/');
            *slash = '\0';
            util_mkdir_p(full, 0755);
            *slash = '/';
            int fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0) {
                problem_(v, errno == EEXIST ? "DUPLICATE" : "UNREADABLE", rel, "%s",
                         errno == EEXIST ? "the bundle holds this path twice" : strerror(errno));
            } else {
                la_ssize_t n;
                bool ok = true;
                while ((n = archive_read_data(a, buf, BUNDLE_CHUNK)) > 0)
                    ok = ok && write(fd, buf, (size_t)n) == n;
                close(fd);
                if (n < 0) {
                    problem_(v, "DAMAGED", rel, "%s", archive_error_string(a));
                    free(full);
                    goto stop; /* the stream is unusable past this point */
                }
                if (!ok) {
                    free(full);
                    err = error_set(BG_EIO, "cannot extract %s: %s", rel, strerror(errno));
                    break;
                }
                err = strlist_add(files, rel);
            }
        }
        free(full);
        if (err)
            break;
    }
    if (!err && rc != ARCHIVE_EOF)
        problem_(v, "DAMAGED", last ? last : path, "the archive cannot be read %s: %s",
                 last ? "after this entry" : "at all", archive_error_string(a));
stop:
    strlist_sort(files, false);
done:
    if (a)
        archive_read_free(a);
    free(buf);
    free(last);
    return err;
}

/* CRC-32 (ISO-HDLC, as gzip uses) over data, continuing from crc. The
 * gzip trailer needs it and libarchive does not check it. */
static uint32_t crc32_(uint32_t crc, const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* The gzip wrapper around the tar: a single member with benchgen's header
 * (no file name, no time stamp, OS Unix) whose trailer (CRC-32 and length
 * of the data) matches. The content checks cannot see these bytes. */
static int check_gzip_(const char *path, struct verify_ *v)
{
    char *bytes = NULL, *buf = NULL;
    size_t len = 0;
    struct archive *a = NULL;
    int err = util_read_file(path, &bytes, &len);
    if (err)
        return err;
    const unsigned char *b = (const unsigned char *)bytes;
    if (len < 18 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8) {
        problem_(v, "GZIP", path, "not a gzip file");
        goto done;
    }
    if (b[3] != 0 || b[4] || b[5] || b[6] || b[7] || (b[8] != 0 && b[8] != 2 && b[8] != 4) || b[9] != 3) {
        problem_(v, "GZIP", path,
                 "the gzip header is not as `benchgen bundle` writes it (flags, time stamp or OS)");
        goto done;
    }
    a = archive_read_new();
    buf = malloc(BUNDLE_CHUNK);
    if (!a || !buf) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    archive_read_support_filter_gzip(a);
    archive_read_support_format_raw(a);
    struct archive_entry *e;
    uint32_t crc = 0;
    uint64_t total = 0;
    la_ssize_t n = -1;
    if (archive_read_open_memory(a, bytes, len) == ARCHIVE_OK &&
        archive_read_next_header(a, &e) == ARCHIVE_OK)
        while ((n = archive_read_data(a, buf, BUNDLE_CHUNK)) > 0) {
            crc = crc32_(crc, (const unsigned char *)buf, (size_t)n);
            total += (uint64_t)n;
        }
    if (n < 0) {
        problem_(v, "GZIP", path, "the compressed data is damaged: %s", archive_error_string(a));
        goto done;
    }
    const unsigned char *t = b + len - 8;
    uint32_t want_crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    uint32_t want_len = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
    if (crc != want_crc || (uint32_t)total != want_len)
        problem_(v, "GZIP", path,
                 "the gzip trailer (CRC-32, length) does not match the data, or bytes follow it");
done:
    if (a)
        archive_read_free(a);
    free(buf);
    free(bytes);
    return err;
}

/* SHA256SUMS lines "<64 hex>  <path>", as path -> hash. */
static int read_sums_(const char *root, struct kvlist *sums, struct verify_ *v)
{
    char *p = util_printf("%s/SHA256SUMS", root), *text = NULL;
    if (!p)
        return error_set(BG_ENOMEM, "out of memory");
    int err = 0;
    if (!util_is_file(p)) {
        problem_(v, "MISSING", "SHA256SUMS", "nothing can be checked without it");
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
        if (hl != 64 || line[64] != ' ' || line[65] != ' ' || !line[66] || !safe_path_(line + 66)) {
            char where[32];
            snprintf(where, sizeof(where), "SHA256SUMS:%d", lineno);
            problem_(v, "MALFORMED", where, "expected '<sha256>  <path>'");
            continue;
        }
        line[64] = '\0';
        if (kvlist_get(sums, line + 66))
            problem_(v, "DUPLICATE", line + 66, "listed twice in SHA256SUMS");
        else
            err = kvlist_add(sums, line + 66, line);
    }
    free(text);
    free(p);
    return err;
}

static int check_manifest_(const char *root, const struct kvlist *sums, json_t **manifest_out,
                           struct verify_ *v)
{
    char *p = util_printf("%s/MANIFEST.json", root);
    json_error_t je;
    *manifest_out = NULL;
    if (!p)
        return error_set(BG_ENOMEM, "out of memory");
    json_t *m = util_is_file(p) ? json_load_file(p, 0, &je) : NULL;
    free(p);
    if (!m) {
        problem_(v, "MISSING", "MANIFEST.json", "%s", "absent or not JSON");
        return 0;
    }
    const char *fmt = json_string_value(json_object_get(m, "format"));
    if (!fmt || strcmp(fmt, BUNDLE_FORMAT) != 0)
        problem_(v, "MANIFEST", "MANIFEST.json", "format is %s, expected %s", fmt ? fmt : "missing",
                 BUNDLE_FORMAT);
    json_t *files = json_object_get(m, "files");
    size_t i, listed = 0;
    json_t *f;
    struct strlist seen = {0};
    int err = 0;
    json_array_foreach(files, i, f)
    {
        const char *path = json_string_value(json_object_get(f, "path"));
        const char *sha = json_string_value(json_object_get(f, "sha256"));
        json_t *size = json_object_get(f, "size");
        if (!path || !sha || !json_is_integer(size)) {
            problem_(v, "MANIFEST", "MANIFEST.json", "files[%zu] lacks path, sha256 or size", i);
            continue;
        }
        listed++;
        if ((err = strlist_add(&seen, path)) < 0)
            break;
        const char *want = kvlist_get(sums, path);
        if (!want) {
            problem_(v, "MANIFEST", path, "in MANIFEST.json but not in SHA256SUMS");
            continue;
        }
        if (strcmp(want, sha) != 0)
            problem_(v, "MANIFEST", path, "MANIFEST.json and SHA256SUMS disagree on its hash");
        char *full = util_printf("%s/%s", root, path);
        struct stat st;
        if (full && stat(full, &st) == 0 && (json_int_t)st.st_size != json_integer_value(size))
            problem_(v, "MODIFIED", path, "size %lld, the manifest says %lld", (long long)st.st_size,
                     (long long)json_integer_value(size));
        free(full);
    }
    strlist_sort(&seen, false);
    for (size_t k = 0; !err && k < sums->n; k++)
        if (strcmp(sums->items[k].key, "MANIFEST.json") != 0 && !strlist_has_sorted(&seen, sums->items[k].key))
            problem_(v, "MANIFEST", sums->items[k].key, "in SHA256SUMS but not in MANIFEST.json");
    strlist_free(&seen);
    if (err) {
        json_decref(m);
        return err;
    }
    note_(v, "MANIFEST.json lists %zu files", listed);
    *manifest_out = m;
    return 0;
}

/* Re-renders the report from the bundled run and compares it file by file. */
static int check_report_(const char *tmp, const char *root, json_t *manifest, struct verify_ *v,
                         bundle_render_fn fn)
{
    json_t *rep = json_object_get(manifest, "report");
    if (!json_is_object(rep)) {
        note_(v, "no report in the bundle: nothing to re-render");
        return 0;
    }
    json_t *jb = json_object_get(rep, "baseline");
    const char *baseline = json_is_string(jb) ? json_string_value(jb) : NULL;
    if (baseline && (!baseline[0] || baseline[0] == '-' || !util_is_safe_name(baseline))) {
        problem_(v, "MANIFEST", "MANIFEST.json", "report.baseline '%s' is not a backend name", baseline);
        return 0;
    }
    struct strlist logs = {0}, have = {0}, got = {0};
    char *work = util_printf("%s/render", tmp), *src = NULL, *a = NULL, *b = NULL;
    int err = 0;
    if (!work) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    /* the same layout the bundle was rendered in: work/run/{run.db,logs/} */
    src = util_printf("%s/run", root);
    if (!src || (err = walk_(src, "", &logs, NULL)) < 0) {
        err = err ? err : error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    err = mkparents_(work, "run/logs/x");
    for (size_t i = 0; i < logs.n && !err; i++) {
        char *from = util_printf("%s/%s", src, logs.v[i]), *rel = util_printf("run/%s", logs.v[i]);
        char *to = rel ? util_printf("%s/%s", work, rel) : NULL;
        if (!from || !to)
            err = error_set(BG_ENOMEM, "out of memory");
        else if ((err = mkparents_(work, rel)) == 0)
            err = copy_file_(from, to);
        free(from);
        free(rel);
        free(to);
    }
    if (err)
        goto done;
    if ((err = render_in_(fn, work, baseline)) < 0) {
        problem_(v, "REPORT", "report/", "re-rendering failed: %s", error_last());
        err = 0;
        goto done;
    }
    a = util_printf("%s/report", root);
    b = util_printf("%s/report", work);
    if (!a || !b) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (util_is_dir(a) && (err = walk_(a, "", &have, NULL)) < 0)
        goto done;
    if (util_is_dir(b) && (err = walk_(b, "", &got, NULL)) < 0)
        goto done;
    strlist_sort(&have, false);
    strlist_sort(&got, false);
    size_t same = 0, bad = v->problems;
    for (size_t i = 0; i < have.n && !err; i++) {
        char *x = util_printf("%s/%s", a, have.v[i]), *y = util_printf("%s/%s", b, have.v[i]);
        if (!x || !y)
            err = error_set(BG_ENOMEM, "out of memory");
        else if (!strlist_has_sorted(&got, have.v[i]))
            problem_(v, "REPORT", x + strlen(root) + 1, "in the bundle, but re-rendering did not produce it");
        else if (!same_bytes_(x, y))
            problem_(v, "DIFFERS", x + strlen(root) + 1, "the re-rendered file differs from the bundled one");
        else
            same++;
        free(x);
        free(y);
    }
    for (size_t i = 0; i < got.n && !err; i++) {
        if (strlist_has_sorted(&have, got.v[i]))
            continue;
        char *rel = util_printf("report/%s", got.v[i]);
        problem_(v, "REPORT", rel ? rel : got.v[i], "re-rendering produced it, the bundle lacks it");
        free(rel);
    }
    if (!err && v->problems == bad)
        note_(v, "report re-rendered from the bundled run.db: %zu files identical", same);
done:
    strlist_free(&logs);
    strlist_free(&have);
    strlist_free(&got);
    free(work);
    free(src);
    free(a);
    free(b);
    return err;
}

int bundle_verify(const char *path, FILE *out, size_t *problems, const struct bundle_options *opt)
{
    struct verify_ v = {out, 0};
    struct strlist files = {0};
    struct kvlist sums = {0};
    json_t *manifest = NULL;
    char top[256], *tmp = NULL, *xdir = NULL, *root = NULL;
    int err = 0;

    *problems = 0;
    if (!util_is_file(path))
        return error_set(BG_ENOTFOUND, "%s: no such file", path);
    if (!(tmp = make_tmpdir_("verify")))
        return error_code();
    if (!(xdir = util_printf("%s/x", tmp)) || (err = util_mkdir_p(xdir, 0755)) < 0) {
        err = err ? err : error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (out)
        fprintf(out, "verify %s\n", path);
    char digest[65];
    if ((err = sha256_file(path, digest)) < 0)
        goto done;
    note_(&v, "sha256 of the bundle: %s", digest);
    if ((err = check_gzip_(path, &v)) < 0 || (err = extract_(path, xdir, top, &files, &v)) < 0)
        goto done;
    if (!top[0]) {
        problem_(&v, "EMPTY", path, "no files in the bundle");
        goto done;
    }
    if (!(root = util_printf("%s/%s", xdir, top))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }

    /* every listed file present and intact; nothing unlisted */
    if ((err = read_sums_(root, &sums, &v)) < 0)
        goto done;
    size_t intact = 0;
    for (size_t i = 0; i < sums.n && !err; i++) {
        const char *rel = sums.items[i].key;
        char *full = util_printf("%s/%s", root, rel), hex[65];
        if (!full) {
            err = error_set(BG_ENOMEM, "out of memory");
        } else if (!strlist_has_sorted(&files, rel)) {
            problem_(&v, "MISSING", rel, "listed in SHA256SUMS, absent from the bundle");
        } else if ((err = sha256_file(full, hex)) == 0) {
            if (strcmp(hex, sums.items[i].value) != 0)
                problem_(&v, "MODIFIED", rel, "its SHA-256 differs from SHA256SUMS");
            else
                intact++;
        }
        free(full);
    }
    for (size_t i = 0; i < files.n && !err; i++)
        if (strcmp(files.v[i], "SHA256SUMS") != 0 && !kvlist_get(&sums, files.v[i]))
            problem_(&v, "UNLISTED", files.v[i], "in the bundle but not in SHA256SUMS");
    if (err)
        goto done;
    if (sums.n)
        note_(&v, "%zu of %zu files match SHA256SUMS", intact, sums.n);

    if ((err = check_manifest_(root, &sums, &manifest, &v)) < 0 || !manifest)
        goto done;
    const char *ver =
        json_string_value(json_object_get(json_object_get(manifest, "bundled_by"), "benchgen_version"));
    const char *commit =
        json_string_value(json_object_get(json_object_get(manifest, "bundled_by"), "git_commit"));
    if (ver && commit && (strcmp(ver, BENCHGEN_VERSION) != 0 || strcmp(commit, BENCHGEN_GIT_COMMIT) != 0))
        note_(&v,
              "note: bundled by benchgen %s (%s), verified with %s (%s): a report that differs may come "
              "from that",
              ver, commit, BENCHGEN_VERSION, BENCHGEN_GIT_COMMIT);
    err = check_report_(tmp, root, manifest, &v, opt ? opt->render : NULL);
done:
    if (!err && out) {
        if (v.problems)
            fprintf(out, "FAILED: %zu problem%s in %s\n", v.problems, v.problems == 1 ? "" : "s", path);
        else
            fprintf(out, "verified: %s\n", path);
    }
    *problems = v.problems;
    json_decref(manifest);
    kvlist_free(&sums);
    strlist_free(&files);
    if (tmp)
        util_rm_rf(tmp);
    free(tmp);
    free(xdir);
    free(root);
    return err;
}
