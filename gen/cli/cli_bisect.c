/*
 * cli_bisect.c - `benchgen bisect SPEC --package NAME --good V --bad V` and
 * `benchgen bisect --resume DIR`: which release of a package made a cell
 * slower (the search itself is gen/bisect/bisect.h).
 */
#include "base/error.h"
#include "base/xalloc.h"
#include "bisect/bisect.h"
#include "cli/cli.h"
#include "cli/term.h"
#include "envs/envs_derive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bisect_opts {
    const char *package, *good, *bad, *only, *out, *resume, *index, *noise, *effect;
    bool faster, pre, yanked;
    int repeats, max_repeats, first, cap;
};

static const struct opt bisect_options[] = {
    OPT_STR(struct bisect_opts, package, "package", 0, "NAME", "the package whose releases are bisected"),
    OPT_STR(struct bisect_opts, good, "good", 0, "VERSION", "a release without the change"),
    OPT_STR(struct bisect_opts, bad, "bad", 0, "VERSION", "a release with it"),
    OPT_STR(struct bisect_opts, only, "only", 0, "FILTER", "bisect a subset of the cells (as `run --only`)"),
    OPT_STR(struct bisect_opts, out, "out", 'o', "DIR",
            "where the steps and the answer go (default runs/<spec name>-bisect-\n<package>; must be new or empty)"),
    OPT_FLAG(struct bisect_opts, faster, "faster", 0, "look for the release that made cells faster"),
    OPT_INT(struct bisect_opts, first, "first", 0, "N", 3, 1000,
            "each step stops as `run --ab` does: N processes a side before\nthe first look (default 4; spec ab_first)"),
    OPT_INT(struct bisect_opts, cap, "cap", 0, "N", 3, 1000,
            "at most N processes a side for a cell still undecided; a step\nundecided there ends the bisect "
            "(default 12; spec ab_cap)"),
    OPT_STR(struct bisect_opts, effect, "effect", 0, "PCT",
            "the smallest change of interest of the steps' sequential rule,\nin percent (default 5; spec ab_effect)"),
    OPT_INT(struct bisect_opts, repeats, "repeats", 0, "N", 2, 1000,
            "a fixed N processes a side in each step instead of stopping\nsequentially"),
    OPT_INT(struct bisect_opts, max_repeats, "max-repeats", 0, "N", 2, 1000,
            "with --repeats: an ambiguous step runs again with twice the\nprocesses, up to N (default 4 x --repeats)"),
    OPT_STR(struct bisect_opts, noise, "noise", 0, "PCT",
            "half-width of compare's noise band in the steps, in percent\n(default: a third of the change the "
            "endpoints measured, at\nleast compare's 2; the endpoints use 2)"),
    OPT_STR(struct bisect_opts, index, "index", 0, "URL",
            "the package index listing the releases (default $UV_DEFAULT_INDEX,\n$UV_INDEX_URL, $PIP_INDEX_URL, "
            "else PyPI); the environments\nare installed as `env sync` installs them"),
    OPT_FLAG(struct bisect_opts, pre, "pre", 0, "include pre-releases in the range"),
    OPT_FLAG(struct bisect_opts, yanked, "yanked", 0, "include yanked releases in the range"),
    OPT_STR(struct bisect_opts, resume, "resume", 0, "DIR",
            "continue an interrupted bisect in DIR (finished steps are not run\nagain)"),
};

static int bisect_cmd(const struct cli_call *call)
{
    const struct bisect_opts *o = call->opts;
    struct bisect *b = NULL;
    char *out = NULL;
    int err = 0, status = CLI_EXIT_OK;
    if (o->resume) {
        if (call->nargs || o->package || o->good || o->bad || o->only || o->out || o->index || o->repeats ||
            o->max_repeats || o->first || o->cap || o->effect || o->faster || o->pre || o->yanked || o->noise)
            return cli_usage_error(&cli_bisect, "--resume takes everything from DIR's bisect.json; give it alone");
        err = bisect_resume(&b, o->resume);
    } else {
        if (!call->nargs)
            return cli_usage_error(&cli_bisect, "missing SPEC");
        if (!o->package || !o->good || !o->bad)
            return cli_usage_error(&cli_bisect, "--package, --good and --bad are required");
        char *pg = xprintf("%s==%s", o->package, o->good), *pb = xprintf("%s==%s", o->package, o->bad);
        int bad = envs_derive_check_pin(pg) < 0 || envs_derive_check_pin(pb) < 0;
        free(pg);
        free(pb);
        if (bad)
            return cli_usage_error(&cli_bisect, "%s", error_last());
        if (o->max_repeats && o->repeats && o->max_repeats < o->repeats)
            return cli_usage_error(&cli_bisect, "--max-repeats %d is below --repeats %d", o->max_repeats, o->repeats);
        if (o->repeats && (o->first || o->cap || o->effect))
            return cli_usage_error(&cli_bisect, "--repeats asks for a fixed count a side: drop --first, --cap and "
                                                "--effect, or drop --repeats for sequential steps");
        if (o->max_repeats && !o->repeats)
            return cli_usage_error(&cli_bisect, "--max-repeats goes with --repeats (a fixed count a side); the "
                                                "sequential steps stop at --cap");
        if (o->first && o->cap && o->cap < o->first)
            return cli_usage_error(&cli_bisect, "the cap (%d) is below the first batch (%d) a side", o->cap, o->first);
        double effect = 0;
        if (o->effect) {
            char *end = NULL;
            effect = strtod(o->effect, &end) / 100.0;
            if (!end || end == o->effect || (*end && strcmp(end, "%") != 0) || !(effect > 0.0 && effect < 1.0))
                return cli_usage_error(&cli_bisect, "--effect expects a percentage in (0, 100), e.g. 5 or 5%% "
                                                    "(got '%s')", o->effect);
        }
        double noise = 0;
        if (o->noise) {
            char *end = NULL;
            noise = strtod(o->noise, &end);
            if (end == o->noise || *end || !(noise > 0 && noise < 100))
                return cli_usage_error(&cli_bisect, "--noise %s: expected a percentage above 0 and below 100",
                                       o->noise);
        }
        const char *slash = strrchr(call->args[0], '/'), *base = slash ? slash + 1 : call->args[0];
        size_t stem = strcspn(base, ".");
        out = o->out ? xstrdup(o->out) : xprintf("runs/%.*s-bisect-%s", (int)stem, base, o->package);
        struct bisect_options bo = {.spec = call->args[0],
                                    .package = o->package,
                                    .good = o->good,
                                    .bad = o->bad,
                                    .only = o->only,
                                    .index = o->index,
                                    .out = out,
                                    .faster = o->faster,
                                    .pre = o->pre,
                                    .yanked = o->yanked,
                                    .processes = o->repeats,
                                    .max_processes = o->max_repeats,
                                    .first = o->first,
                                    .cap = o->cap,
                                    .effect = effect,
                                    .noise = noise / 100};
        if ((err = bisect_start(&b, &bo)) == 0)
            fprintf(stderr, "bisect: %s: %zu releases of %s from %s (%s to %s); resume with `benchgen bisect "
                            "--resume %s`\n",
                    out, b->rel.n, o->package, b->rel.index, b->rel.v[0].version, b->rel.v[b->rel.n - 1].version,
                    out);
    }
    if (!err && (err = bisect_run(b, term_voice())) == 0) {
        fflush(stderr);
        err = bisect_write_text(b, stdout);
        if (!err && b->outcome == BISECT_UNDECIDED)
            status = CLI_EXIT_FAILED;
    }
    if (err < 0) {
        if (err == BG_EINTR && b)
            fprintf(stderr, "bisect: interrupted; `benchgen bisect --resume %s` goes on\n", b->dir);
        status = cli_fail(&cli_bisect, err);
    }
    bisect_free(b);
    free(out);
    return status;
}

const struct cli_command cli_bisect = {
    .name = "bisect",
    .synopsis = "SPEC --package NAME --good VERSION --bad VERSION [--only KEY=VAL,...]\n"
                " [--out DIR] [--faster] [--first N] [--cap N] [--effect PCT]\n"
                " [--repeats N [--max-repeats N]] [--noise PCT]\n"
                " [--index URL] [--pre] [--yanked]\n"
                "--resume DIR",
    .summary = "find the release of a package that made cells slower (A/B steps)",
    .about = "Lists the releases of NAME from VERSION good to VERSION bad on the package\n"
             "index (pre-releases and yanked ones left out unless asked), confirms that an\n"
             "interleaved A/B of good against bad calls some cell slower (else: nothing to\n"
             "bisect), then bisects: each step an A/B of the last good release against the\n"
             "middle of the range left, in environments that pin NAME (as `run --with`),\n"
             "judged by compare's verdicts; each step stops as `run --ab` does (a first\n"
             "batch, then more processes only while undecided, up to the cap), unless\n"
             "--repeats asks for a fixed count. A release whose environment cannot be\n"
             "built is skipped with the reason. Every step is an A/B run directory\n"
             "under DIR (benchgen compare DIR/STEP); the answer is printed and written to DIR\n"
             "(bisect.txt, .json, .md, .html). docs/BISECT.md.\n",
    .exits = "0    the first bad release found, or nothing to bisect\n"
             "1    a step stayed undecided at --cap (or ambiguous at --max-repeats; the\n"
             "     range narrowed so far is printed), or an operation failed\n"
             "2    usage error, bad spec, a version that is no release, DIR taken or\n"
             "     holding no bisect\n"
             "130  interrupted (`benchgen bisect --resume DIR` goes on)",
    .spec = {bisect_options, sizeof(bisect_options) / sizeof(bisect_options[0]), 0, 1, "SPEC"},
    .opts_size = sizeof(struct bisect_opts),
    .run = bisect_cmd,
};
