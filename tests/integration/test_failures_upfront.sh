#!/usr/bin/env bash
# Failures up front (issue 27, item 2): a cell whose step raises and one
# whose inputs() declares a bad dtype show the exception's type and message
# and the log's path in `run`'s progress line, in `show` and in the
# report's Failures table (with the traceback's last frames); `run --dry-run`
# loads each custom workload and calls supported() and inputs() (never
# setup()), so the bad dtype and a raising supported() are found before
# anything runs (exit 2), and it leaves no scratch file behind.
# NumPy backend only (the base environment), so this is quick.
set -u
. "$(dirname "$0")/lib.sh"

W=$ROOT/tests/workloads
cat >"$TMP/spec.yaml" <<YAML
name: failures-upfront
backends: [numpy]
steps: 1
warmup: 1
rows:
  - {model: raiser, task: predict, batch: 2, workload: $W/failing/step_raises.py}
  - {model: typo, task: predict, batch: 2, workload: $W/errors/bad_dtype.py}
YAML
"$BENCHGEN" run "$TMP/spec.yaml" --out "$TMP/run" >"$TMP/out" 2>&1
rc=$?
check "run exits 1 (cells failed, nothing else went wrong)" test "$rc" -eq 1
L1=$TMP/run/logs/raiser_predict_b2_numpy.log
L2=$TMP/run/logs/typo_predict_b2_numpy.log
line() { grep "^\[[0-9]/2\] $1 .* error " "$TMP/out"; }
has_line() { # has_line KEY TEXT: the cell's progress line holds TEXT
  case "$(line "$1")" in *"$2"*) return 0 ;; *) echo "# line: $(line "$1")"; return 1 ;; esac
}
check "run: a raising step gives its exception" \
  has_line raiser/predict/b2/numpy "warm-up step failed: ValueError: step broke on purpose"
check "run: a raising step gives its log" has_line raiser/predict/b2/numpy "(log: $L1)"
check "run: a bad dtype gives the exception's message" \
  has_line typo/predict/b2/numpy "workload's inputs() failed: ValueError: workload $W/errors/bad_dtype.py: inputs() declared bad inputs: input 'x': dtype 'flaot32' is not one of int32, int64, float32, uint8 (did you mean 'float32'?)"
check "run: a bad dtype gives its log" has_line typo/predict/b2/numpy "(log: $L2)"
check "the logs named exist and hold the traceback" \
  grep -q "ValueError: step broke on purpose" "$L1"

"$BENCHGEN" show "$TMP/run" >"$TMP/show" 2>&1 || not_ok "show"
sed -n '/^failures$/,/^$/p' "$TMP/show" >"$TMP/failures"
fl() { grep -qF -- "$1" "$TMP/failures" || { echo "# failures section:"; sed 's/^/# /' "$TMP/failures"; return 1; }; }
check "show: a raising step gives its exception" fl "raiser/predict/b2/numpy  error: warm-up step failed: ValueError: step broke on purpose"
check "show: a raising step gives its log" fl "log: $L1"
check "show: a bad dtype gives the exception's message" fl "(did you mean 'float32'?)"
check "show: a bad dtype gives its log" fl "log: $L2"
check "show: one line and its log per failed cell" test "$(wc -l <"$TMP/failures")" -eq 6

# the report's Failures table: the exception's line, the last frames, the log
"$BENCHGEN" report "$TMP/run" --out "$TMP/rep" --format md >/dev/null 2>&1 || not_ok "report"
sed -n '/^## Failures$/,/^## /p' "$TMP/rep/report.md" >"$TMP/rfail"
rf() { grep -F -- "$1" "$TMP/rfail" | grep -qF -- "$2" || { echo "# Failures:"; sed 's/^/# /' "$TMP/rfail"; return 1; }; }
check "report: a raising step gives its exception" rf "raiser/predict/b2/numpy" "ValueError: step broke on purpose"
check "report: a raising step gives its last frame (the workload's line)" rf "raiser/predict/b2/numpy" "step\_raises.py:10 in step"
check "report: a raising step gives its log" rf "raiser/predict/b2/numpy" "logs/raiser\_predict\_b2\_numpy.log"
check "report: a bad dtype gives the frame that checked it" rf "typo/predict/b2/numpy" "in input\_specs"

# --dry-run finds the bad dtype, and runs nothing
mkdir -p "$TMP/tmp"
TMPDIR=$TMP/tmp "$BENCHGEN" run "$TMP/spec.yaml" --out "$TMP/dry" --dry-run >"$TMP/dry.out" 2>"$TMP/dry.err"
rc=$?
check "dry run of a bad dtype exits 2" test "$rc" -eq 2
check "dry run names the bad dtype and the suggestion" \
  grep -qF "typo/predict/b2/numpy: workload's inputs() failed: ValueError: workload $W/errors/bad_dtype.py: inputs() declared bad inputs: input 'x': dtype 'flaot32' is not one of int32, int64, float32, uint8 (did you mean 'float32'?)" "$TMP/dry.err"
check "dry run prints the traceback of the failing cell" grep -q "in input_specs" "$TMP/dry.out"
check "dry run passes the cell whose step raises (no step runs)" \
  grep -qE "^  raiser/predict/b2/numpy +ok$" "$TMP/dry.out"
check "dry run created no run directory" test ! -e "$TMP/dry"
check "dry run left no scratch file" test -z "$(ls -A "$TMP/tmp")"

cat >"$TMP/spec2.yaml" <<YAML
name: failures-upfront-2
backends: [numpy]
rows:
  - {model: setupraises, task: predict, batch: 2, workload: $W/failing/setup_raises.py}
  - {model: mlp, task: predict, batch: 2}
YAML
"$BENCHGEN" run "$TMP/spec2.yaml" --dry-run >"$TMP/dry2.out" 2>&1
rc=$?
check "dry run never calls setup(): a raising setup() passes, exit 0" test "$rc" -eq 0
check "dry run checked the custom-workload cell" grep -qE "^  setupraises/predict/b2/numpy +ok$" "$TMP/dry2.out"
check "dry run did not check the built-in cell" sh -c "! grep -qE '^  mlp/predict/b2/numpy +(ok|error)' '$TMP/dry2.out'"

cat >"$TMP/spec3.yaml" <<YAML
name: failures-upfront-3
backends: [numpy]
rows:
  - {model: supp, task: predict, batch: 2, workload: $W/failing/supported_raises.py}
YAML
"$BENCHGEN" run "$TMP/spec3.yaml" --dry-run >"$TMP/dry3.out" 2>&1
rc=$?
check "dry run of a raising supported() exits 2" test "$rc" -eq 2
check "dry run names supported()'s exception" \
  grep -qF "workload's supported() failed: KeyError: 'no such backend table entry'" "$TMP/dry3.out"

check "no worker survived" test -z "$(pgrep -f "$TMP/" 2>/dev/null)"
finish
