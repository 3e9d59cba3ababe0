/*
 * stats_json.c - statistics as JSON (see stats_json.h).
 */
#include "stats/stats_json.h"
#include "base/json.h"

json_t *stats_json(const struct stats *st, int *err)
{
    if (st->n == 0)
        return json_null();
    json_t *o = json_object(); /* NULL: the caller's json_put() records the failure */
    json_put(o, "mean_ms", json_num(st->mean), err);
    json_put(o, "median_ms", json_num(st->median), err);
    json_put(o, "p5_ms", json_num(st->p5), err);
    json_put(o, "p95_ms", json_num(st->p95), err);
    json_put(o, "stdev_ms", json_num(st->stdev), err);
    json_put(o, "min_ms", json_num(st->min), err);
    json_put(o, "max_ms", json_num(st->max), err);
    json_put(o, "cv", json_num(st->cv), err);
    json_put(o, "ci95_ms", json_pack("[oo]", json_num(st->ci_lo), json_num(st->ci_hi)), err);
    json_put(o, "outliers", json_integer((json_int_t)st->outliers), err);
    json_put(o, "first_is_outlier", json_boolean(st->first_is_outlier), err);
    return o;
}
