#!/usr/bin/env python3
"""bench_report_matplotlib.py RUN_DIR OUT_DIR - the comparison side of
scripts/bench-report.sh: the same charts and workbook `benchgen report` makes,
made the usual way, with matplotlib and XlsxWriter, from the same run.db.

Charts (each as PNG at the same pixel size as benchgen's, SVG and PDF):
ms/step by backend per row with 95% CI whiskers (12 rows a figure, 3 panels
a row), throughput speedup over the baseline (12 rows a figure), Keras 3
(best) over every other backend (24 rows a figure), the heatmap relative to
each row's best (40 rows a figure), and per row every cell's step-time
histogram and step-time series with warm-up. Workbook: Summary (rows x
backends + Keras 3 (best), best cell highlighted, colour scale, frozen
header, autofilter, native bar chart), Speedup (with chart), Statistics,
Samples (every step), Environment and Method.

Statistics per cell as benchgen computes them: mean, median, p5/p95
(linear), standard deviation (n-1), CV, 95% bootstrap CI of the mean (2,000
resamples, fixed seed), IQR outliers, first step an outlier.
"""
import math
import os
import sqlite3
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import xlsxwriter  # noqa: E402

PT = 1 / 72.0                      # inches per point
DPI = 108                          # 1.5 px per point, like benchgen's PNGs
W = 760 * PT
BACKENDS = [("torch-eager", "PyTorch (eager)"), ("torch-compiled", "PyTorch (compiled)"),
            ("keras2-tensorflow", "Keras 2 (TensorFlow)"), ("keras3-tensorflow", "Keras 3 (TensorFlow)"),
            ("keras3-jax", "Keras 3 (JAX)"), ("keras3-torch", "Keras 3 (PyTorch)"),
            ("numpy", "NumPy (CPU reference)")]
MODELS = {"bert": "BERT", "gemma": "Gemma", "mistral": "Mistral", "sd": "StableDiffusion",
          "sam": "SegmentAnything", "mlp": "MLP (NumPy)"}
PALETTE = ["#882255", "#CC6677", "#999933", "#44AA99", "#117733", "#AA4499", "#DDCC77"]


def stats(ns):
    x = np.asarray(ns, dtype=np.float64) / 1e6
    n = len(x)
    if n == 0:
        return None
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    out = (x < q1 - 1.5 * iqr) | (x > q3 + 1.5 * iqr)
    rng = np.random.default_rng(0x62656E636867656E)
    boot = rng.choice(x, size=(2000, n), replace=True).mean(axis=1)
    mean, sd = x.mean(), x.std(ddof=1) if n > 1 else 0.0
    return dict(n=n, mean=mean, median=float(np.median(x)), p5=float(np.percentile(x, 5)),
                p95=float(np.percentile(x, 95)), stdev=sd, cv=sd / mean, min=x.min(), max=x.max(),
                ci_lo=float(np.percentile(boot, 2.5)), ci_hi=float(np.percentile(boot, 97.5)),
                outliers=int(out.sum()), first_outlier=bool(out[0]))


def load(run_dir):
    db = sqlite3.connect(os.path.join(run_dir, "run.db"))
    run = dict(zip([d[0] for d in db.execute("SELECT * FROM run").description],
                   db.execute("SELECT * FROM run").fetchone()))
    cells = []
    for row in db.execute("SELECT id, key, model, task, batch, backend, status, detail, repeat FROM cells ORDER BY id"):
        c = dict(zip(["id", "key", "model", "task", "batch", "backend", "status", "detail", "repeat"], row))
        c["warmup"] = [r[0] for r in db.execute(
            "SELECT ns FROM samples WHERE cell_id = ? AND phase = 'warmup' ORDER BY idx", (c["id"],))]
        c["timed"] = [r[0] for r in db.execute(
            "SELECT ns FROM samples WHERE cell_id = ? AND phase = 'timed' ORDER BY idx", (c["id"],))]
        c["env"] = db.execute("SELECT key, value FROM environment WHERE cell_id = ? ORDER BY key",
                              (c["id"],)).fetchall()
        c["facts"] = db.execute("SELECT name, value FROM facts WHERE cell_id = ? ORDER BY name",
                                (c["id"],)).fetchall()
        c["st"] = stats(c["timed"]) if c["status"] == "ok" else None
        cells.append(c)
    run_env = db.execute("SELECT key, value FROM environment WHERE cell_id = 0 ORDER BY key").fetchall()
    return run, cells, run_env


def grid(cells):
    rows, cols = [], []
    for c in cells:
        r = (c["model"], c["task"], c["batch"])
        if r not in rows:
            rows.append(r)
    present = {c["backend"] for c in cells}
    cols = [b for b, _ in BACKENDS if b in present]
    at = {(c["model"], c["task"], c["batch"], c["backend"]): c for c in cells}
    return rows, cols, at


def label(r):
    return "%s (%s)" % (MODELS.get(r[0], r[0]), r[1])


def disp(b):
    return dict(BACKENDS).get(b, b)


def color(b):
    names = [n for n, _ in BACKENDS]
    return PALETTE[names.index(b) % len(PALETTE)] if b in names else "#888888"


def save(fig, out, name):
    for ext in ("png", "svg", "pdf"):
        fig.savefig(os.path.join(out, "%s.%s" % (name, ext)), dpi=DPI,
                    metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)


def chunks(seq, n):
    return [seq[i:i + n] for i in range(0, len(seq), n)]


def mean_of(at, r, b):
    c = at.get(r + (b,))
    return c["st"]["mean"] if c and c["st"] else float("nan")


def charts(rows, cols, at, out, baseline):
    k3 = [b for b in cols if b.startswith("keras3-")]
    best = {r: min([mean_of(at, r, b) for b in cols if not math.isnan(mean_of(at, r, b))], default=float("nan"))
            for r in rows}
    k3best = {r: min([mean_of(at, r, b) for b in k3 if not math.isnan(mean_of(at, r, b))], default=float("nan"))
              for r in rows}
    parts = chunks(rows, 12)
    for k, part in enumerate(parts):           # ms/step small multiples
        nr = (len(part) + 2) // 3
        fig, axes = plt.subplots(nr, 3, figsize=(1000 * PT, (44 + 136 * nr) * PT), squeeze=False)
        fig.suptitle("ms/step by backend", x=0.01, ha="left", fontweight="bold")
        for ax, r in zip(axes.flat, part):
            v = [mean_of(at, r, b) for b in cols]
            lo = [at[r + (b,)]["st"]["ci_lo"] if not math.isnan(x) else 0 for b, x in zip(cols, v)]
            hi = [at[r + (b,)]["st"]["ci_hi"] if not math.isnan(x) else 0 for b, x in zip(cols, v)]
            y = np.arange(len(cols))
            vals = [0 if math.isnan(x) else x for x in v]
            err = [[max(0, x - l) for x, l in zip(vals, lo)], [max(0, h - x) for x, h in zip(vals, hi)]]
            ax.barh(y, vals, xerr=err, color=[color(b) for b in cols],
                    edgecolor=["black" if x == best[r] else "none" for x in v])
            for yy, x, b in zip(y, v, cols):
                txt = "NA (%s)" % at[r + (b,)]["status"] if math.isnan(x) and r + (b,) in at else \
                      ("NA" if math.isnan(x) else "{:,.2f}".format(x))
                ax.text(0 if math.isnan(x) else x, yy, " " + txt, va="center", fontsize=7,
                        fontweight="bold" if x == best[r] else "normal")
            ax.set_yticks(y, [disp(b) for b in cols], fontsize=8)
            ax.invert_yaxis()
            ax.set_title("%s, batch %d" % (label(r), r[2]), loc="left", fontsize=10, fontweight="bold")
            ax.set_xlabel("ms/step", fontsize=8)
            ax.tick_params(axis="x", labelsize=7)
            ax.grid(axis="x", color="#e3e3e3")
        for ax in list(axes.flat)[len(part):]:
            ax.axis("off")
        fig.tight_layout()
        save(fig, out, "ms-per-step" + ("-%d" % (k + 1) if len(parts) > 1 else ""))
    if baseline in cols:                      # speedup over the baseline
        others = [b for b in cols if b != baseline]
        series = [(disp(b), color(b), lambda r, b=b: mean_of(at, r, b)) for b in others]
        if k3:
            series.append(("Keras 3 (best)", "#222222", lambda r: k3best[r]))
        for k, part in enumerate(parts):
            fig, ax = plt.subplots(figsize=(W, (90 + len(part) * (len(series) * 9 + 8)) * PT))
            y = np.arange(len(part))
            h = 0.8 / len(series)
            for i, (name, col, f) in enumerate(series):
                sp = [(mean_of(at, r, baseline) / f(r) - 1) * 100 for r in part]
                ax.barh(y + i * h, [0 if math.isnan(s) else s for s in sp], h, label=name, color=col)
                for yy, s in zip(y + i * h, sp):
                    ax.text(0 if math.isnan(s) else s, yy, " NA" if math.isnan(s) else " %+.1f%%" % s,
                            va="center", fontsize=6)
            ax.set_yticks(y + 0.4 - h / 2, ["%s, b%d" % (label(r), r[2]) for r in part], fontsize=8)
            ax.invert_yaxis()
            ax.axvline(0, color="#666666", lw=0.6)
            ax.set_title("Throughput speedup over %s" % disp(baseline), loc="left", fontweight="bold")
            ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.08))
            fig.tight_layout()
            save(fig, out, "speedup-vs-%s" % baseline + ("-%d" % (k + 1) if len(parts) > 1 else ""))
    for ref in [b for b in cols if not b.startswith("keras3-")] if k3 else []:
        for k, part in enumerate(chunks(rows, 24)):
            fig, ax = plt.subplots(figsize=(W, (80 + 13 * len(part)) * PT))
            sp = [(mean_of(at, r, ref) / k3best[r] - 1) * 100 for r in part]
            y = np.arange(len(part))
            ax.barh(y, [0 if math.isnan(s) else s for s in sp], color="#D62728")
            for yy, s in zip(y, sp):
                ax.text(0 if math.isnan(s) else s, yy, " NA" if math.isnan(s) else " %+.1f%%" % s,
                        va="center", fontsize=7)
            ax.set_yticks(y, ["%s, b%d" % (label(r), r[2]) for r in part], fontsize=8)
            ax.invert_yaxis()
            ax.set_title("Keras 3 (best) speedup over %s" % disp(ref), loc="left", fontweight="bold")
            fig.tight_layout()
            save(fig, out, "keras3-best-vs-%s" % ref + ("-%d" % (k + 1) if len(rows) > 24 else ""))
    hparts = chunks(rows, 40)
    for k, part in enumerate(hparts):         # heatmap
        ratio = np.array([[mean_of(at, r, b) / best[r] for b in cols] for r in part])
        fig, ax = plt.subplots(figsize=(W, (90 + 26 * len(part)) * PT))
        ax.imshow(np.log(np.clip(ratio, 1, 3)) / math.log(3), cmap="RdYlGn_r", vmin=0, vmax=1, aspect="auto")
        for i, r in enumerate(part):
            for j, b in enumerate(cols):
                m = mean_of(at, r, b)
                t = "NA (%s)" % at[r + (b,)]["status"] if math.isnan(m) and r + (b,) in at else \
                    ("NA" if math.isnan(m) else "{:,.2f} ms\n{:.2f}x".format(m, ratio[i, j]))
                ax.text(j, i, t, ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(cols)), [disp(b) for b in cols], fontsize=7)
        ax.xaxis.tick_top()
        ax.set_yticks(range(len(part)), ["%s, b%d" % (label(r), r[2]) for r in part], fontsize=8)
        ax.set_title("The matrix relative to each row's best", loc="left", fontweight="bold")
        fig.tight_layout()
        save(fig, out, "heatmap" + ("-%d" % (k + 1) if len(hparts) > 1 else ""))
    for r in rows:                            # per row: distribution + series of each cell
        fig, axes = plt.subplots(len(cols), 2, figsize=(W, (52 + 108 * len(cols)) * PT),
                                 gridspec_kw={"width_ratios": [42, 58]}, squeeze=False)
        fig.suptitle("%s, batch %d" % (label(r), r[2]), x=0.01, ha="left", fontweight="bold")
        for (a1, a2), b in zip(axes, cols):
            c = at.get(r + (b,))
            if not c or not c["st"]:
                a1.axis("off")
                a2.axis("off")
                a1.text(0, 0.5, "%s: NA (%s)" % (disp(b), c["status"] if c else "missing"), fontsize=8)
                continue
            st, ms = c["st"], np.asarray(c["timed"]) / 1e6
            a1.hist(ms, bins=max(5, min(40, int(math.ceil(2 * len(ms) ** (1 / 3))))), color=color(b))
            a1.axvspan(st["ci_lo"], st["ci_hi"], color="#222222", alpha=0.1)
            a1.axvline(st["mean"], color="#222222")
            a1.axvline(st["median"], color="#222222", ls="--")
            a1.axvline(st["p5"], color="#666666", ls=":")
            a1.axvline(st["p95"], color="#666666", ls=":")
            a1.set_title("%s: {:,.2f} ms/step".format(st["mean"]) % disp(b), loc="left", fontsize=8)
            a1.tick_params(labelsize=6)
            a1.set_yticks([])
            wu = np.asarray(c["warmup"]) / 1e6
            allv = np.concatenate([wu, ms])
            a2.plot(np.arange(len(wu), len(allv)) + 1, ms, color=color(b), lw=0.9)
            a2.plot(np.arange(len(wu)) + 1, wu, "o", color="#666666", ms=3)
            if len(wu) and allv.max() / allv.min() > 8:
                a2.set_yscale("log")
            if len(wu):
                a2.axvspan(0.5, len(wu) + 0.5, color="#666666", alpha=0.08)
                a2.text(1, wu[0], " first call (compile): {:,.0f} ms".format(wu[0]), fontsize=6, color="#666666")
            a2.axhline(st["mean"], color="#222222", ls="--", lw=0.8)
            a2.tick_params(labelsize=6)
        fig.tight_layout()
        save(fig, out, "cells-%s_%s_b%d" % r)


def workbook(path, run, rows, cols, at, cells, run_env, baseline):
    wb = xlsxwriter.Workbook(path, {"nan_inf_to_errors": False})
    wb.set_properties({"title": "Benchmark report: %s" % run["name"], "author": "benchgen"})
    head = wb.add_format({"bold": True, "bg_color": "#E8E8E8", "text_wrap": True, "bottom": 1})
    num = wb.add_format({"num_format": "#,##0.00"})
    bestf = wb.add_format({"num_format": "#,##0.00", "bold": True, "border": 2})
    na = wb.add_format({"italic": True, "font_color": "#808080", "align": "right"})
    pct = wb.add_format({"num_format": "+0.0%;-0.0%;0.0%"})
    k3 = [b for b in cols if b.startswith("keras3-")]
    sheets = {n: wb.add_worksheet(n) for n in ("Summary", "Speedup", "Statistics", "Samples", "Environment",
                                                "Method", "ChartData")}
    sheets["ChartData"].hide()
    ws = sheets["Summary"]
    ws.write(0, 0, "Benchmark report: %s" % run["name"])
    hdr = ["Model (task)", "Batch"] + [disp(b) for b in cols] + (["Keras 3 (best)"] if k3 else [])
    ws.write_row(3, 0, hdr, head)
    data = sheets["ChartData"]
    data.write_row(0, 0, ["Row"] + [disp(b) for b in cols])
    for i, r in enumerate(rows):
        vals = [mean_of(at, r, b) for b in cols]
        ok = [v for v in vals if not math.isnan(v)]
        best = min(ok) if ok else None
        ws.write(4 + i, 0, label(r))
        ws.write(4 + i, 1, r[2])
        data.write(1 + i, 0, "%s, b%d" % (label(r), r[2]))
        for j, (b, v) in enumerate(zip(cols, vals)):
            if math.isnan(v):
                c = at.get(r + (b,))
                ws.write(4 + i, 2 + j, "NA (%s)" % (c["status"] if c else "missing"), na)
            else:
                ws.write(4 + i, 2 + j, v, bestf if v == best else num)
                data.write(1 + i, 1 + j, v)
        if k3:
            kv = [mean_of(at, r, b) for b in k3 if not math.isnan(mean_of(at, r, b))]
            if kv:
                ws.write(4 + i, 2 + len(cols), min(kv), num)
            else:
                ws.write(4 + i, 2 + len(cols), "NA (no Keras 3 result)", na)
        ws.conditional_format(4 + i, 2, 4 + i, 1 + len(hdr) - 2, {"type": "3_color_scale", "min_color": "#63BE7B",
                                                                  "mid_color": "#FFEB84", "max_color": "#F8696B"})
    ws.freeze_panes(4, 2)
    ws.autofilter(3, 0, 3 + len(rows), len(hdr) - 1)
    ch = wb.add_chart({"type": "bar"})
    n = min(len(rows), 30)
    for j, b in enumerate(cols):
        ch.add_series({"name": ["ChartData", 0, 1 + j], "categories": ["ChartData", 1, 0, n, 0],
                       "values": ["ChartData", 1, 1 + j, n, 1 + j], "fill": {"color": color(b)}})
    ch.set_title({"name": "ms/step by backend (lower is better)"})
    ws.insert_chart(6 + len(rows), 0, ch, {"x_scale": 2, "y_scale": 1 + n * len(cols) / 14})
    sp = sheets["Speedup"]
    if baseline in cols:
        others = [b for b in cols if b != baseline]
        sp.write_row(3, 0, ["Model (task)", "Batch"] + [disp(b) for b in others] + (["Keras 3 (best)"] if k3 else []),
                     head)
        for i, r in enumerate(rows):
            sp.write(4 + i, 0, label(r))
            sp.write(4 + i, 1, r[2])
            base = mean_of(at, r, baseline)
            vals = [mean_of(at, r, b) for b in others]
            if k3:
                kv = [mean_of(at, r, b) for b in k3 if not math.isnan(mean_of(at, r, b))]
                vals.append(min(kv) if kv else float("nan"))
            for j, v in enumerate(vals):
                s = base / v - 1
                if math.isnan(s):
                    sp.write(4 + i, 2 + j, "NA", na)
                else:
                    sp.write(4 + i, 2 + j, s, pct)
                    data.write(1 + i, 1 + len(cols) + 1 + j, s)
        sp.conditional_format(4, 2, 3 + len(rows), 1 + len(vals),
                              {"type": "3_color_scale", "min_color": "#F8696B", "mid_type": "num", "mid_value": 0,
                               "mid_color": "#FFFFFF", "max_color": "#63BE7B"})
        sp.freeze_panes(4, 2)
        sp.autofilter(3, 0, 3 + len(rows), 1 + len(vals))
        ch = wb.add_chart({"type": "bar"})
        for j in range(len(vals)):
            ch.add_series({"categories": ["ChartData", 1, 0, n, 0],
                           "values": ["ChartData", 1, 2 + len(cols) + j, n, 2 + len(cols) + j]})
        sp.insert_chart(6 + len(rows), 0, ch, {"x_scale": 2, "y_scale": 1 + n * len(vals) / 14})
    st = sheets["Statistics"]
    cols_st = ["Cell", "Model", "Task", "Batch", "Backend", "Repeat", "Status", "Timed steps", "Mean ms", "Median ms",
               "p5 ms", "p95 ms", "Std dev ms", "CI low ms", "CI high ms", "CV", "Min ms", "Max ms", "Outliers",
               "First timed step is an outlier", "Warm-up steps", "Compile (first call) ms", "Warm-up total ms",
               "Detail"]
    st.write_row(0, 0, cols_st, head)
    for i, c in enumerate(cells):
        s = c["st"]
        st.write_row(1 + i, 0, [c["key"], c["model"], c["task"], c["batch"], c["backend"], c["repeat"],
                                c["status"] or "not run", s["n"] if s else 0])
        if s:
            st.write_row(1 + i, 8, [s["mean"], s["median"], s["p5"], s["p95"], s["stdev"], s["ci_lo"], s["ci_hi"]],
                         num)
            st.write(1 + i, 15, s["cv"], pct)
            st.write_row(1 + i, 16, [s["min"], s["max"], s["outliers"], "yes" if s["first_outlier"] else "no"])
        st.write(1 + i, 20, len(c["warmup"]))
        if c["warmup"]:
            st.write_row(1 + i, 21, [c["warmup"][0] / 1e6, sum(c["warmup"]) / 1e6], num)
        st.write(1 + i, 23, c["detail"] or "")
    st.freeze_panes(1, 1)
    st.autofilter(0, 0, len(cells), len(cols_st) - 1)
    st.conditional_format(1, 15, len(cells), 15, {"type": "cell", "criteria": ">", "value": 0.1,
                                                  "format": wb.add_format({"bg_color": "#FFC7CE"})})
    sa = sheets["Samples"]
    sa.write_row(0, 0, ["Cell", "Model", "Task", "Batch", "Backend", "Repeat", "Phase", "Step", "ms", "ns"], head)
    i = 1
    for c in cells:
        for phase in ("warmup", "timed"):
            for k, ns in enumerate(c[phase]):
                sa.write_row(i, 0, [c["key"], c["model"], c["task"], c["batch"], c["backend"], c["repeat"], phase,
                                    k, ns / 1e6, ns])
                i += 1
    sa.freeze_panes(1, 0)
    sa.autofilter(0, 0, i - 1, 9)
    en = sheets["Environment"]
    en.write_row(0, 0, ["Scope", "Kind", "Key", "Value"], head)
    i = 1
    for k, v in run_env:
        en.write_row(i, 0, ["run", "environment", k, v])
        i += 1
    for c in cells:
        for kind, kvs in (("environment", c["env"]), ("fact", c["facts"])):
            for k, v in kvs:
                en.write_row(i, 0, [c["key"], kind, k, v])
                i += 1
    en.freeze_panes(1, 0)
    en.autofilter(0, 0, i - 1, 3)
    me = sheets["Method"]
    for i, (k, v) in enumerate(sorted(run.items())):
        me.write_row(i, 0, [k, "" if v is None else str(v)])
    wb.close()


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    run_dir, out = argv[1], argv[2]
    os.makedirs(os.path.join(out, "charts"), exist_ok=True)
    run, cells, run_env = load(run_dir)
    rows, cols, at = grid(cells)
    baseline = "keras2-tensorflow" if "keras2-tensorflow" in cols else cols[0]
    charts(rows, cols, at, os.path.join(out, "charts"), baseline)
    workbook(os.path.join(out, "report.xlsx"), run, rows, cols, at, cells, run_env, baseline)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
