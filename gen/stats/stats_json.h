/*
 * stats_json.h - a cell's statistics as JSON, one form for every document
 * that prints them (`show --json`, report.json): the fields of
 * docs/RUN-FORMAT.md "stats", in milliseconds, null for a cell with no
 * timed steps.
 */
#ifndef BENCHGEN_STATS_JSON_H
#define BENCHGEN_STATS_JSON_H

#include <jansson.h>

#include "stats/stats.h"

/* A new object (json null when st->n is 0), with base/json.h's *err contract. */
json_t *stats_json(const struct stats *st, int *err);

#endif /* BENCHGEN_STATS_JSON_H */
