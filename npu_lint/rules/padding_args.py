"""What a ``padding=`` argument of a tokenizer, processor or collator call may be: a constant, the constants the
names and ``self.x`` attributes bound to it may hold, the default the class hierarchy gives ``self.x`` (a dataclass
field of the class or of a base, a library base's: the semantic model's :func:`attribute_default`), or the value a dict literal
handed over with ``**kwargs`` gives ``padding``. For NPU405 (dynamic_padding.py); nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.defaults import NOT_CONSTANT, attribute_default
from npu_lint.analysis.scopes import PARAM, VALUE
from npu_lint.context import FileContext


def constant(node: Optional[ast.AST]) -> object:
    """A constant's value; ``...`` for anything else."""
    return node.value if isinstance(node, ast.Constant) else ...


_STRATEGIES = {"LONGEST": "longest", "MAX_LENGTH": "max_length", "DO_NOT_PAD": "do_not_pad"}


def padding_values(node: ast.AST, call: ast.Call, ctx: FileContext) -> list[object]:
    """What a ``padding=`` argument may be: a constant, or the constants the names and ``self.x`` attributes
    bound to it may hold (a constructor parameter's default kept in ``self.x``; not a parameter's own default)."""
    resolver = ctx.resolver
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, ast.IfExp):   # ``"max_length" if pad_to_max else "longest"``: either (session 21)
        return padding_values(node.body, call, ctx) + padding_values(node.orelse, call, ctx)
    if isinstance(node, ast.Attribute) and node.attr in _STRATEGIES and (
            resolver.qualname(node) or "").endswith("PaddingStrategy." + node.attr):
        return [_STRATEGIES[node.attr]]   # ``PaddingStrategy.LONGEST`` (session 21, padllm21)
    if resolver.scopes is None:
        return []
    scope = resolver.current
    if isinstance(node, ast.Name):
        bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == resolver.scopes.self_name(scope):
        bindings = resolver.scopes.attribute(scope, node.attr)
        if not bindings:     # a dataclass field of the class or of a base (``DataCollatorWithPadding``'s ``True``)
            found = attribute_default(node.attr, scope, resolver)
            return [] if found is NOT_CONSTANT else [found]
    else:
        return []
    values: list[object] = []
    for binding in bindings:
        value, path = binding.value, binding.path
        if len(path) == 1 and isinstance(value, ast.Tuple) and 0 <= path[0] < len(value.elts):
            value, path = value.elts[path[0]], ()      # ``self.tok, self.padding = tok, padding``
        if path:
            continue
        if isinstance(value, ast.Constant) and binding.tag != PARAM:   # a parameter's default: the caller's choice
            values.append(value.value)
        elif isinstance(value, ast.Name) and binding.tag == VALUE:    # ``self.padding = padding``: its default
            values.extend(constant(b.value) for b in resolver.scopes.may_reach(value.id, binding.scope, (
                value.lineno, value.col_offset)) if b.tag == PARAM and isinstance(b.value, ast.Constant))
    return values


def padding_in_kwargs(call: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """``processor(**kwargs)`` where ``kwargs = {"text": t, "padding": True}`` (or ``self.kwargs``, a dict literal
    bound in any method): the ``True`` / ``"longest"`` the dict literal gives ``padding`` (where the finding sits,
    the line to change, as for ``padding=True`` written in the call), else None. ``dict(padding=True)`` is
    reported where it is written, by the rule's own test of a ``padding=`` keyword."""
    resolver = ctx.resolver
    if resolver.scopes is None:
        return None
    scope = resolver.current
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg is not None:
            continue
        if isinstance(value, ast.Dict):
            bindings = [value]
        elif isinstance(value, ast.Name):
            bindings = [b.value for b in resolver.scopes.may_reach(value.id, scope, (value.lineno, value.col_offset))
                        if b.tag == VALUE and not b.path]
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                and value.value.id == resolver.scopes.self_name(scope):
            bindings = [b.value for b in resolver.scopes.attribute(scope, value.attr) if b.tag == VALUE and not b.path]
        else:
            continue
        for bound in bindings:
            if not isinstance(bound, ast.Dict):
                continue
            for key, item in zip(bound.keys, bound.values):
                if isinstance(key, ast.Constant) and key.value == "padding" and isinstance(item, ast.Constant) \
                        and (item.value is True or item.value == "longest"):
                    return item
    return None


# Keywords only a call that encodes text (a tokenizer, a processor, a collator) takes beside ``padding``.
_TEXT_KEYWORDS = frozenset({"return_tensors", "truncation", "max_length", "return_attention_mask",
                            "pad_to_multiple_of", "add_special_tokens", "return_token_type_ids", "text", "text_pair",
                            "is_split_into_words", "return_offsets_mapping"})
_TEXT_WORDS = ("token", "process", "collat", "encode", "retriev", "embed")


def encodes_text(call: ast.Call, ctx: FileContext) -> bool:
    """``call`` is one that pads text: a function of ``transformers`` / ``tokenizers``, a call given a keyword only
    text encoders take (``return_tensors``, ``truncation``, ``max_length``, ...), or a callee whose name says it
    (``self.tokenizer(...)``, ``processor(...)``, ``self.retrieval_model[0](...)``). A layer or block built with a
    ``padding=True`` flag (``ConvBlock(c, padding=True)``: "same" padding) or a record with a ``padding`` field
    is none."""
    name = ctx.resolver.qualname(call.func) or ""
    if name.startswith(("transformers.", "tokenizers.", "sentence_transformers.")):
        return True
    if any(kw.arg in _TEXT_KEYWORDS for kw in call.keywords):
        return True
    text = ast.unparse(call.func).lower()
    return any(word in text for word in _TEXT_WORDS)


def _entry_key(target: ast.AST) -> Optional[tuple[str, str]]:
    """``("kwargs", "padding")`` for the store ``kwargs["padding"]``; None for anything else."""
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
            and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
        return target.value.id, target.slice.value
    return None


def longest_entry(target: ast.Subscript, ctx: FileContext) -> Optional[ast.AST]:
    """Session 33 (rec33a): ``kwargs["padding"] = "longest"`` in a function that also stores a key only text encoders
    take in the same dict (``kwargs["return_tensors"] = "pt"``, ``kwargs["truncation"] = True``): the keyword arguments
    of a tokenizer call built entry by entry, padding each batch to its longest text. The value stored, else None."""
    key = _entry_key(target)
    if key is None or key[1] != "padding":
        return None
    assign = ctx.parent(target)
    if not isinstance(assign, ast.Assign) or not (isinstance(assign.value, ast.Constant)
                                                  and assign.value.value == "longest"):
        return None
    function = ctx.enclosing(target, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return None
    for stmt in function.body:   # the function's own entries (its top level: a kwargs dict filled in order)
        if isinstance(stmt, ast.Assign) and stmt is not assign and any(
                (_entry_key(t) or ("", ""))[0] == key[0] and (_entry_key(t) or ("", ""))[1] in _TEXT_KEYWORDS
                for t in stmt.targets):
            return assign.value
    return None
