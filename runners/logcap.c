/*
 * logcap.c - the capped cell log (see logcap.h).
 */
#include "runners/logcap.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* a full disk loses log lines, never the run */
        p += w;
        n -= (size_t)w;
    }
}

int logcap_open(struct logcap *lc, const char *path, uint64_t limit)
{
    memset(lc, 0, sizeof(*lc));
    lc->limit = limit ? limit : LOGCAP_DEFAULT;
    lc->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (lc->fd < 0)
        return error_set(BG_EIO, "%s: %s", path, strerror(errno));
    return 0;
}

void logcap_write(struct logcap *lc, const char *buf, size_t n)
{
    uint64_t head = lc->limit - lc->limit / 2;
    if (lc->written < head) {
        size_t take = head - lc->written < n ? (size_t)(head - lc->written) : n;
        write_all(lc->fd, buf, take);
        lc->written += take;
        buf += take;
        n -= take;
    }
    if (n == 0)
        return;
    if (!lc->ring) {
        lc->ring_cap = (size_t)(lc->limit / 2);
        if (lc->ring_cap == 0 || !(lc->ring = malloc(lc->ring_cap))) {
            lc->ring_cap = 0;
            lc->dropped += n;
            return;
        }
    }
    if (n >= lc->ring_cap) { /* only the last ring_cap bytes can survive */
        lc->dropped += lc->ring_len + (n - lc->ring_cap);
        buf += n - lc->ring_cap;
        n = lc->ring_cap;
        lc->ring_pos = 0;
        lc->ring_len = 0;
    }
    size_t over = lc->ring_len + n > lc->ring_cap ? lc->ring_len + n - lc->ring_cap : 0;
    lc->dropped += over;
    lc->ring_len -= over;
    /* Append at (ring_pos + ring_len) mod cap; ring_pos is the oldest byte. */
    lc->ring_pos = (lc->ring_pos + over) % lc->ring_cap;
    size_t at = (lc->ring_pos + lc->ring_len) % lc->ring_cap;
    size_t first = lc->ring_cap - at < n ? lc->ring_cap - at : n;
    memcpy(lc->ring + at, buf, first);
    memcpy(lc->ring, buf + first, n - first);
    lc->ring_len += n;
}

uint64_t logcap_close(struct logcap *lc)
{
    uint64_t dropped = lc->dropped;
    if (lc->fd >= 0 && lc->ring_len > 0) {
        char note[160];
        if (dropped) {
            int k = snprintf(note, sizeof(note),
                             "\n[benchgen: %" PRIu64 " bytes of output dropped here: the log keeps the first "
                             "and the last %" PRIu64 " bytes (log_limit %" PRIu64 ")]\n",
                             dropped, lc->limit / 2, lc->limit);
            write_all(lc->fd, note, (size_t)k);
        }
        size_t first = lc->ring_cap - lc->ring_pos < lc->ring_len ? lc->ring_cap - lc->ring_pos : lc->ring_len;
        write_all(lc->fd, lc->ring + lc->ring_pos, first);
        write_all(lc->fd, lc->ring, lc->ring_len - first);
    }
    if (lc->fd >= 0)
        close(lc->fd);
    free(lc->ring);
    memset(lc, 0, sizeof(*lc));
    lc->fd = -1;
    return dropped;
}
