#!/usr/bin/env python3
"""compare_calibration.py - the tally of scripts/compare-calibration.sh: runs
`benchgen compare --json` with the recipe's defaults on every calibration run
in DIR and checks the figures the issue asks for (docs/COMPARE.md,
"Calibration"). --record FILE replaces the block between
<!-- calibration:begin --> and <!-- calibration:end --> in FILE with the table.
Exit status: 0 every criterion met, 1 some criterion failed, 2 usage.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def compare(benchgen, a, b):
    p = subprocess.run([benchgen, "compare", "--json", a, b], capture_output=True, text=True)
    if p.returncode not in (0, 3):
        raise SystemExit("benchgen compare %s %s: exit %d: %s" % (a, b, p.returncode, p.stderr.strip()))
    return p.returncode, json.loads(p.stdout)["comparisons"][0]


def verdicts(cmp):
    out = {}
    for c in cmp["cells"]:
        if c["match"] == "matched":
            out[c["id"]] = c
    return out


def load(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchgen", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--aa", type=int, default=10)
    ap.add_argument("--aa-frameworks", type=int, default=0)
    ap.add_argument("--power", type=int, default=10)
    ap.add_argument("--power-other", type=int, default=10)
    ap.add_argument("--shares", default="0.25 0.10 -0.20")
    ap.add_argument("--record")
    o = ap.parse_args()
    d = o.dir
    lines, ok = [], True

    def run_dirs(prefix, n):
        return [os.path.join(d, "%s-%d" % (prefix, k)) for k in range(1, n + 1)
                if os.path.exists(os.path.join(d, "%s-%d.done" % (prefix, k)))]

    # False alarms: every A/A comparison, numpy and frameworks together.
    aa = run_dirs("aa-numpy", o.aa) + run_dirs("aa-frameworks", o.aa_frameworks)
    cells = changed = exits0 = tested = noisy = 0
    cvs = []
    for r in aa:
        rc, cmp = compare(o.benchgen, r + "/a", r + "/b")
        exits0 += rc == 0
        for c in verdicts(cmp).values():
            if c["verdict"] == "none":
                continue
            cells += 1
            tested += 1
            changed += c["verdict"] in ("faster", "slower")
            noisy += bool(c["too_noisy"])
            if c["noise_cv"] is not None:
                cvs.append(c["noise_cv"])
    cvs.sort()
    med_cv = cvs[len(cvs) // 2] if cvs else float("nan")
    fa_rate = changed / cells if cells else float("nan")
    fa_ok = cells > 0 and fa_rate <= 0.05 and exits0 >= 0.9 * len(aa)
    ok &= fa_ok
    lines.append("| false alarms (A/A) | %d comparisons, %d cell verdicts | %d faster/slower (%.1f%%); %d of %d "
                 "comparisons exit 0; median between-process CV %.1f%%, %d of %d cells too noisy for 5%% | "
                 "<= 5%% and >= 9 of 10 exit 0: %s |"
                 % (len(aa), cells, changed, 100 * fa_rate if cells else 0, exits0, len(aa), 100 * med_cv, noisy,
                    cells, "met" if fa_ok else "NOT met"))

    # Power: a controlled extra share of work in B.
    for s in o.shares.split():
        n = o.power if s == "0.25" else o.power_other
        runs = run_dirs("power" + s, n)
        want = "faster" if float(s) < 0 else "slower"
        all_found = cells_found = cells_total = wrong = 0
        cvs = []
        for r in runs:
            rc, cmp = compare(o.benchgen, r + "/a", r + "/b")
            v = [c for c in verdicts(cmp).values() if c["verdict"] != "none"]
            cells_total += len(v)
            cells_found += sum(c["verdict"] == want for c in v)
            wrong += sum(c["verdict"] in ("faster", "slower") and c["verdict"] != want for c in v)
            all_found += bool(v) and all(c["verdict"] == want for c in v)
            cvs += [c["noise_cv"] for c in v if c["noise_cv"] is not None]
        cvs.sort()
        med = cvs[len(cvs) // 2] if cvs else float("nan")
        if s == "0.25":
            crit = runs and all_found >= 0.9 * len(runs)
            verdict = ">= 9 of 10 comparisons: %s" % ("met" if crit else "NOT met")
            ok &= bool(crit)
        elif float(s) < 0:
            crit = runs and cells_found > 0 and wrong == 0
            verdict = "found as faster: %s" % ("met" if crit else "NOT met")
            ok &= bool(crit)
        else:
            verdict = "reported"
        ok &= wrong == 0
        lines.append("| power, B does %+d%% work | %d comparisons, %d cell verdicts | %d cells %s (%.0f%%), %d "
                     "comparisons with every cell %s, %d in the wrong direction; median CV %.1f%% | %s |"
                     % (round(float(s) * 100), len(runs), cells_total, cells_found, want,
                        100.0 * cells_found / cells_total if cells_total else 0, all_found, want, wrong, 100 * med,
                        verdict))

    # Drift: two separate runs, the second under CPU hogs.
    if os.path.exists(os.path.join(d, "drift-hog.done")) and os.path.exists(os.path.join(d, "drift-quiet.done")):
        rc, cmp = compare(o.benchgen, os.path.join(d, "drift-quiet"), os.path.join(d, "drift-hog"))
        cn = cmp["canary"]
        crit = cn["drift"] and cmp["summary"]["drift"] > 0
        ok &= bool(crit)
        lines.append("| drift (separate runs, B under 4 CPU hogs) | 1 comparison | canary B/A %.3f [%.3f, %.3f], %d "
                     "verdicts confounded by machine drift | canary moved and verdicts marked: %s |"
                     % (cn["ratio"] or float("nan"), cn["ci_lo"] or float("nan"), cn["ci_hi"] or float("nan"),
                        cmp["summary"]["drift"], "met" if crit else "NOT met"))

    log = load(os.path.join(d, "calibration.log"))
    loads = [float(x) for x in re.findall(r"load ([0-9.]+)", log)]
    table = ["| part | data | result | criterion |", "|---|---|---|---|"] + lines
    if loads:
        table.append("")
        table.append("1-minute load average over the calibration: %.1f to %.1f (median %.1f) on %d CPUs."
                     % (min(loads), max(loads), sorted(loads)[len(loads) // 2], os.cpu_count()))
    text = "\n".join(table)
    print(text)
    if o.record:
        doc = load(o.record)
        new = re.sub(r"(<!-- calibration:begin -->\n).*?(<!-- calibration:end -->)",
                     lambda m: m.group(1) + text + "\n" + m.group(2), doc, flags=re.S)
        if new == doc and "<!-- calibration:begin -->" not in doc:
            print("compare_calibration.py: %s has no calibration markers" % o.record, file=sys.stderr)
            return 2
        with open(o.record, "w") as f:
            f.write(new)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
