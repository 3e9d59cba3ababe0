#!/usr/bin/env bash
# fidelity.sh [--ablate LIST] [CELL ...] - does a benchgen cell time a step
# as a plain Python loop would? (issue 29; docs/PERFORMANCE.md, "Fidelity")
#
# Each CELL (MODEL/TASK/BATCH/BACKEND; default the four below) runs both ways,
# interleaved, ROUNDS times (default 5):
#   benchgen  `benchgen run` of a one-cell spec (size tiny, float32, seed 0,
#             device cpu unless FIDELITY_DEVICE=gpu; STEPS timed steps after
#             WARMUP, default 60 and 5): the median of its C-timed steps;
#   plain     scripts/perf/fidelity_loop.py in the interpreter the cell ran
#             in (its python.executable), with the backend's variables the
#             cell recorded (env.*): the same workload from runners/workloads,
#             the same input bytes (checked: the loop's SHA-256 must equal the
#             cell's input_sha256, or the script stops), the same steps timed
#             with time.perf_counter_ns around each call.
# Per cell it prints benchgen/plain: the median over rounds of benchgen's
# per-round medians over the median of plain's, with a 95% bootstrap
# interval over rounds (paired; 2000 resamples, seed 1; "n/a" under 3
# rounds) and the per-round ratios.
#
# --ablate LIST (comma-separated; an item may join knobs with +, e.g.
# cgroup+sampling; `all` is every knob) adds, in every round, one more
# benchgen run per item with BENCHGEN_ABLATE set to it (the test-only knobs
# of runners/ablate.h), and a row per item: how close switching that thing
# off brings a cell to the plain loop. The order of the runs inside a round
# rotates from round to round, so a drift of the machine hits each alike.
#
#   scripts/fidelity.sh                                   # the four cells, 5 rounds
#   ROUNDS=2 STEPS=10 scripts/fidelity.sh mlp/predict/256/numpy
#   scripts/fidelity.sh --ablate cgroup,sampling,env,inputs-copy,pipe,tmpdir,all
#
# BENCHGEN (default ./benchgen) and BENCHGEN_HOME (default this checkout)
# choose the binary and the runners/ it uses. Nothing it writes outlives it
# but its output (KEEP=DIR keeps the runs and plain-loop outputs in DIR,
# which must not hold an earlier run's).
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
STEPS=${STEPS:-60}
WARMUP=${WARMUP:-5}
DEVICE=${FIDELITY_DEVICE:-cpu}
BENCHGEN=${BENCHGEN:-./benchgen}
export BENCHGEN_HOME=${BENCHGEN_HOME:-$PWD}
usage() { sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }
ablate=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ablate) [ $# -ge 2 ] || usage; ablate=$2; shift 2 ;;
    --ablate=*) ablate=${1#--ablate=}; shift ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    -*) echo "fidelity.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- bert/predict/256/torch-eager bert/fit/32/torch-eager bert/predict/256/keras3-jax \
  mlp/predict/256/numpy
for v in ROUNDS STEPS WARMUP; do
  case "${!v}" in '' | *[!0-9]*) echo "fidelity.sh: $v=${!v} is not a whole number" >&2; exit 2 ;; esac
done
[ "$ROUNDS" -ge 1 ] && [ "$STEPS" -ge 1 ] || { echo "fidelity.sh: ROUNDS and STEPS must be at least 1" >&2; exit 2; }
case "$DEVICE" in cpu | gpu) ;; *) echo "fidelity.sh: FIDELITY_DEVICE=$DEVICE: expected cpu or gpu" >&2; exit 2 ;; esac
for c in "$@"; do
  IFS=/ read -r m t b k extra <<<"$c"
  case "$b" in '' | *[!0-9]*) b="" ;; esac
  [ -n "$m" ] && [ -n "$t" ] && [ -n "$b" ] && [ -n "$k" ] && [ -z "$extra" ] ||
    { echo "fidelity.sh: $c: expected MODEL/TASK/BATCH/BACKEND, e.g. bert/predict/256/torch-eager" >&2; exit 2; }
done
# The variants of the benchgen side: "-" is benchgen as it is.
variants=(-)
if [ -n "$ablate" ]; then
  IFS=, read -r -a items <<<"$ablate"
  for a in "${items[@]}"; do
    [ -n "$a" ] || { echo "fidelity.sh: --ablate $ablate: an empty item" >&2; exit 2; }
    variants+=("$a")
  done
fi
[ -x "$BENCHGEN" ] || { echo "fidelity.sh: no benchgen binary at $BENCHGEN (run make, or set BENCHGEN)" >&2; exit 2; }
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"
  TMP=$(cd "$KEEP" && pwd)
else
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/fidelity.XXXXXX")
  trap 'rm -rf "$TMP"' EXIT
fi

family() {
  case "$1" in
    torch-*) echo torch ;;
    keras*) echo keras ;;
    numpy) echo numpy ;;
    *) echo "fidelity.sh: backend $1: no family known here (torch-*, keras*, numpy)" >&2; return 1 ;;
  esac
}

# bench CELL R VARIANT: one benchgen run; its show --json in TMP.
bench() {
  local m t b k name dir
  IFS=/ read -r m t b k <<<"$1"
  name="$m-$t-$b-$k.r$2.${3//[+,]/_}"
  dir=$TMP/$name
  cat >"$TMP/$name.yaml" <<YAML
# scripts/fidelity.sh: one cell, the benchgen side.
name: fidelity
size: tiny
precision: float32
steps: $STEPS
warmup: $WARMUP
seed: 0
timeout: 1800
device: $DEVICE
backends: [$k]
rows:
  - {model: $m, task: $t, batch: $b}
YAML
  local abl=""
  [ "$3" = - ] || abl=${3//+/,}
  if ! BENCHGEN_ABLATE=$abl "$BENCHGEN" run "$TMP/$name.yaml" --out "$dir" >"$dir.log" 2>&1; then
    echo "fidelity.sh: $1 (ablate ${3}): benchgen run failed:" >&2
    tail -5 "$dir.log" >&2
    return 1
  fi
  "$BENCHGEN" show "$dir" --json >"$dir.json"
  python3 - "$dir.json" "$1" <<'PY' || return 1
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
if c["status"] != "ok":
    sys.exit(f"fidelity.sh: {sys.argv[2]}: the benchgen cell ended {c['status']}: {c.get('detail')}")
PY
}

# plain CELL R: the plain loop, in the interpreter and with the backend
# variables the cell of this round recorded.
plain() {
  local m t b k name ref fam
  IFS=/ read -r m t b k <<<"$1"
  name="$m-$t-$b-$k.r$2"
  ref=$TMP/$name.-.json
  fam=$(family "$k") || return 1
  local py envs
  py=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cells"][0]["environment"]["python.executable"])' "$ref") ||
    return 1
  mapfile -t envs < <(python3 -c 'import json,sys
e = json.load(open(sys.argv[1]))["cells"][0]["environment"]
for k, v in sorted(e.items()):
    if k.startswith("env.") and "\n" not in v:
        print(f"{k[4:]}={v}")' "$ref")
  if ! env "${envs[@]}" "$py" scripts/perf/fidelity_loop.py "$BENCHGEN_HOME" model="$m" task="$t" batch="$b" \
      backend="$k" family="$fam" size=tiny precision=float32 seed=0 steps="$STEPS" warmup="$WARMUP" \
      device="$DEVICE" >"$TMP/$name.plain.json" 2>"$TMP/$name.plain.log"; then
    echo "fidelity.sh: $1: the plain loop failed:" >&2
    tail -5 "$TMP/$name.plain.log" >&2
    return 1
  fi
  python3 - "$ref" "$TMP/$name.plain.json" "$1" <<'PY'
import json, sys
cell = json.load(open(sys.argv[1]))["cells"][0]
loop = json.load(open(sys.argv[2]))
if cell["input_sha256"] != loop["input_sha256"]:
    sys.exit(f"fidelity.sh: {sys.argv[3]}: the plain loop's inputs differ from the cell's "
             f"(sha256 {loop['input_sha256']} against {cell['input_sha256']})")
PY
}

echo "fidelity: ${#@} cell(s) x ${#variants[@]} benchgen variant(s) + plain, $ROUNDS round(s), $STEPS steps after $WARMUP warm-up, device $DEVICE" >&2
for r in $(seq 1 "$ROUNDS"); do
  for c in "$@"; do
    # The benchgen cell as it is comes first (the plain loop reads what it
    # recorded); the rest of the round rotates.
    bench "$c" "$r" - || exit 1
    order=(plain "${variants[@]:1}")
    n=${#order[@]}
    for i in $(seq 0 $((n - 1))); do
      j=${order[$(((i + r - 1) % n))]}
      if [ "$j" = plain ]; then plain "$c" "$r" || exit 1; else bench "$c" "$r" "$j" || exit 1; fi
    done
    echo "  round $r/$ROUNDS $c done" >&2
  done
done

python3 - "$TMP" "$ROUNDS" "${variants[*]}" "$@" <<'PY'
import json, random, statistics, sys
tmp, rounds, variants, cells = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(" "), sys.argv[4:]
med = statistics.median


def ratio_interval(bg, pl):
    if len(bg) < 3:
        return "n/a"
    rng = random.Random(1)
    idx = range(len(bg))
    est = []
    for _ in range(2000):
        pick = [rng.choice(idx) for _ in idx]
        est.append(med([bg[i] for i in pick]) / med([pl[i] for i in pick]))
    est.sort()
    return f"{est[int(0.025 * len(est))]:.3f} to {est[int(0.975 * len(est)) - 1]:.3f}"


print("| cell | ablate | rounds | benchgen median (ms) | plain median (ms) | benchgen/plain | 95% interval | per round |")
print("|---|---|---|---|---|---|---|---|")
for c in cells:
    m, t, b, k = c.split("/")
    pl = []
    for r in range(1, rounds + 1):
        pl.append(json.load(open(f"{tmp}/{m}-{t}-{b}-{k}.r{r}.plain.json"))["median_ns"] / 1e6)
    for v in variants:
        bg = []
        for r in range(1, rounds + 1):
            name = f"{tmp}/{m}-{t}-{b}-{k}.r{r}.{v.replace('+', '_').replace(',', '_')}.json"
            bg.append(json.load(open(name))["cells"][0]["stats"]["median_ms"])
        per = ", ".join(f"{x / y:.3f}" for x, y in zip(bg, pl))
        print(f"| {m}/{t}/b{b}/{k} | {'none' if v == '-' else v} | {rounds} | {med(bg):.3f} | {med(pl):.3f} | "
              f"{med(bg) / med(pl):.3f} | {ratio_interval(bg, pl)} | {per} |")
PY
