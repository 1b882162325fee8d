"""NPU408, broad paths (session 21, growth21c): a decoding step written as its own function or cache class.

Run when the proof-based paths, broad_joins.py and growth_state.py found nothing at the op:

- ``step_parameter``: ``ids = cat([ids, piece], dim)`` where ``ids`` is a parameter of the function and the joined
  value is handed back bare in a returned tuple beside other outputs (``return ids, logits, new_token``): a
  decoding step (Medusa's / EAGLE's ``update_inference_inputs``) whose caller feeds the result back at the next
  step, so the sequence is longer at every call. Silent for a join inside a loop (broad_joins.py's business), a
  join under a test or of two parameters side by side (``cat([x, skip], 1)``), a prefix joined before the parameter (``cat([prefix, x])``), a join whose piece is the object's own state or a
  constant (a learned token, a fixed pad), a value rebound before the return, a window handed back.
- ``growing_view``: a method of a preallocated cache returns a view up to a length it advances in the same call
  (``self.length.add_(n); return torch.narrow(self.data, 2, 0, self.length)``, ``self.n += k; return
  self.buf[:, :self.n]``): the key/value view is one step longer after every call. Silent when the length is
  only set (``fill_``, ``= 0``) or not advanced in that method.
- ``cache_method_join``: ``k = past_key_value[0].cat(k, dim=2)``, the cache object from a parameter tested against
  None joins the step's keys through its own ``cat`` method (``Tensor`` has none).
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_CATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack"})
NARROWS = frozenset({"torch.narrow", "torch.Tensor.narrow"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_ADVANCES = frozenset({"add_", "copy_"})


def _positional(function: ast.AST) -> set[str]:
    args = function.args
    return {a.arg for a in args.posonlyargs + args.args} - {"self", "cls"}


def _constant_piece(piece: ast.AST) -> bool:
    """A learned token / buffer of the object (``self.cls``), a literal: a fixed piece, no step's output."""
    root = piece
    while isinstance(root, (ast.Attribute, ast.Subscript)) or \
            isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute):
        root = root.func.value if isinstance(root, ast.Call) else root.value
    return isinstance(root, ast.Constant) or isinstance(root, ast.Name) and root.id == "self"


_FILLS = frozenset({"full", "ones", "zeros", "full_like", "ones_like", "zeros_like", "new_full", "new_ones",
                    "new_zeros"})


def _filled_token(piece: ast.AST, function: ast.AST) -> bool:
    """``eos = torch.full((b, 1), fill_value=eos_id)`` in the function, then ``cat([ids, eos])``: a fixed token
    appended once (chronos' ``_append_eos_token``), no step's output (session 21, lead: a held-out false finding)."""
    if not isinstance(piece, ast.Name):
        return False
    values = [n.value for n in ast.walk(function) if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == piece.id for t in n.targets)]
    return bool(values) and all(isinstance(v, ast.Call) and isinstance(v.func, (ast.Attribute, ast.Name))
                                and (v.func.attr if isinstance(v.func, ast.Attribute) else v.func.id) in _FILLS
                                for v in values)


def step_parameter(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    if name not in _CATS or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return None
    pieces = node.args[0].elts
    if len(pieces) != 2 or not isinstance(pieces[0], ast.Name) or _constant_piece(pieces[1]):
        return None
    stmt = ctx.statement_of(node)
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or ctx.parent(node) is not stmt \
            or not isinstance(stmt.targets[0], ast.Name) or stmt.targets[0].id != pieces[0].id:
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES + _LOOPS)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or pieces[0].id not in _positional(function):
        return None
    if stmt not in function.body:
        return None     # joined under a test (``if skip is not None``): an optional input, no step
    if isinstance(pieces[1], ast.Name) and pieces[1].id in _positional(function):
        return None     # two inputs joined side by side (``cat([x, skip], 1)``), neither grows
    if _filled_token(pieces[1], function):
        return None     # a fixed token made in the function and appended once (an EOS), no step's output
    joined = pieces[0].id
    if any(isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and s is not stmt and getattr(s, "lineno", 0) > stmt.lineno
           and any(isinstance(n, ast.Name) and n.id == joined
                   for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) for n in ast.walk(t))
           for s in ast.walk(function)):
        return None     # rebound before it is handed back: the step's output, not the sequence
    for other in ast.walk(function):
        if isinstance(other, ast.Return) and isinstance(other.value, ast.Tuple) and len(other.value.elts) > 1 \
                and any(isinstance(e, ast.Name) and e.id == joined for e in other.value.elts):
            return (f"{joined} = {name.rsplit('.', 1)[-1]}([{joined}, ...]) (a step: the parameter {joined} one "
                    f"piece longer, handed back for the next call)")
    return None


def _advanced(function: ast.AST, attr: str) -> bool:
    """``self.attr.add_(n)`` / ``self.attr += n`` / ``self.attr = self.attr + n`` in the function."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_" \
                and unparse(node.func.value) == f"self.{attr}":
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and unparse(node.target) == f"self.{attr}":
            return True
        if isinstance(node, ast.Assign) and any(unparse(t) == f"self.{attr}" for t in node.targets) \
                and isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Add) \
                and f"self.{attr}" in unparse(node.value):
            return True
    return False


def _length_attr(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def growing_view(node: ast.AST, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """``return torch.narrow(self.data, d, 0, self.length)`` (or ``self.data[..., :self.length]``) in a method that
    advances ``self.length``: the view handed out is one step longer at every call."""
    if isinstance(node, ast.Call):
        if name not in NARROWS:
            return None
        args = list(node.args)
        if isinstance(node.func, ast.Attribute) and name == "torch.Tensor.narrow":
            args = [node.func.value] + args
        if len(args) != 4:
            return None
        length = _length_attr(args[3])
        source = args[0]
    elif isinstance(node, ast.Subscript):
        bounds = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        last = bounds[-1] if bounds else None
        if not isinstance(last, ast.Slice) or last.lower is not None or last.step is not None:
            return None
        length = _length_attr(last.upper)
        source = node.value
    else:
        return None
    if length is None or _length_attr(source) is None:
        return None
    if not isinstance(ctx.statement_of(node), ast.Return):
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name == "__init__" \
            or not _advanced(function, length):
        return None
    return (f"{unparse(node)[:60]} (a view of the preallocated cache up to self.{length}, which this call "
            f"advances)")


_JOIN_METHODS = frozenset({"cat", "concat"})


def cache_method_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """``k = past_key_value[0].cat(k, dim=2)``: a cache object (read from a parameter tested against None) joins the
    step's keys through its own ``cat`` method and the result replaces them (Medusa's / EAGLE's ``KVCache.cat``).
    ``Tensor`` has no ``cat`` method, so the receiver is the project's cache; silent when the receiver is no such
    parameter, when the result binds another name, or for torch's own functions."""
    if not isinstance(node.func, ast.Attribute) or node.func.attr not in _JOIN_METHODS or len(node.args) != 1 \
            or not isinstance(node.args[0], ast.Name) or (name or "").startswith(("torch.", "numpy.", "np.")):
        return None
    stmt = ctx.statement_of(node)
    if not isinstance(stmt, ast.Assign) or ctx.parent(node) is not stmt or len(stmt.targets) != 1 \
            or not isinstance(stmt.targets[0], ast.Name) or stmt.targets[0].id != node.args[0].id:
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    from npu_lint.rules.growth_state import _from_parameter, _optional_parameters
    optional = _optional_parameters(function)
    source = _from_parameter(node.func.value, function, optional) if optional else None
    if source is None:
        return None
    return (f"{stmt.targets[0].id} = {unparse(node.func)[:40]}({node.args[0].id}) (the cache {source} joins this "
            f"step's piece and hands back the whole, one step longer at every call)")
