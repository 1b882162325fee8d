"""The model's summary of steps that grow their input (``analysis/step_growth.py``) and the calls that run them."""
from __future__ import annotations

import ast
import textwrap
from typing import Optional

import pytest

from npu_lint.resolver import Resolver


def _model(source: str) -> tuple[Resolver, ast.Module]:
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    resolver = Resolver()
    resolver.source = source
    resolver.attach(tree)
    return resolver, tree


def _function(tree: ast.AST, name: str) -> ast.FunctionDef:
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def _grown(source: str, name: str = "step") -> Optional[tuple[int, str, int, list[int]]]:
    resolver, tree = _model("import torch\n" + textwrap.dedent(source))
    growth = resolver.grown_parameter(_function(tree, name))
    return None if growth is None else (growth.parameter, growth.name, growth.position,
                                        [c.lineno for c in growth.cats])


@pytest.mark.parametrize("source, expected", [
    ("def step(xs, x):\n    x = torch.tensor([x])\n    return torch.cat((xs, x))\n", (0, "xs", -1, [4])),
    ("def step(self, tokens, logits):\n    tokens = torch.cat([tokens, logits.argmax(-1)[:, None]], dim=-1)\n"
     "    return tokens, (tokens[:, -1] == 0).all()\n", (1, "tokens", 0, [3])),
    ("def step(seqs, idx, tok):\n    return torch.cat([seqs[idx], tok.view(-1, 1)], 1)\n", (0, "seqs", -1, [3])),
    # an early exit returns the parameter unchanged
    ("def step(ys, y, done):\n    if done:\n        return ys\n    return torch.cat([ys, y.view(1)])\n",
     (0, "ys", -1, [5])),
    # two parameters joined: the first grows when the result is fed back to it (session 22, growth22: a decode
    # loop's ``ys = join(ys, model(ys))``)
    ("def step(a, b):\n    return torch.cat([a, b])\n", (0, "a", -1, [3])),
])
def test_grown_parameter(source: str, expected: tuple) -> None:
    assert _grown(source) == expected


@pytest.mark.parametrize("source", [
    "def step(a, b):\n    return torch.cat([a, a])\n",                      # doubled, not a step
    "def step(a, b):\n    return torch.cat([a, b.view(1)])[-8:]\n",         # cut after growing
    "def step(a, b):\n    a = torch.cat([a, b.view(1)])\n    a = a[-8:]\n    return a\n",
    "def step(a, b):\n    if b is None:\n        return torch.zeros(3)\n    return torch.cat([a, b.view(1)])\n",
    "def step(a, b):\n    return np.concatenate([a, b.reshape(1)])\n",      # no torch concatenation
    "def step(a, b):\n    torch.cat([a, b.view(1)])\n",                      # nothing returned
])
def test_no_grown_parameter(source: str) -> None:
    assert _grown(source) is None


def test_runs_through_held_instances() -> None:
    resolver, tree = _model("""
        import torch
        class Base:
            def update(self, tokens, logits):
                raise NotImplementedError
        class Greedy(Base):
            def update(self, tokens, logits):
                return torch.cat([tokens, logits.argmax(-1, keepdim=True)], -1), True
        class Beam(Base):
            pass
        class Other:
            def update(self, tokens, logits):
                return tokens, True
        class Task:
            def __init__(self, beam):
                if beam:
                    self.decoder = Beam()
                else:
                    self.decoder = Greedy()
                self.other = Other()
            def loop(self, tokens, n):
                for _ in range(n):
                    tokens, done = self.decoder.update(tokens, self.model(tokens))
                    self.other.update(tokens, None)
                return tokens
    """)
    greedy = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Greedy")
    runs = resolver.runs(_function(greedy, "update"))
    assert [(call.lineno, offset) for call, _, offset in runs] == [(23, 1)]
    base = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Base")
    assert [call.lineno for call, _, _ in resolver.runs(_function(base, "update"))] == [23]   # Beam inherits it
    other = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Other")
    assert [call.lineno for call, _, _ in resolver.runs(_function(other, "update"))] == [24]


def test_runs_of_a_static_method() -> None:
    resolver, tree = _model("""
        import torch
        class Search:
            @staticmethod
            def append_token(xs, x):
                return torch.cat((xs, x.view(1)))
            def run(self, hyps):
                return [h._replace(yseq=self.append_token(h.yseq, 1)) for h in hyps]
    """)
    runs = resolver.runs(_function(tree, "append_token"))
    assert [(call.lineno, offset) for call, _, offset in runs] == [(8, 0)]


def test_runs_through_an_attribute_holding_either_class() -> None:
    """``self.decoder = Greedy() if greedy else Beam()``: the calls reach the method of each arm's class."""
    source = ("import torch\n"
              "class Greedy:\n"
              "    def update(self, tokens, logits):\n"
              "        return torch.cat([tokens, logits.argmax(-1)[:, None]], -1)\n"
              "class Beam:\n"
              "    def update(self, tokens, logits):\n"
              "        return torch.cat([tokens, logits.argmax(-1)[:, None]], -1)\n"
              "class Task:\n"
              "    def __init__(self, greedy):\n"
              "        self.decoder = Greedy() if greedy else Beam()\n"
              "    def run(self, tokens, logits):\n"
              "        for _ in range(8):\n"
              "            tokens = self.decoder.update(tokens, logits)\n"
              "        return tokens\n")
    resolver, tree = _model(source)
    greedy, beam = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "update"]
    assert [call.lineno for call, _, _ in resolver.runs(greedy)] == [13]
    assert [call.lineno for call, _, _ in resolver.runs(beam)] == [13]
