"""NPU409's fourth broad path (session 23, concat23): items SIZED BY THE DATA, whatever their count
(``sized_join``); beside it ``kept_join`` (a data test filters a loop of fixed count) and ``unzipped_join`` (one
of a helper's several results per element, unzipped), each documented at its function.

The other paths ask whether the COUNT of joined items is fixed; a count proven fixed (``range`` of a tensor's
size, ``range(batch_size)``, the elements of a tensor) silenced them. But a fixed count of items of different
lengths is a varying join all the same: the per-sample slices of a packed batch cut at its offsets, per-cloud
batch-index columns, per-sequence completion log-probs cut at their lengths. Seen on fresh code in openpoints
(``x_b = x[s_i:e_i]`` with ``s_i, e_i = o[i - 1], o[i]`` under ``for i in range(o.shape[0])``;
``torch.cat([torch.tensor([ii] * o) for ii, o in enumerate(offset_)])``) and ms-swift (GRPO's
``gathered_logps[seq_start:seq_end]`` with bounds from ``.item()`` under ``for i in range(batch_size)``;
``_pad_or_trim_routed_experts(routed, int(cur_seq_len.item()))`` per sample).

The join is the trigger: a ``cat`` along dim 0 of a comprehension, or of a local list appended in a ``for`` loop
(any count), fires when the item (its last assignment in the loop, through ``to`` / ``detach`` ...) is

- a cut along its first dim whose bound is a value the loop takes from the data (``x[s:e]``, ``x[:n]``, ``x[s:]``):
  an element of the sequence walked (not a ``range`` / ``enumerate`` counter), an entry read at the counter
  (``o[i]``, ``lengths[i]``), a ``.item()`` / ``.tolist()``, or a name the loop computes from those;
- a factory or a repeat sized by such a value (``torch.full((n,), i)``, ``torch.tensor([i] * n)``,
  ``x.repeat(n)``);
- what a helper of the project returns when given such a SIZE (``trim(x, n)``; not an element: a helper's result
  of the item is the inverted path's proof of one size).

Silent (proven static): a cut of fixed width (``x[s:s + k]``, bounds of counters and settings only: ``x[i * k:(i
+ 1) * k]``), bounds read from ``self`` (a model's split points), a loop over structure (a literal, the model's
modules, ``self``'s containers), a reduction or a model's output over the cut (``x[s:e].mean(0)``), a join along
another dim, setup code and tests. Asked per call after the other paths found nothing; the per-loop assignments
and per-function appends are the filled path's memos.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import short_source
from npu_lint.rules.broad_joins import (JOIN_CATS, _built_here, _comprehension_source, _encloses, _fixed_count,
                                        _function_of, _host_piece, _joined_dim, _own, _structural)
from npu_lint.rules.broad_joins import _reads_data as _reads_data_test
from npu_lint.rules.filled_joins import _enclosing_loops, _fills, _latest, loops_assigned

_PASS = frozenset({"to", "float", "long", "int", "half", "bool", "detach", "clone", "contiguous", "cuda", "cpu",
                   "type", "type_as", "squeeze", "flatten"})
_SIZED = frozenset({"zeros", "ones", "full", "empty", "rand", "randn", "arange", "new_zeros", "new_ones",
                    "new_full", "new_empty", "repeat", "expand", "repeat_interleave"})
_CONVERT = frozenset({"tensor", "as_tensor", "LongTensor", "FloatTensor", "IntTensor", "BoolTensor"})
_READS = frozenset({"item", "tolist"})
_RANGES = frozenset({"range", "trange", "arange", "linspace"})
_SCALARS = frozenset({"int", "len", "prod", "min", "max", "item", "tolist", "sum", "numel", "size", "round", "ceil",
                      "floor"})


def _split_targets(pairs: list[tuple[ast.AST, ast.AST]], ctx: FileContext) -> tuple[set[str], set[str]]:
    """The names loops (or generators) bind to the elements of what they walk, and to counters (``range``'s,
    ``enumerate``'s index, the values of a tensor the code ranges itself: ``ls = torch.arange(0, lmax + 1)``)."""
    elements, counters = set(), set()
    for target, source in pairs:
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate" \
                and isinstance(target, ast.Tuple) and len(target.elts) == 2 and source.args:
            counters.update(n.id for n in ast.walk(target.elts[0]) if isinstance(n, ast.Name))
            target, source = target.elts[1], source.args[0]
        names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if isinstance(source, ast.Name):
            binding = ctx.resolver.binding(source)
            value = binding.value if binding is not None and not binding.path else None
            source = value if isinstance(value, ast.Call) else source
        if isinstance(source, ast.Call) and _callee(source) in _RANGES:
            counters |= names
        else:
            elements |= names
    return elements, counters


def _reads_data(expr: Optional[ast.AST], data: set[str], counters: set[str]) -> bool:
    """A value the loop takes from the data: an element or a name computed from one, ``.item()`` / ``.tolist()``,
    an entry read at a counter or an element (``o[i]``; not ``self``'s: a model's split points). An element's own
    size (``len(t)``, ``t.shape[0]``, ``t.size(0)``) restates the element's length: the other paths judge that."""
    if expr is None:
        return False
    if _own_size(expr):
        return False
    if isinstance(expr, ast.Name):
        return expr.id in data
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _READS:
        return True
    if isinstance(expr, ast.Subscript) and not isinstance(expr.slice, ast.Slice) and not _own(expr.value) \
            and not isinstance(expr.value, (ast.List, ast.Tuple, ast.Constant)) \
            and any(isinstance(n, ast.Name) and n.id in counters | data for n in ast.walk(expr.slice)):
        return True
    return any(_reads_data(child, data, counters) for child in ast.iter_child_nodes(expr))


def _own_size(expr: ast.AST) -> bool:
    """``len(t)``, ``t.shape[0]``, ``t.size(0)``, ``t.numel()`` of a plain name."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and expr.args:
        return isinstance(expr.args[0], ast.Name)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("size", "numel"):
        return isinstance(expr.func.value, ast.Name)
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape":
        return isinstance(expr.value.value, ast.Name)
    return isinstance(expr, ast.Attribute) and expr.attr == "shape" and isinstance(expr.value, ast.Name)


def _sizes(assigned: dict[str, list[ast.AST]], elements: set[str], counters: set[str]) -> tuple[set[str], set[str]]:
    """The names the loop binds to values it takes from the data (three rounds of ``a = f(b)``), and among them
    the sizes: numbers (``int(n.item())``, ``o[i]``, ``len(x)``, ``e - s``), not objects a call returns."""
    data, sizes = set(elements), set()
    for _ in range(3):
        grown = {name for name, values in assigned.items() if name not in data and name != "__if__" and any(
            isinstance(v, ast.expr) and _reads_data(v, data, counters) for v in values)}
        sizes |= {name for name in grown if all(_scalar(v, sizes) for v in assigned[name] if isinstance(v, ast.expr))}
        if not grown:
            break
        data |= grown
    return data, sizes


def _scalar(value: ast.AST, sizes: set[str], operand: bool = False) -> bool:
    """A number: a size call (``int``, ``len``, ``.item()``, ``np.prod``), a name of one, arithmetic (of entries
    too: ``o[i] - o[i - 1]``; a bare entry may be a tensor) or a choice of those."""
    if isinstance(value, ast.Constant) or operand and isinstance(value, ast.Subscript):
        return True
    if isinstance(value, ast.Name):
        return value.id in sizes
    if isinstance(value, ast.BinOp):
        return _scalar(value.left, sizes, True) or _scalar(value.right, sizes, True)
    if isinstance(value, ast.UnaryOp):
        return _scalar(value.operand, sizes)
    if isinstance(value, ast.IfExp):
        return _scalar(value.body, sizes) or _scalar(value.orelse, sizes)
    return isinstance(value, ast.Call) and _callee(value) in _SCALARS


def _fixed_width(index: ast.Slice, data: set[str], counters: set[str]) -> bool:
    """``x[s:s + k]`` with ``k`` no data value: a window of fixed width wherever it starts."""
    upper = index.upper
    return index.lower is not None and isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add) \
        and ast.dump(upper.left) == ast.dump(index.lower) and not _reads_data(upper.right, data, counters)


def _data_sized(item: ast.AST, data: set[str], sizes: set[str], counters: set[str],
                binds: dict[str, list[ast.AST]], depth: int = 0) -> Optional[str]:
    """How the item's length along dim 0 comes from the data, else None."""
    if depth > 4:
        return None
    if isinstance(item, ast.Name):      # any assignment the loop makes (``x_b = x[s:e]; x_b = cat((x_b, m), 1)``)
        return next(filter(None, (_data_sized(v, data, sizes, counters, binds, depth + 1)
                                  for v in binds.get(item.id, ()))), None)
    if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr in _PASS:
        return _data_sized(item.func.value, data, sizes, counters, binds, depth + 1)
    if isinstance(item, ast.BinOp):     # elementwise: ``torch.arange(n) % w``
        return _data_sized(item.left, data, sizes, counters, binds, depth + 1) \
            or _data_sized(item.right, data, sizes, counters, binds, depth + 1)
    if isinstance(item, ast.Call) and _callee(item) in ("cat", "concat") and _joined_dim(item) != 0 and item.args \
            and isinstance(item.args[0], (ast.List, ast.Tuple)) and item.args[0].elts:
        return _data_sized(item.args[0].elts[0], data, sizes, counters, binds, depth + 1)   # side by side: rows kept
    if isinstance(item, ast.Subscript):
        index = item.slice.elts[0] if isinstance(item.slice, ast.Tuple) and item.slice.elts else item.slice
        if isinstance(index, ast.Slice) and index.step is None \
                and (_reads_data(index.lower, data, counters) or _reads_data(index.upper, data, counters)) \
                and not _fixed_width(index, data, counters):
            return f"cut at bounds the data gives ({short_source(item, 30)})"
        return None
    if not isinstance(item, ast.Call):
        return None
    func = item.func
    callee = _callee(item)
    if callee in _SIZED:
        args = item.args[:1] if callee in ("full", "new_full") else item.args
        if any(_reads_data(a, data, counters) for a in args) or any(
                k.arg in ("size", "end", "repeats") and _reads_data(k.value, data, counters) for k in item.keywords):
            return f"sized by a value the data gives ({short_source(item, 30)})"
        return None
    if callee in _CONVERT and item.args:
        for node in ast.walk(item.args[0]):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
                    isinstance(side, (ast.List, ast.Tuple)) for side in (node.left, node.right)) \
                    and _reads_data(node, data, counters):
                return f"sized by a value the data gives ({short_source(item, 30)})"
        return None
    helper = isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
        and func.value.id == "self"
    given = [*item.args, *(k.value for k in item.keywords)]
    if helper and any(isinstance(a, ast.Name) and a.id in sizes for a in given[1:]):
        return f"made by {short_source(func, 24)}() to a size the data gives"
    return None


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _comprehension(items: ast.AST) -> Optional[ast.AST]:
    if isinstance(items, ast.Call) and isinstance(items.func, ast.Name) and items.func.id in ("list", "tuple") \
            and len(items.args) == 1:
        items = items.args[0]
    return items if isinstance(items, (ast.ListComp, ast.GeneratorExp)) else None


def sized_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """Why the joined items differ in length along the joined dim, whatever their count (module docstring)."""
    if name not in JOIN_CATS or name in ("torch.hstack", "torch.vstack") or not node.args or _joined_dim(node) != 0:
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") == "__init__" or ".test" in f".{ctx.module}":
        return None
    items = node.args[0]
    comprehension = _comprehension(items)
    if comprehension is not None:
        pairs = [(g.target, g.iter) for g in comprehension.generators]
        if all(_structural(source, ctx) for _, source in pairs):
            return None
        elements, counters = _split_targets(pairs, ctx)
        why = _data_sized(comprehension.elt, elements, set(), counters, {})
        return f"{why}, one per element of {short_source(pairs[0][1], 30)}" if why else None
    if not isinstance(items, ast.Name):
        return None
    for call, added in _fills(function, ctx).get(items.id, ()):
        if call.lineno > node.lineno:
            continue
        loops = [loop for loop in _enclosing_loops(call, ctx) if not _encloses(loop, node)]
        if not loops or all(_structural(loop.iter, ctx) for loop in loops):
            continue
        assigned = loops_assigned(loops, ctx)
        elements, counters = _split_targets([(loop.target, loop.iter) for loop in loops], ctx)
        data, sizes = _sizes(assigned, elements, counters)
        item = _latest(added, call, loops[-1])
        binds = {k: [v for v in vs if isinstance(v, ast.expr)] for k, vs in assigned.items() if k != "__if__"}
        why = _data_sized(item, data, sizes, counters, binds)
        if why is not None:
            return f"the list {items.id}, filled in the loop of line {loops[0].lineno} with items {why}"
    return None


def kept_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """A ``cat`` (dim 0) / ``stack`` of the items a test on the data keeps in a loop whose count IS fixed (``for i in
    range(x.size(0)): if sp.numel() == 0: continue; losses.append(...)``, boxmot's per-anchor losses; per-class
    results kept where the class is present): the broad path took the loop's fixed count as proof and stayed
    silent, but the test decides how many items reach the join. Silent for structure (the model's modules, a
    literal), a test of settings or of membership / ``None`` (``_reads_data``), host items, and conversions of
    Python values (``torch.tensor``: the proof paths')."""
    if name not in JOIN_CATS and name != "torch.stack" or name in ("torch.hstack", "torch.vstack") or not node.args:
        return None
    if name in JOIN_CATS and _joined_dim(node) != 0:
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") == "__init__" or ".test" in f".{ctx.module}":
        return None
    items = node.args[0]
    source = _comprehension_source(items)
    element = items.elt if isinstance(items, (ast.ListComp, ast.GeneratorExp)) else None
    if source is None and isinstance(items, ast.Name):
        source, element = _built_here(items, node, function, ctx)
    if source is None or source[0] is None:
        return None
    sequence, tests = source
    filtered = tests is True or isinstance(tests, list) and any(_reads_data_test(t, ctx) for t in tests)
    if not filtered or _structural(sequence, ctx) or not _fixed_count(sequence, ctx):
        return None     # not filtered by the data, structure, or a count the broad path already judged
    if isinstance(element, ast.Call) and _host_piece(element, ctx):
        return None
    return f"the items a test on the data keeps out of {short_source(sequence, 30)}, a loop of fixed count"


def unzipped_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """A ``cat`` along dim 0 of one of the results a helper returns per element, unzipped
    (``pixel_values, grids = zip(*(proc.preprocess(image=im) for im in images))``, ms-swift's Ovis per-image
    patches; ``zip(*[build(pos, ...) for ...])``, fairchem's per-system graphs): a helper that hands back several
    results hands back a selection or a variable-size piece with what sizes it, so its result is no proof of one
    size (as the filled path judges a name unpacked from a helper's several results). Silent for a count proven
    fixed or structure (a literal, the model's modules, ``self``'s containers), setup code and tests."""
    if name not in JOIN_CATS or name in ("torch.hstack", "torch.vstack") or not node.args or _joined_dim(node) != 0:
        return None
    items = node.args[0]
    if not isinstance(items, ast.Name):
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") == "__init__" or ".test" in f".{ctx.module}":
        return None
    binding = ctx.resolver.binding(items)
    value = binding.value if binding is not None and len(binding.path) == 1 else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "zip"
            and len(value.args) == 1 and isinstance(value.args[0], ast.Starred)):
        return None
    unzipped = value.args[0].value
    if isinstance(unzipped, ast.Name):      # ``results = [build(p) for p in ...]; a, b = zip(*results)``
        bound = ctx.resolver.binding(unzipped)
        unzipped = bound.value if bound is not None and not bound.path and isinstance(bound.value, ast.AST) else None
    comprehension = _comprehension(unzipped) if unzipped is not None else None
    if comprehension is None or not isinstance(comprehension.elt, ast.Call) or len(comprehension.generators) != 1:
        return None
    sequence = comprehension.generators[0].iter
    if _structural(sequence, ctx) or _fixed_count(sequence, ctx):
        return None
    return f"one of the results {short_source(comprehension.elt.func, 30)}() returns per element of " \
           f"{short_source(sequence, 30)}, unzipped: a helper's several results are no proof of one size"
