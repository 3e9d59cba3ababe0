/*
 * spec_node.c - typed YAML node checks for the spec parser (see spec_node.h).
 */
#include "plan/spec_node.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"
#include "plan/catalog.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ------------------------------------------------------------ */

int node_fail_at(const struct spec_ctx *c, size_t line0, size_t col0, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return error_set(BG_ESPEC, "%s:%zu:%zu: %s", c->path, line0 + 1, col0 + 1, msg);
}

const char *node_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* How a node looks in a message: 'text' (cut short) for scalars, else its
 * kind. For type errors a quoted scalar says so: "10" is why an integer
 * field refused what looks like 10. */
const char *node_describe(const yaml_node_t *n, char buf[96], bool type_error)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    if (n->type == YAML_MAPPING_NODE)
        return "a map";
    const char *s = node_scalar(n);
    size_t len = n->data.scalar.length;
    char shown[64];
    size_t k = 0;
    for (size_t i = 0; i < len && k < 48; i++)
        shown[k++] = (s[i] == '\n' || s[i] == '\t') ? ' ' : s[i];
    shown[k] = '\0';
    if (!type_error || n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        snprintf(buf, 96, "'%s%s'", shown, k < len ? "..." : "");
    else
        snprintf(buf, 96, "the quoted string \"%s%s\"", shown, k < len ? "..." : "");
    return buf;
}

/* "a, b, c" from the first n names, or up to a NULL entry. */
const char *node_join(char *buf, size_t cap, const char *const *names, size_t n)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && names[i]; i++)
        off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "%s%s", i ? ", " : "", names[i]);
    return buf;
}

/* libyaml counts lines and columns itself, except for reader (encoding)
 * errors, which only give a byte offset. */
static void node_offset_to_mark(const char *text, size_t len, size_t off, size_t *line, size_t *col)
{
    *line = *col = 0;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 0;
        } else {
            (*col)++;
        }
    }
}

int node_syntax_error(const struct spec_ctx *c, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR)
        return error_set(BG_ENOMEM, "out of memory");
    size_t line = p->problem_mark.line, col = p->problem_mark.column;
    if (p->error == YAML_READER_ERROR)
        node_offset_to_mark(c->text, c->len, p->problem_offset, &line, &col);
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->context)
        return node_fail_at(c, line, col, "YAML syntax error: %s (%s at line %zu, column %zu)", problem,
                       p->context, p->context_mark.line + 1, p->context_mark.column + 1);
    return node_fail_at(c, line, col, "YAML syntax error: %s", problem);
}

/* ---- scalars ------------------------------------------------------------- */

static bool node_is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* YAML 1.2 core-schema decimal integer: [-+]?[0-9]+ */
static bool node_looks_int(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* [-+]?(digits[.digits*] | .digits)([eE][-+]?digits)? - no inf, nan or hex. */
static bool node_looks_number(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    size_t digits = 0;
    while (*s >= '0' && *s <= '9')
        s++, digits++;
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9')
            s++, digits++;
    }
    if (!digits)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        if (*s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

bool node_is_null(const yaml_node_t *n)
{
    const char *s = node_scalar(n);
    return node_is_plain(n) && (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
                           strcmp(s, "NULL") == 0);
}

int node_get_int(const struct spec_ctx *c, const char *key, const yaml_node_t *n, int min, int *out)
{
    char buf[96];
    const char *s = node_scalar(n);
    if (!s || !node_is_plain(n) || !node_looks_int(s))
        return FAIL(c, n, "%s: expected an integer, got %s", key, node_describe(n, buf, true));
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
        return FAIL(c, n, "%s: %s is out of range", key, s);
    if (v < min)
        return FAIL(c, n, "%s: must be >= %d, got %lld", key, min, v);
    *out = (int)v;
    return 0;
}

int node_get_u64(const struct spec_ctx *c, const char *key, const yaml_node_t *n, uint64_t *out)
{
    char buf[96];
    const char *s = node_scalar(n);
    if (!s || !node_is_plain(n) || !node_looks_int(s))
        return FAIL(c, n, "%s: expected an integer, got %s", key, node_describe(n, buf, true));
    if (*s == '-') {
        bool zero = strspn(s + 1, "0") == strlen(s + 1);
        if (!zero)
            return FAIL(c, n, "%s: must be >= 0, got %s", key, s);
    }
    errno = 0;
    unsigned long long v = strtoull(*s == '-' ? "0" : s, NULL, 10);
    if (errno == ERANGE)
        return FAIL(c, n, "%s: %s is out of range (largest is %llu)", key, s, (unsigned long long)UINT64_MAX);
    *out = (uint64_t)v;
    return 0;
}

/* A positive number of seconds. */
int node_get_seconds(const struct spec_ctx *c, const char *key, const yaml_node_t *n, double *out)
{
    char buf[96];
    const char *s = node_scalar(n);
    if (!s || !node_is_plain(n) || !node_looks_number(s))
        return FAIL(c, n, "%s: expected a number of seconds, got %s", key, node_describe(n, buf, true));
    double v = strtod(s, NULL);
    if (!isfinite(v))
        return FAIL(c, n, "%s: %s is out of range", key, s);
    if (v <= 0)
        return FAIL(c, n, "%s: must be > 0, got %s", key, s);
    *out = v;
    return 0;
}

int node_get_string(const struct spec_ctx *c, const char *key, const yaml_node_t *n, char **out)
{
    char buf[96];
    if (n->type != YAML_SCALAR_NODE || node_is_null(n))
        return FAIL(c, n, "%s: expected a string, got %s", key,
                    node_is_null(n) ? "nothing" : node_describe(n, buf, true));
    char *s = xstrdup(node_scalar(n));
    free(*out);
    *out = s;
    return 0;
}

int node_get_enum(const struct spec_ctx *c, const char *key, const yaml_node_t *n, const char *const *allowed,
                    char **out)
{
    char buf[96], list[256];
    const char *s = node_scalar(n);
    if (s && !node_is_null(n))
        for (size_t i = 0; allowed[i]; i++)
            if (strcmp(s, allowed[i]) == 0)
                return node_get_string(c, key, n, out);
    return FAIL(c, n, "%s: expected one of %s, got %s", key, node_join(list, sizeof(list), allowed, SIZE_MAX),
                node_is_null(n) ? "nothing" : node_describe(n, buf, false));
}

int node_get_safe_name(const struct spec_ctx *c, const char *key, const yaml_node_t *n, char **out)
{
    int err = node_get_string(c, key, n, out);
    if (err < 0)
        return err;
    if (!util_is_safe_name(*out)) {
        char buf[96];
        return FAIL(c, n, "%s: %s is not a valid name (letters, digits and . _ + - only)", key,
                    node_describe(n, buf, false));
    }
    return 0;
}

/* ---- maps ---------------------------------------------------------------- */


/* Files every pair of map under the allowed key it names; rejects keys that
 * are not scalars, unknown keys and keys given twice. */
int node_map_collect(const struct spec_ctx *c, const yaml_node_t *map, const char *what,
                       const char *const *allowed, struct node_field *fields)
{
    char buf[96], list[512];
    for (size_t i = 0; allowed[i]; i++)
        fields[i].key = fields[i].value = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        const char *name = node_scalar(k);
        if (!name)
            return FAIL(c, k, "%s: keys must be plain names, got %s", what, node_describe(k, buf, false));
        size_t i = 0;
        while (allowed[i] && strcmp(allowed[i], name) != 0)
            i++;
        if (!allowed[i])
            return FAIL(c, k, "unknown key '%s' in %s (allowed: %s)", name, what,
                        node_join(list, sizeof(list), allowed, SIZE_MAX));
        if (fields[i].key)
            return FAIL(c, k, "duplicate key '%s' (first at line %zu, column %zu)", name,
                        fields[i].key->start_mark.line + 1, fields[i].key->start_mark.column + 1);
        fields[i].key = k;
        fields[i].value = v;
    }
    return 0;
}

int node_require(const struct spec_ctx *c, const yaml_node_t *map, const char *what, const char *const *names,
                   const struct node_field *fields, const int *required, size_t nrequired)
{
    for (size_t i = 0; i < nrequired; i++)
        if (!fields[required[i]].key)
            return FAIL(c, map, "%s: missing required key '%s'", what, names[required[i]]);
    return 0;
}

/* For maps whose keys are data (warmup, envs): fails when an earlier pair has the same key. */
int node_unique_key(const struct spec_ctx *c, const yaml_node_t *map, const yaml_node_pair_t *pair)
{
    yaml_node_t *key = yaml_document_get_node(c->doc, pair->key);
    const char *name = node_scalar(key);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; name && p < pair; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        if (node_scalar(k) && strcmp(node_scalar(k), name) == 0)
            return FAIL(c, key, "duplicate key '%s' (first at line %zu, column %zu)", name,
                        k->start_mark.line + 1, k->start_mark.column + 1);
    }
    return 0;
}

int node_each_backend(const struct spec_ctx *c, const char *what, const yaml_node_t *map,
                      node_backend_value_fn value, void *arg)
{
    char buf[96], key[128];
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        const char *name = node_scalar(k);
        int err;
        if (!name || (strcmp(name, "default") != 0 && !catalog_backend_find(name)))
            return FAIL(c, k, "%s: unknown key %s (allowed: default, %s)", what, node_describe(k, buf, false),
                        catalog_backend_names());
        if ((err = node_unique_key(c, map, p)) < 0)
            return err;
        snprintf(key, sizeof(key), "%s.%s", what, name);
        bool dflt = strcmp(name, "default") == 0;
        if ((err = value(c, key, yaml_document_get_node(c->doc, p->value), dflt ? NULL : name, arg)) < 0)
            return err;
    }
    return 0;
}
