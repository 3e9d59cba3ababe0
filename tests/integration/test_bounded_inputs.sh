#!/usr/bin/env bash
# Every input is bounded and typed (issue 26, item 5): the probe's attacks on
# what a user passes benchgen, each reproduced as the issue wrote it. Specs,
# workloads and reference tables that are FIFOs, devices or directories are
# refused by what they are (a FIFO spec blocked forever; `run /dev/zero`
# read 2.1 GB); an oversized spec, 100,000 nested flows (over 30 s) and a
# 16 MiB flat list are refused at once; `env add` stops a candidate that
# sleeps, floods or leaves a setsid daemon, and refuses a newline in its
# path; `--with` takes package pins only; Slurm options from the command
# line are checked like a spec's, and a '%' in the run directory reaches
# sbatch escaped. Each case runs under `timeout`, so this script cannot hang
# on the code before the fix; each ends in exit 2 with a clear message (the
# one success: a daemon-leaving interpreter that answers is registered, its
# daemon killed), nothing written, no process of this script left.
# No environment is built: it needs the binary, python3 and `make`'s
# build/python/_benchgen.
set -u
. "$(dirname "$0")/lib.sh"

# A process of this script is one whose command line holds $TMP; on the code
# before the fix some survive, and go with the directory.
leftovers() { pgrep -f "$TMP" 2>/dev/null; }
cleanup() {
  local p
  for p in $(leftovers); do kill -9 "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
no_process_left() { sleep 0.2; [ -z "$(leftovers)" ]; }

# refused NAME TEXT COMMAND...: COMMAND (under a 10 s timeout) exits 2 and
# says TEXT, and no process of this script is left.
refused() {
  local name=$1 text=$2 rc
  shift 2
  timeout 10 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  rc=$?
  check "$name: exit 2 (got $rc)" test "$rc" -eq 2
  check "$name: says \"$text\"" grep -qF -- "$text" "$TMP/err"
  check "$name: no process left" no_process_left
}

# PY: the shared cache's base interpreter (env add checks that numpy imports)
. "$ROOT/tests/container/spec.sh"
base_python
export BENCHGEN_CACHE=$TMP/cache
GOOD_ROWS='backends: [numpy]
rows:
  - {model: mlp, task: predict, batch: 1}'

# ---- specs -----------------------------------------------------------------
mkfifo "$TMP/fifo.yaml"
refused "a FIFO spec" "fifo.yaml: a FIFO, not a regular file (a spec must be one)" \
  "$BENCHGEN" run "$TMP/fifo.yaml" --dry-run
refused "run /dev/zero --dry-run" "/dev/zero: a character device, not a regular file" \
  "$BENCHGEN" run /dev/zero --dry-run
mkdir "$TMP/dir.yaml"
refused "a directory spec" "dir.yaml: a directory, not a regular file" \
  "$BENCHGEN" run "$TMP/dir.yaml" --out "$TMP/run-dir"
check "... and no run directory" test ! -e "$TMP/run-dir"

printf 'name: big\n%s\n' "$GOOD_ROWS" >"$TMP/big.yaml"
truncate -s 17M "$TMP/big.yaml"
refused "a 17 MiB spec" "big.yaml: 17 MiB, larger than the 16 MiB a spec may be" \
  "$BENCHGEN" run "$TMP/big.yaml" --out "$TMP/run-big"
check "... and no run directory" test ! -e "$TMP/run-big"

python3 -c 'import sys; sys.stdout.write("name: deep\nbackends: [numpy]\nrows: " + "[" * 100000 + "]" * 100000 + "\n")' \
  >"$TMP/deep.yaml"
t0=$(date +%s%N)
refused "100,000 nested flows" "deep.yaml:3:70: nesting deeper than 64" \
  "$BENCHGEN" run "$TMP/deep.yaml" --dry-run
check "... refused within 2 s (over 30 s before)" test $(( ($(date +%s%N) - t0) / 1000000 )) -lt 2000

python3 -c 'import sys; sys.stdout.write("name: wide\nbackends: [numpy]\nrows: [" + "1," * 8000000 + "1]\n")' \
  >"$TMP/wide.yaml"
t0=$(date +%s%N)
refused "a 16 MB flat list" "more than 100000 YAML nodes" "$BENCHGEN" run "$TMP/wide.yaml" --dry-run
check "... refused within 2 s (13 s and 1.4 GB before)" test $(( ($(date +%s%N) - t0) / 1000000 )) -lt 2000

# ---- workloads ---------------------------------------------------------------
mkfifo "$TMP/fifo.py"
mkdir "$TMP/dir.py"
for w in fifo dir; do
  printf 'name: w\nbackends: [numpy]\nrows:\n  - {model: m, task: predict, batch: 1, workload: %s.py}\n' "$w" \
    >"$TMP/w-$w.yaml"
done
refused "a FIFO workload" "w-fifo.yaml:4:51: workload: $TMP/fifo.py is a FIFO, not a regular file" \
  "$BENCHGEN" run "$TMP/w-fifo.yaml" --dry-run
refused "a directory workload" "workload: $TMP/dir.py is a directory, not a regular file" \
  "$BENCHGEN" run "$TMP/w-dir.yaml" --dry-run

# ---- the reference table -------------------------------------------------------
cp -r "$ROOT/tests/fixtures/runs/tricky" "$TMP/tricky"
mkfifo "$TMP/ref.csv"
refused "report --reference FIFO" "ref.csv: a FIFO, not a regular file (a reference table must be one)" \
  "$BENCHGEN" report "$TMP/tricky" --out "$TMP/rep-fifo" --reference "$TMP/ref.csv"
check "... and no report written" test ! -e "$TMP/rep-fifo"
refused "report --reference /dev/zero" "/dev/zero: a character device, not a regular file" \
  "$BENCHGEN" report "$TMP/tricky" --out "$TMP/rep-zero" --reference /dev/zero
check "... and no report written" test ! -e "$TMP/rep-zero"

# ---- env add's probe -------------------------------------------------------------
# Each candidate's processes carry $TMP in their command line.
mkdir "$TMP/py"
cat >"$TMP/py/sleeps" <<'SH'
#!/bin/sh
exec python3 -c 'import time; time.sleep(60)' "$0"
SH
cat >"$TMP/py/daemon" <<SH
#!/bin/sh
setsid python3 -c 'import time; time.sleep(300)' "\$0-daemon" </dev/null >/dev/null 2>&1 &
exec "$PY" "\$@"
SH
cat >"$TMP/py/daemon-sleeps" <<'SH'
#!/bin/sh
setsid python3 -c 'import time; time.sleep(300)' "$0-daemon" </dev/null >/dev/null 2>&1 &
exec python3 -c 'import time; time.sleep(60)' "$0"
SH
cat >"$TMP/py/zeros" <<'SH'
#!/bin/sh
exec cat /dev/zero "$0"
SH
chmod +x "$TMP"/py/*
REG=$TMP/cache/external

refused "env add: a script that sleeps" "did not answer within 1 s: stopped, with every process it started" \
  env BENCHGEN_PROBE_TIMEOUT=1 "$BENCHGEN" env add sleeps "$TMP/py/sleeps"
check "... not registered" test ! -e "$REG/sleeps"
refused "env add: a setsid daemon, then a sleep" "did not answer within 1 s" \
  env BENCHGEN_PROBE_TIMEOUT=1 "$BENCHGEN" env add dsleeps "$TMP/py/daemon-sleeps"
check "... not registered" test ! -e "$REG/dsleeps"
t0=$(date +%s%N)
refused "env add: exec cat /dev/zero" "zeros printed more than 64 KiB: stopped" \
  "$BENCHGEN" env add zeros "$TMP/py/zeros"
check "... stopped within 5 s (benchgen grew to 2.1 GB before)" test $(( ($(date +%s%N) - t0) / 1000000 )) -lt 5000
check "... not registered" test ! -e "$REG/zeros"
timeout 30 "$BENCHGEN" env add daemon "$TMP/py/daemon" >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
check "env add: a real interpreter that leaves a setsid daemon is registered (got $rc)" test "$rc" -eq 0
check "... and its daemon does not survive env add" no_process_left

cp "$(command -v python3)" "$TMP/py/py
thon"
refused "env add: a newline in the interpreter path" \
  "env add nl: the interpreter path holds a control character" \
  "$BENCHGEN" env add nl "$TMP/py/py
thon"
check "... not registered" test ! -e "$REG/nl"
refused "env add: a newline in a prefix argument" "prefix argument 2 is empty or holds a control character" \
  "$BENCHGEN" env add nl2 python3 -- env "A=1
B"
check "... not registered" test ! -e "$REG/nl2"

# ---- --with pins ------------------------------------------------------------------
for pin in --index-url==127.0.0.1 --extra-index-url==x .==1; do
  refused "--with=$pin" "--with $pin: expected PKG==VERSION, a package name" \
    "$BENCHGEN" run "$ROOT/tests/specs/pipeline.yaml" --only model=mlp "--with=$pin" --dry-run
done
check "... no derived lock written" test ! -e "$TMP/cache/derived"

# ---- Slurm options -----------------------------------------------------------------
# A fake Slurm first on PATH: sbatch writes its arguments, one per line.
mkdir "$TMP/slurm"
cat >"$TMP/slurm/sbatch" <<SH
#!/bin/sh
for a in "\$@"; do printf '%s\n' "\$a"; done >>"$TMP/sbatch.args"
echo 4242
SH
for c in squeue scontrol scancel; do printf '#!/bin/sh\nexit 0\n' >"$TMP/slurm/$c"; done
chmod +x "$TMP"/slurm/*
slurm_run=(env PATH="$TMP/slurm:$PATH" "$BENCHGEN" run "$ROOT/tests/specs/tiny1.yaml" --only batch=1
  --executor slurm --no-wait)
refused "--partition 'a b;c'" "--partition 'a b;c' is not a partition name" \
  "${slurm_run[@]}" --partition 'a b;c' --out "$TMP/s1"
refused "--mem lots" "--mem 'lots' is not a Slurm memory size" "${slurm_run[@]}" --mem lots --out "$TMP/s2"
refused "--time forever" "--time 'forever' is not a Slurm time limit" \
  "${slurm_run[@]}" --time forever --out "$TMP/s3"
check "... no run directory, nothing submitted" test ! -e "$TMP/s1" -a ! -e "$TMP/s2" -a ! -e "$TMP/s3" \
  -a ! -e "$TMP/sbatch.args"
refused "a backslash in a Slurm run directory" "a backslash in the run directory's path" \
  "${slurm_run[@]}" --out "$TMP/back\\slash"
check "... no run directory" test ! -e "$TMP/back\\slash"
timeout 30 "${slurm_run[@]}" --partition gpu --out "$TMP/run%j" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "a '%' in the run directory: queued (got $rc)" test "$rc" -eq 0
check "... its --output reaches sbatch with the '%' doubled" \
  grep -qxF -- "--output=$TMP/run%%j/logs/slurm-%A_%a.out" "$TMP/sbatch.args"
check "... and a valid --partition passes" grep -qxF -- "--partition=gpu" "$TMP/sbatch.args"
check "no process left at the end" no_process_left

finish
