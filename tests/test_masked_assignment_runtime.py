"""NPU303's advice writes exactly the elements the original boolean-mask assignment writes.

For each form, the rule is run on the source, the advice is taken from the message (between backticks) and
both are executed on the same random CPU tensors, over masks of every rank the original accepts.
"""
from __future__ import annotations

import itertools
import math
import re

import pytest

from npu_lint.core import analyse_source

torch = pytest.importorskip("torch", reason="the runtime check of NPU303's advice needs torch (CI installs the CPU wheel)")

ADVICE = re.compile(r"keep the mask dense, `([^`]+)`")

# (statement, where the mask sits: "leading" dims from 0, dims from 1, or "trailing")
FORMS = [
    ("x[mask] = v", "leading"),
    ("x[~mask] = v", "leading"),
    ("x[a == b] = v", "leading"),
    ("x[:, mask] = v", "second"),
    ("x[:, :, mask] = v", "third"),
    ("x[..., mask] = v", "trailing"),
    ("x[mask, ...] = v", "leading"),
    ("x[x > v] = 0", "self"),
    ("x[(x < 0) & mask] = v", "self-and"),
]
VALUES = ["0", "-1.5", "float('-inf')", "v"]


def advice_for(statement: str) -> str:
    source = f"import torch\ndef f(x, mask, a, b, v):\n    {statement}\n"
    findings = [f for f in analyse_source(source, codes=frozenset({"NPU303"}))]
    assert len(findings) == 1, (statement, findings)
    match = ADVICE.search(findings[0].message)
    assert match, findings[0].message
    return match.group(1)


def mask_shapes(shape: tuple[int, ...], where: str):
    """Every mask shape the original indexing accepts for ``x`` of ``shape``."""
    n = len(shape)
    if where in ("leading", "self-and"):
        return [shape[:k] for k in range(1, n + 1)]
    if where == "second":
        return [shape[1:k] for k in range(2, n + 1)]
    if where == "third":
        return [shape[2:k] for k in range(3, n + 1)]
    if where == "trailing":
        return [shape[k:] for k in range(0, n)]
    return [shape]


@pytest.mark.parametrize("form, where", FORMS)
@pytest.mark.parametrize("value", VALUES)
def test_advice_writes_the_same_elements(form, where, value):
    statement = form if value == "v" or "= v" not in form else form.replace("= v", f"= {value}")
    if form == "x[x > v] = 0":
        statement = form
    advice = advice_for(statement)
    generator = torch.Generator().manual_seed(13)
    checked = 0
    for shape in [(5,), (4, 3), (3, 3), (2, 3, 4), (3, 2, 2, 3)]:
        for mshape in mask_shapes(shape, where):
            if where in ("second", "third") and not mshape:
                continue
            for _ in range(3):
                x = torch.randn(shape, generator=generator)
                x[tuple(0 for _ in shape)] = math.inf   # inf must stay inf where not written (no x *= ~mask)
                mask = torch.rand(mshape if where != "self" else shape, generator=generator) > 0.5
                if where == "self-and":
                    mask = torch.rand(shape, generator=generator) > 0.5
                a = torch.randint(0, 2, mask.shape, generator=generator)
                b = torch.randint(0, 2, mask.shape, generator=generator)
                v = torch.tensor(0.25) if value == "v" else 0.25
                expected = x.clone()
                exec(statement, {"torch": torch}, {"x": expected, "mask": mask, "a": a, "b": b, "v": v})
                actual = x.clone()
                exec(advice, {"torch": torch}, {"x": actual, "mask": mask, "a": a, "b": b, "v": v})
                assert torch.equal(actual, expected), (statement, advice, shape, tuple(mask.shape))
                checked += 1
    assert checked >= 9


def test_the_issue_forms_quote_their_own_index():
    for statement, index in (("scores[~mask] = 0.0", "~mask"), ("scores[labels == 0] = 0", "labels == 0"),
                             ("logits[:, mask] = -1e9", ":, mask")):
        source = f"import torch\ndef f(scores, logits, labels, mask):\n    {statement}\n"
        (finding,) = analyse_source(source, codes=frozenset({"NPU303"}))
        assert finding.message.startswith(statement)
        assert "*= ~mask" not in finding.message and index.split(", ")[-1] in ADVICE.search(finding.message).group(1)


def test_square_tensor_with_a_row_mask_is_not_filled_by_columns():
    """The case a plain ``x.masked_fill_(mask, v)`` gets silently wrong: rows selected, columns filled."""
    advice = advice_for("x[mask] = v")
    x = torch.arange(9.0).reshape(3, 3)
    mask = torch.tensor([True, False, False])
    expected, actual = x.clone(), x.clone()
    expected[mask] = 0
    exec(advice, {"torch": torch}, {"x": actual, "mask": mask, "v": 0})
    wrong = x.clone().masked_fill_(mask, 0)
    assert torch.equal(actual, expected) and not torch.equal(wrong, expected)
    assert list(itertools.chain(actual[0].tolist())) == [0, 0, 0]
