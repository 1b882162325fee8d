"""Gates and memos of session 24 (speed24): each answers as the work it spares would."""
from __future__ import annotations

import ast

import pytest

from npu_lint import config as configuration
from npu_lint.config import ConfigError
from npu_lint.rules.empty_tests import counts_something


def test_a_pyproject_is_parsed_once_while_unchanged_and_again_once_changed(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.npu-lint]\nselect = ["NPU4"]\n')
    first = configuration._toml_read_once(path)
    assert configuration._toml_read_once(path) is first
    path.write_text('[tool.npu-lint]\nselect = ["NPU1", "NPU2"]\n')   # another size: read again
    assert configuration._toml_read_once(path)["tool"]["npu-lint"]["select"] == ["NPU1", "NPU2"]
    path.write_text("[tool.npu-lint\n")
    for _ in range(2):   # a broken file raises each time it is asked
        with pytest.raises(ConfigError):
            configuration._toml_read_once(path)


@pytest.mark.parametrize("test, counts", [
    ("len(keep) == 0", True), ("boxes.numel() == 0", True), ("not x.shape[0]", True), ("0 < x.size(0)", True),
    ("a and len(b) < 1", True), ("x.numel()", True),
    ("x is None", False), ("x.sum() > 0", False), ("len(keep) == 2", False), ("self.training", False),
])
def test_counts_something_is_the_syntax_empty_tests_start_from(test, counts):
    assert counts_something(ast.parse(test, mode="eval").body) is counts
