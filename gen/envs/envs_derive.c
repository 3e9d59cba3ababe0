/*
 * envs_derive.c - derived environments for `run --with PKG==VERSION`: the
 * parent's lock with each pinned package's line replaced (names compared
 * PEP 503-normalised), written to <cache>/derived/ and built like any lock
 * (envs.h, envs_derive()).
 */
#include "envs/envs_derive.h"
#include "envs/envs.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* PEP 503 normalisation: case and runs of -_. do not distinguish packages. */
static void normalise_pkg(const char *in, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        char c = in[i];
        if (c == '-' || c == '_' || c == '.') {
            if (o == 0 || out[o - 1] != '-')
                out[o++] = '-';
        } else {
            out[o++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
    }
    out[o] = '\0';
}

/* Length of the requirement name at the start of line (0 when the line is a
 * comment, an option or blank). */
static size_t requirement_name_len(const char *line)
{
    size_t n = 0;
    while (line[n] && (isalnum((unsigned char)line[n]) || line[n] == '-' || line[n] == '_' || line[n] == '.'))
        n++;
    return n;
}

/* A PEP 508 distribution name: letters and digits, with . _ - inside only
 * (so never "--index-url", which pip would read as an option, nor "."). */
static bool pep508_name(const char *s, size_t n)
{
    if (n == 0 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    return requirement_name_len(s) >= n;
}

static bool word_at(const char **p, const char *const *words)
{
    for (size_t i = 0; words[i]; i++) {
        size_t n = strlen(words[i]);
        if (strncasecmp(*p, words[i], n) == 0) {
            *p += n;
            return true;
        }
    }
    return false;
}

static void skip_sep(const char **p)
{
    if (**p == '.' || **p == '-' || **p == '_')
        (*p)++;
}

static void skip_digits(const char **p)
{
    while (isdigit((unsigned char)**p))
        (*p)++;
}

/* An optional [sep]WORD[sep][digits] at *p (a pre, post or dev part). */
static void optional_part(const char **p, const char *const *words)
{
    const char *q = *p;
    skip_sep(&q);
    if (!word_at(&q, words))
        return;
    skip_sep(&q);
    skip_digits(&q);
    *p = q;
}

/* A PEP 440 version as pip accepts it after == (its normalisations
 * included): N(.N)*, then a pre-release (a, b, rc, alpha, beta, c, pre,
 * preview), a post-release (post, rev, r, or -N), a dev release, and a
 * local part (+abc.1). No epoch (its '!' cannot be in an environment name),
 * no wildcard: a pin names one version. */
static bool pep440_version(const char *s)
{
    static const char *const pre[] = {"alpha", "beta", "preview", "pre", "rc", "a", "b", "c", NULL};
    static const char *const post[] = {"post", "rev", "r", NULL};
    static const char *const dev[] = {"dev", NULL};
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return false;
    skip_digits(&p);
    while (*p == '.' && isdigit((unsigned char)p[1])) {
        p++;
        skip_digits(&p);
    }
    optional_part(&p, pre);
    if (*p == '-' && isdigit((unsigned char)p[1])) { /* 1.0-1: a post-release */
        p++;
        skip_digits(&p);
    } else {
        optional_part(&p, post);
    }
    optional_part(&p, dev);
    if (*p == '+') { /* +abc.1: segments of letters and digits */
        do {
            p++;
            if (!isalnum((unsigned char)*p))
                return false;
            while (isalnum((unsigned char)*p))
                p++;
        } while (*p == '.' || *p == '-' || *p == '_');
    }
    return *p == '\0';
}

int envs_derive_check_pin(const char *pin)
{
    const char *eq = strstr(pin, "==");
    size_t n = eq ? (size_t)(eq - pin) : 0;
    if (!eq || n >= 128 || !pep508_name(pin, n) || strlen(eq + 2) >= 128 || !pep440_version(eq + 2))
        return error_set(BG_EUSAGE, "--with %s: expected PKG==VERSION, a package name (letters, digits, "
                         "and . _ - inside) and one version (like 2.2.6, 2.1.0rc1, 2.5.1+cpu); nothing else "
                         "reaches the installer", pin);
    return 0;
}

static int check_pin(const char *pin, char pkg[128], char ver[128])
{
    int err = envs_derive_check_pin(pin);
    if (err < 0)
        return err;
    const char *eq = strstr(pin, "==");
    normalise_pkg(pin, (size_t)(eq - pin), pkg, 128);
    snprintf(ver, 128, "%s", eq + 2);
    return 0;
}

int envs_derive(const char *base, const char *const *pins, size_t npins, char **name_out)
{
    *name_out = NULL;
    struct env_info info = {0};
    char *text = NULL, *name = NULL, *path = NULL;
    struct strbuf lock = {0}, nm = {0};
    char (*pkgs)[128] = xcalloc(npins ? npins : 1, 128);
    int err = 0;
    if ((err = envs_resolve(base, &info)) < 0)
        goto done;
    if (!info.lock_path) {
        err = error_set(BG_EUSAGE, "--with needs a lock file to derive from; %s is a registered interpreter "
                        "(install the pins into it yourself)", base);
        goto done;
    }
    if ((err = util_read_file(info.lock_path, &text, NULL)) < 0)
        goto done;
    strbuf_printf(&nm, "%s", base);
    /* The parent by name, never by path: the lock's bytes name its venv, and every
     * checkout sharing the cache must make the same bytes (and so the same venv). */
    strbuf_printf(&lock, "# derived by `benchgen run --with` from environment %s\n", base);
    for (size_t i = 0; i < npins; i++) {
        char ver[128];
        if ((err = check_pin(pins[i], pkgs[i], ver)) < 0)
            goto done;
        strbuf_printf(&nm, "+%s-%s", pkgs[i], ver);
        strbuf_printf(&lock, "# with %s\n", pins[i]);
    }
    /* The base lock with every line naming a pinned package replaced. */
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char norm[128];
        size_t n = requirement_name_len(line);
        normalise_pkg(line, n, norm, sizeof(norm));
        int replaced = 0;
        for (size_t i = 0; n && i < npins && !replaced; i++)
            replaced = strcmp(norm, pkgs[i]) == 0;
        if (!replaced)
            strbuf_printf(&lock, "%s\n", line);
    }
    for (size_t i = 0; i < npins; i++)
        strbuf_printf(&lock, "%s\n", pins[i]);
    name = strbuf_detach(&nm);
    if (!name || !util_is_safe_name(name)) {
        err = error_set(BG_EUSAGE, "--with: the pins make an invalid environment name '%s'", name ? name : "");
        goto done;
    }
    char *dir = xprintf("%s/derived", envs_cache_dir());
    err = util_mkdir_p(dir, 0755);
    path = xprintf("%s/%s.txt", dir, name);
    free(dir);
    if (err < 0 || (err = strbuf_error(&lock)) < 0 || (err = util_write_file_atomic(path, lock.buf, lock.len)) < 0)
        goto done;
    *name_out = name;
    name = NULL;
done:
    env_info_free(&info);
    strbuf_free(&lock);
    strbuf_free(&nm);
    free(pkgs);
    free(text);
    free(name);
    free(path);
    return err;
}
