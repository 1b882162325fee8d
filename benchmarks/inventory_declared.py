"""API inventory names on what the code declares (issue 10): must rows found and wrong rows avoided.

``benchmarks/inventory_declared/project`` is a small RL package written after the patterns the held-out
measurement missed (NamedTuple fields annotated ``th.Tensor``, ``-> tuple[th.Tensor, ...]`` unpacked across
modules, ``isinstance`` narrowing, optimizers and ``policy: ActorCriticPolicy`` declared in a base class of another
module, ``GradScaler() if amp else None``, loops over ``tuple[Tensor, ...]``, chained tensor methods) and the wrong
rows (a ``-> np.ndarray`` method, a project class's ``expand``, ``self._wandb.log``, ``torch.default_generator``).
``labels.tsv``: file, line, API, ``+`` (a row the inventory must hold) or ``-`` (one it must not), pattern.

    python benchmarks/inventory_declared.py        # prints misses and the two figures
"""
from __future__ import annotations

import csv
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent / "inventory_declared"


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "-m", "npu_lint", "analyse", "-i", str(HERE / "project"), "-o", out,
                        "-v", "2.8.0", "--no-cache", "-q"], check=True)
        with open(Path(out) / "project_analysis" / "api_inventory.csv", encoding="utf-8") as handle:
            rows = {(row["File"], int(row["Start Line"]), row["API"]) for row in csv.DictReader(handle)}
    must = found = must_not = avoided = 0
    for line in (HERE / "labels.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        path, number, api, sign, pattern = line.split("\t")
        hit = (path, int(number), api) in rows
        if sign == "+":
            must, found = must + 1, found + hit
        else:
            must_not, avoided = must_not + 1, avoided + (not hit)
        if hit != (sign == "+"):
            print("MISS" if sign == "+" else "WRONG", path, number, api, "|", pattern)
    print(f"must rows found {found}/{must}; wrong rows avoided {avoided}/{must_not}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
