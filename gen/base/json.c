/*
 * json.c - the one JSON writer (see json.h).
 */
#include "base/json.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JSON_FLAGS (JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15))

/* jansson allocates through the x-family (base/xalloc.h): the one policy,
 * so a jansson constructor returns NULL only for what it refuses (text that
 * is not UTF-8, a bad json_pack format), never because memory ran out. */
__attribute__((constructor)) static void json_alloc_policy(void)
{
    json_set_alloc_funcs(xmalloc, free);
}

/* Length of the UTF-8 sequence a lead byte starts; 0 when it cannot lead. */
static size_t utf8_len(unsigned c)
{
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0)
        return 2;
    if ((c & 0xf0) == 0xe0)
        return 3;
    if ((c & 0xf8) == 0xf0)
        return 4;
    return 0;
}

char *json_utf8_clean(const char *s)
{
    struct strbuf sb = {0};
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = p[0];
        size_t len = utf8_len(c);
        bool ok = len > 0;
        uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
        for (size_t i = 1; ok && i < len; i++) {
            if ((p[i] & 0xc0) != 0x80)
                ok = false;
            else
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (ok && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
                   cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)))
            ok = false;
        if (ok) {
            strbuf_append(&sb, (const char *)p, len);
            p += len;
        } else {
            strbuf_puts(&sb, "\xef\xbf\xbd");
            p++;
        }
    }
    return strbuf_detach(&sb); /* appends cannot fail: never NULL */
}

json_t *json_str(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    char *clean = json_utf8_clean(s);
    j = clean ? json_string(clean) : NULL;
    free(clean);
    return j;
}

json_t *json_num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

void json_put(json_t *o, const char *key, json_t *v, int *err)
{
    char *k = (*err || !v) ? NULL : json_utf8_clean(key);
    int rc = -1;
    if (k)
        rc = json_object_set_new(o, k, v); /* takes v, even on failure */
    else
        json_decref(v);
    free(k);
    if (rc != 0 && !*err)
        *err = error_set(BG_EGENERIC, "cannot build JSON: jansson refused the value of '%s'", key);
}

void json_push(json_t *a, json_t *v, int *err)
{
    if (*err) {
        json_decref(v);
        return;
    }
    if (!v || json_array_append_new(a, v) != 0) /* takes v, even on failure */
        *err = error_set(BG_EGENERIC, "cannot build JSON: jansson refused an array element");
}

char *json_text(const json_t *root)
{
    char *s = json_dumps(root, JSON_FLAGS);
    char *t = s ? xprintf("%s\n", s) : NULL;
    free(s);
    if (!t)
        error_set(BG_EGENERIC, "cannot write JSON: jansson refused the document");
    return t;
}

char *json_line(const json_t *root)
{
    char *s = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
    char *t = s ? xprintf("%s\n", s) : NULL;
    free(s);
    if (!t)
        error_set(BG_EGENERIC, "cannot write JSON: jansson refused the event");
    return t;
}

int json_write(const json_t *root, FILE *out)
{
    if (json_dumpf(root, out, JSON_FLAGS) != 0 || fputc('\n', out) == EOF || ferror(out))
        return error_set(BG_EIO, "cannot write JSON");
    return 0;
}

json_t *json_kvmap(const struct kvlist *kl, int *err)
{
    json_t *o = json_object(); /* NULL: the caller's json_put() records the failure */
    for (size_t i = 0; !*err && i < kl->n; i++)
        json_put(o, kl->items[i].key, json_str(kl->items[i].value), err);
    return o;
}
