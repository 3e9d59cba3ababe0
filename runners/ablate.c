/*
 * ablate.c - parsing $BENCHGEN_ABLATE (see ablate.h). Compiled into benchgen
 * and into the `_benchgen` module (the worker reads the list benchgen passes
 * it), so it uses libc and gen/base/error only.
 */
#include "runners/ablate.h"
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned bit;
} knobs[] = {{"cgroup", ABLATE_CGROUP},         {"sampling", ABLATE_SAMPLING}, {"env", ABLATE_ENV},
             {"inputs-copy", ABLATE_INPUTS_COPY}, {"pipe", ABLATE_PIPE},         {"tmpdir", ABLATE_TMPDIR}};

#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))
#define KNOWN "cgroup, sampling, env, inputs-copy, pipe, tmpdir, all"

int ablate_parse(unsigned *mask, const char *list)
{
    *mask = 0;
    if (!list)
        return 0;
    const char *p = list;
    while (*p == ' ')
        p++;
    if (!*p)
        return 0;
    for (;;) {
        size_t n = strcspn(p, ",");
        size_t a = 0, b = n;
        while (a < b && p[a] == ' ')
            a++;
        while (b > a && p[b - 1] == ' ')
            b--;
        if (a == b) {
            *mask = 0;
            return error_set(BG_EUSAGE, "'%s': an empty knob name (knobs: %s)", list, KNOWN);
        }
        unsigned bit = 0;
        if (b - a == 3 && strncmp(p + a, "all", 3) == 0)
            bit = ~0u >> (sizeof(unsigned) * 8 - NKNOBS);
        for (size_t i = 0; !bit && i < NKNOBS; i++)
            if (strlen(knobs[i].name) == b - a && strncmp(p + a, knobs[i].name, b - a) == 0)
                bit = knobs[i].bit;
        if (!bit) {
            *mask = 0;
            return error_set(BG_EUSAGE, "'%.*s' is no knob (knobs: %s)", (int)(b - a), p + a, KNOWN);
        }
        *mask |= bit;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

int ablate_from_env(unsigned *mask)
{
    int err = ablate_parse(mask, getenv(ABLATE_VAR));
    return err < 0 ? error_prefix(err, "%s", ABLATE_VAR) : 0;
}

unsigned ablate_active(void)
{
    unsigned mask = 0;
    const char *v = getenv(ABLATE_VAR);
    if (!v || !*v)
        return 0;
    return ablate_parse(&mask, v) < 0 ? 0 : mask;
}

void ablate_format(unsigned mask, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < NKNOBS && len; i++) {
        if (!(mask & knobs[i].bit))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", knobs[i].name);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* whole names only */
            return;
        }
        used += (size_t)n;
    }
}
