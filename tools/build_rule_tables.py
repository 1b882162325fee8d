"""Regenerate ``rule_tables/`` from the upstream fact tables.

Usage: ``python tools/build_rule_tables.py [--data ../shared/data] [--out rule_tables]``

The output is deterministic: running it twice gives byte-identical files, and
``tests/test_rule_tables.py`` checks that the committed tables equal a fresh build.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import advice_tables  # noqa: E402
import batcher_tables  # noqa: E402
import affinity_tables  # noqa: E402
import class_default_tables  # noqa: E402
import cuda_tables  # noqa: E402
import dynamic_tables  # noqa: E402
import joiner_tables  # noqa: E402
import library_tables  # noqa: E402
import natural_size_tables  # noqa: E402
import size_tables  # noqa: E402
import support_tables  # noqa: E402

REPO = HERE.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
RELEASES = support_tables.RELEASES


def build(data_dir: Path, out_dir: Path) -> list[Path]:
    """Write every table into ``out_dir``; return the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = cuda_tables.build(data_dir, out_dir) + advice_tables.build(data_dir, out_dir)
    written += affinity_tables.build(data_dir, out_dir)
    written += dynamic_tables.build(data_dir, out_dir)
    written += size_tables.build(out_dir)
    written += natural_size_tables.build(out_dir)
    written += library_tables.build(out_dir)
    written += batcher_tables.build(out_dir)
    written += joiner_tables.build(out_dir)
    written += class_default_tables.build(out_dir)
    versions = out_dir / "versions.txt"
    versions.write_text("\n".join(RELEASES) + "\n", encoding="utf-8")
    written.append(versions)
    written.extend(support_tables.build(data_dir, out_dir))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the upstream data folder")
    parser.add_argument("--out", type=Path, default=REPO / "rule_tables", help="where to write the tables")
    args = parser.parse_args(argv)
    if not (args.data / "rules" / "cuda_table.csv").is_file():
        print(f"build_rule_tables: no upstream data at {args.data}", file=sys.stderr)
        return 2
    for path in build(args.data, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
