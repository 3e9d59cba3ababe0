/*
 * term.c - the one terminal writer (see term.h). Every line benchgen prints
 * that is not a command's result or an error is written here.
 */
#include "cli/term.h"
#include "base/error.h"
#include "base/json.h"
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum mode { MODE_TEXT, MODE_JSON };

static struct {
    bool quiet;
    enum mode mode;
    int tty; /* -1: not asked yet */
    FILE *null;
    /* --progress json: the last phase event written, so a phase is one event, not one per tick */
    char phase_cell[256], phase[32];
} T = {.tty = -1};

static bool tty(void)
{
    if (T.tty < 0)
        T.tty = isatty(STDERR_FILENO);
    return T.tty;
}

/* ---- text: today's lines ------------------------------------------------- */

/* Who says it, and how its lines start. "env" writes on stdout, between the
 * installers' own output; the rest on stderr. warning: "warning: " follows
 * the prefix. */
static const struct {
    const char *topic, *prefix;
    bool on_stdout, warning_word;
} topics[] = {
    {"env", "env", true, false},
    {"bundle", "benchgen bundle", false, true},
    {"compare", "benchgen compare", false, true},
    {"report", "report", false, false},
    {"bisect", "bisect", false, false},
    {"run", NULL, false, false},
};

static void fmt_duration(double s, char *buf, size_t n)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

/* "starting", "importing", "making inputs", "building", "warm-up 1/2", "step 37/100". */
static void phase_label(char *buf, size_t n, const struct voice_event *ev)
{
    const char *p = ev->phase ? ev->phase : "starting";
    if (!strcmp(p, "timed"))
        snprintf(buf, n, "step %d/%d", ev->step, ev->steps);
    else if (!strcmp(p, "warmup"))
        snprintf(buf, n, "warm-up %d/%d", ev->step, ev->steps);
    else if (!strcmp(p, "inputs"))
        snprintf(buf, n, "making inputs");
    else
        snprintf(buf, n, "%s", p);
}

static void text_line(const struct voice_event *ev)
{
    const char *prefix = "benchgen";
    bool out = false, word = true;
    if (!ev->topic) {
        prefix = NULL;
        word = false;
    }
    for (size_t i = 0; ev->topic && i < sizeof(topics) / sizeof(topics[0]); i++)
        if (!strcmp(ev->topic, topics[i].topic)) {
            prefix = topics[i].prefix;
            out = topics[i].on_stdout;
            word = topics[i].warning_word;
        }
    FILE *f = out ? stdout : stderr;
    if (prefix)
        fprintf(f, "%s%s%s: ", prefix, ev->subject ? " " : "", ev->subject ? ev->subject : "");
    fprintf(f, "%s%s\n", word && ev->level == VOICE_WARNING ? "warning: " : "", ev->text ? ev->text : "");
    fflush(f);
}

static void text_event(const struct voice_event *ev)
{
    char e[32], t[32] = "?", label[64];
    switch (ev->kind) {
    case VOICE_TEXT: text_line(ev); return;
    case VOICE_CELL_START:
        if (!tty())
            fprintf(stderr, "[%d/%d] %s: running%s%s\n", ev->index, ev->total, ev->cell,
                    ev->where && *ev->where ? " on " : "", ev->where && *ev->where ? ev->where : "");
        break;
    case VOICE_CELL_PHASE:
        if (!tty())
            return;
        fmt_duration(ev->elapsed_s, e, sizeof(e));
        if (ev->eta_s >= 0)
            fmt_duration(ev->eta_s, t, sizeof(t));
        phase_label(label, sizeof(label), ev);
        fprintf(stderr, "\r\033[K[%d/%d] %s  %s  %s  ETA %s", ev->index, ev->total, ev->cell, label, e, t);
        break;
    case VOICE_RUN_STATE:
        if (!tty())
            return;
        fprintf(stderr, "\r\033[K[%d/%d done] %.*s", ev->done, ev->total, 200, ev->text ? ev->text : "");
        break;
    case VOICE_CELL_END:
        if (tty())
            fputs("\r\033[K", stderr);
        fprintf(stderr, "[%d/%d] %-40s %-11s %6.1f s%s%s%s%s%s\n", ev->done, ev->total, ev->cell, ev->status,
                ev->wall_s, ev->text && *ev->text ? "  " : "", ev->text ? ev->text : "", ev->log ? " (log: " : "",
                ev->log ? ev->log : "", ev->log ? ")" : "");
        break;
    }
    fflush(stderr);
}

/* ---- json: one object per event ------------------------------------------ */

static const char *kind_name(const struct voice_event *ev)
{
    switch (ev->kind) {
    case VOICE_TEXT: return voice_level_name(ev->level);
    case VOICE_CELL_START: return "cell_start";
    case VOICE_CELL_PHASE: return "phase";
    case VOICE_CELL_END: return "cell_end";
    case VOICE_RUN_STATE: return "state";
    }
    return "note";
}

static void json_event(const struct voice_event *ev)
{
    if (ev->kind == VOICE_CELL_PHASE) { /* one event per phase, not one per tick */
        const char *p = ev->phase ? ev->phase : "starting";
        if (!strcmp(T.phase_cell, ev->cell ? ev->cell : "") && !strcmp(T.phase, p))
            return;
        snprintf(T.phase_cell, sizeof(T.phase_cell), "%s", ev->cell ? ev->cell : "");
        snprintf(T.phase, sizeof(T.phase), "%s", p);
    } else if (ev->kind == VOICE_CELL_START || ev->kind == VOICE_CELL_END) {
        T.phase_cell[0] = T.phase[0] = '\0';
    }
    int err = 0;
    json_t *o = json_object();
    json_put(o, "event", json_str(kind_name(ev)), &err);
    switch (ev->kind) {
    case VOICE_TEXT:
        json_put(o, "topic", json_str(ev->topic), &err);
        json_put(o, "subject", json_str(ev->subject), &err);
        json_put(o, "text", json_str(ev->text), &err);
        break;
    case VOICE_CELL_START:
        json_put(o, "cell", json_str(ev->cell), &err);
        json_put(o, "index", json_integer(ev->index), &err);
        json_put(o, "total", json_integer(ev->total), &err);
        json_put(o, "where", json_str(ev->where && *ev->where ? ev->where : NULL), &err);
        break;
    case VOICE_CELL_PHASE:
        json_put(o, "cell", json_str(ev->cell), &err);
        json_put(o, "index", json_integer(ev->index), &err);
        json_put(o, "total", json_integer(ev->total), &err);
        json_put(o, "phase", json_str(ev->phase ? ev->phase : "starting"), &err);
        if (ev->steps > 0) {
            json_put(o, "step", json_integer(ev->step), &err);
            json_put(o, "steps", json_integer(ev->steps), &err);
        }
        json_put(o, "elapsed_s", json_num(ev->elapsed_s), &err);
        json_put(o, "eta_s", ev->eta_s >= 0 ? json_num(ev->eta_s) : json_null(), &err);
        break;
    case VOICE_CELL_END:
        json_put(o, "cell", json_str(ev->cell), &err);
        json_put(o, "done", json_integer(ev->done), &err);
        json_put(o, "total", json_integer(ev->total), &err);
        json_put(o, "status", json_str(ev->status), &err);
        json_put(o, "wall_s", json_num(ev->wall_s), &err);
        json_put(o, "detail", json_str(ev->text && *ev->text ? ev->text : NULL), &err);
        json_put(o, "log", json_str(ev->log), &err);
        if (ev->has_stats) {
            json_put(o, "mean_ms", json_num(ev->mean_ms), &err);
            json_put(o, "median_ms", json_num(ev->median_ms), &err);
            json_put(o, "cv", json_num(ev->cv), &err);
        }
        break;
    case VOICE_RUN_STATE:
        json_put(o, "done", json_integer(ev->done), &err);
        json_put(o, "total", json_integer(ev->total), &err);
        json_put(o, "text", json_str(ev->text), &err);
        break;
    }
    char *line = err ? NULL : json_line(o);
    json_decref(o);
    if (line) {
        fputs(line, stderr);
        fflush(stderr);
    }
    free(line);
    error_clear(); /* a refused event is dropped, not the command's error */
}

/* ---- the writer ---------------------------------------------------------- */

static void term_event(void *payload, const struct voice_event *ev)
{
    (void)payload;
    if (T.quiet)
        return;
    if (T.mode == MODE_JSON)
        json_event(ev);
    else
        text_event(ev);
}

static const struct voice writer = {term_event, NULL};

int term_setup(bool quiet, const char *progress)
{
    T.quiet = quiet;
    if (!progress || !strcmp(progress, "text"))
        T.mode = MODE_TEXT;
    else if (!strcmp(progress, "json"))
        T.mode = MODE_JSON;
    else
        return error_set(BG_EUSAGE, "--progress: unknown mode '%s' (text or json)", progress);
    return 0;
}

const struct voice *term_voice(void)
{
    return &writer;
}

void term_say(enum voice_level level, const char *topic, const char *fmt, ...)
{
    if (T.quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *text = xvformat(fmt, ap);
    va_end(ap);
    struct voice_event ev = {.kind = VOICE_TEXT, .level = level, .topic = topic, .text = text ? text : fmt};
    term_event(NULL, &ev);
    free(text);
}

FILE *term_stdout(void)
{
    if (!T.quiet)
        return stdout;
    if (!T.null)
        T.null = fopen("/dev/null", "w");
    return T.null ? T.null : stdout;
}

FILE *term_stderr(void)
{
    if (T.quiet)
        return term_stdout();
    return T.mode == MODE_JSON ? stdout : stderr;
}

bool term_quiet(void)
{
    return T.quiet;
}
