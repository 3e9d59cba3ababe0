/*
 * template.c - {{placeholder}} substitution for the report templates (see template.h).
 *
 * Deliberately tiny: no loops or conditionals. The writers build repeated
 * fragments (tables, figure lists) in C, where escaping is explicit, and the
 * templates only arrange them.
 */
#include "base/template.h"
#include "base/error.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int template_render(struct strbuf *out, const char *name, const char *text, const struct kvlist *vars,
                    template_escape_fn esc)
{
    int err = strbuf_append(out, "", 0);
    const char *p = text;
    size_t line = 1;
    while (err == 0 && *p) {
        const char *open = strstr(p, "{{");
        if (!open)
            return strbuf_puts(out, p);
        for (const char *q = p; q < open; q++)
            line += *q == '\n';
        if ((err = strbuf_append(out, p, (size_t)(open - p))) < 0)
            return err;
        int raw = open[2] == '{';
        const char *start = open + (raw ? 3 : 2), *end = start;
        while (is_name_char(*end))
            end++;
        const char *close = raw ? "}}}" : "}}";
        if (end == start || strncmp(end, close, strlen(close)) != 0)
            return error_set(BG_EGENERIC, "template %s:%zu: malformed placeholder", name, line);
        char key[128];
        size_t klen = (size_t)(end - start);
        if (klen >= sizeof(key))
            return error_set(BG_EGENERIC, "template %s:%zu: placeholder name too long", name, line);
        memcpy(key, start, klen);
        key[klen] = '\0';
        const char *value = kvlist_get(vars, key);
        if (!value)
            return error_set(BG_EGENERIC, "template %s:%zu: unknown placeholder {{%s}}", name, line, key);
        err = raw ? strbuf_puts(out, value) : esc(out, value);
        p = end + strlen(close);
    }
    return err;
}

int template_load(char **out, const char *name)
{
    *out = NULL;
    char path[PATH_MAX];
    const char *dir = getenv("BENCHGEN_TEMPLATES");
    if (dir && *dir)
        snprintf(path, sizeof(path), "%s/%s", dir, name);
    else
        snprintf(path, sizeof(path), "%s/templates/%s", util_home_dir(), name);
    if (!util_is_file(path))
        return error_set(BG_ENOTFOUND, "template %s not found (set BENCHGEN_HOME to the benchgen directory)",
                         path);
    size_t len;
    return util_read_file(path, out, &len);
}
