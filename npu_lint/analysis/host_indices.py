"""Positions chosen on the host by tensor values: a nonzero computed in Python.

``keep = [i for i, f in enumerate(flags.tolist()) if not f]``, or ``keep = []`` then ``keep.append(i)`` in a
``for i in range(n)`` loop under ``if scores[i].item() > thr:``, then ``torch.tensor(keep)``: the list holds the
positions whose value passed a test, as ``nonzero`` would give them, and how many there are is data. The positions
must be the loop's counter (``enumerate``'s first element, a ``range`` loop's variable) and the test must read a
tensor's values: ``.item()``, an element of ``t.tolist()`` or of iterating a tensor, a value the model says is a
tensor (``scores[i] > thr`` with ``scores`` a tensor). A list of items rather than positions, or positions chosen by
Python values (``names``, lengths), is not one.

What the model answers here is the evidence; whether a receiver of ``.item()`` / ``.tolist()`` of unknown kind may
be a numpy array is the rule's question (``HostSelection.unknown``).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator, NamedTuple, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import OTHER_SCOPES, body_of
from npu_lint.analysis.scopes import LOOP, VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DATA_READS = frozenset({"item", "tolist"})   # a tensor's values brought to the host


class HostSelection(NamedTuple):
    """The list's line, the node that reads the data (``scores[i].item()``, ``flags.tolist()``, ``scores[i]``) and
    the receivers of ``.item()`` / ``.tolist()`` whose kind the model does not know (empty: evidently tensors)."""
    line: int
    evidence: ast.AST
    unknown: tuple[ast.AST, ...]


def host_selection(resolver: "Resolver", values: ast.AST, scope: Scope) -> Optional[HostSelection]:
    """``values``: the argument of ``torch.tensor(...)``; what shows it is a list of positions chosen by tensor
    values (see the module's text), else None."""
    if resolver.scopes is None:
        return None
    if isinstance(values, ast.ListComp):
        return _comprehension(resolver, values, scope)
    if not isinstance(values, ast.Name):
        return None
    bindings = resolver.scopes.lookup_reaching(values.id, scope, (values.lineno, values.col_offset))
    if len(bindings) != 1 or bindings[0].tag != VALUE or bindings[0].path or bindings[0].scope is not scope:
        return None
    value = bindings[0].value
    if isinstance(value, ast.ListComp):
        return _comprehension(resolver, value, scope)
    if isinstance(value, ast.List) and not value.elts and isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _appended(resolver, values.id, scope)
    return None


def _comprehension(resolver: "Resolver", node: ast.ListComp, scope: Scope) -> Optional[HostSelection]:
    """``[i for i, f in enumerate(flags.tolist()) if not f]``, ``[i for i in range(n) if s[i].item() > t]``."""
    if len(node.generators) != 1 or not node.generators[0].ifs or not isinstance(node.elt, ast.Name):
        return None
    generator = node.generators[0]
    if not _is_counter(resolver, node.elt.id, generator.target, generator.iter, scope):
        return None
    inner = resolver.scopes.open_expression_scope(node, scope)
    data = _data_names(resolver, generator.target, generator.iter, scope)
    for test in generator.ifs:
        found = _data_test(resolver, test, inner, data)
        if found is not None:
            return HostSelection(node.lineno, *found)
    return None


def _appended(resolver: "Resolver", name: str, scope: Scope) -> Optional[HostSelection]:
    """``keep = []`` then, in the function's own body, only ``keep.append(i)`` with ``i`` a loop's counter under a
    test of tensor values (an ``if`` around it in the loop, or an ``if ...: continue`` before it)."""
    found: Optional[HostSelection] = None
    key = ("host index statements", id(scope.node))
    by_name = resolver._summaries.get(key)
    if by_name is None:   # one walk per function and file, whatever the number of lists it fills
        by_name = resolver._summaries[key] = _statements_by_name(scope.node)
    for node, chain in by_name.get(name, ()):   # type: ignore[union-attr]
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return None
        if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name):
            continue
        if func.attr != "append" or len(call.args) != 1 or not isinstance(call.args[0], ast.Name):
            return None   # ``keep.extend(xs)``, ``keep.insert(0, x)``, ``keep.append(item)``: not only positions
        selection = _guarded_position(resolver, call.args[0].id, node, chain, scope)
        if selection is None:
            return None
        found = found or selection
    return found


def _guarded_position(resolver: "Resolver", position: str, statement: ast.stmt, chain: list[ast.AST],
                      scope: Scope) -> Optional[HostSelection]:
    """The appended ``position`` is the counter of the innermost loop around ``statement`` and a test of tensor
    values between them chooses it."""
    loop_at = next((i for i in range(len(chain) - 1, -1, -1) if isinstance(chain[i], (ast.For, ast.While))), None)
    if loop_at is None or not isinstance(chain[loop_at], ast.For):
        return None
    loop = chain[loop_at]
    if not _is_counter(resolver, position, loop.target, loop.iter, scope):
        return None
    data = _data_names(resolver, loop.target, loop.iter, scope)
    inner = chain[loop_at + 1:] + [statement]
    for parent, child in zip(inner, inner[1:]):
        if isinstance(parent, ast.If) and child in parent.body:
            found = _data_test(resolver, parent.test, scope, data)
            if found is not None:
                return HostSelection(loop.lineno, *found)
    body = chain[loop_at + 1] if len(chain) > loop_at + 1 else statement
    for earlier in loop.body[:loop.body.index(body)] if body in loop.body else ():
        if isinstance(earlier, ast.If) and earlier.body and isinstance(earlier.body[-1], ast.Continue):
            found = _data_test(resolver, earlier.test, scope, data)   # ``if not keep_it: continue``
            if found is not None:
                return HostSelection(loop.lineno, *found)
    return None


def _statements_by_name(function: ast.AST) -> dict[str, list[tuple[ast.stmt, list[ast.AST]]]]:
    """The statements :func:`_appended` reads, by the name they touch (``n += ...``, ``n.method(...)``), in order: a
    look-up per list instead of a pass over the function per list (600 lists in one function: 600 passes)."""
    found: dict[str, list[tuple[ast.stmt, list[ast.AST]]]] = {}
    for node, chain in _statements(function):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found.setdefault(node.target.id, []).append((node, chain))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(
                node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name):
            found.setdefault(node.value.func.value.id, []).append((node, chain))
    return found


def _statements(function: ast.AST) -> Iterator[tuple[ast.stmt, list[ast.AST]]]:
    """The statements of ``function``'s own body, each with the compound statements around it (outermost first)."""
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(s, []) for s in reversed(body_of(function))]
    while stack:
        node, chain = stack.pop()
        if isinstance(node, OTHER_SCOPES):
            continue
        yield node, chain
        children = [c for field in ("body", "orelse", "finalbody", "handlers")
                    for c in getattr(node, field, ()) or () if isinstance(c, (ast.stmt, ast.excepthandler))]
        stack.extend((child, chain + [node]) for child in reversed(children))


def _is_counter(resolver: "Resolver", name: str, target: ast.AST, source: ast.AST, scope: Scope) -> bool:
    """``name`` is the position a loop counts: ``for name in range(...)``, ``for name, x in enumerate(...)``."""
    if not isinstance(source, ast.Call):
        return False
    called = resolver.qualname(source.func, scope)
    if isinstance(source.func, ast.Name) and source.func.id == "range" and resolver.binding(source.func, scope) is None:
        return isinstance(target, ast.Name) and target.id == name
    return called == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
        and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name


def _data_names(resolver: "Resolver", target: ast.AST, source: ast.AST, scope: Scope) -> dict[str, ast.AST]:
    """The names a loop target binds to the elements of ``t.tolist()`` (through ``enumerate`` / ``zip``): name ->
    the ``tolist`` call. (Elements of a tensor iterated directly are tensors: the model says so.)"""
    found: dict[str, ast.AST] = {}
    for name, path in _target_names(target, ()):
        iterated = resolver.iterated(source, scope, path)
        if iterated is None:
            continue
        origin, rest = iterated
        origin = _read_back(resolver, origin, scope)
        if origin is not None and len(rest) <= 1:
            found[name] = origin
    return found


def _tolist(node: object) -> bool:
    """``t.tolist()`` or ``t.item()``: a tensor's values read back to the host."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DATA_READS \
        and not node.args and not node.keywords


def _read_back(resolver: "Resolver", node: ast.AST, scope: Scope) -> Optional[ast.Call]:
    """The ``t.tolist()`` call ``node`` is: the call itself, a name every reaching binding of which is one
    (``scores = self.topk_scores.tolist()``), or a field of the class every store of which in the file is one
    (``self.is_finished_list = topk_ids.eq(self.eos).tolist()`` in another method; session 26)."""
    if _tolist(node):
        return node   # type: ignore[return-value]
    bindings = None
    if isinstance(node, ast.Name):
        bindings = resolver.scopes.lookup_reaching(node.id, scope, (node.lineno, node.col_offset))
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        method: Optional[Scope] = scope
        while method is not None and method.self_name is None and method.kind not in ("class", "module"):
            method = method.parent
        if method is not None and method.cls is not None and node.value.id == method.self_name:
            bindings = method.cls.attrs.get(node.attr)
    if not bindings or any(b.tag != VALUE or b.path or not _tolist(b.value) for b in bindings):
        return None
    return bindings[0].value   # type: ignore[return-value]


# Python's own functions in a test: what they answer is no value read from a tensor by themselves.
_BUILTIN_TESTS = frozenset({"isinstance", "hasattr", "callable", "len", "getattr", "issubclass", "type", "id"})


def _target_names(target: ast.AST, path: tuple[int, ...]) -> Iterator[tuple[str, tuple[int, ...]]]:
    if isinstance(target, ast.Name):
        yield target.id, path
    elif isinstance(target, (ast.Tuple, ast.List)):
        for index, element in enumerate(target.elts):
            yield from _target_names(element, path + (index,))


def _data_test(resolver: "Resolver", test: ast.AST, scope: Scope,
               data: dict[str, ast.AST]) -> Optional[tuple[ast.AST, tuple[ast.AST, ...]]]:
    """(the node reading tensor values, receivers of unknown kind) when the truth of ``test`` comes from tensor
    values: ``not f``, ``s[i].item() > t``, ``scores[i] > thr``, ``masks[i].sum() <= 100``; not ``t is None``,
    ``len(t) > 0`` or ``t.numel()`` (sizes)."""
    if isinstance(test, ast.BoolOp):
        return next((found for found in (_data_test(resolver, v, scope, data) for v in test.values) if found), None)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _data_test(resolver, test.operand, scope, data)
    if isinstance(test, ast.Compare):
        if len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.NotIn)):
            # ``i not in kept`` with ``i = idx[k].item()``: membership of a value read back (session 26)
            return _data_value(resolver, test.left, scope, data)
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops):
            return None
        return next((found for found in (_data_value(resolver, o, scope, data) for o in (test.left, *test.comparators))
                     if found), None)
    found = _data_value(resolver, test, scope, data)
    if found is None and isinstance(test, ast.Call) and not (
            isinstance(test.func, ast.Name) and test.func.id in _BUILTIN_TESTS):
        # ``self.beams_non_finished(i, scores_list, predictions)``: a test computed from values read back from
        # tensors, or from tensors, handed to a function (session 26)
        found = next((f for f in (_data_value(resolver, a, scope, data) for a in test.args) if f), None)
    return found


def _data_value(resolver: "Resolver", node: ast.AST, scope: Scope,
                data: dict[str, ast.AST]) -> Optional[tuple[ast.AST, tuple[ast.AST, ...]]]:
    """A value read from a tensor on the host: an element of ``t.tolist()``, ``x.item()``, arithmetic of one,
    ``float(x)``, or a value the model says is a tensor (a Python test of it is a sync)."""
    read = data.get(node.id) if isinstance(node, ast.Name) else None
    if read is None and isinstance(node, ast.Subscript):   # ``fin[0]`` of a row of ``t.tolist()``
        root = node.value
        while isinstance(root, ast.Subscript):
            root = root.value
        read = data.get(root.id) if isinstance(root, ast.Name) else None
    if read is None and isinstance(node, ast.Name):
        read = _read_back(resolver, node, scope)   # ``scores = t.tolist()`` handed to a test (session 26)
    if read is not None:
        receiver = read.func.value
        kind = resolver.kind_of_at(receiver, scope)
        return (read, ()) if kind in K.TENSORS else (read, (receiver,)) if kind is None else None
    if isinstance(node, ast.BinOp):
        return _data_value(resolver, node.left, scope, data) or _data_value(resolver, node.right, scope, data)
    if isinstance(node, ast.UnaryOp):
        return _data_value(resolver, node.operand, scope, data)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _DATA_READS and not node.args and not node.keywords:
            kind = resolver.kind_of_at(func.value, scope)
            return (node, ()) if kind in K.TENSORS else (node, (func.value,)) if kind is None else None
        if isinstance(func, ast.Name) and func.id in ("float", "int", "bool", "abs") and len(node.args) == 1 \
                and resolver.binding(func, scope) is None:
            return _data_value(resolver, node.args[0], scope, data)
    if isinstance(node, (ast.Subscript, ast.Name, ast.Attribute, ast.Call)):
        kind = resolver.kind_of_at(node, scope)
        if kind in (K.TENSOR, K.BATCH) or (kind == K.MASK and _of_a_tensor(resolver, node, scope)):
            return node, ()   # ``scores[i] > thr``: a tensor's element in a Python test (its truth is a sync)
    return None


def _of_a_tensor(resolver: "Resolver", node: ast.AST, scope: Scope) -> bool:
    """A mask read from a tensor (``keep[i]``, ``m.any()``, an element of iterating a mask), not a name bound to a
    comparison (``ok = s > t`` compares Python numbers as often as tensors)."""
    if isinstance(node, ast.Subscript):
        return True
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Attribute) and resolver.kind_of_at(node.func.value, scope) in K.TENSORS
    binding = resolver.binding(node, scope) if isinstance(node, ast.Name) else None
    return binding is not None and binding.tag == LOOP


# Session 26 (dataops26): NPU401's examples of the host nonzero's new evidence, beside its code.
HOST_NONZERO_FIRE = (
    # a tensor made of the positions kept by values read back through a name (NPU403's example before session 26:
    # now a host nonzero, NPU401's one finding)
    "import torch\ndef shrink(fin: torch.Tensor, seqs: torch.Tensor):\n    rows = fin.tolist()\n"
    "    left = [i for i, f in enumerate(rows) if not f[0]]\n"
    "    return seqs.index_select(0, torch.tensor(left))\n",
    # the test a method of the class given a list read back from a tensor (OpenNMT's beam search)
    "import torch\nclass Beam:\n    def update(self, preds):\n        lst = self.topk_scores.tolist()\n"
    "        nf = [i for i in range(len(lst)) if self.ok(i, lst, preds)]\n        return torch.tensor(nf)\n",
    # a field every store of which in the class is read back from a tensor, walked in another method
    "import torch\nclass Greedy:\n    def advance(self, ids):\n        self.finished = ids.eq(self.eos).tolist()\n"
    "    def update(self, x):\n        nf = [b for b, fin in enumerate(self.finished) if not fin[0]]\n"
    "        return x[torch.tensor(nf, device=x.device)]\n",
)
HOST_NONZERO_SILENT = (
    # the test a method given Python values only (names): no tensor read
    "import torch\nclass Beam:\n    def update(self, names):\n"
    "        nf = [i for i in range(len(names)) if self.ok(i, names)]\n        return torch.tensor(nf)\n",
    # a field also set from configuration: not only a read-back
    "import torch\nclass Greedy:\n    def __init__(self, n):\n        self.finished = [[False]] * n\n"
    "    def advance(self, ids):\n        self.finished = ids.eq(self.eos).tolist()\n"
    "    def update(self, x):\n        nf = [b for b, fin in enumerate(self.finished) if not fin[0]]\n"
    "        return torch.tensor(nf)\n",
)
