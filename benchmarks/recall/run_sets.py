#!/usr/bin/env python3
"""Run npu-lint over recall sets and score them, with a total over all sets.

usage: run_sets.py [--npu-lint PATH] [--tag TAG] [--jobs N] SETDIR [SETDIR ...]
For each set (sources unpacked by fetch.py), runs `npu-lint check src/<project> --output-format json -q
--exit-zero` per project into SETDIR/findings_TAG/<project>.json, then score.py on it; prints each set's
score lines and the pooled recall (all and strict) and precision per family. The default npu-lint is the one
beside this interpreter.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SCORE = re.compile(r"^(DYN|CUDA) recall (\d+)/(\d+) = [\d.]+ \(strict (\d+)/(\d+)\); precision (\d+)/(\d+)")


def projects(setdir: str) -> list[str]:
    for line in open(os.path.join(setdir, "projects.txt"), encoding="utf-8"):
        if line.startswith("# src/:"):
            return line.split(":", 1)[1].split()
    return sorted(os.listdir(os.path.join(setdir, "src")))


def run_project(npu_lint: str, setdir: str, out: str, project: str, cache: str) -> None:
    # a fresh facts cache per run: the cache is keyed by file content and FACTS_VERSION, not by the code that
    # built the facts, so a shared one may hand another branch's facts to this run
    env = dict(os.environ, NPU_LINT_CACHE_DIR=cache)
    with open(os.path.join(out, project + ".json"), "w", encoding="utf-8") as fh:
        subprocess.run([npu_lint, "check", os.path.join(setdir, "src", project), "--output-format", "json",
                        "-q", "--exit-zero"], stdout=fh, stderr=subprocess.DEVNULL, env=env)


def main() -> int:
    args = sys.argv[1:]
    opts = {"--npu-lint": os.path.join(os.path.dirname(sys.executable), "npu-lint"), "--tag": "run", "--jobs": "2"}
    for key in list(opts):
        if key in args:
            i = args.index(key)
            opts[key] = args[i + 1]
            del args[i:i + 2]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    jobs = []
    for setdir in (a.rstrip("/") for a in args):
        out = os.path.join(setdir, "findings_" + opts["--tag"])
        os.makedirs(out, exist_ok=True)
        jobs += [(setdir, out, p) for p in projects(setdir)]
    with tempfile.TemporaryDirectory() as cache, ThreadPoolExecutor(int(opts["--jobs"])) as pool:
        list(pool.map(lambda job: run_project(opts["--npu-lint"], *job, cache), jobs))
    totals: dict[str, list[int]] = {}
    for setdir in (a.rstrip("/") for a in args):
        res = subprocess.run([sys.executable, os.path.join(HERE, "score.py"), setdir, "--findings",
                              os.path.join(setdir, "findings_" + opts["--tag"])], capture_output=True, text=True)
        for line in res.stdout.splitlines():
            m = SCORE.match(line)
            if m:
                print(f"{os.path.basename(setdir)} {line}")
                acc = totals.setdefault(m.group(1), [0] * 6)
                for i, v in enumerate(m.groups()[1:]):
                    acc[i] += int(v)
    for kind, (h, n, hs, ns, real, judged) in totals.items():
        print(f"TOTAL {kind} recall {h}/{n} = {h / max(n, 1):.3f} (strict {hs}/{ns} = {hs / max(ns, 1):.3f}); "
              f"precision {real}/{judged} = {real / max(judged, 1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
