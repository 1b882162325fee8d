"""Summaries of the file's helpers for NPU401/NPU402 at their call sites: what a function returns comes from a
data-dependent op (``my_nonzero → torch.nonzero``), from a boolean-mask selection, or from a list that a loop grows
while a selection shrinks its candidates (an NMS loop) or fills with per-item selections; plus the operator table
(``rule_tables/dynamic_shape.tsv``), its conditions and the outputs of fixed shape (``lstsq(...).solution``).
Computed once per function, to a fixed depth. Nothing
here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis.configuration import configured
from npu_lint.analysis.data_shapes import SCALAR_BUILTINS, SHAPE_FREE, selects_by_mask, tensor_receiver
from npu_lint.analysis.nodes import body_of, walk
from npu_lint.context import FileContext
from npu_lint.project.fact_types import MASK_SELECTION, ONE_ARGUMENT
from npu_lint.analysis.scopes import VALUE
from npu_lint.resolver import MASK, return_statements
from npu_lint.rules.own_calls import own_call
from npu_lint.tables import keyed

# Outputs of fixed shape of an op whose other outputs are data-dependent: ``torch.linalg.lstsq``'s solution is
# (n, k) from its inputs' shapes; only its residuals, rank and singular values depend on the values.
_FIXED_OUTPUTS = {"torch.linalg.lstsq": ("solution", 0)}
JIT_TIP = "torch_npu.npu.set_compile_mode(jit_compile=False) where it cannot be avoided"


def dynamic_row(api: str) -> Optional[dict[str, str]]:
    return keyed("dynamic_shape.tsv", "api").get(api)


def fixed_output(api: str, call: ast.Call, ctx: FileContext) -> bool:
    """Only an output of fixed shape is read: ``torch.linalg.lstsq(A, B).solution`` (or ``[0]``)."""
    fields = _FIXED_OUTPUTS.get(api)
    parent = ctx.parent(call)
    if fields is None:
        return False
    if isinstance(parent, ast.Attribute):
        return parent.attr in fields
    return isinstance(parent, ast.Subscript) and parent.value is call and isinstance(parent.slice, ast.Constant) \
        and parent.slice.value in fields


def configured_input(condition: str, call: ast.Call, ctx: FileContext, method: bool) -> bool:
    """The op reads only tensors the code fixes (the model's ``configured``: ``torch.tensor(cfg.ids).unique()``,
    ``repeat_interleave(x, torch.tensor(counts))``): its output size is the same every batch. For
    ``repeat_interleave`` only the repeats size the output."""
    if condition == "tensor_repeats":
        position = 0 if method else 1
        repeats = call.args[position] if len(call.args) > position else _keyword(call, "repeats")
        operands = [repeats] if repeats is not None else []
    else:
        operands = ([call.func.value] if method and isinstance(call.func, ast.Attribute) else []) + [
            a for a in call.args if not isinstance(a, ast.Constant)]
    return bool(operands) and all(not isinstance(o, ast.Starred) and ctx.resolver.configured(o) for o in operands)


def _keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


# flows of a value read from the data (flows.py): a declared bin count that carries one is the data's size
_READ_SIZES = ("host", "zero_d", "element", "data_size", "picked")


def condition_holds(condition: str, call: ast.Call, ctx: FileContext, method: bool) -> bool:
    if condition == "one_argument":
        return len(call.args) == 1 and not call.keywords
    if condition == "no_num_classes":
        classes = call.args[1] if len(call.args) > 1 else _keyword(call, "num_classes")
        return classes is None or _minus_one(classes) or (isinstance(classes, ast.Name) and any(
            _minus_one(b.value) for b in _reaching(classes, ctx)))   # ``num_classes = -1`` in one arm (session 26)
    if condition == "no_dim_size":   # ``scatter(src, index, 0)``: sized by ``index.max() + 1`` (no out, no dim_size)
        return len(call.args) <= 3 and _keyword(call, "dim_size") is None and _keyword(call, "out") is None
    if condition == "no_minlength":   # ``torch.bincount(x)``: as many bins as ``x.max() + 1`` (session 24)
        position = 1 if method else 2
        bins = call.args[position] if len(call.args) > position else _keyword(call, "minlength")
        return bins is None or ctx.resolver.flow_of(bins, _READ_SIZES) is not None   # ``minlength=uniq.numel() * 4``
    if condition == "tensor_repeats":
        if _keyword(call, "output_size") is not None:
            return False
        if not method and len(call.args) == 1 and not call.keywords:
            return True   # torch.repeat_interleave(repeats): the one-argument form always takes a tensor
        position = 0 if method else 1
        repeats = call.args[position] if len(call.args) > position else _keyword(call, "repeats")
        return repeats is not None and ctx.resolver.kind_of(repeats) in ("tensor", "batch")
    if condition == "tensor_receiver":   # ``pos_inds.unique()`` on a value of unknown kind: see tensor_receiver
        return isinstance(call.func, ast.Attribute) and tensor_receiver(ctx.resolver, call.func.value, ctx.resolver.current)
    return condition == "always"


def _holds_in(condition: str, call: ast.Call, scope, ctx: FileContext) -> bool:
    """A table row's condition for a torch function called inside one of the file's functions (``scope``): the
    repeats of ``repeat_interleave`` must be a tensor there, ``one_hot`` must lack ``num_classes``."""
    if condition == "tensor_repeats":
        if _keyword(call, "output_size") is not None:
            return False
        if len(call.args) == 1 and not call.keywords:
            return True
        repeats = call.args[1] if len(call.args) > 1 else _keyword(call, "repeats")
        value = ctx.resolver.value_of(repeats, scope) if repeats is not None else None
        return value is not None and value[0] in ("tensor", "batch")
    if condition in ("one_argument", "no_num_classes", "no_dim_size", "no_minlength"):
        return condition_holds(condition, call, ctx, method=False)
    return condition == "always"


def _minus_one(value: object) -> bool:
    """``-1``: one_hot's "as many classes as the largest label + 1"."""
    return isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and isinstance(value.operand, ast.Constant) \
        and value.operand.value == 1


def _reaching(name: ast.Name, ctx: FileContext) -> list:
    """The bindings of ``name`` that may reach it (none without a model)."""
    resolver = ctx.resolver
    if resolver.scopes is None or resolver.current is None:
        return []
    return resolver.scopes.lookup_reaching(name.id, resolver.current, (name.lineno, name.col_offset))


def helper_of_file(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """The file's own function a call runs: ``helper(x)``, ``self.helper(x)`` (not a call inside itself). Found once
    per call (NPU401 and NPU402 both ask, at the same place of the walk: the same answer)."""
    found = ctx.scratch.get("helper_of_file")
    if found is None:
        found = ctx.scratch["helper_of_file"] = {}
    key = id(node)
    if key not in found:
        found[key] = _helper_of_file(node, ctx)
    return found[key]


def _helper_of_file(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    if isinstance(node.func, ast.Name):
        definition = ctx.resolver.definition(node.func)
    elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        method = own_call(node, ctx)
        definition = method[0] if method is not None else None
    else:
        return None
    if definition is None:   # ``pos_fn = partial(positives, thr=0.5)``, ``self.fn = self._pos``: the one candidate
        definition = _chosen_function(node.func, ctx)
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return None if ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef)) is definition else definition


def _chosen_function(func: ast.expr, ctx: FileContext) -> Optional[ast.AST]:
    """The file's one function a name or ``self`` attribute bound to a callable runs (``functools.partial`` of it,
    an alias); None when the model shows several candidates, a lambda (its body is checked where it stands) or none."""
    if isinstance(func, ast.Name):
        binding = ctx.resolver.binding(func)
        if binding is None or binding.tag != VALUE:
            return None
    elif not (isinstance(func.value, ast.Name) and ctx.resolver.scopes is not None
              and func.value.id == ctx.resolver.scopes.self_name(ctx.resolver.current)):
        return None
    candidates = ctx.resolver.callable_candidates(func, ctx.resolver.current)
    return candidates[0][1] if len(candidates) == 1 and candidates[0][0] == "def" else None


def wrapper_chain(function: ast.AST, ctx: FileContext, depth: int = 0,
                  off: frozenset[str] = frozenset()) -> Optional[list[str]]:
    """``[my_nonzero, torch.nonzero]`` when what ``function`` returns comes from a data-dependent op (directly,
    through names bound in the function, or through another of the file's functions); None otherwise.
    ``off``: flags (parameters defaulting to ``False``) a call leaves off: what only runs under ``if flag:`` does
    not count (``if unique: idx = torch.unique(idx)``). Computed once per function and flags, to a fixed depth."""
    cache = ctx.scratch.setdefault("dynamic_wrappers", {})
    key = (id(function), off)
    if key in cache:
        return cache[key]
    cache[key] = None   # recursion guard
    scope = ctx.resolver.scopes.scope_of(function) if ctx.resolver.scopes else None
    chain = None
    if scope is not None and depth < 4:
        for statement in return_statements(function):
            if _guarded(statement, function, off, ctx):
                continue
            places: list[ast.AST] = []
            leaf = _dynamic_source(statement.value, scope, ctx, depth, (function, off), places) \
                if statement.value is not None else None
            if leaf:
                chain = [function.name] + leaf
                if places:
                    ctx.scratch.setdefault("dynamic_wrapper_sites", {})[key] = places[0]
                break
    cache[key] = chain
    return chain


def wrapper_site(function: ast.AST, ctx: FileContext, off: frozenset[str] = frozenset()) -> Optional[ast.AST]:
    """The node of this file where the op (or the boolean-mask selection) :func:`wrapper_chain` names for
    ``function`` stands: ``torch.nonzero(...)`` inside the helper (or inside the helper it calls). Its own rule
    reports it there, so a call of the helper repeats that finding (``ctx.report_repeat``)."""
    if wrapper_chain(function, ctx, off=off) is None:
        return None
    return ctx.scratch.get("dynamic_wrapper_sites", {}).get((id(function), off))


def flags_left_off(call: ast.Call, definition: ast.AST) -> frozenset[str]:
    """The parameters of ``definition`` that default to ``False`` or ``None`` and that ``call`` does not set (or
    sets so): ``self.expand_indices(idx)`` of ``def expand_indices(self, indices, unique=False)`` leaves ``unique``
    off, ``self._get_mean(X, T)`` of ``def _get_mean(self, X, T, mask=None)`` leaves ``mask`` out. Nothing with
    ``*args`` / ``**kwargs`` in the call."""
    arguments = definition.args
    positional = arguments.posonlyargs + arguments.args
    named = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
    named += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
    flags = {a.arg for a, d in named if isinstance(d, ast.Constant) and (d.value is False or d.value is None)}
    if not flags or any(kw.arg is None for kw in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return frozenset()
    offset = 1 if isinstance(call.func, ast.Attribute) and positional and positional[0].arg in ("self", "cls") else 0
    given = [(positional[offset + i].arg, value) for i, value in enumerate(call.args) if offset + i < len(positional)]
    given += [(kw.arg, kw.value) for kw in call.keywords]
    return frozenset(flags - {name for name, value in given
                              if not (isinstance(value, ast.Constant) and (value.value is False or value.value is None))})


def _guarded(node: ast.AST, function: ast.AST, off: frozenset[str], ctx: FileContext) -> bool:
    """``node`` runs only under ``if flag:`` (its body) for a flag left off."""
    if not off:
        return False
    child, current = node, ctx.parent(node)
    while current is not None and current is not function:
        if isinstance(current, (ast.If, ast.IfExp)) and _set(current.test, off) \
                and (child is current.body or isinstance(current.body, list) and any(child is s for s in current.body)):
            return True   # ``if unique:``, ``if mask is not None:``, ``x[m] if m is not None else x``
        child, current = current, ctx.parent(current)
    return False


def _set(test: ast.AST, off: frozenset[str]) -> bool:
    """``flag`` or ``flag is not None`` of a parameter left off: true only when the call sets it."""
    if isinstance(test, ast.Name):
        return test.id in off
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id in off \
        and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None


def _dynamic_source(expr: ast.AST, scope, ctx: FileContext, depth: int,
                    within: tuple[ast.AST, frozenset[str]] = (None, frozenset()),
                    places: Optional[list[ast.AST]] = None) -> Optional[list[str]]:
    """The data-dependent op (or wrapper chain) a returned expression's value comes from (``within``: the function
    and the flags its call leaves off, whose guarded bindings do not count). ``places`` receives the node where
    that op (or selection) stands."""
    places = [] if places is None else places
    stack, seen, budget, selection, selected_at = [expr], set(), 200, None, None
    picked: set[int] = set()   # values only indexed by a scalar on the way (``sens[idx]``): their length is gone
    while stack and budget:
        budget -= 1
        node = stack.pop()
        inside_pick = id(node) in picked
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in SCALAR_BUILTINS \
                    and ctx.resolver.binding(node.func, scope) is None:
                continue   # ``len(torch.unique(x))``: a Python number, no tensor of that shape
            name = ctx.resolver.qualname(node.func, scope)
            if name is not None:
                row = dynamic_row(name)
                if row is not None and _holds_in(row["condition"], node, scope, ctx) \
                        and not (node.args and _fixed(node.args[0], scope, ctx)):
                    places.append(node)   # (not of configuration: ``torch.nonzero(torch.ones(n, n).triu())``)
                    return [name]
            elif isinstance(node.func, ast.Attribute):
                row = dynamic_row("torch.Tensor." + node.func.attr)
                if row is not None and row["condition"] in ("always", "tensor_receiver"):
                    receiver = ctx.resolver.value_of(node.func.value, scope)
                    if (row["condition"] == "always" or (receiver is not None and receiver[0] in ("tensor", "batch", MASK))) \
                            and not _fixed(node.func.value, scope, ctx):
                        places.append(node)
                        return ["torch.Tensor." + node.func.attr]
                method = ctx.resolver.own_function(node, scope) if isinstance(node.func.value, ast.Name) else None
                if method is not None:   # ``self._nms(boxes, scores)``: the class's own method
                    chain = wrapper_chain(method[0], ctx, depth + 1)
                    if chain and not (inside_pick and chain[-1] == MASK_SELECTION):
                        _inner_site(method[0], ctx, places)
                        return chain
            elif isinstance(node.func, ast.Name):
                definition = ctx.resolver.definition(node.func, scope)
                if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    chain = wrapper_chain(definition, ctx, depth + 1)
                    if chain and not (inside_pick and chain[-1] == MASK_SELECTION):
                        _inner_site(definition, ctx, places)
                        return chain
            if node.func.__class__ is ast.Attribute and node.func.attr in SHAPE_FREE:
                continue   # ``inds.numel()``, ``len(...)``: what is returned no longer has that shape
        elif isinstance(node, ast.Name):
            nearest = ctx.resolver.binding(node, scope)
            bindings = [nearest]
            if nearest is not None and nearest.tag == "value" and within[1] and ctx.resolver.scopes is not None \
                    and _guarded(nearest.value, within[0], within[1], ctx):   # ``if eps: c = c + eps`` left off:
                bindings = [b for b in ctx.resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
                            if b is not nearest]                              # the bindings that reach past it
            for binding in bindings:
                if binding is None or binding.scope is not scope or id(binding) in seen or binding.tag != "value" \
                        or _guarded(binding.value, within[0], within[1], ctx):
                    continue
                seen.add(id(binding))
                value = binding.value
                if isinstance(value, ast.List) and not value.elts and not binding.path and not inside_pick:
                    items, grown = _appended(node.id, scope.node, scope, ctx)   # ``keep = []`` then appends
                    if grown and selection is None:
                        selection = [MASK_SELECTION]   # appended in a loop whose trip count follows a selection
                    stack.extend(items)
                    continue
                for step in binding.path:   # ``a, b = x, y``: only the element bound to the name
                    value = value.elts[step] if isinstance(value, ast.Tuple) and 0 <= step < len(value.elts) else value
                stack.append(value)
                if inside_pick:
                    picked.add(id(value))
            continue
        elif isinstance(node, ast.Subscript) and type(node.ctx) is ast.Load:
            if within[0] is not None and _guarded(node, within[0], within[1], ctx):
                continue   # ``mean[..., mask] if mask is not None else mean`` called without ``mask``
            if selection is None and not inside_pick and selects_by_mask(ctx.resolver, node, scope):
                selection = [MASK_SELECTION]   # a data-dependent op found further on still names the chain
                selected_at = node
            elif not isinstance(node.slice, (ast.Slice, ast.Tuple, ast.Constant)):
                picked.add(id(node.value))     # ``sens[idx]`` with a scalar index: one element, a fixed shape
        elif isinstance(node, (ast.Lambda, ast.Compare)):
            continue
        children = list(_children(node))
        if inside_pick:
            picked.update(id(child) for child in children)
        elif isinstance(node, ast.Call) and ctx.resolver.qualname(node.func, scope) not in _JOINS:
            # ``torch.argmax(x[m])``: a selection passed in is not what is returned (``torch.cat(parts)`` keeps it)
            picked.update(id(child) for child in children if child is not node.func)
        stack.extend(children)
    if selection is not None and selected_at is not None:
        places.append(selected_at)
    return selection


def _fixed(operand: ast.AST, scope, ctx: FileContext) -> bool:
    """The op's operand is configuration (``torch.nonzero(torch.ones(n, n).triu())``, ``repeat_interleave`` of
    ``arange(lmax)``), read from no object's state: a helper's result object (``self.match_results`` of a match
    made per batch) is no configuration for its callers."""
    return not any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")
                   for n in walk(operand)) and configured(operand, ctx.resolver, scope)


def _inner_site(function: ast.AST, ctx: FileContext, places: list[ast.AST]) -> None:
    site = ctx.scratch.get("dynamic_wrapper_sites", {}).get((id(function), frozenset()))
    if site is not None:
        places.append(site)


_JOINS = frozenset({"torch.cat", "torch.concat", "torch.stack", "torch.tensor", "torch.as_tensor", "torch.LongTensor",
                    "torch.hstack", "torch.vstack"})


def _appended(name: str, function: ast.AST, scope, ctx: FileContext) -> tuple[list[ast.AST], bool]:
    """The items ``name.append(x)`` / ``name.extend(xs)`` / ``name += [x]`` add in ``function``, and whether one
    is added inside a ``while`` loop whose condition reads a name the loop rebinds through a boolean-mask selection
    or a data-dependent op (an NMS loop: ``while order.numel() > 0: keep.append(order[0]); order = order[1:][iou <
    thr]``): the number of items follows the data."""
    items: list[ast.AST] = []
    grown = False
    for loop, node in _loop_statements(function):
        added: list[ast.AST] = []
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == name \
                and node.value.func.attr in ("append", "extend") and len(node.value.args) == 1:
            added.append(node.value.args[0])
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            added.append(node.value)
        items.extend(added)
        if added and isinstance(loop, ast.While) and not grown:
            grown = _selection_driven(loop, scope, ctx)
    return items, grown


def _loop_statements(function: ast.AST):
    """Every statement of a function's own body with the innermost loop around it (None outside loops)."""
    stack = [(statement, None) for statement in body_of(function)]
    while stack:
        node, loop = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield loop, node
        inner = node if isinstance(node, (ast.For, ast.While)) else loop
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend((child, inner) for child in getattr(node, field, ()) or ())


def _selection_driven(loop: ast.While, scope, ctx: FileContext) -> bool:
    """A ``while`` loop whose condition reads a name that its body rebinds through a boolean-mask selection or a
    data-dependent op: its trip count follows the data."""
    tested = {n.id for n in walk(loop.test) if isinstance(n, ast.Name)}
    for node in walk(loop):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in tested for t in node.targets):
            for part in walk(node.value):
                if isinstance(part, ast.Subscript) and selects_by_mask(ctx.resolver, part, scope):
                    return True
                if isinstance(part, ast.Call):
                    name = ctx.resolver.qualname(part.func, scope)
                    if name is None and isinstance(part.func, ast.Attribute):
                        name = "torch.Tensor." + part.func.attr
                    row = dynamic_row(name) if name else None
                    if row is not None and row["condition"] == "always":
                        return True
    return False




def is_mask_selection(api: str) -> bool:
    """A leaf for the project index: the function returns a boolean-mask selection (NPU402 at its calls)."""
    return api == MASK_SELECTION


def always_dynamic(api: str) -> bool:
    """A leaf for the project index: an op whose output shape is data-dependent whatever its arguments."""
    if api.endswith(ONE_ARGUMENT):   # the project index saw it called with one argument (``torch.where(cond)``)
        row = dynamic_row(api[:-len(ONE_ARGUMENT)])
        return row is not None and row["condition"] == "one_argument"
    row = dynamic_row(api)
    return row is not None and row["condition"] in ("always", "no_minlength")   # (the index keeps no arguments)
