"""``collect`` runs the rules a report keeps and the API inventory only when asked (``npu-lint analyse --select``,
``-m affinity_apis``), and its result cache tells such runs apart; without a cache it hashes nothing."""
from __future__ import annotations

from pathlib import Path

from npu_lint.report import collect as collect_module
from npu_lint.report.cache import ResultCache
from npu_lint.report.collect import collect
from npu_lint.versions import Target

FIXTURE = Path(__file__).parent / "project_fixture"
TARGET = Target("2.8.0")


def _codes(result) -> set[str]:
    return {finding.code for _, finding in result.findings}


def test_a_narrowed_run_keeps_the_findings_of_its_rules():
    whole = collect(FIXTURE, TARGET, lambda *args: None)
    chosen = frozenset(code for code in _codes(whole) if code.startswith("NPU2"))
    assert chosen and _codes(whole) - chosen   # the fixture has findings of both kinds
    narrowed = collect(FIXTURE, TARGET, lambda *args: None, codes=chosen)
    assert _codes(narrowed) == chosen
    assert narrowed.findings == [(path, f) for path, f in whole.findings if f.code in chosen]
    assert narrowed.inventory == whole.inventory and whole.inventory


def test_no_inventory_when_the_report_writes_none():
    result = collect(FIXTURE, TARGET, lambda *args: None, inventory=False)
    assert result.inventory == [] and result.findings == collect(FIXTURE, TARGET, lambda *args: None).findings


def test_the_result_cache_keeps_narrowed_runs_apart(tmp_path):
    chosen = frozenset({"NPU201"})
    narrowed = collect(FIXTURE, TARGET, lambda *args: None, cache=ResultCache(tmp_path), codes=chosen)
    whole = collect(FIXTURE, TARGET, lambda *args: None, cache=ResultCache(tmp_path))   # not the narrowed results
    assert _codes(narrowed) <= chosen and _codes(whole) - chosen
    again = collect(FIXTURE, TARGET, lambda *args: None, cache=ResultCache(tmp_path), codes=chosen)
    assert again.findings == narrowed.findings


def test_no_digest_without_a_cache(monkeypatch):
    hashed: list[bytes] = []
    real = collect_module.hashlib.sha256
    monkeypatch.setattr(collect_module.hashlib, "sha256", lambda data=b"": hashed.append(data) or real(data))
    collect(FIXTURE, TARGET, lambda *args: None)
    assert hashed == []
