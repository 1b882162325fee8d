"""Scale and robustness run over the sources of large packages (issue 11).

    python benchmarks/scale.py ROOT [ROOT ...]        # e.g. unpacked sdists, a site-packages folder, the stdlib

Per file, in this process, exactly what ``npu-lint check`` does with every rule on (bounded read, decode, parse,
one walk): files, lines, lines/s, the slowest file, the files skipped and why, and anything that escaped the
per-file isolation (must be 0). Then the process's peak memory. Then, per root, the real front ends as
subprocesses with a timeout (``check``, ``flake8 --select=NPU``, ``analyse`` in every mode, ``-j 2``): exit status,
wall time, "Traceback" in the output (must be 0) and whether they hung (must be 0).
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from npu_lint.core import analyse_tree
from npu_lint.isolation import internal_error
from npu_lint.rules import all_rules
from npu_lint.sources import Unreadable, parse, read_source
from npu_lint.versions import Target, default_release

BIN = Path(sys.executable).parent


def in_process(roots: list[Path]) -> None:
    codes = frozenset(rule.code for rule in all_rules())
    target = Target(default_release())
    files = sorted({p for root in roots for p in root.rglob("*.py")})
    skipped: Counter[str] = Counter()
    escaped, internal, lines, slowest = [], [], 0, [(0.0, "")] * 5
    start = time.perf_counter()
    for path in files:
        began = time.process_time()   # CPU time per file: the machine may be shared
        try:
            source = read_source(path)
            lines += source.count("\n")
            tree = parse(source, path)
            analyse_tree(tree, source, target, codes)
        except Unreadable as error:
            skipped[str(error).split(":")[0].split(" (")[0]] += 1
        except Exception as error:  # noqa: BLE001 - check turns this into a skip; counted here
            internal.append(f"{path}: {internal_error(error)}")
        except BaseException as error:  # noqa: BLE001
            escaped.append(f"{path}: {type(error).__name__}")
        slowest = sorted(slowest + [(time.process_time() - began, str(path))], reverse=True)[:5]
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"in process: {len(files)} files, {lines} lines in {elapsed:.1f} s ({lines / elapsed / 1000:.1f} k lines/s),"
          f" peak RSS {peak:.0f} MB")
    print(f"  skipped {sum(skipped.values())}: {dict(skipped.most_common())}")
    print(f"  internal errors {len(internal)}, escaped {len(escaped)}")
    for line in internal[:10] + escaped[:10]:
        print("   ", line)
    print("  slowest files (CPU): " + "; ".join(f"{seconds:.2f} s {name}" for seconds, name in slowest))


def front_ends(root: Path, timeout: float) -> None:
    out = Path(tempfile.mkdtemp(prefix="npu-lint-scale-"))
    commands = [("check", ["npu-lint", "check", "--select", "NPU", "-q", str(root)]),
                ("flake8", ["flake8", "--select=NPU", "-j", "2", str(root)])]
    commands += [(f"analyse -m {mode} -j 2",
                  ["npu-lint", "analyse", "-i", str(root), "-o", str(out), "-m", mode, "-j", "2", "--force",
                   "--no-cache"])
                 for mode in ("torch_apis", "affinity_apis", "dynamic_shape")]
    try:
        for label, command in commands:
            began = time.perf_counter()
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            try:
                result = subprocess.run([str(BIN / command[0])] + command[1:], capture_output=True, text=True,
                                        errors="replace", stdin=subprocess.DEVNULL, timeout=timeout)
                status, tracebacks = result.returncode, (result.stdout + result.stderr).count("Traceback")
            except subprocess.TimeoutExpired:
                status, tracebacks = "HUNG", 0
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            print(f"  {root.name:<28} {label:<28} exit {status!s:<4} {time.perf_counter() - began:7.1f} s "
                  f"tracebacks {tracebacks} peak RSS {max(peak, before) / 1024:.0f} MB")
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--no-front-ends", action="store_true", help="only the in-process run")
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()
    in_process(args.roots)
    if not args.no_front_ends:
        print("front ends (subprocesses):")
        for root in args.roots:
            front_ends(root, args.timeout)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
