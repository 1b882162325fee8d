"""NPU402's broad path (session 21): an index that is boolean (or a set of positions) BY CONSTRUCTION selects from
any value the model cannot prove is no tensor.

The proof-based path of :class:`~npu_lint.rules.dynamic_ops.BooleanMaskIndexing` fires when the semantic model
knows the index is a mask and the value a device tensor. On new code that proof breaks at the first unseen form (a
done flag returned by an environment, a field of a batch object, an entry of a buffer), so here the index's
construction is the trigger: a comparison, ``~``, ``&`` / ``|`` / ``^`` of non-constant operands, ``logical_*``,
``isin`` / ``isnan`` / ``isfinite`` / ``isclose``, ``.bool()``, a factory told ``dtype=bool``, the positions of a
one-argument ``where`` / ``nonzero`` / ``argwhere``, a conversion, view or row of one, a local name whose every
assignment in its function is one (``|=`` / ``&=`` keep it), a field (``self.done``) whose every assignment in the
file is one, the file's own function whose every return is one. The value stays silent only when the model proves
it is no tensor (a numpy or pandas array, a Python list or string, a module, an instance of a class) or the mask
fixed (the semantic model's ``configured``). Nothing is read from a name's spelling. Memoised per file: one walk of
each function for its assignments, one walk of the file for its fields.

Session 23: the distinct values of ``unique`` (the first of its unpacked results) index as many rows as values
found; another module's function whose returned value the project index follows to ``nonzero`` / ``argwhere`` /
one-argument ``where`` / ``unique`` returns positions (memoised per callee); a name met again while its own
assignments are read (``seeds = seeds[order]``) is neutral: it keeps what the other assignments make.

Session 25: an element of a tuple (``boxes, keep = clip(boxes)``, ``out[1]`` of ``out = f(x)``, nested targets) is
what that element of every return of the function is, through the calls it returns the result of; another module's
function's element is a mask when the project index says so (:mod:`npu_lint.rules.returned_masks`)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.host_indices import host_selection
from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.kinds import MASK, TENSORS
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.host_arrays import host_array_evidence, is_host_array
from npu_lint.project.fact_types import ONE_ARGUMENT
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.dynamic_wrappers import helper_of_file
from npu_lint.rules.returned_masks import element_of, returned_element

MASK_WORD, POSITIONS, VALUES = "mask", "positions", "values"
_SELF = "self"   # a name met again while its own assignments are read (``seeds = seeds[order]``): neutral
_BOOL_CALLS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "isclose", "isin", "logical_and",
                         "logical_or", "logical_not", "logical_xor", "bool", "eq", "ne", "gt", "ge", "lt", "le",
                         "bernoulli", "less", "greater", "less_equal", "greater_equal", "not_equal"})
# ``masked_select`` too (session 33): ``torch.arange(b).masked_select(keep)`` lists the kept rows, as many as found.
_POSITION_CALLS = frozenset({"nonzero", "argwhere", "flatnonzero", "masked_select"})
# The distinct values of a tensor: as an index, as many rows as values found (session 23).
_VALUE_CALLS = frozenset({"unique", "unique_consecutive"})
# What another module's function returns, by the project index: the positions or the distinct values a leaf finds.
# Not a boolean-mask selection reached on one of its paths (``return matches[mask] if sym else matches``: the
# default path keeps a fixed count; two false findings on the dev sets).
_SIZED_LEAVES = frozenset({"torch.nonzero", "torch.Tensor.nonzero", "torch.argwhere", "torch.Tensor.argwhere",
                           "torch.where" + ONE_ARGUMENT, "torch.unique", "torch.Tensor.unique"})
# Calls that keep what their first operand (or receiver) is: conversions, moves, views, copies.
_KEEPING = frozenset({"from_numpy", "as_tensor", "asarray", "tensor", "to", "cuda", "npu", "cpu", "detach", "clone",
                      "flatten", "view", "reshape", "squeeze", "unsqueeze", "view_as", "reshape_as", "contiguous",
                      "numpy", "long", "ravel", "copy", "expand", "expand_as", "t", "transpose", "permute"})
_KEEPING_AUG = (ast.BitAnd, ast.BitOr, ast.BitXor)
# Joins of masks (or of positions) by their elements (session 24).
_JOINING = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack"})
_GENERICS = frozenset({"tuple", "list", "dict", "set", "frozenset", "type"})
# The node types ``_assignments`` reads (exact types: the grammar has no subclasses of them).
_BINDING_TYPES = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension,
                            ast.With, ast.AsyncWith, ast.NamedExpr, ast.Expr})


def _enumerated(loop: ast.AST) -> bool:
    """``for k, item in enumerate(items)``."""
    target, source = loop.target, loop.iter
    return isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts) \
        and type(source) is ast.Call and type(source.func) is ast.Name and source.func.id == "enumerate" \
        and len(source.args) == 1


def constructed_index(node: ast.AST, ctx: FileContext, depth: int = 0) -> Optional[str]:
    """``"mask"`` or ``"positions"`` when ``node`` is boolean, or positions chosen by values, by construction."""
    if depth > 6:
        return None
    if isinstance(node, ast.Compare):
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops) \
                or all(isinstance(operand, ast.Constant) for operand in (node.left, *node.comparators)):
            return None
        return MASK_WORD
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return None if isinstance(node.operand, ast.Constant) else MASK_WORD
    if isinstance(node, ast.BinOp) and isinstance(node.op, _KEEPING_AUG):
        if isinstance(node.left, ast.Constant) or isinstance(node.right, ast.Constant):
            return None   # ``i & 1``: bits of an integer
        return MASK_WORD
    if isinstance(node, ast.Call):
        return _call(node, ctx, depth)
    if isinstance(node, ast.Subscript):
        if _integer(node.slice) and not _tuple_of_positions(node.value):
            # ``helper(x)[1]``, ``a, keep = helper(x)``: an element of the tuple a function returns (session 25);
            # ``indices[0]`` of anything else: one position, a scalar index
            return returned_element(node, ctx, depth)
        verdict = constructed_index(node.value, ctx, depth + 1)   # ``keep[:, 0]``, ``torch.where(m)[0]``
        if verdict is None and _picked(node.slice, ctx, depth):
            return POSITIONS   # ``torch.arange(b)[keep]``: the elements a mask picks, as many as it holds (session 33)
        return verdict
    if isinstance(node, ast.Name):
        return _local(node, ctx, depth)
    if isinstance(node, ast.Attribute):
        return _field(node, ctx, depth)
    if isinstance(node, _Each):
        return _each(node.iterable, ctx, depth)
    return None


def _picked(index: ast.AST, ctx: FileContext, depth: int) -> bool:
    """The first index of a subscript is a mask or positions by construction (``ids[keep]``, ``ids[keep, :]``)."""
    first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
    return not isinstance(first, (ast.Slice, ast.Constant)) and (
        constructed_index(first, ctx, depth + 1) in (MASK_WORD, POSITIONS, VALUES) or ctx.resolver.kind_of(first) == MASK) \
        and not ctx.resolver.configured(first)   # ``torch.arange(n)[torch.arange(n) % 2 == 0]``: fixed


class _Each(ast.expr):
    """An element of ``iterable`` (a ``for`` loop's target, in the tables of assignments): ``for idx in idxs``."""
    _fields = ("iterable",)


def _each(iterable: ast.AST, ctx: FileContext, depth: int) -> Optional[str]:
    """What each element of a Python list is as an index (session 26, dataops26): a comprehension's element
    (``[torch.nonzero(t == c).flatten() for c in ids]``), or every item a local list is built from (a comprehension,
    ``append``ed items, a literal of them). A tensor iterated (``for i in torch.nonzero(m)``: one position each) or
    any other iterable is nothing."""
    if isinstance(iterable, (ast.ListComp, ast.GeneratorExp)) and len(iterable.generators) == 1:
        verdict = constructed_index(iterable.elt, ctx, depth + 1)
        return verdict if verdict in (POSITIONS, MASK_WORD) else None
    if isinstance(iterable, (ast.List, ast.Tuple)) and iterable.elts and len(iterable.elts) > 1:
        return None   # a literal display: a fixed count of names, each looked at where it is indexed
    if not isinstance(iterable, ast.Name):
        return None
    function = ctx.enclosing_any(iterable, FUNCTION_TYPES)
    if function is None or iterable.id in _parameters(function):
        return None
    table = _assignments(function, ctx)
    values = table.get(iterable.id)
    if not values or len(values) != 1 or values[0] is None:
        return None
    value = values[0]
    if isinstance(value, ast.List) and not value.elts:   # ``idxs = []`` then ``idxs.append(torch.nonzero(m))``
        items = table.get(_APPENDED + iterable.id)
        return _agree(list(items), ctx, depth) if items else None
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        return _each(value, ctx, depth + 1)
    return None


_APPENDED = "append:"   # the table's key of the items appended to a local list (``xs.append(v)``)


def _integer(index: ast.AST) -> bool:
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return isinstance(index, ast.Constant) and isinstance(index.value, int)


def _tuple_of_positions(value: ast.AST) -> bool:
    """``torch.where(m)``, ``m.nonzero(as_tuple=True)``, ``np.nonzero(m)``: a tuple, one positions array per axis."""
    if not isinstance(value, ast.Call):
        return False
    name = _name_of(value.func)
    return (name == "where" and len(value.args) == 1 and not value.keywords) or (
        name == "nonzero" and (any(k.arg == "as_tuple" for k in value.keywords) or isinstance(value.func, ast.Attribute)
                               and _name_of(value.func.value) in ("np", "numpy") and len(value.args) == 1))


def _name_of(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _call(node: ast.Call, ctx: FileContext, depth: int) -> Optional[str]:
    name = _name_of(node.func)
    if name in _BOOL_CALLS:
        return MASK_WORD
    if name in _POSITION_CALLS:
        return POSITIONS
    if name == "where" and len(node.args) == 1 and not node.keywords:
        return POSITIONS
    if name in _VALUE_CALLS and not any(k.arg in ("return_inverse", "return_counts") for k in node.keywords) \
            and len(node.args) <= (1 if isinstance(node.func, ast.Name) or _name_of(node.func.value) in
                                   ("torch", "th", "np", "numpy") else 0):
        return VALUES   # ``x.unique()``, ``torch.unique(ids)``: as many as the distinct values found
    for keyword in node.keywords:
        if keyword.arg == "dtype" and _is_bool_dtype(keyword.value):
            return MASK_WORD
    if name in _JOINING and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) and node.args[0].elts:
        # ``torch.cat([is_split, torch.zeros(n, dtype=torch.bool)])``: masks joined are a mask (session 24)
        parts = node.args[0].elts
        if len(parts) == 2 and name in ("cat", "concat", "concatenate", "hstack") and _partition(parts, ctx):
            return None   # ``cat((where(m == 0)[0], where(m == 1)[0]))``: every position once, reordered (session 32)
        return _agree(list(parts), ctx, depth) if not any(isinstance(p, ast.Starred) for p in parts) else None
    if name in ("to", "type", "astype") and node.args and _is_bool_dtype(node.args[0]):
        return MASK_WORD
    if name in _KEEPING:
        operand = node.func.value if isinstance(node.func, ast.Attribute) and name not in (
            "from_numpy", "as_tensor", "asarray", "tensor") else (node.args[0] if node.args else None)
        if isinstance(node.func, ast.Attribute) and name in ("from_numpy", "as_tensor", "asarray", "tensor") \
                and not node.args:
            operand = None
        verdict = constructed_index(operand, ctx, depth + 1) if operand is not None else None
        if verdict == MASK_WORD and (name == "long" or name in ("to", "type") and _numeric_cast(node)):
            return None   # ``(s < t).long()``: zeros and ones, an integer index of as many elements (session 32)
        return verdict
    if name in _TAKING and isinstance(node.func, ast.Attribute):
        index = _taken_index(node, ctx)   # ``batch_index.index_select(0, unfinished)``: as many rows as positions
        if index is not None and constructed_index(index, ctx, depth + 1) in (POSITIONS, VALUES):
            return POSITIONS
    if isinstance(node.func, (ast.Name, ast.Attribute)):
        definition = helper_of_file(node, ctx)
        if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _returns(definition, ctx, depth)
        return _project_function(node, ctx)
    return None


# Comparisons whose results are each other's negation (session 32): ``a == b`` / ``a != b``, ``a < b`` / ``a >= b``.
_COMPLEMENTS = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
                ast.LtE: ast.Gt}
# Calls that keep the positions a nonzero found, in their order (a view or a cast of them).
_POSITION_VIEWS = frozenset({"flatten", "view", "reshape", "squeeze", "long", "int", "to", "contiguous", "ravel"})


def _partition(parts: list, ctx: FileContext) -> bool:
    """``torch.cat((torch.where(m == 0)[0], torch.where(m == 1)[0]))``, ``cat([nonzero(keep), nonzero(~keep)])``:
    the positions of a condition joined with those of its negation list every position once (a permutation, as
    many as the condition has elements), whatever the values; the pair ``== 0`` / ``== 1`` (``False`` / ``True``)
    of one operand is read as a flag's two values."""
    first, second = (_found_where(part, ctx) for part in parts)
    return first is not None and second is not None and (_negation(first, second) or _negation(second, first))


def _found_where(part: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The condition whose positions ``part`` lists (``torch.where(c)[0]``, ``torch.nonzero(c).squeeze(1)``,
    ``c.nonzero().flatten()``, a local bound once to one of these), else None."""
    for _ in range(8):
        if isinstance(part, ast.Name):
            function = ctx.enclosing_any(part, FUNCTION_TYPES)
            if function is None or part.id in _parameters(function):
                return None
            values = _assignments(function, ctx).get(part.id)
            if not values or len(values) != 1 or values[0] is None:
                return None
            part = values[0]
        elif isinstance(part, ast.Subscript):
            if not _integer(part.slice) or not _tuple_of_positions(part.value):
                return None
            part = part.value
        elif isinstance(part, ast.Call):
            name = _name_of(part.func)
            if name == "where" and len(part.args) == 1 and not part.keywords \
                    or name in ("nonzero", "argwhere") and len(part.args) == 1:
                return part.args[0]
            if name in ("nonzero", "argwhere") and not part.args and isinstance(part.func, ast.Attribute):
                return part.func.value
            if name not in _POSITION_VIEWS or not isinstance(part.func, ast.Attribute):
                return None
            part = part.func.value
        else:
            return None
    return None


def _negation(a: ast.AST, b: ast.AST) -> bool:
    """``b`` is true exactly where ``a`` is false: ``~a`` / ``torch.logical_not(a)``, the complementary comparison
    of the same operands, or ``x == 0`` beside ``x == 1`` (a flag's two values)."""
    if isinstance(b, ast.UnaryOp) and isinstance(b.op, ast.Invert) \
            or isinstance(b, ast.Call) and _name_of(b.func) == "logical_not" and len(b.args) == 1:
        negated = b.operand if isinstance(b, ast.UnaryOp) else b.args[0]
        return ast.dump(negated) == ast.dump(a)
    if not (isinstance(a, ast.Compare) and isinstance(b, ast.Compare) and len(a.ops) == 1 and len(b.ops) == 1
            and ast.dump(a.left) == ast.dump(b.left)):
        return False
    if _COMPLEMENTS.get(type(a.ops[0])) is type(b.ops[0]) \
            and ast.dump(a.comparators[0]) == ast.dump(b.comparators[0]):
        return True
    values = [c.value for c in (a.comparators[0], b.comparators[0]) if isinstance(c, ast.Constant)]
    return isinstance(a.ops[0], ast.Eq) and isinstance(b.ops[0], ast.Eq) and len(values) == 2 \
        and all(type(v) in (int, bool) for v in values) and sorted(values) == [0, 1]


def _project_function(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """Another module's function of the project whose returned value the project index follows to a leaf sized by
    the data (``seeds = _torch_peak_local_max(scores)`` returning ``torch.nonzero(peaks).to(dtype)``): positions.
    Memoised per callee name (the index memoises its chains too)."""
    if ctx.project is None:
        return None
    name = ctx.resolver.qualname(node.func)
    if not name or name.startswith(("torch.", "numpy.", "np.")):
        return None
    table = ctx.scratch.setdefault("broad_mask_project", {})
    if name not in table:
        table[name] = POSITIONS if ctx.project.returned_leaf(name, ctx.module, _SIZED_LEAVES.__contains__) else None
    return table[name]


def _numeric_cast(node: ast.Call) -> bool:
    """``m.to(torch.long)``, ``m.to(dtype=torch.int64)``, ``m.type(torch.float32)``: a cast to a dtype of numbers."""
    dtype = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "dtype"), None)
    return isinstance(dtype, ast.Attribute) and isinstance(dtype.value, ast.Name) and dtype.value.id == "torch" \
        and dtype.attr.startswith(("int", "long", "float", "half", "double", "bfloat", "uint", "short"))


def _is_bool_dtype(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "bool"
    if isinstance(node, ast.Attribute):
        return node.attr in ("bool", "bool_")
    return isinstance(node, ast.Constant) and node.value in ("bool", "?")


def _some(values: list, ctx: FileContext, depth: int) -> Optional[str]:
    """A local of a function: what every assignment makes (:func:`_agree`), or a mask when ANY of its assignments
    in the function makes one (session 26, dataops26): on that path the selection's size is the data's, whatever
    the others bind (``mask = kwargs.get("mask")`` in one arm, ``mask = lens > arange`` in the other; a parameter
    rebound to a comparison where the caller passes none). Positions (values) in one arm count when no other arm
    is made by torch's own operators (gsplat's ``sampled_idxs = alive_indices[sampled_idxs]`` after a helper's draw;
    not nerfstudio's ``indices = nonzero_indices[chosen]`` beside ``torch.floor(torch.rand(...)).long()``)."""
    agreed = _agree(values, ctx, depth)
    if agreed is not None:
        return agreed
    seen = set()
    for value in values:
        verdict = constructed_index(value, ctx, depth + 1) if value is not None else None
        if verdict in (MASK_WORD, POSITIONS, VALUES):
            seen.add(verdict)
    if MASK_WORD in seen:
        return MASK_WORD
    if seen and not any(_torch_made(value, ctx) for value in values):
        return POSITIONS if POSITIONS in seen else VALUES
    return None


def _torch_made(value: Optional[ast.AST], ctx: FileContext) -> bool:
    """``value`` is made by one of torch's own operators (a cast or move of one too): ``torch.floor(torch.rand(n, 3) *
    hw).long()``, random positions of a count the call gives. Beside positions in another arm, the count is the
    code's own (nerfstudio's pixel sampler: k positions chosen among a nonzero's, or k drawn at random)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _KEEPING \
            and not (ctx.resolver.qualname(value.func) or "").startswith("torch."):
        value = value.func.value
    if not isinstance(value, ast.Call):
        return False
    name = ctx.resolver.qualname(value.func) or ""
    return name.startswith("torch.") and _call(value, ctx, 0) is None


def _agree(values: list, ctx: FileContext, depth: int) -> Optional[str]:
    """What every assigned value is (None when one is not a mask or positions, or there is none)."""
    if not values:
        return None
    seen = set()
    for value in values:
        if value is None:
            return None
        verdict = constructed_index(value, ctx, depth + 1)
        if verdict is None:
            return None
        seen.add(verdict)
    seen.discard(_SELF)   # ``seeds = seeds[order]``, ``m = torch.from_numpy(m)``: keeps what the others make
    if not seen:
        return None
    return POSITIONS if POSITIONS in seen else VALUES if VALUES in seen else MASK_WORD


def _assignments(root: ast.AST, ctx: FileContext) -> dict:
    """Per name (a local) or ``.attr`` (a field), the values assigned to it under ``root`` (None: one the analysis
    cannot read, an unpacking or another augmented operator). One walk per function or file, memoised."""
    table = ctx.scratch.setdefault("broad_mask_assignments", {})
    key = id(root)
    if key in table:
        return table[key]
    found: dict = {}

    def add(target: ast.AST, value: Optional[ast.AST]) -> None:
        if isinstance(target, ast.Name):
            found.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Attribute):
            found.setdefault("." + target.attr, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            positions = isinstance(value, ast.Call) and (
                _name_of(value.func) == "where" and len(value.args) == 1
                or _name_of(value.func) == "nonzero" and any(k.arg == "as_tuple" for k in value.keywords))
            distinct = isinstance(value, ast.Call) and _name_of(value.func) in _VALUE_CALLS
            starred = False
            for place, element in enumerate(target.elts):   # ``rows, cols = torch.where(m)``: each is positions
                if distinct:   # ``ids, inverse, counts = torch.unique(x, return_inverse=True, ...)``: the values
                    add(element, ast.Call(func=value.func, args=value.args, keywords=[]) if place == 0 else None)
                    continue
                starred = starred or isinstance(element, ast.Starred)
                if positions or starred or value is None:
                    add(element.value if isinstance(element, ast.Starred) else element, value if positions else None)
                else:   # ``boxes, keep = clip(boxes)``: element ``place`` of what the call returns (session 25)
                    add(element, element_of(value, place))

    for node in walk(root):   # the walk kept on the function or module (the model's); only binding nodes looked at
        if type(node) not in _BINDING_TYPES:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                add(target, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            add(node.target, node.value)
        elif isinstance(node, ast.AugAssign):
            if not isinstance(node.op, _KEEPING_AUG):
                add(node.target, None)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
            add(node.target, _Each(iterable=node.iter))   # an element of what it walks (session 26)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and _enumerated(node):
            add(node.target.elts[0], None)
            add(node.target.elts[1], _Each(iterable=node.iter.args[0]))   # ``for k, idx in enumerate(idxs)``
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            add(node.target, None)
        elif isinstance(node, ast.Expr):
            call = node.value
            if type(call) is ast.Call and type(call.func) is ast.Attribute and call.func.attr == "append" \
                    and type(call.func.value) is ast.Name and len(call.args) == 1 and not call.keywords:
                found.setdefault(_APPENDED + call.func.value.id, []).append(call.args[0])
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    add(item.optional_vars, None)
        elif isinstance(node, ast.NamedExpr):
            add(node.target, node.value)
    if isinstance(root, ast.Module):   # ``Context(local_indices=idx)``: a field set by a constructor of the file
        classes = {n.name for n in root.body if type(n) is ast.ClassDef}
        for call in _calls(ctx):
            if isinstance(call.func, ast.Name) and call.func.id in classes:
                for keyword in call.keywords:
                    if keyword.arg is not None:
                        found.setdefault("." + keyword.arg, []).append(keyword.value)
    table[key] = found
    return found


def assignment_values(root: Optional[ast.AST], key: str, ctx: FileContext) -> list:
    """The values assigned to a local ``key`` under ``root`` (a function), or to a field ``.attr`` in the file (root
    None: the module's table); [] when none. From the memoised tables ``constructed_index`` reads (session 24)."""
    if root is not None and key in _parameters(root):
        return [None]   # a parameter: what it is comes from the callers
    root = root if root is not None else _module(ctx)
    return list(_assignments(root, ctx).get(key, ())) if root is not None else []


def _local(node: ast.Name, ctx: FileContext, depth: int) -> Optional[str]:
    """What the name's assignments make, looked up as Python does: the enclosing function, then the functions
    around it (a closure's free name: ``sel`` of the function that defines ``param_fn``), then the module."""
    active = ctx.scratch.setdefault("broad_mask_active", set())
    key = (id(ctx.enclosing_any(node, FUNCTION_TYPES)), node.id)
    if key in active:
        return _SELF   # met again while its own assignments are read: a rebinding of itself
    active.add(key)
    try:
        return _lookup(node, ctx, depth)
    finally:
        active.discard(key)


def _lookup(node: ast.Name, ctx: FileContext, depth: int) -> Optional[str]:
    function = ctx.enclosing_any(node, FUNCTION_TYPES)   # (a call's argument: the walk may not have reached it)
    own = function
    while function is not None:
        values = _assignments(function, ctx).get(node.id)
        if values and function is own and not _in_loop(node, function, ctx):
            values = [v for v in values if v is None or getattr(v, "lineno", 0) <= node.lineno]
            # straight-line code: an assignment further down cannot reach the read (session 33: ``m = t[idx]`` above
            # ``idx = torch.unique(idx)``)
        if node.id in _parameters(function):
            passed = _passed(function, node.id, ctx, depth)   # a parameter: what every call of the file passes
            return passed if passed is not None or not values else _some(values, ctx, depth)
        if values:
            found = _some(values, ctx, depth)
            if found is None and len(values) == 1 and isinstance(values[0], (ast.List, ast.ListComp)) \
                    and _host_chosen(node, function, ctx):
                return POSITIONS   # ``keep = []`` then ``keep.append(k)`` under ``if x[k].item() > t`` (session 26)
            return found
        function = ctx.enclosing_any(function, FUNCTION_TYPES)
    root = _module(ctx)
    values = _assignments(root, ctx).get(node.id) if root is not None else None
    return _agree(values or [], ctx, depth)


def _in_loop(node: ast.AST, function: ast.AST, ctx: FileContext) -> bool:
    """``node`` stands in a loop of ``function`` (or a comprehension): a later assignment may reach it."""
    current = ctx.parent_anywhere(node)
    for _ in range(64):
        if current is None or current is function:
            return False
        if isinstance(current, (ast.For, ast.AsyncFor, ast.While, ast.comprehension, ast.ListComp, ast.SetComp,
                                ast.DictComp, ast.GeneratorExp)):
            return True
        current = ctx.parent_anywhere(current)
    return True


def _host_chosen(node: ast.Name, function: ast.AST, ctx: FileContext) -> bool:
    """``node`` lists positions a Python loop chose by tensor values (the model's host nonzero)."""
    scopes = ctx.resolver.scopes
    scope = scopes.scope_of(function) if scopes is not None else None
    return scope is not None and host_selection(ctx.resolver, node, scope) is not None


def _module(ctx: FileContext) -> Optional[ast.AST]:
    scopes = ctx.resolver.scopes
    return scopes.module.node if scopes is not None else None


def _parameters(function: ast.AST) -> set:
    args = getattr(function, "args", None)
    if args is None:
        return set()
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _field(node: ast.Attribute, ctx: FileContext, depth: int) -> Optional[str]:
    """What every assignment of the field in the file makes (a store of the field again, ``x.m = x.m.to(d)``, is
    neutral); a field the file only rebinds or never stores is what every store of that field name in the project
    makes, when at most one class stores it (session 25, fields25: ``ProjectView.field_verdict``)."""
    active = ctx.scratch.setdefault("broad_mask_active", set())
    key = (None, "." + node.attr)
    if key in active:
        return _SELF   # met again while its own assignments are read: a rebinding of itself
    stored = _stored_before(node, ctx)
    if stored is not None:   # ``self.idx = torch.tensor(kept)`` a few lines above, in the same block (session 33)
        active.add(key)
        try:
            verdict = constructed_index(stored, ctx, depth + 1)
        finally:
            active.discard(key)
        if verdict in (MASK_WORD, POSITIONS, VALUES):
            return verdict
    root = _module(ctx)
    values = _assignments(root, ctx).get("." + node.attr) if root is not None else None
    active.add(key)
    try:
        verdicts = [constructed_index(v, ctx, depth + 1) if v is not None else None for v in values or ()]
    finally:
        active.discard(key)
    if not values or all(v == _SELF for v in verdicts):
        if ctx.project is not None and ctx.project.field_verdict(node.attr) == MASK_WORD:
            return MASK_WORD
        return None
    if any(v is None for v in verdicts):
        return None
    seen = set(verdicts) - {_SELF}
    return POSITIONS if POSITIONS in seen else VALUES if VALUES in seen else MASK_WORD


def _stored_before(node: ast.Attribute, ctx: FileContext) -> Optional[ast.AST]:
    """The value the field ``node`` (``self.idx``) was last given by a plain assignment of its own function that
    runs before it on every path: a statement before the read's, in the read's block or a block around it, with no
    other store of the field in between. None when no such store is seen (then every store of the file decides)."""
    if not isinstance(node.value, ast.Name):
        return None
    text = ast.unparse(node)
    current = ctx.statement_of(node)
    for _ in range(12):
        parent = ctx.parent(current) if current is not None else None
        if parent is None or isinstance(parent, (ast.Lambda, ast.ClassDef, ast.Module)):
            return None
        block = next((b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody"))
                      if isinstance(b, list) and current in b), None)
        if block is not None:
            for previous in reversed(block[:block.index(current)]):
                if isinstance(previous, ast.Assign) and any(ast.unparse(t) == text for t in previous.targets):
                    return previous.value if len(previous.targets) == 1 else None
                if any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and ast.unparse(n) == text
                       for n in walk(previous)):
                    return None   # stored on some path only (under an ``if``, in a loop): undecided here
        if isinstance(parent, FUNCTION_TYPES):
            return None
        current = parent
    return None


def _returns(function: ast.AST, ctx: FileContext, depth: int) -> Optional[str]:
    returns = [n.value for n in walk(function) if type(n) is ast.Return]
    return _agree(returns, ctx, depth)


def not_a_tensor(value: ast.AST, index: ast.AST, subscript: ast.Subscript, ctx: FileContext) -> bool:
    """The model proves the indexed value is no tensor (numpy, pandas, a list, a module, an object), or, for a value
    of unknown kind, the index numpy's own (a numpy file's array: a host buffer's), or the mask fixed."""
    if isinstance(value, (ast.Name, ast.Attribute)):
        name = ctx.resolver.qualname(value) or (value.id if isinstance(value, ast.Name) else "")
        if name in _GENERICS or name.startswith(("typing.", "builtins.", "collections.", "typing_extensions.")):
            return True   # ``tuple[str | list[str], int]``: an annotation, no selection
    kind = ctx.resolver.kind_of(value)
    if kind in TENSORS:   # a tensor the model knows, indexed by numpy's flags or positions too (``x[np.where(d)[0]]``)
        return ctx.resolver.configured(index)
    if kind is not None:
        return True
    if isinstance(value, (ast.List, ast.Tuple, ast.Dict, ast.Constant, ast.JoinedStr, ast.ListComp, ast.DictComp)):
        return True
    return is_host_array(value, ctx, value) or host_array_evidence(subscript, index, ctx) \
        or ctx.resolver.configured(index)


def _calls(ctx: FileContext) -> list:
    """The calls of the file whose callee is a plain name (one walk of the module, memoised)."""
    calls = ctx.scratch.get("broad_mask_calls")
    if calls is None:
        module = _module(ctx)
        calls = [n for n in walk(module) if type(n) is ast.Call and type(n.func) is ast.Name] \
            if module is not None else []
        ctx.scratch["broad_mask_calls"] = calls
    return calls


def _passed(function: ast.AST, parameter: str, ctx: FileContext, depth: int) -> Optional[str]:
    """A parameter of a module-level function of the file is what every call of it in the file passes (the model's
    ``call_sites``; at least one call; a call that leaves it out, or passes ``*args`` / ``**kw``, proves nothing)."""
    module = _module(ctx)
    if module is None or function not in module.body or not isinstance(function, (ast.FunctionDef,
                                                                                  ast.AsyncFunctionDef)):
        return None
    args = function.args
    arg = next((a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == parameter), None)
    if arg is None:
        return None
    values = []
    for call, _, offset in ctx.resolver.call_sites(function):
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        values.append(passed_argument(call, function, arg, offset))
    return _agree(values, ctx, depth)


_TAKING = frozenset({"index_select", "take", "gather", "take_along_dim"})   # (gather, take_along_dim: session 33)
_FIRST_AFTER_VALUE = frozenset({"take", "take_along_dim"})   # the index right after the value (no dim before it)


def _taken_index(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """The index argument of ``x.index_select(d, idx)`` / ``torch.index_select(x, d, idx)`` / ``x.take(idx)`` /
    ``x.gather(d, idx)`` (keyword ``index=`` too)."""
    func = node.func
    through_torch = (ctx.resolver.qualname(func) or "") == "torch." + func.attr
    first = func.attr in _FIRST_AFTER_VALUE
    position = (1 if first else 2) if through_torch else (0 if first else 1)
    return node.args[position] if len(node.args) > position else next(
        (k.value for k in node.keywords if k.arg in ("index", "indices")), None)


def positions_taken(node: ast.Call, ctx: FileContext) -> Optional[tuple]:
    """``(value, positions)`` when ``node`` takes rows by positions built from values: ``x.index_select(d, idx)``,
    ``torch.index_select(x, d, idx)``, ``x.take(idx)`` / ``torch.take(x, idx)`` with ``idx`` the positions of a
    nonzero / one-argument where (by construction, as for a subscript). The output has one row per position: its
    shape is the count found. Silent when the value is proven no tensor (numpy's ``np.take``, a list ...)."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in _TAKING:
        return None
    qualname = ctx.resolver.qualname(func) or ""
    if qualname.startswith(("numpy.", "np.", "pandas.")):
        return None
    through_torch = qualname == "torch." + func.attr
    value = node.args[0] if through_torch and node.args else func.value
    index = _taken_index(node, ctx)
    if index is None or constructed_index(index, ctx) != POSITIONS:
        return None
    kind = ctx.resolver.kind_of(value)
    if (kind is not None and kind not in TENSORS) or ctx.resolver.is_host(value) or ctx.resolver.is_host(index) \
            or is_host_array(value, ctx, value) or ctx.resolver.configured(index):
        return None
    return value, index


# Session 26 (dataops26): NPU402's examples of the broad path's new links, beside their code.
MASK_INDEX_FIRE = (
    # an element of a list of positions, walked by a loop: one class's rows per item (boxmot's AdaSP loss)
    "import torch\ndef loss(s, t):\n    ids = torch.unique(t)\n"
    "    per_class = [torch.nonzero(t == c).flatten() for c in ids]\n    out = []\n"
    "    for rows in per_class:\n        out.append(s[rows].sum())\n    return out\n",
    "import torch\ndef pick(x, m):\n    idxs = []\n    for c in range(3):\n        idxs.append(torch.nonzero(m == c).flatten())\n"
    "    for k, ix in enumerate(idxs):\n        x = x + x[ix].sum()\n    return x\n",
    # a mask in one arm, an entry of the caller's keywords in the other: on the first path the size is the data's
    "import torch\ndef loss(l, lens=None, **kw):\n    if lens is not None:\n"
    "        mask = torch.less(torch.arange(l.shape[1]), lens[:, None])\n    else:\n        mask = kw.get('mask')\n"
    "    return l[mask]\n",
    # positions a Python loop chose by values read back (membership of an item), indexing a dict's tensor
    "import torch\nfrom typing import Dict\ndef keep(inputs: Dict[str, torch.Tensor], key):\n"
    "    slab = inputs[key].tolist()\n    kept = []\n    for k in range(inputs['i'].shape[0]):\n"
    "        i = inputs['i'][k].item()\n        if i not in slab:\n            kept.append(k)\n"
    "    return inputs['i'][kept]\n",
)
MASK_INDEX_SILENT = (
    # the rows of a tensor of positions walked one by one: one position each, a fixed shape
    "import torch\ndef each(x, m):\n    for i in torch.nonzero(m):\n        x = x + x[i]\n    return x\n",
    # positions a loop chose by Python values (names)
    "import torch\ndef g(x, names):\n    kept = []\n    for k in range(len(names)):\n"
    "        if names[k] in ('a', 'b'):\n            kept.append(k)\n    return x[kept]\n",
    # a list of index tensors the code fixes (aranges), walked
    "import torch\ndef blocks(x, n):\n    parts = [torch.arange(i, i + 4) for i in range(0, n, 4)]\n"
    "    for p in parts:\n        x = x + x[p].sum()\n    return x\n",
)
