"""The text pre-filter of ``used_as_tensor`` (analysis/usage.py): the names that may receive a tensor-only method,
read from a function's source before its body is walked. A superset of what the walk finds, never fewer."""
from __future__ import annotations

import ast

from npu_lint.analysis.usage import candidate_names, tensor_method_receivers


def names(source: str) -> tuple[frozenset, set]:
    function = ast.parse(source).body[0]
    return candidate_names(function, source, {}) or frozenset(), set(tensor_method_receivers(function))


def test_a_receiver_across_a_comment_line_is_a_candidate():
    source = "def f(x, y):\n    z = (x.  # note\n         unsqueeze(1))\n    return y.unsqueeze(-1), z\n"
    found, walked = names(source)
    assert walked == {"x", "y"} and walked <= found


def test_sentences_of_comments_ending_in_dots_add_no_names():
    # joeynmt's search.py: a block of comment lines after a full stop once backtracked exponentially in the
    # pattern; its comments are no receivers (the comment's own words are never read as methods)
    source = ("def f(x):\n" + "    # Place back the batch size here.\n" * 12 + "    # unsqueeze it first.\n"
              "    return x.sum()\n")
    found, walked = names(source)
    assert walked == set() and "it" not in found and "here" not in found
