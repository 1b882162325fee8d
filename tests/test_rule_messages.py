"""Messages that read as sentences whatever the table row says."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source


@pytest.mark.parametrize(("name", "expected"), [
    ("CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES is ignored on NPU: use ASCEND_RT_VISIBLE_DEVICES"),
    ("CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_DEVICE_MAX_CONNECTIONS is ignored by the NPU runtime"),
    ("CUDA_HOME", "CUDA_HOME is the CUDA toolkit path: NPU builds use the CANN toolkit (ASCEND_HOME_PATH / set_env.sh)"),
])
def test_env_var_messages_read_as_sentences(name: str, expected: str) -> None:
    findings = analyse_source(f"import os\nvalue = os.environ.get({name!r})\n", codes=frozenset({"NPU219"}))
    assert [f.message for f in findings] == [expected]
