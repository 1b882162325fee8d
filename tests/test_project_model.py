"""The semantic model across a project's modules, through the project index.

``tests/project_fixture`` is a small detection package: a wrapper of ``torch.nonzero`` re-exported from the
package and called from the training script, a ``TORCH_LIBRARY`` namespace, a compiled ``_C`` imported at the
bottom of a module, a model class whose ``nn.Module`` base sits in another module, and a pure-Python function
merely named like a CUDA extension. Expected findings are written on the lines as ``# expect: CODE@COL``.
"""
from __future__ import annotations

import csv
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from npu_lint.report.collect import collect
from npu_lint.versions import Target

FIXTURE = Path(__file__).parent / "project_fixture"
CODES = {"NPU101", "NPU221", "NPU223", "NPU401", "NPU402", "NPU403", "NPU405", "NPU409"}
EXPECT = re.compile(r"#.*?\bexpect:\s*((?:NPU\d{3}@\d+\s*)+)")


def expected() -> Counter:
    found: Counter = Counter()
    for path in FIXTURE.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = EXPECT.search(line)
            for item in match.group(1).split() if match else ():
                code, col = item.split("@")
                found[(path.relative_to(FIXTURE).as_posix(), number, int(col), code)] += 1
    return found


def test_cross_module_findings_are_exactly_the_expected_ones():
    result = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    got = Counter((path, f.line, f.col, f.code) for path, f in result.findings if f.code in CODES)
    assert got == expected()


def test_the_chain_names_the_wrapper_in_another_module():
    result = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    [message] = [f.message for path, f in result.findings if path == "train.py" and f.code == "NPU401"]
    assert "detkit.ops.boxes.positive_indices → torch.nonzero" in message


def test_a_padding_helper_of_another_module_is_reported_at_its_calls():
    """``engine/collate.py`` calls ``utils/batching.py``'s ``pad_list`` (it pads its items to the longest) and
    ``pad_targets`` (it returns what ``pad_list`` returns): each call names the chain to the maximum."""
    result = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    messages = {f.line: f.message for path, f in result.findings
                if path == "detkit/engine/collate.py" and f.code == "NPU405"}
    assert "detkit.utils.batching.pad_list → max of item lengths, detkit/utils/batching.py line 8" in messages[7]
    assert "detkit.utils.batching.pad_targets → detkit.utils.batching.pad_list → max of item lengths" in messages[8]
    assert "detkit.utils.batching.pad_frames → max of item lengths, detkit/utils/batching.py line 26" in messages[14]
    # ``pad_to(xs, 128)``: the length given replaces the maximum; ``longest(labels)`` only printed: no padding
    assert set(messages) == {7, 8, 14, 19, 23, 29}   # line 23: the maximum, sizing the stack at line 25
    # the maximum handed, inside the helper's module, to a helper of that file that np.pads up to its parameter
    assert "detkit.utils.batching.prepare_ids → max of item lengths, detkit/utils/batching.py line 57" in messages[29]
    # the batch maximum inside a list of lengths given to a function of another module that sizes with it: the
    # one place it sizes, reported at the maximum, naming it
    assert messages[23].startswith("the batch maximum max([p.shape[0] for p in batch]) sizes stack_tensors([64, "
                                   "spec_len]) → pad() at line 25")


def test_a_size_helper_of_another_module_is_reported_at_its_call():
    """``models/pooling.py`` gives ``ops/scatter.py``'s ``scatter_add`` a value read from a tensor as ``dim_size``,
    which sizes ``torch.zeros`` through ``_scatter_add`` (an element of a list of sizes); a size from metadata, or a
    parameter the helper only prints, is no finding."""
    result = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    messages = {f.line: f.message for path, f in result.findings
                if path == "detkit/models/pooling.py" and f.code == "NPU403"}
    assert set(messages) == {7, 8, 15}    # the read, the call it sizes through the helper; a dim_size left out
    # ``scatter_sum(h, batch)``: the vendored scatter fills ``dim_size`` from ``int(index.max()) + 1`` (its
    # ``fills`` fact); given positionally or by name, no finding
    assert messages[15].startswith("scatter_sum() without dim_size= reads it from a tensor (dim_size → zeros())")
    assert messages[7].startswith("int(idx_m[-1]) reads a tensor's value back to the host; it sizes "
                                  "scatter_add(maxm) → _scatter_add(dim_size) → zeros() (line 8)")
    assert messages[8].startswith("scatter_add(maxm) → _scatter_add(dim_size) → zeros() takes a size from a "
                                  "tensor's value (int(idx_m[-1]), line 7)")


def test_without_the_index_a_file_alone_knows_less():
    from npu_lint.core import analyse_source
    source = (FIXTURE / "train.py").read_text(encoding="utf-8")
    codes = {(f.line, f.code) for f in analyse_source(source, Target("2.8.0"))}
    assert (17, "NPU101") in codes            # Adam.step: the file shows the optimizer
    assert (9, "NPU101") not in codes         # Detector's nn.Module base is in another module
    assert (4, "NPU221") in codes             # dtw_cuda looks like an extension when nothing says otherwise


def test_analyse_report_lists_the_project_calls(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run([sys.executable, "-m", "npu_lint", "analyse", "-i", str(FIXTURE), "-o", str(out),
                           "-v", "2.8.0"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((out / "project_fixture_analysis" / "unsupported_api.csv").open(encoding="utf-8")))
    ops = {(row["File"], row["Start Line"], row["OP"]) for row in rows}
    assert ("train.py", "9", "torch.nn.Module.share_memory") in ops
    assert ("train.py", "17", "torch.optim.Adam.step") in ops
    assert ("detkit/ops/nms.py", "5", "torch.ops.detkit.nms_rotated") in ops
    assert any(f == "detkit/ops/nms.py" and line == "9" for f, line, _ in ops)


def test_inventory_reads_annotations_declared_in_other_modules(tmp_path):
    """``detkit/engine/loop.py`` uses what ``engine/base.py`` declares: a NamedTuple's tensor fields, class-level
    ``optimizer: th.optim.Optimizer`` and ``model: Detector``, ``self.scaler: Optional[GradScaler] = None``, a method
    annotated ``-> tuple[th.Tensor, th.Tensor]``, a generator annotated ``-> Iterator[Batch]`` and ``self.teacher =
    Detector()`` (a project module of a third module) in the base class's ``__init__``."""
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run([sys.executable, "-m", "npu_lint", "analyse", "-i", str(FIXTURE), "-o", str(out),
                           "-v", "2.8.0"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    rows = {(int(row["Start Line"]), row["API"]) for row in
            csv.DictReader((out / "project_fixture_analysis" / "api_inventory.csv").open(encoding="utf-8"))
            if row["File"] == "detkit/engine/loop.py"}
    assert {(9, "torch.Tensor.float"), (10, "torch.optim.Optimizer.zero_grad"),
            (11, "torch.cuda.amp.GradScaler.scale"), (12, "torch.cuda.amp.GradScaler.step"),
            (13, "torch.cuda.amp.GradScaler.update"), (14, "torch.nn.Module.parameters"),
            (19, "torch.Tensor.std"), (20, "torch.nn.Module.parameters")} <= rows
    assert not {(15, "torch.Tensor.expand"), (15, "torch.Tensor.any")} & rows   # a project class; a numpy array


def _run(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                          cwd=FIXTURE)


def test_check_builds_the_index_and_flake8_reads_it(tmp_path):
    import os
    env = {**os.environ, "NPU_LINT_CACHE_DIR": str(tmp_path / "cache")}
    flake8 = [sys.executable, "-m", "flake8", "--isolated", "--select=NPU101,NPU221,NPU223,NPU401,NPU402,NPU403,NPU405,NPU409",
              "--npu-torch-version=2.8.0", "train.py", "detkit"]
    before = _run(*flake8, env=env)
    assert "train.py:9:5: NPU101" not in before.stdout            # no index yet: flake8 never builds one
    check = _run(sys.executable, "-m", "npu_lint", "check", "--select", "NPU101,NPU221,NPU223,NPU401,NPU402,NPU403,NPU405,NPU409",
                 "-v", "2.8.0", ".", env=env)
    assert check.returncode == 1, check.stderr
    got = {tuple(line.split(": ", 1)[0].rsplit(":", 2)) + (line.split(": ", 1)[1].split()[0],)
           for line in check.stdout.splitlines() if ": NPU" in line}
    want = {(path if path != "." else path, str(line), str(col + 1), code)
            for path, line, col, code in expected()}
    assert {(p.lstrip("./"), l, c, code) for p, l, c, code in got} == want
    after = _run(*flake8, env=env)
    flake8_found = {(p, l, c, code) for p, l, c, code in
                    (tuple(x.split(":", 3)[:3]) + (x.split(":", 3)[3].split()[0],) for x in after.stdout.splitlines())}
    assert flake8_found == want


def test_a_file_that_only_calls_a_padding_helper_reaches_npu405_in_flake8(tmp_path):
    """``engine/collate.py`` has no trigger word of NPU405: the index's padding helpers let it through."""
    import os
    env = {**os.environ, "NPU_LINT_CACHE_DIR": str(tmp_path / "cache")}
    _run(sys.executable, "-m", "npu_lint", "check", "--select", "NPU405", "-v", "2.8.0", ".", env=env)
    flake8 = _run(sys.executable, "-m", "flake8", "--isolated", "--select=NPU405", "--npu-torch-version=2.8.0",
                  "detkit/engine/collate.py", env=env)
    assert flake8.stdout.splitlines()[:2] == [
        "detkit/engine/collate.py:7:13: NPU405 pad_list() pads its items to the batch maximum (detkit.utils.batching."
        "pad_list → max of item lengths, detkit/utils/batching.py line 8): the padded length changes with every "
        "batch, and every new length recompiles on NPU; pad to a fixed length or a few buckets",
        "detkit/engine/collate.py:8:14: NPU405 pad_targets() pads its items to the batch maximum (detkit.utils."
        "batching.pad_targets → detkit.utils.batching.pad_list → max of item lengths, detkit/utils/batching.py line 8): "
        "the padded length changes with every batch, and every new length recompiles on NPU; pad to a fixed length "
        "or a few buckets"], flake8.stdout


def test_a_file_that_only_calls_a_wrapper_is_checked_under_a_narrow_selection(tmp_path):
    """``models/matching.py`` has no trigger word of NPU401: the project index's wrapper names let it through
    the substring pre-filter, in ``check`` and in flake8 (from the index ``check`` built)."""
    import os
    env = {**os.environ, "NPU_LINT_CACHE_DIR": str(tmp_path / "cache")}
    check = _run(sys.executable, "-m", "npu_lint", "check", "--select", "NPU401", "-v", "2.8.0", ".", env=env)
    assert "detkit/models/matching.py:6:13: NPU401 detkit.ops.boxes.keep_positive → detkit.ops.boxes.positive_indices" \
        " → torch.nonzero" in check.stdout, check.stdout
    flake8 = _run(sys.executable, "-m", "flake8", "--isolated", "--select=NPU401", "--npu-torch-version=2.8.0",
                  "detkit/models/matching.py", env=env)
    assert flake8.stdout.startswith("detkit/models/matching.py:6:13: NPU401 "), flake8.stdout


def test_a_helper_of_another_module_that_reads_back_is_a_branch_on_the_data():
    """``models/refine.py`` branches on ``utils/checks.py``'s ``all_close``, which returns ``bool(m.all())`` (its
    ``reads`` fact): NPU414 at the ``if``; the branch on ``wide(cfg)`` (configuration) runs no tensor operator."""
    result = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    lines = [f.line for path, f in result.findings if path == "detkit/models/refine.py" and f.code == "NPU414"]
    assert lines == [7]


def test_a_reexported_tensor_class_and_a_host_copy_read_back_in_another_module():
    """``detkit/solvers/adaptive.py`` annotates with ``from ..types import Tensor`` (``Tensor = torch.Tensor`` there:
    the index's ``external``), branches on ``utils/checks.py``'s ``error_ratio`` (``err.detach().cpu().item()``:
    read back through the host copy) and calls its own ``self.step`` (no optimizer step: the loop is no training
    loop). Both the adaptive ``while`` (NPU413) and the accept/reject ``if`` (NPU414) are found."""
    result = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    got = sorted((f.line, f.code) for path, f in result.findings if path == "detkit/solvers/adaptive.py")
    assert got == [(17, "NPU413"), (21, "NPU414")], got


def test_a_loader_factory_of_another_module_given_drop_last_is_judged_at_its_call():
    """``engine/fit.py`` calls ``utils/loaders.py``'s ``get_dataloader`` (it forwards its keywords to a
    ``DataLoader``) with ``shuffle=True`` and a ``drop_last`` that is ``False`` by default: a training loader with
    a short last batch. ``drop_last=True`` given is no finding; no ``drop_last`` is one too, now that the index
    knows the factory names none (``return DataLoader(ds, **kwargs)``: the function fact ``forwards_loader``)."""
    result = collect(FIXTURE, Target("2.8.0"), lambda *args: None)
    found = {f.line: f.message for path, f in result.findings if path == "detkit/engine/fit.py" and f.code == "NPU406"}
    assert set(found) == {6, 8}
    assert "(drop_last is False by default)" in found[6]
