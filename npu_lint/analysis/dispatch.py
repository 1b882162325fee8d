"""Code that already dispatches to the NPU: an ``if``/``elif`` arm, a conditional expression or a dict entry
for CUDA beside one for the NPU.

::

    if device.type == "cuda":
        torch.cuda.set_device(device)          # not reported: the next arm handles the NPU
    elif device.type == "npu":
        torch.npu.set_device(device)

    backends = {"cuda": "nccl", "npu": "hccl"}  # not reported: a table with an NPU entry

A CUDA finding in such code asks for nothing the code does not already do. "Mentions the NPU" means a string,
name or attribute with ``npu`` as a word (``"npu:0"``, ``torch_npu``, ``is_npu_available``; not ``input``),
or ``hccl`` / ``ascend``.
"""
from __future__ import annotations

import ast
import re
from npu_lint.analysis.nodes import walk
from typing import Callable, Optional

_NPU = re.compile(r"(?<![a-z])(npu|hccl|ascend)(?![a-z])", re.IGNORECASE)
Parent = Callable[[ast.AST], Optional[ast.AST]]


def _mentions_npu(nodes: list[ast.AST]) -> bool:
    for root in nodes:
        for node in walk(root):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            elif isinstance(node, ast.Name):
                text = node.id
            elif isinstance(node, ast.Attribute):
                text = node.attr
            elif isinstance(node, ast.alias):
                text = node.name
            else:
                continue
            if _NPU.search(text):
                return True
    return False


def _arms(chain: ast.If) -> list[list[ast.AST]]:
    """The arms of an ``if``/``elif``/``else`` chain, each as its test and its statements."""
    arms: list[list[ast.AST]] = []
    node: Optional[ast.If] = chain
    while node is not None:
        arms.append([node.test, *node.body])
        rest = node.orelse
        if len(rest) == 1 and isinstance(rest[0], ast.If):
            node = rest[0]
        else:
            if rest:
                arms.append(list(rest))
            node = None
    return arms


def handled_on_npu(node: ast.AST, parent: Parent, memo: dict[int, bool]) -> bool:
    """``node`` sits in one branch of an ``if`` chain, conditional expression or dict whose other branches
    mention the NPU."""
    child, current = node, parent(node)
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if isinstance(current, ast.If):
            top = current
            while isinstance(parent(top), ast.If) and parent(top).orelse == [top]:   # ``elif``: its chain's head
                top = parent(top)
            if _other_arm_mentions_npu(top, child, memo):
                return True
        elif isinstance(current, ast.IfExp):
            other = current.orelse if child is current.body else current.body if child is current.orelse else None
            if other is not None and _mentions_npu([other]):
                return True
        elif isinstance(current, ast.Dict):
            if _mentions_npu([n for n in (*current.keys, *current.values) if n is not None and n is not child]):
                return True
        child, current = current, parent(current)
    return False


def _other_arm_mentions_npu(chain: ast.If, child: ast.AST, memo: dict[int, bool]) -> bool:
    arms = _arms(chain)
    mine = next((i for i, arm in enumerate(arms) if any(part is child for part in arm)), None)
    if mine is None:   # ``child`` is a nested ``elif`` node: the arms from it on are handled at that level
        return False
    key = id(chain) * 64 + min(mine, 63)
    if key not in memo:
        memo[key] = any(_mentions_npu(arm) for i, arm in enumerate(arms) if i != mine)
    return memo[key]
