"""Host arrays (numpy, pandas, ``.cpu()`` tensors) come from the semantic model's bindings: a name is a host
array when a binding that reaches the use is assigned one (npu_lint/host_arrays.py)."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source
from npu_lint.versions import Target


def codes(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in analyse_source(source, Target("2.8.0"), codes=frozenset({"NPU402", "NPU303"}))]


@pytest.mark.parametrize("source", [
    # a closure reads the enclosing function's numpy array (the old per-function table missed it)
    "import numpy as np\nimport torch\ndef f(t):\n    arr = np.asarray(t)\n    def g():\n"
    "        return arr[arr > 0]\n    return g\n",
    # the array comes through two names
    "import numpy as np\nimport torch\ndef f(t):\n    a = t.cpu().numpy()\n    b = a * 2\n    return b[b > 1]\n",
    # bound at module level, read in a function (late binding)
    "import numpy as np\nimport torch\ndef f():\n    return GRID[GRID > 0]\nGRID = np.arange(10)\n",
    # one arm gives a numpy array: the value may be on the host, stay silent
    "import numpy as np\nimport torch\ndef f(t, c):\n    if c:\n        a = np.zeros(3)\n    else:\n"
    "        a = t.numpy()\n    a[a > 0] = 0\n",
])
def test_host_arrays_are_silent(source):
    assert codes(source) == []


@pytest.mark.parametrize("source, expected", [
    # rebound to a tensor before the use: the numpy binding no longer reaches it
    ("import numpy as np\nimport torch\ndef f(t):\n    a = np.asarray(t)\n    a = torch.from_numpy(a).cuda()\n"
     "    return a[a > 0]\n", [("NPU402", 6)]),
    # a numpy array in another function does not make this one's tensor a host array
    ("import numpy as np\nimport torch\ndef f(t):\n    a = np.asarray(t)\n    return a\n"
     "def g(x):\n    a = torch.relu(x)\n    return a[a > 0]\n", [("NPU402", 8)]),
])
def test_tensors_beside_host_arrays_fire(source, expected):
    assert codes(source) == expected
