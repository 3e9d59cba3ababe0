/*
 * outdir.h - whose report a directory holds. Every render writes
 * OUT_DIR/.benchgen-report naming its run (name and creation time, no
 * path), so a second run of the same spec never overwrites the first run's
 * report silently: rendering into a directory that holds another run's
 * report, or report files benchgen cannot attribute, is refused unless
 * forced.
 */
#ifndef BENCHGEN_OUTDIR_H
#define BENCHGEN_OUTDIR_H

#define OUTDIR_MARK ".benchgen-report"

/* Claims out_dir for the run (run_name, created_utc): creates it when
 * missing, checks it holds no other run's report, and writes the mark.
 * With force, another run's report is replaced: its report.{html,md,pdf,xlsx}
 * and chart files are removed first. BG_EUSAGE, naming the
 * other run, when out_dir is taken and force is 0. */
int outdir_claim(const char *out_dir, const char *run_name, const char *created_utc, int force);

#endif /* BENCHGEN_OUTDIR_H */
