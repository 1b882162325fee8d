"""The padding summary of a function: it pads its items to the longest among them. It computes the maximum of its
items' lengths or shapes (``max(x.size(0) for x in xs)``, ``_max_by_axis([list(img.shape) for img in images])``,
``max(map(len, seqs))``, the longest item ``max(xs, key=len)`` whose sizes it reads, and what the model's :func:`npu_lint.analysis.batch_extremes.batch_extreme` finds:
``max(lengths)`` / ``np.max(lengths)`` of a list of lengths, a running ``max(m, len(x))``) and sizes a new tensor
with it (``torch.zeros``, ``xs[0].new(n, max_len)``, ``new_zeros``, ``full`` ..., a numpy buffer) or pads with it
(``F.pad``), itself or through a helper of the same file it calls; or it hands its items to ``pad_sequence``. A
parameter the maximum only fills when not given (``max_len=None``) is named: a call giving it does not pad.
Asked by NPU405 at the call sites of the file's helpers and by the project index's facts (``FunctionFacts.pads``)
for the call sites in other modules. Computed once per function; nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, NamedTuple, Optional

from npu_lint.analysis.batch_extremes import padding_extreme, per_item_lengths, picked_by_size
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import PARAM, VALUE, Scope
from npu_lint.analysis.summaries import memo

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "new_zeros", "new_ones", "new_empty", "new_full", "new"})
_PAD_SEQUENCE = "torch.nn.utils.rnn.pad_sequence"
_F_PAD = "torch.nn.functional.pad"
_PADS = {_F_PAD: "F.pad", "numpy.pad": "np.pad"}   # padding calls: the input first, then how much to pad
_DEPTH = 2
LISTS_LEAF = "max of item lengths, lists padded"   # the leaf of a chain to a helper padding Python lists
_SIZED_BY = ("torch.", "numpy.")    # a numpy buffer filled then handed to torch pads the batch too


class Padding(NamedTuple):
    """How a function pads: the line of the maximum (0 for ``pad_sequence``), what it sizes and where, the
    helpers of the file it goes through (``("_pad_one",)``) and the parameter that, given, replaces the maximum
    (``def pad_list(xs, max_len=None)`` then ``if max_len is None: max_len = max(...)``) with its position among
    the positional parameters (-1: keyword-only; ``("", -1)``: none)."""

    maximum: int
    sink: str
    line: int
    through: tuple[str, ...] = ()
    unless: tuple[str, int] = ("", -1)
    in_python: bool = False     # it pads Python lists (``ids + [pad] * (m - len(ids))``): a batch once made a tensor

    def describe(self) -> str:
        """``the maximum at line 12 sizes new() at line 14``, ``through pad_one(): ...``."""
        if self.in_python:
            text = f"the maximum at line {self.maximum} pads a list at line {self.line}"
        elif self.maximum:
            text = f"the maximum at line {self.maximum} sizes {self.sink}() at line {self.line}"
        else:
            text = f"{self.sink}() at line {self.line} pads to the longest"
        return "".join(f"through {name}(): " for name in self.through) + text

    def leaf(self) -> str:
        """The end of a project chain: ``max of item lengths`` / ``pad_sequence``."""
        if self.in_python:
            return LISTS_LEAF
        return "max of item lengths" if self.maximum else self.sink


def batch_maximum(node: ast.AST) -> bool:
    """``max(len(s) for s in batch)``, ``_max_by_axis([list(img.shape) for img in images])``, or
    ``[max(s) for s in zip(*[list(img.shape) for img in images])]``."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        iterated = node.generators[0].iter
        return isinstance(node.elt, ast.Call) and isinstance(node.elt.func, ast.Name) and node.elt.func.id == "max" \
            and isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "zip" \
            and len(iterated.args) == 1 and isinstance(iterated.args[0], ast.Starred) \
            and per_item_lengths(iterated.args[0].value)
    if not isinstance(node, ast.Call) or len(node.args) != 1:
        return False
    if picked_by_size(node):
        return True     # ``longest = max(xs, key=len)``: its sizes are the batch's longest
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name == "max" and isinstance(node.args[0], ast.Call) and isinstance(node.args[0].func, ast.Name) \
            and node.args[0].func.id == "map" and len(node.args[0].args) == 2 \
            and getattr(node.args[0].args[0], "id", None) == "len":
        return True     # ``max(map(len, seqs))``
    return "max" in name.lower() and "argmax" not in name.lower() and per_item_lengths(node.args[0])


def _last(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def padded_items(resolver: "Resolver", function: ast.AST, depth: int = 0) -> Optional[Padding]:
    """How ``function`` pads its items to the longest among them, else None (memoised per function and depth: an
    answer cut short by the depth bound is not the answer for a caller nearer the top)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or resolver.scopes is None:
        return None
    return memo(resolver._summaries, ("pads", id(function), depth),  # type: ignore
                lambda: _pads(resolver, function, depth))


def own_maximum(resolver: "Resolver", function: ast.AST, calls: list[ast.Call]) -> bool:
    """One of ``calls`` (the function's own) takes a batch maximum (``max(len(s) for s in xs)``, ``max(lengths)``
    after ``lengths = [len(x) for x in xs]``) or is ``pad_sequence``: a cheap test before :func:`padded_items`,
    where a function merely calling a padding helper of its file is not asked about (the project index's facts)."""
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    return scope is not None and any(
        _last(call.func) == "pad_sequence" or batch_maximum(call) or padding_extreme(resolver, call, scope)
        for call in calls)


def _pads(resolver: "Resolver", function: ast.AST, depth: int) -> Optional[Padding]:
    scope = resolver.scopes.scope_of(function)
    if scope is None:
        return None
    maxima: dict[str, int] = {}
    bound_at: dict[str, int] = {}   # where a name first took a maximum (``batch = [x + pad * (m - len(x)) ...]``
    nodes = list(walk(function))     # after ``torch.zeros(len(batch), m)`` does not size it)
    if not any(isinstance(n, ast.Call) and (batch_maximum(n) or _last(n.func) == "pad_sequence") or (
            isinstance(n, ast.ListComp) and batch_maximum(n)) for n in nodes) and depth == _DEPTH:
        return None     # the deepest helper: nothing of its own to pad to
    for statement in sorted((n for n in nodes if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
        value = statement.value
        line = next((n.lineno for n in walk(value) if batch_maximum(n) or (
            isinstance(n, ast.Call) and padding_extreme(resolver, n, scope))), None)
        if line is None:
            line = next((maxima[n.id] for n in walk(value) if isinstance(n, ast.Name) and n.id in maxima), None)
        if line is not None:
            for target in statement.targets:
                for name in walk(target):
                    if isinstance(name, ast.Name) and name.id not in maxima:
                        maxima[name.id] = line
                        bound_at[name.id] = statement.lineno
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if last not in _FACTORIES and last not in ("pad", "pad_sequence"):
            if depth < _DEPTH and isinstance(func, ast.Name):
                inner_function = resolver.definition(func, scope)
                inner = padded_items(resolver, inner_function, depth + 1) if inner_function is not function else None
                if inner is not None:
                    return inner._replace(through=(func.id,) + inner.through, unless=("", -1))
                handed = _handed_maximum(resolver, node, inner_function, maxima) \
                    if inner_function is not function else None
                if handed is not None:   # ``_pad_data(x, max_len)`` where ``_pad_data`` pads up to its parameter
                    return Padding(handed[0], handed[1], handed[2], through=(func.id,))
            continue
        qualname = resolver.qualname(func, scope)
        if qualname == _PAD_SEQUENCE:
            if node.args and _from_parameters(resolver, node.args[0], scope):
                return Padding(0, "pad_sequence", node.lineno)
            continue
        if (last in _FACTORIES and (qualname or "torch.").startswith(_SIZED_BY)) or qualname in _PADS:
            arguments = [*node.args, *(k.value for k in node.keywords)][1 if qualname in _PADS else 0:]
            name = next((n.id for a in arguments for n in walk(a) if isinstance(n, ast.Name) and n.id in maxima
                         and bound_at[n.id] <= node.lineno), None)
            line = maxima[name] if name is not None else None
            if line is None and any(batch_maximum(n) for a in arguments for n in walk(a)):
                line = node.lineno
            if line is not None:
                return Padding(line, _PADS.get(qualname, last), node.lineno,
                               unless=_parameter(function, name) if name is not None else ("", -1))
    for node in nodes:   # ``tokens + ["<pad>"] * (m - len(tokens))``: Python lists padded to the longest
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
            continue
        for padded, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(padded, ast.List) and len(padded.elts) == 1:
                name = next((n.id for n in walk(count) if isinstance(n, ast.Name) and n.id in maxima
                             and bound_at[n.id] <= node.lineno), None)
                if name is not None:
                    return Padding(maxima[name], "list", node.lineno, unless=_parameter(function, name),
                                   in_python=True)
    return None


def _handed_maximum(resolver: "Resolver", call: ast.Call, helper: Optional[ast.AST],
                    maxima: dict[str, int]) -> Optional[tuple[int, str, int]]:
    """``_pad_data(x, max_len)`` with ``max_len`` a maximum of the caller's items, where the file's ``_pad_data``
    pads (``np.pad`` / ``F.pad``) or sizes a buffer with that parameter: (line of the maximum, the sink, its
    line), else None."""
    if not isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)) or not maxima:
        return None
    positional = [a.arg for a in helper.args.posonlyargs + helper.args.args]
    given = {**dict(zip(positional, call.args)), **{kw.arg: kw.value for kw in call.keywords if kw.arg}}
    handed = {param: maxima[value.id] for param, value in given.items()
              if isinstance(value, ast.Name) and value.id in maxima}
    if not handed:
        return None
    inner_scope = resolver.scopes.scope_of(helper) if resolver.scopes is not None else None
    for node in walk(helper):
        if not isinstance(node, ast.Call):
            continue
        last = _last(node.func)
        if last not in _FACTORIES and last != "pad":
            continue
        qualname = resolver.qualname(node.func, inner_scope)
        if not ((last in _FACTORIES and (qualname or "torch.").startswith(_SIZED_BY)) or qualname in _PADS):
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)][1 if qualname in _PADS else 0:]
        param = next((n.id for a in arguments for n in walk(a) if isinstance(n, ast.Name) and n.id in handed), None)
        if param is not None:
            return handed[param], _PADS.get(qualname, last), node.lineno
    return None


def _parameter(function: ast.AST, name: str) -> tuple[str, int]:
    """``(name, position)`` when ``name`` is also a parameter of ``function`` (``max_len=None``, filled with the
    maximum only when not given), else ``("", -1)``."""
    arguments = function.args   # type: ignore[attr-defined]
    positional = [a.arg for a in arguments.posonlyargs + arguments.args]
    if name in positional:
        return name, positional.index(name)
    return (name, -1) if name in (a.arg for a in arguments.kwonlyargs) else ("", -1)


def given(call: ast.Call, unless: tuple[str, int], skipped: int = 0) -> bool:
    """The call passes the parameter that replaces the helper's maximum (``pad_list(xs, max_len=128)``), as
    anything but ``None``; ``skipped``: leading parameters the call fills implicitly (``self``)."""
    name, position = unless
    if not name:
        return False
    passed = next((k.value for k in call.keywords if k.arg == name), None)
    index = position - skipped
    if passed is None and (any(k.arg is None for k in call.keywords)
                           or any(isinstance(a, ast.Starred) for a in call.args[:max(index, 0) + 1])):
        return True   # ``pad_list(batch, **k)``, ``pad_list(*a)``: it may be given; no evidence it is not
    if passed is None and 0 <= index < len(call.args):
        passed = call.args[index]
    return passed is not None and not (isinstance(passed, ast.Constant) and passed.value is None)


def _from_parameters(resolver: "Resolver", expr: ast.AST, scope: Scope) -> bool:
    """``expr`` is made of the function's parameters, directly or through the values bound to its names (three
    steps, as the model says which bindings reach): ``pad_sequence(xs)``, ``chunks = x.split(n);
    pad_sequence(chunks)`` -- the items it was given, not a list of results it built itself."""
    frontier, seen = [expr], set()
    for _ in range(3):
        following = []
        for name in (n for e in frontier for n in walk(e) if isinstance(n, ast.Name)):
            for binding in resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)):
                if binding.scope is not scope or id(binding) in seen:
                    continue
                seen.add(id(binding))
                if binding.tag == PARAM:
                    return True
                if binding.tag == VALUE and isinstance(binding.value, ast.AST):
                    following.append(binding.value)
        frontier = following
    return False
