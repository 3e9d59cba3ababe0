#!/usr/bin/env bash
# Readers never write (issue 26 item 4, item 9): a run.db-wal from another
# run beside run.db is refused (exit 2) by show, report, status, bundle and
# compare, and neither file changes; a run killed mid-way is read with its
# own WAL, unchanged; a damaged run.db exits 2. Needs the `base` environment.
set -u
. "$(dirname "$0")/lib.sh"

cp tests/workloads/naps.py "$TMP/"
sed 's#../workloads/naps.py#naps.py#' tests/specs/rundir.yaml >"$TMP/s.yaml"
"$BENCHGEN" run "$TMP/s.yaml" --out "$TMP/A" >/dev/null 2>&1
check "run A exits 0" test $? -eq 0
# run B killed (SIGKILL) after two cells: its run.db-wal holds them
"$BENCHGEN" run "$TMP/s.yaml" --out "$TMP/B" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
  [ -s "$TMP/B/run.db-wal" ] && [ "$(ls "$TMP/B/logs" 2>/dev/null | wc -l)" -ge 3 ] && break
  sleep 0.1
done
kill -9 $pid; wait $pid 2>/dev/null
check "B left a WAL" test -s "$TMP/B/run.db-wal"

sha256sum "$TMP/B/run.db" "$TMP/B/run.db-wal" >"$TMP/b.sum"
before=$(ls -A "$TMP/B")
"$BENCHGEN" show "$TMP/B" >"$TMP/b.out" 2>&1
check "show of a killed run with its own WAL exits 0" test $? -eq 0
check "show reads the WAL's cells" grep -q "nap/predict/b1/numpy  ok" "$TMP/b.out"
check "run.db and its WAL unchanged by show" sha256sum -c --quiet "$TMP/b.sum"
check "show created or removed no file beside run.db" test "$before" = "$(ls -A "$TMP/B")"

cp "$TMP/B/run.db-wal" "$TMP/A/run.db-wal"
sha256sum "$TMP/A/run.db" "$TMP/A/run.db-wal" >"$TMP/a.sum"
for cmd in "show $TMP/A" "status $TMP/A" "report $TMP/A --out $TMP/rep" "bundle $TMP/A --out $TMP/a.tgz" "compare $TMP/A $TMP/A"; do
  $BENCHGEN $cmd >"$TMP/f.out" 2>&1
  rc=$?
  check "foreign WAL: ${cmd%% *} exits 2 (got $rc)" test "$rc" -eq 2
  check "foreign WAL: ${cmd%% *} says so" grep -q "run.db-wal does not belong to" "$TMP/f.out"
  check "foreign WAL: ${cmd%% *} changed neither file" sha256sum -c --quiet "$TMP/a.sum"
done

rm -f "$TMP/A/run.db-wal"
printf 'this is not a database at all, just some text that is long enough to be a header........\n' >"$TMP/D.db"
mkdir -p "$TMP/D" && mv "$TMP/D.db" "$TMP/D/run.db"
"$BENCHGEN" show "$TMP/D" >"$TMP/d.out" 2>&1
rc=$?
check "damaged run.db: show exits 2 (got $rc)" test "$rc" -eq 2

check "no process of this test survives" test -z "$(pgrep -f -- "$TMP/" || true)"
finish
