/*
 * compare_text.c - the text output of `benchgen compare` (see compare.h and
 * docs/COMPARE.md, "Output"). Deterministic: the same runs always print the
 * same bytes.
 */
#include "compare/compare.h"
#include "compare/crep.h"
#include "compare/compare_env.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ---------------------------------------------------------------- */

static void fmt_p_(char *buf, size_t n, double p)
{
    if (!isfinite(p))
        snprintf(buf, n, "-");
    else if (p < 1e-4)
        snprintf(buf, n, "%.1e", p);
    else
        snprintf(buf, n, "%.4f", p);
}

static void fmt_side_status_(char *buf, size_t n, const struct compare_side *s)
{
    if (s->nreps == 0)
        snprintf(buf, n, "-");
    else if (s->status == STATUS_OK)
        compare_fmt_ms(buf, n, s->mean_ms);
    else
        snprintf(buf, n, "%s", compare_side_status(s));
}

/* Every string a run stored (names, environment keys and values, hosts)
 * reaches the terminal through escape_terminal_keep(k, ...), as in `show`:
 * a run.db cannot send terminal commands or fake a line. The copies live
 * in k until the output is written. */

static void print_change_(FILE *out, const struct compare_change *c, const struct compare_pair *p, int width,
                          struct strlist *k)
{
    const char *tag = !c->counted     ? "not counted"
                      : !p->nintended ? "counted"
                      : c->intended   ? "intended"
                                      : "NOT intended";
    fprintf(out, "  %-*s %s -> %s  (%s)\n", width, escape_terminal_keep(k, c->key),
            escape_terminal_keep(k, c->a ? c->a : "(none)"), escape_terminal_keep(k, c->b ? c->b : "(none)"), tag);
}

/* Per-cell environment differences, grouped: cells with the same list share
 * one paragraph (typically one per Python environment). */
static int print_cell_changes_(FILE *out, const struct compare_pair *p, struct strlist *k)
{
    char **sig = xcalloc(p->ncells ? p->ncells : 1, sizeof(*sig));
    bool *done = xcalloc(p->ncells ? p->ncells : 1, sizeof(*done));
    int err = 0;
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        struct strbuf sb = {0};
        if (c->a.nreps == 0 || c->b.nreps == 0) {
            done[i] = true;
            continue;
        }
        size_t quiet = 0;
        for (size_t j = 0; j < c->nchanges; j++) {
            const struct compare_change *ch = &c->changes[j];
            const char *tag = !p->nintended ? "counted" : ch->intended ? "intended" : "NOT intended";
            if (ch->counted)
                strbuf_printf(&sb, "    %s %s -> %s  (%s)\n", escape_terminal_keep(k, compare_env_display_key(ch->key)),
                              escape_terminal_keep(k, ch->a ? ch->a : "(none)"),
                              escape_terminal_keep(k, ch->b ? ch->b : "(none)"), tag);
            else
                quiet++;
        }
        /* paths and the like differ between any two environments: named, not listed */
        size_t shown = 0;
        for (size_t j = 0; quiet && j < c->nchanges; j++) {
            if (c->changes[j].counted)
                continue;
            shown++;
            strbuf_printf(&sb, "%s%s%s", shown == 1 ? "    not counted: " : ", ",
                          escape_terminal_keep(k, compare_env_display_key(c->changes[j].key)),
                          shown == quiet ? "\n" : "");
        }
        if (!sb.buf)
            strbuf_puts(&sb, compare_side_rep(&c->a)->result.env.n && compare_side_rep(&c->b)->result.env.n
                                 ? "    (no differences)\n"
                                 : "    (environment not recorded on a side)\n");
        if ((err = strbuf_error(&sb)) < 0) {
            strbuf_free(&sb);
            break;
        }
        sig[i] = strbuf_detach(&sb);
    }
    for (size_t i = 0; i < p->ncells && !err; i++) {
        if (done[i])
            continue;
        size_t count = 0;
        for (size_t j = i; j < p->ncells; j++)
            count += !done[j] && !strcmp(sig[i], sig[j]);
        fprintf(out, "  %zu cell%s (env %s -> %s):", count, count == 1 ? "" : "s",
                escape_terminal_keep(k, p->cells[i].a.reps[0]->cell.env),
                escape_terminal_keep(k, p->cells[i].b.reps[0]->cell.env));
        size_t shown = 0;
        for (size_t j = i; j < p->ncells; j++) {
            if (done[j] || strcmp(sig[i], sig[j]) != 0)
                continue;
            if (j != i)
                done[j] = true;
            if (shown < 4)
                fprintf(out, "%s %s", shown ? "," : "", escape_terminal_keep(k, p->cells[j].id));
            shown++;
        }
        if (shown > 4)
            fprintf(out, ", and %zu more", shown - 4);
        fprintf(out, "\n%s", sig[i]);
        done[i] = true;
    }
    for (size_t i = 0; i < p->ncells; i++)
        free(sig[i]);
    free(sig);
    free(done);
    return err;
}

/* One geometric mean: over the decided cells, or "cannot tell" with the
 * range the cells' intervals allow when none is decided. */
static void print_geomean_(FILE *out, const char *name, const struct compare_geomean *g, const char *note)
{
    if (g->ndecided)
        fprintf(out, "  %-20s %4zu cell%s  %.4f  (speed-up %.3fx) over %zu decided", name, g->ncells,
                g->ncells == 1 ? " " : "s", g->ratio, 1.0 / g->ratio, g->ndecided);
    else
        fprintf(out, "  %-20s %4zu cell%s  cannot tell: no cell decided; B/A in [%.4f, %.4f] (speed-up between %.3fx and %.3fx)",
                name, g->ncells, g->ncells == 1 ? " " : "s", g->lo, g->hi, 1.0 / g->hi, 1.0 / g->lo);
    if (g->ndecided && g->ndecided < g->ncells)
        fprintf(out, ", %zu cannot tell", g->ncells - g->ndecided);
    fprintf(out, "%s\n", note);
}

static void print_pair_(FILE *out, const struct compare_result *r, const struct compare_pair *p, int idw,
                        struct strlist *k)
{
    const struct rundata *A = r->runs[0], *B = r->runs[p->run];
    fprintf(out, "\n== [%zu] %s vs [0] %s\n", p->run, escape_terminal_keep(k, B->name),
            escape_terminal_keep(k, A->name));
    if (p->nintended) {
        fprintf(out, "intended change:");
        for (size_t i = 0; i < p->nintended; i++)
            fprintf(out, "%s %s", i ? "," : "", escape_terminal_keep(k, p->intended[i]));
        fprintf(out, "\n");
    } else {
        fprintf(out,
                "intended change: not stated (no --intended, no --with pins): a cell is confounded when\n"
                "more than one counted component changed\n");
    }

    fprintf(out, "\nenvironment, whole run:%s\n", p->nenv ? "" : " no differences");
    int w = 0;
    for (size_t i = 0; i < p->nenv; i++)
        if ((int)strlen(p->env[i].key) > w)
            w = (int)strlen(p->env[i].key);
    for (size_t i = 0; i < p->nenv; i++)
        print_change_(out, &p->env[i], p, w, k);
    fprintf(out, "\nenvironment, per cell (Python and packages):\n");
    print_cell_changes_(out, p, k);

    if (p->canary_a >= 2 && p->canary_b >= 2)
        fprintf(out, "\ndrift canary: B/A %.4f [%.4f, %.4f] over %zu and %zu processes: %s\n", p->canary_ratio,
                p->canary_lo, p->canary_hi, p->canary_a, p->canary_b, compare_canary_words(p));
    else
        fprintf(out, "\ndrift canary: not recorded on %s (runs made before benchgen had it)\n",
                p->canary_a < 2 && p->canary_b < 2 ? "either side" : "one side");
    if (p->profile_note[0])
        fprintf(out, "noise profile: %s\n", escape_terminal_keep(k, p->profile_note));
    bool seq = false;
    for (size_t i = 0; i < p->ncells; i++)
        seq = seq || p->cells[i].sequential;
    if (seq) /* compare_seq.c: not the fixed rule of the heading */
        fprintf(out, "sequential run --ab (%s): each cell's verdict is the alpha-spending rule's at the look it "
                     "stopped at, with Benjamini-Hochberg over the cells (docs/COMPARE.md, \"Sequential verdicts\")\n",
                escape_terminal_keep(k, kvlist_get(&A->env, "run.seq.design")));
    fprintf(out, "\n%-*s  %10s  %10s  %5s  %6s  %7s  %-17s  %8s  %s\n", idw, "cell", "A ms/step", "B ms/step",
            "procs", "noise", "B/A", "95% CI", "q (BH)", "verdict");
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        char ma[32], mb[32], ratio[32] = "-", ci[48] = "-", q[32], v[96], procs[32] = "-", noise[32] = "-";
        fmt_side_status_(ma, sizeof(ma), &c->a);
        fmt_side_status_(mb, sizeof(mb), &c->b);
        if (c->t.valid) { /* the statistic B/A is the ratio of */
            compare_fmt_ms(ma, sizeof(ma), c->t.gmean_a);
            compare_fmt_ms(mb, sizeof(mb), c->t.gmean_b);
            snprintf(ratio, sizeof(ratio), "%.4f", c->t.ratio);
            snprintf(ci, sizeof(ci), "[%.4f, %.4f]", c->t.ci_lo, c->t.ci_hi);
            snprintf(procs, sizeof(procs), "%zu/%zu", c->t.groups_a, c->t.groups_b);
            if (c->t.cv_from_profile) /* the band's scatter is the profile's: marked P */
                snprintf(noise, sizeof(noise), "%.1f%%P%s", c->t.cv_profile * 100.0, c->t.too_noisy ? "!" : "");
            else if (isfinite(c->t.cv_process))
                snprintf(noise, sizeof(noise), "%.1f%%%s", c->t.cv_process * 100.0, c->t.too_noisy ? "!" : "");
        }
        fmt_p_(q, sizeof(q), c->t.p_adj);
        compare_verdict_text(v, sizeof(v), c);
        fprintf(out, "%-*s  %10s  %10s  %5s  %6s  %7s  %-17s  %8s  %s", idw, escape_terminal_keep(k, c->id), ma, mb,
                procs, noise, ratio, ci, q, v);
        if (c->match == COMPARE_MISMATCH)
            fprintf(out, ": %s", escape_terminal_keep(k, c->mismatch));
        else if (c->t.verdict == SIGNIFICANCE_AMBIGUOUS)
            fprintf(out, " (%s)", c->t.why);
        if (c->confounded)
            fprintf(out, "  [confounded]");
        if (c->drift)
            fprintf(out, "  [machine drift: canary %.4f, B/A / canary %.4f]", c->canary_ratio,
                    c->t.ratio / c->canary_ratio);
        if (c->host_changed[0])
            fprintf(out, "  [host changed: %s]", escape_terminal_keep(k, c->host_changed));
        if (c->seq_stop) {
            char stop[160];
            compare_seq_summary(stop, sizeof(stop), c);
            fprintf(out, "  [sequential run: %s]", escape_terminal_keep(k, stop));
        }
        char comp[256];
        compare_compile_text(comp, sizeof(comp), c);
        if (comp[0])
            fprintf(out, "  [%s]", comp);
        fprintf(out, "\n");
    }
    if (p->ncells == 0)
        fprintf(out, "(no cells)\n");

    fprintf(out, "\ngeometric-mean ratio B/A over the decided cells (below 1: B is faster; ambiguous cells "
                 "are left out)\n");
    for (size_t b = 0; b < p->nbackends; b++)
        print_geomean_(out, escape_terminal_keep(k, p->backends[b].backend), &p->backends[b].g, "");
    if (p->affected.ncells)
        print_geomean_(out, "overall", &p->affected, "  the cells the change can affect");
    if (p->unaffected.ncells)
        print_geomean_(out, "unaffected", &p->unaffected, "  nothing of theirs changed: a control, not in the overall");
    if (!p->all.ncells)
        fprintf(out, "  (no tested cells)\n");

    if (p->nconfounded) {
        fprintf(out, "\nconfounded: %zu cell%s changed in more than the intended component%s\n",
                p->nconfounded, p->nconfounded == 1 ? "" : "s", p->nintended ? "" : " (none stated)");
        for (size_t i = 0; i < p->ncells; i++)
            if (p->cells[i].confounded)
                fprintf(out, "  %-*s  %s\n", idw, escape_terminal_keep(k, p->cells[i].id),
                        escape_terminal_keep(k, p->cells[i].unintended));
    }
    fprintf(out,
            "\nsummary: %zu slower, %zu faster, %zu same, %zu ambiguous, %zu untested, %zu mismatched, "
            "%zu only in baseline, %zu only in this run; %zu confounded; %zu confounded by machine drift\n",
            p->nslower, p->nfaster, p->nsame, p->nambiguous, p->nuntested, p->nmismatch, p->nonly_base,
            p->nonly_run, p->nconfounded, p->ndrift);
}

int compare_write_text(const struct compare_result *r, FILE *out)
{
    struct strlist keep = {0}, *k = &keep;
    int idw = 4;
    for (size_t i = 0; i < r->ntrend; i++)
        if ((int)strlen(r->trend[i].id) > idw)
            idw = (int)strlen(r->trend[i].id);
    for (size_t j = 0; j < r->npairs; j++)
        if (r->pairs[j].drift)
            fprintf(out,
                    "MACHINE DRIFT: the drift canary (a fixed C GEMM and memory copy, timed before every cell)\n"
                    "ran %.3fx [%.3f, %.3f] as long in run [%zu] as in the baseline: the machine itself moved\n"
                    "beyond the +/-%g%% band, so the %zu verdict%s of that comparison are confounded by machine drift.\n"
                    "Rerun both sides interleaved (benchgen run SPEC --ab) to separate the change from the drift.\n\n",
                    r->pairs[j].canary_ratio, r->pairs[j].canary_lo, r->pairs[j].canary_hi, r->pairs[j].run,
                    r->opt.noise * 100.0, r->pairs[j].ndrift, r->pairs[j].ndrift == 1 ? "" : "s");
    fprintf(out,
            "benchgen compare: %zu runs, each compared with the first. The process is the unit: each\n"
            "process gives its mean ms/step. A cell is faster or slower only when it has at least %d\n"
            "processes a side, a t-test on the log per-process means (paired for one --ab run) is\n"
            "significant at %g after Benjamini-Hochberg over the comparison's tested cells AND the %g%%\n"
            "interval of the ratio B/A lies outside the cell's noise band: +/-%g%%, or the cell's measured\n"
            "between-process CV when larger; same when the interval lies inside it; ambiguous otherwise.\n"
            "procs: processes per side; noise: measured between-process CV (! too noisy to find a 5%% change).\n"
            "A and B ms/step: the geometric mean of the processes' mean ms/step, the statistic B/A is the\n"
            "ratio of (the pooled mean of the steps below 2 processes a side). Geometric means and the\n"
            "overall speed-up are stated over decided cells (same, faster, slower) only.\n\n",
            r->nruns, SIGNIFICANCE_MIN_PROCESSES, r->opt.alpha, (1.0 - r->opt.alpha) * 100.0, r->opt.noise * 100.0);
    int namew = 0;
    for (size_t j = 0; j < r->nruns; j++)
        if ((int)strlen(r->runs[j]->name) > namew)
            namew = (int)strlen(r->runs[j]->name);
    for (size_t i = 0; i < r->nruns; i++) {
        const struct rundata *rd = r->runs[i];
        fprintf(out, "  [%zu] %-*s  created %s  benchgen %s (%s)  %s%s\n", i, namew, escape_terminal_keep(k, rd->name),
                escape_terminal_keep(k, rd->created_utc), escape_terminal_keep(k, rd->benchgen_version),
                escape_terminal_keep(k, rd->git_commit), escape_terminal_keep(k, rd->dir),
                i == 0 ? "  (baseline)" : "");
    }
    for (size_t i = 0; i < r->npairs; i++)
        print_pair_(out, r, &r->pairs[i], idw, k);

    if (r->nruns >= 3) {
        fprintf(out, "\n== trend: mean ms/step in each run\n%-*s", idw, "cell");
        for (size_t j = 0; j < r->nruns; j++)
            fprintf(out, "  %10s%zu]", "[", j);
        fprintf(out, "\n");
        for (size_t i = 0; i < r->ntrend; i++) {
            fprintf(out, "%-*s", idw, escape_terminal_keep(k, r->trend[i].id));
            for (size_t j = 0; j < r->nruns; j++) {
                char buf[32];
                fmt_side_status_(buf, sizeof(buf), &r->trend[i].points[j]);
                if (j > 0 && compare_pair_mismatch(&r->pairs[j - 1], r->trend[i].id))
                    snprintf(buf, sizeof(buf), "mismatch"); /* other conditions: no comparable number */
                fprintf(out, "  %12s", buf);
            }
            fprintf(out, "\n");
        }
    }
    char *result = crep_result_text(r, 5); /* the slower cells by name and by how much: one line */
    fprintf(out, "\n%s\n", escape_terminal_keep(k, result));
    free(result);
    strlist_free(&keep);
    if (ferror(out))
        return error_set(BG_EIO, "compare: write failed: %s", strerror(errno));
    return 0;
}
