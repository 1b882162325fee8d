"""npu-lint: find what breaks, what is slow and what has a faster NPU API when PyTorch code moves to Ascend NPUs."""
from __future__ import annotations

__version__ = "0.1.0"

from npu_lint.finding import Finding  # noqa: E402

__all__ = ["Finding", "__version__"]
