#!/usr/bin/env python3
"""check-layers.py [ROOT] - the include rules of docs/ARCHITECTURE.md.

Reads every #include "..." in ROOT's gen/*/*.[ch], charts/*.[ch] and
runners/*.[ch] (ROOT defaults to the current directory) and fails when

  * a file includes a header of a folder ranked above its own (an include
    must point down the layer chain, or stay within its folder),
  * a quoted include does not name an existing header of one of those folders,
  * a file sits in a folder that has no rank yet, or
  * the file-level include graph has a cycle (a module is x.c + x.h; module A
    depends on module B when A.c or A.h includes B.h).

Prints one line per problem (file:line: message) and exits 1; prints a
one-line summary and exits 0 when the tree is clean. Python standard library
only: `make check` runs it offline.
"""
import os
import re
import sys

# Lowest first. An include may point to its own folder or to any folder
# ranked lower. charts sits just above base: charts may include only base.
LAYERS = ["base", "charts", "plan", "stats", "store", "runners", "run",
          "report", "compare", "bisect", "bundle", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def source_files(root):
    """(folder, path relative to root) for every C source and header."""
    out = []
    for top in ("gen", "charts", "runners"):
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        if top == "gen":
            dirs = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
            loose = sorted(f for f in os.listdir(base) if f.endswith((".c", ".h")))
            for f in loose:
                out.append((None, os.path.join("gen", f)))
            for d in dirs:
                for f in sorted(os.listdir(os.path.join(base, d))):
                    if f.endswith((".c", ".h")):
                        out.append((d, os.path.join("gen", d, f)))
        else:
            for f in sorted(os.listdir(base)):
                if f.endswith((".c", ".h")):
                    out.append((top, os.path.join(top, f)))
    return out


def resolve(root, name):
    """The path (relative to root) that `#include "name"` finds with -Igen -I."""
    for prefix in ("gen", ""):
        rel = os.path.normpath(os.path.join(prefix, name))
        if os.path.isfile(os.path.join(root, rel)):
            return rel
    return None


def folder_of(rel):
    parts = rel.split(os.sep)
    if parts[0] == "gen":
        return parts[1] if len(parts) > 2 else None
    return parts[0]


def module_of(rel):
    return os.path.splitext(rel)[0]


def find_cycles(edges):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, on_stack, stack, sccs = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sccs


def one_cycle(edges, comp):
    """A shortest path start -> ... -> start inside one component."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems = []
    edges = {}   # module -> set of modules
    where = {}   # (module, module) -> "file:line"
    files = source_files(root)
    for folder, rel in files:
        if folder is None:
            problems.append(f"{rel}: gen/ holds layer folders only; move this file into one "
                            f"(layers, lowest first: {' < '.join(LAYERS)})")
            continue
        if folder not in RANK:
            problems.append(f"{rel}: folder '{folder}' has no layer rank; give it one in "
                            f"LAYERS in scripts/check-layers.py and docs/ARCHITECTURE.md")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        for lineno, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            name = m.group(1)
            target = resolve(root, name)
            if target is None:
                problems.append(f'{rel}:{lineno}: #include "{name}" names no header of '
                                f'gen/*/, charts/ or runners/ (includes name their folder, '
                                f'e.g. "store/store.h"; system headers use <...>)')
                continue
            tfolder = folder_of(target)
            if tfolder not in RANK:
                continue  # reported for the target file itself
            if RANK[tfolder] > RANK[folder] or (folder == "charts" and tfolder not in ("base", "charts")):
                problems.append(f'{rel}:{lineno}: #include "{name}" points up the layer chain: '
                                f'{folder} (rank {RANK[folder]}) may not include {tfolder} '
                                f'(rank {RANK[tfolder]}); order: {" < ".join(LAYERS)}')
            a, b = module_of(rel), module_of(target)
            if a != b:
                edges.setdefault(a, set()).add(b)
                where.setdefault((a, b), f"{rel}:{lineno} includes {target}")
    for comp in find_cycles(edges):
        path = one_cycle(edges, comp)
        steps = "; ".join(where[(path[i], path[i + 1])] for i in range(len(path) - 1))
        problems.append(f"include cycle {' -> '.join(path)}: {steps}; give what both need one "
                        f"home (one module, or a lower layer)")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-layers: {len(problems)} problem(s) in {len(files)} files", file=sys.stderr)
        return 1
    nedges = sum(len(v) for v in edges.values())
    print(f"check-layers: {len(files)} files, {nedges} module dependencies, "
          f"all pointing down, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
