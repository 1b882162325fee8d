"""Build ``rule_tables/random_size_transforms.tsv`` (NPU411): library transform classes that draw an output size
per call, one row per spelling of each class listed in ``tools/curated/random_size_transforms.csv``.

Every curated row is checked against the library's source: the class must be defined in the named file and one of
its methods must draw a random number (``torch.rand*``, ``random.*``, ``numpy.random.*``); the first draw's line
is the row's evidence. A spelling is the defining module and every ``__init__`` of the package that re-exports the
class. Usage::

    python tools/transform_tables.py --source torchvision==0.29.1=/path/to/torchvision \
        --source mmcv==2.2.0=/path/to/mmcv [--out rule_tables]

(each path is the package folder, e.g. unpacked from its wheel). The output is deterministic.
"""
from __future__ import annotations

import argparse
import ast
import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CURATED = HERE / "curated" / "random_size_transforms.csv"
HEADER = "api\tregistry\twhy\tdraw\tsource"
_DRAW_MODULES = ("random.", "numpy.random.", "np.random.")
_DRAW_TORCH = frozenset({"torch.rand", "torch.randint", "torch.randn", "torch.randperm", "torch.multinomial",
                         "torch.bernoulli", "torch.normal"})


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def first_draw(cls: ast.ClassDef) -> ast.Call | None:
    """The first call in the class's methods that draws a random number, in source order."""
    draws = []
    for node in ast.walk(cls):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name.startswith(_DRAW_MODULES) or name in _DRAW_TORCH or (
                    isinstance(node.func, ast.Attribute) and node.func.attr in ("uniform_", "random_", "normal_")):
                draws.append(node)
    return min(draws, key=lambda n: (n.lineno, n.col_offset)) if draws else None


def _reexports(package: Path, package_name: str, module: str, cls: str) -> list[str]:
    """Modules of the package whose ``__init__`` imports ``cls`` from ``module`` (relative or absolute)."""
    found = []
    for init in sorted(package.rglob("__init__.py")):
        relative = init.parent.relative_to(package)
        importer = ".".join((package_name, *relative.parts))
        tree = ast.parse(init.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom) or not any(a.name == cls and a.asname in (None, cls)
                                                                 for a in node.names):
                continue
            if node.level:
                base = importer.split(".")[:len(importer.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source == module:
                found.append(f"{importer}.{cls}")
    return found


def build(sources: dict[str, tuple[str, Path]], out_dir: Path) -> list[Path]:
    with CURATED.open(newline="", encoding="utf-8") as handle:
        curated = list(csv.DictReader(handle))
    rows = set()
    for entry in curated:
        if entry["package"] not in sources:
            raise SystemExit(f"transform_tables: no --source for {entry['package']} (row {entry['api']})")
        version, package = sources[entry["package"]]
        path = package / entry["file"]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == entry["class"]), None)
        if cls is None:
            raise SystemExit(f"transform_tables: {entry['package']} {entry['file']} defines no class {entry['class']}")
        draw = first_draw(cls)
        if draw is None:
            raise SystemExit(f"transform_tables: {entry['class']} in {entry['file']} draws no random number")
        module = ".".join((entry["package"], *Path(entry["file"]).with_suffix("").parts))
        spellings = {f"{module}.{entry['class']}", entry["api"], *_reexports(package, entry["package"], module,
                                                                            entry["class"])}
        evidence = f"{entry['package']}=={version}:{entry['file']}:{draw.lineno}"
        for api in spellings:
            rows.add((api, entry["registry"], entry["evidence"], ast.unparse(draw)[:80], evidence))
    out = out_dir / "random_size_transforms.tsv"
    lines = [HEADER] + ["\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in row) for row in sorted(rows)]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [out]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", action="append", default=[], metavar="PACKAGE==VERSION=PATH",
                        help="a library's package folder, with its name and version")
    parser.add_argument("--out", type=Path, default=HERE.parent / "rule_tables")
    args = parser.parse_args(argv)
    sources = {}
    for spec in args.source:
        name, _, rest = spec.partition("==")
        version, _, path = rest.partition("=")
        if not name or not version or not Path(path).is_dir():
            print(f"transform_tables: bad --source {spec!r} (PACKAGE==VERSION=FOLDER)", file=sys.stderr)
            return 2
        sources[name] = (version, Path(path))
    for path in build(sources, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
