#!/usr/bin/env bash
# The local executor with slots: --devices runs one cell per device at once
# (fake device ids: nothing here opens a GPU) and never two on one device;
# --cpus-per-cell pins disjoint cores and sets the thread variables; options
# the machine cannot honour are refused; Ctrl-C records the cells in flight
# as interrupted and leaves no process behind. Needs the `base` environment.
set -u
. "$(dirname "$0")/lib.sh"

SPEC=tests/specs/placement.yaml
export BENCHGEN_TEST_STEP_S=0.3


# --devices: two fake devices, four cells.
RUN=$TMP/dev
"$BENCHGEN" run "$SPEC" --out "$RUN" --devices 7,9 >"$TMP/dev.out" 2>&1
check "--devices run exits 0" test $? -eq 0
"$BENCHGEN" show "$RUN" --json >"$TMP/dev.json"
J=$TMP/dev.json
check "four cells ok" test "$(cells_py "$J" 'sum(c["status"]=="ok" for c in cells)')" = 4
check "each cell saw exactly one of the devices" \
  test "$(cells_py "$J" 'all(f(c,"seen.devices") in ("7","9") for c in cells)')" = True
check "recorded device is the one the workload saw" \
  test "$(cells_py "$J" 'all(w(c,"where.devices")==f(c,"seen.devices") for c in cells)')" = True
check "both devices used" test "$(cells_py "$J" 'sorted({f(c,"seen.devices") for c in cells})')" = "['7', '9']"
# Overlap: some pair of cells ran at the same time; no two overlapping cells shared a device.
overlaps='[(a["key"],b["key"],f(a,"seen.devices")==f(b,"seen.devices")) for a in cells for b in cells
  if a["id"]<b["id"] and float(f(a,"seen.t_start"))<float(f(b,"seen.t_end")) and float(f(b,"seen.t_start"))<float(f(a,"seen.t_end"))]'
check "two cells overlapped in time" test "$(cells_py "$J" "len($overlaps) > 0")" = True
check "overlapping cells never shared a device" test "$(cells_py "$J" "any(s for _,_,s in $overlaps)")" = False
check "one attempt file per cell, merged once" test "$(cells_py "$J" '[c["attempts"] for c in cells]')" = "[1, 1, 1, 1]"
check "CUDA_DEVICE_ORDER=PCI_BUS_ID for device slots" \
  test "$(cells_py "$J" '{f(c,"seen.device_order") for c in cells}')" = "{'PCI_BUS_ID'}"
n_files=$(ls "$RUN"/cells/*/*.json | wc -l)
check "attempt files kept under cells/" test "$n_files" -eq 4

# The report shows where every cell ran, and warns when the cells of one row
# ran on different kinds of GPU (two repeats of one row, one relabelled).
RUN=$TMP/kinds
"$BENCHGEN" run "$SPEC" --out "$RUN" --devices 0,1 --only model=place1 --repeats 2 >/dev/null 2>&1
sqlite3 "$RUN/run.db" "UPDATE environment SET value = 'Fake GPU A' WHERE key = 'where.gpu' AND cell_id = 1;
  UPDATE environment SET value = 'Fake GPU B' WHERE key = 'where.gpu' AND cell_id = 2;"
"$BENCHGEN" report "$RUN" --out "$TMP/kinds-report" >/dev/null 2>&1
check "report has a Where cells ran section" grep -q "^## Where cells ran" "$TMP/kinds-report/report.md"
check "... listing both cells with their devices" \
  test "$(sed -n '/^## Where cells ran/,/^## Environment/p' "$TMP/kinds-report/report.md" | grep -c '^| place1/predict/b1/numpy')" -eq 2
check "... and warning that the row ran on two GPU kinds" \
  grep -q "ran on different kinds of GPU: Fake GPU A; Fake GPU B" "$TMP/kinds-report/report.md"

# GPUs from NVML (four fake ones, tests/fake/fake_nvml.c): --devices auto
# takes only those an inherited CUDA_VISIBLE_DEVICES names (by index or
# UUID), refuses an allocation that names no GPU here and an explicit device
# outside it; without --devices every cell is bound to one GPU, the first
# allowed one.
FAKE=$TMP/fake-nvml/libnvidia-ml.so.1
mkdir -p "$(dirname "$FAKE")"
cc -shared -fPIC -O1 -o "$FAKE" tests/fake/fake_nvml.c
gpus() { # gpus CUDA_VISIBLE_DEVICES|unset NAME ARGS...: a run on the fake GPUs
  local cvd=$1 name=$2
  shift 2
  if [ "$cvd" = unset ]; then
    env -u CUDA_VISIBLE_DEVICES BENCHGEN_NVML_LIB="$FAKE" FAKE_NVML_COUNT=4 \
      "$BENCHGEN" run "$SPEC" --out "$TMP/$name" "$@" >"$TMP/$name.out" 2>&1
  else
    CUDA_VISIBLE_DEVICES=$cvd BENCHGEN_NVML_LIB="$FAKE" FAKE_NVML_COUNT=4 \
      "$BENCHGEN" run "$SPEC" --out "$TMP/$name" "$@" >"$TMP/$name.out" 2>&1
  fi
}
seen() { "$BENCHGEN" show "$TMP/$1" --json >"$TMP/$1.json" && cells_py "$TMP/$1.json" "$2"; }
U2=GPU-00000002-fake-0000-0000-000000000000
gpus 1,3 inh --devices auto --only model=place1,model=place2
check "auto with CUDA_VISIBLE_DEVICES=1,3: run exits 0" test $? -eq 0
check "... each cell on GPU 1 or 3, never on 0 or 2, both used" \
  test "$(seen inh 'sorted(f(c,"seen.devices") for c in cells)')" = "['1', '3']"
check "... the slots were the inherited GPUs" grep -q "device 1" "$TMP/inh.out"
gpus GPU-00000002 inhuuid --devices auto --only model=place1
check "auto with a UUID prefix: the cell gets that GPU as given" \
  test "$(seen inhuuid '[f(c,"seen.devices") for c in cells]')" = "['GPU-00000002']"
gpus unset all --devices auto --only model=place1,model=place2
check "auto without CUDA_VISIBLE_DEVICES: NVML's GPUs (0-3)" \
  test "$(seen all 'all(f(c,"seen.devices") in ("0","1","2","3") for c in cells)')" = True
gpus 7 bad --devices auto --only model=place1
check "auto with CUDA_VISIBLE_DEVICES=7 (no such GPU): exit 2" test $? -eq 2
check "... naming the entry" grep -q "'7' is none of the 4 GPU(s) NVML sees here" "$TMP/bad.out"
gpus 1,3 outside --devices 0,1 --only model=place1
check "--devices 0,1 with CUDA_VISIBLE_DEVICES=1,3: exit 2" test $? -eq 2
check "... device 0 is not among the GPUs given" grep -q "device 0 is not among the GPUs this process was given" "$TMP/outside.out"
gpus 1,3 inside --devices "$U2" --only model=place1
check "--devices GPU-...2 with CUDA_VISIBLE_DEVICES=1,3: exit 2 (index and UUID compared)" test $? -eq 2
gpus 3,1 inside2 --devices GPU-00000003 --only model=place1
check "--devices by UUID inside CUDA_VISIBLE_DEVICES=3,1 by index: runs" test $? -eq 0
gpus unset one --only model=place1,model=place2
check "no --devices: every cell bound to GPU 0 (recorded and seen), PCI bus order" \
  test "$(seen one '{(w(c,"where.devices"), f(c,"seen.devices"), f(c,"seen.device_order")) for c in cells}')" = "{('0', '0', 'PCI_BUS_ID')}"
gpus 2,3 oneinh --only model=place1
check "no --devices, CUDA_VISIBLE_DEVICES=2,3: the cell gets GPU 2 only" \
  test "$(seen oneinh '[f(c,"seen.devices") for c in cells]')" = "['2']"
gpus "$U2" oneuuid --only model=place1
check "no --devices, CUDA_VISIBLE_DEVICES by UUID: that GPU" \
  test "$(seen oneuuid '[f(c,"seen.devices") for c in cells]')" = "['$U2']"
env -u CUDA_VISIBLE_DEVICES BENCHGEN_NVML_LIB=$TMP/no-such-libnvidia-ml.so "$BENCHGEN" run "$SPEC" \
  --out "$TMP/nonvml" --only model=place1 >/dev/null 2>&1
check "no --devices and no NVML: no binding (as before)" \
  test "$(seen nonvml '[(w(c,"where.devices"), f(c,"seen.devices")) for c in cells]')" = "[('', '')]"

# --cpus-per-cell 1 alone: one slot per core, disjoint affinity, threads = 1.
ncores=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
RUN=$TMP/cpu
"$BENCHGEN" run "$SPEC" --out "$RUN" --cpus-per-cell 1 >"$TMP/cpu.out" 2>&1
check "--cpus-per-cell run exits 0" test $? -eq 0
"$BENCHGEN" show "$RUN" --json >"$TMP/cpu.json"
J=$TMP/cpu.json
check "each cell pinned to one core (recorded = seen by the workload)" \
  test "$(cells_py "$J" 'all(w(c,"where.cores")==f(c,"seen.cores") and "," not in f(c,"seen.cores") and "-" not in w(c,"where.cores") for c in cells)')" = True
check "OMP_NUM_THREADS = 1 in every cell" test "$(cells_py "$J" '{f(c,"seen.omp_threads") for c in cells}')" = "{'1'}"
if [ "$ncores" -ge 2 ]; then
  disjoint='all(a["environment"]["where.cores"]!=b["environment"]["where.cores"] for a in cells for b in cells
    if a["id"]<b["id"] and float(f(a,"seen.t_start"))<float(f(b,"seen.t_end")) and float(f(b,"seen.t_start"))<float(f(a,"seen.t_end")))'
  check "cells running at once had disjoint cores" test "$(cells_py "$J" "$disjoint")" = True
  check "cells ran on $ncores cores at once" test "$(cells_py "$J" 'len({w(c,"where.cores") for c in cells})')" = "$ncores"
fi

# Refusals: exit 2, nothing created.
"$BENCHGEN" run "$SPEC" --out "$TMP/r1" --cpus-per-cell $((ncores + 1)) >/dev/null 2>"$TMP/r1.err"
check "more cores per cell than the machine has: exit 2" test $? -eq 2
check "... says how many it may use" grep -q "may run on $ncores core" "$TMP/r1.err"
"$BENCHGEN" run "$SPEC" --out "$TMP/r2" --devices 0,1,2 --cpus-per-cell "$ncores" >/dev/null 2>"$TMP/r2.err"
check "devices x cpus beyond the machine: exit 2" test $? -eq 2
"$BENCHGEN" run "$SPEC" --out "$TMP/r3" --devices 0,0 >/dev/null 2>"$TMP/r3.err"
check "a device listed twice is refused" grep -q "listed twice" "$TMP/r3.err"
check "refused runs create nothing" test ! -e "$TMP/r1" -a ! -e "$TMP/r2" -a ! -e "$TMP/r3" -a ! -e "$TMP/r4"
"$BENCHGEN" run "$SPEC" --out "$TMP/r4" --executor pbs >/dev/null 2>"$TMP/r4.err"
check "unknown executor: exit 2" test $? -eq 2

# Ctrl-C with two cells in flight: both interrupted, nothing left running, --resume finishes.
RUN=$TMP/int
BENCHGEN_TEST_STEP_S=5 "$BENCHGEN" run "$SPEC" --out "$RUN" --devices 0,1 >"$TMP/int.out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ "$(grep -c running "$TMP/int.out")" -ge 2 ] && break; sleep 0.1; done
sleep 2
kill -INT $pid
wait $pid
check "interrupted slot run exits 130" test $? -eq 130
sleep 0.3
check "no cell process survived" test -z "$(pgrep -f -- "cell $RUN " || true)"
"$BENCHGEN" show "$RUN" --json >"$TMP/int.json"
check "both cells in flight recorded interrupted" \
  test "$(cells_py "$TMP/int.json" 'sorted(str(c["status"]) for c in cells)')" = "['None', 'None', 'interrupted', 'interrupted']"
"$BENCHGEN" run --resume "$RUN" --devices 0,1 >"$TMP/resume.out" 2>&1
check "--resume with slots exits 0" test $? -eq 0
"$BENCHGEN" show "$RUN" --json >"$TMP/int2.json"
check "every cell ok after --resume" test "$(cells_py "$TMP/int2.json" '[c["status"] for c in cells]')" = "['ok', 'ok', 'ok', 'ok']"
check "interrupted cells count two attempts" \
  test "$(cells_py "$TMP/int2.json" 'sorted(c["attempts"] for c in cells)')" = "[1, 1, 2, 2]"
finish
