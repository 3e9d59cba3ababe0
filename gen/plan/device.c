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

int device_parse_spec(const struct spec_ctx *c, const yaml_node_t *n, char **out, struct kvlist *by_backend)
{
    char buf[96], key[128];
    if (n->type == YAML_SCALAR_NODE)
        return node_get_enum(c, "device", n, device_values, out);
    if (n->type != YAML_MAPPING_NODE)
        return FAIL(c, n, "device: expected gpu, cpu, auto or a map {default: D, <backend>: D}, got %s",
                    node_describe(n, buf, true));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        const char *name = node_scalar(k);
        int err;
        if (!name || (strcmp(name, "default") != 0 && !catalog_backend_find(name)))
            return FAIL(c, k, "device: unknown key %s (allowed: default, %s)", node_describe(k, buf, false),
                        catalog_backend_names());
        if ((err = node_unique_key(c, n, p)) < 0)
            return err;
        snprintf(key, sizeof(key), "device.%s", name);
        if (strcmp(name, "default") == 0) {
            err = node_get_enum(c, key, v, device_values, out);
        } else {
            char *d = NULL;
            if ((err = node_get_enum(c, key, v, device_values, &d)) == 0)
                err = kvlist_add(by_backend, name, d);
            free(d);
        }
        if (err < 0)
            return err;
    }
    return 0;
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
