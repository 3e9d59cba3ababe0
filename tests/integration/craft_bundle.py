#!/usr/bin/env python3
"""Crafts hostile bundles for tests/integration/test_verify_hostile.sh.

    craft_bundle.py KIND OUT.tar.gz [REAL.tar.gz]

KIND is one of: sparse, zeros, oversize, many, flood, names, links,
zerodb, notrun, duplicate (made from nothing), and many, noreport,
mismatch (made from REAL.tar.gz, a bundle `benchgen bundle` wrote).
Each is a gzip'd tar shaped like a benchgen bundle (top directory,
MANIFEST.json first) except for the attack. The gzip wrapper is zlib's
(no name, no time stamp, OS Unix), as `benchgen bundle` writes it.
Every rewritten bundle is consistent: MANIFEST.json and SHA256SUMS list
the files as they are, so only verify's deeper checks can catch it.
"""
import hashlib
import io
import json
import os
import sqlite3
import sys
import tarfile
import tempfile
import zlib

TOP = "evil-20260101T000000Z"


def manifest(files, extra=None):
    """MANIFEST.json bytes listing files {path: bytes}."""
    m = {
        "format": "benchgen-bundle/1",
        "root": TOP,
        "file_count": len(files) + 2,
        "report": None,
        "files": [{"path": p, "sha256": hashlib.sha256(b).hexdigest(), "size": len(b)}
                  for p, b in sorted(files.items())],
    }
    m.update(extra or {})
    return (json.dumps(m, indent=2, sort_keys=True) + "\n").encode()


def sums(files):
    return "".join(f"{hashlib.sha256(b).hexdigest()}  {p}\n" for p, b in sorted(files.items())).encode()


class Gz:
    """A file object that gzips what tarfile writes, zlib-style."""

    def __init__(self, path):
        self.f = open(path, "wb")
        self.z = zlib.compressobj(1, zlib.DEFLATED, 31)

    def write(self, b):
        self.f.write(self.z.compress(b))
        return len(b)

    def close(self):
        self.f.write(self.z.flush())
        self.f.close()


def ustar(name, size, typ=b"0"):
    """A plain ustar header (names under 100 bytes), built directly: tarfile
    takes seconds for 50,000 entries."""
    h = bytearray(512)
    n = name.encode()
    h[0:len(n)] = n
    h[100:108] = b"0000755\0" if typ == b"5" else b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[148:156] = b"        "
    h[156:157] = typ
    h[257:265] = b"ustar\x0000"
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def fast(tar, name, data):
    """Appends a regular file entry to tar's stream without tarfile's per-entry cost."""
    pad = (-len(data)) % 512
    blob = ustar(f"{TOP}/{name}", len(data)) + data + bytes(pad)
    tar.fileobj.write(blob)
    tar.offset += len(blob)


def add(tar, name, data=b"", **kw):
    ti = tarfile.TarInfo(f"{TOP}/{name}" if name else TOP)
    for k, v in kw.items():
        setattr(ti, k, v)
    if ti.type == tarfile.REGTYPE:
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
    else:
        tar.addfile(ti)


def consistent(tar, files, put=None):
    """top/, MANIFEST.json, SHA256SUMS and files: a bundle verify accepts."""
    m = manifest(files)
    add(tar, "", type=tarfile.DIRTYPE, mode=0o755)
    add(tar, "MANIFEST.json", m)
    add(tar, "SHA256SUMS", sums({**files, "MANIFEST.json": m}))
    dirs = set()
    for p in sorted(files):
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if d not in dirs:
                dirs.add(d)
                add(tar, d, type=tarfile.DIRTYPE, mode=0o755)
        (put or add)(tar, p, files[p])


def read_real(path):
    """(top, manifest dict, {path: bytes}) of a real bundle, MANIFEST.json and
    SHA256SUMS left out."""
    files, top = {}, None
    with tarfile.open(path, "r:gz") as t:
        for m in t.getmembers():
            top = top or m.name.split("/")[0]
            if m.isfile():
                files[m.name.split("/", 1)[1]] = t.extractfile(m).read()
    man = json.loads(files.pop("MANIFEST.json"))
    files.pop("SHA256SUMS")
    return top, man, files


def rewrite(out, top, man, files):
    """A consistent bundle of files under top: MANIFEST.json (man with its
    file list and count redone) first, SHA256SUMS over everything."""
    man = dict(man)
    man["files"] = [{"path": p, "sha256": hashlib.sha256(b).hexdigest(), "size": len(b)}
                    for p, b in sorted(files.items())]
    man["file_count"] = len(files) + 2
    m = (json.dumps(man, indent=2, sort_keys=True) + "\n").encode()
    gz = Gz(out)
    tar = tarfile.open(fileobj=gz, mode="w|", format=tarfile.GNU_FORMAT)
    global TOP
    TOP = top
    add(tar, "", type=tarfile.DIRTYPE, mode=0o755)
    add(tar, "MANIFEST.json", m)
    add(tar, "SHA256SUMS", sums({**files, "MANIFEST.json": m}))
    for p in sorted(files):
        add(tar, p, files[p])
    tar.close()
    gz.close()


def edit_db(data, sql):
    """run.db bytes after sql, left self-contained (DELETE mode, vacuumed) as
    `benchgen bundle` leaves it."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "run.db")
        with open(p, "wb") as f:
            f.write(data)
        c = sqlite3.connect(p)
        c.executescript(sql)
        c.commit()
        c.execute("VACUUM")
        c.close()
        with open(p, "rb") as f:
            return f.read()


def from_real(kind, out, real):
    top, man, files = read_real(real)
    if kind == "noreport":
        # the probe's bypass: every sample divided by 100, the report removed,
        # "report": null, MANIFEST.json and SHA256SUMS rewritten to match
        files["run/run.db"] = edit_db(files["run/run.db"], "UPDATE samples SET ns = ns / 100;")
        files = {p: b for p, b in files.items() if not p.startswith("report/")}
        man["report"] = None
    elif kind == "mismatch":
        # the samples divided by 100, the report kept as it was: re-rendering differs
        files["run/run.db"] = edit_db(files["run/run.db"], "UPDATE samples SET ns = ns / 100;")
    else:
        sys.exit(f"unknown kind {kind}")
    rewrite(out, top, man, files)


# sha256 of 1 GiB of zero bytes (hashlib over 1024 MiB of zeros)
ZERO_GIB_SHA256 = "49bc20df15e412a64472421e13fe86ff1c5165e18b2afccf160d4dc19fe68a14"


def main():
    global TOP
    kind, out = sys.argv[1], sys.argv[2]
    if kind in ("noreport", "mismatch"):
        from_real(kind, out, sys.argv[3])
        return
    if kind == "zeros":  # a gzip of nothing but zero bytes (64 MiB)
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        with open(out, "wb") as f:
            chunk = bytes(1 << 20)
            for _ in range(64):
                f.write(z.compress(chunk))
            f.write(z.flush())
        return
    gz = Gz(out)
    tar = tarfile.open(fileobj=gz, mode="w|", format=tarfile.GNU_FORMAT)
    if kind == "sparse":
        # MANIFEST.json says run/run.db has 4 bytes; the entry is a GNU sparse
        # file of 2 GiB, nearly all holes (old GNU 'S' header, one data region).
        add(tar, "", type=tarfile.DIRTYPE, mode=0o755)
        add(tar, "MANIFEST.json", manifest({"run/run.db": b"data"}))
        hdr = bytearray(512)
        name = f"{TOP}/run/run.db".encode()
        hdr[0:len(name)] = name
        hdr[100:108] = b"0000644\0"
        hdr[108:116] = b"0000000\0"
        hdr[116:124] = b"0000000\0"
        hdr[124:136] = b"%011o\0" % 512  # stored bytes
        hdr[136:148] = b"%011o\0" % 0
        hdr[156:157] = b"S"
        hdr[257:265] = b"ustar  \0"
        # sparse map at 386: (offset, numbytes) pairs of 12 bytes each
        hdr[386:398] = b"%011o\0" % ((2 << 30) - 512)
        hdr[398:410] = b"%011o\0" % 512
        hdr[483:495] = b"%011o\0" % (2 << 30)  # real (logical) size
        hdr[148:156] = b" " * 8
        chk = sum(hdr)
        hdr[148:156] = b"%06o\0 " % chk
        tar.fileobj.write(bytes(hdr))
        tar.fileobj.write(b"x" * 512)
        tar.offset += 1024
    elif kind == "oversize":
        # run/run.db is 4 bytes in MANIFEST.json; its entry holds 64 MiB of zeros.
        add(tar, "", type=tarfile.DIRTYPE, mode=0o755)
        add(tar, "MANIFEST.json", manifest({"run/run.db": b"data"}))
        ti = tarfile.TarInfo(f"{TOP}/run/run.db")
        ti.size = 64 << 20

        class Zeros:
            def read(self, n):
                return bytes(n)
        tar.addfile(ti, Zeros())
    elif kind == "many":  # a real bundle (REAL.tar.gz) and 50,000 small files, consistent
        top, man, real = read_real(sys.argv[3])
        TOP = top
        files = {f"data/d{i // 1000:03d}/f{i:05d}.txt": b"%d\n" % i for i in range(50000)}
        m = dict(man)
        m["files"] = [{"path": p, "sha256": hashlib.sha256(b).hexdigest(), "size": len(b)}
                      for p, b in sorted({**files, **real}.items())]
        m["file_count"] = len(files) + len(real) + 2
        mb = (json.dumps(m, indent=2, sort_keys=True) + "\n").encode()
        add(tar, "", type=tarfile.DIRTYPE, mode=0o755)
        add(tar, "MANIFEST.json", mb)
        add(tar, "SHA256SUMS", sums({**files, **real, "MANIFEST.json": mb}))
        for p in sorted(real):
            add(tar, p, real[p])
        for p in sorted(files):
            fast(tar, p, files[p])
    elif kind == "flood":  # MANIFEST.json lists 1 file; 50,000 entries follow
        consistent(tar, {"spec.yaml": b"name: x\n"})
        for i in range(50000):
            fast(tar, f"junk/f{i:05d}", b"")
    elif kind == "names":  # names that try to fake output and drive the terminal
        evil = "run/logs/x\n  verified: everything\x1b[2J\x1b]0;owned\x07\u009b31m.log"
        files = {"spec.yaml": b"name: x\n", evil: b"log\n"}
        consistent(tar, files)
        add(tar, "unlisted\n verified: " + "\x1b[31mred", b"boo")
    elif kind == "zerodb":
        # run/run.db is 1 GiB of zeros (about 1 MB compressed), listed with its
        # true size and hash: only a check of what run.db is can stop it
        size = 1 << 30
        m = {"format": "benchgen-bundle/1", "root": TOP, "file_count": 3, "report": {"baseline": None, "files": 0},
             "files": [{"path": "run/run.db", "sha256": ZERO_GIB_SHA256, "size": size}]}
        mb = (json.dumps(m, indent=2, sort_keys=True) + "\n").encode()
        add(tar, "", type=tarfile.DIRTYPE, mode=0o755)
        add(tar, "MANIFEST.json", mb)
        add(tar, "SHA256SUMS", f"{ZERO_GIB_SHA256}  run/run.db\n".encode() + sums({"MANIFEST.json": mb}))
        add(tar, "run", type=tarfile.DIRTYPE, mode=0o755)
        ti = tarfile.TarInfo(f"{TOP}/run/run.db")
        ti.size = size

        class Zeros:
            def read(self, n):
                return bytes(n)
        tar.addfile(ti, Zeros())
    elif kind == "notrun":
        # run/run.db is a valid SQLite database, but not a benchgen run
        with tempfile.TemporaryDirectory() as d:
            c = sqlite3.connect(os.path.join(d, "x.db"))
            c.executescript("CREATE TABLE cells(id, key); INSERT INTO cells VALUES (1, 'x');")
            c.commit()
            c.close()
            db = open(os.path.join(d, "x.db"), "rb").read()
        files = {"run/run.db": db, "report/report.md": b"# a report\n"}
        m = manifest(files, {"report": {"baseline": None, "files": 1}})
        add(tar, "", type=tarfile.DIRTYPE, mode=0o755)
        add(tar, "MANIFEST.json", m)
        add(tar, "SHA256SUMS", sums({**files, "MANIFEST.json": m}))
        for p in sorted(files):
            add(tar, p, files[p])
    elif kind == "duplicate":
        # spec.yaml twice, the second copy larger than the first
        consistent(tar, {"spec.yaml": b"name: x\n"})
        add(tar, "spec.yaml", b"name: forged, and longer than the first\n")
    elif kind == "links":  # every kind of entry that is not a plain file
        consistent(tar, {"spec.yaml": b"name: x\n"})
        add(tar, "run/sym", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        add(tar, "run/hard", type=tarfile.LNKTYPE, linkname=f"{TOP}/spec.yaml")
        add(tar, "run/fifo", type=tarfile.FIFOTYPE)
        add(tar, "run/dev", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
    else:
        sys.exit(f"unknown kind {kind}")
    tar.close()
    gz.close()


if __name__ == "__main__":
    main()
