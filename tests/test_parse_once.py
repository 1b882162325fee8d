"""``npu-lint analyse`` parses and binds each file once: the project index build hands its trees to the rule walk.

The index built for the report is light (no call graph); its facts are the full facts without calls and references.
"""
from __future__ import annotations

import ast
from pathlib import Path

import npu_lint.sources
from npu_lint.analysis.scopes import Scopes
from npu_lint.project.facts import extract
from npu_lint.project.modules import discover
from npu_lint.project.parsed import ParsedFiles
from npu_lint.report import collect as collect_module
from npu_lint.report.collect import collect
from npu_lint.versions import Target

FIXTURE = Path(__file__).parent / "project_fixture"
FIXLIB = Path(__file__).parent / "third_party_fixtures" / "fixlib"


def _kept(source: str) -> tuple[ast.Module, Scopes]:
    tree = ast.parse(source)
    return tree, Scopes(tree)


def test_a_kept_file_is_handed_back_once_and_only_for_the_same_source(tmp_path):
    store, path = ParsedFiles(), tmp_path / "m.py"
    tree, scopes = _kept("import torch\nx = torch.ones(2)\n")
    store.put(path, "import torch\nx = torch.ones(2)\n", tree, scopes)
    assert store.take(path, "import torch\nx = torch.ones(2)\n") == (tree, scopes)
    assert store.take(path, "import torch\nx = torch.ones(2)\n") is None   # taken: freed from the store
    store.put(path, "a = 1\n", *_kept("a = 1\n"))
    assert store.take(path, "a = 2\n") is None   # the file changed since the index read it
    assert len(store) == 0


def test_the_budget_bounds_what_is_kept(tmp_path):
    store = ParsedFiles(budget=10)
    store.put(tmp_path / "a.py", "x = 1\n", *_kept("x = 1\n"))
    assert not store.wants("y = 22222\n")
    store.put(tmp_path / "b.py", "y = 22222\n", *_kept("y = 22222\n"))   # over the budget: not kept
    assert len(store) == 1 and store.take(tmp_path / "b.py", "y = 22222\n") is None
    store.clear()
    assert len(store) == 0 and store.wants("y = 22222\n")


def test_collect_parses_each_file_once(monkeypatch):
    parsed: list[str] = []
    original = ast.parse

    def counting(source, filename="<unknown>", *args, **kwargs):
        if (args[:1] or (kwargs.get("mode"),))[0] != "eval" and str(filename).startswith(str(FIXTURE)):
            parsed.append(str(filename))   # (a string annotation is an expression, not a file; pytest's assertion
            #                                 rewriter parses ``npu_lint/rules/test_scope.py`` when it is first imported)
        return original(source, filename, *args, **kwargs)

    monkeypatch.setattr(npu_lint.sources.ast, "parse", counting)
    result = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    python = sorted(p for p in FIXTURE.rglob("*.py"))
    assert sorted(parsed) == sorted(str(p) for p in python)   # once each: by the index build, none by the walk
    assert len(result.files) == len(python) and result.findings
    assert len(collect_module._PARSED) == 0   # nothing left behind


def test_collect_without_kept_trees_finds_the_same(monkeypatch):
    kept = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    monkeypatch.setattr(collect_module, "_PARSED", ParsedFiles(budget=0))   # every file parsed again by the walk
    again = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    assert kept.findings == again.findings and kept.inventory == again.inventory


def test_light_facts_are_the_full_facts_without_the_call_graph():
    for root in (FIXTURE / "detkit", FIXLIB):
        for module in discover(root)[0]:
            tree = ast.parse(module.path.read_text(encoding="utf-8"))
            full = extract(tree, module.name, module.relative, module.is_package)
            light = extract(tree, module.name, module.relative, module.is_package, Scopes(tree), True)
            assert light.functions and all(not f.calls and not f.refs for f in light.functions) \
                or not full.functions
            assert light == full._replace(
                functions=tuple(f._replace(calls=(), refs=()) for f in full.functions), unresolved=0,
                unknown_receivers=0), module.relative


def test_a_large_tree_keeps_a_shrinking_share_of_its_trees() -> None:
    store = ParsedFiles(budget=1_000)
    store.plan(800)          # the whole tree fits: all of it is kept
    assert store.budget == 1_000
    store.plan(4_000)        # four times the budget: a quarter of it
    assert store.budget == 250
    store.plan(900)          # the next tree of the same process starts from the base again
    assert store.budget == 1_000
