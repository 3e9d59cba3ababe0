# lib.sh - helpers shared by the integration tests (sourced, not run).
# Each check prints "ok - NAME" or "not ok - NAME"; tests/run.sh counts them.
# A script exits non-zero when any of its checks failed.

: "${BENCHGEN:=$(pwd)/benchgen}"
ROOT=$(pwd)
FAILED=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; FAILED=1; }
check() { # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# jget FILE EXPR: evaluates a Python expression over the JSON document `d`.
jget() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# cell FILE KEY FIELD: one field of the cell with that key in `show --json` output.
cell() {
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
c=[c for c in d["cells"] if c["key"]==sys.argv[2]]
print(c[0][sys.argv[3]] if c else "NO-SUCH-CELL")' "$1" "$2" "$3"
}

# cells_py FILE EXPR: a Python expression over the cells of `show --json`
# output (`cells`), with f(c, name) a cell's fact and w(c, key) its
# environment value ("" when absent).
cells_py() {
  python3 -c 'import json,sys
cells=json.load(open(sys.argv[1]))["cells"]
f=lambda c,k: c["facts"].get(k,"")
w=lambda c,k: c["environment"].get(k,"")
print(eval(sys.argv[2]))' "$1" "$2"
}

finish() { exit $FAILED; }
