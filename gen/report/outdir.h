/*
 * outdir.h - writing a report's (or a comparison's) output directory
 * without ever deleting or overwriting what benchgen did not write.
 *
 * The rules (docs/REPORT.md, "Output directories"):
 *
 * - An output path inside a run directory (a directory holding run.db, or
 *   below one) is refused: a render never writes into a run.
 * - One writer at a time: DIR/.benchgen-lock is held with flock() for the
 *   whole render (the renderer processes inherit it); a second writer is
 *   refused, naming the holder. The file is removed when the render ends.
 * - Everything is rendered into DIR/.benchgen-stage first, then renamed
 *   into place file by file, so a failed or killed render never leaves half
 *   a file, and never a mix of two runs' files.
 * - The mark (DIR/.benchgen-report, DIR/.benchgen-compare) names what the
 *   directory holds and lists every file benchgen wrote there with its
 *   SHA-256. A render replaces or removes only files the mark lists with
 *   the hash they still have; any other file at a name it writes is refused
 *   (exit 2) unless forced, and nothing else is ever removed.
 * - A report mark identifies its run by outdir_run_id() (unique per run,
 *   so the two arms of `run --ab` differ): rendering another run into the
 *   directory is refused unless forced.
 * - DIR/charts must be a real directory: a symbolic link (or anything else)
 *   there is refused, forced or not, and nothing it points to is touched.
 */
#ifndef BENCHGEN_OUTDIR_H
#define BENCHGEN_OUTDIR_H

#include "base/util.h"
#include "store/rundata.h"

#define OUTDIR_MARK ".benchgen-report"
#define OUTDIR_COMPARE_MARK ".benchgen-compare"
#define OUTDIR_LOCK ".benchgen-lock"
#define OUTDIR_STAGE ".benchgen-stage"

/* What is rendered into the directory. */
struct outdir_owner {
    const char *kind;        /* "report" or "compare": the mark's name and format */
    const char *head;        /* the mark's lines after its format line ("run: NAME\n..."); borrowed */
    const char *id;          /* report: outdir_run_id() of the run; NULL for compare; borrowed */
    const char *legacy_name; /* report: run name and created time, to recognise a */
    const char *legacy_created; /* benchgen-report/1 mark of the same run; borrowed */
    const char *const *docs; /* the names whose presence without a mark means "unknown origin" */
};

struct outdir {
    char *dir;   /* as given */
    char *stage; /* dir/.benchgen-stage: write everything here */
    char *mark;
    char *head;  /* the new mark's text before its file lines */
    int lock_fd;
    int force;
    int same;    /* the directory holds this run's report (or nothing yet) */
    int legacy;  /* its mark is a benchgen-report/1 of this run: files not listed */
    struct strlist old; /* the old mark's "file: HASH NAME" entries, as "NAME\tHASH" */
};

/* BG_EUSAGE when path (a directory to write into, or with is_file the file
 * to write) is a run directory or lies inside one, naming it. */
int outdir_check_path(const char *path, int is_file);

/* The run's identity: SHA-256 (hex) over what its creation fixed (name,
 * creation time, spec hash, command line, run-wide environment, which says
 * the arm of `run --ab`). The same for a copy of the run directory. */
void outdir_run_id(const struct rundata *rd, char hex[65]);

/* Checks the path, creates DIR when missing, takes the lock, checks who
 * owns DIR (BG_EUSAGE naming the other run unless force), refuses a DIR/charts
 * that is not a directory, and makes a fresh, empty o->stage. On failure
 * nothing in DIR has changed (but a DIR it created) and o needs no close. */
int outdir_open(struct outdir *o, const char *dir, const struct outdir_owner *who, int force);

/* Moves what was written into o->stage into DIR (charts/ included): every
 * target is new, listed in the old mark with its current hash, or force;
 * BG_EUSAGE naming the first that is not, before anything moved. Then
 * removes the files the old mark listed, still unchanged, that this render
 * did not write (with keep_docs, those outside charts/ of the same run are
 * kept and stay listed), and writes the new mark. */
int outdir_commit(struct outdir *o, int keep_docs);

/* Removes the stage if it is still there, releases the lock, frees o. */
void outdir_close(struct outdir *o);

#endif /* BENCHGEN_OUTDIR_H */
