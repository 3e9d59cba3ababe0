/*
 * status.c - status names <-> enum status (see status.h). The names are
 * catalog_statuses, whose order is the enum's (tests/unit/test_matrix.c).
 */
#include "plan/status.h"
#include "plan/catalog.h"

#include <string.h>

int status_parse(const char *name)
{
    if (!name || !*name)
        return STATUS_NONE;
    for (int i = 0; catalog_statuses[i]; i++)
        if (!strcmp(catalog_statuses[i], name))
            return i + 1;
    return -1;
}

const char *status_name(enum status s)
{
    if (s <= STATUS_NONE || s >= STATUS_COUNT)
        return "";
    return catalog_statuses[s - 1];
}
