/*
 * status.h - the final status of a cell as an enum. run.db, attempt files
 * and JSON carry the names (catalog_statuses in catalog.h, in this order);
 * code compares the enum, never the strings.
 */
#ifndef BENCHGEN_STATUS_H
#define BENCHGEN_STATUS_H

enum status {
    STATUS_NONE = 0, /* no final status yet (never ran, or in flight) */
    STATUS_OK,
    STATUS_ERROR,
    STATUS_CRASH,
    STATUS_TIMEOUT,
    STATUS_OOM,
    STATUS_UNSUPPORTED,
    STATUS_SKIPPED,
    STATUS_INTERRUPTED,
    STATUS_COUNT
};

/* "ok" -> STATUS_OK; NULL or "" -> STATUS_NONE; -1 for a name that is no status. */
int status_parse(const char *name);

/* The stored name ("ok"); "" for STATUS_NONE and anything out of range. */
const char *status_name(enum status s);

#endif /* BENCHGEN_STATUS_H */
