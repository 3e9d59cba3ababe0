#!/usr/bin/env bash
# install.sh [PYTHON] - binds this node's Python to the benchgen kit, offline.
# (In the sources: scripts/kit-install.sh; `make kit` puts it at the kit's top.)
#
# PYTHON (default python3) is the node's interpreter that already has PyTorch
# and/or JAX (a system Python, a venv, a conda env or a module's). This script
#   1. checks the machine (x86-64, glibc) and that ./benchgen starts;
#   2. makes venv/ beside it, a venv of PYTHON that still sees everything
#      PYTHON has (its site directories, through a .pth file), so the node's
#      torch, jax and CUDA libraries are used as they are;
#   3. installs wheels/ into it with pip --no-index (never the network): the
#      pure-Python and stable-ABI wheels always (pinned, tested together); the
#      version-specific ones (wheels/requirements-cp.txt) only where PYTHON
#      lacks them, and only if the kit has them for PYTHON's version;
#   4. imports what each framework's workloads need;
#   5. registers venv/ as benchgen's environments with `benchgen env add`:
#      base (numpy), torch (torch-eager, torch-compiled) when torch imports,
#      keras3 (keras3-jax, keras3-torch, keras3-tensorflow) when jax, torch or
#      tensorflow does, keras2 (keras2-tensorflow) when tensorflow and tf_keras
#      do. SAM needs torchvision (segment_anything imports it), which the kit
#      does not carry: without it SAM is reported unsupported, the rest registered.
# Workers run with no PYTHON* variable (PYTHONPATH, PYTHONHOME, ...), so this
# script drops them too: what it finds is what the cells will find.
# Environments are registered in $BENCHGEN_CACHE (default ~/.cache/benchgen).
# Exit status: 0 ready, 1 something is missing (the message says what), 2 usage.
set -uo pipefail

kit=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -le 1 ] || { echo "usage: $0 [PYTHON]" >&2; exit 2; }
py=${1:-python3}
venv=$kit/venv
# pip sees the kit's wheels and nothing else: no index, no configured find-links or config file.
# The kit's own files, whatever BENCHGEN_HOME the shell had.
export BENCHGEN_HOME=$kit
unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_REQUIRE_VIRTUALENV PIP_TARGET PIP_PREFIX PIP_USER
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null

die() { echo "install.sh: $*" >&2; exit 1; }
# Workers drop every PYTHON* variable (runners see only the interpreter's own
# paths): check and install with the same environment, or a module system's
# PYTHONPATH makes this script find what no cell will.
dropped=()
for v in $(compgen -e); do
  case $v in PYTHON*) dropped+=("$v=${!v}"); unset "$v" ;; esac
done
step() { echo "== $*"; }

# ---- 1. the machine ------------------------------------------------------------
step "checking the node"
[ "$(uname -m)" = x86_64 ] || die "this kit is for x86-64; this node is $(uname -m)"
need=$(awk '$1 == "glibc" {print $2}' "$kit/KIT-INFO")
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -n "$need" ] && [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
  die "this kit needs glibc $need or later; the node has $have"
fi
"$kit/benchgen" --version >/dev/null 2>&1 || die "$kit/benchgen does not start: $("$kit/benchgen" --version 2>&1 | head -3)"
command -v "$py" >/dev/null 2>&1 || [ -x "$py" ] || die "$py: no such interpreter (give the node's Python: ./install.sh /path/to/python3)"
pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])') || die "$py does not run"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "$py is Python $pyver; the kit's wheels need 3.11 or later (Keras 3.15 does)"
echo "python $("$py" -c 'import sys; print(sys.executable)') ($pyver); glibc ${have:-?}; benchgen $("$kit/benchgen" --version | head -1)"
[ ${#dropped[@]} -eq 0 ] || echo "note: ignoring ${dropped[*]}: benchgen's workers run without PYTHON* variables, so packages found only through them are not used (install them into $py's own site-packages, or pass a venv)"

# ---- 2. a venv that sees the node's packages ------------------------------------
step "making $venv"
rm -rf "$venv"
if "$py" -m venv --system-site-packages "$venv" 2>"$kit/venv.log"; then
  pip=("$venv/bin/python" -m pip)
else
  # No ensurepip (Debian's python3 without python3-venv): the node's own pip drives the venv.
  rm -rf "$venv"
  "$py" -m venv --system-site-packages --without-pip "$venv" >>"$kit/venv.log" 2>&1 || die "cannot make a venv of $py: $(tail -3 "$kit/venv.log")"
  "$py" -m pip --version >/dev/null 2>&1 || die "$py has neither ensurepip nor pip: install python3-venv or pip on the node"
  pip=("$py" -m pip --python "$venv/bin/python")
fi
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# The node's site directories (those of a venv or conda env too), after the venv's own.
"$py" -c 'import site, sys; print("\n".join(p for p in site.getsitepackages() + [site.getusersitepackages()] if p))' \
  >"$site/benchgen-node.pth" || die "cannot read $py's site directories"

# ---- 3. the wheels ------------------------------------------------------------------
step "installing the kit's wheels (offline)"
"${pip[@]}" install -q --no-index --no-deps --find-links "$kit/wheels" -r "$kit/wheels/requirements.txt" ||
  die "pip could not install wheels/requirements.txt (see above)"
missing=() kept=()
while read -r spec; do
  [ -n "$spec" ] || continue
  n=${spec%%==*}
  if v=$("$venv/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$n" 2>/dev/null); then
    kept+=("$n $v")
  else
    missing+=("$spec")
  fi
done <"$kit/wheels/requirements-cp.txt"
[ ${#kept[@]} -eq 0 ] || echo "kept the node's: ${kept[*]/%/,}"
if [ ${#missing[@]} -gt 0 ]; then
  "${pip[@]}" install -q --no-index --no-deps --only-binary=:all: --find-links "$kit/wheels" "${missing[@]}" ||
    die "Python $pyver lacks ${missing[*]}, and the kit has no wheels of them for Python $pyver (it has: $(awk '$1 == "pythons" {print $2}' "$kit/KIT-INFO")). Rebuild the kit with \`make kit KIT_PYTHONS=$pyver\`, or install them on the node"
  echo "installed from the kit: ${missing[*]}"
fi

# ---- 4. what each framework's workloads import ---------------------------------------
step "checking imports"
vpy=$venv/bin/python
has() { "$vpy" -c "import $1" >/dev/null 2>&1; }
has numpy || die "$py has no numpy (torch and jax both bring it): install numpy on the node"
envs=(base)
frameworks=()
for fw in torch jax tensorflow; do has "$fw" && frameworks+=("$fw"); done
# Each framework is imported once above (a CUDA torch takes seconds); later steps ask this.
found() { [[ " ${frameworks[*]} " == *" $1 "* ]]; }
[ ${#frameworks[@]} -gt 0 ] || echo "warning: $py has none of torch, jax, tensorflow: only the numpy backend will run"
if found torch; then
  while read -r spec; do
    [ -n "$spec" ] || continue
    "$vpy" -c 'import importlib.metadata as m, sys; m.version(sys.argv[1])' "${spec%%==*}" 2>/dev/null ||
      die "the torch workloads need ${spec%%==*} (the kit does not carry it: wheels/requirements-node.txt); install it on the node"
  done <"$kit/wheels/requirements-node.txt"
  # SAM: segment_anything's __init__ imports torchvision, which the kit does
  # not carry. Without torchvision SAM is unsupported here and every other
  # torch cell runs; any other failure is a broken install (a torchvision
  # that is there but does not import already breaks transformers). One
  # interpreter for all of it (torch is imported once): its last line says
  # what became of SAM.
  out=$("$vpy" - 2>&1 <<'PY'
import torch, transformers, diffusers, peft, accelerate
import importlib.util
try:
    import segment_anything
    print("sam: ok")
except Exception as e:
    if importlib.util.find_spec("torchvision") is None:
        print("sam: no torchvision")
    else:
        print(f"sam: error: {type(e).__name__}: {e}")
PY
  ) || die "the torch workloads' libraries do not import: $(tail -2 <<<"$out")"
  sam=$(grep '^sam: ' <<<"$out" | tail -1)
  case $sam in
    "sam: ok") ;;
    "sam: no torchvision")
      echo "note: SAM is unsupported on torch here: segment_anything needs torchvision, which $py lacks (install torchvision on the node for SAM cells); every other torch cell runs" ;;
    "sam: error: "*) die "segment_anything does not import: ${sam#sam: error: }" ;;
    *) die "the SAM import check printed nothing: $(tail -2 <<<"$out")" ;;
  esac
  envs+=(torch)
fi
for fw in jax torch tensorflow; do
  found "$fw" || continue
  out=$(KERAS_BACKEND=$fw "$vpy" -c 'import keras, keras_hub; print(keras.__version__)' 2>&1) ||
    die "keras with the $fw backend does not import: $(tail -2 <<<"$out")"
done
[ ${#frameworks[@]} -gt 0 ] && envs+=(keras3)
# keras2-tensorflow runs tf.keras as Keras 2 (TF_USE_LEGACY_KERAS=1): TensorFlow with tf_keras
if found tensorflow && TF_USE_LEGACY_KERAS=1 "$vpy" -c 'import tf_keras' >/dev/null 2>&1; then envs+=(keras2); fi
found tensorflow || echo "note: no tensorflow here: Keras 3 SD cells need it (keras-cv imports it); every other cell does not"
echo "frameworks: ${frameworks[*]:-none}"

# ---- 5. benchgen's environments -------------------------------------------------------
step "registering environments: ${envs[*]}"
# --for: the backends this node can run (env add checks exactly their imports)
k3=(); for fw in jax torch tensorflow; do found "$fw" && k3+=("keras3-$fw"); done
for e in "${envs[@]}"; do
  case $e in
    base) for_=numpy ;;
    torch) for_=torch-eager,torch-compiled ;;
    keras3) for_=$(IFS=,; echo "${k3[*]}") ;;
    keras2) for_=keras2-tensorflow ;;
    *) for_= ;;
  esac
  "$kit/benchgen" env add "$e" "$venv" ${for_:+--for "$for_"} || die "benchgen env add $e $venv failed"
done
echo
echo "ready. next: $kit/benchgen info --check; $kit/benchgen run $kit/data/matrix/gpu-smoke.yaml --wait-idle 60;"
echo "the published matrix in these environments: $kit/benchgen run $kit/data/matrix/keras3-2024-kit.yaml"
