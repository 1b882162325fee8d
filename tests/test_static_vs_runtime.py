"""``static_vs_runtime.csv`` from hand-written inputs: which static finding predicts which runtime site, and how."""
from __future__ import annotations

import csv

from npu_lint.report.static_vs_runtime import HEADER, compare, write

SOURCE = '''import torch


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    return data


def main(model, source, probe):
    for i in range(0, 100, 8):
        data = get_batch(source, i, 8)
        out = model(data)
        other = model(probe)
        total = out.sum() + other.sum()
'''
STACK = "['<file ./train.py, line 18 in <module>>', '<file ./train.py, line {caller} in main>'{inner}]"


def _write(folder, rows, findings):
    (folder / "train.py").write_text(SOURCE)
    with (folder / "dynamic_shape_risk.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["File", "Start Line", "End Line", "OP", "Tips"])
        writer.writerows(findings)
    with (folder / "msft_dynamic_shape_analysis_report.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Function Name", "File Path", "Line Number", "Call Stack", "Input Shape Range",
                         "Output Shape Range"])
        writer.writerows(rows)


def _row(name, line, caller, inner=""):
    return [name, "./train.py", line, STACK.format(caller=caller, inner=inner), "None", "None"]


def test_each_way_a_finding_predicts_a_site(tmp_path):
    inside = ", '<file ./model.py, line 3 in forward>'"
    rows = [_row("torch.narrow", 6, 12, ", '<file ./train.py, line 6 in get_batch>'"),   # data flow in get_batch
            _row("model", 13, 13),                         # data flow through get_batch's result
            _row("self.fc", 3, 13, inside),                # called from a predicted line
            _row("model", 14, 14),                         # no finding reaches the probe: blind
            ]
    rows[2][1] = "./model.py"
    _write(tmp_path, rows, [["train.py", 5, 5, "min", "NPU407 min(...) cuts the last chunk short"]])
    assert compare(tmp_path) == [
        ["torch.narrow", "./train.py", "6", "NPU407", "train.py", "5", "data flow"],
        ["model", "./train.py", "13", "NPU407", "train.py", "5", "data flow"],
        ["self.fc", "./model.py", "3", "NPU407", "train.py", "5", "called from train.py:13"],
        ["model", "./train.py", "14", "none", "", "", ""]]
    assert write(tmp_path) == (4, 3)
    with (tmp_path / "static_vs_runtime.csv").open(newline="") as handle:
        assert next(csv.reader(handle)) == HEADER


def test_without_findings_every_site_is_blind(tmp_path):
    _write(tmp_path, [_row("model", 13, 13)], [])
    assert compare(tmp_path) == [["model", "./train.py", "13", "none", "", "", ""]]


def test_a_caller_of_a_predicted_site_is_predicted(tmp_path):
    rows = [_row("model", 14, 14), _row("torch.cat", 7, 14, ", '<file ./train.py, line 7 in get_batch>'")]
    _write(tmp_path, rows, [["train.py", 7, 7, "torch.cat", "NPU409 cat(...) joins per-sample items"]])
    assert [row[3:] for row in compare(tmp_path)] == [["NPU409", "train.py", "7", "calls train.py:7"],
                                                      ["NPU409", "train.py", "7", "same line"]]
