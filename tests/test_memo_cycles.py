"""The model's memo: an answer computed from a cycle's provisional None is not kept, so no answer depends on the
order the questions came in (asked inside a cycle first, or alone later)."""
from __future__ import annotations

from npu_lint.analysis.summaries import memo


def _kinds(store: dict, calls: list[str]):
    """``a`` is a tensor when ``b`` is not None; ``b`` is what ``a`` is (a cycle through both)."""
    def a():
        calls.append("a")
        memo(store, "b", b)
        return "tensor"

    def b():
        calls.append("b")
        return memo(store, "a", a)
    return a, b


def test_an_answer_read_from_a_cycle_is_recomputed_when_asked_alone():
    store: dict = {}
    calls: list[str] = []
    a, b = _kinds(store, calls)
    assert memo(store, "a", a) == "tensor"      # a -> b -> a (in progress: None) -> b = None -> a = tensor
    assert "a" in store and "b" not in store     # b read a's provisional None: not kept
    assert memo(store, "b", b) == "tensor"       # asked alone, after the cycle closed: a's answer
    assert memo(store, "b", b) == "tensor" and calls == ["a", "b", "b"]   # now kept


def test_the_same_answers_in_either_order():
    first: dict = {}
    a, b = _kinds(first, [])
    a_first = (memo(first, "a", a), memo(first, "b", b))
    second: dict = {}
    a, b = _kinds(second, [])
    b_first = memo(second, "b", b)   # b -> a -> b (None) -> a = tensor -> b = tensor (the cycle's root is kept)
    assert a_first == ("tensor", "tensor") and (memo(second, "a", a), b_first) == a_first
