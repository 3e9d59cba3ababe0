/*
 * term.h - the one terminal writer: what the library says (base/voice.h)
 * and what a command says itself, as the terminal has always shown it, as
 * JSON events, or not at all.
 *
 * Text (the default): today's lines, byte for byte - "env NAME: ..." on
 * stdout (between pip's own output), "benchgen bundle: ...", "report: ...",
 * "bisect: ...", "benchgen: warning: ..." and the cells' lines on stderr,
 * and on a terminal the redrawn progress line of the cell in flight
 * ("[3/12] key  step 37/100  0:41  ETA 6:10").
 * `--progress json`: one JSON object per event on stderr, nothing else
 * there but errors (docs/RUN-FORMAT.md, "Progress events").
 * `--quiet`: nothing but errors, on every command that takes it.
 *
 * One writer per process: a command calls term_setup() with its --quiet and
 * --progress before it calls the library, and passes term_voice() down.
 * Errors are not events: cli_fail() and cli_usage_error() print them.
 */
#ifndef BENCHGEN_TERM_H
#define BENCHGEN_TERM_H

#include <stdbool.h>
#include <stdio.h>

#include "base/voice.h"
#include "cli/opt.h"

/* The two option lines of every command that speaks; T has the fields
 * `bool quiet; const char *progress;`. */
#define TERM_OPTIONS(T)                                                                                             \
    OPT_FLAG(T, quiet, "quiet", 'q', "print nothing but errors"),                                                   \
        OPT_STR(T, progress, "progress", 0, "MODE",                                                                 \
                "text (default): progress and messages as lines; json: one\nJSON object per event on stderr "     \
                "(docs/RUN-FORMAT.md)")

/* Sets the writer up: quiet drops every event and every line the command
 * prints itself; progress NULL or "text", or "json". BG_EUSAGE for any
 * other mode. */
int term_setup(bool quiet, const char *progress);

/* The writer, to pass to the library; never NULL. Before term_setup(): text. */
const struct voice *term_voice(void);

/* A line the command says itself (not an error): through the writer, so
 * --quiet drops it and --progress json makes it an event. topic as in
 * voice.h; a NULL topic writes the text as it is. */
void term_say(enum voice_level level, const char *topic, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Where a command writes its own results meant for stdout (a plan, a
 * comparison): stdout, or a sink that drops them under --quiet. */
FILE *term_stdout(void);

/* Where a command writes a block of text it shows on stderr (run --ab's
 * verdicts, the inputs that changed since a run was created): stderr;
 * stdout under --progress json, so stderr carries only events and errors;
 * dropped under --quiet. */
FILE *term_stderr(void);

bool term_quiet(void);

#endif /* BENCHGEN_TERM_H */
