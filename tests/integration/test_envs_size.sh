#!/usr/bin/env bash
# The build of an environment is announced with its expected download (issue
# 14 item 1), offline: a fake package index on 127.0.0.1 answers PEP 691 JSON
# with file sizes (PEP 700), a fake uv cache holds one package, and a fake uv
# "builds" the venv. The announcement must add the sizes of the wheels this
# interpreter would install (not the others), skip what uv's cache holds
# without asking the index, leave out lines whose markers do not apply, count
# what the index does not know, come before the build, and never stop a build
# when the index cannot be reached.
set -u
. "$(dirname "$0")/lib.sh"

H=$TMP/home
mkdir -p "$H/data/envs" "$TMP/uvcache/wheels-v7/pypi/six/1.17.0-py2.py3-none-any"
ln -s "$ROOT/runners" "$H/runners"
cat >"$H/data/envs/sized.txt" <<'LOCK'
# a lock as benchgen's are: pins, comments, a marker that does not apply here
six==1.17.0
idna==3.20
Big_Pkg==1.0
nosuch==1.0
colorama==0.4.6 ; sys_platform == "win32"
LOCK
printf 'six==1.17.0\n' >"$H/data/envs/cachedonly.txt"
printf 'six==1.17.0\n' >"$H/data/envs/offline.txt"

# the index: JSON pages for six, idna and big-pkg; nosuch is a 404
cat >"$TMP/index.py" <<'PY'
import http.server, json, sys
W = lambda fn, size: {"filename": fn, "size": size, "url": "http://127.0.0.1/" + fn, "hashes": {}}
pages = {
    "six": [W("six-1.17.0-py2.py3-none-any.whl", 11050)],
    "idna": [W("idna-3.20-py3-none-any.whl", 70000), W("idna-3.19-py3-none-any.whl", 5),
             W("idna-3.20.tar.gz", 190000)],
    # 1.5 GiB for this machine's wheel; the others must not be picked
    "big-pkg": [W("big_pkg-1.0-cp27-cp27m-win32.whl", 999), W("big_pkg-1.0-py3-none-any.whl", 1610612736),
                W("big_pkg-1.0.tar.gz", 77)],
}
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[2], "a") as log:
            log.write(self.path + " " + self.headers.get("Accept", "") + "\n")
        name = self.path.strip("/").split("/")[-1]
        if name not in pages:
            self.send_error(404)
            return
        body = json.dumps({"meta": {"api-version": "1.1"}, "name": name, "files": pages[name]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
python3 "$TMP/index.py" "$TMP/port" "$TMP/requests" &
SERVER=$!
# the server only while it is still this script's running job (a bare PID could name another process by then)
trap 'jobs -rp | grep -qx "$SERVER" && kill "$SERVER"; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
PORT=$(cat "$TMP/port")

# uv, faked: a venv is a bin/python link, an install does nothing
cat >"$TMP/uv" <<'SH'
#!/bin/sh
case "$1" in
  --version) echo "uv 0.0.0 (fake)" ;;
  venv) for a; do d=$a; done; mkdir -p "$d/bin" "$d/lib/python$PYMM/site-packages" &&
        ln -s "$(command -v python3)" "$d/bin/python" ;;
  pip) echo "fake uv: $*" ;;
esac
SH
chmod +x "$TMP/uv"
export PYMM=$("$BENCHGEN" info 2>/dev/null | sed -n 's/^Python \([0-9]*\.[0-9]*\).*makes lock-file.*/\1/p')

export BENCHGEN_HOME=$H BENCHGEN_CACHE=$TMP/cache BENCHGEN_UV=$TMP/uv UV_CACHE_DIR=$TMP/uvcache
export UV_DEFAULT_INDEX=http://127.0.0.1:$PORT/simple
unset UV_INDEX_URL BENCHGEN_SIZE

timeout 120 "$BENCHGEN" env sync sized >"$TMP/sized.out" 2>&1
check "env sync exits 0" test $? -eq 0
line=$(grep "^env sized: about" "$TMP/sized.out")
check "the build is announced with its download size" \
  test "$line" = "env sized: about 1.5 GiB to download (2 of 4 pinned packages; 1 already in uv's cache; 1 of unknown size)"
check "before the build starts" \
  test "$(grep -o "^env sized: [a-z]*" "$TMP/sized.out" | head -2 | tr '\n' ' ')" = "env sized: about env sized: creating "
check "the index was asked in its JSON form" grep -q "^/simple/idna/ application/vnd.pypi.simple.v1+json" "$TMP/requests"
check "what uv's cache holds is not asked for" bash -c '! grep -q "/six/" "$1"' _ "$TMP/requests"
check "a line whose marker does not apply is not asked for" bash -c '! grep -q colorama "$1"' _ "$TMP/requests"
check "names are asked PEP 503-normalised (Big_Pkg as big-pkg)" grep -q "^/simple/big-pkg/ " "$TMP/requests"
check "the environment is built" test -f "$(ls -d "$TMP"/cache/envs/sized-*)/.benchgen-ready"

timeout 120 "$BENCHGEN" env sync cachedonly >"$TMP/cached.out" 2>&1
check "all in uv's cache: nothing to download" \
  grep -qx "env cachedonly: nothing to download (uv's cache holds every pinned package, 1)" "$TMP/cached.out"

rm -rf "$TMP/uvcache/wheels-v7"
UV_DEFAULT_INDEX=http://127.0.0.1:1/simple timeout 120 "$BENCHGEN" env sync offline >"$TMP/off.out" 2>&1
check "an index that cannot be reached does not stop the build (exit 0)" test $? -eq 0
check "the size is then unknown, and it says which index and why" \
  grep -q "^env offline: download size unknown (http://127.0.0.1:1/simple did not answer: six: .*refused.*); building anyway" \
  "$TMP/off.out"
check "and the build follows" grep -q "^env offline: ready in" "$TMP/off.out"

rm -rf "$TMP/cache/envs"
BENCHGEN_SIZE=0 timeout 120 "$BENCHGEN" env sync sized >"$TMP/nosize.out" 2>&1
check "BENCHGEN_SIZE=0 skips the estimate" bash -c '! grep -q "to download\|size unknown" "$1"' _ "$TMP/nosize.out"
rm -rf "$TMP/cache/envs"
UV_OFFLINE=1 timeout 120 "$BENCHGEN" env sync sized >"$TMP/uvoff.out" 2>&1
check "so does UV_OFFLINE (uv downloads nothing then)" bash -c '! grep -q "to download\|size unknown" "$1"' _ "$TMP/uvoff.out"
check "... and the build still runs" grep -q "^env sized: ready in" "$TMP/uvoff.out"

# A derived environment starts from its parent's packages, hard-linked: the
# announcement counts them as present, the installer is left only the pins.
# The parent is `base` (numpy) of a copy of data/, "built" by the fake uv,
# with a numpy in its site-packages as an installer would leave it.
H2=$TMP/home2
mkdir -p "$H2"
cp -r "$ROOT/data" "$H2/data"
ln -s "$ROOT/runners" "$H2/runners"
export BENCHGEN_HOME=$H2 BENCHGEN_CACHE=$TMP/cache2
unset BENCHGEN_SIZE UV_OFFLINE
timeout 120 "$BENCHGEN" env sync base >"$TMP/parent.out" 2>&1
check "the parent builds (fake uv)" test $? -eq 0
NV=$(sed -n 's/^numpy==//p' "$H2/data/envs/base.txt")
P=$(ls -d "$TMP"/cache2/envs/base-*)
SP=$P/lib/python$PYMM/site-packages
mkdir -p "$SP/numpy/core" "$SP/numpy-$NV.dist-info"
echo "version = '$NV'" >"$SP/numpy/__init__.py"
echo "# core" >"$SP/numpy/core/x.py"
printf 'Metadata-Version: 2.1\nName: numpy\nVersion: %s\n' "$NV" >"$SP/numpy-$NV.dist-info/METADATA"
ln -s __init__.py "$SP/numpy/alias.py"
"$BENCHGEN" run tests/specs/pipeline.yaml --only model=mlp --with six==1.17.0 --dry-run >/dev/null 2>&1
timeout 120 "$BENCHGEN" env sync base+six-1.17.0 >"$TMP/derived.out" 2>&1
check "the derived environment builds (exit 0)" test $? -eq 0
check "its announcement counts the parent's packages as present" \
  grep -qx "env base+six-1.17.0: about 11 KiB to download (1 of 2 pinned packages; 1 already in base or uv's cache)" \
  "$TMP/derived.out"
grep -q "^env base+six-1.17.0: about 11 KiB" "$TMP/derived.out" || grep "^env base+six" "$TMP/derived.out"
check "it links the parent's files before installing" \
  grep -qx "env base+six-1.17.0: linked 3 files of base's packages; installing what the pins change" "$TMP/derived.out"
DSP=$(ls -d "$TMP"/cache2/envs/base+six-1.17.0-*)/lib/python$PYMM/site-packages
check "a parent's file is the same inode in the derived venv (no copy)" \
  test "$(stat -c %i "$SP/numpy/core/x.py")" = "$(stat -c %i "$DSP/numpy/core/x.py")"
check "directories are the derived venv's own" test "$(stat -c %i "$SP/numpy")" != "$(stat -c %i "$DSP/numpy")"
check "symlinks stay symlinks" test "$(readlink "$DSP/numpy/alias.py")" = __init__.py
check "the parent is untouched" test "$(cat "$SP/numpy/__init__.py")" = "version = '$NV'"
finish
