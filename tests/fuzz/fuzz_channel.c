/*
 * fuzz_channel.c - the worker's report lines, as the parent reads them off
 * the pipe or socket (channel_feed()). The first byte picks how the rest is
 * cut into reads (1 byte, 7 bytes, 4 KiB, all at once), since the parser
 * must give the same answer whatever the chunking.
 */
#include "fuzz_common.h"

#include "runners/channel.h"
#include "store/result.h"

static void feed(const uint8_t *data, size_t size, size_t chunk, struct channel_reader *cr, struct result *r)
{
    for (size_t off = 0; off < size; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        if (channel_feed(cr, (const char *)data + off, n, r) < 0)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const size_t chunks[] = {1, 7, 4096, (size_t)-1};
    size_t chunk = chunks[data[0] & 3];
    data++, size--;
    struct channel_reader a = {0}, b = {0};
    struct result ra = {0}, rb = {0};
    feed(data, size, chunk, &a, &ra);
    feed(data, size, (size_t)-1, &b, &rb);
    /* Chunking does not change the verdict or the samples. */
    if (a.final != b.final || strcmp(a.problem, b.problem) != 0 || ra.ntimed != rb.ntimed ||
        ra.nwarmup != rb.nwarmup || ra.status != rb.status)
        abort();
    for (size_t i = 0; i < ra.ntimed; i++)
        if (ra.timed_ns[i] != rb.timed_ns[i] || ra.timed_ns[i] <= 0)
            abort();
    channel_reader_free(&a);
    channel_reader_free(&b);
    result_free(&ra);
    result_free(&rb);
    return 0;
}
