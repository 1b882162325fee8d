"""Test code: where a finding about training shapes tests the code rather than trains (a test module, a pytest
function). Shared by the rules that stay silent there (NPU403, NPU405, NPU406, NPU413-NPU415)."""
from __future__ import annotations

import ast

from npu_lint.context import FileContext

_TEST_PARTS = ("test", "tests", "testing", "test_utils", "conftest")
_HOOKS = frozenset({"test_dataloader", "test_step", "test_epoch_end"})   # Lightning's, not pytest's


def test_code(node: ast.AST, ctx: FileContext) -> bool:
    """A test module (a path part ``tests``, ``test_*``, ``*_test``) or a test function (``def test_*``)."""
    if any(part in _TEST_PARTS or part.startswith("test_") or part.endswith("_test")
           for part in ctx.module.split(".")):
        return True
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    while function is not None:
        if function.name.startswith("test_") and function.name not in _HOOKS:
            return True     # a pytest function (not Lightning's ``test_dataloader`` hook)
        function = ctx.enclosing(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    return False
