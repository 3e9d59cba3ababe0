#!/usr/bin/env bash
# CPU and CUDA variants of an environment (issue 21 item 1): `env sync`
# builds the CUDA variant (data/envs/cuda/NAME-cuN.txt) when NVML sees a GPU,
# the newest CUDA major the driver supports, and the CPU one otherwise;
# --cuda / --cuda-major / --cpu force one; `env list` names the variant of
# every line; a CUDA lock's `# backend:` line builds the lock it sends a
# backend to; `# install: no-deps` installs exactly the pins. The GPU is
# tests/fake/fake_nvml.c (FAKE_NVML_CUDA / FAKE_NVML_DRIVER: the driver).
# Tiny locks (six, idna) in a scratch BENCHGEN_HOME and cache.
set -u
. "$(dirname "$0")/lib.sh"

H=$TMP/home
mkdir -p "$H/data/envs/cuda"
printf 'six==1.17.0\n' >"$H/data/envs/tiny.txt"
printf '# the CUDA 12 variant\nsix==1.17.0\nidna==3.20\n' >"$H/data/envs/cuda/tiny-cu12.txt"
printf '# the CUDA 13 variant\n# backend: tiny-tf tiny-cu12\nsix==1.17.0\nidna==3.20\n' >"$H/data/envs/cuda/tiny-cu13.txt"
printf 'six==1.17.0\n' >"$H/data/envs/one.txt"
# requests without its dependencies: only --no-deps installs this as it is
printf '# install: no-deps\nrequests==2.32.3\n' >"$H/data/envs/nodeps.txt"
export BENCHGEN_HOME=$H BENCHGEN_CACHE=$TMP/cache BENCHGEN_SIZE=0
for u in "${BENCHGEN_TEST_UV:-}" "$(command -v uv || true)" "${XDG_CACHE_HOME:-$HOME/.cache}/benchgen/tools/uv/bin/uv"; do
  if [ -n "$u" ] && [ -x "$u" ]; then export BENCHGEN_UV=$u; break; fi
done
FAKE=$TMP/libnvidia-ml.so.1
cc -shared -fPIC -O1 -o "$FAKE" "$(dirname "$0")/../fake/fake_nvml.c"
NOGPU=$TMP/no-such-libnvidia-ml.so.1
line() { awk -v n="$1" '$1 == n { print $2, $5, $4 }' "$2"; } # NAME FILE: state, variant, path

BENCHGEN_NVML_LIB=$NOGPU timeout 300 "$BENCHGEN" env sync tiny >"$TMP/cpu.out" 2>&1
check "no GPU: env sync builds the CPU variant (exit 0)" test $? -eq 0
check "and says so, and why" grep -q "env tiny: the CPU variant (no NVIDIA GPU" "$TMP/cpu.out"
check "its venv is tiny-HASH" test "$(ls -d "$TMP"/cache/envs/tiny-* | grep -vc -- -cu)" -eq 1
check "no CUDA venv was built" test "$(ls -d "$TMP"/cache/envs/tiny-cu* 2>/dev/null | wc -l)" -eq 0

BENCHGEN_NVML_LIB=$NOGPU timeout 300 "$BENCHGEN" env sync --cuda tiny >"$TMP/cuda.out" 2>&1
check "--cuda without a GPU builds the newest CUDA variant (exit 0)" test $? -eq 0
check "it names it" grep -q "env tiny: the CUDA 13 variant (forced" "$TMP/cuda.out"
check "and the lock its backend line sends tiny-tf to" grep -q "and the cu12 variant" "$TMP/cuda.out"
check "both CUDA venvs exist beside the CPU one" \
  test -f "$(ls -d "$TMP"/cache/envs/tiny-cu13-*)/.benchgen-ready" -a -f "$(ls -d "$TMP"/cache/envs/tiny-cu12-*)/.benchgen-ready"
check "the CUDA variant holds its own pins" test -n "$(ls -d "$TMP"/cache/envs/tiny-cu13-*/lib/python3*/site-packages/idna)"
# A ready CUDA variant does not stand in for the CPU one that env sync
# is asked for on a machine without a GPU (runs may still fall back to it).
for d in "$TMP"/cache/envs/tiny-*; do case $d in */tiny-cu*) ;; *) rm -rf "$d" ;; esac; done
BENCHGEN_NVML_LIB=$NOGPU timeout 300 "$BENCHGEN" env sync tiny >"$TMP/cpu2.out" 2>&1
check "no GPU, CUDA variants ready, CPU one gone: env sync builds the CPU one" \
  grep -q "env tiny: ready in .*/tiny-[0-9a-f]*)$" "$TMP/cpu2.out"

BENCHGEN_NVML_LIB=$NOGPU "$BENCHGEN" env list >"$TMP/l0.out" 2>&1
check "no GPU: env list's tiny line is the CPU variant" test "$(line tiny "$TMP/l0.out" | cut -d' ' -f1-2)" = "ready cpu"
check "its CUDA variants follow as tiny:cu13 and tiny:cu12" \
  test "$(line tiny:cu13 "$TMP/l0.out" | cut -d' ' -f1-2) $(line tiny:cu12 "$TMP/l0.out" | cut -d' ' -f1-2)" = "ready cu13 ready cu12"
check "a lock without CUDA variants says -" test "$(line one "$TMP/l0.out" | cut -d' ' -f2)" = "-"
check "the header says why" grep -q "^# variants: no NVIDIA GPU" "$TMP/l0.out"
check "the columns" grep -qx "# NAME  STATE  HASH  PATH  VARIANT" "$TMP/l0.out"

BENCHGEN_NVML_LIB=$FAKE "$BENCHGEN" env list >"$TMP/l13.out" 2>&1
check "a CUDA 13 driver (fake NVML): cells use the cu13 variant" test "$(line tiny "$TMP/l13.out" | cut -d' ' -f2)" = cu13
check "the header names the driver" grep -q "^# variants: 1 NVIDIA GPU, driver 999.99-fake for CUDA 13.0" "$TMP/l13.out"
BENCHGEN_NVML_LIB=$FAKE FAKE_NVML_CUDA=12080 FAKE_NVML_DRIVER=570.124.06 "$BENCHGEN" env list >"$TMP/l12.out" 2>&1
check "an R570 driver (CUDA 12.8): the cu12 variant" test "$(line tiny "$TMP/l12.out" | cut -d' ' -f2)" = cu12
BENCHGEN_NVML_LIB=$FAKE FAKE_NVML_CUDA=11080 FAKE_NVML_DRIVER=470.42.01 "$BENCHGEN" env list >"$TMP/l11.out" 2>&1
check "a CUDA 11 driver: the CPU variant" test "$(line tiny "$TMP/l11.out" | cut -d' ' -f2)" = cpu
BENCHGEN_NVML_LIB=$FAKE BENCHGEN_ENV_VARIANT=cpu "$BENCHGEN" env list >"$TMP/lforce.out" 2>&1
check "BENCHGEN_ENV_VARIANT=cpu wins over the GPU" test "$(line tiny "$TMP/lforce.out" | cut -d' ' -f2)" = cpu

BENCHGEN_NVML_LIB=$FAKE FAKE_NVML_CUDA=11080 FAKE_NVML_DRIVER=470.42.01 "$BENCHGEN" env sync --cuda tiny >"$TMP/old.out" 2>&1
check "--cuda on a driver older than every variant exits 2" test $? -eq 2
check "saying which driver it needs" grep -q "driver R525 or newer" "$TMP/old.out"
BENCHGEN_NVML_LIB=$FAKE FAKE_NVML_CUDA=12080 "$BENCHGEN" env sync tiny >"$TMP/auto12.out" 2>&1
check "auto on a CUDA 12 driver picks cu12 (already ready)" grep -q "env tiny: ready (.*/tiny-cu12-" "$TMP/auto12.out"
"$BENCHGEN" env sync --cuda --cpu tiny >"$TMP/both.out" 2>&1
check "--cuda with --cpu is a usage error (exit 2)" test $? -eq 2
"$BENCHGEN" env sync --cuda --cuda-major 14 tiny >"$TMP/m14.out" 2>&1
check "--cuda-major with no such variant exits 2" test $? -eq 2
check "naming the lock it looked for" grep -q "no CUDA 14 variant (data/envs/cuda/tiny-cu14.txt)" "$TMP/m14.out"
BENCHGEN_NVML_LIB=$FAKE "$BENCHGEN" env sync --cpu one >"$TMP/one.out" 2>&1
check "--cpu of a lock with one build builds it (exit 0)" test $? -eq 0

timeout 300 "$BENCHGEN" env sync nodeps >"$TMP/nodeps.out" 2>&1
check "# install: no-deps builds (exit 0)" test $? -eq 0
check "it says --no-deps" grep -q "with uv, --no-deps\|with pip, --no-deps" "$TMP/nodeps.out"
ND=$(ls -d "$TMP"/cache/envs/nodeps-*/lib/python3*/site-packages)
check "exactly the pins: requests without urllib3" test -d "$ND/requests" -a ! -d "$ND/urllib3"

# the 2024 locks name the Python their frameworks need (issue 21 item 5)
R=$(cd "$(dirname "$0")/../.." && pwd)
for f in keras2 torch-2024 keras3-2024 cuda/keras2-cu12 cuda/keras3-2024-cu12; do
  check "data/envs/$f.txt names Python 3.11" grep -qx "# python: 3.11" "$R/data/envs/$f.txt"
done
finish
