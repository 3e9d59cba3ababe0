#!/usr/bin/env bash
# Bundles that reproduce (issue 27 item 4): a run records, when it is
# created, every file it depends on beyond benchgen (the spec, a custom
# workload and the local modules it imports from its folder, the lock of its
# environment) with its hash in run.db; `bundle` stores them under inputs/
# and envs/recorded/ as the run read them; `verify` names the file in every
# tampering case: a workload's bytes changed (with SHA256SUMS and
# MANIFEST.json rewritten to match, so only run.db's hash can tell), a file
# edited and the bundle re-packed by plain `tar czf` (main: "ORDER ...
# nothing can be bounded" and "EMPTY: no files in the bundle"), a recorded
# input removed; files packed before MANIFEST.json (unlisted, twice, stray in
# run/, 256 MiB of zeros) are still bounded and named. A plain re-pack of an
# untouched bundle still verifies; `run --resume` warns about a workload that
# changed since the run was created; a registered interpreter is recorded by
# the packages it holds.
# Needs the `base` environment (NumPy).
set -u
. "$(dirname "$0")/lib.sh"

export TMPDIR=$TMP/scratch # verify's scratch directory lives here: it must be empty after each run
mkdir -p "$TMPDIR" "$TMP/proj/specs" "$TMP/proj/work/napkg"
clean() { test -z "$(ls -A "$TMPDIR")"; }

# a workload in its own folder, importing a module and a package beside it,
# named by the spec with a path relative to the spec's folder
{ echo "import nap_helper"; echo "from napkg import delay"; sed -n '3,$p' tests/workloads/naps.py; } \
  >"$TMP/proj/work/naps.py"
echo "HELPER = 1" >"$TMP/proj/work/nap_helper.py"
echo "from .delay import DELAY" >"$TMP/proj/work/napkg/__init__.py"
echo "DELAY = 0.1" >"$TMP/proj/work/napkg/delay.py"
echo "UNUSED = 1" >"$TMP/proj/work/unrelated.py" # not imported: not recorded
sed -e 's#../workloads/naps.py#../work/naps.py#' tests/specs/rundir.yaml >"$TMP/proj/specs/repro.yaml"

"$BENCHGEN" run "$TMP/proj/specs/repro.yaml" --only batch=1 --out "$TMP/run" >"$TMP/run.out" 2>&1
check "run of a custom workload exits 0" test $? -eq 0
db="file:$TMP/run/run.db?immutable=1"
q() { sqlite3 "$db" "$1"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
check "run.db records the workload's hash when the run is created" \
  test "$(q "SELECT sha256 FROM inputs WHERE path = 'inputs/work/naps.py' AND kind = 'workload'")" = "$(sha "$TMP/proj/work/naps.py")"
check "run.db records the spec, at its place beside the workload" \
  test "$(q "SELECT sha256 FROM inputs WHERE path = 'inputs/specs/repro.yaml' AND kind = 'spec'")" = "$(sha "$TMP/proj/specs/repro.yaml")"
check "run.db records the local module the workload imports" \
  test "$(q "SELECT sha256 FROM inputs WHERE path = 'inputs/work/nap_helper.py' AND kind = 'module'")" = "$(sha "$TMP/proj/work/nap_helper.py")"
check "run.db records the package the workload imports (both files)" \
  test "$(q "SELECT count(*) FROM inputs WHERE path LIKE 'inputs/work/napkg/%' AND kind = 'module'")" = 2
check "run.db does not record a file of the folder nothing imports" \
  test "$(q "SELECT count(*) FROM inputs WHERE path = 'inputs/work/unrelated.py'")" = 0
check "run.db records the environment's lock" \
  test "$(q "SELECT sha256 FROM inputs WHERE path = 'envs/recorded/base.txt' AND kind = 'lock'")" = "$(sha data/envs/base.txt)"

# the workload changes on disk after the run: the bundle keeps what the run read
orig=$(sha "$TMP/proj/work/naps.py")
echo "# edited after the run" >>"$TMP/proj/work/naps.py"
"$BENCHGEN" bundle "$TMP/run" --out "$TMP/b.tar.gz" >"$TMP/bundle.out" 2>&1
check "bundle exits 0" test $? -eq 0
mkdir "$TMP/x" && tar xzf "$TMP/b.tar.gz" -C "$TMP/x"
top=$(ls "$TMP/x")
B=$TMP/x/$top
check "the bundle holds the workload as the run read it (not as edited since)" \
  test "$(sha "$B/inputs/work/naps.py")" = "$orig"
check "the bundle holds the module and the package" \
  test -f "$B/inputs/work/nap_helper.py" -a -f "$B/inputs/work/napkg/__init__.py" -a -f "$B/inputs/work/napkg/delay.py"
check "MANIFEST.json lists the workload with its hash, as an input" \
  test "$(jget "$B/MANIFEST.json" "[i['sha256'] for i in d['inputs'] if i['path'] == 'inputs/work/naps.py' and i['kind'] == 'workload' and i['stored']][0]")" = "$orig"
check "SHA256SUMS lists the workload" grep -q "^$orig  inputs/work/naps.py$" "$B/SHA256SUMS"
"$BENCHGEN" bundle "$TMP/run" --out "$TMP/b2.tar.gz" --quiet
check "a bundle with inputs is deterministic: two bundles of the run are byte-identical" cmp -s "$TMP/b.tar.gz" "$TMP/b2.tar.gz"
"$BENCHGEN" verify "$TMP/b.tar.gz" >"$TMP/v0.out" 2>&1
check "verify of the bundle exits 0" test $? -eq 0
check "verify checks the inputs against run.db" grep -q "input files (spec, workloads, environments) as run.db recorded them" "$TMP/v0.out"
# the bundle reproduces: its spec finds its workload where the spec says
cp -r "$B/inputs" "$TMP/again"
"$BENCHGEN" run "$TMP/again/specs/repro.yaml" --dry-run >"$TMP/dry.out" 2>&1
check "the bundled spec runs (--dry-run) with the bundled workload" test $? -eq 0

# rewrite_sums: MANIFEST.json and SHA256SUMS made to match the tree as it is
# now (a forger's consistent rewrite; files gone are dropped from both)
rewrite_sums() {
  python3 - "$B" <<'PY'
import hashlib, json, os, sys
b = sys.argv[1]
h = lambda p: hashlib.sha256(open(os.path.join(b, p), "rb").read()).hexdigest()
m = json.load(open(os.path.join(b, "MANIFEST.json")))
m["files"] = [f for f in m["files"] if os.path.exists(os.path.join(b, f["path"]))]
for f in m["files"]:
    f["sha256"], f["size"] = h(f["path"]), os.path.getsize(os.path.join(b, f["path"]))
m["file_count"] = len(m["files"]) + 2
open(os.path.join(b, "MANIFEST.json"), "w").write(json.dumps(m, indent=2, sort_keys=True) + "\n")
paths = sorted([f["path"] for f in m["files"]] + ["MANIFEST.json"])
open(os.path.join(b, "SHA256SUMS"), "w").write("".join(f"{h(p)}  {p}\n" for p in paths))
PY
}

# vfy NAME TARBALL: verify; sets rc and out
vfy() { out=$TMP/$1.out; timeout -k 2 60 "$BENCHGEN" verify "$2" >"$out" 2>&1; rc=$?; }
# repack NAME: plain `tar czf` of the extracted tree, as a user would
repack() { (cd "$TMP/x" && tar czf "$TMP/$1.tar.gz" "$top"); }
save() { cp "$B/$1" "$TMP/saved"; }
restore() { cp "$TMP/saved" "$B/$1"; }

# 1. plain re-pack, nothing edited: still verified (main: ORDER, EMPTY)
repack plain
vfy plain "$TMP/plain.tar.gz"
check "plain tar czf re-pack, untouched: verified (exit $rc)" test "$rc" -eq 0
check "plain re-pack: verify says it was re-packed" grep -q "MANIFEST.json is not the bundle's first file" "$out"
check "plain re-pack: no ORDER or EMPTY" test -z "$(grep -E "ORDER|EMPTY" "$out" || true)"
check "plain re-pack: scratch directory removed" clean

# 2. one report file edited, plain re-pack: that file is named
save report/report.md
echo "edited" >>"$B/report/report.md"
repack report
restore report/report.md
vfy report "$TMP/report.tar.gz"
check "report.md edited, tar czf: exit 1 (got $rc)" test "$rc" -eq 1
check "report.md edited, tar czf: MODIFIED report/report.md" grep -q "MODIFIED  report/report.md" "$out"
check "report.md edited, tar czf: no false EMPTY or ORDER" test -z "$(grep -E "ORDER|EMPTY" "$out" || true)"
check "report.md edited, tar czf: no other file named" \
  test -z "$(grep -E '^  [A-Z ]{9} ' "$out" | grep -v 'report/report.md' || true)"

# Files before MANIFEST.json are still held to it once it comes: packed in a
# chosen order (--no-recursion -T), as a hostile re-pack could be.
# order NAME FIRST...: FIRST, then every other entry of the tree, MANIFEST.json among them
order() {
  local name=$1; shift
  (cd "$TMP/x" && { printf '%s\n' "$@"; find "$top" -mindepth 1 | grep -vxF -f <(printf '%s\n' "$@"); } |
    tar czf "$TMP/$name.tar.gz" --no-recursion --hard-dereference -T -)
}
echo extra >"$B/extra.txt"
order unlisted "$top/extra.txt"
rm "$B/extra.txt"
vfy unlisted "$TMP/unlisted.tar.gz"
check "an unlisted file before MANIFEST.json: exit 1 (got $rc)" test "$rc" -eq 1
check "unlisted file first: named UNLISTED, once" test "$(grep -c "UNLISTED  extra.txt" "$out")" = 1
check "unlisted file first: nothing else named" test -z "$(grep -E '^  [A-Z ]{9} ' "$out" | grep -v 'extra.txt' || true)"
order twice "$top/run/run.db" "$top/run/run.db"
vfy twice "$TMP/twice.tar.gz"
check "run/run.db twice before MANIFEST.json: exit 1 (got $rc)" test "$rc" -eq 1
check "run/run.db twice: named DUPLICATE" grep -q "DUPLICATE run/run.db" "$out"
echo evil >"$B/run/evil"
order runextra "$top/run/evil"
rm "$B/run/evil"
vfy runextra "$TMP/runextra.tar.gz"
check "a stray file in run/ before MANIFEST.json: exit 1 (got $rc)" test "$rc" -eq 1
check "stray run/ file first: named UNEXPECTED, not extracted" grep -q "UNEXPECTED run/evil: a bundle's run/ holds run.db and logs/ only" "$out"
check "pre-manifest cases: scratch directory removed" clean

# 256 MiB of zeros (256 KB compressed) before any MANIFEST.json: hashed as it
# streams past, never written (a 1 MiB file-size limit kills verify
# otherwise: 153), within the hard ceilings, and named
python3 - "$TMP/zeros-first.tar.gz" <<'PY'
import io, sys, tarfile, zlib
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = bytes(k); self.n -= k; return k
class Gz:
    def __init__(self, p): self.f, self.z = open(p, "wb"), zlib.compressobj(9, zlib.DEFLATED, 31)
    def write(self, b): self.f.write(self.z.compress(b)); return len(b)
    def close(self): self.f.write(self.z.flush()); self.f.close()
gz = Gz(sys.argv[1])
tar = tarfile.open(fileobj=gz, mode="w|", format=tarfile.GNU_FORMAT)
ti = tarfile.TarInfo("top/report/zeros"); ti.size = 256 << 20
tar.addfile(ti, io.BufferedReader(Zeros(256 << 20), 1 << 20))
tar.close(); gz.close()
PY
/usr/bin/time -f "%U %S" -o "$TMP/zeros.time" \
  bash -c 'ulimit -f 1024; exec timeout -k 2 60 "$0" verify "$1"' "$BENCHGEN" "$TMP/zeros-first.tar.gz" >"$TMP/zeros.out" 2>&1
rc=$?
cpu=$(awk 'END {print $1 + $2}' "$TMP/zeros.time")
limit=3; [ -n "${ASAN_OPTIONS:-}" ] && limit=12
check "256 MiB of zeros before MANIFEST.json: exit 1 (got $rc; 153 = it wrote past 1 MiB)" test "$rc" -eq 1
check "zeros first: named, and the missing manifest too" \
  grep -q "UNLISTED  report/zeros" "$TMP/zeros.out" && grep -q "MISSING   MANIFEST.json" "$TMP/zeros.out"
check "zeros first: bounded (cpu ${cpu}s < $limit s: two passes over 256 MiB, extraction and the gzip check)" \
  python3 -c "import sys; sys.exit(not float('$cpu') < $limit)"
check "zeros first: scratch directory removed" clean

# 3. the workload's bytes changed, plain re-pack: the workload is named
save inputs/work/naps.py
sed -i 's/0\.1)/0.01)/' "$B/inputs/work/naps.py"
repack workload
vfy workload "$TMP/workload.tar.gz"
check "workload edited, tar czf: exit 1 (got $rc)" test "$rc" -eq 1
check "workload edited, tar czf: MODIFIED inputs/work/naps.py against SHA256SUMS" \
  grep -q "MODIFIED  inputs/work/naps.py: its SHA-256 differs from SHA256SUMS" "$out"
check "workload edited, tar czf: and against run.db" \
  grep -q "MODIFIED  inputs/work/naps.py: not the file run.db recorded" "$out"

# 4. the workload edited, SHA256SUMS and MANIFEST.json rewritten to match: run.db's hash names it
rewrite_sums
repack forged
vfy forged "$TMP/forged.tar.gz"
check "workload edited, SHA256SUMS and MANIFEST.json rewritten: exit 1 (got $rc)" test "$rc" -eq 1
check "forged sums: MODIFIED inputs/work/naps.py, from run.db's hash" \
  grep -q "MODIFIED  inputs/work/naps.py: not the file run.db recorded when the run was created" "$out"
check "forged sums: the only file named is the workload" \
  test -z "$(grep -E '^  [A-Z ]{9} ' "$out" | grep -v 'inputs/work/naps.py' || true)"
restore inputs/work/naps.py

# 5. a recorded input removed (sums rewritten): MISSING
rm "$B/inputs/work/nap_helper.py"
rewrite_sums
repack removed
vfy removed "$TMP/removed.tar.gz"
check "module removed, sums rewritten: exit 1 (got $rc)" test "$rc" -eq 1
check "module removed: MISSING inputs/work/nap_helper.py" grep -q "MISSING   inputs/work/nap_helper.py: run.db recorded it" "$out"
check "tampering cases: scratch directory removed" clean

# --resume warns that a workload changed since the run was created (it was
# edited on disk above); run.db keeps the recorded bytes
"$BENCHGEN" run --resume "$TMP/run" --retry ok >"$TMP/resume.out" 2>&1
check "resume after the workload changed exits 0" test $? -eq 0
check "resume warns that the workload changed since the run was created" \
  grep -q "warning: $TMP/proj/work/naps.py has changed since the run was created" "$TMP/resume.out"
check "run.db still records the workload's original hash" \
  test "$(q "SELECT sha256 FROM inputs WHERE path = 'inputs/work/naps.py'")" = "$orig"

# a registered interpreter (env add, in a cache of this test's own): run.db
# records the packages its site-packages holds, and the bundle carries them
. "$ROOT/tests/container/spec.sh"
base_python
export BENCHGEN_CACHE=$TMP/cache
"$BENCHGEN" env add base "$PY" --for numpy >"$TMP/add.out" 2>&1
check "env add base (the shared base interpreter, registered in a cache of the test's own)" test $? -eq 0
"$BENCHGEN" run "$TMP/proj/specs/repro.yaml" --only batch=1 --out "$TMP/run-ext" >"$TMP/run-ext.out" 2>&1
check "run with the registered interpreter exits 0" test $? -eq 0
numpy=$("$PY" -s -c 'import numpy; print(numpy.__version__)')
check "run.db records the interpreter's packages (numpy==$numpy) instead of a lock" \
  test "$(sqlite3 "file:$TMP/run-ext/run.db?immutable=1" "SELECT kind || ' ' || (instr(CAST(content AS TEXT), char(10) || 'numpy==$numpy' || char(10)) > 0) FROM inputs WHERE path = 'envs/recorded/base.packages.txt'")" = "packages 1"
"$BENCHGEN" bundle "$TMP/run-ext" --out "$TMP/ext.tar.gz" --quiet && "$BENCHGEN" verify "$TMP/ext.tar.gz" >"$TMP/ext.out" 2>&1
check "its bundle verifies" test $? -eq 0
check "its bundle holds the package list" sh -c "tar xzOf '$TMP/ext.tar.gz' --wildcards '*/envs/recorded/base.packages.txt' | grep -qx 'numpy==$numpy'"

check "no process of this test survives" test -z "$(pgrep -f -- "$TMP/" || true)"
finish
