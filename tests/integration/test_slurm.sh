#!/usr/bin/env bash
# The Slurm executor against a real one-node cluster (slurmctld, slurmd,
# munge from Debian), started here by hand with two fake GPUs declared as
# GRES, and stopped by PID at the end. Shows: a 12-cell matrix ends as it
# does locally; two cells at once on different GPUs; scancel then --resume;
# a requeued task counts two attempts; a task past --time ends `timeout`;
# --no-wait, status, collect. Needs root and `base` (numpy).
set -u
. "$(dirname "$0")/lib.sh"

for cmd in slurmctld slurmd sbatch munged; do
  command -v $cmd >/dev/null || [ -x /usr/sbin/$cmd ] ||
    { not_ok "$cmd is installed (scripts/install-deps.sh installs Slurm)"; finish; }
done
CL=$TMP/cluster
trap 'tests/slurm/stop-cluster.sh "$CL"; rm -rf "$TMP"' EXIT
if ! out=$(SLURM_TEST_CPUS=4 tests/slurm/start-cluster.sh "$CL" 2>&1); then
  echo "$out"
  not_ok "one-node Slurm cluster starts"
  finish
fi
ok "one-node Slurm cluster starts (slurmctld, slurmd, 2 fake GPUs)"
export SLURM_CONF=$CL/slurm.conf
export BENCHGEN_SLURM_POLL_MS=300

wait_for() { # SECONDS COMMAND...: polls until COMMAND succeeds
  local n=$(($1 * 5)); shift
  for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
  return 1
}

# 1. A cell past its --time, submitted with --no-wait first: it runs while
#    the rest of this test does (the node has 4 CPUs, the GPUs stay free).
SLOW=$TMP/slow
"$BENCHGEN" run tests/specs/sleeper.yaml --out "$SLOW" --executor slurm --time 1 --no-wait \
  >"$TMP/slow.out" 2>"$TMP/slow.err"
check "--no-wait exits 0 once queued" test $? -eq 0
SLOW_JOB=$(tail -1 "$TMP/slow.out")
check "--no-wait prints the job id" test -n "$SLOW_JOB" -a "$SLOW_JOB" -eq "$SLOW_JOB" 2>/dev/null
running_slow() { "$BENCHGEN" status "$SLOW" 2>/dev/null | grep -q "running on localhost"; }
check "status shows the task running on its node" wait_for 30 running_slow

# 2. Twelve cells through Slurm end as they do locally.
#    The local run goes side by side with the Slurm one (only statuses,
#    input hashes and sample counts are compared).
LOCAL=$TMP/local12
"$BENCHGEN" run tests/specs/numpy12.yaml --out "$LOCAL" >/dev/null 2>&1 &
local_pid=$!
SL=$TMP/slurm12
"$BENCHGEN" run tests/specs/numpy12.yaml --out "$SL" --executor slurm --cpus-per-cell 1 >"$TMP/sl12.out" 2>&1
check "12-cell slurm run exits 0" test $? -eq 0
wait "$local_pid"
"$BENCHGEN" show "$LOCAL" --json >"$TMP/local12.json"
"$BENCHGEN" show "$SL" --json >"$TMP/slurm12.json"
same='[(c["key"],c["status"],c["input_sha256"],c["samples"]) for c in cells]'
check "same statuses, input hashes and sample counts as locally" \
  test "$(cells_py "$TMP/local12.json" "$same")" = "$(cells_py "$TMP/slurm12.json" "$same")"
check "all 12 ok" test "$(cells_py "$TMP/slurm12.json" 'sum(c["status"]=="ok" for c in cells)')" = 12
check "each cell records its node, job and array ids" \
  test "$(cells_py "$TMP/slurm12.json" 'all(w(c,"slurm.node")=="localhost" and w(c,"slurm.job_id") and w(c,"slurm.array_task_id")==str(c["id"]) for c in cells)')" = True
check "one attempt per cell" test "$(cells_py "$TMP/slurm12.json" '{c["attempts"] for c in cells}')" = "{1}"
check "no task touched run.db: results came as files" test "$(ls "$SL"/cells/*/*.json | wc -l)" -eq 12
check "status after the run: all final" grep -q "12 final" <("$BENCHGEN" status "$SL")

# 3. Two cells at once, each bound to a different GPU.
GP=$TMP/gpus
"$BENCHGEN" run tests/specs/placement.yaml --out "$GP" --executor slurm --gpus-per-cell 1 >"$TMP/gp.out" 2>&1
check "GPU run exits 0" test $? -eq 0
"$BENCHGEN" show "$GP" --json >"$TMP/gp.json"
J=$TMP/gp.json
overlaps='[(a,b) for a in cells for b in cells if a["id"]<b["id"] and float(f(a,"seen.t_start"))<float(f(b,"seen.t_end")) and float(f(b,"seen.t_start"))<float(f(a,"seen.t_end"))]'
check "two cells overlapped in time" test "$(cells_py "$J" "len($overlaps) > 0")" = True
check "overlapping cells had different GPUs (SLURM_JOB_GPUS)" \
  test "$(cells_py "$J" "all(w(a,'slurm.job_gpus')!=w(b,'slurm.job_gpus') for a,b in $overlaps)")" = True
check "CUDA_VISIBLE_DEVICES recorded and seen by the workload" \
  test "$(cells_py "$J" 'all(w(c,"where.devices")==f(c,"seen.devices")!="" for c in cells)')" = True

# 3b. Resources per spec, backend and row: one array per set of resources.
RS=$TMP/resources
"$BENCHGEN" run tests/specs/resources.yaml --out "$RS" --executor slurm --mem 200M >"$TMP/rs.out" 2>&1
check "resources run exits 0" test $? -eq 0
check "two arrays submitted (GPU rows, CPU row)" grep -q "submitted 3 cell(s) to slurm job [0-9]*,[0-9]*" "$TMP/rs.out"
"$BENCHGEN" show "$RS" --json >"$TMP/rs.json"
asked() { # CELL_ID: time limit | memory | gres of its array job, as squeue has it
  squeue -h -t all -r -j "$(cells_py "$TMP/rs.json" "[w(c,'slurm.array_job_id') for c in cells if c['id']==$1][0]")" \
    -o '%l|%m|%b' | head -1
}
check "GPU rows: spec-wide gpus/time, the command line's --mem" test "$(asked 1)" = "10:00|200M|gres:gpu:1"
check "row 3: its own gpus: 0 and mem over the spec's and the command line's" test "$(asked 3)" = "10:00|300M|N/A"
check "row 3 got no GPU" test "$(cells_py "$TMP/rs.json" '[w(c,"slurm.job_gpus") for c in cells if c["id"]==3][0]')" = ""
check "backend's cpus reached the task" test "$(cells_py "$TMP/rs.json" '{w(c,"slurm.cpus_per_task") for c in cells}')" = "{'1'}"

# 4. scancel one task mid-run and requeue another; then --resume.
RQ=$TMP/requeue
BENCHGEN_TEST_STEP_S=2 "$BENCHGEN" run tests/specs/placement.yaml --out "$RQ" --executor slurm \
  --gpus-per-cell 1 >"$TMP/rq.out" 2>&1 &
rq_pid=$!
job_of() { "$BENCHGEN" status "$RQ" 2>/dev/null | sed -n "s/.*running on localhost (job \([0-9]*\)_$1).*/\1/p"; }
both_running() { "$BENCHGEN" status "$RQ" 2>/dev/null | grep -c "place[12].*running on" | grep -q 2; }
wait_for 30 both_running
sleep 2
JOB=$(job_of 1)
check "cells 1 and 2 are running" test -n "$JOB"
scancel "${JOB}_1"
scontrol requeue "${JOB}_2"
wait $rq_pid
rc=$?
check "a run with a cancelled cell exits 1 (got $rc)" test $rc -eq 1
"$BENCHGEN" show "$RQ" --json >"$TMP/rq1.json"
J=$TMP/rq1.json
check "cancelled cell is interrupted, with Slurm's word" \
  test "$(cells_py "$J" '[c["status"] for c in cells if c["id"]==1][0]')" = interrupted
check "... CANCELLED in the detail" grep -q "CANCELLED" <<<"$(cells_py "$J" '[c["detail"] for c in cells if c["id"]==1][0]')"
check "status says so" grep -q "place1.*interrupted, Slurm: CANCELLED" <("$BENCHGEN" status "$RQ")
check "requeued cell ends ok after its second attempt" \
  test "$(cells_py "$J" '[(c["status"],c["attempts"]) for c in cells if c["id"]==2][0]')" = "('ok', 2)"
check "requeued cell has both attempt files" test "$(ls "$RQ"/cells/2/*.json | wc -l)" -eq 2
check "requeued cell's samples are its second attempt's" \
  test "$(cells_py "$J" '[(w(c,"slurm.restart_count"), c["samples"]["timed"]) for c in cells if c["id"]==2][0]')" = "('1', 4)"
BENCHGEN_TEST_STEP_S=0.3 "$BENCHGEN" run --resume "$RQ" --gpus-per-cell 1 >"$TMP/rq2.out" 2>&1
check "--resume exits 0" test $? -eq 0
check "--resume resubmitted only the cancelled cell" grep -q "submitted 1 cell" "$TMP/rq2.out"
"$BENCHGEN" show "$RQ" --json >"$TMP/rq2.json"
J=$TMP/rq2.json
check "every cell ended once, ok" test "$(cells_py "$J" '[c["status"] for c in cells]')" = "['ok', 'ok', 'ok', 'ok']"
check "attempts: 2 (cancelled, resumed), 2 (requeued), 1, 1" \
  test "$(cells_py "$J" '[c["attempts"] for c in cells]')" = "[2, 2, 1, 1]"
check "nothing lost: every cell has its 4 timed samples" \
  test "$(cells_py "$J" '{c["samples"]["timed"] for c in cells}')" = "{4}"
"$BENCHGEN" collect "$RQ" >/dev/null 2>"$TMP/collect-again.err"
check "collect again changes nothing" grep -q "collected 0 result file" "$TMP/collect-again.err"

# 4b. The attempt cap: with --max-attempts 1, a requeued task does not run again.
CAP=$TMP/cap
BENCHGEN_TEST_STEP_S=2 "$BENCHGEN" run tests/specs/placement.yaml --out "$CAP" --only model=place1 \
  --executor slurm --max-attempts 1 >"$TMP/cap.out" 2>&1 &
cap_pid=$!
cap_running() { "$BENCHGEN" status "$CAP" 2>/dev/null | grep -q "running on"; }
wait_for 30 cap_running
sleep 1
scontrol requeue "$(sed -n 's/.*to slurm job \([0-9]*\).*/\1/p' "$TMP/cap.out")_1"
wait $cap_pid
check "capped run exits 1" test $? -eq 1
"$BENCHGEN" show "$CAP" --json >"$TMP/cap.json"
check "capped cell: interrupted after 2 starts, not run again" \
  test "$(cells_py "$TMP/cap.json" '(cells[0]["status"], cells[0]["attempts"], "--max-attempts 1" in cells[0]["detail"])')" = \
  "('interrupted', 2, True)"

# 5. The slow cell: past --time 1 it ends as timeout; collect merges it.
gone() { ! squeue -h -j "$SLOW_JOB" -t PENDING,RUNNING,COMPLETING 2>/dev/null | grep -q .; }
check "the slow task ends (Slurm's time limit)" wait_for 150 gone
"$BENCHGEN" collect "$SLOW" >/dev/null 2>"$TMP/collect.err"
check "collect exits 0 when every cell is final" test $? -eq 0
"$BENCHGEN" show "$SLOW" --json >"$TMP/slow.json"
check "a task past its --time ends as timeout" \
  test "$(cells_py "$TMP/slow.json" '[c["status"] for c in cells]')" = "['timeout']"
check "... with Slurm's TIMEOUT in the detail" grep -q "TIMEOUT" <<<"$(cells_py "$TMP/slow.json" 'cells[0]["detail"]')"
check "no benchgen cell process left" test -z "$(pgrep -f -- "cell $TMP/" || true)"
finish
