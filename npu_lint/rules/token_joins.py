"""NPU409, session 27 (recall27a): a join of text the function tokenises.

A tokenizer gives as many ids as the text has tokens: ``torch.cat((encoded_prompt, encoded_response))`` in a
dataset's ``__getitem__``, ``torch.cat([prompt_ids, answer_ids], dim=-1)`` of ``tokenizer(text,
return_tensors="pt").input_ids``, a ``bos`` / ``eos`` id around ``tokenizer.encode(text)``: the joined length is
the texts' token counts together and changes with every sample (the per-sample half of a batch padded to its
longest, NPU405). The proof-based and inverted paths leave displays of a fixed count (``cat((a, b))``) alone; this
finder asks what the displayed pieces are.

A piece is a tokenised text when it is (or a name the function binds to) a call encoding text: a method ``encode``
/ ``encode_plus`` / ``encode_ordinary`` / ``tokenize`` of a receiver named for a tokenizer (``self.tokenizer``,
``tok``, ``bpe``), or a call of such a receiver itself (``self.tokenizer(text, return_tensors="pt")``); through
``[...]`` / ``.input_ids`` / ``.ids``, dtype and device moves, ``squeeze`` / ``view`` / ``flatten``, and
``torch.tensor(...)`` of it. Silent: an encoding padded to a fixed length (``padding="max_length"``,
``pad_to_max_length=True``), a module named for tokens that is no tokenizer (``self.token_embedding(ids)``), a
display with no tokenised piece, setup code (``__init__``) and test modules.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.bindings import VALUE
from npu_lint.context import FileContext
from npu_lint.rules.broad_joins import JOIN_CATS, _function_of

_ENCODERS = frozenset({"encode", "encode_plus", "encode_ordinary", "tokenize", "text_to_ids"})
_THROUGH = frozenset({"to", "long", "int", "type", "cuda", "cpu", "squeeze", "unsqueeze", "flatten", "view",
                      "reshape", "contiguous", "clone", "detach"})
_CONVERSIONS = frozenset({"tensor", "as_tensor", "LongTensor", "IntTensor"})
_FIELDS = frozenset({"input_ids", "ids"})


def _tokenizer_name(receiver: ast.AST) -> bool:
    """``self.tokenizer``, ``tokenizer``, ``self.text_tokenizer``, ``tok``, ``bpe``: a receiver named for one."""
    while isinstance(receiver, ast.Subscript):
        receiver = receiver.value
    last = receiver.attr if isinstance(receiver, ast.Attribute) else receiver.id if isinstance(receiver, ast.Name) \
        else ""
    last = last.lower()
    return "tokeniz" in last or last in ("tok", "bpe", "sp", "spm", "enc")


def _padded_fixed(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "padding" and isinstance(keyword.value, ast.Constant) \
                and keyword.value.value == "max_length":
            return True
        if keyword.arg == "pad_to_max_length" and not (isinstance(keyword.value, ast.Constant)
                                                       and keyword.value.value is False):
            return True
    return False


def _encoding(piece: ast.AST, ctx: FileContext, depth: int = 0) -> Optional[ast.Call]:
    """The call encoding text that ``piece`` is (through names the function binds, fields, moves), else None."""
    if depth > 6 or piece is None:
        return None
    if isinstance(piece, ast.Name):
        binding = ctx.resolver.binding(piece)
        if binding is None or binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.AST):
            return None
        return _encoding(binding.value, ctx, depth + 1)
    if isinstance(piece, ast.Subscript):
        return _encoding(piece.value, ctx, depth + 1)
    if isinstance(piece, ast.Attribute):
        return _encoding(piece.value, ctx, depth + 1) if piece.attr in _FIELDS else None
    if not isinstance(piece, ast.Call):
        return None
    func = piece.func
    if isinstance(func, ast.Attribute):
        if func.attr in _THROUGH:
            return _encoding(func.value, ctx, depth + 1)
        if func.attr in _ENCODERS and _tokenizer_name(func.value):
            return None if _padded_fixed(piece) else piece
        if func.attr in _CONVERSIONS and piece.args and (ctx.resolver.qualname(func) or "").startswith("torch."):
            return _encoding(piece.args[0], ctx, depth + 1)
    if isinstance(func, ast.Name) and func.id in _CONVERSIONS and piece.args \
            and (ctx.resolver.qualname(func) or "").startswith("torch."):
        return _encoding(piece.args[0], ctx, depth + 1)
    if _tokenizer_name(func) and piece.args:
        return None if _padded_fixed(piece) else piece
    return None


def token_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """Why the join's length changes: a displayed piece is a tokenised text."""
    if name not in JOIN_CATS or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") == "__init__" or ".test" in f".{ctx.module}":
        return None
    for piece in node.args[0].elts:
        piece = piece.value if isinstance(piece, ast.Starred) else piece
        call = _encoding(piece, ctx)
        if call is not None:
            return f"a tokenised text (line {call.lineno}: as many ids as the text has tokens)"
    return None
