"""Evidence, in the code itself, that the items of a list differ in length: the function measures each item's
length and makes a tensor of the lengths (``lengths = torch.IntTensor([len(t) for t in targets])`` next to
``torch.cat(targets)``: CTC targets, packed sequences, per-image ground truths). Nobody keeps a tensor of
lengths that are all the same; a Python list of sizes (``[a.size(0) for a in anchors]``, the per-level counts
used to split a concatenation back) is no such evidence; or each item's rows labelled with the index of its sample
(DETR's ``batch_idx``), only needed when samples have different numbers of rows. Shared by NPU409
(dynamic_samples.py)."""
from __future__ import annotations

import ast
from typing import Callable, Iterator, Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis.nodes import body_of, walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

# Calls that make a tensor of a Python list.
_CONVERTERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor", "torch.Tensor",
                         "torch.FloatTensor", "torch.from_numpy", "numpy.array", "numpy.asarray"})


def _measures(element: ast.AST, bound: set[str]) -> bool:
    """``len(t)``, ``t.size(0)``, ``t.shape[0]``, ``t.numel()``, ``len(t["ids"])`` of a loop target ``t``."""
    measured: Optional[ast.AST] = None
    if isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id == "len" \
            and len(element.args) == 1:
        measured = element.args[0]
    elif isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) \
            and element.func.attr in ("size", "numel") and (
                element.func.attr == "numel" or (len(element.args) == 1 and isinstance(element.args[0], ast.Constant)
                                                 and element.args[0].value == 0)):
        measured = element.func.value
    elif isinstance(element, ast.Subscript) and isinstance(element.value, ast.Attribute) \
            and element.value.attr == "shape" and isinstance(element.slice, ast.Constant) and element.slice.value == 0:
        measured = element.value.value
    while isinstance(measured, ast.Subscript) and isinstance(measured.slice, ast.Constant):
        measured = measured.value
    return isinstance(measured, ast.Name) and measured.id in bound


def measured_item(node: ast.AST) -> Optional[ast.AST]:
    """``t`` for ``len(t)``, ``t.shape[0]``, ``t.size(0)``, ``t.numel()``: the item whose length is read."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
            return node.args[0]
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("size", "numel") and \
                (node.func.attr == "numel" or (len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
                                               and node.args[0].value == 0)):
            return node.func.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        return node.value.value
    return None


def _measured_sequence(node: ast.AST) -> Optional[str]:
    """The name whose items ``[len(t) for t in targets]`` / ``map(len, targets)`` measures, else None."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        generator = node.generators[0]
        if isinstance(generator.iter, ast.Name) and isinstance(generator.target, ast.Name) and not generator.ifs \
                and _measures(node.elt, {generator.target.id}):
            return generator.iter.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("map", "list") \
            and node.args:
        if node.func.id == "list" and len(node.args) == 1:
            return _measured_sequence(node.args[0])
        if node.func.id == "map" and len(node.args) == 2 and isinstance(node.args[0], ast.Name) \
                and node.args[0].id == "len" and isinstance(node.args[1], ast.Name):
            return node.args[1].id
    return None


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, nested functions and classes left out."""
    stack = list(body_of(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (*FUNCTION_TYPES, ast.ClassDef, ast.Lambda)):
            stack.extend(_children(node))


_CONVERTER_WORDS = frozenset(name.rsplit(".", 1)[-1] for name in _CONVERTERS)


def makes_tensor(node: ast.Call, ctx: FileContext) -> bool:
    """``torch.tensor(xs)``, ``torch.LongTensor(xs)``, ``np.array(xs)``: a call that makes a tensor (an array) of a list."""
    func = node.func
    word = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return word in _CONVERTER_WORDS and ctx.resolver.qualname(func) in _CONVERTERS


def measured_lengths(items: ast.Name, call: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """The expression of the function around ``call`` that makes a tensor of the lengths of ``items``' items
    (``torch.IntTensor([len(t) for t in targets])``, or ``lens = [len(t) for t in targets]`` then
    ``torch.tensor(lens)``), the same binding of ``items`` in both; else None."""
    function = ctx.enclosing(call, FUNCTION_TYPES)
    found = _measurements(function, ctx).get(items.id) if function is not None else None
    if not found:
        return None
    binding = ctx.resolver.binding(items)
    if binding is None:
        return None
    return next((converter for measured, converter in found if _same_binding(measured, binding, ctx)), None)


def _measurements(function: ast.AST, ctx: FileContext) -> dict[str, list[tuple[ast.Name, ast.Call]]]:
    """Per list name of a function: (the name as the measurement reads it, the call making a tensor of the
    lengths). One walk per function."""
    store = ctx.scratch.setdefault("measured_lengths", {})
    found = store.get(id(function))
    if found is not None:
        return found
    found = store[id(function)] = {}
    names: dict[str, ast.AST] = {}     # ``lens = [len(t) for t in targets]``: lens -> the comprehension
    converted: list[ast.Call] = []
    for node in own_nodes(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _measured_sequence(node.value) is not None:
            names[node.targets[0].id] = node.value
        elif isinstance(node, ast.Call) and len(node.args) == 1 and makes_tensor(node, ctx):
            converted.append(node)
    for node in converted:
        argument = node.args[0]
        measuring = names.get(argument.id) if isinstance(argument, ast.Name) else argument
        sequence = _measured_sequence(measuring) if measuring is not None else None
        if sequence is None:
            continue
        measured = next((n for n in walk(measuring) if isinstance(n, ast.Name) and n.id == sequence), None)
        if measured is not None:
            found.setdefault(sequence, []).append((measured, node))
    return found


def _same_binding(name: ast.Name, binding: object, ctx: FileContext) -> bool:
    """``name`` (somewhere in the function) refers to ``binding``: the same list, not one bound again."""
    found = ctx.resolver.binding(name)
    return found is binding


def enumerated(target: ast.AST, iterated: ast.AST) -> Optional[tuple[str, set[str]]]:
    """``for i, (src, _) in enumerate(indices)``: the index name and the names its item binds (not over a
    ``range``: its items are numbers, no samples)."""
    if not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "enumerate"
            and iterated.args and isinstance(target, ast.Tuple) and len(target.elts) == 2
            and isinstance(target.elts[0], ast.Name)):
        return None
    sequence = iterated.args[0]
    if isinstance(sequence, ast.Call) and isinstance(sequence.func, ast.Name) and sequence.func.id == "range":
        return None
    return target.elts[0].id, {n.id for n in walk(target.elts[1]) if isinstance(n, ast.Name)}


def sample_index(element: ast.AST, generator: ast.comprehension) -> bool:
    """``torch.full_like(src, i)`` / ``src.new_full(src.shape, i)`` / ``torch.full((len(src),), i)`` over
    ``enumerate(...)``: each row labelled with the index of its sample, which is only needed when the samples have
    different numbers of rows."""
    found = enumerated(generator.target, generator.iter)
    return found is not None and index_tag(element, {found[0]: found[1]}, lambda name: []) is not None


_KEEP_VALUES = frozenset({"float", "long", "int", "to", "type", "type_as", "half", "double", "cuda", "npu"})
_FILLS = frozenset({"full_like", "full", "new_full"})
_ONES = frozenset({"ones", "ones_like", "new_ones", "zeros", "zeros_like", "new_zeros"})


def index_tag(element: ast.AST, indices: dict[str, set[str]], assigned: Callable[[str], list[ast.AST]],
              depth: int = 0) -> Optional[str]:
    """The loop index (of ``indices``: index name -> the names its item binds) that ``element`` writes on
    every row of the loop's item: ``torch.full_like(src, i)``, ``src.new_full(src.shape, i)``,
    ``torch.full((len(src), 1), i)``, ``src.new_ones((src.shape[0], 1)) * i``, ``torch.ones(src.size(0), 1) * i``,
    a name ``assigned`` one of these in the loop's body; else None."""
    while isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) \
            and element.func.attr in _KEEP_VALUES:
        element = element.func.value
    if isinstance(element, ast.Name) and depth < 2:
        return next((found for value in assigned(element.id)
                     if (found := index_tag(value, indices, assigned, depth + 1)) is not None), None)
    if isinstance(element, ast.BinOp) and isinstance(element.op, (ast.Mult, ast.Add)):
        for index, ones in ((element.left, element.right), (element.right, element.left)):
            if isinstance(index, ast.Name) and index.id in indices \
                    and _sized_by(ones, _ONES, indices[index.id], assigned=assigned):
                return index.id
        return None
    if not isinstance(element, ast.Call) or not isinstance(element.func, (ast.Attribute, ast.Name)):
        return None
    fill = element.args[-1] if element.args else next((k.value for k in element.keywords if k.arg == "fill_value"),
                                                      None)
    if isinstance(fill, ast.Name) and fill.id in indices \
            and _sized_by(element, _FILLS, indices[fill.id], fill, assigned):
        return fill.id
    return None


def _sized_by(element: ast.AST, words: frozenset[str], items: set[str], fill: Optional[ast.AST] = None,
              assigned: Optional[Callable[[str], list[ast.AST]]] = None) -> bool:
    """A ``words`` call (``torch.full``, ``x.new_ones``) shaped by one of ``items``' own row count: its size
    starts with ``len(t)`` / ``t.size(0)`` / ``t.shape[0]`` (or a name ``assigned`` one of these in the loop's
    body: ``n = len(t["labels"])``; ``torch.full((n, 6), i)``) or is ``t.shape``, or it is made like ``t``
    (``t[:, :1]``)."""
    if not isinstance(element, ast.Call) or not isinstance(element.func, (ast.Attribute, ast.Name)):
        return False
    last = element.func.attr if isinstance(element.func, ast.Attribute) else element.func.id
    if last not in words:
        return False
    shape = [a for a in element.args if a is not fill] or [k.value for k in element.keywords if k.arg == "size"]
    if not shape:
        return False
    first = shape[0]
    if last.endswith("_like"):
        while isinstance(first, ast.Subscript) or isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute):
            first = first.value if isinstance(first, ast.Subscript) else first.func.value   # ``t[:, :1]``, ``t.long()``
        return isinstance(first, ast.Name) and first.id in items
    if isinstance(first, ast.Attribute) and first.attr == "shape":    # ``t.shape``
        return isinstance(first.value, ast.Name) and first.value.id in items
    if isinstance(first, (ast.Tuple, ast.List)):
        first = first.elts[0] if first.elts else None
    if isinstance(first, ast.Name) and assigned is not None:
        values = assigned(first.id)
        return len(values) == 1 and _measures(values[0], items)
    return first is not None and _measures(first, items)


def labelled_sequence(items: ast.AST, call: ast.Call, ctx: FileContext) -> Optional[str]:
    """A comprehension over the same sequence as a sample-index comprehension of the same function (DETR's
    ``batch_idx = cat([full_like(src, i) for i, (src, _) in enumerate(indices)])`` next to
    ``src_idx = cat([src for (src, _) in indices])``, or ``cat(list(indices))``), or that sample-index
    comprehension itself."""
    generators = getattr(items, "generators", [])
    if isinstance(items, ast.Call) and len(items.args) == 1:   # ``list(history)``: the items of ``history``
        sequence = ast.unparse(items.args[0])
    elif len(generators) != 1:
        return None
    elif sample_index(items.elt, generators[0]):   # type: ignore[attr-defined]
        return "each item's rows labelled with the index of its sample"
    else:
        sequence = ast.unparse(generators[0].iter)
    function = ctx.enclosing(call, FUNCTION_TYPES)     # the walk knows the ancestors of the call, not of its items
    for node in walk(function) if function is not None else ():
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and node is not items and len(node.generators) == 1:
            iterated = node.generators[0].iter
            if isinstance(iterated, ast.Call) and iterated.args and ast.unparse(iterated.args[0]) == sequence \
                    and sample_index(node.elt, node.generators[0]):
                return f"the items of {sequence}, whose rows line {node.lineno} labels with their sample's index"
    return None
