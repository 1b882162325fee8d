"""Fields of data objects across a project's modules (session 25, fields25; ``analysis/data_records.py``): a field
is what the project stores in it, decided by the stored constructions, never by the field's name."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from npu_lint.analysis.data_records import field_verdicts, store_verdict
from npu_lint.report.collect import collect
from npu_lint.versions import Target

RECORDS = """\
    from dataclasses import dataclass
    from typing import Optional
    import torch

    @dataclass
    class Batch:
        x: torch.Tensor
        valid: torch.Tensor
        lengths: Optional[torch.Tensor] = None
"""
COLLATE = """\
    import torch
    from .records import Batch

    def collate(xs, labels):
        return Batch(x=torch.stack(xs), valid=labels > 0, lengths=torch.tensor([len(x) for x in xs]))
"""
MODEL = """\
    import torch
    from .records import Batch

    class Net(torch.nn.Module):
        def forward(self, x: torch.Tensor, batch: Batch):
            return x[batch.valid]

        def rows(self, x: torch.Tensor, batch):
            return x[batch.valid]

        def lengths(self, x: torch.Tensor, batch: Batch):
            return x[batch.lengths]
"""


def _write(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _lines(root: Path, code: str = "NPU402") -> set:
    result = collect(root, Target("2.8.0"), lambda *args: None)
    return {(path, f.line) for path, f in result.findings if f.code == code}


def test_a_record_built_with_a_mask_in_another_module_is_read_as_one(tmp_path):
    """``Batch(valid=labels > 0)`` in the collate module: ``batch.valid`` is a mask where ``batch: Batch`` and
    where the receiver's class is unknown (the only class storing ``valid``); ``lengths`` is no mask."""
    root = _write(tmp_path / "p", {"pkg/__init__.py": "", "pkg/records.py": RECORDS, "pkg/collate.py": COLLATE,
                                   "pkg/model.py": MODEL})
    assert _lines(root) == {("pkg/model.py", 6), ("pkg/model.py", 9)}


def test_two_classes_storing_the_field_leave_an_unknown_receiver_unknown(tmp_path):
    """Another class stores ``valid`` too (a mask as well): on a receiver of unknown class the field's kind is not
    inferred from its name; the receiver typed ``Batch`` still is."""
    other = "import torch\n\nclass Tile:\n    def __init__(self, scores):\n        self.valid = scores > 0.5\n"
    root = _write(tmp_path / "p", {"pkg/__init__.py": "", "pkg/records.py": RECORDS, "pkg/collate.py": COLLATE,
                                   "pkg/model.py": MODEL, "pkg/tiles.py": other})
    assert _lines(root) == {("pkg/model.py", 6)}


def test_a_store_of_another_kind_leaves_the_field_unknown(tmp_path):
    """``batch.valid = ids`` (a list of positions given by the caller) somewhere: the stores disagree."""
    other = "def relabel(batch, ids):\n    batch.valid = ids\n    return batch\n"
    root = _write(tmp_path / "p", {"pkg/__init__.py": "", "pkg/records.py": RECORDS, "pkg/collate.py": COLLATE,
                                   "pkg/model.py": MODEL, "pkg/relabel.py": other})
    assert ("pkg/model.py", 9) not in _lines(root)


def test_store_verdicts_read_constructions_only():
    def verdict(text: str, attr: str = "m") -> str:
        return store_verdict(ast.parse(text, mode="eval").body, attr)
    assert verdict("labels != 0") == "mask"
    assert verdict("torch.tensor(flags, dtype=torch.bool)") == "mask"
    assert verdict("x.to(torch.bool)") == "mask"
    assert verdict("self.input.m.to(device)") == "self"
    assert verdict("None") == "self"
    assert verdict("mask") == ""   # a name: the model decides (the index asks it), not the spelling
    assert verdict("x is None") == ""
    stores = [(("valid", "mask", ""), ("valid", "self", "pkg.A")), (("valid", "mask", "pkg.B"),)]
    assert field_verdicts(stores).get("valid") is None   # two classes
    assert field_verdicts(stores).get(("pkg.A", "valid")) is None   # only the field again: nothing stored
    assert field_verdicts(stores)[("pkg.B", "valid")] == "mask"
    assert field_verdicts([(("keep", "mask", ""), ("keep", "", ""))]).get("keep") is None
