/*
 * fuzz_common.h - what every libFuzzer target in tests/fuzz/ shares: a
 * private scratch directory (removed at exit), writing the input to a file
 * there, and a sink for the text a reader prints. Each target calls the
 * library entry point the program calls on the same input (README.md).
 */
#ifndef BENCHGEN_FUZZ_COMMON_H
#define BENCHGEN_FUZZ_COMMON_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char fuzz_dir[256];

static __attribute__((unused)) void fuzz_cleanup(void)
{
    if (fuzz_dir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "fuzz: cannot remove %s\n", fuzz_dir);
    }
}

/* Creates the scratch directory once; returns it. */
static __attribute__((unused)) const char *fuzz_scratch(void)
{
    if (!fuzz_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/benchgen-fuzz.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(fuzz_dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_cleanup);
    }
    return fuzz_dir;
}

/* Writes data to path (replacing it); aborts when it cannot. */
static __attribute__((unused)) void fuzz_write(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    const char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w <= 0) {
            perror(path);
            abort();
        }
        p += w;
        size -= (size_t)w;
    }
    close(fd);
}

/* Reads a whole file (for seeds the target builds on); aborts when missing. */
static __attribute__((unused)) char *fuzz_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        abort();
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    if (!buf)
        abort();
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* A NUL-terminated copy of the input. */
static __attribute__((unused)) char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Where printed output goes: /dev/null, opened once. */
static __attribute__((unused)) FILE *fuzz_sink(void)
{
    static FILE *f;
    if (!f && !(f = fopen("/dev/null", "w")))
        abort();
    return f;
}

#endif /* BENCHGEN_FUZZ_COMMON_H */
