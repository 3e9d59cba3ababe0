/*
 * opt.c - the table-driven option parser and its help lines (see opt.h).
 */
#include "cli/opt.h"
#include "base/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct opt *find_long(const struct opt_spec *spec, const char *name, size_t len)
{
    for (size_t i = 0; i < spec->nopts; i++)
        if (strlen(spec->opts[i].name) == len && !strncmp(spec->opts[i].name, name, len))
            return &spec->opts[i];
    return NULL;
}

static const struct opt *find_short(const struct opt_spec *spec, char letter)
{
    for (size_t i = 0; i < spec->nopts; i++)
        if (spec->opts[i].letter && spec->opts[i].letter == letter)
            return &spec->opts[i];
    return NULL;
}

/* "--out" or "-o" as the user may have typed it, for messages. */
static void display_name(char *buf, size_t n, const struct opt *o, int as_short)
{
    if (as_short)
        snprintf(buf, n, "-%c", o->letter);
    else
        snprintf(buf, n, "--%s", o->name);
}

static int store_value(void *dst, const struct opt *o, const char *shown, const char *value)
{
    char *field = (char *)dst + o->offset;
    switch (o->type) {
    case OPT_IS_FLAG: *(bool *)field = true; return 0;
    case OPT_IS_STRING: *(const char **)field = value; return 0;
    case OPT_IS_LIST: {
        struct opt_list *l = (struct opt_list *)field;
        if (l->n == OPT_LIST_MAX)
            return error_set(BG_EUSAGE, "%s: at most %d values", shown, OPT_LIST_MAX);
        l->v[l->n++] = value;
        return 0;
    }
    case OPT_IS_INT: {
        char *end = NULL;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (!*value || *end || errno || v < o->min || v > o->max)
            return error_set(BG_EUSAGE, "%s %s: expected an integer from %ld to %ld", shown, value, o->min,
                             o->max);
        *(int *)field = (int)v;
        return 0;
    }
    }
    return error_set(BG_EUSAGE, "%s: unknown option type", shown);
}

int opt_parse(int *nargs, int *ndash, const char **args, void *dst, const struct opt_spec *spec, int argc,
              char **argv)
{
    *nargs = 0;
    *ndash = -1;
    int only_args = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--"))
            break;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || a[1] == '\0') {
            args[(*nargs)++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_args = 1;
            *ndash = *nargs;
            continue;
        }
        const struct opt *o;
        const char *value = NULL;
        int as_short = a[1] != '-';
        char shown[64];
        if (!as_short) {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            if (!(o = find_long(spec, name, len)))
                return error_set(BG_EUSAGE, "unknown option --%.*s", (int)len, name);
            if (eq) {
                if (o->type == OPT_IS_FLAG)
                    return error_set(BG_EUSAGE, "--%s takes no value", o->name);
                value = eq + 1;
            }
        } else {
            if (!(o = find_short(spec, a[1])))
                return error_set(BG_EUSAGE, "unknown option %s", a);
            if (a[2] != '\0') {
                if (o->type == OPT_IS_FLAG)
                    return error_set(BG_EUSAGE, "unknown option %s (-%c takes no value)", a, a[1]);
                value = a + 2;
            }
        }
        display_name(shown, sizeof(shown), o, as_short);
        if (o->type != OPT_IS_FLAG && !value) {
            if (i + 1 >= argc)
                return error_set(BG_EUSAGE, "%s needs a value (%s)", shown, o->value ? o->value : "VALUE");
            value = argv[++i];
        }
        int err = store_value(dst, o, shown, value);
        if (err < 0)
            return err;
    }
    if (*ndash < 0)
        *ndash = *nargs;
    if (*nargs < spec->min_args) {
        /* the names of the missing ones: "RUN_B" when only RUN_A was given */
        const char *names = spec->arg_names ? spec->arg_names : "";
        for (int k = 0; k < *nargs && *names; k++) {
            names += strcspn(names, " ");
            names += strspn(names, " ");
        }
        return error_set(BG_EUSAGE, "missing %s", *names ? names : "argument");
    }
    if (spec->max_args >= 0 && *nargs > spec->max_args)
        return error_set(BG_EUSAGE, "unexpected argument '%s'", args[spec->max_args]);
    return 0;
}

#define HELP_COL 26

static void print_line(FILE *out, const char *left, const char *help)
{
    int w = fprintf(out, "  %s", left);
    for (const char *p = help; *p;) {
        size_t len = strcspn(p, "\n");
        if (w > HELP_COL - 1) {
            fputc('\n', out);
            w = 0;
        }
        fprintf(out, "%*s%.*s\n", HELP_COL - w, "", (int)len, p);
        w = 0;
        p += len;
        if (*p == '\n')
            p++;
    }
}

void opt_print_help(const struct opt_spec *spec, FILE *out)
{
    for (size_t i = 0; i < spec->nopts; i++) {
        const struct opt *o = &spec->opts[i];
        char left[96];
        if (o->letter)
            snprintf(left, sizeof(left), "-%c, --%s%s%s", o->letter, o->name, o->value ? " " : "",
                     o->value ? o->value : "");
        else
            snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
        print_line(out, left, o->help);
    }
    print_line(out, "-h, --help", "this help");
}
