/*
 * escape.h - every string that reaches a document goes through one of these.
 *
 * Run metadata (spec name, description, package versions, tracebacks) is
 * text written by someone else; the report writes it into HTML, Markdown,
 * pango markup (PDF and charts) and XLSX, each with its own special
 * characters. One escaper per format keeps that decision in one place.
 *
 * The strbuf variants append to sb and return 0, or the first error sb
 * remembers (base/util.h: appending never fails for memory, so a writer
 * checks strbuf_error() once at the end); the others return a malloc'd
 * string the caller frees, never NULL (base/xalloc.h: out of memory exits).
 * A NULL input is treated as "".
 */
#ifndef BENCHGEN_ESCAPE_H
#define BENCHGEN_ESCAPE_H

#include <stddef.h>

#include "base/util.h"

/* HTML text and attribute values: & < > " ' become entities; control
 * characters other than tab and newline become U+FFFD. */
int escape_html(struct strbuf *sb, const char *s);

/* GitHub-flavoured Markdown, inline text and table cells: backslash-escapes
 * every character that could start markup, an HTML tag or an entity, and the
 * table separator '|'; newlines become spaces so a value never breaks a row. */
int escape_md(struct strbuf *sb, const char *s);

/* A fenced code block holding s verbatim: the fence is one backtick longer
 * than the longest run of backticks in s, so s cannot close it. */
int escape_md_code(struct strbuf *sb, const char *s, const char *info);

/* Pango markup (g_markup_escape_text rules). */
int escape_pango(struct strbuf *sb, const char *s);

/* A cell string for the workbook: characters XML 1.0 forbids are replaced by
 * U+FFFD (libxlsxwriter escapes & < > itself), invalid UTF-8 is replaced too,
 * and a text longer than Excel's 32,767-character cell limit is cut to fit
 * with a note saying how long it was. */
char *escape_xlsx(const char *s);

/* File-name component: [A-Za-z0-9._-] kept, anything else becomes '_';
 * never empty, never "." or "..". */
char *escape_filename(const char *s);

/* Text for a terminal or a log line: control characters (C0, DEL and C1
 * such as U+009B, the CSI that starts terminal commands) and invalid UTF-8
 * bytes become \n, \t, \r, \xHH or \u00HH, and a backslash becomes \\,
 * so a stored or archived name can never move the cursor, recolour the
 * screen or fake a line of output, and the escaped text is unambiguous.
 * escape_terminal_dup() returns a malloc'd copy (never NULL: out of memory exits). */
int escape_terminal(struct strbuf *sb, const char *s);
char *escape_terminal_dup(const char *s);
/* escape_terminal_dup(s) kept in keep (the caller frees keep once the
 * output is written), for a printf argument: every string a run stored
 * goes through it on its way to a terminal (show, compare). */
const char *escape_terminal_keep(struct strlist *keep, const char *s);

#endif /* BENCHGEN_ESCAPE_H */
