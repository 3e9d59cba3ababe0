/*
 * voice.c - progress, notes and warnings handed to the caller's callback
 * (see voice.h). No writer lives here: with no callback, nothing is said.
 */
#include "base/voice.h"
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>

bool voice_on(const struct voice *v)
{
    return v && v->fn;
}

void voice_emit(const struct voice *v, const struct voice_event *ev)
{
    if (voice_on(v) && ev)
        v->fn(v->payload, ev);
}

void voice_say(const struct voice *v, enum voice_level level, const char *topic, const char *subject,
               const char *fmt, ...)
{
    if (!voice_on(v))
        return; /* nobody listens: not even formatted */
    va_list ap;
    va_start(ap, fmt);
    char *text = xvformat(fmt, ap);
    va_end(ap);
    struct voice_event ev = {.kind = VOICE_TEXT, .level = level, .topic = topic, .subject = subject,
                             .text = text ? text : fmt};
    v->fn(v->payload, &ev);
    free(text);
}

const char *voice_level_name(enum voice_level level)
{
    switch (level) {
    case VOICE_PROGRESS: return "progress";
    case VOICE_NOTE: return "note";
    case VOICE_WARNING: return "warning";
    }
    return "note";
}
