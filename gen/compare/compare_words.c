/*
 * compare_words.c - the names and numbers of a comparison that its text,
 * JSON, report and workbook share (declared in compare.h): match names,
 * verdict words, ms formatting. Apart from compare_text.c so that the
 * report's pieces (crep.c) and the text output do not depend on each other.
 */
#include "compare/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool compare_pair_mismatch(const struct compare_pair *p, const char *id)
{
    for (size_t i = 0; i < p->ncells; i++)
        if (strcmp(p->cells[i].id, id) == 0)
            return p->cells[i].match == COMPARE_MISMATCH;
    return false;
}

const char *compare_match_name(enum compare_match m)
{
    switch (m) {
    case COMPARE_MATCHED:
        return "matched";
    case COMPARE_MISMATCH:
        return "mismatch";
    case COMPARE_ONLY_BASE:
        return "only_baseline";
    case COMPARE_ONLY_RUN:
        return "only_run";
    }
    return "?";
}

void compare_fmt_ms(char *buf, size_t n, double ms)
{
    if (!isfinite(ms))
        snprintf(buf, n, "-");
    else if (ms >= 100.0)
        snprintf(buf, n, "%.2f", ms);
    else if (ms >= 1.0)
        snprintf(buf, n, "%.3f", ms);
    else
        snprintf(buf, n, "%.4g", ms);
}

void compare_verdict_text(char *buf, size_t n, const struct compare_cell *c)
{
    switch (c->match) {
    case COMPARE_MISMATCH:
        snprintf(buf, n, "mismatch");
        return;
    case COMPARE_ONLY_BASE:
        snprintf(buf, n, "only in baseline");
        return;
    case COMPARE_ONLY_RUN:
        snprintf(buf, n, "only in this run");
        return;
    case COMPARE_MATCHED:
        break;
    }
    if (c->t.verdict == SIGNIFICANCE_NONE)
        snprintf(buf, n, "none (%s / %s)", compare_side_status(&c->a), compare_side_status(&c->b));
    else if (c->t.verdict == SIGNIFICANCE_SAME && c->t.band_wide)
        /* "same" within a band wider than --noise says how wide */
        snprintf(buf, n, "same (within +/-%.1f%%)", c->t.band * 100.0);
    else
        snprintf(buf, n, "%s", significance_verdict_name(c->t.verdict));
}

const char *compare_canary_words(const struct compare_pair *p)
{
    if (p->drift)
        return "the machine MOVED beyond the noise band; verdicts confounded by machine drift";
    if (p->canary_unsure)
        return "cannot tell whether the machine moved: the interval reaches past the noise band";
    return "the machine did not move beyond the noise band";
}

size_t compare_ndecided(const struct compare_pair *p) { return p->nsame + p->nfaster + p->nslower; }

size_t compare_ntested(const struct compare_pair *p) { return compare_ndecided(p) + p->nambiguous; }

void compare_seq_summary(char *buf, size_t n, const struct compare_cell *c)
{
    /* the run's note is "decision; N processes a side; why": the first two */
    const char *s = c->seq_stop ? c->seq_stop : "", *semi = strchr(s, ';');
    if (semi)
        semi = strchr(semi + 1, ';');
    snprintf(buf, n, "%.*s", semi ? (int)(semi - s) : (int)strlen(s), s);
}

bool compare_side_compile(const struct compare_side *s, double *cold_ms, size_t *nwarm)
{
    bool recorded = false;
    *cold_ms = NAN;
    *nwarm = 0;
    for (size_t i = 0; i < s->nreps; i++) {
        const struct result *r = &s->reps[i]->result;
        if (!kvlist_get(&r->facts, "compile.cache"))
            continue;
        recorded = true;
        if (result_warm_cache(r))
            (*nwarm)++;
        else if (r->status == STATUS_OK && isnan(*cold_ms))
            *cold_ms = result_compile_ms(r);
    }
    return recorded;
}

void compare_compile_text(char *buf, size_t n, const struct compare_cell *c)
{
    double ma, mb;
    size_t wa, wb;
    bool ra = compare_side_compile(&c->a, &ma, &wa), rb = compare_side_compile(&c->b, &mb, &wb);
    if (n)
        buf[0] = '\0';
    if (!(ra || rb) || wa + wb == 0)
        return;
    char sa[32], sb[32];
    compare_fmt_ms(sa, sizeof(sa), ma);
    compare_fmt_ms(sb, sizeof(sb), mb);
    snprintf(buf, n, "compile (first call, cold cache): A %s ms, B %s ms; warm caches in %zu A and %zu B processes, "
                     "whose first calls are not compile time",
             sa, sb, wa, wb);
}
