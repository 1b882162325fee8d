"""The indexed lookups of long binding lists (hostile files: 1,600 rebinds of one name) give the answers the plain
scans give: every use of every name in generated modules, looked up and asked ``may_reach`` both ways."""
from __future__ import annotations

import ast
import random

import pytest

from npu_lint.analysis import scopes as scopes_module
from npu_lint.analysis.scopes import Scopes


def _program(seed: int) -> str:
    rng = random.Random(seed)
    names = ["x", "y", "z"]

    def block(depth: int) -> list[str]:
        out = []
        for _ in range(rng.randint(1, 12 if depth else 40)):
            kind, name, other = rng.random(), rng.choice(names), rng.choice(names)
            if kind < 0.3:
                out.append(f"{name} = {other} + 1")
            elif kind < 0.4:
                out.append(f"{name} = None")
            elif kind < 0.45:
                out.append(f"del {name}")
            elif kind < 0.5:
                out.append(f"{name} += a")
            elif kind < 0.55:
                out.append(f"g = {name}")
            elif kind < 0.75 and depth < 3:
                head = rng.choice([f"if {name}:", f"for {name} in a:", f"while {name}:"])
                out.append(head)
                out.extend("    " + text for text in block(depth + 1))
                if head.startswith("if") and rng.random() < 0.5:
                    out.append("else:")
                    out.extend("    " + text for text in block(depth + 1))
            else:
                out.append(f"print({name}, {other})")
        return out

    lines = ["def f(a):", "    global g", *("    " + text for text in block(0)), "g = 1"]
    return "\n".join(lines) + "\n"


def _answers(tree: ast.AST) -> list:
    scopes = Scopes(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for scope in scopes.by_node.values():
                pos = (node.lineno, node.col_offset)
                found.append((node.id, scope.kind, pos, id(scopes.lookup(node.id, scope, pos)),
                              [id(b) for b in scopes.may_reach(node.id, scope, pos)],
                              [id(b) for b in scopes.lookup(node.id, scope, None) and [scopes.lookup(node.id, scope, None)] or []]))
    return found, scopes


@pytest.mark.parametrize("seed", range(40))
def test_indexed_lookups_are_the_scans(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        tree = ast.parse(_program(seed))
    except SyntaxError:
        pytest.skip("generated an invalid program")
    monkeypatch.setattr(scopes_module, "_INDEXED", 10 ** 9)
    plain, kept = _answers(tree)
    monkeypatch.setattr(scopes_module, "_INDEXED", 0)
    indexed, kept2 = _answers(tree)
    # the ids differ between two Scopes; compare by position of each binding instead
    def norm(rows, scopes):
        by_id = {id(b): (b.name, b.tag, b.pos) for s in scopes.by_node.values() for bs in
                 (*s.names.values(), *s.augments.values()) for b in bs}
        return [(n, k, p, by_id.get(one), [by_id.get(i) for i in many], [by_id.get(i) for i in late])
                for n, k, p, one, many, late in rows]
    assert norm(plain, kept) == norm(indexed, kept2)
