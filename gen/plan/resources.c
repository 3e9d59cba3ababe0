/*
 * resources.c - a cell's cluster resources from the spec (see resources.h).
 */
#include "plan/resources.h"
#include "plan/spec_node.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

const char *const resources_keys[] = {"partition", "gpus", "cpus", "mem", "time", NULL};

bool resources_is_key(const char *name)
{
    for (size_t i = 0; name && resources_keys[i]; i++)
        if (strcmp(resources_keys[i], name) == 0)
            return true;
    return false;
}

/* Slurm's --mem: a whole number with an optional K, M, G or T suffix. */
static bool mem_ok(const char *s)
{
    size_t n = strspn(s, "0123456789");
    return n > 0 && (s[n] == '\0' || (strchr("KMGTkmgt", s[n]) && s[n + 1] == '\0'));
}

/* Slurm's --time: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS". */
static bool time_ok(const char *s)
{
    if (!*s || strspn(s, "0123456789-:") != strlen(s) || strchr(s, '-') != strrchr(s, '-'))
        return false;
    int colons = 0;
    for (const char *p = s; *p; p++)
        colons += *p == ':';
    return colons <= 2 && s[0] != '-' && s[0] != ':' && s[strlen(s) - 1] != ':' && s[strlen(s) - 1] != '-';
}

const char *resources_check(const char *key, const char *value)
{
    if (!strcmp(key, "partition") && !util_is_safe_name(value))
        return "is not a partition name (letters, digits and . _ + - only)";
    if (!strcmp(key, "mem") && !mem_ok(value))
        return "is not a Slurm memory size (e.g. 64G, 512M)";
    if (!strcmp(key, "time") && !time_ok(value))
        return "is not a Slurm time limit (MM, HH:MM:SS or D-HH:MM:SS)";
    return NULL;
}

int resources_set(const struct spec_ctx *c, struct resources *r, const char *key, const char *what,
                  const yaml_node_t *v)
{
    char buf[96];
    if (!strcmp(key, "gpus")) {
        int err = node_get_int(c, what, v, 0, &r->gpus);
        if (err == 0 && r->gpus == 0)
            r->gpus = RESOURCES_NO_GPU;
        return err;
    }
    if (!strcmp(key, "cpus"))
        return node_get_int(c, what, v, 1, &r->cpus);
    const char *s = node_scalar(v);
    if (!s || !*s || v->type != YAML_SCALAR_NODE)
        return FAIL(c, v, "%s: expected text, got %s", what, node_describe(v, buf, true));
    char **slot = !strcmp(key, "partition") ? &r->partition : !strcmp(key, "mem") ? &r->mem : &r->time;
    const char *bad = resources_check(key, s);
    if (bad)
        return FAIL(c, v, "%s: '%s' %s", what, s, bad);
    char *copy = xstrdup(s);
    free(*slot);
    *slot = copy;
    return 0;
}

int resources_parse(const struct spec_ctx *c, const yaml_node_t *map, const char *what, struct resources *r)
{
    char buf[96], key[160], list[160];
    if (map->type != YAML_MAPPING_NODE)
        return FAIL(c, map, "%s: expected a map {partition: P, gpus: N, cpus: N, mem: SIZE, time: LIMIT}, got %s",
                    what, node_describe(map, buf, true));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        const char *name = node_scalar(k);
        int err;
        if (!resources_is_key(name))
            return FAIL(c, k, "%s: unknown key %s (allowed: %s)", what, node_describe(k, buf, false),
                        node_join(list, sizeof(list), resources_keys, 5));
        if ((err = node_unique_key(c, map, p)) < 0)
            return err;
        snprintf(key, sizeof(key), "%s.%s", what, name);
        err = resources_set(c, r, name, key, v);
        if (err < 0)
            return err;
    }
    return 0;
}

static int copy_str(char **into, const char *over)
{
    if (!over)
        return 0;
    char *s = xstrdup(over);
    free(*into);
    *into = s;
    return 0;
}

int resources_overlay(struct resources *into, const struct resources *over)
{
    int err;
    if ((err = copy_str(&into->partition, over->partition)) < 0 || (err = copy_str(&into->mem, over->mem)) < 0 ||
        (err = copy_str(&into->time, over->time)) < 0)
        return err;
    if (over->gpus != 0)
        into->gpus = over->gpus;
    if (over->cpus > 0)
        into->cpus = over->cpus;
    return 0;
}

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

bool resources_equal(const struct resources *a, const struct resources *b)
{
    return same_str(a->partition, b->partition) && a->gpus == b->gpus && a->cpus == b->cpus &&
           same_str(a->mem, b->mem) && same_str(a->time, b->time);
}

void resources_free(struct resources *r)
{
    free(r->partition);
    free(r->mem);
    free(r->time);
    memset(r, 0, sizeof(*r));
}
