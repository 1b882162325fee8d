"""rule_tables/ is generated: the committed files must equal a fresh build from ../shared/data."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO, SHARED_DATA
from npu_lint import tables
from npu_lint.cuda_facts import api_row, env_var_row, library_row


@pytest.mark.skipif(not (SHARED_DATA / "rules" / "cuda_table.csv").exists(), reason="../shared/data is not beside the repo")
def test_committed_tables_equal_a_regeneration(tmp_path):
    out = tmp_path / "rule_tables"
    for _ in range(2):   # twice: the build must be deterministic
        result = subprocess.run([sys.executable, str(REPO / "tools" / "build_rule_tables.py"), "--data",
                                 str(SHARED_DATA), "--out", str(out)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    built = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert built, "the generator wrote nothing"
    for relative in built:
        assert (REPO / "rule_tables" / relative).read_bytes() == (out / relative).read_bytes(), relative


def test_generator_refuses_a_missing_data_folder(tmp_path):
    result = subprocess.run([sys.executable, str(REPO / "tools" / "build_rule_tables.py"), "--data",
                             str(tmp_path / "nothing"), "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert result.returncode == 2 and "no upstream data" in result.stderr and not (tmp_path / "out").exists()


def test_rows_keep_their_provenance():
    for name in ("cuda_apis.tsv", "cuda_env_vars.tsv", "cuda_libraries.tsv", "cuda_constructs.tsv"):
        rows = tables.read_tsv(name)
        assert rows and all(row["source"] for row in rows), name


def test_lookups():
    assert api_row("torch.cuda.synchronize")["status"] == "redirected"
    assert api_row("torch.cuda.Stream.wait_stream")["api"] == "torch.cuda.Stream"
    assert api_row("torch.cuda.some_future_api")["status"] == "unlisted"
    assert api_row("torch.autocast") is None            # CUDA only through its device argument
    assert api_row("torch.npu.synchronize") is None
    assert env_var_row("NCCL_IB_DISABLE")["ascend_counterpart"] == "HCCL_*"
    assert env_var_row("CUDA_VISIBLE_DEVICES")["ascend_counterpart"] == "ASCEND_RT_VISIBLE_DEVICES"
    assert env_var_row("ASCEND_RT_VISIBLE_DEVICES") is None
    assert library_row("triton.language")["code"] == "NPU217" and library_row("tritonclient") is None


def test_tables_are_read_once_per_process():
    tables.read_tsv.cache_clear()
    first = tables.read_tsv("cuda_apis.tsv")
    assert tables.read_tsv("cuda_apis.tsv") is first
    assert tables.read_tsv.cache_info().misses == 1


def test_every_cuda_only_library_of_the_table_passes_the_rules_pre_filter():
    """A library added to cuda_libraries.tsv must reach its rule: the file pre-filter runs a rule only when one
    of its trigger words is in the source (an import of GPUtil alone was skipped while no word matched it)."""
    from npu_lint.rules.cuda_code import ApexImport, CudaOnlyLibrary
    from npu_lint.tables import read_tsv
    for row in read_tsv("cuda_libraries.tsv"):
        rule = CudaOnlyLibrary if row["code"] == "NPU217" else ApexImport
        assert any(word in row["module"] for word in rule.triggers), row["module"]


def test_library_classes_have_their_torch_base_kind():
    """Another library's DataLoader subclass is a loader to the model; its positional arguments are its own."""
    from npu_lint.analysis import kinds
    from npu_lint.analysis.library_classes import loader_names, loader_parameters
    rows = tables.read_tsv("library_classes.tsv")
    assert rows and all(row["source"] and "@" in row["source"] for row in rows)
    assert kinds.of_class("torch_geometric.loader.DataLoader") == (kinds.LOADER, "torch_geometric.loader.DataLoader")
    assert kinds.of_class("torch_geometric.data.DataLoader")[0] == kinds.LOADER
    assert loader_parameters("torch_geometric.loader.DataLoader") == ("dataset", "batch_size", "shuffle")
    assert loader_parameters("dgl.dataloading.GraphDataLoader") == ("dataset",)
    assert loader_parameters("torch.utils.data.DataLoader")[:3] == ("dataset", "batch_size", "shuffle")
    assert loader_parameters("torch_geometric.data.Data") is None and kinds.of_class("torch_geometric.data.Data") is None
    assert "AtomsLoader" in loader_names() and not any("DataLoader" in name for name in loader_names())
