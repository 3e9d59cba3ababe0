/*
 * compare_env.h - the environment side of `benchgen compare`: which keys
 * count as a component change, the intent (--intended patterns and
 * `run --with` pins), and the differences between two key/value lists
 * (docs/COMPARE.md, "Environment diff and intent").
 *
 * Ownership: changes are malloc'd arrays of malloc'd strings, released with
 * compare_env_changes_free(); patterns are added to the pair and released
 * with it.
 */
#ifndef BENCHGEN_COMPARE_ENV_H
#define BENCHGEN_COMPARE_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* One environment key whose value differs between the two sides. */
struct compare_change {
    char *key;     /* "pkg.diffusers", "cuda.runtime", "gpu.0.name" */
    char *a, *b;   /* NULL when the key is absent on that side */
    bool counted;  /* a component that can change performance */
    bool intended; /* matches the comparison's intent */
};

/* True when key can change performance (not a path, a host name, ...). */
bool compare_env_counted(const char *key);

/* "pkg.diffusers" -> "diffusers"; other keys as they are. Borrowed. */
const char *compare_env_display_key(const char *key);

/* Adds s[0..n) to the intent patterns (*pats)[0..*npats) unless there (a
 * malloc'd array of malloc'd strings, the caller's to free). */
int compare_env_add_pattern(char ***pats, size_t *npats, const char *s, size_t n);

/* Adds each of "pat[,pat...]" (may be NULL). */
int compare_env_add_patterns(char ***pats, size_t *npats, const char *list);

/* Adds the PKG of every `--with PKG==VER` in a run's command line. */
int compare_env_add_with_pins(char ***pats, size_t *npats, const char *command_line);

/* The keys whose values differ between a and b, sorted by key. */
int compare_env_diff(const struct kvlist *a, const struct kvlist *b, struct compare_change **out, size_t *n);

/* Sets each counted change's intended flag from the patterns. */
void compare_env_mark_intended(struct compare_change *c, size_t n, char *const *pats, size_t npats);

void compare_env_changes_free(struct compare_change *c, size_t n);

/* Appends "name a -> b" to sb. */
int compare_env_describe_change(struct strbuf *sb, const struct compare_change *c);

#endif /* BENCHGEN_COMPARE_ENV_H */
