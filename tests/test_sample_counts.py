"""NPU409's evidence from row counts a loop records (rules/sample_counts.py): the count, a running offset or per-row
tags of the very item joined, in a list the function makes a tensor of; and a collate's indices shifted by the sizes
of the samples before them."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source

HEAD = "import torch\nfrom torch.utils.data import DataLoader\ndef f(datas):\n    xs, rec, count = [], [], 0\n" \
       "    for i, d in enumerate(datas):\n        xs.append(d['pos'])\n"


def _fires(body: str, tail: str = "    return torch.cat(xs), torch.IntTensor(rec)\n") -> bool:
    """Whether the proof-based paths fire. Since session 22 the broad path of containers filled elsewhere
    (rules/filled_joins.py) also reports these joins of a given list's per-sample entries, with its own message
    ("filled with ..."), whatever the counts recorded: that finding is left out here."""
    found = analyse_source(HEAD + body + tail, codes=frozenset({"NPU409"}))
    return any(", filled with " not in f.message for f in found)


def test_the_filled_path_reports_the_entries_without_recorded_counts():
    found = analyse_source(HEAD + "        rec.append(len(datas))\n" + "    return torch.cat(xs), rec\n",
                           codes=frozenset({"NPU409"}))
    assert [f.line for f in found if ", filled with " in f.message] == [8]


@pytest.mark.parametrize("body,fires", [
    ("        rec.append(len(d['pos']))\n", True),
    ("        rec.append(d['pos'].size(0))\n", True),
    ("        count += d['pos'].shape[0]\n        rec.append(count)\n", True),
    ("        rec.extend([i] * len(d['pos']))\n", True),
    ("        rec += [i] * d['pos'].numel()\n", True),
    ("        rec.append(len(d['x']))\n", False),        # another field's count
    ("        rec.append(len(datas))\n", False),
    ("        count += 3\n        rec.append(count)\n", False),
])
def test_recorded_row_counts(body, fires):
    assert _fires(body) is fires


def test_counts_kept_as_a_python_list_are_no_evidence():
    assert not _fires("        rec.append(len(d['pos']))\n", "    return torch.cat(xs), rec\n")


def test_indices_shifted_along_another_dim_only_in_a_collate_path():
    body = ("def collate(samples):\n    edges, offset = [], 0\n    for g in samples:\n"
            "        edges.append(g.edge_index + offset)\n        offset += g.num_nodes\n"
            "    return torch.cat(edges, 1)\n")
    passed = "loader = DataLoader(ds, collate_fn=collate)\n"
    head = "import torch\nfrom torch.utils.data import DataLoader\n"
    assert analyse_source(head + body + passed, codes=frozenset({"NPU409"}))
    assert not analyse_source(head + body, codes=frozenset({"NPU409"}))
