/*
 * test_compare.c - `benchgen compare` on the committed fixture runs in
 * tests/fixtures/compare/ (made by tests/fixtures/make-compare-fixtures.py):
 * verdicts, mismatches, repeats, the environment diff and confounding,
 * the trend, text and JSON output, exit statuses and --out (which renders
 * the report formats too: tests/unit/test_compare_report.c checks those).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "compare/compare.h"
#include "compare/compare_profile.h"
#include "base/error.h"
#include "base/util.h"

#define FIX BENCHGEN_SOURCE_DIR "/tests/fixtures/compare/"

static const char *const base_upgrade[] = {FIX "base", FIX "upgrade"};
static const char *const three[] = {FIX "base", FIX "upgrade", FIX "later"};

static const struct compare_cell *cell(const struct compare_pair *p, const char *id)
{
    for (size_t i = 0; i < p->ncells; i++)
        if (!strcmp(p->cells[i].id, id))
            return &p->cells[i];
    fail_msg("no cell %s in the comparison", id);
    return NULL;
}

static const struct compare_change *change(const struct compare_change *c, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].key, key))
            return &c[i];
    return NULL;
}

static char *capture(const struct compare_result *r, int (*fn)(const struct compare_result *, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(fn(r, f), 0);
    fclose(f);
    return buf;
}

static void test_verdicts_of_the_fixture(void **state)
{
    (void)state;
    struct compare_result r;
    assert_int_equal(compare_load(&r, base_upgrade, 2, NULL), 0);
    assert_int_equal(r.npairs, 1);
    const struct compare_pair *p = &r.pairs[0];

    const struct compare_cell *c = cell(p, "sd/predict/b1/torch-eager"); /* injected 10% slowdown */
    assert_int_equal(c->t.verdict, SIGNIFICANCE_SLOWER);
    assert_true(c->t.ratio > 1.08 && c->t.ratio < 1.12);
    assert_true(c->t.ci_lo > 1.02);
    assert_int_equal(cell(p, "sd/fit/b1/torch-eager")->t.verdict, SIGNIFICANCE_SAME);
    assert_int_equal(cell(p, "mlp/fit/b32/numpy")->t.verdict, SIGNIFICANCE_SAME);

    c = cell(p, "bert/predict/b8/torch-eager"); /* +0.5% over 400 samples: significant, yet same */
    assert_int_equal(c->t.verdict, SIGNIFICANCE_SAME);
    assert_true(c->t.ci_lo > 0.98 && c->t.ci_hi < 1.02);
    assert_true(fabs(c->t.ratio - 1.0) < 0.01);
    /* the process is the unit: six processes a side, the measured noise is theirs */
    assert_int_equal(c->t.groups_a, 6);
    assert_int_equal(c->t.groups_b, 6);
    assert_true(c->t.per_process && !c->t.paired); /* two separate runs: Welch */
    assert_true(c->t.cv_process > 0.0 && c->t.cv_process < 0.02);
    assert_false(p->ab);
    assert_false(p->drift); /* the canary did not move between base and upgrade */
    assert_true(p->canary_ratio > 0.98 && p->canary_ratio < 1.02);

    assert_int_equal(cell(p, "bert/fit/b8/torch-eager")->t.verdict, SIGNIFICANCE_AMBIGUOUS); /* CV 30% */
    assert_int_equal(cell(p, "mlp/predict/b32/numpy")->t.verdict, SIGNIFICANCE_FASTER);

    c = cell(p, "gemma/fit/b1/torch-eager"); /* error in the upgrade: no verdict, status shown */
    assert_int_equal(c->match, COMPARE_MATCHED);
    assert_int_equal(c->t.verdict, SIGNIFICANCE_NONE);
    assert_int_equal(c->a.status, STATUS_OK);
    assert_int_equal(c->b.status, STATUS_ERROR);

    c = cell(p, "sam/predict/b1/torch-eager");
    assert_int_equal(c->match, COMPARE_MISMATCH);
    assert_string_equal(c->mismatch, "precision float32 vs bfloat16");
    assert_int_equal(c->t.verdict, SIGNIFICANCE_NONE);
    c = cell(p, "sd/predict/b2/torch-eager");
    assert_int_equal(c->match, COMPARE_MISMATCH);
    assert_non_null(strstr(c->mismatch, "input hash"));

    c = cell(p, "sam/fit/b1/torch-compiled"); /* six processes a side, one number each */
    assert_int_equal(c->a.nreps, 6);
    assert_int_equal(c->b.nreps, 6);
    assert_int_equal(c->t.groups_a, 6);
    assert_int_equal(c->t.n_a, 600);
    assert_int_equal(c->t.verdict, SIGNIFICANCE_SAME);

    assert_int_equal(cell(p, "mistral/generate/b1/torch-eager")->match, COMPARE_ONLY_BASE);
    assert_int_equal(cell(p, "bert/predict/b16/torch-eager")->match, COMPARE_ONLY_RUN);
    /* baseline order first, then what only the run has */
    assert_string_equal(p->cells[0].id, "sd/predict/b1/torch-eager");
    assert_string_equal(p->cells[p->ncells - 1].id, "bert/predict/b16/torch-eager");

    assert_int_equal(p->nslower, 1);
    assert_int_equal(p->nfaster, 1);
    assert_int_equal(p->nsame, 4);
    assert_int_equal(p->nambiguous, 1);
    assert_int_equal(p->nuntested, 1);
    assert_int_equal(p->nmismatch, 2);
    assert_int_equal(p->nonly_base, 1);
    assert_int_equal(p->nonly_run, 1);
    assert_int_equal(compare_exit_status(&r), COMPARE_EXIT_SLOWER);

    /* geometric means: numpy = sqrt(ratio(mlp/fit) * ratio(mlp/predict)) */
    assert_int_equal(p->nbackends, 3);
    assert_string_equal(p->backends[0].backend, "numpy");
    assert_int_equal(p->backends[0].g.ncells, 2);
    assert_int_equal(p->backends[0].g.ndecided, 2);
    double g = sqrt(cell(p, "mlp/fit/b32/numpy")->t.ratio * cell(p, "mlp/predict/b32/numpy")->t.ratio);
    assert_true(fabs(p->backends[0].g.ratio - g) < 1e-12);
    /* headlines only from what was decided: the ambiguous bert/fit is left
     * out of the geometric means, though its interval bounds the range */
    assert_int_equal(p->all.ncells, 7);
    assert_int_equal(p->all.ndecided, 6);
    double ld = 0.0, llo = 0.0;
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *x = &p->cells[i];
        if (!x->t.valid)
            continue;
        llo += log(x->t.ci_lo);
        if (x->t.verdict != SIGNIFICANCE_AMBIGUOUS)
            ld += log(x->t.ratio);
    }
    assert_true(fabs(p->all.ratio - exp(ld / 6.0)) < 1e-12);
    assert_true(fabs(p->all.lo - exp(llo / 7.0)) < 1e-12);
    /* the A and B the ratio is made of */
    const struct compare_cell *sd = cell(p, "sd/predict/b1/torch-eager");
    assert_true(fabs(sd->t.gmean_b / sd->t.gmean_a - sd->t.ratio) < 1e-12);
    compare_result_free(&r);
}

static void test_environment_and_confounding(void **state)
{
    (void)state;
    struct compare_result r;
    assert_int_equal(compare_load(&r, base_upgrade, 2, NULL), 0);
    const struct compare_pair *p = &r.pairs[0];

    /* the --with pin on the run's command line is the intent */
    assert_int_equal(p->nintended, 1);
    assert_string_equal(p->intended[0], "diffusers");

    /* run-wide: only facts that do not count (host name, benchgen commit) */
    const struct compare_change *h = change(p->env, p->nenv, "os.hostname");
    assert_non_null(h);
    assert_false(h->counted);
    assert_string_equal(h->a, "bench-a");
    assert_string_equal(h->b, "bench-b");
    for (size_t i = 0; i < p->nenv; i++)
        assert_false(p->env[i].counted);

    const struct compare_cell *c = cell(p, "sd/predict/b1/torch-eager");
    const struct compare_change *d = change(c->changes, c->nchanges, "pkg.diffusers");
    assert_non_null(d);
    assert_true(d->counted && d->intended);
    assert_string_equal(d->a, "0.25.0");
    assert_string_equal(d->b, "0.30.0");
    d = change(c->changes, c->nchanges, "pkg.huggingface-hub");
    assert_non_null(d);
    assert_true(d->counted && !d->intended);
    assert_true(c->confounded);
    assert_string_equal(c->unintended, "huggingface-hub 0.20.3 -> 0.24.0");
    d = change(c->changes, c->nchanges, "python.prefix");
    assert_non_null(d);
    assert_false(d->counted);

    /* the numpy cells are controls: nothing changed there */
    c = cell(p, "mlp/fit/b32/numpy");
    assert_int_equal(c->nchanges, 0);
    assert_false(c->confounded);
    assert_string_equal(c->unintended, "");
    /* a cell that failed without recording an environment is not "everything removed" */
    assert_int_equal(cell(p, "gemma/fit/b1/torch-eager")->nchanges, 0);
    assert_int_equal(p->nconfounded, 7);
    compare_result_free(&r);

    /* naming the dependency as intended too clears the flag */
    struct compare_options o = {0.05, 0.02, 2000, "huggingface_hub", NULL}; /* PEP 503: _ is - */
    assert_int_equal(compare_load(&r, base_upgrade, 2, &o), 0);
    p = &r.pairs[0];
    assert_int_equal(p->nintended, 2);
    assert_false(cell(p, "sd/predict/b1/torch-eager")->confounded);
    assert_int_equal(p->nconfounded, 0);
    compare_result_free(&r);

    /* a glob for every package */
    o.intended = "pkg.*";
    assert_int_equal(compare_load(&r, base_upgrade, 2, &o), 0);
    assert_int_equal(r.pairs[0].nconfounded, 0);
    compare_result_free(&r);
}

static void test_three_runs_and_trend(void **state)
{
    (void)state;
    struct compare_result r;
    assert_int_equal(compare_load(&r, three, 3, NULL), 0);
    assert_int_equal(r.npairs, 2);
    assert_int_equal(r.pairs[1].run, 2);

    /* run 2 also changed the GPU driver: counted, not intended, so every
     * cell with both sides is confounded, numpy cells included */
    const struct compare_pair *p = &r.pairs[1];
    const struct compare_change *drv = change(p->env, p->nenv, "gpu.driver");
    assert_non_null(drv);
    assert_true(drv->counted && !drv->intended);
    assert_true(cell(p, "mlp/fit/b32/numpy")->confounded);
    assert_non_null(strstr(cell(p, "mlp/fit/b32/numpy")->unintended, "gpu.driver 550.54.15 -> 560.35.03"));
    assert_int_equal(cell(p, "bert/fit/b8/torch-eager")->match, COMPARE_ONLY_BASE);

    /* the trend: every identity of every run, a point per run */
    assert_int_equal(r.ntrend, 12);
    assert_string_equal(r.trend[0].id, "sd/predict/b1/torch-eager");
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(r.trend[0].points[k].status, STATUS_OK);
        assert_true(r.trend[0].points[k].mean_ms > 95 && r.trend[0].points[k].mean_ms < 115);
        assert_true(r.trend[0].points[k].ci_lo_ms < r.trend[0].points[k].mean_ms);
    }
    const struct compare_trend *t = &r.trend[r.ntrend - 1];
    assert_string_equal(t->id, "bert/predict/b16/torch-eager");
    assert_int_equal(t->points[0].nreps, 0);
    assert_int_equal(t->points[0].nreps, 0);
    assert_string_equal(compare_side_status(&t->points[0]), "missing");
    assert_int_equal(t->points[1].nreps, 6);
    assert_true(isnan(t->points[2].mean_ms));

    /* later's machine is 1.3x slower by its drift canary: every verdict is confounded by drift */
    assert_true(r.pairs[1].drift);
    assert_true(r.pairs[1].canary_lo > 1.25 && r.pairs[1].canary_hi < 1.35);
    assert_int_equal(r.pairs[1].ndrift, 5);
    assert_false(r.pairs[0].drift);

    char *text = capture(&r, compare_write_text);
    assert_non_null(strstr(text, "MACHINE DRIFT: the drift canary"));
    assert_true(strstr(text, "MACHINE DRIFT") < strstr(text, "benchgen compare: 3 runs")); /* at the top */
    assert_non_null(strstr(text, "verdicts confounded by machine drift"));
    assert_non_null(strstr(text, "== trend: mean ms/step in each run"));
    assert_non_null(strstr(text, "== [2] diffusers-later vs [0] diffusers-base"));
    free(text);
    compare_result_free(&r);
}

static void test_aa_comparison(void **state)
{
    (void)state;
    const char *const same[] = {FIX "base", FIX "base"};
    struct compare_result r;
    assert_int_equal(compare_load(&r, same, 2, NULL), 0);
    const struct compare_pair *p = &r.pairs[0];
    assert_int_equal(p->nenv, 0);
    assert_int_equal(p->nslower + p->nfaster, 0);
    /* identical samples, yet the CV 30% cell's interval is too wide to call */
    assert_int_equal(p->nambiguous, 1);
    assert_int_equal(cell(p, "bert/fit/b8/torch-eager")->t.verdict, SIGNIFICANCE_AMBIGUOUS);
    assert_int_equal(p->nsame, 10);
    assert_int_equal(p->nconfounded, 0);
    assert_int_equal(p->nintended, 0);
    assert_true(fabs(p->all.ratio - 1.0) < 1e-12);
    assert_int_equal(compare_exit_status(&r), 0);
    compare_result_free(&r);
}

static void test_noise_option_widens_same(void **state)
{
    (void)state;
    struct compare_options o = {0.05, 0.20, 2000, NULL, NULL};
    struct compare_result r;
    assert_int_equal(compare_load(&r, base_upgrade, 2, &o), 0);
    const struct compare_pair *p = &r.pairs[0];
    assert_int_equal(cell(p, "sd/predict/b1/torch-eager")->t.verdict, SIGNIFICANCE_SAME);
    assert_int_equal(cell(p, "mlp/predict/b32/numpy")->t.verdict, SIGNIFICANCE_SAME);
    assert_int_equal(compare_exit_status(&r), 0);
    compare_result_free(&r);

    o.noise = 1.5;
    assert_int_equal(compare_load(&r, base_upgrade, 2, &o), BG_EUSAGE);
    o.noise = 0.02;
    o.alpha = 0;
    assert_int_equal(compare_load(&r, base_upgrade, 2, &o), BG_EUSAGE);
    assert_int_equal(compare_load(&r, base_upgrade, 1, NULL), BG_EUSAGE);
    const char *const missing[] = {FIX "base", FIX "no-such-run"};
    assert_int_equal(compare_load(&r, missing, 2, NULL), BG_ENOTFOUND);
}

static void test_json_is_stable(void **state)
{
    (void)state;
    struct compare_result r;
    assert_int_equal(compare_load(&r, three, 3, NULL), 0);
    char *j1 = capture(&r, compare_write_json), *t1 = capture(&r, compare_write_text);
    compare_result_free(&r);
    assert_int_equal(compare_load(&r, three, 3, NULL), 0);
    char *j2 = capture(&r, compare_write_json), *t2 = capture(&r, compare_write_text);
    compare_result_free(&r);
    assert_string_equal(j1, j2);
    assert_string_equal(t1, t2);

    json_error_t je;
    json_t *root = json_loads(j1, 0, &je);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "format")), COMPARE_JSON_FORMAT);
    assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 3);
    assert_int_equal(json_array_size(json_object_get(root, "runs")), 3);
    json_t *cmp = json_array_get(json_object_get(root, "comparisons"), 0);
    json_t *c0 = json_array_get(json_object_get(cmp, "cells"), 0);
    assert_string_equal(json_string_value(json_object_get(c0, "id")), "sd/predict/b1/torch-eager");
    assert_string_equal(json_string_value(json_object_get(c0, "verdict")), "slower");
    assert_true(json_is_real(json_object_get(c0, "p_adj")));
    assert_true(json_is_true(json_object_get(c0, "confounded")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c0, "a"), "n")), 600);
    assert_int_equal(json_integer_value(json_object_get(c0, "processes_a")), 6);
    assert_true(json_is_real(json_object_get(c0, "noise_cv")));
    assert_string_equal(json_string_value(json_object_get(c0, "test")), "welch-t-log");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(cmp, "summary"), "slower")), 1);
    /* no NaN ever: untested cells carry null */
    json_t *only = json_array_get(json_object_get(cmp, "cells"), 10);
    assert_string_equal(json_string_value(json_object_get(only, "match")), "only_baseline");
    assert_true(json_is_null(json_object_get(only, "ratio")));
    assert_true(json_is_null(json_object_get(only, "b")));
    assert_null(strstr(j1, "NaN"));
    assert_int_equal(json_array_size(json_object_get(root, "trend")), 12);
    json_decref(root);

    assert_non_null(strstr(t1, "sd/predict/b1/torch-eager"));
    assert_non_null(strstr(t1, "mismatch: precision float32 vs bfloat16"));
    assert_non_null(strstr(t1, "huggingface-hub 0.20.3 -> 0.24.0  (NOT intended)"));
    assert_non_null(strstr(t1, "summary: 1 slower, 1 faster, 4 same, 1 ambiguous"));
    free(j1);
    free(j2);
    free(t1);
    free(t2);
}

static void test_main_exit_statuses_and_out(void **state)
{
    (void)state;
    char *argv_slow[] = {"compare", FIX "base", FIX "upgrade", "--json", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 4, argv_slow, 4, argv_slow), 3);
    char *argv_same[] = {"compare", FIX "base", FIX "base", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 3, argv_same, 3, argv_same), 0);
    char *argv_noise[] = {"compare", FIX "base", FIX "upgrade", "--noise=20%", "--alpha", "0.01", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 6, argv_noise, 6, argv_noise), 0);

    char *one[] = {"compare", FIX "base", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 2, one, 2, one), 2);
    char *bad_noise[] = {"compare", FIX "base", FIX "upgrade", "--noise", "lots", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 5, bad_noise, 5, bad_noise), 2);
    char *bad_alpha[] = {"compare", FIX "base", FIX "upgrade", "--alpha", "1.5", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 5, bad_alpha, 5, bad_alpha), 2);
    char *no_value[] = {"compare", FIX "base", FIX "upgrade", "--out", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 4, no_value, 4, no_value), 2);
    char *unknown[] = {"compare", FIX "base", FIX "upgrade", "--fast", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 4, unknown, 4, unknown), 2);
    char *missing[] = {"compare", FIX "base", FIX "nope", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 3, missing, 3, missing), 2); /* no such run directory */
    char *help[] = {"compare", "--help", NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 2, help, 2, help), 0);

    char dir[] = "/tmp/test_compare-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *out = util_printf("%s/out", dir);
    char *argv_out[] = {"compare", FIX "base", FIX "upgrade", "--out", out, NULL};
    assert_int_equal(cli_dispatch(&cli_compare, 5, argv_out, 5, argv_out), 3);
    char *txt = util_printf("%s/compare.txt", out), *js = util_printf("%s/compare.json", out);
    assert_true(util_is_file(txt));
    assert_true(util_is_file(js));
    /* and the report formats (test_compare_report.c checks their content) */
    static const char *const formats[] = {"compare.html", "compare.md", "compare.pdf", "compare.xlsx",
                                          "charts/forest-1.png"};
    for (size_t i = 0; i < sizeof(formats) / sizeof(*formats); i++) {
        char *f = util_printf("%s/%s", out, formats[i]);
        assert_true(util_is_file(f));
        free(f);
    }
    json_error_t je;
    json_t *root = json_load_file(js, 0, &je);
    assert_non_null(root);
    json_decref(root);
    free(txt);
    free(js);
    free(out);
    assert_int_equal(util_rm_rf(dir), 0);
}

/* `same` in a band wider than --noise says how wide (issue 22, item 4) */
static void test_same_states_a_wide_band(void **state)
{
    (void)state;
    struct compare_cell c;
    char v[96];
    memset(&c, 0, sizeof(c));
    c.match = COMPARE_MATCHED;
    c.t.verdict = SIGNIFICANCE_SAME;
    c.t.band = 0.02;
    compare_verdict_text(v, sizeof(v), &c);
    assert_string_equal(v, "same");
    c.t.band = 0.081;
    c.t.band_wide = 1;
    compare_verdict_text(v, sizeof(v), &c);
    assert_string_equal(v, "same (within +/-8.1%)");
    /* and significance_verdict sets band_wide from the cell's own scatter */
    struct significance_test t;
    memset(&t, 0, sizeof(t));
    t.valid = t.per_process = t.paired = 1;
    t.n_a = t.n_b = 60;
    t.groups_a = t.groups_b = 12;
    t.ratio = 1.0;
    t.ci_lo = 0.96;
    t.ci_hi = 1.04;
    t.cv_process = 0.08;
    t.p_adj = 0.9;
    assert_int_equal(significance_verdict(&t, 0.05, 0.02), SIGNIFICANCE_SAME);
    assert_true(t.band_wide);
    t.cv_process = 0.01;
    t.ci_lo = 0.995;
    t.ci_hi = 1.005;
    assert_int_equal(significance_verdict(&t, 0.05, 0.02), SIGNIFICANCE_SAME);
    assert_false(t.band_wide);
}

/* Noise profiles (issue 22, item 2): made from an A/A, used when the host
 * and the drift canary have not moved, refused when the canary moved. */
static void test_noise_profile(void **state)
{
    (void)state;
    struct compare_result r;
    const char *const aa[] = {FIX "base", FIX "base"}, *const moved[] = {FIX "base", FIX "later"};
    char path[] = "/tmp/benchgen-profile-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(compare_load(&r, aa, 2, NULL), 0);
    assert_int_equal(compare_profile_save(&r, path), 0);
    compare_result_free(&r);
    /* not an A/A: refused */
    assert_int_equal(compare_load(&r, base_upgrade, 2, NULL), 0);
    assert_int_equal(compare_profile_save(&r, path), BG_EUSAGE);
    compare_result_free(&r);
    struct compare_profile *pf = NULL;
    assert_int_equal(compare_profile_load(&pf, path), 0);
    assert_true(pf->ncells >= 5);
    struct compare_options o = {SIGNIFICANCE_ALPHA, SIGNIFICANCE_NOISE, SIGNIFICANCE_RESAMPLES, NULL, pf};
    /* same machine, canary unmoved: the band comes from the profile */
    assert_int_equal(compare_load(&r, aa, 2, &o), 0);
    assert_true(r.pairs[0].profile_used);
    const struct compare_cell *c = cell(&r.pairs[0], "bert/fit/b8/torch-eager");
    assert_true(c->t.cv_from_profile);
    compare_result_free(&r);
    /* the canary ran 1.3x as long in `later`: refused, measured bands as without it */
    assert_int_equal(compare_load(&r, moved, 2, &o), 0);
    assert_false(r.pairs[0].profile_used);
    assert_non_null(strstr(r.pairs[0].profile_note, "refused: the drift canary moved"));
    for (size_t i = 0; i < r.pairs[0].ncells; i++)
        assert_false(r.pairs[0].cells[i].t.cv_from_profile);
    compare_result_free(&r);
    /* the check itself */
    double logs[20], ratio, lo, hi;
    for (size_t i = 0; i < 20; i++)
        logs[i] = pf->canary_mean + (i % 2 ? 0.01 : -0.01);
    assert_int_equal(compare_profile_canary_ok(pf, logs, 20, 0.02, 0.05, &ratio, &lo, &hi), 1);
    for (size_t i = 0; i < 20; i++)
        logs[i] += log(1.10);
    assert_int_equal(compare_profile_canary_ok(pf, logs, 20, 0.02, 0.05, &ratio, &lo, &hi), 0);
    assert_true(lo > 1.02);
    compare_profile_free(pf);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts_of_the_fixture),    cmocka_unit_test(test_environment_and_confounding),
        cmocka_unit_test(test_three_runs_and_trend),       cmocka_unit_test(test_aa_comparison),
        cmocka_unit_test(test_noise_option_widens_same),   cmocka_unit_test(test_json_is_stable),
        cmocka_unit_test(test_main_exit_statuses_and_out), cmocka_unit_test(test_same_states_a_wide_band),
        cmocka_unit_test(test_noise_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
