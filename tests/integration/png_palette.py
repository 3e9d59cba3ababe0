#!/usr/bin/env python3
"""png_palette.py PNG MIN NAME=R,G,B [NAME=R,G,B ...]

Counts the pixels of a screenshot within 8 levels of each named colour and
exits 0 when every colour has at least MIN of them: how the integration
tests check that charts are visible in a page Chromium rendered. Decodes
8-bit RGB/RGBA PNGs with the standard library only (no Pillow in the
system Python)."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w, h, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, _depth, ctype = struct.unpack(">IIBB", body[:10])
            bpp = {2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            yield tuple(line[x:x + 3])
        prev = line


def main():
    path, minimum = sys.argv[1], int(sys.argv[2])
    palette = {}
    for arg in sys.argv[3:]:
        name, rgb = arg.split("=")
        palette[name] = tuple(int(v) for v in rgb.split(","))
    counts = {}
    for px in pixels(path):
        for name, rgb in palette.items():
            if all(abs(px[k] - rgb[k]) <= 8 for k in range(3)):
                counts[name] = counts.get(name, 0) + 1
    print("palette pixels:", counts)
    sys.exit(0 if all(counts.get(k, 0) >= minimum for k in palette) else 1)


main()
