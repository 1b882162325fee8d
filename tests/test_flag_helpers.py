"""NPU401 at the calls of the file's helpers: not when the data-dependent op runs only under ``if flag:`` of a
parameter defaulting to ``False`` that the call leaves off (the op itself is still reported where it stands)."""
from __future__ import annotations

from npu_lint.core import analyse_source

HELPER = ("import torch\n\n\nclass Windows:\n    def expand(self, idx, unique=False, merge=False):\n"
          "        if merge:\n            return torch.unique(idx)\n"
          "        if unique:\n            idx = torch.unique(idx)\n        return idx\n\n")


def _lines(calls: str) -> list[int]:
    return [f.line for f in analyse_source(HELPER + calls, codes=frozenset({"NPU401"}))]


def test_a_call_that_leaves_the_flags_off_is_quiet():
    assert _lines("    def overlap(self, a):\n        return self.expand(a), self.expand(a, False)\n") == [7, 9]


def test_a_call_that_sets_a_flag_reaches_the_op():
    found = _lines("    def overlap(self, a, u):\n        return self.expand(a, unique=u), self.expand(a, merge=True)\n"
                   "    def spread(self, a, **kw):\n        return self.expand(a, **kw)\n")
    assert found == [7, 9]   # the calls reach the ops (13, 13, 15) but repeat them: reported once, where they stand
