/*
 * device.c - the spec's `device:` key and its resolution (see device.h).
 */
#include "plan/device.h"
#include "plan/catalog.h"
#include "plan/spec_node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const device_values[] = {"gpu", "cpu", "auto", NULL};

int device_parse_row(const struct spec_ctx *c, const yaml_node_t *n, char **out)
{
    return node_get_enum(c, "device", n, device_values, out);
}

struct device_spec_out {
    char **dflt;
    struct kvlist *by_backend;
};

static int device_value(const struct spec_ctx *c, const char *key, const yaml_node_t *v, const char *backend,
                        void *arg)
{
    struct device_spec_out *o = arg;
    if (!backend)
        return node_get_enum(c, key, v, device_values, o->dflt);
    char *d = NULL;
    int err = node_get_enum(c, key, v, device_values, &d);
    if (err == 0)
        err = kvlist_add(o->by_backend, backend, d);
    free(d);
    return err;
}

int device_parse_spec(const struct spec_ctx *c, const yaml_node_t *n, char **out, struct kvlist *by_backend)
{
    char buf[96];
    if (n->type == YAML_SCALAR_NODE)
        return node_get_enum(c, "device", n, device_values, out);
    if (n->type != YAML_MAPPING_NODE)
        return FAIL(c, n, "device: expected gpu, cpu, auto or a map {default: D, <backend>: D}, got %s",
                    node_describe(n, buf, true));
    struct device_spec_out o = {out, by_backend};
    return node_each_backend(c, "device", n, device_value, &o);
}

const char *device_resolve(const char *spec_value, const char *backend, int gpus)
{
    if (spec_value && strcmp(spec_value, "gpu") == 0)
        return "gpu";
    if (spec_value && strcmp(spec_value, "cpu") == 0)
        return "cpu";
    const struct catalog_backend *b = catalog_backend_find(backend);
    return gpus > 0 && !(b && b->cpu_only) ? "gpu" : "cpu";
}
