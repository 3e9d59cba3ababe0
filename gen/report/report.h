/*
 * report.h - `benchgen report RUN_DIR [--out DIR] [--baseline BACKEND]
 * [--reference FILE.csv [--reference-revision N]] [--format LIST] [--quiet]`.
 *
 * Renders everything a reader needs from a stored run, the same bytes every
 * time: report.html (self-contained), report.md, report.pdf, report.xlsx and
 * charts/ (PNG, SVG, PDF), by default into reports/<run-name>/.
 */
#ifndef BENCHGEN_REPORT_H
#define BENCHGEN_REPORT_H

/* argv[0] is the command name ("report"); the options follow. Parses its own
 * options (--help included), prints errors to stderr and returns the exit
 * status: 0, 1 (rendering failed) or 2 (usage: bad option, no such run). */
int report_main(int argc, char **argv);

#endif /* BENCHGEN_REPORT_H */
