/*
 * methodref.c - which measured cells compare with the published table (see
 * methodref.h).
 */
#include "report/methodref.h"

#include <stdio.h>
#include <string.h>

const char *methodref_env_2024(const char *backend)
{
    if (!backend)
        return NULL;
    if (strncmp(backend, "torch-", 6) == 0)
        return "torch-2024";
    if (strncmp(backend, "keras3-", 7) == 0)
        return "keras3-2024";
    if (strcmp(backend, "keras2-tensorflow") == 0)
        return "keras2";
    return NULL;
}

const char *methodref_differs(const struct rd_cell *cell, char *buf, size_t cap)
{
    const char *method = kvlist_get(&cell->result.facts, "method");
    const char *want = methodref_env_2024(cell->cell.backend);
    if (!method)
        snprintf(buf, cap, "method differs: the cell recorded no method (run before the published method "
                           "existed)");
    else if (strcmp(method, "published") != 0)
        snprintf(buf, cap, "method differs: ran the %s method, not published", method);
    else if (!want)
        snprintf(buf, cap, "method differs: the original had no %s backend", cell->cell.backend);
    else if (!cell->cell.env || strcmp(cell->cell.env, want) != 0)
        snprintf(buf, cap, "method differs: ran on the %s environment, not the 2024 stack (%s)",
                 cell->cell.env ? cell->cell.env : "?", want);
    else
        return NULL;
    return buf;
}
