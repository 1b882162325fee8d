"""NPU409 on the batch a collate path builds: the helpers and batching classes a collate function hands its samples
to (rules/collate_handoffs.py) and numpy concatenations that become the batch (rules/host_batches.py)."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source

HEAD = "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\n"
TAIL = "loader = DataLoader(ds, collate_fn=collate)\n"


def _lines(source: str) -> list[int]:
    return sorted(f.line for f in analyse_source(HEAD + source + TAIL, codes=frozenset({"NPU409"})))


def test_samples_handed_down_two_helpers():
    source = ("def inner(items):\n    return torch.cat([i['x'] for i in items])\n"        # line 5
              "def outer(parts):\n    return inner(parts)\n"
              "def collate(samples):\n    return outer(sorted(samples, key=len))\n")
    assert _lines(source) == [5]


def test_helper_given_something_else_or_calling_back_is_quiet():
    """The handoff path names no collate here; since session 21 the inverted path (rules/inverted_joins.py) reports
    the helper's own join of its parameter's items, whoever calls it: one finding, not the handoff's."""
    source = ("def helper(items):\n    return torch.cat([i['x'] for i in items])\n"
              "def again(samples):\n    return collate(samples)\n"
              "def collate(samples):\n    again(samples)\n    return helper(cache)\n")
    found = analyse_source(HEAD + source + TAIL, codes=frozenset({"NPU409"}))
    assert [f.line for f in found] == [5]
    assert "the function is given" in found[0].message and "hands to" not in found[0].message


@pytest.mark.parametrize("use,fires", [
    ("    return torch.from_numpy(x)\n", True),
    ("    return {'x': x, 'n': len(samples)}\n", True),
    ("    out = {}\n    out['x'] = x.astype(np.int64)\n    return out\n", True),
    ("    return torch.as_tensor(x).long()\n", True),
    ("    return len(x)\n", False),
    ("    m = x.max()\n    return torch.tensor(m)\n", False),
    ("    print(x)\n    return samples\n", False),
])
def test_numpy_concatenation_counts_when_it_becomes_the_batch(use, fires):
    source = "def collate(samples):\n    x = np.concatenate([s['x'] for s in samples])\n" + use
    assert _lines(source) == ([5] if fires else [])


def test_numpy_in_a_batching_class_init_reaches_the_batch_object():
    source = ("class Batch:\n    def __init__(self, graphs):\n"
              "        node_features = np.vstack([g.node_features for g in graphs])\n"     # line 6
              "        self.n = np.concatenate([g.y for g in graphs]).sum()\n"              # reduced: quiet
              "        super().__init__(node_features=node_features)\n"
              "def collate(samples):\n    return Batch([s['graph'] for s in samples])\n")
    assert _lines(source) == [6]


def test_numpy_with_an_explicit_leading_one_or_along_another_axis_is_quiet():
    source = ("def collate(samples):\n"
              "    a = np.concatenate([s['x'][None] for s in samples])\n"
              "    b = np.concatenate([s['x'] for s in samples], axis=1)\n"
              "    return torch.from_numpy(a), torch.from_numpy(b)\n")
    assert _lines(source) == []


def test_class_and_static_methods_called_on_the_class_and_self_methods():
    source = ("class Batch:\n    @classmethod\n    def from_list(cls, items):\n"
              "        return torch.cat([d.x for d in items])\n"                               # line 7
              "    @staticmethod\n    def merge(items):\n        return torch.cat([d.y for d in items])\n"   # line 10
              "    def plain(self, items):\n        return torch.cat([d.w for d in items])\n"
              "def collate(samples):\n    return Batch.from_list(samples), Batch.merge(samples)\n")
    assert _lines(source) == [7, 10]


def test_dataclass_init_var_fields_reach_post_init_parameters():
    # session 32 (rec32b): chemprop's BatchMolGraph takes the molecules as an ``InitVar`` (no attribute: a parameter
    # of ``__post_init__``); a subclass inherits the field; ``field(init=False)`` fields take no argument
    source = ("from dataclasses import InitVar, dataclass, field\n@dataclass\nclass Base:\n"   # lines 4-6
              "    mgs: InitVar[list]\n    V: torch.Tensor = field(init=False)\n"
              "    def __post_init__(self, mgs):\n"
              "        self.V = torch.from_numpy(np.concatenate([mg.V for mg in mgs]))\n"      # line 10
              "@dataclass\nclass Sub(Base):\n    def __post_init__(self, mgs):\n"
              "        super().__post_init__(mgs)\n        tags = []\n        for i, mg in enumerate(mgs):\n"
              "            tags.append([i] * len(mg.E))\n"
              "        self.bond_batch = torch.tensor(np.concatenate(tags)).long()\n"          # line 18
              "def collate(batch):\n    mgs, ys = zip(*batch)\n    return Sub(mgs), torch.stack(ys)\n")
    assert _lines(source) == [10, 18]
