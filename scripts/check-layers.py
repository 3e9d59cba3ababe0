#!/usr/bin/env python3
"""check-layers.py [ROOT] - the include rules of docs/ARCHITECTURE.md.

Reads every #include "..." in ROOT's gen/*/*.[ch], charts/*.[ch] and
runners/*.[ch] (ROOT defaults to the current directory) and fails when

  * a file includes a header of a folder ranked above its own (an include
    must point down the layer chain, or stay within its folder),
  * a quoted include does not name an existing header of one of those folders,
  * a file sits in a folder that has no rank yet, or
  * the file-level include graph has a cycle (a module is x.c + x.h; module A
    depends on module B when A.c or A.h includes B.h), or
  * docs/ARCHITECTURE.md (when ROOT has it) lacks a folder's row in "Where
    each thing lives", or a row does not name one of its folder's modules
    (by name, or by a prefix written `name_*` or `name*`), or
  * a file of gen/ outside gen/cli writes to a standard stream itself
    (printf, puts, putchar, perror, fprintf/vfprintf/fflush of stderr or
    stdout, fputs/fputc/putc/fwrite to them, dprintf/write to fd 1 or 2):
    the library speaks through base/voice.h, and only gen/cli writes. A line
    may keep one when it, or the comment right above it, says why with
    `voice-ok:` (a forked child's own stderr, the out-of-memory message).

Prints one line per problem (file:line: message) and exits 1; prints a
one-line summary and exits 0 when the tree is clean. Python standard library
only: `make check` runs it offline.
"""
import os
import re
import sys

# Lowest first. An include may point to its own folder or to any folder
# ranked lower. charts sits just above base: charts may include only base.
LAYERS = ["base", "charts", "plan", "stats", "store", "runners", "machine", "envs", "run",
          "report", "compare", "bisect", "bundle", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# Writing to stdout or stderr (see the docstring); matched outside comments and strings.
STD = r"(?:stderr|stdout)"
PRINTS = re.compile(r"\b(?:v?printf|puts|putchar|perror)\s*\("
                    r"|\b(?:v?fprintf|fflush)\s*\(\s*" + STD + r"\b"
                    r"|\b(?:fputs|fputc|putc|fwrite)\s*\([^;]*,\s*" + STD + r"\s*\)"
                    r"|\b(?:dprintf|write)\s*\(\s*(?:1|2|STDOUT_FILENO|STDERR_FILENO)\s*,")


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


def code_only(line, in_comment):
    """line without its comments and string literals; whether a /* comment is still open."""
    out, i = [], 0
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_comment = end + 2, False
        elif line.startswith("/*", i):
            in_comment, i = True, i + 2
        elif line.startswith("//", i):
            break
        elif line[i] in "\"'":
            q, i = line[i], i + 1
            while i < len(line) and line[i] != q:
                i += 2 if line[i] == "\\" else 1
            out.append(q + q)
            i += 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_comment


def justified(lines, lineno):
    """`voice-ok:` on the line or in the comment right above it; or, when the line
    above is the head of its statement (`if (...)`, no ';', '{' or '}' at its end),
    on that line or in the comment above that."""
    ats = [lineno - 1]
    if lineno >= 2 and not code_only(lines[lineno - 2], False)[0].rstrip().endswith((";", "{", "}")):
        ats.append(lineno - 2)
    for at in ats:
        if "voice-ok:" in lines[at]:
            return True
        i = at - 1
        while i >= 0 and lines[i].strip().startswith(("/*", "*", "//")):
            if "voice-ok:" in lines[i]:
                return True
            i -= 1
    return False


def print_problems(rel, lines):
    """A library file (gen/ outside gen/cli) that writes to stdout or stderr itself."""
    problems, in_comment = [], False
    for lineno, line in enumerate(lines, 1):
        code, in_comment = code_only(line, in_comment)
        m = PRINTS.search(code)
        if not m:
            continue
        if justified(lines, lineno):
            continue
        problems.append(f"{rel}:{lineno}: {m.group(0).strip()}... writes to a standard stream below gen/cli; "
                        f"say it through the caller's voice (base/voice.h), or justify it with a "
                        f"`voice-ok:` comment")
    return problems


def table_problems(root, files):
    """Folders and modules that docs/ARCHITECTURE.md's table does not name."""
    path = os.path.join(root, "docs", "ARCHITECTURE.md")
    if not os.path.isfile(path):
        return []  # a fixture tree (tests/fixtures/layers) has no docs
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\|\s*`([^`]+)`\s*\|[^|]*\|[^|]*\|([^|]*)\|\s*$", line)
            if m:
                rows[m.group(1).rstrip("/")] = m.group(2)
    out, seen = [], set()
    for folder, rel in files:
        if folder is None or folder not in RANK:
            continue
        top = os.path.dirname(rel)
        names = rows.get(top)
        if names is None:
            if top not in seen:
                out.append(f"docs/ARCHITECTURE.md: \"Where each thing lives\" has no row for {top}")
                seen.add(top)
            continue
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*\*?", names))
        prefixes = [w[:-1] for w in words if w.endswith("*")]
        mod = os.path.splitext(os.path.basename(rel))[0]
        if (mod not in words and not any(mod.startswith(p) for p in prefixes)
                and (top, mod) not in seen):
            out.append(f"docs/ARCHITECTURE.md: the {top} row does not name {mod} "
                       f"({rel}); add it to the row's files")
            seen.add((top, mod))
    return out


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
        if rel.startswith("gen/") and folder != "cli":
            problems += print_problems(rel, lines)
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
    problems += table_problems(root, files)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-layers: {len(problems)} problem(s) in {len(files)} files", file=sys.stderr)
        return 1
    nedges = sum(len(v) for v in edges.values())
    print(f"check-layers: {len(files)} files, {nedges} module dependencies, "
          f"all pointing down, no cycle, no print below gen/cli")
    return 0


if __name__ == "__main__":
    sys.exit(main())
