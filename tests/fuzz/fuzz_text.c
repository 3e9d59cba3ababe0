/*
 * fuzz_text.c - the small texts a user does not control: report templates
 * with their variables (template_render() under each escaper), `run --with`
 * pins (envs_derive_check_pin(), then envs_derive() for a pin that passes,
 * into a private cache), `report --format` lists (report_parse_formats()).
 * The first byte picks the parser; for a template, the text runs to the
 * first 0xFF byte and the rest is the value of every variable.
 */
#include "fuzz_common.h"

#include "base/error.h"
#include "base/escape.h"
#include "base/template.h"
#include "report/report.h"
#include "envs/envs_derive.h"

static int esc_none(struct strbuf *sb, const char *s)
{
    strbuf_append(sb, s, strlen(s));
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char cache[400];
    snprintf(cache, sizeof(cache), "%s/cache", fuzz_scratch());
    mkdir(cache, 0700);
    setenv("BENCHGEN_CACHE", cache, 1);
    setenv("BENCHGEN_HOME", BENCHGEN_SOURCE_DIR, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned which = data[0] % 6;
    char *text = fuzz_text(data + 1, size - 1);
    switch (which) {
    case 0:
    case 1:
    case 2: {
        char *split = memchr(text, 0xff, size - 1);
        const char *value = "";
        if (split) {
            *split = '\0';
            value = split + 1;
        }
        struct kvlist vars = {0};
        kvlist_add(&vars, "name", value);
        kvlist_add(&vars, "a", value);
        kvlist_add(&vars, "table_1", value);
        struct strbuf out = {0};
        template_escape_fn esc = which == 0 ? escape_html : which == 1 ? escape_md : esc_none;
        (void)template_render(&out, "fuzz.tmpl", text, &vars, esc);
        strbuf_free(&out);
        kvlist_free(&vars);
        break;
    }
    case 3:
    case 4: {
        const char *pins[2] = {text, NULL};
        char *nl = strchr(text, '\n');
        size_t npins = 1;
        if (nl) {
            *nl = '\0';
            pins[1] = nl + 1;
            npins = 2;
        }
        int ok = 1;
        for (size_t i = 0; i < npins; i++)
            ok &= envs_derive_check_pin(pins[i]) == 0;
        if (ok && which == 4) {
            char *name = NULL;
            if (envs_derive("base", pins, npins, &name) == 0) {
                if (strchr(name, '/') || strcmp(name, "..") == 0)
                    abort(); /* a derived name is a file name in the cache */
                free(name);
            }
        }
        break;
    }
    default: {
        unsigned bits = 0;
        (void)report_parse_formats(&bits, text);
        break;
    }
    }
    free(text);
    return 0;
}
