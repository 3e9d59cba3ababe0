/*
 * cellkey.h - the keys that tie a result file to the attempt the submitting
 * side issued (docs/CLUSTER.md, "Trust model").
 *
 * For every attempt it starts (a local --devices/--cpus-per-cell slot) or
 * submits (one Slurm array), the submitting side makes an Ed25519 key pair:
 * the public half goes into run.db with the attempt (store_issue()), the
 * private half only into the environment of the `benchgen cell` processes
 * (CELLKEY_ENV), which take it out of their environment and make themselves
 * undumpable before any workload starts. A result file carries the
 * signature of its own content; merging checks it with the public key run.db
 * holds. Neither run.db nor a result file holds anything a workload could
 * sign with, so a workload that writes into another cell's directory cannot
 * make a file that merges.
 *
 * Keys and signatures travel as lower-case hex (64 and 128 characters).
 */
#ifndef BENCHGEN_CELLKEY_H
#define BENCHGEN_CELLKEY_H

#include <stddef.h>

#define CELLKEY_ENV "BENCHGEN_ATTEMPT_KEY"
#define CELLKEY_HEX 65  /* 32 bytes in hex and a NUL */
#define CELLKEY_SIG_HEX 129

/* A fresh key pair. 0 or BG_EGENERIC (OpenSSL's failure). */
int cellkey_new(char priv[CELLKEY_HEX], char pub[CELLKEY_HEX]);

/* Signs msg with the private key priv (hex). */
int cellkey_sign(char sig[CELLKEY_SIG_HEX], const char *priv, const void *msg, size_t n);

/* 1 when sig (hex) is a signature of msg by the public key pub (hex), 0 when
 * it is not (or either is malformed). */
int cellkey_verify(const char *pub, const char *sig, const void *msg, size_t n);

/* Overwrites a key held in memory. */
void cellkey_wipe(char *key, size_t n);

#endif /* BENCHGEN_CELLKEY_H */
