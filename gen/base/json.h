/*
 * json.h - the one JSON writer: building documents with jansson and writing
 * them the same way everywhere (show --json, compare.json, MANIFEST.json).
 *
 * Text that is not UTF-8 (a traceback, an environment value, a variable's
 * name) follows one rule, for values and keys alike: every byte that does not
 * start a valid UTF-8 sequence (overlong forms, surrogates and code points
 * past U+10FFFF included) becomes U+FFFD; valid sequences are kept as they
 * are. NULL strings become JSON null, non-finite numbers too (JSON has no NaN
 * or infinity).
 *
 * The builders take the error so far in *err: after a failure they only
 * release what they are given, so a document is built with no check per
 * call and one check at the end. Documents are written with two-space
 * indentation, sorted keys, 15 significant digits and a final newline, so the
 * same document is the same bytes.
 */
#ifndef BENCHGEN_JSON_H
#define BENCHGEN_JSON_H

#include <stdio.h>

#include <jansson.h>

/* A JSON string of s (cleaned by the rule above), null for NULL; never NULL
 * (jansson allocates through the x-family). */
json_t *json_str(const char *s);

/* x, or null when x is NaN or infinite. */
json_t *json_num(double x);

/* o[key] = v, taking v (released on any failure; a NULL v is a failure).
 * The key is cleaned like a value. Sets *err to BG_EGENERIC on failure (a
 * value jansson refused; jansson allocates with the x-family, so running out
 * of memory exits instead); does nothing but release v when *err is already set. */
void json_put(json_t *o, const char *key, json_t *v, int *err);

/* Appends v to the array a, with json_put()'s contract. */
void json_push(json_t *a, json_t *v, int *err);

/* {key: value} of a kvlist (a repeated key keeps its last value), with
 * json_put()'s *err contract: the caller's json_put() records a NULL. */
struct kvlist;
json_t *json_kvmap(const struct kvlist *kl, int *err);

/* The document as text, with a final newline; malloc'd. NULL and
 * BG_EGENERIC in error_last() when jansson refuses the document. */
char *json_text(const json_t *root);

/* The document on one line (compact, sorted keys, a final newline), for
 * streams of events; malloc'd. NULL and BG_EGENERIC as json_text(). */
char *json_line(const json_t *root);

/* The document written to out; 0 or BG_EIO. */
int json_write(const json_t *root, FILE *out);

/* A copy of s with the rule above applied; malloc'd, never NULL. */
char *json_utf8_clean(const char *s);

#endif /* BENCHGEN_JSON_H */
