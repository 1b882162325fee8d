#!/usr/bin/env python3
"""Score npu-lint findings of one eval set against its frozen gold.

usage: score.py SETDIR [--misses] [--findings DIR]
A finding matches a gold site when it is on the same file, of the same kind (NPU4xx = dyn, NPU2xx = cuda)
and on a line of the gold line's statement (a compound statement: its header lines only).
Precision counts distinct (file, line) per kind; unmatched ones are judged in adjudicated.json.
"""
import ast, json, os, sys
from collections import Counter, defaultdict

def spans(path):
    try:
        tree = ast.parse(open(path, encoding="utf-8", errors="replace").read())
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            end = node.end_lineno
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                end = max(node.lineno, body[0].lineno - 1)
                # decorators / bases for def/class: header only
            out.append((node.lineno, end))
    return out

def span_of(spanlist, line):
    best = (line, line)
    size = None
    for a, b in spanlist:
        if a <= line <= b and (size is None or b - a < size):
            best, size = (a, b), b - a
    return best

def main():
    args = sys.argv[1:]
    setdir = args[0].rstrip("/")
    show_miss = "--misses" in args
    fdir = os.path.join(setdir, "findings")
    if "--findings" in args:
        fdir = args[args.index("--findings") + 1]
    src = os.path.join(setdir, "src")
    files = [l.strip() for l in open(os.path.join(setdir, "files.txt")) if l.strip() and not l.startswith("#")]
    fileset = set(files)
    gold = [json.loads(l) for l in open(os.path.join(setdir, "gold.jsonl")) if l.strip()]
    adj_path = os.path.join(setdir, "adjudicated.json")
    adj = json.load(open(adj_path)) if os.path.exists(adj_path) else {}
    found = defaultdict(set)  # (file, kind) -> {(line, code)}
    for name in sorted(os.listdir(fdir)) if os.path.isdir(fdir) else []:
        if not name.endswith(".json"):
            continue
        try:
            data = json.load(open(os.path.join(fdir, name)))
        except Exception as exc:
            print(f"WARN unreadable findings {name}: {exc}")
            continue
        for f in data:
            rel = os.path.relpath(os.path.abspath(f["filename"]), os.path.abspath(src))
            if rel not in fileset:
                continue
            code = f["code"]
            kind = "dyn" if code.startswith("NPU4") else "cuda" if code.startswith("NPU2") else None
            if kind:
                found[(rel, kind)].add((f["location"]["row"], code))
    spancache = {}
    def sp(rel):
        if rel not in spancache:
            spancache[rel] = spans(os.path.join(src, rel))
        return spancache[rel]
    matched_lines = defaultdict(set)  # (file, kind) -> lines matched by gold
    per = defaultdict(lambda: Counter())
    misses = []
    for g in gold:
        rel, kind = g["file"], g["kind"]
        a, b = span_of(sp(rel), int(g["line"]))
        hits = {ln for ln, _ in found.get((rel, kind), ()) if a <= ln <= b}
        key = (kind, g.get("cat", "other"))
        per[key]["n"] += 1
        per[key]["n_strict"] += 0 if g.get("unsure") else 1
        if hits:
            per[key]["hit"] += 1
            per[key]["hit_strict"] += 0 if g.get("unsure") else 1
            matched_lines[(rel, kind)] |= hits
        else:
            misses.append(g)
    for kind in ("dyn", "cuda"):
        n = sum(c["n"] for (k, _), c in per.items() if k == kind)
        h = sum(c["hit"] for (k, _), c in per.items() if k == kind)
        ns = sum(c["n_strict"] for (k, _), c in per.items() if k == kind)
        hs = sum(c["hit_strict"] for (k, _), c in per.items() if k == kind)
        real = false = unadj = 0
        unadj_lines = []
        for (rel, k), items in sorted(found.items()):
            if k != kind:
                continue
            lines = defaultdict(list)
            for ln, code in items:
                lines[ln].append(code)
            for ln, codes in sorted(lines.items()):
                if ln in matched_lines[(rel, k)]:
                    real += 1
                    continue
                verdicts = [adj.get(f"{rel}:{ln}:{c}") for c in codes]
                if "real" in verdicts:
                    real += 1
                elif "false" in verdicts:
                    false += 1
                else:
                    unadj += 1
                    unadj_lines.append(f"UNADJ {kind} {rel}:{ln}:{','.join(sorted(codes))}")
        judged = real + false
        print(f"{kind.upper()} recall {h}/{n} = {h / n if n else 0:.3f} (strict {hs}/{ns}); "
              f"precision {real}/{judged} = {real / judged if judged else 0:.3f} (unadjudicated {unadj})")
        cats = sorted((c, v) for (k, c), v in per.items() if k == kind)
        print("  " + ", ".join(f"{c} {v['hit']}/{v['n']}" for c, v in cats))
        for line in unadj_lines:
            print(line)
    if show_miss:
        for g in misses:
            print(f"MISS {g['kind']} {g.get('cat')} {g['file']}:{g['line']} {'(unsure) ' if g.get('unsure') else ''}{g.get('why', '')}")

main()
