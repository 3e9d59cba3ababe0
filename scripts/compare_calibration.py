#!/usr/bin/env python3
"""compare_calibration.py - the tally of scripts/compare-calibration.sh: runs
`benchgen compare --json` with the recipe's defaults on every calibration run
in DIR and checks the figures the issue asks for (docs/COMPARE.md,
"Calibration"). --record FILE replaces the block between
<!-- calibration:begin --> and <!-- calibration:end --> in FILE with the table.

Rows: the NumPy A/A, the framework A/A, both together (the false-alarm
criterion), the issue's 12-cell A/A (aa-frameworks-1), each power share, the
drift pair. Each row gives the 1-minute load average its runs started and
ended with (DIR/calibration.log). A power row also says how many cells the
test alone found (q < alpha) and how many of those the noise band held back,
so a miss can be traced to the noise or to the band.
Exit status: 0 every criterion met, 1 some criterion failed, 2 usage.
"""
import argparse
import json
import math
import os
import re
import sqlite3
import statistics
import subprocess
import sys


def compare(benchgen, a, b):
    p = subprocess.run([benchgen, "compare", "--json", a, b], capture_output=True, text=True)
    if p.returncode not in (0, 3):
        raise SystemExit("benchgen compare %s %s: exit %d: %s" % (a, b, p.returncode, p.stderr.strip()))
    return p.returncode, json.loads(p.stdout)


def tested(cmp):
    """The cells of one comparison that got a verdict."""
    return [c for c in cmp["cells"] if c["match"] == "matched" and c["verdict"] != "none"]


def load(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else float("nan")


def samples(db):
    """{cell key without #rN: {repeat: [timed step ns]}} of the ok cells of one run.db (read-only)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    out = {}
    try:
        for cid, key, rep in con.execute("SELECT id, key, repeat FROM cells WHERE status = 'ok'"):
            xs = [r[0] for r in con.execute("SELECT ns FROM samples WHERE cell_id = ? AND phase = 'timed' "
                                             "ORDER BY idx", (cid,))]
            if xs:
                out.setdefault(key.split("#")[0], {})[rep or 1] = xs
    finally:
        con.close()
    return out


def noise_sources(d, names):
    """Where the noise of paired A/B runs comes from: the median over cells of
    the paired between-process CV (sd of the log B/A of the k-th processes /
    sqrt 2) with each process's mean and with its median step, and the median
    over processes of how far the two halves of one process's steps differ
    (|log mean(first half) / mean(second half)|)."""
    cv_mean, cv_median, halves = [], [], []
    for name in names:
        a, b = samples(os.path.join(d, name, "a", "run.db")), samples(os.path.join(d, name, "b", "run.db"))
        for cell in sorted(set(a) & set(b)):
            reps = sorted(set(a[cell]) & set(b[cell]))
            if len(reps) < 2:
                continue
            for stat, out in ((statistics.fmean, cv_mean), (statistics.median, cv_median)):
                diff = [math.log(stat(b[cell][r]) / stat(a[cell][r])) for r in reps]
                out.append(statistics.stdev(diff) / math.sqrt(2))
            for side in (a, b):
                for xs in side[cell].values():
                    h = len(xs) // 2
                    if h:
                        halves.append(abs(math.log(statistics.fmean(xs[:h]) / statistics.fmean(xs[h:]))))
    return median(cv_mean), median(cv_median), median(halves)


def loads_of(log, names):
    """1-minute load averages logged at the start and end of these runs."""
    want = set(names)
    out = []
    for m in re.finditer(r"^\S+ (?:start|end) +(\S+) (?:rc \S+ )?load ([0-9.]+)", log, re.M):
        if m.group(1) in want:
            out.append(float(m.group(2)))
    return out


def load_text(xs):
    if not xs:
        return "load not logged"
    return "load %.1f-%.1f" % (min(xs), max(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchgen", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--aa", type=int, default=10)
    ap.add_argument("--aa-frameworks", type=int, default=0)
    ap.add_argument("--aa-extra", default="",
                    help="comma-separated run names in DIR: further A/A runs (e.g. one backend's rows of "
                         "aa-frameworks.yaml) that count toward the false alarms, a row each")
    ap.add_argument("--power", type=int, default=10)
    ap.add_argument("--power-other", type=int, default=10)
    ap.add_argument("--power-long", type=int, default=0)
    ap.add_argument("--power-long-other", type=int, default=0)
    ap.add_argument("--shares", default="0.25 0.10 -0.20")
    ap.add_argument("--record")
    o = ap.parse_args()
    d = o.dir
    log = load(os.path.join(d, "calibration.log"))
    lines, ok = [], True

    def run_dirs(prefix, n):
        return ["%s-%d" % (prefix, k) for k in range(1, n + 1)
                if os.path.exists(os.path.join(d, "%s-%d.done" % (prefix, k)))]

    compared = {}

    def cmp_of(name):  # each run is compared once, however many rows read it
        if name not in compared:
            compared[name] = compare(o.benchgen, os.path.join(d, name, "a"), os.path.join(d, name, "b"))
        return compared[name]

    # False alarms: every A/A comparison, NumPy and frameworks, then together.
    def cells_label(names):  # what the runs really hold: "6 cells: torch-eager"
        seen = {}
        for name in names:
            _, doc = cmp_of(name)
            for c in doc["comparisons"][0]["cells"]:
                seen.setdefault(c["backend"], set()).add(c["id"])
        n = sum(len(v) for v in seen.values())
        return "%d cell%s: %s" % (n, "" if n == 1 else "s", ", ".join(sorted(seen))) if seen else "no cells"

    fw = run_dirs("aa-frameworks", o.aa_frameworks)
    aa_parts = [("NumPy A/A (`aa-numpy.yaml`, 4 cells)", run_dirs("aa-numpy", o.aa), o.aa),
                ("framework A/A (`aa-frameworks.yaml`, %s)" % (cells_label(fw) if fw else "12 cells"), fw,
                 o.aa_frameworks)]
    for name in filter(None, o.aa_extra.split(",")):
        have = [name] if os.path.exists(os.path.join(d, name, "a", "run.db")) else []
        aa_parts.append(("A/A `%s` (%s)" % (name, cells_label(have) if have else "missing"), have, 1))
    total = {"runs": 0, "cells": 0, "changed": 0, "exits0": 0, "names": []}
    results = {}
    for label, names, asked in aa_parts:
        cells = changed = exits0 = noisy = 0
        cvs = []
        for name in names:
            rc, doc = cmp_of(name)
            cmp = doc["comparisons"][0]
            results[name] = (rc, cmp)
            exits0 += rc == 0
            for c in tested(cmp):
                cells += 1
                changed += c["verdict"] in ("faster", "slower")
                noisy += bool(c["too_noisy"])
                cvs.append(c["noise_cv"])
        total["runs"] += len(names)
        total["cells"] += cells
        total["changed"] += changed
        total["exits0"] += exits0
        total["names"] += names
        if not asked:
            continue
        if not names:
            lines.append("| false alarms, %s | none of %d comparisons asked for finished | - | not measured |"
                         % (label, asked))
            continue
        lines.append("| false alarms, %s | %d of %d comparisons asked for finished, %d cell verdicts | %d faster/slower; "
                     "%d of %d comparisons exit 0; median between-process CV %.1f%%, %d of %d cells too noisy for 5%%; "
                     "%s | part of the row below |"
                     % (label, len(names), asked, cells, changed, exits0, len(names), 100 * median(cvs), noisy, cells,
                        load_text(loads_of(log, names))))
    rate = total["changed"] / total["cells"] if total["cells"] else float("nan")
    fa_ok = total["cells"] > 0 and rate <= 0.05 and total["exits0"] >= 0.9 * total["runs"]
    if o.aa or o.aa_frameworks:
        ok &= fa_ok
        lines.append("| false alarms, all A/A | %d comparisons, %d cell verdicts | %d faster/slower (%.1f%%); %d of %d "
                     "comparisons exit 0 | <= 5%% and >= 90%% exit 0: %s |"
                     % (total["runs"], total["cells"], total["changed"], 100 * rate if total["cells"] else 0,
                        total["exits0"], total["runs"], "met" if fa_ok else "NOT met"))

    # The 12-cell A/A: the first framework A/A.
    if o.aa_frameworks:
        if "aa-frameworks-1" in results:
            rc, cmp = results["aa-frameworks-1"]
            v = tested(cmp)
            whole = len(v) == 12
            changed = sum(c["verdict"] in ("faster", "slower") for c in v)
            crit = rc == 0 and changed == 0
            ok &= crit
            counts = ", ".join("%d %s" % (sum(c["verdict"] == w for c in v), w)
                               for w in ("same", "faster", "slower", "ambiguous"))
            lines.append("| the issue's 12-cell A/A (`aa-frameworks-1`%s) | 1 comparison, %d cell verdicts | exit %d; %s | "
                         "exit 0, no faster/slower: %s |"
                         % ("" if whole else ", " + cells_label(["aa-frameworks-1"]) + " of its 12", len(v), rc, counts,
                            ("met" if whole else "met on the cells run, the rest not measured") if crit else "NOT met"))
        else:
            ok = False
            lines.append("| the issue's 12-cell A/A (`aa-frameworks-1`) | not finished | - | exit 0, no faster/slower: "
                         "NOT measured |")

    # Power: a controlled extra share of work in B.
    parts = [("power" + s, s, o.power if s == "0.25" else o.power_other, "") for s in o.shares.split()]
    parts += [("power-long" + s, s, o.power_long if s == "0.25" else o.power_long_other, ", 100-step processes")
              for s in o.shares.split() if o.power_long]
    counted = list(total["names"])
    for prefix, s, n, what in parts:
        if not n:
            continue
        names = run_dirs(prefix, n)
        want = "faster" if float(s) < 0 else "slower"
        all_found = cells_found = cells_total = wrong = significant = held = 0
        cvs, ratios = [], []
        for name in names:
            rc, doc = cmp_of(name)
            v = tested(doc["comparisons"][0])
            cells_total += len(v)
            cells_found += sum(c["verdict"] == want for c in v)
            wrong += sum(c["verdict"] in ("faster", "slower") and c["verdict"] != want for c in v)
            all_found += bool(v) and all(c["verdict"] == want for c in v)
            for c in v:
                sig = c["p_adj"] is not None and c["p_adj"] < doc["alpha"] and \
                    (c["ratio"] > 1) == (want == "slower")
                significant += sig
                held += sig and c["verdict"] != want
                cvs.append(c["noise_cv"])
                ratios.append(c["ratio"])
        cv_mean, cv_median, halves = noise_sources(d, names)
        counted += names
        if s == "0.25":
            crit = bool(names) and all_found >= 0.9 * len(names)
            verdict = ">= 90%% of comparisons: %s" % ("met" if crit else "NOT met")
        elif float(s) < 0:
            crit = bool(names) and cells_found > 0 and wrong == 0
            verdict = "found as faster: %s" % ("met" if crit else "NOT met")
        else:
            crit, verdict = True, "reported"
        if what:  # the longer processes are an experiment: reported, no criterion of their own
            verdict = "reported" if verdict == "reported" else "reported (%s)" % verdict
        else:
            ok &= crit
        ok &= wrong == 0
        lines.append("| power, B does %+d%% work%s | %d of %d comparisons asked for finished, %d cell verdicts | "
                     "%d of %d cells %s (%.0f%%), %d of %d comparisons with every cell %s, %d in the wrong direction; "
                     "%d significant (q < alpha), %d of them held back by the noise band; median B/A %.3f, "
                     "median CV %.1f%% (%.1f%% with per-process medians), halves of a process differ by %.1f%%; "
                     "%s | %s |"
                     % (round(float(s) * 100), what, len(names), n, cells_total, cells_found, cells_total, want,
                        100.0 * cells_found / cells_total if cells_total else 0, all_found, len(names), want, wrong,
                        significant, held, median(ratios), 100 * median(cvs), 100 * cv_median, 100 * halves,
                        load_text(loads_of(log, names)), verdict))

    # Drift: two separate runs, the second under CPU hogs.
    if os.path.exists(os.path.join(d, "drift-hog.done")) and os.path.exists(os.path.join(d, "drift-quiet.done")):
        rc, doc = compare(o.benchgen, os.path.join(d, "drift-quiet"), os.path.join(d, "drift-hog"))
        cmp = doc["comparisons"][0]
        cn = cmp["canary"]
        crit = bool(cn["drift"]) and cmp["summary"]["drift"] > 0
        ok &= crit
        nan = float("nan")
        lines.append("| drift (separate runs, B under 4 CPU hogs) | 1 comparison | canary B/A %.3f [%.3f, %.3f], %d "
                     "verdicts confounded by machine drift; %s | canary moved and verdicts marked: %s |"
                     % (cn["ratio"] or nan, cn["ci_lo"] or nan, cn["ci_hi"] or nan, cmp["summary"]["drift"],
                        load_text(loads_of(log, ["drift-quiet", "drift-hog"])), "met" if crit else "NOT met"))

    if os.path.exists(os.path.join(d, "drift-hog.done")):
        counted += ["drift-quiet", "drift-hog"]
    loads = loads_of(log, counted)
    table = ["| part | data | result | criterion |", "|---|---|---|---|"] + lines
    if loads:
        table.append("")
        table.append("1-minute load average at the start and end of the runs above: %.1f to %.1f (median %.1f) "
                     "on %d CPUs." % (min(loads), max(loads), median(loads), os.cpu_count()))
    text = "\n".join(table)
    print(text)
    if o.record:
        doc = load(o.record)
        if "<!-- calibration:begin -->" not in doc:
            print("compare_calibration.py: %s has no calibration markers" % o.record, file=sys.stderr)
            return 2
        new = re.sub(r"(<!-- calibration:begin -->\n).*?(<!-- calibration:end -->)",
                     lambda m: m.group(1) + text + "\n" + m.group(2), doc, flags=re.S)
        with open(o.record, "w") as f:
            f.write(new)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
