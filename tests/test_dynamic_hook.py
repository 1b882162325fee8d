"""``-m dynamic_shape`` at runtime: the instrumented copy of a small training script, run under CPU torch."""
from __future__ import annotations

import atexit
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run, tool

torch = pytest.importorskip("torch", reason="runtime tests of -m dynamic_shape need CPU torch: "
                                            "pip install torch==2.13.0")
pytest.importorskip("pandas")

from npu_lint.runtime.hook import HEADER, Detector  # noqa: E402  (needs torch)

MODEL = '''"""The model."""
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h)
'''
TRAIN = '''"""Tiny training run. argv: batch sizes; exit=N ends the process (os._exit) at iteration N."""
import os
import sys

import torch
import torch.nn.functional as F

from tiny.model import Net


def batches(sizes):
    generator = torch.Generator().manual_seed(1)
    for size in sizes:
        yield torch.randn(size, 4, generator=generator), torch.randint(0, 2, (size,), generator=generator)


def main(sizes, exit_at=None):
    torch.manual_seed(0)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    probe = torch.ones(3, 4)
    for step, (x, y) in enumerate(batches(sizes)):
        if step == exit_at:
            os._exit(0)
        optimizer.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out, y)
        for _ in range(len(x) // 4):
            probe.sum()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            model(probe)
    print("loss", repr(loss.item()))
    print("weight", model.fc2.weight.flatten().tolist())
    model(torch.ones(11, 4))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:] if a.isdigit()],
         next((int(a[5:]) for a in sys.argv[1:] if a.startswith("exit=")), None))
'''
LOOP_LINE = 22
# Reasoned from the script: everything on the path of the batch (x, y, out) changes shape with the batch size,
# from its making (the generator runs while the next batch is fetched) and the batch itself (on the loop's line);
# the probe, the scalar loss, the optimizer and the calls after the loop do not, and the loop over
# range(len(x) // 4) runs probe.sum() once or twice with the same shape (not a dynamic shape).
VARYING = sorted([
    ("torch.randn", "./tiny/train.py", "14"),
    ("torch.randint", "./tiny/train.py", "14"),
    ("enumerate.__next__", "./tiny/train.py", "22"),
    ("self.fc1", "./tiny/model.py", "13"),
    ("torch.nn.functional.relu", "./tiny/model.py", "13"),
    ("self.fc2", "./tiny/model.py", "14"),
    ("model", "./tiny/train.py", "26"),
    ("torch.nn.functional.cross_entropy", "./tiny/train.py", "27"),
])


def sites(report: Path) -> list[tuple[str, str, str]]:
    with report.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == HEADER
    return sorted((row[0], row[1], row[2]) for row in rows[1:])


@pytest.fixture(scope="module")
def analysis(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("dyn")
    project = root / "proj"
    (project / "tiny").mkdir(parents=True)
    (project / "tiny" / "__init__.py").write_text("")
    (project / "tiny" / "model.py").write_text(MODEL)
    (project / "tiny" / "train.py").write_text(TRAIN)
    assert TRAIN.splitlines()[LOOP_LINE - 1].lstrip().startswith("for step")
    (root / "out").mkdir()
    result = run([tool("npu-lint"), "analyse", "-i", str(project), "-o", str(root / "out"), "-m", "dynamic_shape",
                  "--wrap-loop", f"tiny/train.py:{LOOP_LINE}"], cwd=root)
    assert result.returncode == 0, result.stderr
    return project, root / "out" / "proj_analysis"


def start(folder: Path, *args: str, **env: str) -> subprocess.Popen:
    environment = dict(os.environ, PYTHONPATH=str(folder), PYTHONDONTWRITEBYTECODE="1", **env)
    return subprocess.Popen([sys.executable, str(folder / "tiny" / "train.py"), *args], cwd=folder.parent,
                            env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


def test_instrumented_run_reports_exactly_the_varying_calls(analysis):
    project, report = analysis
    sizes = ("8", "8", "5")
    stale = report.parent / "stale.csv"
    stale.write_text(",".join(HEADER) + "\nself.fc1,./tiny/model.py,13,[],None,None\n")
    runs = {   # in parallel: torch takes a few seconds to import
        "original": start(project, *sizes),
        "varying": start(report, *sizes),
        "constant": start(report, "8", "8", "8", MSFT_DYNAMIC_REPORT=str(report.parent / "constant.csv")),
        "killed": start(report, "8", "5", "8", "8", "exit=3", MSFT_DYNAMIC_REPORT=str(report.parent / "killed.csv")),
        "limited": start(report, *sizes, MSFT_DYNAMIC_REPORT=str(report.parent / "limited.csv"),
                         MSFT_DYNAMIC_MAX_SITES="4"),
        "no epochs": start(report, MSFT_DYNAMIC_REPORT=str(stale)),
    }
    results = {name: finish(process) for name, process in runs.items()}
    for name, (status, out, err) in results.items():
        assert status == 0 or name == "no epochs", (name, err)
    original = results["original"][1]
    assert original.startswith("loss ") and "weight [" in original
    assert results["varying"][1] == original, "the instrumented copy must compute exactly what the original does"
    assert results["varying"][2] == ""
    assert sites(report / "msft_dynamic_shape_analysis_report.csv") == VARYING
    assert sites(report.parent / "constant.csv") == []
    assert results["killed"][1] == "" and sites(report.parent / "killed.csv") == VARYING
    status, out, err = results["limited"]
    assert out == original
    assert err.count("msft_dynamic_analysis: warning: more than 4 call sites recorded") == 1, err
    assert len(err.splitlines()) == 1
    # the first 4 sites are the two calls making the batch, the batch, optimizer.zero_grad(): past the budget
    # no new site is recorded, and the ones seen keep being compared
    assert sites(report.parent / "limited.csv") == [
        ("enumerate.__next__", "./tiny/train.py", "22"), ("torch.randint", "./tiny/train.py", "14"),
        ("torch.randn", "./tiny/train.py", "14")]
    # a run whose loop never starts leaves a header-only report, not the previous run's rows
    # (the script itself then fails on its `loss` after the empty loop)
    assert "UnboundLocalError" in results["no epochs"][2] and sites(stale) == []


def test_report_cells(analysis):
    _, report = analysis
    with (report / "msft_dynamic_shape_analysis_report.csv").open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    # the vendor's columns, in its order (shared/research/anchor_tool.md 2.4); any column of ours would come after
    assert header[:6] == ["Function Name", "File Path", "Line Number", "Call Stack", "Input Shape Range",
                          "Output Shape Range"]
    with (report / "msft_dynamic_shape_analysis_report.csv").open(newline="", encoding="utf-8") as handle:
        rows = {row["Function Name"]: row for row in csv.DictReader(handle)}
    fc1 = rows["self.fc1"]
    assert fc1["Input Shape Range"] == "[(5, 4)-(8, 4)]" and fc1["Output Shape Range"] == "[(5, 8)-(8, 8)]"
    # the vendor's cells: a Python list of '<file F, line N in f>' strings, [()] for a 0-d tensor
    assert fc1["Call Stack"] == ("['<file ./tiny/train.py, line 40 in <module>>', '<file ./tiny/train.py, line 26 "
                                 "in main>', '<file ./tiny/model.py, line 13 in forward>']")
    loss = rows["torch.nn.functional.cross_entropy"]
    assert loss["Input Shape Range"] == "[(5, 2)-(8, 2)], [(5,)-(8,)]" and loss["Output Shape Range"] == "[()]"
    batch = rows["enumerate.__next__"]
    assert batch["Input Shape Range"] == "None" and batch["Output Shape Range"] == "[(5, 4)-(8, 4)], [(5,)-(8,)]"
    assert oct((report / "msft_dynamic_shape_analysis_report.csv").stat().st_mode & 0o777) == "0o640"


@pytest.fixture(params=["hook_args", "hook_func"])
def detector(request, tmp_path, monkeypatch):
    """A detector whose ``call`` is one of its two entries: ``hook_args`` (what the instrumenter writes for calls
    without keyword arguments) or ``hook_func`` (any call); each test runs with both."""
    monkeypatch.setenv("MSFT_DYNAMIC_REPORT", str(tmp_path / "report.csv"))
    made = Detector()
    made.call = getattr(made, request.param)
    yield made
    atexit.unregister(made.write_report)


def test_hook_returns_and_raises_exactly_like_the_call(detector):
    marker, error = object(), KeyError("boom")

    def fail(*_):
        raise error

    for _ in detector.start([1, 2]):
        assert detector.hook_func(lambda func, name, index: marker, "f", 0, func=1, name=2, index=3) is marker
        with pytest.raises(TypeError) as expected:
            torch.relu("not a tensor")
        with pytest.raises(TypeError) as caught:
            detector.call(torch.relu, "torch.relu", 0, "not a tensor")
        assert str(caught.value) == str(expected.value)
        with pytest.raises(KeyError) as raised:
            detector.call(fail, "fail", 0, torch.ones(2))
        assert raised.value is error
        x = torch.ones(3, requires_grad=True)
        y = detector.call(x.mul, "x.mul", 0, 2)
        assert y.grad_fn is not None and torch.equal(y, x * 2)
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert detector.rows() == []


def test_loop_count_and_break(detector, tmp_path):
    linear = torch.nn.Linear(3, 2)

    def step(rows: int, repeats: int) -> None:
        for _ in range(repeats):                       # constant shape, varying count: not reported
            detector.call(torch.relu, "torch.relu", 0, torch.ones(4, 3))
        detector.call(linear, "linear", 0, torch.ones(rows, 3))
        detector.hook_func(torch.cat, "torch.cat", 0, [torch.ones(rows, 3), torch.ones(2, 3)], dim=0)

    for index, (rows, repeats) in enumerate(detector.start([(2, 1), (2, 3), (5, 2), (9, 9)])):
        with torch.no_grad():
            step(rows, repeats)
        if index == 2:
            break
    detector.call(linear, "after the loop", 0, torch.ones(7, 3))   # not inside an iteration
    rows = {row[0]: row for row in detector.rows()}
    assert sorted(rows) == ["linear", "torch.cat"]
    assert rows["linear"][4:] == ["[(2, 3)-(5, 3)]", "[(2, 2)-(5, 2)]"]
    assert rows["torch.cat"][4:] == ["[(2, 3)-(5, 3)], [(2, 3)-(2, 3)]", "[(4, 3)-(7, 3)]"]
    assert sites(tmp_path / "report.csv") == sorted((row[0], row[1], row[2]) for row in detector.rows())


def test_function_apply_nested_containers_and_metadata(detector):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Criterion(torch.nn.Module):       # a project's module
        def forward(self, pred, targets):
            return pred.sum() + sum(t["boxes"].sum() for t in targets)

    criterion = Criterion()

    identity = torch.nn.Identity()
    for rows in detector.start([2, 5, 3]):
        x = torch.ones(rows, 4, requires_grad=True)
        y = detector.call(Double.apply, "Double.apply", 0, x)
        detector.call(criterion, "criterion", 0, torch.ones(2), [{"boxes": torch.ones(rows, 4)}])
        detector.call(identity, "three", 0, [[[torch.ones(rows)]]])     # three levels: looked into
        detector.call(identity, "four", 0, [[[[torch.ones(rows)]]]])    # four: not
        detector.call(x.numel, "x.numel", 0)
        detector.call(x.size, "x.size", 0, 0)
        detector.call(x.dim, "x.dim", 0)
        detector.call(x.new_zeros, "x.new_zeros", 0, 3)                        # varies only through x
        detector.call(x.sum, "x.sum", 0)
        detector.call(x.view, "x.view", 0, -1)
        y.sum().backward()
    rows = {row[0]: row for row in detector.rows()}
    assert sorted(rows) == ["Double.apply", "criterion", "three", "x.view"]
    assert rows["criterion"][4] == "[(2,)-(2,)], [(2, 4)-(5, 4)]"
    assert rows["x.view"][4:] == ["[(2, 4)-(5, 4)]", "[(8,)-(20,)]"]


def test_containers_are_looked_at_with_a_bounded_count(detector):
    many = [torch.ones(1)] * 10000
    for rows in detector.start([2, 5]):
        detector.call(torch.cat, "torch.cat", 0, many + [torch.ones(rows)])   # past the bound: not seen
        detector.call(torch.cat, "torch.cat", 1, [torch.ones(rows)] + many)
    last, first = (row[4] for row in detector.rows())      # both vary through their result
    assert last == ", ".join(["[(1,)-(1,)]"] * 256)         # the 256 elements looked at
    assert first.startswith("[(2,)-(5,)], [(1,)-(1,)], ") and first.count("[(1,)-(1,)]") == 255


def test_rows_of_numbers_count_against_the_bound(detector):
    """``torch.tensor(boxes)``-style rows are skipped at once, their elements counted as if looked at."""
    class First(torch.nn.Module):
        def forward(self, *args):
            return args[0]

    identity = First()
    for rows in detector.start([2, 5]):
        detector.call(identity, "hidden", 0, [[0.5] * 4] * 60, [torch.ones(rows)])    # 60 + 240 > 256: not seen
        detector.call(identity, "seen", 0, [(1, 2)] * 60, [torch.ones(rows)])          # 60 + 120 < 256
        detector.call(identity, "rows", 0, [[0.5, 1], [torch.ones(rows)]])            # not only numbers
    rows = {row[0]: row for row in detector.rows()}
    assert sorted(rows) == ["rows", "seen"]
    assert rows["seen"][4] == "[(2,)-(5,)]" and rows["rows"][4] == "[(2,)-(5,)]"


def test_calls_of_other_threads_are_not_recorded(detector):
    """Only the loop's thread records; the check is made where a frame's table is looked up."""
    import threading

    def other(rows: int) -> None:
        for _ in range(3):
            detector.call(torch.relu, "other thread", 0, torch.ones(rows))

    for rows in detector.start([2, 5, 3]):
        worker = threading.Thread(target=other, args=(rows,))
        worker.start()
        worker.join()
        detector.call(torch.relu, "loop thread", 0, torch.ones(rows))
        other(rows)                                 # the same code in the loop's thread is recorded
    assert sorted(row[0] for row in detector.rows()) == ["loop thread", "other thread"]
    assert all(row[4] == "[(2,)-(5,)]" for row in detector.rows())


def test_budget_counts_new_sites_only(tmp_path, monkeypatch, capsys):
    """An LSTMCell-style step: one site called 1,700 times per iteration keeps being compared."""
    monkeypatch.setenv("MSFT_DYNAMIC_REPORT", str(tmp_path / "report.csv"))
    monkeypatch.setenv("MSFT_DYNAMIC_MAX_SITES", "3")
    made = Detector()
    cell = torch.nn.Linear(2, 2)
    try:
        for batch in made.start([4, 4, 3]):
            h = torch.zeros(batch, 2)
            for _ in range(1700):
                h = made.hook_func(cell, "self.cell", 0, h)
            made.hook_func(torch.relu, "torch.relu", 0, h)
            made.hook_func(torch.tanh, "torch.tanh", 0, h)      # the fourth site: past the budget
    finally:
        atexit.unregister(made.write_report)
    assert [row[0] for row in made.rows()] == ["self.cell", "torch.relu"]
    err = capsys.readouterr().err
    assert err.count("more than 3 call sites recorded") == 1 and len(err.splitlines()) == 1
    assert sites(tmp_path / "report.csv") == sorted((row[0], row[1], row[2]) for row in made.rows())


def test_call_paths_through_generators_and_deep_recursion(detector):
    """A generator's frame is resumed from different places: each place is its own call path, although the
    frame (and the call inside it) is the same object; a path deeper than the frames walked is still one site."""
    def tokens():
        rows = 2
        while True:
            yield detector.call(torch.relu, "torch.relu", 0, torch.ones(rows))
            rows += 1

    def deep(depth, rows):
        if depth:
            return deep(depth - 1, rows)
        return detector.call(torch.tanh, "torch.tanh", 0, torch.ones(rows))

    for step in detector.start([0, 1, 2]):
        stream = tokens()
        if step != 1:
            next(stream)             # always the first call: 2 rows
        next(stream)                 # 3 rows after the line above, 2 without it: varies
        deep(100, 4 + (step == 2))   # varies in the last iteration
    rows = detector.rows()
    here = test_call_paths_through_generators_and_deep_recursion.__code__.co_firstlineno
    assert sorted((row[0], row[2]) for row in rows) == [("torch.relu", str(here + 6)), ("torch.tanh", str(here + 12))]
    relu, tanh = rows if rows[0][0] == "torch.relu" else rows[::-1]
    assert relu[5] == "[(2,)-(3,)]"
    assert f"line {here + 18} in test_call" in relu[3] and f"line {here + 17} in test_call" not in relu[3]
    assert tanh[5] == "[(4,)-(5,)]"


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage")
def test_nested_tensors_are_skipped_and_recording_goes_on(detector):
    """A strided nested tensor has no shape (reading it raises): it is left out, and recording goes on."""
    nested = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
    identity = torch.nn.Identity()
    for rows in detector.start([2, 5]):
        assert detector.call(identity, "nested", 0, nested) is nested
        assert detector.call(identity, "in a list", 0, [nested, torch.ones(rows)])[0] is nested
        detector.call(torch.relu, "torch.relu", 0, torch.ones(rows))
    rows = {row[0]: row for row in detector.rows()}
    assert sorted(rows) == ["in a list", "torch.relu"]
    assert rows["in a list"][4] == "[(2,)-(5,)]"
