"""tools/support_tables.py: rule_tables/support/<release>.tsv, checked against the vendor's own lists."""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
sys.path.insert(0, str(REPO / "tools"))

import support_tables  # noqa: E402

needs_data = pytest.mark.skipif(not (SHARED_DATA / "vendor_lists" / "vendor_api_lists.csv").is_file(),
                                 reason="../shared/data is not beside the repository")
VENDOR_RELEASES = {"2.1": "2.1.0", "2.6": "2.6.0", "2.7": "2.7.1", "2.8": "2.8.0"}
BASES = re.compile(r"^(official|official_nearest:[0-9][\w.\-]*|vendor_list:(2\.1|2\.6|2\.7|2\.8)|python_fact|"
                   r"special_only|no_kernel_1\.11|derived|derived_cpu_fallback)$")
HEADER = "api\tverdict\tdtypes\tdtype_caveats\tbasis\tsource"


def _vendor_name(name: str) -> str:
    """The table's name for a vendor-list entry (``Tensor.x`` / bare method names; prose tails cut)."""
    name = re.match(r"[A-Za-z_][\w.]*", name, re.ASCII).group(0)
    if name.startswith("Tensor."):
        return "torch." + name
    return name if "." in name else "torch.Tensor." + name


def _load(path: Path) -> dict[str, dict[str, str]]:
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].split("\t")
    return {cells[0]: dict(zip(header, cells)) for cells in (line.split("\t") for line in lines[1:] if line)}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rule_tables")
    support_tables.build(SHARED_DATA, out)
    return out


@needs_data
def test_every_release_has_a_well_formed_table(built):
    files = sorted(p.name for p in (built / "support").iterdir())
    assert files == sorted(f"{release}.tsv" for release in support_tables.RELEASES)
    for release in support_tables.RELEASES:
        raw = (built / "support" / f"{release}.tsv").read_bytes()
        text = raw.decode("utf-8")
        assert b"\r" not in raw and text.endswith("\n") and text.split("\n")[0] == HEADER
        lines = text.split("\n")[1:-1]
        apis = [line.split("\t")[0] for line in lines]
        assert apis == sorted(apis) and len(apis) == len(set(apis)) and len(apis) > 1000, release
        for line in lines:
            cells = line.split("\t")
            assert len(cells) == 6 and all(cell == cell.strip() for cell in cells), line
            api, verdict, dtypes, caveats, basis, source = cells
            assert api.startswith("torch.") and verdict in support_tables.VERDICTS, line
            assert BASES.match(basis) and source and not source.startswith("/"), line
            assert str(SHARED_DATA) not in source, line


@needs_data
def test_vendor_lists_hold_in_the_matching_release(built):
    """Vendor "unsupported" -> unsupported; vendor "supported" -> never unsupported (issue 3 acceptance)."""
    tables = {minor: _load(built / "support" / f"{release}.tsv") for minor, release in VENDOR_RELEASES.items()}
    with (SHARED_DATA / "vendor_lists" / "vendor_api_lists.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows
    for row in rows:
        table = tables[row["torch_minor"]]
        api = _vendor_name(row["api"])
        assert api in table, (row["torch_minor"], api)
        verdict = table[api]["verdict"]
        if row["vendor_list"] == "unsupported":
            assert verdict == "unsupported", (row["torch_minor"], api, table[api])
        else:
            assert verdict != "unsupported", (row["torch_minor"], api, table[api])


@needs_data
def test_the_build_is_byte_identical(built, tmp_path):
    again = support_tables.build(SHARED_DATA, tmp_path)
    assert [p.name for p in again] == [f"{release}.tsv" for release in support_tables.RELEASES] + ["class_methods.tsv"]
    for path in again:
        folder = built / "support" if path.name != "class_methods.tsv" else built
        assert path.read_bytes() == (folder / path.name).read_bytes(), path.name


@needs_data
def test_known_verdicts(built):
    table = {release: _load(built / "support" / f"{release}.tsv") for release in ("1.11.0", "2.5.1", "2.8.0")}
    assert table["2.8.0"]["torch.matmul"]["verdict"] == "supported"
    assert table["2.8.0"]["torch.matmul"]["basis"] == "official"
    assert "fp16" in table["2.8.0"]["torch.matmul"]["dtypes"].split("|")
    assert table["2.8.0"]["torch.std_mean"]["verdict"] == "unsupported"        # a vendor "no" despite a kernel
    assert table["2.8.0"]["torch.Tensor.geometric_"]["verdict"] == "cpu_fallback"
    assert table["2.5.1"]["torch.matmul"]["basis"] == "official_nearest:2.6.0"
    assert table["2.8.0"]["torch.Tensor.sparse_mask"]["basis"] in ("special_only", "official", "vendor_list:2.8")
    assert all(row["basis"] != "derived_cpu_fallback" or row["verdict"] == "cpu_fallback"
               for rows in table.values() for row in rows.values())
    assert any(row["basis"] == "no_kernel_1.11" for row in table["1.11.0"].values())
