#!/usr/bin/env bash
# The custom-workload example in README.md is real: extract it verbatim, run
# it as a spec row, and check it ends ok with the fact it records.
set -u
. "$(dirname "$0")/lib.sh"

python3 - "$TMP/my_workload.py" <<'PY'
import re, sys
text = open("README.md").read()
m = re.search(r"```python\n(# my_workload\.py.*?)```", text, re.S)
if not m:
    sys.exit("README.md has no ```python block starting with '# my_workload.py'")
open(sys.argv[1], "w").write(m.group(1))
PY
check "README example extracted" test -s "$TMP/my_workload.py"
cat >"$TMP/spec.yaml" <<'YAML'
name: readme-example
steps: 3
warmup: 1
backends: [numpy]
rows:
  - {model: mine, task: predict, batch: 2, workload: my_workload.py}
  - {model: mine, task: fit, batch: 2, workload: my_workload.py}
YAML
"$BENCHGEN" run "$TMP/spec.yaml" --out "$TMP/run" >/dev/null 2>&1
check "run exits 0" test $? -eq 0
"$BENCHGEN" show "$TMP/run" --json >"$TMP/run.json"
check "README workload ends ok" test "$(cell "$TMP/run.json" mine/predict/b2/numpy status)" = ok
check "its supported() declines fit" test "$(cell "$TMP/run.json" mine/fit/b2/numpy status)" = unsupported
check "its fact is recorded" test \
  "$(jget "$TMP/run.json" '[c["facts"]["parameters"] for c in d["cells"] if c["key"]=="mine/predict/b2/numpy"][0]')" = 1048576
finish
