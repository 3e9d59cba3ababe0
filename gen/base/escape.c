/*
 * escape.c - per-format escaping of untrusted text (see escape.h).
 *
 * Every escaper first decodes UTF-8 so that a stray byte in a traceback can
 * never produce an invalid document: readers such as LibreOffice refuse a
 * workbook with malformed UTF-8, and browsers show mojibake.
 */
#include "base/escape.h"
#include "base/xalloc.h"
#include "base/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD"
#define XLSX_MAX_CELL 32767
#define XLSX_NOTE_ROOM 96 /* " ... [truncated: N of N characters shown]" */

/* Decodes one code point at s (n bytes left). Returns its length in bytes
 * and sets *cp, or returns 1 with *cp = -1 for an invalid sequence. */
static size_t utf8_next(const unsigned char *s, size_t n, int32_t *cp)
{
    unsigned c = s[0];
    size_t len;
    int32_t v;
    if (c < 0x80) {
        *cp = (int32_t)c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07;
    } else {
        *cp = -1;
        return 1;
    }
    if (len > n) {
        *cp = -1;
        return 1;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *cp = -1;
            return 1;
        }
        v = (v << 6) | (s[i] & 0x3F);
    }
    /* overlong forms, surrogates and values past U+10FFFF */
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v <= 0xDFFF)) {
        *cp = -1;
        return 1;
    }
    *cp = v;
    return len;
}

/* Walks s, calling emit for each code point with its bytes. */
typedef int (*emit_fn)(struct strbuf *sb, int32_t cp, const char *bytes, size_t len, size_t pos);

static int walk(struct strbuf *sb, const char *s, emit_fn emit)
{
    int err = strbuf_append(sb, "", 0);
    if (err < 0 || !s)
        return err;
    size_t n = strlen(s), i = 0;
    while (i < n) {
        int32_t cp;
        size_t len = utf8_next((const unsigned char *)s + i, n - i, &cp);
        if (cp < 0)
            err = emit(sb, -1, REPLACEMENT, 3, i);
        else
            err = emit(sb, cp, s + i, len, i);
        if (err < 0)
            return err;
        i += len;
    }
    return 0;
}

static int is_control(int32_t cp)
{
    return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F || cp == 0xFFFE ||
           cp == 0xFFFF;
}

/* ---- HTML --------------------------------------------------------------- */

/* XML-family markup (HTML, pango): the five special characters as entities,
 * controls and CR replaced. apos is the apostrophe's entity, the one thing
 * the two disagree on. */
static int emit_markup(struct strbuf *sb, int32_t cp, const char *b, size_t len, const char *apos)
{
    switch (cp) {
    case '&': return strbuf_puts(sb, "&amp;");
    case '<': return strbuf_puts(sb, "&lt;");
    case '>': return strbuf_puts(sb, "&gt;");
    case '"': return strbuf_puts(sb, "&quot;");
    case '\'': return strbuf_puts(sb, apos);
    default:
        if (is_control(cp) || cp == '\r')
            return strbuf_puts(sb, REPLACEMENT);
        return strbuf_append(sb, b, len);
    }
}

static int emit_html(struct strbuf *sb, int32_t cp, const char *b, size_t len, size_t pos)
{
    (void)pos;
    return emit_markup(sb, cp, b, len, "&#39;");
}

int escape_html(struct strbuf *sb, const char *s) { return walk(sb, s, emit_html); }

/* ---- Markdown ----------------------------------------------------------- */

static int emit_md(struct strbuf *sb, int32_t cp, const char *b, size_t len, size_t pos)
{
    /* Characters that start emphasis, code, links, images, HTML, entities,
     * strikethrough, math, headings or break a table row anywhere in a line. */
    static const char anywhere[] = "\\`*_[]<>|&~#!$";
    /* Characters that only matter at the start of a block (lists, quotes,
     * setext headings); values are written inline, so only position 0. */
    static const char at_start[] = "-+=:";
    if (cp == '\n' || cp == '\r' || cp == '\t')
        return strbuf_puts(sb, " ");
    if (is_control(cp))
        return strbuf_puts(sb, REPLACEMENT);
    if (cp > 0 && cp < 0x80 && (strchr(anywhere, (int)cp) || (pos == 0 && strchr(at_start, (int)cp)))) {
        int err = strbuf_puts(sb, "\\");
        if (err < 0)
            return err;
    }
    return strbuf_append(sb, b, len);
}

int escape_md(struct strbuf *sb, const char *s)
{
    /* "1. " or "1) " at the start of a paragraph would become an ordered list */
    size_t digits = 0;
    while (s && s[digits] >= '0' && s[digits] <= '9')
        digits++;
    if (digits > 0 && (s[digits] == '.' || s[digits] == ')') &&
        (s[digits + 1] == ' ' || s[digits + 1] == '\t' || s[digits + 1] == '\0')) {
        int err = strbuf_append(sb, s, digits);
        if (err == 0)
            err = strbuf_puts(sb, "\\");
        return err < 0 ? err : walk(sb, s + digits, emit_md);
    }
    return walk(sb, s, emit_md);
}

static int emit_verbatim(struct strbuf *sb, int32_t cp, const char *b, size_t len, size_t pos)
{
    (void)pos;
    if (is_control(cp) || cp == '\r')
        return strbuf_puts(sb, REPLACEMENT);
    return strbuf_append(sb, b, len);
}

int escape_md_code(struct strbuf *sb, const char *s, const char *info)
{
    size_t longest = 0, run = 0;
    for (const char *p = s ? s : ""; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fence = longest < 3 ? 3 : longest + 1;
    int err = 0;
    for (size_t i = 0; i < fence && err == 0; i++)
        err = strbuf_puts(sb, "`");
    if (err == 0 && info)
        err = strbuf_puts(sb, info);
    if (err == 0)
        err = strbuf_puts(sb, "\n");
    if (err == 0)
        err = walk(sb, s, emit_verbatim);
    if (err == 0 && sb->len && sb->buf[sb->len - 1] != '\n')
        err = strbuf_puts(sb, "\n");
    for (size_t i = 0; i < fence && err == 0; i++)
        err = strbuf_puts(sb, "`");
    if (err == 0)
        err = strbuf_puts(sb, "\n");
    return err;
}

/* ---- pango markup ------------------------------------------------------- */

static int emit_pango(struct strbuf *sb, int32_t cp, const char *b, size_t len, size_t pos)
{
    (void)pos;
    return emit_markup(sb, cp, b, len, "&apos;");
}

int escape_pango(struct strbuf *sb, const char *s) { return walk(sb, s, emit_pango); }

/* ---- XLSX / plain UTF-8 ------------------------------------------------- */

static int emit_xml_text(struct strbuf *sb, int32_t cp, const char *b, size_t len, size_t pos)
{
    (void)pos;
    if (is_control(cp))
        return strbuf_puts(sb, REPLACEMENT);
    return strbuf_append(sb, b, len);
}

char *escape_xlsx(const char *s)
{
    struct strbuf sb = {0};
    walk(&sb, s, emit_xml_text); /* appends only, to a fresh strbuf: nothing can fail but memory, which exits */
    /* Excel counts UTF-16 units; a longer text is cut at a code point
     * boundary with room left for a note saying so, which keeps the cell
     * valid and below the limit. */
    size_t chars = 0, i = 0, cut = 0, cut_chars = 0;
    while (i < sb.len) {
        unsigned char c = (unsigned char)sb.buf[i];
        size_t step = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        size_t units = step == 4 ? 2 : 1;
        if (chars + units <= XLSX_MAX_CELL - XLSX_NOTE_ROOM) {
            cut = i + step;
            cut_chars = chars + units;
        }
        chars += units;
        i += step;
    }
    if (chars > XLSX_MAX_CELL) {
        sb.len = cut;
        sb.buf[cut] = '\0';
        strbuf_printf(&sb, " \xE2\x80\xA6 [truncated: %zu of %zu characters shown]", cut_chars, chars);
    }
    return strbuf_detach(&sb);
}

char *escape_filename(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > 120)
        n = 120;
    char *out = xmalloc(n + 2);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '_' || c == '-';
        out[i] = ok ? c : '_';
    }
    out[n] = '\0';
    if (n == 0 || strcmp(out, ".") == 0 || strcmp(out, "..") == 0) {
        out[0] = '_';
        out[1] = '\0';
    }
    return out;
}

int escape_terminal(struct strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    int err = 0;
    while (!err && n) {
        int32_t cp;
        size_t len = utf8_next(p, n, &cp);
        if (cp == '\n')
            err = strbuf_puts(sb, "\\n");
        else if (cp == '\t')
            err = strbuf_puts(sb, "\\t");
        else if (cp == '\r')
            err = strbuf_puts(sb, "\\r");
        else if (cp == '\\')
            err = strbuf_puts(sb, "\\\\");
        else if (cp < 0 || cp < 0x20 || cp == 0x7F)
            err = strbuf_printf(sb, "\\x%02x", p[0]);
        else if (cp >= 0x80 && cp <= 0x9F) /* C1 controls, e.g. U+009B (CSI) */
            err = strbuf_printf(sb, "\\u%04x", (unsigned)cp);
        else
            err = strbuf_append(sb, (const char *)p, len);
        p += len;
        n -= len;
    }
    return err;
}

char *escape_terminal_dup(const char *s)
{
    struct strbuf sb = {0};
    if (escape_terminal(&sb, s) < 0) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

const char *escape_terminal_keep(struct strlist *keep, const char *s)
{
    char *e = escape_terminal_dup(s);
    strlist_add(keep, e ? e : "?"); /* x-family: never fails */
    free(e);
    return keep->v[keep->n - 1];
}
