"""The emptiness path of NPU413 / NPU414 (session 22, branch22): a test whether a value is empty (``if
boxes.numel() == 0:``, ``if not x1.numel():``, ``if dets.shape[0] == 0:``, ``if len(keep) == 0: return
x.new_zeros((0, 4))``) is the data's count choosing the path, unless the model proves the count fixed. The op is the
trigger: a size read compared with zero (or tested for truth) of a value the model cannot prove is no tensor, a
constant or configuration (a fixed-shape tensor the code builds); ``len()`` of a value of unknown kind only where an
arm builds a zero-size tensor (the author expects the empty case at run time: empty detections). Silent: values proven
host (a numpy array, a Python list of unknown elements), configuration, test code. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules.broad_branches import every_return, not_tensor

_COUNTS = frozenset({"numel", "nelement"})
# A graph's own counts (DGL, networkx-like): a data graph's size, whatever kind the model gives the graph.
_GRAPH_COUNTS = frozenset({"num_edges", "num_nodes", "number_of_edges", "number_of_nodes"})
# Constructors of a tensor whose first dimension a literal 0 sizes (``torch.empty(0, 4)``, ``x.new_zeros((0, 4))``).
_BUILDERS = frozenset({"empty", "zeros", "ones", "full", "new_empty", "new_zeros", "new_ones", "new_full", "randn",
                       "rand"})


def _counted(node: ast.AST) -> Optional[tuple[ast.AST, bool]]:
    """``x.numel()`` / ``x.nelement()`` / ``x.shape[0]`` / ``x.size(0)`` -> (x, False); ``len(x)`` -> (x, True)."""
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _COUNTS and not node.args:
            return func.value, False
        if isinstance(func, ast.Attribute) and func.attr in _GRAPH_COUNTS and not node.args:
            return func, False   # (the bound method: no tensor kind fits a graph, none proves it host either)
        if isinstance(func, ast.Attribute) and func.attr == "size" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0:
            return func.value, False
        if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1:
            return node.args[0], True
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        return node.value.value, False
    return None


def _zero_side(node: ast.Compare) -> Optional[ast.AST]:
    """``n == 0`` / ``n != 0`` / ``n > 0`` / ``n < 1`` / ``n >= 1`` / ``0 < n``: the counted side, else None."""
    if len(node.ops) != 1:
        return None
    left, op, right = node.left, node.ops[0], node.comparators[0]
    for side, other, flipped in ((left, right, False), (right, left, True)):
        if not (isinstance(other, ast.Constant) and type(other.value) is int and other.value in (0, 1)):
            continue
        if other.value == 0 and isinstance(op, (ast.Eq, ast.NotEq, ast.Gt if not flipped else ast.Lt,
                                                ast.LtE if not flipped else ast.GtE)):
            return side
        if other.value == 1 and isinstance(op, (ast.Lt, ast.GtE) if not flipped else (ast.Gt, ast.LtE)):
            return side
    return None


def builds_empty(arms: list[ast.stmt], ctx: FileContext) -> bool:
    """An arm builds a zero-size tensor (``torch.empty(0, 4)``, ``x.new_zeros((0, 4))``, ``torch.tensor([])``): the
    code expects the count to be zero at run time."""
    for statement in arms:
        for n in walk(statement):
            if not isinstance(n, ast.Call) or not isinstance(n.func, (ast.Attribute, ast.Name)):
                continue
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
            qualname = ctx.resolver.qualname(n.func) or ""
            if name in ("tensor", "as_tensor", "new_tensor") and (qualname.startswith("torch.") or name == "new_tensor") \
                    and n.args and isinstance(n.args[0], (ast.List, ast.Tuple)) and not n.args[0].elts:
                return True
            if name not in _BUILDERS or not n.args or not (qualname.startswith("torch.") or name.startswith("new_")):
                continue
            first = n.args[0].elts[0] if isinstance(n.args[0], (ast.Tuple, ast.List)) and n.args[0].elts else n.args[0]
            if isinstance(first, ast.Constant) and first.value == 0 and type(first.value) is int:
                return True
    return False


def _tested_sides(test: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """Each operand of ``test`` (through ``not``, ``and``, ``or``) with the side :func:`_counted` reads: the operand
    itself, or its side compared with 0 or 1."""
    operands = [test]
    while operands:
        operand = operands.pop()
        inner = operand.operand if isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not) else operand
        if isinstance(inner, ast.BoolOp):
            operands.extend(inner.values)
            continue
        side = _zero_side(inner) if isinstance(inner, ast.Compare) else inner
        if side is not None:
            yield operand, side


def counts_something(test: ast.AST) -> bool:
    """Some operand of ``test`` counts a value (:func:`_counted` of it, or of a side compared with 0 or 1), the
    syntax :func:`empty_test` starts from: without one it answers None whatever the arms (asked first, cheaply)."""
    return any(_counted(side) is not None for _, side in _tested_sides(test))


def empty_test(test: ast.AST, arms: list[ast.stmt], ctx: FileContext) -> Optional[ast.AST]:
    """The operand of the test that asks whether a value the model cannot prove fixed is empty; None without one.
    ``len(x)`` counts only a value the model proves a tensor, or any value not proven constant when an arm builds
    a zero-size tensor."""
    for operand, side in _tested_sides(test):
        found = _counted(side)
        if found is None:
            continue
        value, is_len = found
        if isinstance(value, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.JoinedStr)) \
                or ctx.resolver.configured(value) or _fixed_shape(value, ctx) or (is_len and _split_pieces(value, ctx)):
            continue
        if is_len and ctx.resolver.kind_of(value) not in K.TENSORS:
            if (builds_empty(arms, ctx) or used_as_tensor(value, ctx)) and not ctx.resolver.configured(value):
                return operand
            continue
        if not not_tensor(value, ctx) or builds_empty(arms, ctx):
            return operand
    return None


_PIECES = frozenset({"split", "chunk", "unbind", "tensor_split"})
_WRAPPERS = frozenset({"enumerate", "zip", "reversed", "list", "tuple"})


def _split_pieces(value: ast.AST, ctx: FileContext) -> bool:
    """Session 24 (precision24): ``len(pieces)`` of ``pieces = torch.split(x, 1, dim=1)`` (the pieces a split
    makes: as many as the split's size and the input's shape say), or ``len(chunk)`` of a chunk a loop takes from
    one (``for ids, mask in zip(torch.split(input_ids, k), torch.split(mask, k)):``: a chunk is never empty, its
    rows the split's size): a shape read, not a count the data decides."""
    if _piece_call(value, ctx):
        return True
    resolver = ctx.resolver
    if not isinstance(value, ast.Name) or resolver.scopes is None:
        return False
    bindings = resolver.scopes.may_reach(value.id, resolver.current, (value.lineno, value.col_offset))
    return bool(bindings) and all(
        isinstance(b.value, ast.AST) and (
            (b.tag == "value" and not b.path and _piece_call(b.value, ctx))
            or (b.tag == "loop" and _split_sequences(b.value, ctx, 0))) for b in bindings)


def _piece_call(node: ast.AST, ctx: FileContext) -> bool:
    """``torch.split(x, k)`` / ``x.chunk(n)`` / ``x.unbind(1)`` on a tensor (a torch function or a tensor's method)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr not in _PIECES:
        return False
    qualname = ctx.resolver.qualname(node.func) or ""
    return qualname.startswith("torch.") or ctx.resolver.kind_of(node.func.value) in K.TENSORS


def _split_sequences(node: ast.AST, ctx: FileContext, depth: int) -> bool:
    """What a loop walks is the pieces of splits, through ``enumerate`` / ``zip`` (``zip(torch.split(a, k),
    torch.split(b, k))``)."""
    if _piece_call(node, ctx):
        return True
    return depth < 3 and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS \
        and bool(node.args) and all(_split_sequences(a, ctx, depth + 1) for a in node.args)


def _fixed_shape(value: ast.AST, ctx: FileContext) -> bool:
    """A name bound once in the function to a tensor the code builds from constants or configuration
    (``w = torch.zeros(cfg.n)``): its size is the code's, not the data's."""
    if not isinstance(value, ast.Name) or ctx.resolver.scopes is None:
        return False
    bindings = ctx.resolver.scopes.may_reach(value.id, ctx.resolver.current, (value.lineno, value.col_offset))
    if len(bindings) != 1 or bindings[0].tag != "value" or bindings[0].path:
        return False
    made = bindings[0].value
    if not (isinstance(made, ast.Call) and (ctx.resolver.qualname(made.func) or "").split(".")[-1] in _BUILDERS
            and (ctx.resolver.qualname(made.func) or "").startswith("torch.")):
        return False
    return all(_code_size(a) for a in made.args) and not made.keywords or all(
        _code_size(a) for a in made.args) and all(kw.arg != "size" or _code_size(kw.value) for kw in made.keywords)


def _code_size(node: ast.AST) -> bool:
    """A size the code writes: a constant, a configuration field (``cfg.n``, ``self.dim``), a tuple or arithmetic of
    such; not a name of unknown origin nor a call (``len(boxes)``, ``x.size(0)``)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_code_size(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _code_size(node.left) and _code_size(node.right)
    if isinstance(node, ast.Attribute):
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name)
    return False


_NUMBERS = frozenset({"float", "int", "bool"})


def _number(value: Optional[ast.AST], function: ast.AST) -> bool:
    """A Python number: a numeric constant, ``float(...)`` / ``int(...)`` / ``bool(...)``, ``x.item()``, or a name
    the function binds only to such values."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and value.value is not None
    if isinstance(value, ast.Call):
        return (isinstance(value.func, ast.Name) and value.func.id in _NUMBERS) or (
            isinstance(value.func, ast.Attribute) and value.func.attr == "item" and not value.args)
    if isinstance(value, ast.Name):
        bound = [n.value for n in walk(function) if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        return bool(bound) and all(_number(b, function) for b in bound if not isinstance(b, ast.Name))
    return False


def returns_numbers(node: ast.AST, ctx: FileContext) -> bool:
    """Every ``return`` of the enclosing function gives a Python number (``return 1.0`` ... ``return
    float(hits[:k].any())``): a metric computed on the host per item, not a shape the device runs."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    return ctx.per_node("empty_tests_numbers", function,
                        lambda scope: every_return(scope, lambda value: _number(value, scope)))


def graph_count(test: ast.AST) -> bool:
    """The test reads a graph's own count (``g.num_edges() > 0``): a size only the data sets, so two arms that compute
    differently are enough (a tensor's emptiness with two arms is as often a mode: weights given or not)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GRAPH_COUNTS
               and not n.args for n in walk(test))


# Methods only a tensor answers (no numpy array, list or Python number has them): a name whose function calls one
# on it is a tensor, whatever kind the model gives it (a helper's return, an untyped parameter).
_TENSOR_USES = frozenset({"unsqueeze", "float", "long", "bool", "half", "view", "type_as", "expand", "numel",
                          "nonzero", "masked_fill", "permute", "contiguous", "detach", "cuda", "index_select",
                          "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "masked_select"})
# torch functions that take a list of tensors (a host list handed to them has a length the code may fix).
_TAKES_LISTS = frozenset({"cat", "stack", "concat", "concatenate", "hstack", "vstack", "tensor", "as_tensor",
                          "from_numpy", "Tensor", "LongTensor", "FloatTensor", "BoolTensor", "block_diag"})


def used_as_tensor(value: ast.AST, ctx: FileContext) -> bool:
    """``len(a1) == 0`` where the function uses ``a1`` as a tensor (session 23, branch23): a tensor-only method
    (``a1.unsqueeze(0)``, ``labels.float()``), an index of a value not proven host (``row_labels[a1, :]``,
    ``metric_mat[anchor_idx, :]``), an argument of a torch function other than one taking a list (``torch.cat``).
    The value came from a helper's return or an untyped parameter the model cannot type (gedml's mined indices
    ``a1, p, a2, _ = l_f.split_indices(t)``, instanseg's Lovasz ``labels``); a host list parameter (``torch.cat(xs)``,
    ``for x in xs``) stays quiet."""
    if not isinstance(value, ast.Name):
        return False
    function = ctx.enclosing_any(value, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    return value.id in ctx.per_node("empty_tests_tensor_uses", function, lambda scope: _tensor_names(scope, ctx))


def _tensor_names(function: ast.AST, ctx: FileContext) -> frozenset[str]:
    names: set[str] = set()
    indices: set[str] = set()
    targets: set[str] = set()   # an element of a loop over a container (``for g in groups: x[g]``): host index lists
    for n in walk(function):
        if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            targets.update(t.id for t in walk(n.target) if isinstance(t, ast.Name))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            if n.func.attr in _TENSOR_USES and isinstance(n.func.value, ast.Name):
                names.add(n.func.value.id)
            qualname = ctx.resolver.qualname(n.func) or ""
            if qualname.startswith("torch.") and qualname.rsplit(".", 1)[-1] not in _TAKES_LISTS:
                names.update(a.id for a in n.args if isinstance(a, ast.Name))
        elif isinstance(n, ast.Subscript) and isinstance(n.value, (ast.Name, ast.Attribute)) \
                and not not_tensor(n.value, ctx):
            index = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
            indices.update(i.id for i in index if isinstance(i, ast.Name))
    return frozenset(names | (indices - targets))
