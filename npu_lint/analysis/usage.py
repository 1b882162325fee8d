"""What a function's own code shows of a parameter: a name whose methods only a torch tensor has is a tensor.

``def sequence_mask(lengths, max_len=None): ... lengths.unsqueeze(1)``: no caller in the file, no annotation, but
``unsqueeze`` is a method of torch tensors only (numpy, pandas, Python's types and ``nn.Module`` have none), so
``lengths`` is a tensor and ``lengths.max()`` is a 0-d tensor. The evidence is a *call* of such a method on the
name itself, in the function's own body (nested functions and classes are other scopes); a name only read, passed
on or used with methods other types share (``max``, ``sum``, ``to``, ``view``) stays unknown.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from npu_lint.analysis.kinds import TENSOR_ONLY_MASK_METHODS, TENSOR_ONLY_METHODS

EVIDENCE = TENSOR_ONLY_METHODS | TENSOR_ONLY_MASK_METHODS
_OTHER_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def tensor_method_receivers(function: ast.AST) -> dict[str, list[ast.Name]]:
    """The names of ``function``'s body called with a tensor-only method (``x.unsqueeze(1)``), by name."""
    found: dict[str, list[ast.Name]] = {}
    stack: list[tuple[ast.AST, frozenset[str]]] = [(node, frozenset()) for node in getattr(function, "body", ())]
    while stack:
        node, hidden = stack.pop()
        if isinstance(node, _OTHER_SCOPES):
            continue
        if isinstance(node, _COMPREHENSIONS):   # ``[n.unsqueeze(0) for n in items]``: its own ``n``
            hidden = hidden | {t.id for g in node.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in EVIDENCE and isinstance(func.value, ast.Name) \
                    and func.value.id not in hidden:
                found.setdefault(func.value.id, []).append(func.value)
        stack.extend((child, hidden) for child in ast.iter_child_nodes(node))
    return found


def used_as_tensor(function: ast.AST, name: str, store: dict, refers: Callable[[ast.Name], bool]) -> bool:
    """Whether ``function``'s body calls a tensor-only method on ``name`` where ``refers`` says the name is the
    binding asked about. ``store``: the per-file memo of :func:`tensor_method_receivers`."""
    receivers: Optional[dict[str, list[ast.Name]]] = store.get(id(function))
    if receivers is None:
        receivers = store[id(function)] = tensor_method_receivers(function)
    return any(refers(node) for node in receivers.get(name, ()))
