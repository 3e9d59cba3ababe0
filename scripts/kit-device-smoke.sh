#!/usr/bin/env bash
# kit-device-smoke.sh KIT.tar.gz [OUT] - gpu-smoke.yaml on a GPU machine in one
# call (docs/GPU.md, "One call on a lent GPU"): unpack the kit into a fresh
# directory, pick the machine's Python that has torch and/or jax, run the
# kit's install.sh (offline), `benchgen info --check`, then
# data/matrix/gpu-smoke.yaml, and copy what a later session needs into OUT
# (default $OUT): the run directory (run.db, logs), `show`, the report, and
# what the machine is (nvidia-smi, the Pythons it has). Every step's output
# goes to OUT even when a step fails, so one call always tells what to fix.
#
# Environment: PYTHON (try this interpreter first), SMOKE_TIMEOUT (seconds for
# the run, default 480: the whole call must fit one 10-minute command).
set -u
[ $# -ge 1 ] || { echo "usage: $0 KIT.tar.gz [OUT]" >&2; exit 2; }
tgz=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${2:-${OUT:-}}
[ -n "$out" ] || { echo "$0: no OUT directory (give it, or set \$OUT)" >&2; exit 2; }
[ -f "$tgz" ] || { echo "$0: $tgz: no such kit (make kit)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-smoke.XXXXXX")
export BENCHGEN_CACHE=$work/cache
say() { echo "== $*" | tee -a "$out/steps.txt"; }

say "machine"
{ date -u; uname -a; nproc; free -g; nvidia-smi 2>&1; nvidia-smi -q -d CLOCK,PERFORMANCE,POWER 2>&1 | head -80; } >"$out/machine.txt" 2>&1
nvidia-smi -L 2>&1 | tee -a "$out/steps.txt"

say "pythons"
py=""
for c in ${PYTHON:-} python3 python /usr/bin/python3 /opt/conda/bin/python /usr/local/bin/python3; do
  command -v "$c" >/dev/null 2>&1 || continue
  line=$("$c" -c 'import sys, importlib.util as u
print(sys.executable, "%d.%d" % sys.version_info[:2],
      *[m for m in ("torch", "jax", "tensorflow", "numpy", "PIL") if u.find_spec(m)])' 2>/dev/null) || continue
  echo "$c: $line" | tee -a "$out/pythons.txt"
  if [ -z "$py" ] && grep -qE ' (torch|jax)( |$)' <<<"$line"; then py=$c; fi
done
[ -n "$py" ] || { say "FAILED: no Python with torch or jax here (see pythons.txt)"; exit 1; }
say "using $py"

say "unpack and install"
tar -xzf "$tgz" -C "$work" && kit=$(echo "$work"/benchgen-kit-*) || { say "FAILED: cannot unpack $tgz"; exit 1; }
if ! "$kit/install.sh" "$py" >"$out/install.log" 2>&1; then
  tail -5 "$out/install.log" | tee -a "$out/steps.txt"; say "FAILED: install.sh (install.log)"; exit 1
fi
tail -3 "$out/install.log" | tee -a "$out/steps.txt"

say "info --check"
"$kit/benchgen" info --check >"$out/info-check.txt" 2>&1
tail -3 "$out/info-check.txt" | tee -a "$out/steps.txt"

say "run gpu-smoke.yaml"
timeout --signal=INT --kill-after=30 "${SMOKE_TIMEOUT:-480}" \
  "$kit/benchgen" run "$kit/data/matrix/gpu-smoke.yaml" --out "$work/gpu-smoke" --wait-idle 20 >"$out/run.log" 2>&1
rc=$?
tail -8 "$out/run.log" | tee -a "$out/steps.txt"
say "run exit status $rc"

if [ -d "$work/gpu-smoke" ]; then
  cp -r "$work/gpu-smoke" "$out/gpu-smoke"
  "$kit/benchgen" show "$work/gpu-smoke" >"$out/show.txt" 2>&1
  "$kit/benchgen" show "$work/gpu-smoke" --json >"$out/show.json" 2>&1
  "$kit/benchgen" report "$work/gpu-smoke" --out "$out/report" \
    --reference "$kit/data/reference/keras-benchmarks.csv" >"$out/report.log" 2>&1
  cat "$out/show.txt" | tee -a "$out/steps.txt"
fi
rm -rf "$work"
exit $rc
