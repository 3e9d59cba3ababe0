/*
 * version.h - benchgen's version, git commit and dirty flag.
 *
 * The Makefile passes them as -D flags (from VERSION and git); these
 * defaults only serve builds outside it, so every module agrees on one
 * fallback instead of each defining its own.
 */
#ifndef BENCHGEN_VERSION_H
#define BENCHGEN_VERSION_H

#ifndef BENCHGEN_VERSION
#define BENCHGEN_VERSION "0.0.0"
#endif
#ifndef BENCHGEN_GIT_COMMIT
#define BENCHGEN_GIT_COMMIT "unknown"
#endif
#ifndef BENCHGEN_GIT_DIRTY
#define BENCHGEN_GIT_DIRTY 0
#endif

#endif /* BENCHGEN_VERSION_H */
