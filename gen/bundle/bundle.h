/*
 * bundle.h - `benchgen bundle RUN_DIR --out FILE.tar.gz` packs a run for a
 * release; `benchgen verify FILE.tar.gz` proves a bundle is what it says.
 *
 * A bundle is a gzip'd tar (libarchive) with one top directory
 * "<run name>-<created, compact UTC>/" holding
 *
 *   MANIFEST.json         "benchgen-bundle/1": who bundled it (version,
 *                         commit), the run (name, times, versions, command
 *                         line), the commands, the environments, and every
 *                         other file with its SHA-256 and size
 *   SHA256SUMS            `sha256sum -c` format, every file but itself
 *   spec.yaml             the spec text stored in run.db
 *   run/run.db            the run, copied with SQLite's backup API, then
 *                         journal_mode=DELETE and VACUUM (no WAL, stable bytes)
 *   run/logs/...          the cells' logs
 *   envs/NAME.txt         the lock file of each environment the run used
 *   envs/NAME.resolved.txt  the package versions the run recorded for it
 *   envs/recorded/...     the locks (or a registered interpreter's package
 *                         list) as run.db recorded them when the run was
 *                         created (bundle_inputs.h)
 *   inputs/...            the spec, workloads and their local modules, as
 *                         run.db recorded them (bundle_inputs.h)
 *   report/...            `benchgen report run --out report`, rendered from
 *                         the bundled run.db (when the renderer is built in)
 *
 * It is deterministic: entries sorted by path, every mtime the run's
 * created_utc, uid/gid 0 and owner "root", modes 0644/0755, no atime/ctime,
 * POSIX pax-restricted tar (plain ustar headers for ordinary paths), gzip
 * without a timestamp or file name. Bundling the same run twice with the
 * same benchgen gives the same bytes.
 *
 * verify extracts into a temporary directory, checks every SHA256SUMS entry,
 * that nothing is missing or unlisted, that MANIFEST.json agrees, and
 * re-renders the report from the bundled run.db, comparing it byte for byte.
 * Every problem is named by its path.
 *
 * verify bounds what it extracts: the first file is MANIFEST.json, whose
 * sizes cap every other entry and the total (with hard ceilings; files
 * before it, in a bundle packed again by hand, are read under the hard
 * ceilings alone, then held to it); sparse,
 * link, device and fifo entries are refused. Its cost is linear in the
 * number of entries, and every name it prints is escaped (escape_terminal).
 *
 * Files: bundle.c (create), bundle_manifest.c, bundle_inputs.c, bundle_tar.c, bundle_fs.c,
 * bundle_render.c, bundle_verify.c, verify_extract.c
 * (bounded extraction, the gzip check), verify_log.c (problem lines); the
 * commands are gen/cli/cli_bundle.c.
 *
 * The report is rendered with report_render() (report.h), from
 * <staging>/run into <staging>/report on both sides, so the renderer sees
 * the same layout; tests can pass another renderer in the options.
 */
#ifndef BENCHGEN_BUNDLE_H
#define BENCHGEN_BUNDLE_H

#include <stddef.h>
#include <stdio.h>

#include "bundle/bundle_render.h"

#define BUNDLE_FORMAT "benchgen-bundle/1"


struct bundle_options {
    const char *baseline;   /* passed to the report as its baseline; may be NULL */
    bundle_render_fn render; /* NULL: report_render(); a test seam */
    int force;              /* replace an existing out_path (never a directory) */
    int problems_only;      /* bundle_verify: print only the problem lines */
    struct voice voice;     /* hears what bundle does and warns of (topic "bundle"); zero: silence */
};

/* Writes the bundle of run_dir to out_path (through a temporary file beside
 * it and a rename). opt may be NULL. BG_EUSAGE, before anything is written,
 * when out_path is inside a run directory (report/outdir.h), is a directory,
 * or exists and opt->force is 0; a file that appears at out_path meanwhile
 * is never replaced without force. */
int bundle_create(const char *run_dir, const char *out_path, const struct bundle_options *opt);

/* Checks a bundle, printing one line per check or problem to out (may be
 * NULL). *problems gets the number of problems; the return value is 0 when
 * the checks could run (even if they found problems), or an error code
 * (BG_ENOTFOUND, BG_EIO, ...) when the file could not be examined at all.
 * opt may be NULL; only its render and problems_only are used. */
int bundle_verify(const char *path, FILE *out, size_t *problems, const struct bundle_options *opt);

#endif /* BENCHGEN_BUNDLE_H */
