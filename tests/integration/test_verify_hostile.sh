#!/usr/bin/env bash
# Hostile bundles and names (issue 8 item 6, issue 14 item 6, issue 26 item
# 3): `verify` bounds what it extracts by MANIFEST.json's sizes and by hard
# ceilings, refuses sparse, link, device and fifo entries, stays linear in
# the number of entries, escapes every name it prints, and cannot be
# bypassed: a bundle without its report, with a report that does not
# re-render, with a run.db that is not a benchgen run (1 GiB of zeros
# included, refused before a byte is written) or with a duplicate entry
# fails; `show` escapes stored strings; bundle, verify and MANIFEST.json
# count the same files and never print a temporary path.
# Each attack checks the exit status, a time bound, that verify wrote no
# large file (a file-size ulimit kills it otherwise), that its scratch
# directory is gone and that no process survived. The bundles are crafted by
# craft_bundle.py; the run for show/counts needs the `base` environment.
set -u
. "$(dirname "$0")/lib.sh"

CRAFT="python3 tests/integration/craft_bundle.py"
export TMPDIR=$TMP/scratch # verify's scratch directory lives here: it must be empty after each run
mkdir -p "$TMPDIR"

# vfy NAME SECONDS BUNDLE [KIB]: verify under a file-size limit (64 MiB, or
# KIB KiB); sets rc, cpu (user+sys s), out.
vfy() {
  local name=$1 limit=$2 bundle=$3 fsize=${4:-65536}
  out=$TMP/$name.out
  /usr/bin/time -f "%U %S" -o "$TMP/$name.time" \
    bash -c 'ulimit -f "$3"; exec timeout -k 2 "$0" "$1" verify "$2"' "$limit" "$BENCHGEN" "$bundle" "$fsize" >"$out" 2>&1
  rc=$?
  cpu=$(awk 'END {print $1 + $2}' "$TMP/$name.time" 2>/dev/null)
}
clean() { test -z "$(ls -A "$TMPDIR")"; }
no_ctrl() { ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$1"; }

# ---- bombs ----------------------------------------------------------------
$CRAFT sparse "$TMP/sparse.tar.gz"
vfy sparse 20 "$TMP/sparse.tar.gz"
check "sparse bomb: verify fails with exit 1 (got $rc; 153 = it wrote past 64 MiB)" test "$rc" -eq 1
check "sparse bomb: the sparse entry is refused, unextracted" grep -q "REFUSED .*run/run.db: a sparse entry" "$out"
check "sparse bomb: scratch directory removed" clean

$CRAFT zeros "$TMP/zeros.tar.gz"
vfy zeros 20 "$TMP/zeros.tar.gz"
check "gzip of zeros: exit 1 (got $rc)" test "$rc" -eq 1
check "gzip of zeros: decompression stops at the budget" grep -q "GZIP .*decompresses to more than the 1048576 bytes" "$out"
check "gzip of zeros: fast (cpu ${cpu}s < 2 s)" python3 -c "import sys; sys.exit(not float('$cpu') < 2)"
check "gzip of zeros: scratch directory removed" clean

$CRAFT oversize "$TMP/oversize.tar.gz"
vfy oversize 20 "$TMP/oversize.tar.gz"
check "entry larger than its manifest size: exit 1 (got $rc)" test "$rc" -eq 1
check "entry larger than its manifest size: not extracted, extraction stopped" \
  grep -q "TOO LARGE run/run.db: 67108864 bytes, more than MANIFEST.json allows (4); extraction stopped" "$out"
check "entry larger than its manifest size: fast (cpu ${cpu}s < 2 s)" python3 -c "import sys; sys.exit(not float('$cpu') < 2)"
check "entry larger than its manifest size: scratch directory removed" clean

$CRAFT links "$TMP/links.tar.gz"
vfy links 20 "$TMP/links.tar.gz"
check "links, fifo, device: exit 1 (got $rc)" test "$rc" -eq 1
for kind in "run/sym: a symbolic link" "run/hard: a hard link" "run/fifo: a device, fifo" "run/dev: a device, fifo"; do
  check "refused: ${kind%%:*}" grep -q "REFUSED .*$kind" "$out"
done
check "links: scratch directory removed" clean

# 1 GiB of zeros as run/run.db (4.6 MB compressed), listed with its true
# size and hash: main extracted all of it to TMPDIR and verified it. Under a
# 1 MiB file-size limit (153 = verify wrote past it) it must fail unwritten.
$CRAFT zerodb "$TMP/zerodb.tar.gz"
vfy zerodb 30 "$TMP/zerodb.tar.gz" 1024
check "1 GiB zero run.db: verify fails with exit 1 (got $rc; 153 = it wrote past 1 MiB)" test "$rc" -eq 1
check "1 GiB zero run.db: refused by its header, before a byte is written" \
  grep -q "NOT A RUN run/run.db: not a SQLite database; not extracted" "$out"
check "1 GiB zero run.db: fast (cpu ${cpu}s < 5 s)" python3 -c "import sys; sys.exit(not float('$cpu') < 5)"
check "1 GiB zero run.db: scratch directory removed" clean

$CRAFT notrun "$TMP/notrun.tar.gz"
vfy notrun 20 "$TMP/notrun.tar.gz"
check "a SQLite run.db that is not a benchgen run: exit 1 (got $rc)" test "$rc" -eq 1
check "not a benchgen run: named as such" grep -q "NOT A RUN run/run.db: .*not a benchgen run" "$out"
check "not a benchgen run: scratch directory removed" clean

# a second, longer copy of a listed file: main called it TOO LARGE
$CRAFT duplicate "$TMP/duplicate.tar.gz"
vfy duplicate 20 "$TMP/duplicate.tar.gz"
check "duplicate entry: exit 1 (got $rc)" test "$rc" -eq 1
check "duplicate entry: reported as DUPLICATE" grep -q "DUPLICATE spec.yaml: the bundle holds this path twice" "$out"
check "duplicate entry: not reported as TOO LARGE" test -z "$(grep "TOO LARGE" "$out" || true)"
check "duplicate entry: scratch directory removed" clean

# ---- an entry flood -------------------------------------------------------
$CRAFT flood "$TMP/flood.tar.gz"
vfy flood 20 "$TMP/flood.tar.gz"
check "50,000 entries the manifest does not account for: exit 1 (got $rc)" test "$rc" -eq 1
check "entry flood: stopped at the manifest's count" grep -q "TOO MANY .*extraction stopped" "$out"
check "entry flood: fast (cpu ${cpu}s < 2 s)" python3 -c "import sys; sys.exit(not float('$cpu') < 2)"
check "entry flood: scratch directory removed" clean

# ---- names that try to fake output ------------------------------------------
$CRAFT names "$TMP/names.tar.gz"
vfy names 20 "$TMP/names.tar.gz"
check "crafted names: exit 1 (got $rc)" test "$rc" -eq 1
check "crafted names: no control character reaches the output" no_ctrl "$out"
check "crafted names: no line claims 'verified:' but the verdict" \
  test -z "$(grep -n "verified:" "$out" | grep -v '\\n' || true)"
check "crafted names: the verdict is FAILED" grep -q "^FAILED: " "$out"
check "crafted names: the name is shown escaped" grep -qF 'x\n  verified: everything\x1b[2J' "$out"

# ---- show escapes stored strings; bundle/verify/manifest count alike ---------
cp tests/workloads/naps.py "$TMP/"
sed -e 's#../workloads/naps.py#naps.py#' \
  -e 's#^name: rundir#name: evil\ndescription: "two\\nlines\\n  verified: no\\e[2J\\u009b31m red"#' \
  tests/specs/rundir.yaml >"$TMP/evil.yaml"
"$BENCHGEN" run "$TMP/evil.yaml" --only batch=1 --out "$TMP/run" >/dev/null 2>&1
check "run with a hostile description exits 0" test $? -eq 0
"$BENCHGEN" show "$TMP/run" >"$TMP/show.out" 2>&1
check "show exits 0" test $? -eq 0
check "show: no control character reaches the output" no_ctrl "$TMP/show.out"
check "show: the description is one escaped line" grep -qF 'two\nlines\n  verified: no\x1b[2J\u009b31m red' "$TMP/show.out"

"$BENCHGEN" bundle "$TMP/run" --out "$TMP/run.tar.gz" >"$TMP/bundle.out" 2>&1
check "bundle exits 0" test $? -eq 0
vfy real 120 "$TMP/run.tar.gz"
check "verify of a real bundle exits 0" test "$rc" -eq 0
n_tar=$(tar tzf "$TMP/run.tar.gz" | grep -vc '/$')
n_bundle=$(sed -n 's/.*wrote .* (\([0-9]*\) files.*/\1/p' "$TMP/bundle.out")
n_verify=$(sed -n 's/^  \([0-9]*\) files in the bundle.*/\1/p' "$out")
n_manifest=$(tar xzOf "$TMP/run.tar.gz" --wildcards '*/MANIFEST.json' | python3 -c 'import json,sys; print(json.load(sys.stdin)["file_count"])')
check "one count: tar $n_tar = bundle $n_bundle = verify $n_verify = MANIFEST.json $n_manifest" \
  test -n "$n_tar" -a "$n_tar" = "$n_bundle" -a "$n_tar" = "$n_verify" -a "$n_tar" = "$n_manifest"
check "no temporary path printed by bundle or verify" \
  test -z "$(grep -h "$TMPDIR\|benchgen-bundle-\|benchgen-verify-" "$TMP/bundle.out" "$out" || true)"
check "verify's scratch directory removed" clean

# ---- 50,000 entries beside a real run (its report re-rendered) --------------
$CRAFT many "$TMP/many.tar.gz" "$TMP/run.tar.gz"
vfy many 60 "$TMP/many.tar.gz"
check "50,000 consistent entries: verified (exit $rc)" test "$rc" -eq 0
# 2 s of CPU for the plain build; a sanitizer build (make asan sets
# ASAN_OPTIONS) runs several times slower. The quadratic verify took 34.5 s.
limit=2; [ -n "${ASAN_OPTIONS:-}" ] && limit=8
check "50,000 entries: linear (cpu ${cpu}s < $limit s; wall time in docs/PERFORMANCE.md)" \
  python3 -c "import sys; sys.exit(not float('$cpu') < $limit)"
check "50,000 entries: counted once, as the manifest does" grep -q "$((50000 + n_tar)) files in the bundle, as MANIFEST.json counts them" "$out"
check "50,000 entries: scratch directory removed" clean

# ---- no bypass: the report must be there and re-render byte for byte --------
# The probe's bypass: every sample divided by 100, report/ removed,
# "report": null, MANIFEST.json and SHA256SUMS rewritten; main verified it.
$CRAFT noreport "$TMP/noreport.tar.gz" "$TMP/run.tar.gz"
vfy noreport 60 "$TMP/noreport.tar.gz"
check "samples / 100, no report, manifest rewritten: verify fails with exit 1 (got $rc)" test "$rc" -eq 1
check "no report: named" grep -q "NO REPORT MANIFEST.json" "$out"
check "no report: the verdict is FAILED" grep -q "^FAILED: " "$out"
check "no report: scratch directory removed" clean
# the same forgery with the old report kept: re-rendering gives other bytes
$CRAFT mismatch "$TMP/mismatch.tar.gz" "$TMP/run.tar.gz"
vfy mismatch 60 "$TMP/mismatch.tar.gz"
check "samples / 100, old report kept: exit 1 (got $rc)" test "$rc" -eq 1
check "re-render mismatch: report.md DIFFERS" grep -q "DIFFERS   report/report.md" "$out"
check "re-render mismatch: scratch directory removed" clean

check "no process of this test survives" test -z "$(pgrep -f -- "$TMP/" || true)"
finish
