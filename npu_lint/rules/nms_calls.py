"""NPU401 at a call of a non-maximum suppression the rule table does not list: a project's or another library's
``batched_nms`` / ``soft_nms`` / ``non_max_suppression`` (a loop of pure torch ops, a CUDA extension, a package the
table does not know). NMS keeps as many boxes as the scores and overlaps let through, whatever it is built on: the
name of the operation it implements says what its output is, as ``torch.nonzero`` does. Not torch_npu's padded NMS
(``npu_nms_v4(pad_to_max_output_size=True)``, ``npu_nms_with_mask``: a fixed-size output and a mask), not a
``*_static`` / ``*_padded`` variant, not a call on numpy data (``py_cpu_nms(dets_np, 0.5)``), nor a helper of the file
whose body runs no torch operator, nor a function of another module of the project that imports no torch package (a
numpy NMS)."""
from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from npu_lint.analysis.names import rooted
from npu_lint.context import FileContext
from npu_lint.host_arrays import is_host_array

# ``nms``, ``batched_nms``, ``soft_nms``, ``multiclass_nms``, ``nms_rotated``, ``nms3d``, ``softnms``,
# ``non_max_suppression``, ``batched_non_maximum_suppression``; the name of the callable, leading underscores
# dropped (``self._nms``). Not a word that merely starts with the letters (``NMSE``, a normalised mean squared error).
_NMS = re.compile(r"(?:[a-z0-9]+_)*(?:soft|fast|matrix|cluster)?nms(?:\d[a-z0-9]*)?(?:_[a-z0-9]+)*"
                  r"|(?:[a-z0-9]+_)*non_max(?:imum)?_suppression(?:_[a-z0-9]+)*")
# Variants with a fixed-size output (padded to a maximum, a keep mask over every box: ``_nms_mask``; TensorRT's
# ``EfficientNMS`` plugin pads to ``keep_top_k``: mmyolo's ``efficient_nms``) or no NMS at all.
_FIXED = re.compile(r"static|pad|mask|efficient|iou|thresh|cfg|config|type|kwargs|args")


# Names that act on an NMS rather than run one: ``attach_onnx_nms`` (edits an exported graph), ``add_nms`` (puts
# an NMS module in the model), ``get_nms`` / ``build_nms`` (return one).
_NOT_RUNNING = frozenset({"attach", "add", "build", "get", "make", "create", "export", "set", "init", "register",
                          "enable", "disable", "configure", "load", "is", "has", "onnx", "trt", "tensorrt", "graph"})


def nms_name(name: Optional[str]) -> bool:
    """``name`` (a qualified name or an attribute) names a non-maximum suppression of data-dependent output."""
    if not name:
        return False
    last = name.rsplit(".", 1)[-1].lstrip("_").lower()
    return bool(_NMS.fullmatch(last)) and not _FIXED.search(last) and not _NOT_RUNNING.intersection(last.split("_")) \
        and not rooted(name, ("torch_npu", "numpy", "np"))


def nms_call(call: ast.Call, name: Optional[str], ctx: FileContext,
             runs_torch: Callable[[Optional[ast.AST], FileContext], bool],
             definition: Optional[ast.AST] = None) -> bool:
    """``call`` (of ``name``) runs a non-maximum suppression on device data as far as the model can tell: no argument
    is evident host data, and a helper of the file it calls runs torch's operators."""
    if not nms_name(name):
        return False
    if any(is_host_array(arg, ctx, call) for arg in call.args[:2]):
        return False
    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) and not runs_torch(definition, ctx):
        return False   # a numpy NMS of the file
    if definition is None and name and ctx.project is not None and ctx.project.host_only_function(name, ctx.module):
        return False   # another module's NMS in a module that imports no torch package: a numpy NMS
    return True
