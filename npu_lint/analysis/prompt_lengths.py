"""Positions sized by a prompt's own length in a generation function: ``input_pos = torch.arange(0, prompt.size(0))``
before the decoding loop (the prefill runs at the length of each prompt given). A generation function here is one
with a decoding loop: a loop that calls a model (a value the model knows as an ``nn.Module``, called or handed to
a step function) and reads a token back from its output (``.item()``, ``argmax``, ``multinomial``, a sampler); a
model's ``forward`` is none. The prompt is a parameter of the function, its length read from its shape
(``prompt.size(0)``, ``prompt.shape[-1]``, ``len(prompt)``), also through the names bound to it
(``T = prompt.size(0)``).

Asked by NPU419 (natural_inputs.py); memoised per function."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE, Scope
from npu_lint.analysis.summaries import memo

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

# Positions of the prompt (the prefill's ``input_pos`` / ``position_ids``).
FACTORIES = frozenset({"torch.arange"})
# Reading a token back from the model's output: the loop decodes.
_FEEDBACK = frozenset({"item", "multinomial", "argmax", "sample", "topk"})
_SHAPES = frozenset({"shape", "size", "numel"})
_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def prompt_sized(resolver: "Resolver", call: ast.Call, function: ast.AST, scope: Scope,
                 in_loop: bool) -> Optional[str]:
    """The parameter of ``function`` whose length sizes the factory ``call`` (outside a loop) when ``function`` runs
    a decoding loop; else None."""
    if in_loop or resolver.qualname(call.func, scope) not in FACTORIES \
            or getattr(function, "name", "") in ("forward", "__call__"):
        return None     # a model's own forward sizes its positions by its input: not a generation function
    args = function.args   # type: ignore[attr-defined]
    parameters = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} - {"self", "cls"}
    sizes = [a for a in call.args] + [kw.value for kw in call.keywords if kw.arg in ("size", "end", "start")]
    found = None
    for size in sizes:
        found = _length_of(resolver, size, scope, parameters, 0)
        if found:
            break
    if not found or not decodes(resolver, function, scope):
        return None
    return found


def _length_of(resolver: "Resolver", node: ast.AST, scope: Scope, parameters: set[str], depth: int) -> Optional[str]:
    if depth > 3 or resolver.scopes is None:
        return None
    for child in walk(node):
        base = None
        if isinstance(child, ast.Attribute) and child.attr in _SHAPES:
            base = child.value
        elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == "len" and child.args:
            base = child.args[0]
        if isinstance(base, ast.Name) and base.id in parameters and not _rebound(resolver, base, scope):
            return base.id
        if isinstance(child, ast.Name) and child.id not in parameters:
            for binding in resolver.scopes.may_reach(child.id, scope, (child.lineno, child.col_offset)):
                if binding.tag == VALUE and isinstance(binding.value, ast.AST) and binding.scope is scope:
                    found = _length_of(resolver, binding.value, scope, parameters, depth + 1)
                    if found:
                        return found
    return None


def _rebound(resolver: "Resolver", name: ast.Name, scope: Scope) -> bool:
    """The parameter's name is reassigned before the read (not the prompt as given)."""
    assert resolver.scopes is not None
    return any(b.tag == VALUE for b in resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)))


def decodes(resolver: "Resolver", function: ast.AST, scope: Scope) -> bool:
    """``function`` has a decoding loop: a loop of its own that calls a model (or hands one to a call) and reads a
    token back (``.item()``, ``argmax``, ``multinomial``, a sampler)."""
    def compute() -> bool:
        for loop in _own_loops(function):
            model = feedback = False
            for child in walk(loop):
                if not isinstance(child, ast.Call):
                    continue
                func = child.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if name in _FEEDBACK:
                    feedback = True
                if not model:
                    for value in [func, *child.args, *(kw.value for kw in child.keywords)]:
                        if isinstance(value, (ast.Name, ast.Attribute)):
                            kind = resolver.value_of(value, scope)
                            if kind is not None and kind[0] == "module":
                                model = True
                                break
                if model and feedback:
                    return True
        return False
    return bool(memo(resolver._summaries, ("decodes", id(function)), compute))


def _own_loops(function: ast.AST) -> list[ast.AST]:
    """The loops of the function's own body (not of functions nested in it), outermost first."""
    loops, stack = [], list(getattr(function, "body", ()))
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, _LOOPS):
            loops.append(node)
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, field, ()) or ())
    return loops
