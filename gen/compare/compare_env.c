/*
 * compare_env.c - environment keys, intent and differences for `benchgen
 * compare` (see compare_env.h and docs/COMPARE.md).
 */
#include "compare/compare_env.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* ---- environment keys ---------------------------------------------------- */

/* Keys that describe where or how a run happened rather than what it ran on:
 * they differ between any two runs (paths, host names, serial numbers,
 * momentary clocks) and are shown but never counted as a component change. */
static const char *const informational_[] = {
    "python.executable", "python.prefix", "os.hostname", "os.kernel_version", "benchgen.git_commit",
    "benchgen.git_dirty", "gpu.*.uuid", "gpu.*.pci_bus_id", "gpu.*.sm_clock_khz", "gpu.*.mem_clock_khz",
    "gpu.status", "nvml.status", "cuda.linked", "cudnn.library", "cudnn.cudart", "mem.total_bytes",
    "mem.cgroup_limit_bytes", "pkg.pip", "pkg.setuptools", "pkg.wheel",
    "run.*", /* how the run was asked for (run.with: the pins, i.e. the intent itself) */
};

bool compare_env_counted(const char *key)
{
    for (size_t i = 0; i < sizeof(informational_) / sizeof(*informational_); i++)
        if (fnmatch(informational_[i], key, 0) == 0)
            return false;
    return true;
}

/* PEP 503 form of a package name: lower case, runs of "-_." as one '-'. */
static void pkg_normalise_(const char *s, char *out, size_t n)
{
    size_t k = 0;
    bool sep = false;
    for (; *s && k + 1 < n; s++) {
        if (*s == '-' || *s == '_' || *s == '.') {
            sep = true;
            continue;
        }
        if (sep && k > 0 && k + 2 < n)
            out[k++] = '-';
        sep = false;
        out[k++] = (char)tolower((unsigned char)*s);
    }
    out[k] = '\0';
}

/* A pattern names a package ("diffusers", "nvidia-*", "pkg.torch") or any
 * other key ("cuda.runtime", "gpu.*"). */
static bool intent_matches_(const char *pattern, const char *key)
{
    if (strncmp(key, "pkg.", 4) == 0) {
        char name[256], pat[256];
        pkg_normalise_(key + 4, name, sizeof(name));
        pkg_normalise_(strncmp(pattern, "pkg.", 4) == 0 ? pattern + 4 : pattern, pat, sizeof(pat));
        if (fnmatch(pat, name, 0) == 0)
            return true;
    }
    return fnmatch(pattern, key, 0) == 0;
}

/* "diffusers" for "pkg.diffusers"; other keys as they are. */
const char *compare_env_display_key(const char *key)
{
    return strncmp(key, "pkg.", 4) == 0 ? key + 4 : key;
}

int compare_env_add_pattern(char ***pats, size_t *npats, const char *s, size_t n)
{
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < (*npats); i++)
        if (strlen((*pats)[i]) == n && strncmp((*pats)[i], s, n) == 0)
            return 0;
    *pats = xrealloc(*pats, (*npats + 1) * sizeof(**pats));
    (*pats)[(*npats)++] = xstrndup(s, n);
    return 0;
}

int compare_env_add_patterns(char ***pats, size_t *npats, const char *list)
{
    int err = 0;
    while (list && *list && !err) {
        const char *comma = strchr(list, ',');
        size_t n = comma ? (size_t)(comma - list) : strlen(list);
        err = compare_env_add_pattern(pats, npats, list, n);
        list = comma ? comma + 1 : NULL;
    }
    return err;
}

/* The packages a run pinned with `--with PKG==VER` (or --with=PKG==VER). */
int compare_env_add_with_pins(char ***pats, size_t *npats, const char *command_line)
{
    const char *s = command_line;
    int err = 0;
    while (s && *s && !err) {
        while (*s == ' ')
            s++;
        const char *end = s;
        while (*end && *end != ' ')
            end++;
        const char *pin = NULL;
        if ((size_t)(end - s) == 6 && strncmp(s, "--with", 6) == 0) {
            pin = end;
            while (*pin == ' ')
                pin++;
            end = pin;
            while (*end && *end != ' ')
                end++;
        } else if (end - s > 7 && strncmp(s, "--with=", 7) == 0) {
            pin = s + 7;
        }
        if (pin) {
            const char *eq = pin;
            while (eq < end && !(eq[0] == '=' && eq + 1 < end && eq[1] == '='))
                eq++;
            const char *q = pin;
            if (*q == '\'' || *q == '"')
                q++;
            if (eq < end && eq > q)
                err = compare_env_add_pattern(pats, npats, q, (size_t)(eq - q));
        }
        s = end;
    }
    return err;
}

/* ---- environment differences --------------------------------------------- */

static int push_change_(struct compare_change **v, size_t *n, const char *key, const char *a, const char *b)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    struct compare_change *c = &(*v)[*n];
    memset(c, 0, sizeof(*c));
    c->key = xstrdup(key);
    c->a = a ? xstrdup(a) : NULL;
    c->b = b ? xstrdup(b) : NULL;
    (*n)++;
    c->counted = compare_env_counted(key);
    return 0;
}

static int cmp_change_(const void *x, const void *y)
{
    return strcmp(((const struct compare_change *)x)->key, ((const struct compare_change *)y)->key);
}

/* Every value of key in kl, joined with ", " (a key may repeat: run.with
 * holds one pin per value); NULL when absent. *oom on allocation failure. */
static char *joined_(const struct kvlist *kl, const char *key)
{
    struct strbuf sb = {0};
    bool found = false;
    for (size_t i = 0; i < kl->n; i++) {
        if (strcmp(kl->items[i].key, key) != 0)
            continue;
        if (found)
            strbuf_puts(&sb, ", ");
        strbuf_puts(&sb, kl->items[i].value ? kl->items[i].value : "");
        found = true;
    }
    if (!found) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_detach(&sb); /* plain appends cannot fail: never NULL */
}

/* Every key whose value(s) differ between a and b, sorted by key. */
int compare_env_diff(const struct kvlist *a, const struct kvlist *b, struct compare_change **out, size_t *n)
{
    int err = 0;
    for (int side = 0; side < 2 && !err; side++) {
        const struct kvlist *x = side ? b : a, *y = side ? a : b;
        for (size_t i = 0; i < x->n && !err; i++) {
            const char *k = x->items[i].key;
            bool first = true;
            for (size_t j = 0; j < i && first; j++) /* a repeated key: once */
                first = strcmp(x->items[j].key, k) != 0;
            if (!first || (side == 1 && kvlist_get(y, k))) /* the second pass adds what a lacks */
                continue;
            char *vx = joined_(x, k), *vy = joined_(y, k);
            if (!vy || strcmp(vx, vy) != 0)
                err = side ? push_change_(out, n, k, vy, vx) : push_change_(out, n, k, vx, vy);
            free(vx);
            free(vy);
        }
    }
    if (!err && *n > 1)
        qsort(*out, *n, sizeof(**out), cmp_change_);
    return err;
}

void compare_env_mark_intended(struct compare_change *c, size_t n, char *const *pats, size_t npats)
{
    for (size_t i = 0; i < n; i++) {
        c[i].intended = false;
        for (size_t k = 0; c[i].counted && k < npats && !c[i].intended; k++)
            c[i].intended = intent_matches_(pats[k], c[i].key);
    }
}

void compare_env_changes_free(struct compare_change *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].key);
        free(c[i].a);
        free(c[i].b);
    }
    free(c);
}

int compare_env_describe_change(struct strbuf *sb, const struct compare_change *c)
{
    return strbuf_printf(sb, "%s %s -> %s", compare_env_display_key(c->key), c->a ? c->a : "(none)",
                         c->b ? c->b : "(none)");
}
