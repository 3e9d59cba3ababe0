#!/usr/bin/env python3
"""report_shapes_check.py - what a small or odd run's report must never show
(issue 27), in every format of one rendered report directory:

    report_shapes_check.py DIR [PDFTEXT_DIR]

- an empty table (a head and no rows) or a table of row labels alone (no
  column past Model (task) / Batch / Unit), in report.html, report.md and
  every sheet of report.xlsx;
- a bare "None." in any of them and in report.pdf's text;
- a page of report.pdf whose last line is a heading (PDFTEXT_DIR holds
  page-N.txt, `pdftotext -layout` of each page, made by the caller);
- a byte count shown raw (mem.total_bytes and the like as digits, not MiB/GiB);
- a workbook number format that rounds the values it shows to a whole
  number when they are under 10 (a 0.5 ms tick read "1").

Prints one line per problem and exits 1 when there is any.
"""
import os
import re
import sys
import zipfile

LABELS = {"Model (task)", "Batch", "Unit", "Model", "Task"}
bad = []


def strip_tags(s):
    return re.sub(r"<[^>]+>", "", s).replace("&amp;", "&").strip()


def check_html(path):
    s = open(path, encoding="utf-8").read()
    for i, t in enumerate(re.findall(r"<table.*?</table>", s, re.S)):
        head = [strip_tags(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", t, re.S)]
        body = t.split("<tbody>", 1)[1] if "<tbody>" in t else ""
        if "<tr" not in body:
            bad.append("report.html: table %d (%s) has no rows" % (i + 1, " | ".join(head)[:60]))
        elif head and all(h in LABELS for h in head):
            bad.append("report.html: table %d holds row labels alone (%s)" % (i + 1, " | ".join(head)))
    for m in re.finditer(r"<p[^>]*>(?:<em>)?\s*None\.\s*(?:</em>)?</p>", s):
        bad.append("report.html: a bare 'None.' at byte %d" % m.start())


def md_tables(lines):
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-:|]+\|$", lines[i + 1]):
            head = [h.strip() for h in lines[i].strip("|").split("|")]
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            yield i + 1, head, j - i - 2
            i = j
        else:
            i += 1


def check_md(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    for ln, head, nrows in md_tables(lines):
        if nrows == 0:
            bad.append("report.md:%d: a table with no rows (%s)" % (ln, " | ".join(head)[:60]))
        elif all(h in LABELS for h in head):
            bad.append("report.md:%d: a table of row labels alone (%s)" % (ln, " | ".join(head)))
    for ln, line in enumerate(lines, 1):
        if line.strip().strip("_*") == "None.":
            bad.append("report.md:%d: a bare 'None.'" % ln)
        if re.search(r"\| *(mem\.total_bytes|[a-z0-9_.\\]*_bytes|[a-z.]*memory_bytes)[^|]*\| *[0-9]{6,} *\|",
                     line.replace("\\_", "_")):
            bad.append("report.md:%d: a byte count shown raw: %s" % (ln, line.strip()[:80]))


def check_pdf(pdftext_dir, md_path):
    headings = set()
    for line in open(md_path, encoding="utf-8"):
        m = re.match(r"^#{2,3} (.*)$", line.rstrip("\n"))
        if m:
            headings.add(m.group(1).replace("\\", "").strip())
    pages = sorted((int(re.match(r"page-(\d+)\.txt", f).group(1)), f) for f in os.listdir(pdftext_dir)
                   if re.match(r"page-\d+\.txt$", f))
    for n, f in pages:
        text = open(os.path.join(pdftext_dir, f), encoding="utf-8", errors="replace").read()
        lines = [l.strip() for l in text.split("\n") if l.strip()]
        # the running foot ("benchgen report", "page N") is not content
        body = [l for l in lines if not re.match(r"^(benchgen report|page \d+|.*\s{3,}page \d+)$", l)]
        if body and body[-1] in headings:
            bad.append("report.pdf: page %d ends with the heading '%s'" % (n, body[-1]))
        for l in body:
            if l == "None.":
                bad.append("report.pdf: page %d shows a bare 'None.'" % n)
    if not pages:
        bad.append("report.pdf: no page text to check")


def check_xlsx(path):
    z = zipfile.ZipFile(path)
    names = z.namelist()
    shared = []
    if "xl/sharedStrings.xml" in names:
        sx = z.read("xl/sharedStrings.xml").decode("utf-8")
        shared = [strip_tags(si) for si in re.findall(r"<si>(.*?)</si>", sx, re.S)]
    for i, s in enumerate(shared):
        if s == "None.":
            bad.append("report.xlsx: a bare 'None.' (shared string %d)" % i)
    wb = z.read("xl/workbook.xml").decode("utf-8")
    sheets = re.findall(r'<sheet name="([^"]+)" sheetId="(\d+)"(?: state="hidden")?', wb)
    rels = z.read("xl/_rels/workbook.xml.rels").decode("utf-8")
    styles = z.read("xl/styles.xml").decode("utf-8")
    numfmts = dict(re.findall(r'<numFmt numFmtId="(\d+)" formatCode="([^"]*)"', styles))
    xfs = re.search(r"<cellXfs[^>]*>(.*?)</cellXfs>", styles, re.S).group(1)
    xf_fmt = [re.search(r'numFmtId="(\d+)"', x).group(1) for x in re.findall(r"<xf [^>]*>", xfs)]
    for name, sid in sheets:
        m = re.search(r'Id="rId%s"[^>]*Target="([^"]+)"' % sid, rels) or \
            re.search(r'Target="([^"]+)"[^>]*Id="rId%s"' % sid, rels)
        xml = z.read("xl/" + m.group(1)).decode("utf-8")
        rows = re.findall(r"<row [^>]*>(.*?)</row>", xml, re.S)
        if name != "ChartData" and not rows:
            bad.append("report.xlsx: sheet %s is empty" % name)
        texts = {}
        for r in rows:
            for ref, attrs, body in re.findall(r'<c r="([A-Z]+\d+)"([^>]*)>(.*?)</c>', r, re.S):
                v = re.search(r"<v>(.*?)</v>", body)
                if not v:
                    continue
                if 't="s"' in attrs:
                    texts[ref] = shared[int(v.group(1))]
                else:
                    st = re.search(r's="(\d+)"', attrs)
                    fmt = numfmts.get(xf_fmt[int(st.group(1))] if st else "0", "general")
                    val = float(v.group(1))
                    texts[ref] = val
                    if fmt in ("0", "#,##0", "1", "3") and 0 < abs(val) < 10 and val != round(val):
                        bad.append("report.xlsx: %s!%s holds %g under the whole-number format %r" %
                                   (name, ref, val, fmt))
        # a table head of row labels alone (a Speedup sheet of one backend)
        heads = {}
        for ref, t in texts.items():
            col, row = re.match(r"([A-Z]+)(\d+)", ref).groups()
            heads.setdefault(row, {})[col] = t
        for row, cells in sorted(heads.items(), key=lambda kv: int(kv[0])):
            if cells.get("A") == "Model (task)" and all(isinstance(v, str) and v in LABELS for v in cells.values()):
                bad.append("report.xlsx: sheet %s row %s: a table head of row labels alone (%s)" %
                           (name, row, " | ".join(cells[c] for c in sorted(cells))))
        # a byte count shown raw: a *_bytes key beside a number of 6 digits or more
        for ref, t in texts.items():
            if isinstance(t, str) and re.search(r"(_bytes|peak_rss)$", t):
                col, row = re.match(r"([A-Z]+)(\d+)", ref).groups()
                nxt = texts.get(chr(ord(col[-1]) + 1) + row) if len(col) == 1 else None
                if isinstance(nxt, float) and nxt >= 1e5 or isinstance(nxt, str) and re.fullmatch(r"\d{6,}", nxt):
                    bad.append("report.xlsx: %s!%s: %s shown raw (%s)" % (name, ref, t, nxt))
    # native charts: the value axis's number format must show the values' magnitude
    data = {}
    for f in names:
        if f.startswith("xl/charts/chart") and f.endswith(".xml"):
            cx = z.read(f).decode("utf-8")
            vals = [float(v) for v in re.findall(r"<c:v>([-0-9.eE]+)</c:v>", cx)]
            for code in re.findall(r'<c:valAx>.*?<c:numFmt formatCode="([^"]*)"', cx, re.S):
                whole = "." not in code and "%" not in code
                small = [v for v in vals if 0 < abs(v) < 5]
                if whole and small and max(abs(v) for v in vals) < 10:
                    bad.append("%s: value axis format %r for values up to %g (a %g tick would read as a whole number)"
                               % (f, code, max(abs(v) for v in vals), min(small)))
            data[f] = vals


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = argv[1]
    check_html(os.path.join(d, "report.html"))
    check_md(os.path.join(d, "report.md"))
    check_xlsx(os.path.join(d, "report.xlsx"))
    if len(argv) > 2:
        check_pdf(argv[2], os.path.join(d, "report.md"))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
