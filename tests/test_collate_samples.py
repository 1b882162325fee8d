"""NPU409's evidence from collate functions (rules/collate_samples.py) and from rows tagged with their sample's
index (rules/sample_tags.py): the ways a function is passed as ``collate_fn=`` and the lines reported."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source

HEAD = "import torch\nfrom functools import partial\nfrom torch.utils.data import DataLoader\n"


def _lines(source: str) -> list[int]:
    return sorted(f.line for f in analyse_source(HEAD + source, codes=frozenset({"NPU409"})))


def _collate_lines(source: str) -> list[int]:
    """The lines the collate path reports (its message names what receives the samples); since session 21 the
    inverted path (rules/inverted_joins.py) also reports a join of any parameter's items, with its own message."""
    return sorted(f.line for f in analyse_source(HEAD + source, codes=frozenset({"NPU409"}))
                  if "receives as collate_fn" in f.message)


@pytest.mark.parametrize("passed", [
    "DataLoader(ds, collate_fn=collate)",
    "DataLoader(ds, collate_fn=partial(collate2, 0))",
    "DataLoader(ds, collate_fn=lambda b: collate(b))",
    "DataLoader(ds, collate_fn=collate if fast else other)",
    "DataLoader(ds, **{'collate_fn': collate})",
])
def test_a_function_passed_as_collate_fn_receives_the_samples(passed):
    source = ("def collate(batch):\n    return torch.cat([d['x'] for d in batch])\n"
              "def collate2(pad, batch):\n    return torch.cat([d['x'] for d in batch])\n"
              "def other(batch):\n    return batch\n"
              f"loader = {passed}\n")
    assert _collate_lines(source) in ([5], [7])
    assert _lines(source) == [5, 7]     # the other function's join: the inverted path, whoever calls it


def test_methods_static_methods_callable_instances_and_defaults():
    source = ("class Data:\n"
              "    def loader(self):\n        return DataLoader(self, collate_fn=self.collate)\n"
              "    def collate(self, batch):\n        return torch.cat([d['x'] for d in batch])\n"       # 8
              "    @staticmethod\n    def collate_fn(batch):\n        images, boxes = zip(*batch)\n"
              "        return torch.stack(images), torch.cat(boxes, 0)\n"                                  # 12
              "class Collator:\n    def __call__(self, features):\n"
              "        return torch.cat([f['pixel'] for f in features], dim=0)\n"                         # 15
              "def merge(samples):\n    return torch.cat(samples)\n"                                   # 17
              "def build(ds, collate_fn=merge):\n    return DataLoader(ds, collate_fn=collate_fn)\n"
              "a = DataLoader(ds, collate_fn=Data.collate_fn)\nb = DataLoader(ds, collate_fn=Collator())\n")
    assert _lines(source) == [8, 12, 15, 17]


def test_not_a_collate_function_nothing_found():
    source = ("def collate(batch):\n    return torch.cat([d['x'] for d in batch])\n"
              "def wrap(batch):\n    return collate(batch)\n")
    assert _collate_lines(source) == []


def test_rows_tagged_with_the_index_report_the_final_concatenation():
    source = ("def targets(labels_batch):\n    out = []\n    for i, labels in enumerate(labels_batch):\n"
              "        col = torch.full_like(labels[:, :1], i)\n"
              "        out.append(torch.cat((col, labels), dim=-1))\n    return torch.cat(out, 0)\n")
    assert _lines(source) == [9]


def test_a_collate_name_bound_in_several_arms_passes_each_function_to_the_index():
    import ast

    from npu_lint.project.facts import extract
    source = ("from pkg.collate import collate_graphs, collate_mols\nfrom torch.utils.data import DataLoader\n"
              "def build(ds, graphs):\n    if graphs:\n        collate_fn = collate_graphs\n    else:\n"
              "        collate_fn = collate_mols\n    return DataLoader(ds, batch_size=8, collate_fn=collate_fn)\n")
    facts = extract(ast.parse(source), "pkg.loader", "pkg/loader.py", False)
    assert sorted(facts.collates) == [("function", "pkg.collate.collate_graphs", 0),
                                      ("function", "pkg.collate.collate_mols", 0)]
