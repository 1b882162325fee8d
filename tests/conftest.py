"""Shared helpers: the repository paths, the installed command-line tools and the data-flow probe."""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pytest

from npu_lint.context import FileContext
from npu_lint.core import Dispatch, _walk
from npu_lint.rules import Rule
from npu_lint.versions import Target

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    """The console script installed beside this interpreter (the venv under test)."""
    found = BIN / name
    if found.exists():
        return str(found)
    other = shutil.which(name)
    if other is None:
        pytest.skip(f"{name} is not installed")
    return other


def run(args: Sequence[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=600, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def _own_user_cache(tmp_path_factory):
    """``npu-lint check`` keeps project indexes in the user cache: the suite uses a folder of its own (inherited
    by every subprocess), so it neither reads nor fills the cache of whoever runs it."""
    if "NPU_LINT_CACHE_DIR" not in os.environ:
        os.environ["NPU_LINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("npu-lint-cache"))
    yield


FORMULA_PREFIXES = ("=", "+", "-", "@")


def unsafe_csv_cells(folder: Path) -> list[str]:
    """Cells of the report CSVs under ``folder`` (``*_analysis/**/*.csv``) that a spreadsheet could take for a
    formula, and records whose width differs from the header's: empty when every CSV is safe."""
    import csv
    problems = []
    for path in sorted(folder.rglob("*_analysis/**/*.csv")):
        if path.name == "msft_dynamic_shape_analysis_report.csv":
            continue   # written by the detector at runtime, in the user's process
        with path.open(newline="", encoding="utf-8", errors="replace") as handle:
            records = list(csv.reader(handle))
        for record in records:
            if len(record) != len(records[0]):
                problems.append(f"{path.name}: record of {len(record)} cells: {record!r}")
            problems.extend(f"{path.name}: {cell!r}" for cell in record
                            if cell.lstrip().startswith(FORMULA_PREFIXES) and cell.strip() != "-")
    return problems


@pytest.fixture(autouse=True)
def _every_report_csv_is_safe(request):
    """After every test that used a temporary folder: every report CSV written there reads back as records of the
    header's width with no formula prefix (issue 11)."""
    folder = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if folder is not None:
        problems = unsafe_csv_cells(folder)
        assert not problems, problems[:5]


def flows(source: str) -> list[tuple[str, str]]:
    """(flavour, source text) of what the argument of the last ``probe(x)`` call may carry."""
    seen: list[list[tuple[str, str]]] = []

    class Spy(Rule):
        code, node_types = "NPU995", (ast.Call,)

        def check(self, node, ctx):
            if isinstance(node.func, ast.Name) and node.func.id == "probe":
                seen.append([(flavour, ast.unparse(origin)) for flavour, origin in ctx.resolver.flows(node.args[0])])

    ctx = FileContext(source, Target("2.8.0"))
    _walk(ast.parse(source), ctx, Dispatch([Spy]))
    assert seen, "no probe() call"
    return seen[-1]


def _collect_package(tmp_path: Path, modules: dict[str, str]):
    """``analyse``'s collection (index built) over a package ``pkg`` made of ``modules`` (name -> source)."""
    from npu_lint.report.collect import collect
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name, source in modules.items():
        (package / f"{name}.py").write_text(source, encoding="utf-8")
    return collect(tmp_path, Target("2.8.0"), lambda *args: None)


def package_inventory(tmp_path: Path, modules: dict[str, str]) -> set[tuple[str, int, str]]:
    """``analyse``'s API inventory of a package ``pkg`` made of ``modules`` under ``tmp_path``:
    (file, line, qualified name) rows."""
    result = _collect_package(tmp_path, modules)
    return {(path, line, api) for path, line, _, api, _ in result.inventory}


def package_findings(tmp_path: Path, modules: dict[str, str]) -> list[tuple[str, int, str]]:
    """``analyse``'s findings over a package ``pkg`` made of ``modules`` under ``tmp_path``: (file name, line,
    code)."""
    result = _collect_package(tmp_path, modules)
    return [(path.rsplit("/", 1)[-1], f.line, f.code) for path, f in result.findings]
