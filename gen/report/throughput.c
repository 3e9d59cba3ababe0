/*
 * throughput.c - work per second beside ms/step (see throughput.h).
 */
#include "report/throughput.h"
#include "charts/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void throughput_of(struct throughput *out, const char *model, const char *task, int batch,
                   const struct rd_cell *c)
{
    out->unit = "samples/s";
    out->per_step = batch;
    if (strcmp(task, "generate") == 0) {
        long tokens = THROUGHPUT_NEW_TOKENS;
        /* the decoding steps the cell recorded running (fewer after an EOS
         * stop), else the number its method declares */
        const char *v = c ? kvlist_get(&c->result.facts, "generate.new_tokens") : NULL;
        if (!v && c)
            v = kvlist_get(&c->result.facts, "method.new_tokens");
        char *end;
        long n = v ? strtol(v, &end, 10) : 0;
        if (v && end != v && !*end && n > 0)
            tokens = n;
        out->unit = "tokens/s";
        out->per_step = (double)batch * (double)tokens;
    } else if (strcmp(model, "sd") == 0) {
        out->unit = "images/s";
        out->per_step = strcmp(task, "predict") == 0 ? (double)batch / THROUGHPUT_SD_STEPS : (double)batch;
    }
}

double throughput_rate(const struct throughput *t, double ms)
{
    return isfinite(ms) && ms > 0 && t->per_step > 0 ? t->per_step * 1000.0 / ms : NAN;
}

void throughput_fmt(double rate, char *buf, size_t n)
{
    int decimals = !isfinite(rate) || rate >= 100 ? 0 : rate >= 10 ? 1 : rate >= 1 ? 2 : 3;
    if (isfinite(rate) && rate > 0 && rate < 0.01)
        decimals = 2 - (int)floor(log10(rate));
    chart_format_number(rate, decimals, buf, n);
}
