#!/usr/bin/env bash
# compare-calibration.sh - measures benchgen compare's false-alarm rate and
# power on real noise: real frameworks, real processes, this machine as it
# is (docs/COMPARE.md, "Calibration", has the figures and how they were made).
#
#   scripts/compare-calibration.sh [--dir DIR] [--aa N] [--aa-frameworks N]
#       [--power N] [--power-other N] [--power-long N] [--repeats R] [--backends LIST] [--analyse-only]
#       [--aa-extra NAME,...]
#       [--record FILE] [--short]
#
# Parts, each a series of `benchgen run SPEC --ab` invocations into DIR:
#   aa-numpy-K        A/A of data/calibration/aa-numpy.yaml (4 NumPy cells)
#   aa-frameworks-K   A/A of data/calibration/aa-frameworks.yaml (the issue's
#                     12 cells: 6 tiny rows x torch-eager, keras3-jax), only
#                     the backends in --backends (default: both)
#   power-S-K         data/calibration/power.yaml with B doing an extra share
#                     S of its work (0.25, 0.10, and -0.20: a 1.25x speed-up)
#   power-longS-K     the same with data/calibration/power-long.yaml (100
#                     steps a process instead of 20: processes of ~5 s, not ~1 s)
#   drift-quiet, drift-hog   two separate runs of aa-numpy.yaml, the second
#                     while four CPU hogs run (started and stopped by PID)
# then `benchgen compare` with the recipe's defaults on each, tallied:
#   A/A: share of cell verdicts faster/slower (<= 5% required), comparisons
#        exiting 0 (>= 9 of 10 required);
#   power: comparisons where every cell is slower (25%: >= 9 of 10 required),
#        the 10% rate, the speed-up found as faster;
#   drift: the canary moved and the verdicts are marked confounded.
# Runs already in DIR are reused (a run is only made when DIR/NAME.done is
# missing), so a long calibration can be extended or re-analysed.
#
# --short is the version `make test` runs (tests/integration/test_compare_calibration.sh):
# one A/A (the two NumPy predict cells) and one 25% power comparison, and the
# drift pair on the same two cells, six processes a side (the recipe and the
# default here are twelve).
# --aa-extra NAME,... counts further A/A runs already in DIR (made by hand,
# e.g. one backend's rows of aa-frameworks.yaml) toward the false alarms.
# Exit status: 0 every criterion met, 1 some criterion failed, 2 usage.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
BENCHGEN=${BENCHGEN:-$here/benchgen}
dir=${TMPDIR:-/tmp}/benchgen-calibration
aa=10 aaf=0 aa_extra= power=10 power_other= power_long=0 repeats=12 backends=torch-eager,keras3-jax analyse_only=0 record= short=0
while [ $# -gt 0 ]; do
    case $1 in
    --dir) dir=$2; shift ;;
    --aa) aa=$2; shift ;;
    --aa-frameworks) aaf=$2; shift ;;
    --aa-extra) aa_extra=$2; shift ;;
    --power) power=$2; shift ;;
    --power-other) power_other=$2; shift ;;
    --power-long) power_long=$2; shift ;;
    --repeats) repeats=$2; shift ;;
    --backends) backends=$2; shift ;;
    --analyse-only) analyse_only=1 ;;
    --record) record=$2; shift ;;
    --short) short=1 aa=1 aaf=0 power=1 repeats=6 ;;
    -h|--help) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare-calibration.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
mkdir -p "$dir" || exit 2
cal=$here/data/calibration
log=$dir/calibration.log
hogs=()
cleanup() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; hogs=(); }
trap cleanup EXIT INT TERM

# One A/B invocation unless its runs exist; the load average goes to the log.
ab() { # NAME SPEC [run options...]
    local name=$1 spec=$2; shift 2
    [ -f "$dir/$name.done" ] && return 0
    [ $analyse_only = 1 ] && { echo "missing $dir/$name (--analyse-only)" >&2; return 1; }
    rm -rf "${dir:?}/$name"
    echo "$(date -u +%FT%TZ) start $name load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
    "$BENCHGEN" run "$spec" --ab --repeats "$repeats" --out "$dir/$name" "$@" >"$dir/$name.out" 2>&1
    local rc=$?
    echo "$(date -u +%FT%TZ) end   $name rc $rc load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
    [ $rc -le 1 ] && touch "$dir/$name.done"
}

only=
for b in ${backends//,/ }; do only+="${only:+,}backend=$b"; done

aa_only=()
[ $short = 1 ] && aa_only=(--only task=predict)
for k in $(seq 1 "$aa"); do ab "aa-numpy-$k" "$cal/aa-numpy.yaml" "${aa_only[@]}"; done
for k in $(seq 1 "$aaf"); do ab "aa-frameworks-$k" "$cal/aa-frameworks.yaml" --only "$only"; done
shares="0.25 0.10 -0.20"
[ $short = 1 ] && shares=0.25
for s in $shares; do
    n=$power
    [ "$s" != 0.25 ] && n=${power_other:-$power}
    for k in $(seq 1 "$n"); do
        # One BLAS thread: the share is of single-threaded work (see docs/COMPARE.md).
        OPENBLAS_NUM_THREADS=1 ab "power$s-$k" "$cal/power.yaml" --b-env BENCHGEN_EXTRA_SHARE=$s
    done
done
for s in $shares; do
    n=$power_long
    [ "$s" != 0.25 ] && n=${power_other:-$power_long}
    [ "$power_long" = 0 ] && n=0
    for k in $(seq 1 "$n"); do
        OPENBLAS_NUM_THREADS=1 ab "power-long$s-$k" "$cal/power-long.yaml" --b-env BENCHGEN_EXTRA_SHARE=$s
    done
done
# The drift pair: two separate runs, the second under four CPU hogs.
drift() { # NAME
    local name=$1
    [ -f "$dir/$name.done" ] && return 0
    [ $analyse_only = 1 ] && { echo "missing $dir/$name (--analyse-only)" >&2; return 1; }
    rm -rf "${dir:?}/$name"
    echo "$(date -u +%FT%TZ) start $name load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
    "$BENCHGEN" run "$cal/aa-numpy.yaml" --repeats "$repeats" "${aa_only[@]}" --out "$dir/$name" >"$dir/$name.out" 2>&1
    local rc=$?
    echo "$(date -u +%FT%TZ) end   $name rc $rc load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
    [ $rc -le 1 ] && touch "$dir/$name.done"
}
drift drift-quiet
if [ ! -f "$dir/drift-hog.done" ] && [ $analyse_only = 0 ]; then
    for _ in 1 2 3 4; do (while :; do :; done) & hogs+=($!); done
    drift drift-hog
    cleanup
fi

exec python3 "$here/scripts/compare_calibration.py" --benchgen "$BENCHGEN" --dir "$dir" --aa "$aa" \
    --aa-frameworks "$aaf" --power "$power" --power-other "${power_other:-$power}" --power-long "$power_long" \
    --power-long-other "${power_other:-$power_long}" --shares "$shares" ${aa_extra:+--aa-extra "$aa_extra"} \
    ${record:+--record "$record"}
