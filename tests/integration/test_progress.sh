#!/usr/bin/env bash
# test_progress.sh - the progress line on a terminal says what it shows
# (starting, importing, building, warm-up K/N, step K/N) and the ETA has a
# value from the first cell on (the catalog's typical duration as the first
# guess), for a plain run and for an interleaved `run --ab`. Runs two small
# NumPy cells, then the A and B processes of one, under a pseudo-terminal
# (script(1)).
# Needs the `base` environment (numpy).
set -u
. "$(dirname "$0")/lib.sh"
cat >"$TMP/spec.yaml" <<'YAML'
name: progress
steps: 2000
warmup: 2
backends: [numpy]
rows:
  - {model: mlp, task: predict, batch: 64}
  - {model: mlp, task: fit, batch: 16}
YAML
script -q -e -c "'$BENCHGEN' run '$TMP/spec.yaml' --out '$TMP/run'" "$TMP/typescript" >/dev/null 2>&1
check "the run exits 0" test $? -eq 0
# every redraw of the line, escape codes removed
tr '\r' '\n' <"$TMP/typescript" | sed 's/\x1b\[K//g' | grep '^\[1/2\]' >"$TMP/first"
# The short phases may fall between two redraws (every 250 ms); the timed
# steps last long enough to be seen, and every redraw carries a label.
labels='(starting|importing|making inputs|building|warm-up [12]/2|step [0-9]+/2000)'
check "the first cell's line says 'step K/2000'" grep -Eq ' step [0-9]+/2000 ' "$TMP/first"
check "... and every redraw has a label" test -z "$(grep -v '^\[1/2\] .* ok ' "$TMP/first" | grep -Ev "^\[1/2\] mlp/predict/b64/numpy  $labels  [0-9:]+  ETA")"
check "the ETA has a value during the first cell" grep -Eq 'ETA [0-9]+:[0-9][0-9]$' "$TMP/first"
check "... never '?'" test -z "$(grep 'ETA ?' "$TMP/first")"

# run --ab (one process a side): the same line, the same first guess, for the
# A process that comes first
script -q -e -c "'$BENCHGEN' run '$TMP/spec.yaml' --ab --repeats 1 --only task=predict --out '$TMP/ab'" "$TMP/ab.ts" >/dev/null 2>&1
check "run --ab exits 0" test $? -eq 0
tr '\r' '\n' <"$TMP/ab.ts" | sed 's/\x1b\[K//g' | grep '^\[1/2\]' >"$TMP/abfirst"
check "run --ab: the first process's line says 'step K/2000'" grep -Eq ' step [0-9]+/2000 ' "$TMP/abfirst"
check "run --ab: the ETA has a value during the first process" grep -Eq 'ETA [0-9]+:[0-9][0-9]$' "$TMP/abfirst"
check "run --ab: ... never '?'" test -z "$(grep 'ETA ?' "$TMP/abfirst")"
finish
