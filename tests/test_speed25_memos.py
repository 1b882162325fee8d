"""Memos and indexes of session 25 (speed25): each answers as the work it spares would, whatever was asked first."""
from __future__ import annotations

import ast
import bisect
import itertools
import random
import re

from npu_lint.analysis.call_lines import _call_index
from npu_lint.analysis.summaries_sizes import size_parameters
from npu_lint.resolver import Resolver

# a chain of helpers longer than size_parameters' depth bound, a cycle (g <-> h), and a helper reached from both
_HELPERS = """
import torch
def a(n):
    return b(n)
def b(n):
    return c(n)
def c(n):
    return d(n)
def d(n):
    return e(n)
def e(n):
    return torch.zeros(n)
def g(n, m):
    if m:
        return h(n, m - 1)
    return c(n)
def h(n, m):
    return g(n, m)
def k(n):
    return a(n) + g(n, 2) + torch.ones(n)
"""


def _functions(source):
    tree = ast.parse(source)
    resolver = Resolver()
    resolver.attach(tree)
    return resolver, {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


class _Recomputing(dict):
    """A store that keeps no depth-cut answer: every one is computed again, as before the memo."""

    def __setitem__(self, key, value):
        if not (isinstance(key, tuple) and key[0] == "depth"):
            super().__setitem__(key, value)


def test_depth_cut_answers_kept_are_the_answers_computed_again_in_every_order():
    names = list(_functions(_HELPERS)[1])
    kept_any = False
    for seed in range(12):
        random.Random(seed).shuffle(names)
        order = [name for name in names + names[::2] + names]
        answers = []
        for store in ({}, _Recomputing()):
            resolver, functions = _functions(_HELPERS)
            answers.append([size_parameters(functions[name], resolver, store) for name in order])
            kept_any = kept_any or any(isinstance(key, tuple) and key[0] == "depth" for key in store)
        assert answers[0] == answers[1], (seed, order)
    assert kept_any


def test_a_chain_past_the_bound_is_cut_whatever_was_asked_first():
    resolver, functions = _functions(_HELPERS)
    assert size_parameters(functions["e"], resolver, {}) == {"n": "zeros()"}
    resolver, functions = _functions(_HELPERS)
    assert size_parameters(functions["a"], resolver, {}) == {}   # a -> b -> c -> d -> e: past the bound
    resolver, functions = _functions(_HELPERS)
    store: dict = {}
    assert size_parameters(functions["b"], resolver, store) == {"n": "c(n) → d(n) → e(n) → zeros()"}
    assert size_parameters(functions["a"], resolver, store) == {}   # b's final answer does not fit one level down


def test_size_parameters_give_the_same_answers_in_every_order():
    names = list(_functions(_HELPERS)[1])
    alone = {}
    for name in names:   # each asked first, in a store of its own
        resolver, functions = _functions(_HELPERS)
        alone[name] = size_parameters(functions[name], resolver, {})
    for seed in range(12):
        random.Random(seed).shuffle(names)
        resolver, functions = _functions(_HELPERS)
        store: dict = {}
        for name in names + names:   # asked twice: the second time from the memo
            assert size_parameters(functions[name], resolver, store) == alone[name], (seed, name)


def _lines_by_find(source, line_ends, key):
    """``CallLines.lines_of``'s search one name at a time, as it stands before the index."""
    attribute, name, found = key.startswith("."), key.lstrip("."), []
    at = source.find(name)
    while at >= 0:
        end = at + len(name)
        before = source[at - 1] if at else " "
        if source[end:end + 8].lstrip(" \t").startswith("(") and not (before.isalnum() or before == "_") \
                and (before == ".") == attribute:
            found.append(bisect.bisect_right(line_ends, at) + 1)
        at = source.find(name, end)
    return found


def test_the_call_index_lists_the_lines_the_search_finds():
    source = ("x = f  (1)\ny=a.b\t\t(2); é(3); _a(4); 1f(5); f        (6); ab.ab(7)\nz=éa(1)+ аб(2) + x²(3)\n"
              "def f(a, b):\n    return a.f(b) + f(f(a)) + ff(a) + af (b)\n")
    line_ends = list(itertools.accumulate(len(line) + 1 for line in source.split("\n")))
    index = _call_index(source, line_ends)
    for name in set(re.findall(r"\w+", source)):
        for key in (name, "." + name):
            assert index.get((name, key.startswith(".")), []) == _lines_by_find(source, line_ends, key), key


def test_class_defs_lists_what_a_scan_of_every_class_finds():
    source = ("class A:\n    def f(self): pass\n    def f(self): return 1\n    async def g(self): pass\n"
              "class B(A):\n    f = 1\n    def g(self): pass\n"
              "if x:\n    class C(A):\n        def f(self): pass\nelse:\n    class C(B):\n        h = 2\n")
    resolver, _ = _functions(source)
    classes = resolver.scopes.class_nodes()
    assert [c.name for c in classes] == ["A", "B", "C", "C"]
    for name in ("f", "g", "h"):
        scanned = [(c, next(s for s in c.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                            and s.name == name)) for c in classes
                   if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in c.body)]
        assert resolver.scopes.class_defs(name) == scanned
