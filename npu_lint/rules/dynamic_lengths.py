"""NPU412: a length grown inside a loop (a curriculum schedule, or a count raised until a tensor's value stops the
loop) that fixes a shape."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.nodes import body_of, child_nodes, walk
from npu_lint.analysis.scopes import AUGMENT, VALUE, Binding, Scope
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.analysis.size_sinks import FACTORIES, SHAPE_METHODS, last_name, size_args
from npu_lint.rules.value_flow import FAMILY

_SINK_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in FACTORIES) | SHAPE_METHODS
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class GrowingLength(Rule):
    """A length that grows inside a loop and fixes a shape (a sequence-length schedule, a count raised until a
    tensor's value stops a ``while`` loop).

    What it does:
        Follows a name that a loop rebinds from its own value, larger (``n += k``, ``n = n * 2``, ``seq_len =
        min(seq_len + k, max_len)``, ``if seq_len < grow_to: seq_len += 1``), to a prefix slice bound
        (``x[:, :seq_len]``), a window's length (``x[i:i + seq_len]``) or a size (``torch.zeros``, ``view``,
        ``topk(k)`` ...), itself or through the file's helper that uses its parameter so (``get_batch(data, i,
        seq_len)``, reported at the call): inside the loop, every iteration (every epoch or step of a curriculum)
        has a new length; after a ``while`` loop whose condition reads a tensor (``while scores.topk(k).values[-1]
        > t:``), the final length is a value of the data. A window's moving start (``x[i:i + n]``: ``i``) and loop
        counters of ``range`` are other rules' business.
    Why it matters on NPU:
        Each new length is a new shape for every operator that reads the tensor: the training step compiles again
        at each change of the schedule, and a data-dependent count gives a new shape per value (with a host sync
        per iteration of the ``while`` loop).
    Example:
        for epoch in range(epochs):
            seq_len = min(seq_len + 8, max_len)
            loss = step(batch[:, :seq_len])
    Use instead:
        Change the length in a few fixed stages (each compiles once) or pad every batch to ``max_len`` and mask the
        tail; for a count, take ``topk(max_k)`` once and mask the entries past the threshold.
    Fix safety:
        No automatic fix.
    """

    code = "NPU412"
    name = "growing-length"
    family = FAMILY
    node_types = (ast.Call, ast.Subscript)
    triggers = ("+=", "*=", "min(", "while ")
    message = "{what}: {why}, a new shape for every operator that reads it on NPU; grow in a few fixed stages, or pad to the largest length and mask"
    must_fire = ("import torch\ndef train(data, model, epochs, max_len):\n    seq_len = 16\n"
                 "    for epoch in range(epochs):\n        model(data[:, :seq_len])\n"
                 "        seq_len = min(seq_len + 8, max_len)\n",
                 "import torch\ndef f(x, steps):\n    n = 1\n    for _ in range(steps):\n        n *= 2\n"
                 "        y = x.new_zeros(n, 4)\n",
                 "import torch\ndef pick(scores: torch.Tensor, thr):\n    k = 1\n"
                 "    while scores.topk(k).values[-1] > thr:\n        k += 1\n    return scores.topk(k=k)\n",
                 # a curriculum in the training loop; the length through the file's helper that cuts a window
                 "import torch\ndef train(model, loader, grow_to):\n    seq_len = 8\n    for x in loader:\n"
                 "        if seq_len < grow_to:\n            seq_len += 1\n        model(x[:, :seq_len]).sum().backward()\n",
                 "import torch\ndef get_batch(data, i, n):\n    return data[i:i + n]\n"
                 "def train(model, data, steps, max_len):\n    seq_len = 16\n    for step in range(steps):\n"
                 "        if seq_len < max_len:\n            seq_len *= 2\n        model(get_batch(data, step, seq_len))\n")
    must_not_fire = (# a window moving along the data, a length rebound from something else
                     "import torch\ndef f(x, bs, steps):\n    start = 0\n    for _ in range(steps):\n"
                     "        y = x[start:start + bs]\n        start += bs\n",
                     "import torch\ndef f(x, steps):\n    n = 4\n    for _ in range(steps):\n        y = x[:, :n]\n"
                     "        n = 8\n",
                     # a count raised in a while loop over host values only
                     "import torch\ndef f(x, limit):\n    k = 1\n    while k * 2 < limit:\n        k += 1\n"
                     "    return x.topk(k)\n",
                     # the start of a window that moves along
                     "import torch\ndef f(x, sizes):\n    start = 0\n    for n in sizes:\n"
                     "        y = x.narrow(0, start, n)\n        idx = torch.arange(start, start + n)\n        start += n\n",
                     # the helper's parameter is a window's start, not its length
                     "import torch\ndef get_batch(data, i, n):\n    return data[i:i + n]\n"
                     "def train(model, data, steps, bptt):\n    start = 0\n    for _ in range(steps):\n"
                     "        model(get_batch(data, start, bptt))\n        start += bptt\n",
                     # used after a for loop: one final value
                     "import torch\ndef f(x, steps):\n    n = 1\n    for _ in range(steps):\n        n += 1\n"
                     "    return x[:, :n]\n")

    def check(self, node: object, ctx: FileContext) -> None:
        if not ctx.uses_torch or ctx.resolver.scopes is None:
            return
        if isinstance(node, ast.Subscript):
            if not isinstance(node.ctx, ast.Load):
                return
            found = _slice_sizes(node)   # syntax first: the model is asked only about a length that may grow
            names = [size.id for size in found[0] if isinstance(size, ast.Name)]
            if not names:
                return
            growing = _growing_names(ctx.resolver.current, ctx)
            if not any(name in growing for name in names) or ctx.resolver.is_host(node.value):
                return
        else:
            assert isinstance(node, ast.Call)
            found = _call_sizes(node, ctx)
            if found is None:
                self._at_helper(node, ctx)
                return
        sizes, sink = found
        for size in sizes:
            if isinstance(size, ast.Name):
                found = self._grown(size, node, ctx)
                if found is not None:
                    ctx.report(node, self.message.format(what=f"{sink} takes {size.id}", why=found), sink)
                    return

    def _at_helper(self, call: ast.Call, ctx: FileContext) -> None:
        """``get_batch(data, i, seq_len)`` where the file's ``get_batch`` slices ``data[i:i + seq_len]`` and
        ``seq_len`` grows in a loop around the call."""
        if not any(isinstance(a, ast.Name) for a in (*call.args, *(k.value for k in call.keywords))) \
                or not isinstance(ctx.enclosing(call, (*_LOOPS, *FUNCTION_TYPES)), _LOOPS):
            return      # a length grown in a loop is a name passed inside the loop
        callee = ctx.resolver.own_function(call)
        if callee is None or not isinstance(callee[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        sizes = _helper_sizes(callee[0], ctx)
        for arg in [*callee[0].args.posonlyargs, *callee[0].args.args, *callee[0].args.kwonlyargs]:
            passed = passed_argument(call, callee[0], arg, callee[1]) if arg.arg in sizes else None
            if isinstance(passed, ast.Name):
                found = self._grown(passed, call, ctx)
                if found is not None:
                    sink = f"{callee[0].name}({arg.arg}) → {sizes[arg.arg]}"
                    ctx.report(call, self.message.format(what=f"{sink} takes {passed.id}", why=found), sizes[arg.arg])
                    return

    @staticmethod
    def _grown(name: ast.Name, use: ast.AST, ctx: FileContext) -> Optional[str]:
        """Why the length ``name`` grows where ``use`` reads it, else None."""
        resolver = ctx.resolver
        if name.id not in _growing_names(resolver.current, ctx):
            return None     # no binding of the name in reach grows: the common case, no lookup
        for binding in resolver.scopes.may_reach(name.id, resolver.current, (name.lineno, name.col_offset)):
            statement = binding.node
            if statement is None or not _grows(binding):
                continue
            loop = ctx.enclosing(statement, (*_LOOPS, *FUNCTION_TYPES))
            if not isinstance(loop, _LOOPS):
                continue
            if _inside(use, loop, ctx):
                return f"{name.id} grows every iteration of the loop at line {loop.lineno} ({short_source(statement)})"
            if isinstance(loop, ast.While) and _reads_tensor(loop.test, ctx) and use.lineno > loop.end_lineno:
                return (f"{name.id} grows until a tensor's value stops the loop at line {loop.lineno} "
                        f"({short_source(loop.test)}), a count of the data")
        return None


def _slice_sizes(node: ast.Subscript) -> tuple[list[ast.AST], str]:
    """The lengths a subscript fixes: prefix bounds (``x[:, :n]``) and window lengths (``x[i:i + n]``: ``n``;
    the start ``i`` moves, the length does not)."""
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    sizes = [e.upper for e in elements if isinstance(e, ast.Slice) and e.lower is None and e.upper is not None]
    if sizes:
        return sizes, "a prefix slice"
    for element in elements:
        upper = element.upper if isinstance(element, ast.Slice) and element.lower is not None else None
        if isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add):
            start = ast.dump(element.lower)
            sizes += [b for a, b in ((upper.left, upper.right), (upper.right, upper.left)) if ast.dump(a) == start]
    return sizes, "a window's length"


def _call_sizes(node: ast.Call, ctx: FileContext) -> Optional[tuple[list[ast.AST], str]]:
    """The size arguments of a call that fixes a shape (a window's start left out), and how a message names it."""
    if last_name(node.func) not in _SINK_NAMES:
        return None
    name = ctx.resolver.qualname(node.func)
    if name is not None and name not in FACTORIES:
        return None
    if name is None and not isinstance(node.func, ast.Attribute):
        return None
    offset = _offset(node, name)
    sizes = [s for s in size_args(node, name) if s is not offset]    # a window's start moves, its length does not
    return sizes, (name.rsplit(".", 1)[-1] if name else "." + last_name(node.func)) + "()"


_NOT_WALKED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Name, ast.Constant})


def _helper_sizes(function: ast.AST, ctx: FileContext) -> dict[str, str]:
    """``{parameter: sink}``: the parameters the file's helper uses directly as a length (a prefix bound, a
    window's length, a size argument). Once per function."""
    store = ctx.scratch.setdefault("growing_length_helpers", {})
    found = store.get(id(function))
    if found is None:
        found = store[id(function)] = {}
        parameters = {a.arg for a in walk(function.args) if isinstance(a, ast.arg)}   # type: ignore[attr-defined]
        stack = list(body_of(function))
        while stack:
            node = stack.pop()
            node_type = type(node)
            if node_type in _NOT_WALKED:
                continue   # nested functions and classes; names and constants (no child, no size)
            stack.extend(child_nodes(node))
            sized = _slice_sizes(node) if node_type is ast.Subscript and type(node.ctx) is ast.Load else \
                _call_sizes(node, ctx) if node_type is ast.Call else None
            for size in sized[0] if sized else ():
                if isinstance(size, ast.Name) and size.id in parameters:
                    found.setdefault(size.id, sized[1])
    return found


def _offset(call: ast.Call, name: Optional[str]) -> Optional[ast.AST]:
    """The start of a window: ``x.narrow(dim, start, length)``, ``torch.arange(start, stop)``."""
    last = last_name(call.func)
    if last == "narrow":
        position = 2 if name else 1
        return call.args[position] if len(call.args) > position else None
    if last in ("arange", "range") and len(call.args) >= 2:
        return call.args[0]
    return None


def _growing_names(scope: Optional[Scope], ctx: FileContext) -> frozenset[str]:
    """The names some binding of ``scope`` or an enclosing scope grows (``n += k``, ``n = min(n + k, cap)``);
    once per scope."""
    store = ctx.scratch.setdefault("growing_names", {})
    key = id(scope)
    if key not in store:
        names: set[str] = set()
        current = scope
        while current is not None:
            for table in (current.names, current.augments):
                names.update(n for n, bindings in table.items() if n not in names and any(_grows(b) for b in bindings))
            current = current.parent
        store[key] = frozenset(names)
    return store[key]


def _grows(binding: Binding) -> bool:
    """``n += k`` / ``n *= k``, ``n = n + k`` / ``n * k``, ``n = min(n + k, cap)``: larger than before."""
    statement = binding.node
    if binding.tag == AUGMENT:
        return isinstance(statement, ast.AugAssign) and isinstance(statement.op, (ast.Add, ast.Mult)) \
            and not (isinstance(statement.value, ast.Constant) and statement.value.value in (0, 1)
                     and isinstance(statement.op, ast.Mult))
    if binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.AST):
        return False
    value = binding.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "min" and value.args:
        return any(_self_increase(a, binding.name) for a in value.args)
    return _self_increase(value, binding.name)


def _self_increase(value: ast.AST, name: str) -> bool:
    return isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mult)) and any(
        isinstance(side, ast.Name) and side.id == name for side in (value.left, value.right))


def _inside(node: ast.AST, loop: ast.AST, ctx: FileContext) -> bool:
    current = ctx.enclosing(node, (*_LOOPS, *FUNCTION_TYPES))
    while isinstance(current, _LOOPS):
        if current is loop:
            return True
        current = ctx.enclosing(current, (*_LOOPS, *FUNCTION_TYPES))
    return False


def _reads_tensor(test: ast.AST, ctx: FileContext) -> bool:
    """The condition reads a tensor's value: a comparison of a tensor, ``.item()``, ``.any()`` / ``.all()``."""
    for child in walk(test):
        if isinstance(child, ast.Compare) and any(ctx.resolver.is_tensor(o) for o in (child.left, *child.comparators)):
            return True
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                and child.func.attr in ("item", "any", "all") and ctx.resolver.is_tensor(child.func.value):
            return True
    return False
