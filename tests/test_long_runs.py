"""The trigger-word pre-filter over sources with very long identifier-like runs (a 10 MB string of one letter) gives
the answer of a plain substring search, and the collector-paused parse the same tree."""
from __future__ import annotations

import ast
import gc

import pytest

from npu_lint import collector
from npu_lint.core import Dispatch, all_rules, dispatch_for


def _plain(dispatch: Dispatch, source: str) -> tuple[int, ...]:
    return tuple(index for index, rule in enumerate(dispatch.instances)
                 if not getattr(rule, "triggers", None) or any(word in source for word in rule.triggers))


@pytest.mark.parametrize("run", ["a" * 5000, "ab_" * 3000 + "sigmoid" + "z" * 5000, "softplus" * 1000,
                                 "x" * 4097 + "cuda", "é" * 3000])
def test_long_runs_answer_as_a_substring_search(run: str) -> None:
    dispatch = dispatch_for(frozenset(rule.code for rule in all_rules()))
    source = f"import torch\nx = '{run}'\ny = other_name\n"
    assert dispatch._active(source) == _plain(dispatch, source)


def test_parse_pauses_the_collector_only_while_parsing() -> None:
    source = "import torch\ny = " + " * ".join(["torch.sigmoid(x)"] * 50) + "\n"
    assert gc.isenabled()
    assert ast.dump(collector.parse(source)) == ast.dump(ast.parse(source))
    assert gc.isenabled()
    with pytest.raises(SyntaxError):
        collector.parse("x = (\n")
    assert gc.isenabled()



def test_producers_per_local_name_are_capped() -> None:
    """Rebinds of one name with a call on it after each: the call facts grow linearly (each call on the name records
    one call per remembered producer, at most MAX_PRODUCERS), not quadratically; below the cap nothing changes."""
    from npu_lint.project.fact_bindings import MAX_PRODUCERS
    from npu_lint.project.facts import extract

    def calls(rounds: int) -> int:
        body = "".join("    p = helpers.make(p)\n    p.step()\n" for _ in range(rounds))
        source = "import helpers\ndef f(p):\n" + body
        facts = extract(ast.parse(source), "m", "m.py", False, source=source)
        return sum(len(function.calls) for function in facts.functions)

    assert calls(10) == 10 + sum(range(1, 11))           # the n-th step: one per producer so far (duplicates kept)
    assert calls(400) <= 400 * (MAX_PRODUCERS + 1)        # capped: 400 + 400 x 401 / 2 before
    assert calls(400) - calls(300) == 100 * (MAX_PRODUCERS + 1)
