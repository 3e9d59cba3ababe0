/*
 * template.h - the report's document templates (the files in templates/).
 *
 * A template is plain text with two kinds of placeholder:
 *   {{name}}    the value of name, escaped for the document's format;
 *   {{{name}}}  the value inserted as is (a fragment the writer already
 *               escaped, such as a rendered table).
 * Names are [A-Za-z0-9_]+. A placeholder with no value is an error, so a typo
 * in a template fails the render instead of silently printing nothing.
 */
#ifndef BENCHGEN_TEMPLATE_H
#define BENCHGEN_TEMPLATE_H

#include "base/util.h"

typedef int (*template_escape_fn)(struct strbuf *sb, const char *s);

/* Appends the rendered text to out. name is only used in messages.
 * Returns 0, or BG_EGENERIC for an unknown or malformed placeholder (or the
 * first error out already remembers); out of memory exits (base/xalloc.h). */
int template_render(struct strbuf *out, const char *name, const char *text, const struct kvlist *vars,
                    template_escape_fn esc);

/* Reads templates/<name> from the benchgen home (util_home_dir()), or from
 * $BENCHGEN_TEMPLATES when set. *out is malloc'd. BG_ENOTFOUND when missing. */
int template_load(char **out, const char *name);

#endif /* BENCHGEN_TEMPLATE_H */
