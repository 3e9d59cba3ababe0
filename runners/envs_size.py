"""envs_size.py LOCK UV_CACHE INDEX [PARENT] - the expected download of building LOCK.

Run by benchgen (gen/envs/envs_size.c) with the interpreter that will make
the environment, before `env sync` starts its installer, so that the build
can be announced with its size. For each pinned line `name==version` of the
lock (environment markers evaluated for this interpreter) it asks the
package index's JSON API (PEP 691, with file sizes per PEP 700; INDEX is its
base URL, https://pypi.org/simple for PyPI) for the project's files, picks
the wheel this interpreter would install (the best-ranked of its tags; the
sdist when no wheel fits) and adds its size, unless uv's cache (UV_CACHE,
"" when pip builds) already holds that wheel or sdist, which uv then
hard-links instead of downloading, or the venv PARENT (a derived
environment's parent, whose packages are linked into it first) has it
installed.

Prints one line on stdout, read by envs_size.c:
  ok PINNED NEW NEW_BYTES CACHED UNKNOWN
(PINNED pinned packages, NEW of them to download, NEW_BYTES their total,
CACHED already in uv's cache, UNKNOWN whose size the index did not say), or
  error REASON
when the index could not be asked at all (offline, an index without the JSON
API). Requests run in parallel and the whole answer takes at most
BENCHGEN_SIZE_TIMEOUT seconds (default 15); a package not answered by then
is UNKNOWN. Standard library and pip's vendored `packaging` only.
"""
import concurrent.futures
import glob
import http.client
import json
import os
import re
import sys
import threading
import urllib.parse

try:
    from packaging import markers, tags, utils, version as pversion
except ImportError:  # the interpreter has pip, which carries its own copy
    try:
        from pip._vendor.packaging import markers, tags, utils, version as pversion
    except ImportError:
        print("error this interpreter has neither packaging nor pip", flush=True)
        sys.exit(0)

ACCEPT = "application/vnd.pypi.simple.v1+json"


def pins(lock):
    """(name, version) of each `name==version` line that applies here."""
    out = []
    with open(lock, encoding="utf-8") as f:
        for line in f:
            line = line.split(" #", 1)[0].strip()
            if not line or line.startswith(("#", "-")):
                continue
            req, _, marker = line.partition(";")
            if marker.strip() and not markers.Marker(marker.strip()).evaluate():
                continue
            m = re.fullmatch(r"([A-Za-z0-9._-]+)(\[[^\]]*\])?\s*==\s*([^\s,;]+)", req.strip())
            out.append((utils.canonicalize_name(m.group(1)), m.group(3)) if m else (req.strip(), None))
    return out


_local = threading.local()


def connection(url, timeout):
    conn = getattr(_local, "conn", None)
    if conn is None or _local.netloc != url.netloc:
        cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        conn = _local.conn = cls(url.netloc, timeout=timeout)
        _local.netloc = url.netloc
    return conn


def fetch(index, name, timeout):
    """The index's JSON page of a project, over one kept-alive connection per
    thread (a TLS handshake per package would cost more than the answers)."""
    url = urllib.parse.urlsplit(f"{index.rstrip('/')}/{name}/")
    if url.scheme not in ("http", "https"):
        raise ValueError(f"{index}: not an http(s) index")
    for attempt in (0, 1):  # a kept-alive connection the server closed: once more, anew
        conn = connection(url, timeout)
        try:
            conn.request("GET", url.path, headers={"Accept": ACCEPT})
            r = conn.getresponse()
            body = r.read()
            break
        except (OSError, http.client.HTTPException):
            conn.close()
            _local.conn = None
            if attempt:
                raise
    if r.status != 200:
        raise LookupError(f"HTTP {r.status}")
    return json.loads(body.decode("utf-8"))


def choose(files, name, version, rank):
    """The file of name==version this interpreter installs: (filename, size)."""
    want = pversion.Version(version)
    best, sdist = None, None
    for f in files:
        fn = f.get("filename", "")
        if f.get("yanked") not in (None, False):
            continue
        try:
            if fn.endswith(".whl"):
                n, v, _, wtags = utils.parse_wheel_filename(fn)
            elif fn.endswith((".tar.gz", ".zip")):
                (n, v), wtags = utils.parse_sdist_filename(fn), None
            else:
                continue
        except Exception:  # a file name packaging cannot read: not one uv would pick either
            continue
        if n != name or v != want:
            continue
        if wtags is None:
            sdist = (fn, f.get("size"))
            continue
        r = min((rank[t] for t in wtags if t in rank), default=None)
        if r is not None and (best is None or r < best[0]):
            best = (r, fn, f.get("size"))
    if best:
        return best[1], best[2]
    return sdist if sdist else (None, None)


def cached_tags(path, wtags):
    """The tags of the wheel uv unpacked at path. uv names the directory
    <version>-<tags>, or <version>-<16 hex digits> when the tags are many; then
    the wheel's file name is in the .http file beside it."""
    if not re.fullmatch(r"[0-9a-f]{16}", wtags):
        return tags.parse_tag(wtags)
    with open(path + ".http", "rb") as f:
        names = re.findall(rb"([A-Za-z0-9_.+!-]+\.whl)", f.read())
    return frozenset().union(*(utils.parse_wheel_filename(n.decode())[3] for n in names))


def in_uv_cache(uv_cache, name, version, rank):
    """Whether uv's cache holds name==version for this interpreter: an
    unpacked wheel wheels-v*/pypi/<name>/<version>-<tags> with one of our
    tags, or a built sdist sdists-v*/pypi/<name>/<version>/."""
    if not uv_cache:
        return False
    want = pversion.Version(version)
    for p in glob.glob(os.path.join(glob.escape(uv_cache), "wheels-v*", "pypi", name, "*")):
        ver, _, wtags = os.path.basename(p).partition("-")
        if not wtags or not os.path.isdir(p):  # the .http, .lock and .msgpack beside it
            continue
        try:
            if pversion.Version(ver) == want and any(t in rank for t in cached_tags(p, wtags)):
                return True
        except Exception:
            continue
    return any(os.path.isdir(p) for p in glob.glob(os.path.join(glob.escape(uv_cache), "sdists-v*", "pypi", name,
                                                                 version)))


def installed(venv):
    """(name, version) of every distribution in a venv's site-packages."""
    out = set()
    for d in glob.glob(os.path.join(glob.escape(venv), "lib", "python*", "site-packages", "*.dist-info")):
        name, _, ver = os.path.basename(d)[: -len(".dist-info")].partition("-")
        try:
            out.add((utils.canonicalize_name(name), pversion.Version(ver)))
        except Exception:
            continue
    return out


def main():
    lock, uv_cache, index = sys.argv[1:4]
    parent = installed(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else set()
    deadline = float(os.environ.get("BENCHGEN_SIZE_TIMEOUT", "15"))
    rank = {t: i for i, t in enumerate(tags.sys_tags())}
    wanted = pins(lock)
    new = cached = unknown = 0
    new_bytes = 0
    answered, errors = 0, []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=16)
    jobs = {}
    for n, v in wanted:
        if not v:
            unknown += 1
        elif (n, pversion.Version(v)) in parent or in_uv_cache(uv_cache, n, v, rank):
            cached += 1  # nothing to ask: uv links it from its cache
        else:
            jobs[pool.submit(fetch, index, n, deadline)] = (n, v)
    try:
        for job in concurrent.futures.as_completed(jobs, timeout=deadline):
            name, version = jobs[job]
            try:
                files = job.result().get("files", [])
                answered += 1
            except Exception as e:  # one package the index does not know
                errors.append(f"{name}: {e}")
                unknown += 1
                continue
            fn, size = choose(files, name, version, rank)
            if fn and isinstance(size, int):
                new += 1
                new_bytes += size
            else:
                unknown += 1
    except concurrent.futures.TimeoutError:
        done = answered + len(errors)
        unknown += len(jobs) - done
        errors.append(f"{len(jobs) - done} answer(s) still missing after {deadline:g} s")
    if jobs and answered == 0:
        print("error", errors[0] if errors else "no answer", flush=True)
    else:
        print("ok", len(wanted), new, new_bytes, cached, unknown, flush=True)
    if os.environ.get("BENCHGEN_SIZE_DEBUG"):
        print("\n".join(errors), file=sys.stderr)
    os._exit(0)  # do not wait for requests still hanging


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a lock it cannot read: the build says why, not this
        print("error", f"{type(e).__name__}: {e}", flush=True)
        os._exit(0)
