"""Compare ``npu-lint analyse -m third_party`` with the vendor analyser's output for the same library.

    python benchmarks/third_party_vs_vendor.py VENDOR_ANALYSIS_DIR OUR_ANALYSIS_DIR PACKAGE

Pairs are (leaf API, affected library API) from ``framework_unsupported_op.csv`` and ``cuda_op.csv``. The vendor
names a definition by its path relative to the folder it analysed (``layers.norm._layer_norm_cf`` for
``-i timm/timm``); those names get the package prefix (``timm.layers.norm._layer_norm_cf``) before comparing.
Prints the share of the vendor's pairs found in ours, the vendor pairs we miss and the count of pairs only we have.
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

FILES = ("framework_unsupported_op.csv", "cuda_op.csv")


def pairs(folder: Path, package: str) -> set[tuple[str, str]]:
    found = set()
    for name in FILES:
        path = folder / name
        if not path.is_file():
            continue
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            next(reader, None)
            for row in reader:
                if len(row) < 2:
                    continue
                for api in row[1].split():
                    if not api.startswith(package + "."):
                        api = f"{package}.{api}"
                    found.add((row[0], api))
    return found


def main(argv: list[str]) -> int:
    vendor_dir, ours_dir, package = Path(argv[0]), Path(argv[1]), argv[2]
    vendor, ours = pairs(vendor_dir, package), pairs(ours_dir, package)
    common = vendor & ours
    share = len(common) / len(vendor) if vendor else 1.0
    print(f"vendor pairs: {len(vendor)}, ours: {len(ours)}, vendor pairs found: {len(common)} ({share:.1%})")
    for leaf, api in sorted(vendor - ours):
        print(f"  missed: {leaf}  {api}")
    print(f"pairs only in ours: {len(ours - vendor)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
