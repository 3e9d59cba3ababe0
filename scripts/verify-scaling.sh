#!/usr/bin/env bash
# verify-scaling.sh [BENCHGEN...] - times `benchgen verify` on a crafted,
# consistent bundle of 50,000 small files (tests/integration/craft_bundle.py
# many), 5 runs per binary, and prints the median wall and CPU seconds.
# Pass several binaries (e.g. an older build) to compare them side by side;
# runs alternate between binaries. Default: ./benchgen.
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- ./benchgen
T=$(mktemp -d "${TMPDIR:-/tmp}/verify-scaling.XXXXXX")
trap 'rm -rf "$T"' EXIT
python3 tests/integration/craft_bundle.py many "$T/many.tar.gz"
for i in 1 2 3 4 5; do
  for b in "$@"; do
    /usr/bin/time -f "%e %U %S" -o "$T/t" "$b" verify "$T/many.tar.gz" >/dev/null 2>&1 || true
    echo "$b $(cat "$T/t" | tail -1)" >>"$T/all"
  done
done
python3 - "$T/all" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    b, wall, user, sys_ = line.split()
    rows.setdefault(b, []).append((float(wall), float(user) + float(sys_)))
for b, r in rows.items():
    print(f"{b}: 50,000 entries, median wall {statistics.median(w for w, _ in r):.2f} s, "
          f"median cpu {statistics.median(c for _, c in r):.2f} s ({len(r)} runs)")
PY
