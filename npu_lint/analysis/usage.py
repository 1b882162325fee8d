"""What a function's own code shows of a parameter: a name whose methods only a torch tensor has is a tensor.

``def sequence_mask(lengths, max_len=None): ... lengths.unsqueeze(1)``: no caller in the file, no annotation, but
``unsqueeze`` is a method of torch tensors only (numpy, pandas, Python's types and ``nn.Module`` have none), so
``lengths`` is a tensor and ``lengths.max()`` is a 0-d tensor. The evidence is a *call* of such a method on the
name itself, in the function's own body (nested functions and classes are other scopes); a name only read, passed
on or used with methods other types share (``max``, ``sum``, ``to``, ``view``) stays unknown.
"""
from __future__ import annotations

import ast
import re
import unicodedata
from typing import Callable, Optional

from npu_lint.analysis.kinds import TENSOR_ONLY_MASK_METHODS, TENSOR_ONLY_METHODS
from npu_lint.analysis.nodes import body_of, function_text

EVIDENCE = TENSOR_ONLY_METHODS | TENSOR_ONLY_MASK_METHODS
_OTHER_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# A dot, then what may stand between it and the method (spaces, continuations, comments), then an evidence method as
# a whole word: each hit's receiver is read backwards from its dot (see candidate_names).
_DOT_METHOD = re.compile(r"\.(?:[\s\\]|#[^\n#]*)*(?:" + "|".join(sorted(EVIDENCE, key=len, reverse=True)) + r")\b")
_BETWEEN = frozenset(" \t\r\n\f\v)\\")   # what may stand between a receiver name and its dot (``(x).unsqueeze``)


def tensor_method_receivers(function: ast.AST) -> dict[str, list[ast.Name]]:
    """The names of ``function``'s body called with a tensor-only method (``x.unsqueeze(1)``), by name."""
    found: dict[str, list[ast.Name]] = {}
    stack: list[tuple[ast.AST, frozenset[str]]] = [(node, frozenset()) for node in body_of(function)]
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


def candidate_names(function: ast.AST, source: str, store: dict) -> Optional[frozenset[str]]:
    """The names that may be receivers of an evidence method in ``function``'s lines of ``source``, found in its
    text (most functions asked have none, and their bodies are not walked): for each dot followed by an evidence
    method, the identifier before it, past spaces, line breaks and closing parentheses. A superset of what the walk
    finds (strings and comments may add names); None (walk) when a comment may stand between a name and its dot or
    the text has carriage returns.
    Identifiers are compared as Python reads them (NFKC), so a text with other characters is normalised first."""
    text = function_text(function, source, store)
    if text is None:
        return None
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    names = set()
    for hit in _DOT_METHOD.finditer(text):
        end = hit.start()
        while end > 0 and text[end - 1] in _BETWEEN:
            end -= 1
        if "\n" in text[end:hit.start()] and "#" in text[text.rfind("\n", 0, end) + 1:end]:
            return None   # ``(x  # note`` then ``.unsqueeze(1))`` on the next line: walk
        start = end
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        if start < end:
            names.add(text[start:end])
    return frozenset(names)


def used_as_tensor(function: ast.AST, name: str, store: dict, refers: Callable[[ast.Name], bool],
                   source: Optional[str] = None) -> bool:
    """Whether ``function``'s body calls a tensor-only method on ``name`` where ``refers`` says the name is the
    binding asked about. ``store``: the per-file memo of :func:`tensor_method_receivers` (and, with the file's
    ``source``, of :func:`candidate_names`, asked first)."""
    receivers: Optional[object] = store.get(id(function))
    if receivers is None and source is not None:
        receivers = candidate_names(function, source, store)
        if receivers is not None:
            store[id(function)] = receivers
    if isinstance(receivers, frozenset):
        if name not in receivers:
            return False
        receivers = None
    if receivers is None:
        receivers = store[id(function)] = tensor_method_receivers(function)
    assert isinstance(receivers, dict)
    return any(refers(node) for node in receivers.get(name, ()))
