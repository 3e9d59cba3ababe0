/*
 * envs_releases.h - the published releases of a package between two
 * versions, from the package index the environments are installed from
 * (`benchgen bisect`; the reading itself is runners/releases.py, run with
 * the interpreter that makes the environments).
 *
 * The index is, in order: the caller's, $UV_DEFAULT_INDEX, $UV_INDEX_URL,
 * $PIP_INDEX_URL, else PyPI's https://pypi.org/simple. Pre-releases and
 * yanked releases (PEP 592: every file yanked) are left out unless asked,
 * the two ends excepted.
 *
 * Ownership: struct envs_releases owns its strings; envs_releases_free().
 */
#ifndef BENCHGEN_ENVS_RELEASES_H
#define BENCHGEN_ENVS_RELEASES_H

#include <stdbool.h>
#include <stddef.h>

struct envs_release {
    char *version; /* as the index's PEP 440 normal form ("1.0.3") */
    bool wheel;    /* some file is a wheel the interpreter can install */
    char *files;   /* the release's file names, comma-separated; "-" when none */
};

struct envs_releases {
    char *index;                /* the index asked */
    struct envs_release *v;     /* from good to bad: v[0] is good, v[n - 1] bad */
    size_t n;
    char **excluded;            /* "1.0.5rc1 a pre-release", "1.0.4 yanked" */
    size_t nexcluded;
};

struct envs_releases_opts {
    const char *index;  /* NULL: from the environment, else PyPI */
    const char *python; /* the interpreter that reads it (runs runners/releases.py) */
    bool pre, yanked;   /* keep pre-releases, yanked releases */
};

/* Lists pkg's releases from good to bad, both included (in descending
 * version order when good is the newer). BG_EIO when the index cannot
 * be asked, BG_EUSAGE when good or bad is not a release there (the message
 * says which) or
 * good == bad. */
int envs_releases_list(struct envs_releases *out, const char *pkg, const char *good, const char *bad,
                       const struct envs_releases_opts *o);

/* The index envs_releases_list() asks with o->index == NULL. Borrowed. */
const char *envs_releases_index(void);

void envs_releases_free(struct envs_releases *r);

#endif /* BENCHGEN_ENVS_RELEASES_H */
