/*
 * voice.h - how the library tells its caller what it is doing: progress,
 * notes and warnings, as events handed to a callback.
 *
 * Nothing below gen/cli writes to stdout or stderr itself (a check in
 * scripts/check-layers.py enforces it). A library function that has
 * something to say takes a `struct voice` - a callback and its payload,
 * libgit2-style - in its options struct (report_options, bundle_options,
 * exec_options, bisect_options) or as a parameter, and calls voice_say() or
 * voice_emit(). With no voice (NULL, or a NULL fn) nothing is said: there is
 * no default writer in the library. The command line installs the one
 * terminal writer (gen/cli/term.c: today's lines and progress bar,
 * `--quiet`, `--progress json`); a program embedding the library installs
 * its own or none.
 *
 * Errors are not events: a function returns a BG_E* code with its one
 * message (base/error.h) and the caller reports it.
 *
 * Every string of an event is borrowed for the duration of the call only.
 */
#ifndef BENCHGEN_VOICE_H
#define BENCHGEN_VOICE_H

#include <stdbool.h>

/* How much it matters; a caller filters on it (the terminal writer's
 * --quiet drops every level). */
enum voice_level {
    VOICE_PROGRESS, /* how far something long has come; a terminal may redraw it in place */
    VOICE_NOTE,     /* what was done or is about to happen */
    VOICE_WARNING   /* something to look at; the operation goes on */
};

enum voice_kind {
    VOICE_TEXT,       /* a line of text: topic, subject, text */
    VOICE_CELL_START, /* a cell is about to run: cell, index, total, where */
    VOICE_CELL_PHASE, /* the running cell's phase (about every 250 ms): cell, index, total, phase,
                       * step, steps, elapsed_s, eta_s */
    VOICE_CELL_END,   /* a cell came back: cell, done, total, status, wall_s, text (timings or
                       * the first line of its reason), log, stats when has_stats */
    VOICE_RUN_STATE   /* what runs now elsewhere (executors with cells in other processes):
                       * done, total, text */
};

struct voice_event {
    enum voice_kind kind;
    enum voice_level level;
    const char *topic;   /* who speaks: "run", "env", "report", "bundle", "bisect", "store" */
    const char *subject; /* what it is about (an environment's name), or NULL */
    const char *text;    /* one line, no prefix, no newline; may be NULL for cell events */
    /* cell events */
    const char *cell;    /* the cell's key */
    int index, total;    /* its place among the cells of this run, 1-based, and how many */
    int done;            /* cells finished before this event */
    const char *where;   /* CELL_START: "device 0, cores 2-3", "arm A", or NULL */
    const char *phase;   /* CELL_PHASE: starting, importing, inputs, building, warmup, timed */
    int step, steps;     /* CELL_PHASE warmup and timed: the step running (1-based) of steps */
    double elapsed_s;    /* CELL_PHASE: seconds since the cell started */
    double eta_s;        /* CELL_PHASE: seconds left in the run, estimated; < 0 unknown */
    const char *status;  /* CELL_END: ok, error, crash, ... (plan/status.h's names) */
    double wall_s;       /* CELL_END */
    const char *log;     /* CELL_END: the log of a cell that failed, else NULL */
    bool has_stats;      /* CELL_END: mean_ms, median_ms, cv are set */
    double mean_ms, median_ms, cv;
};

typedef void (*voice_fn)(void *payload, const struct voice_event *ev);

/* A listener: fn(payload, event). Zero (or a NULL pointer to one) is silence. */
struct voice {
    voice_fn fn;
    void *payload;
};

/* True when v would hear something (v and v->fn set). */
bool voice_on(const struct voice *v);

/* Hands ev to v's callback; nothing when !voice_on(v). */
void voice_emit(const struct voice *v, const struct voice_event *ev);

/* A VOICE_TEXT event of level with a printf-style text. */
void voice_say(const struct voice *v, enum voice_level level, const char *topic, const char *subject,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define voice_note(v, topic, subject, ...) voice_say(v, VOICE_NOTE, topic, subject, __VA_ARGS__)
#define voice_warn(v, topic, subject, ...) voice_say(v, VOICE_WARNING, topic, subject, __VA_ARGS__)
#define voice_progress(v, topic, subject, ...) voice_say(v, VOICE_PROGRESS, topic, subject, __VA_ARGS__)

/* "progress", "note", "warning". */
const char *voice_level_name(enum voice_level level);

#endif /* BENCHGEN_VOICE_H */
