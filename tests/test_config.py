"""[tool.npu-lint] in pyproject.toml, version selection, and code selection."""
from __future__ import annotations

from pathlib import Path

import pytest

from npu_lint import config as configuration
from npu_lint.config import ConfigError, enabled_codes
from npu_lint.rules import all_rules
from npu_lint.versions import Target, UnknownVersion, default_release, known_releases, parse_target


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_full_table(tmp_path):
    path = write(tmp_path / "pyproject.toml", """
[tool.npu-lint]
torch-version = "2.6"
select = ["NPU2"]
ignore = ["npu205"]
extend-exclude = ["legacy/"]
[tool.npu-lint.per-file-ignores]
"tests/*" = ["NPU203"]
""")
    config = configuration.load(path)
    assert config.torch_version == "2.6" and config.select == ("NPU2",) and config.ignore == ("NPU205",)
    assert config.ignored_for(tmp_path / "tests" / "test_x.py") == ("NPU203",)
    assert config.ignored_for(tmp_path / "src" / "x.py") == ()
    assert config.excludes(tmp_path / "legacy" / "old.py")
    assert config.excludes(tmp_path / "pkg" / "__pycache__" / "x.py")
    assert not config.excludes(tmp_path / "src" / "legacy_tools.py")


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(tmp_path):
    """ruff's convention: ``exclude`` is the whole list, ``extend-exclude`` adds to the defaults."""
    replaced = configuration.load(write(tmp_path / "a" / "pyproject.toml", '[tool.npu-lint]\nexclude = ["gen/"]\n'))
    assert replaced.excludes(tmp_path / "a" / "gen" / "x.py")
    assert not replaced.excludes(tmp_path / "a" / "venv" / "x.py")
    extended = configuration.load(write(tmp_path / "b" / "pyproject.toml", '[tool.npu-lint]\nextend-exclude = ["gen/"]\n'))
    assert extended.excludes(tmp_path / "b" / "gen" / "x.py") and extended.excludes(tmp_path / "b" / "venv" / "x.py")


def test_build_output_names_skip_output_but_keep_packages_so_named(tmp_path):
    """``dist`` / ``build`` of the defaults are build output (wheels, ``build/lib`` copies); a Python package so
    named (``mmengine/dist/__init__.py``, the distributed helpers) is source and is checked. Listed by the user in
    ``extend-exclude``, it is skipped."""
    config = configuration.load(write(tmp_path / "a" / "pyproject.toml", "[tool.npu-lint]\n"))
    write(tmp_path / "a" / "pkg" / "dist" / "__init__.py", "")
    assert not config.excludes(tmp_path / "a" / "pkg" / "dist" / "utils.py")
    assert not config.excludes(tmp_path / "a" / "pkg" / "dist")
    assert config.excludes(tmp_path / "a" / "build" / "lib" / "pkg" / "x.py")
    assert config.excludes(tmp_path / "a" / "dist" / "x.py")
    extended = configuration.load(write(tmp_path / "b" / "pyproject.toml", '[tool.npu-lint]\nextend-exclude = ["dist"]\n'))
    write(tmp_path / "b" / "pkg" / "dist" / "__init__.py", "")
    assert extended.excludes(tmp_path / "b" / "pkg" / "dist" / "utils.py")


@pytest.mark.parametrize("key,value,suggestion", [
    ("select", "NPU9", "NPU419"), ("ignore", "NPU999", "NPU419"), ("extend-select", "NPU2055", "NPU205"),
    ("select", "NPUX", None), ("select", "E501", None),
])
def test_unknown_selectors_are_errors_with_the_nearest_code(tmp_path, key, value, suggestion):
    path = write(tmp_path / "pyproject.toml", f'[tool.npu-lint]\n{key} = ["{value}"]\n')
    with pytest.raises(ConfigError) as error:
        configuration.load(path)
    message = str(error.value)
    assert f"unknown rule selector: '{value}'" in message and key in message and "\n" not in message
    if suggestion:
        assert f"did you mean {suggestion}?" in message


def test_known_prefixes_and_all_are_selectors():
    assert [configuration.selector(s) for s in ("NPU", "npu2", "NPU20", "NPU205", "NPU0", "all")] == \
        ["NPU", "NPU2", "NPU20", "NPU205", "NPU0", "ALL"]


@pytest.mark.parametrize("table,key", [
    ('colour = "red"', "colour"),
    ('torch-version = 2.6', "torch-version"),
    ('torch-version = "9.9"', "torch-version"),
    ('select = "NPU2"', "select"),
    ('select = ["E501"]', "select"),
    ('ignore = [1]', "ignore"),
    ('per-file-ignores = ["x"]', "per-file-ignores"),
    ('exclude = "build"', "exclude"),
])
def test_bad_values_name_the_key(tmp_path, table, key):
    path = write(tmp_path / "pyproject.toml", f"[tool.npu-lint]\n{table}\n")
    with pytest.raises(ConfigError) as error:
        configuration.load(path)
    message = str(error.value)
    assert key in message and "\n" not in message


def test_invalid_toml_is_one_line(tmp_path):
    path = write(tmp_path / "pyproject.toml", "[tool.npu-lint\nselect = [\n")
    with pytest.raises(ConfigError) as error:
        configuration.load(path)
    assert "invalid TOML" in str(error.value) and "\n" not in str(error.value)


def test_nearest_pyproject_with_a_table_wins(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.npu-lint]\ntorch-version = "2.1.0"\n')
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'x'\n")     # no table: keep looking up
    write(tmp_path / "sub" / "deeper" / "pyproject.toml", '[tool.npu-lint]\ntorch-version = "2.8.0"\n')
    (tmp_path / "sub" / "pkg").mkdir()
    assert configuration.find(tmp_path / "sub" / "pkg").torch_version == "2.1.0"
    assert configuration.find(tmp_path / "sub" / "deeper").torch_version == "2.8.0"


@pytest.mark.parametrize("text,release,post", [
    ("2.1", "2.1.0", 0), ("2.1.0", "2.1.0", 0), ("2.6.0.post3", "2.6.0", 3), ("2.3", "2.3.1", 0),
    ("v2.7.1", "2.7.1", 0), ("1.11", "1.11.0", 0), ("2.14.0", "2.14.0", 0),
])
def test_versions(text, release, post):
    assert parse_target(text) == Target(release, post)


@pytest.mark.parametrize("text", ["2.0", "2.3.0", "3", "latest", "", "2.15.0"])
def test_unknown_versions_list_the_known_ones(text):
    with pytest.raises(UnknownVersion) as error:
        parse_target(text)
    assert "2.1.0" in str(error.value) and "2.14.0" in str(error.value)


def test_default_is_the_newest_table():
    assert default_release() == known_releases()[-1] == "2.14.0"
    assert len(known_releases()) == 15


def test_code_selection():
    every = {r.code for r in all_rules() if r.default_enabled} | {"NPU001"}
    assert enabled_codes() == every
    assert enabled_codes(["ALL"]) == {r.code for r in all_rules()} | {"NPU001"}
    assert enabled_codes(["ALL"], ["NPU1"]) == {r.code for r in all_rules() if not r.code.startswith("NPU1")} | {"NPU001"}
    assert enabled_codes(["NPU2"], ["NPU001"]) == {c for c in every if c.startswith("NPU2")}
    assert enabled_codes(["NPU2"], ["NPU205"]) == {c for c in every if c.startswith("NPU2")} - {"NPU205"}
    assert enabled_codes(["NPU205"]) == {"NPU205"}
    assert enabled_codes(["NPU"], ["NPU2"]) == {c for c in every if not c.startswith("NPU2")}
    assert enabled_codes(["NPU20"], ["NPU2"]) == {c for c in every if c.startswith("NPU20")}
