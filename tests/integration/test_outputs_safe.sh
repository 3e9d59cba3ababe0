#!/usr/bin/env bash
# test_outputs_safe.sh - outputs never delete or overwrite what benchgen did
# not write (issue 26, "Why" 2, 3, 8 and the A/B mark of 9): user files in
# report --out DIR survive, a DIR/charts symlink is refused, compare --out
# keeps a user's compare.md, bundle --out never replaces run.db or an
# existing file without --force, the arms of run --ab are told apart,
# SIGTERM exits 130 and no renderer outlives a killed report; compare's
# text escapes terminal commands stored in run.db (issue 26, "Why" 9).
# Needs the `base` environment (numpy) for the run --ab case.
set -u
. "$(dirname "$0")/lib.sh"
PUB=$ROOT/tests/fixtures/runs/published
cd "$TMP" || exit 1
cp -r "$PUB" a
# report: a user's files in DIR
mkdir -p out/charts other
echo mine >out/charts/my-figure.png; echo thesis >out/thesis.pdf; echo keep >other/keep.png
"$BENCHGEN" report a --out out -q -j 1; check "report into a directory with user files exits 0" test $? -eq 0
"$BENCHGEN" report a --out out -q -j 1; check "... again exits 0" test $? -eq 0
check "... the user's charts/my-figure.png is kept" grep -q mine out/charts/my-figure.png
check "... and thesis.pdf" grep -q thesis out/thesis.pdf
mkdir s && ln -s ../other s/charts
"$BENCHGEN" report a --out s -q -j 1 2>err; rc=$?
check "DIR/charts a symlink: refused with exit 2 ($rc)" test $rc -eq 2
check "... saying so" grep -q "symbolic link" err
check "... nothing in the folder it points to is touched" test "$(ls other)" = keep.png
"$BENCHGEN" report a --out a -q 2>err; check "report into the run directory is refused (exit 2)" test $? -eq 2
# bundle --out
before=$(sha256sum a/run.db)
"$BENCHGEN" bundle a --out a/run.db -q 2>err; check "bundle --out RUN/run.db is refused (exit 2)" test $? -eq 2
"$BENCHGEN" bundle a --out a/run.db -q --force 2>err; check "... with --force too" test $? -eq 2
check "... run.db unchanged" test "$(sha256sum a/run.db)" = "$before"
echo user >x.tar.gz
"$BENCHGEN" bundle a --out x.tar.gz -q 2>err; check "bundle over an existing file is refused (exit 2)" test $? -eq 2
check "... the file is kept" grep -q user x.tar.gz
"$BENCHGEN" bundle a --out x.tar.gz -q --force; check "... --force replaces it" test $? -eq 0
# compare --out: a user's compare.md and charts/trend-x.png
cp -r "$PUB" b
mkdir -p C/charts; echo mine >C/compare.md; echo mine >C/charts/trend-x.png
"$BENCHGEN" compare a b --out C >/dev/null 2>err; check "compare --out over a user's compare.md is refused (exit 2)" test $? -eq 2
check "... compare.md kept" grep -qx mine C/compare.md
rm C/compare.md
"$BENCHGEN" compare a b --out C >/dev/null 2>&1; rc=$?
check "compare --out beside a user's chart works ($rc)" test $rc -le 3
check "... charts/trend-x.png kept" grep -qx mine C/charts/trend-x.png
# the two arms of run --ab
printf 'name: outs\nsteps: 5\nwarmup: 1\nbackends: [numpy]\nrows:\n  - {model: mlp, task: predict, batch: 8}\n' >spec.yaml
"$BENCHGEN" run spec.yaml --ab --repeats 1 --out ab >/dev/null 2>&1; check "run --ab exits 0" test $? -eq 0
"$BENCHGEN" report ab/a --out X -q -j 1; check "report ab/a exits 0" test $? -eq 0
"$BENCHGEN" report ab/b --out X -q -j 1 2>err; check "report ab/b into ab/a's directory is refused (exit 2)" test $? -eq 2
check "... naming the run that is there" grep -q "holds the report of run 'outs'" err
# SIGTERM and SIGKILL during a render
"$BENCHGEN" report a --out T -q -j 2 & pid=$!
for i in $(seq 100); do [ -e T/.benchgen-lock ] && break; sleep 0.05; done
"$BENCHGEN" report a --out T -q -j 1 2>err; check "a second writer of one DIR is refused (exit 2)" test $? -eq 2
check "... naming the holder" grep -q "being written by benchgen report (pid $pid" err
kill -TERM $pid; wait $pid; rc=$?
check "SIGTERM exits 130 ($rc)" test $rc -eq 130
"$BENCHGEN" report a --out K -q -j 2 & pid=$!
for i in $(seq 100); do kids=$(pgrep -P $pid); [ -n "$kids" ] && break; sleep 0.02; done
kill -KILL $pid; wait $pid 2>/dev/null
sleep 0.5
# alive: not gone and not a zombie waiting for its new parent to reap it
left=$(for k in $kids; do s=$(awk '{print $3}' /proc/"$k"/stat 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && echo "$k"; done)
check "kill -KILL of report -j 2 leaves no renderer ($(echo ${kids:-none seen}))" test -n "$kids" -a -z "$left"
sleep 1
check "... and no report.pdf appears in DIR" test ! -e K/report.pdf
"$BENCHGEN" report a --out K -q -j 1; check "... the next render into DIR works" test $? -eq 0
# compare's text: terminal escapes stored in run.db come out escaped, as in show
cp -r "$ROOT/tests/fixtures/compare/base" cA; cp -r "$ROOT/tests/fixtures/compare/upgrade" cB
python3 - cB/run.db <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
E = "\x1b[2J\x1b]0;pwned\x07\x9b31m"
db.execute("UPDATE run SET name = name || ?, benchgen_version = ?, git_commit = ?", (E, "0.1" + E, "c" + E))
db.execute("UPDATE environment SET value = value || ? WHERE key IN ('cpu.model', 'torch.version', 'cuda.runtime')", (E,))
db.execute("UPDATE environment SET value = value || ? WHERE key LIKE 'pkg.%'", (E,))
db.execute("UPDATE cells SET env = env || ?", (E,))
db.commit()
PY
"$BENCHGEN" compare cA cB >ctext 2>cerr; rc=$?
check "compare of a run.db holding terminal escapes runs (exit $rc: 0 or 3)" test $rc -eq 0 -o $rc -eq 3
check "... its text has no raw ESC, BEL or C1 CSI byte" python3 -c '
import sys; t = open("ctext", "rb").read(); sys.exit(not t or any(b in t for b in (b"\x1b", b"\x07", b"\xc2\x9b")))'
check "... they are shown escaped (\\x1b[2J)" grep -qF '\x1b[2J' ctext
finish
