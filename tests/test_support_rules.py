"""NPU1xx against the vendor's own lists: every API the vendor analyser lists as unsupported for 2.1, 2.6,
2.7 or 2.8 is reported when code for that release calls it; no API it lists as supported is NPU101."""
from __future__ import annotations

import csv
import re

import pytest

from conftest import SHARED_DATA, run, tool
from npu_lint.core import analyse_source
from npu_lint.rules import all_rules
from npu_lint.versions import parse_target

VENDOR = SHARED_DATA / "vendor_lists" / "vendor_api_lists.csv"
RELEASES = {"2.1": "2.1.0", "2.6": "2.6.0", "2.7": "2.7.1", "2.8": "2.8.0"}
EVERY_CODE = frozenset(rule.code for rule in all_rules())
needs_data = pytest.mark.skipif(not VENDOR.is_file(), reason="../shared/data is not beside the repository")


def vendor_apis(minor: str, verdict: str) -> list[str]:
    names = set()
    with VENDOR.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["torch_minor"] == minor and row["vendor_list"] == verdict:
                match = re.match(r"[A-Za-z_][\w.]*", row["api"], re.ASCII)
                name = match.group(0) if match else ""
                name = "torch." + name if name.startswith("Tensor.") else name
                name = name if "." in name else "torch.Tensor." + name
                if name.startswith("torch.") and all(part.isidentifier() for part in name.split(".")):
                    names.add(name)
    return sorted(names)


def call_site(api: str) -> str:
    """Code that uses ``api`` as users write it: a tensor method on an evident tensor, else a call."""
    if api.startswith("torch.Tensor."):
        return f"torch.randn(2).{api[len('torch.Tensor.'):]}()"
    return f"{api}()"


def findings_by_line(apis: list[str], release: str) -> dict[int, set[str]]:
    source = "import torch\n" + "".join(f"_ = {call_site(api)}\n" for api in apis)
    found: dict[int, set[str]] = {}
    for finding in analyse_source(source, target=parse_target(release), codes=EVERY_CODE, noqa=False):
        found.setdefault(finding.line, set()).add(finding.code)
    return {line - 1: codes for line, codes in found.items()}   # 1-based API index


@needs_data
@pytest.mark.parametrize("minor", sorted(RELEASES))
def test_vendor_unsupported_apis_are_reported(minor):
    apis = vendor_apis(minor, "unsupported")
    found = findings_by_line(apis, RELEASES[minor])
    missed = [api for index, api in enumerate(apis, 1)
              if not ({"NPU101"} & found.get(index, set())
                      or (api.startswith(("torch.cuda", "torch.backends.cud", "torch.nn.DataParallel",
                                          "torch.nn.parallel.data_parallel", "torch.utils.cpp_extension",
                                          "torch.autograd.profiler"))
                          and any(code.startswith("NPU2") for code in found.get(index, set()))))]
    assert len(apis) > 150
    assert missed == []


@needs_data
@pytest.mark.parametrize("minor", sorted(RELEASES))
def test_vendor_supported_apis_are_not_npu101(minor):
    apis = vendor_apis(minor, "supported")
    found = findings_by_line(apis, RELEASES[minor])
    wrongly = [api for index, api in enumerate(apis, 1) if "NPU101" in found.get(index, set())]
    assert len(apis) > 2000
    assert wrongly == []


def test_verdicts_follow_the_target_release():
    source = "import torch\nx = torch.randn(4)\ny = x.unique_consecutive()\n"
    by_release = {release: [f.code for f in analyse_source(source, target=parse_target(release))]
                  for release in ("2.7.1", "2.8.0")}
    assert "NPU101" not in by_release["2.7.1"] and "NPU101" in by_release["2.8.0"]


def test_plainly_fine_names_are_never_unknown():
    source = ("import torch\nfrom torch.utils.data import DataLoader\np = torch.nn.Parameter(torch.zeros(2))\n"
              "t = torch.Tensor(3)\nloader = DataLoader(ds, batch_size=2)\nm = torch.nn.Module()\n")
    assert analyse_source(source, codes=frozenset({"NPU101", "NPU102", "NPU104"})) == []


def test_tables_diff_command(tmp_path):
    result = run([tool("npu-lint"), "tables", "diff", "2.7", "2.8"], cwd=tmp_path)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "api\t2.7.1\t2.8.0"
    assert "torch.unique_consecutive\tsupported\tunsupported" in lines
    assert "APIs change verdict" in result.stderr
    bad = run([tool("npu-lint"), "tables", "diff", "2.7", "9.9"], cwd=tmp_path)
    assert bad.returncode == 2 and "unknown torch-npu version" in bad.stderr


def test_affinity_suggestions_follow_the_target_release():
    source = "import torch.nn as nn\nrnn = nn.LSTM(128, 256, bidirectional=True)\nact = nn.SiLU()\n"
    old = [f.line for f in analyse_source(source, target=parse_target("2.1.0"), codes=frozenset({"NPU301"}))]
    new = [f.line for f in analyse_source(source, target=parse_target("2.8.0"), codes=frozenset({"NPU301"}))]
    assert old == [2, 3] and new == []   # contrib BiLSTM and SiLU are deprecated from torch-npu 2.6.0
