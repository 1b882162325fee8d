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


def test_a_provisional_answer_is_reused_until_the_cycle_it_read_closes():
    """h -> a -> h (None) and h -> b -> a: a is computed once inside h (its provisional answer reused, itself
    provisional for b), then dropped when h ends: asked alone later, it is computed again and kept."""
    store: dict = {}
    calls: list[str] = []

    def h():
        calls.append("h")
        return (memo(store, "a", a), memo(store, "b", b))

    def a():
        calls.append("a")
        return ("a", memo(store, "h", h))

    def b():
        calls.append("b")
        return ("b", memo(store, "a", a))

    assert memo(store, "h", h) == (("a", None), ("b", ("a", None)))
    assert calls == ["h", "a", "b"] and "h" in store and "a" not in store and "b" not in store
    assert memo(store, "a", a)[1] == store["h"] and calls[-1] == "a" and "a" in store


def test_no_path_enumeration_through_a_loop_of_conditional_rebinds():
    """torch_geometric's ``BasicGNN.forward``: ``x`` rebound under a chain of ``if``s in a loop, every binding
    reaching every other; each binding read a cycle's None, and asked again through each path (2**k paths for k
    ``if``s) it was computed again: minutes for 10. The answer still comes through the chain."""
    from conftest import flows
    body = "".join(f"        if flags[{i}]:\n            n = conv(n, {i})\n" for i in range(24))
    source = ("import torch\ndef f(convs, mask, flags):\n    n = 0\n    for conv in convs:\n" + body
              + "        if flags[-1]:\n            n = int(mask.sum())\n    probe(n)\n")
    assert flows(source) == [("host", "int(mask.sum())")]
