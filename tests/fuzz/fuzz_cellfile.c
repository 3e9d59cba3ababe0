/*
 * fuzz_cellfile.c - the cell result file reader (an attempt's
 * cells/<id>/<tag>.json, from a Slurm node or a local slot): cellfile_load(),
 * then cellcheck_attempt() against a plan cell and the attempts run.db
 * issued for it, as merging (run/collect.c) does.
 *
 * Structure-aware: a document whose "signature" is the text "resign" is
 * signed by the target with the issued attempt's key before it is checked,
 * so the fuzzer reaches the checks behind the signature (what an attacker
 * holding the key could write); any other signature is checked as it is.
 * The file is checked under the name its tag gives it.
 *
 * BENCHGEN_FUZZ_VERBOSE=1: prints each input's verdict (why it is refused).
 * BENCHGEN_FUZZ_SEED=DIR: writes the seed files (a signed ok result and a
 * Slurm verdict, from cellfile_write_attempt()) into DIR and exits.
 */
#include "fuzz_common.h"

#include <jansson.h>

#include "run/cellcheck.h"
#include "run/cellfile.h"
#include "run/cellkey.h"
#include "store/result.h"

static struct cell cell;
static struct store_issued issued_v[2];
static struct store_issued_list issued = {issued_v, 2};
static char priv[CELLKEY_HEX], pub[CELLKEY_HEX];

static void make_seeds(const char *dir)
{
    struct result r = {0};
    r.status = STATUS_OK;
    snprintf(r.input_sha256, sizeof(r.input_sha256), "%064d", 0);
    r.input_bytes = 64;
    r.started = 1700000000, r.finished = 1700000002, r.wall_s = 2.5, r.peak_rss = 1 << 20;
    result_add_sample(&r, 1, 5000000);
    for (int i = 0; i < 3; i++)
        result_add_sample(&r, 0, 1000000 + i);
    kvlist_add(&r.phases, "imported", "1000");
    kvlist_add(&r.facts, "placement.device", "cpu");
    kvlist_add(&r.env, "pkg.numpy", "2.2.6");
    tseries_add(&r.telemetry, "host.other_cpu", 100, 0.5);
    struct result v = {0};
    v.status = STATUS_TIMEOUT;
    v.detail = strdup("TIMEOUT (Slurm)");
    v.exit_code = -1, v.term_signal = 9;
    if (cellfile_write_attempt(dir, &cell, "l100.0", 0, &r, priv) < 0 ||
        cellfile_write_attempt(dir, &cell, "s5_0.3", 1, &v, NULL) < 0)
        abort();
    char *path = NULL;
    if (asprintf(&path, "%s/cells/1/l100.0.json", dir) < 0)
        abort();
    json_t *doc = json_load_file(path, 0, NULL);
    json_object_set_new(doc, "signature", json_string("resign"));
    json_dump_file(doc, path, JSON_SORT_KEYS | JSON_INDENT(1));
    json_decref(doc);
    free(path);
    result_free(&r);
    result_free(&v);
    exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    cell.id = 1;
    cell.key = "m/fit/b2/numpy";
    cell.model = "m", cell.task = "fit", cell.backend = "numpy", cell.size = "tiny";
    cell.precision = "float32", cell.env = "base", cell.method = "corrected", cell.device = "auto";
    cell.batch = 2, cell.steps = 3, cell.warmup = 1, cell.repeat = 1;
    cell.timeout = 10, cell.memory_limit = 1 << 30;
    if (cellkey_new(priv, pub) < 0)
        abort();
    issued_v[0] = (struct store_issued){1, "l100.0", pub};
    issued_v[1] = (struct store_issued){2, "s5_0.", pub};
    const char *seed = getenv("BENCHGEN_FUZZ_SEED");
    if (seed)
        make_seeds(seed);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/in.json", fuzz_scratch());
    fuzz_write(path, data, size);
    json_t *doc = NULL;
    if (cellfile_load(AT_FDCWD, path, "in.json", CELLFILE_MAX_BYTES, &doc) < 0)
        return 0;
    const char *sig = json_string_value(json_object_get(doc, "signature"));
    if (json_is_object(doc) && sig && strcmp(sig, "resign") == 0) {
        json_object_del(doc, "signature");
        char *msg = cellcheck_signed_text(doc);
        char s[CELLKEY_SIG_HEX];
        if (msg && cellkey_sign(s, priv, msg, strlen(msg)) == 0)
            json_object_set_new(doc, "signature", json_string(s));
        free(msg);
    }
    const char *tag = json_string_value(json_object_get(doc, "tag"));
    char name[256] = "in.json";
    if (tag && strlen(tag) < 200)
        snprintf(name, sizeof(name), "%s%s.json", tag, json_is_true(json_object_get(doc, "verdict")) ? ".slurm" : "");
    struct cellcheck_attempt a;
    char why[512];
    if (cellcheck_attempt(doc, name, &cell, &issued, &a, why, sizeof(why)) == 0) {
        /* What passes is what the worker could have produced. */
        if (a.r.status == STATUS_NONE || a.r.nwarmup > (size_t)cell.warmup || a.r.ntimed > (size_t)cell.steps)
            abort();
        cellcheck_attempt_free(&a);
        why[0] = '\0';
    }
    if (getenv("BENCHGEN_FUZZ_VERBOSE"))
        fprintf(stderr, "%s: %s\n", name, why[0] ? why : "passes");
    json_decref(doc);
    return 0;
}
