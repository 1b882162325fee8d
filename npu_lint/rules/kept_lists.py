"""Growth a caller cannot see in its own loop, for NPU408 (dynamic_growth.py): a list kept between calls, appended
and joined at every call,
``res = cache[key]; res.append(out); out = torch.stack(res, dim=1)`` -- a decoder's self-attention cache kept as a
list of every step so far, one item longer at each call of the decoding loop."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.step_growth import storage_root
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES


def _state(value: ast.AST, functions: list[ast.AST]) -> bool:
    """``cache[key]`` / ``self.states`` / ``state.keys``: storage rooted at ``self`` or a parameter of the
    function or of one around it (a closure's ``cache``), kept by the caller between calls (not a list made here)."""
    root = storage_root(value)
    if root is None:
        return False
    names = {a.arg for function in functions for args in (function.args,)   # type: ignore[attr-defined]
             for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    return root.id in names


def kept_list(node: ast.Call, pieces: ast.Name, ctx: FileContext) -> Optional[ast.AST]:
    """The storage ``pieces`` was read from when the function binds ``pieces = <state>`` (once), appends to it and
    joins it after the append (``node``): the joined tensor is one step longer at every call. Else None."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    functions: list[ast.AST] = []
    outer: Optional[ast.AST] = function
    while isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(functions) < 3:
        functions.append(outer)
        outer = ctx.enclosing(outer, FUNCTION_TYPES)
    read: Optional[ast.Assign] = None
    appended = False
    for child in walk(function):
        if isinstance(child, (ast.Assign, ast.AnnAssign)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            if any(isinstance(t, ast.Name) and t.id == pieces.id for t in targets):
                if read is not None or child.value is None or not _state(child.value, functions) \
                        or child.lineno > node.lineno:
                    if child.lineno < node.lineno:
                        return None   # bound anew before the join: not (only) the kept list
                    continue
                read = child   # type: ignore[assignment]
        elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                and child.func.attr in ("append", "extend") and isinstance(child.func.value, ast.Name) \
                and child.func.value.id == pieces.id and child.lineno <= node.lineno:
            appended = True
    if read is None or not appended:
        return None
    return read.value


# Keywords only a token generation takes (Hugging Face ``generate`` and its look-alikes: BLIP's text decoder,
# Q-Former): the prompt, the length bounds, the search.
_GENERATION = ("input_ids", "max_length", "max_new_tokens", "min_length", "generation_config", "num_beams",
               "do_sample", "eos_token_id", "inputs_embeds", "top_p", "top_k", "num_return_sequences")


def generation_keywords(node: ast.Call, ctx: Optional[FileContext] = None) -> list[str]:
    """The generation keywords ``x.generate(...)`` passes (``input_ids=``, ``max_length=``, ``num_beams=``), in
    order, also through ``**kwargs`` of a dict the function builds (``generate_kwargs = dict(max_length=n, ...)``,
    a ``{"max_length": n}`` display) when ``ctx`` is given; empty for any other ``generate`` (a data generator's,
    a vLLM engine's ``sampling_params``)."""
    found = [k.arg for k in node.keywords if k.arg in _GENERATION]
    for k in node.keywords:
        if k.arg is None and isinstance(k.value, ast.Name) and ctx is not None:
            binding = ctx.resolver.binding(k.value)
            value = binding.value if binding is not None and binding.tag == "value" and not binding.path else None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
                    and ctx.resolver.binding(value.func) is None:
                found += [kw.arg for kw in value.keywords if kw.arg in _GENERATION]
            elif isinstance(value, ast.Dict):
                found += [key.value for key in value.keys if isinstance(key, ast.Constant) and key.value in _GENERATION]
            function = ctx.enclosing(node, FUNCTION_TYPES)   # ``generate_kwargs["eos_token_id"] = eos`` before it
            for statement in walk(function) if function is not None else ():
                if isinstance(statement, ast.Assign) and statement.lineno < node.lineno:
                    found += [t.slice.value for t in statement.targets if isinstance(t, ast.Subscript)
                              and isinstance(t.value, ast.Name) and t.value.id == k.value.id
                              and isinstance(t.slice, ast.Constant) and t.slice.value in _GENERATION]
    return found
