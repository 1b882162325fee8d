"""Gates and memos of session 33 (speed33): each answers as the work it spares would."""
from __future__ import annotations

import ast
import re

import pytest

from npu_lint.analysis import budget_batches
from npu_lint.analysis.usage import _copied, copies_of
from npu_lint.core import analyse_source


def _searched(name: str, text: str) -> bool:   # the per-name search ``_copied`` replaces
    return re.search(r"=\s*" + re.escape(name) + r"\s*(?:$|[\n#;)])", text, re.M) is not None


TEXTS = [
    "def f(mask):\n    m = mask\n    k == keep)\n    a = b  # c\n    x=y;z = w\n    p = q2\n    r = s.t\n",
    "def f(a):\n    b = (\n        a\n    )\n    c = a_b\n    d = \u00e9t\u00e9\n    e ==f\n",
    "def f():\n    return g(x=mask)\n",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("name", ["mask", "m", "keep", "b", "y", "w", "q", "q2", "t", "s.t", "a", "a_b",
                                  "\u00e9t\u00e9", "f", "x"])
def test_copied_names_are_the_per_name_search(text, name):
    assert _copied(object(), name, text, {}) is _searched(name, text)


def test_copies_of_one_walk_answers_each_name_in_the_walk_order():
    source = ("def f(mask, keep):\n    a = mask\n    if keep:\n        b = mask\n    c = keep\n    a2 = a\n"
              "    def inner():\n        d = mask\n")
    function = ast.parse(source).body[0]
    store: dict = {}
    alone = {name: copies_of(function, name, {}, source) for name in ("mask", "keep", "a", "x")}
    assert alone["mask"] == ("b", "a") and alone["keep"] == ("c",) and alone["x"] == ()
    for name in ("keep", "mask", "x", "a"):   # asked in another order, through one store
        assert copies_of(function, name, store, source) == alone[name]


def test_an_if_whose_arms_start_no_batch_is_passed_over_as_the_walk_of_its_arms_would():
    arm = ast.parse("if c:\n    x = 1\n    y = 2\nelse:\n    z = 3\n").body[0]
    assert budget_batches._holds(arm.body, [2]) and budget_batches._holds(arm.body, [1, 3])
    assert not budget_batches._holds(arm.body, [1, 4, 5]) and budget_batches._holds(arm.orelse, [5])
    assert not budget_batches._holds([], [1])


BUDGET = ("import torch\ndef batches(items, max_tokens):\n    batch, longest = [], 0\n    for x in items:\n"
          "        if n > 0:\n            pass\n        longest = max(longest, len(x))\n"
          "        if longest * (len(batch) + 1) > max_tokens:\n            yield batch\n"
          "            batch, longest = [], len(x)\n        batch.append(x)\n")


def test_a_budget_closed_after_an_unrelated_if_still_fires():
    assert [f.code for f in analyse_source(BUDGET)] == ["NPU418"]


def test_a_budget_gathered_by_a_closure_still_fires():
    source = ("import torch\ndef batches(items, max_tokens):\n    buf, max_len = [], 0\n    def flush():\n"
              "        nonlocal buf\n        out.append(buf)\n        buf = []\n    out = []\n    for x in items:\n"
              "        max_len = max(max_len, len(x))\n        if max_len * (len(buf) + 1) > max_tokens:\n"
              "            flush()\n        buf.append(x)\n    return out\n")
    direct = budget_batches.budget_test(ast.parse(source).body[1])
    assert direct is not None   # the closure's ``append`` is inside the function's lines
    assert "NPU418" in [f.code for f in analyse_source(source)]


def test_a_function_that_never_says_append_gathers_no_batch():
    source = BUDGET.replace("batch.append(x)", "batch += [x]")
    assert budget_batches.budget_test(ast.parse(source).body[1]) is None
    assert "NPU418" not in [f.code for f in analyse_source(source)]
