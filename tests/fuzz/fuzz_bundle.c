/*
 * fuzz_bundle.c - bundle verification (`benchgen verify FILE.tar.gz`):
 * bundle_verify() on a bundle a stranger made. An input that starts with
 * the gzip magic is the file as it is; any other input is taken as the tar
 * and gzipped by the target first, so the fuzzer's mutations land on the tar
 * headers, MANIFEST.json, SHA256SUMS and the files rather than on deflate.
 *
 * The report re-rendering verify does is the seam bundle.h gives tests: a
 * renderer writing one fixed file (report_render() on a run.db is fuzzed by
 * fuzz_rundb and fuzz_runsql; here it would cost a second per input).
 *
 * BENCHGEN_FUZZ_SEED=FILE: writes the seed, the bundle of
 * tests/fixtures/runs/tricky made by bundle_create() with that renderer, as
 * an uncompressed tar to FILE, and exits.
 */
#include "fuzz_common.h"

#include <zlib.h>

#include "bundle/bundle.h"

static int render(const char *run_dir, const char *out_dir, const struct report_options *opt)
{
    char path[1024];
    mkdir(out_dir, 0755);
    snprintf(path, sizeof(path), "%s/report.md", out_dir);
    fuzz_write(path, "# fuzz report\n", 14);
    return 0;
}

static void gzip_to(const char *path, const uint8_t *data, size_t size)
{
    gzFile g = gzopen(path, "wb1");
    if (!g || (size && gzwrite(g, data, (unsigned)size) != (int)size) || gzclose(g) != Z_OK)
        abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *seed = getenv("BENCHGEN_FUZZ_SEED");
    if (!seed)
        return 0;
    char gz[400];
    snprintf(gz, sizeof(gz), "%s/seed.tar.gz", fuzz_scratch());
    struct bundle_options o = {.render = render};
    if (bundle_create(BENCHGEN_SOURCE_DIR "/tests/fixtures/runs/tricky", gz, &o) < 0)
        abort();
    gzFile g = gzopen(gz, "rb");
    FILE *out = fopen(seed, "wb");
    char buf[65536];
    int n;
    while (g && out && (n = gzread(g, buf, sizeof(buf))) > 0)
        fwrite(buf, 1, (size_t)n, out);
    if (!g || !out)
        abort();
    gzclose(g);
    fclose(out);
    exit(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[400];
    snprintf(path, sizeof(path), "%s/in.tar.gz", fuzz_scratch());
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
        fuzz_write(path, data, size);
    else
        gzip_to(path, data, size);
    size_t problems = 0;
    struct bundle_options o = {.render = render};
    (void)bundle_verify(path, fuzz_sink(), &problems, &o);
    return 0;
}
