"""Structure the NPU3xx rules share: ``nn`` modules a class holds in ``self`` attributes and where a name used in
a statement was last assigned in its function (operands and source text: ``affinity_operands.py``).

Facts the semantic model (npu_lint/resolver.py) does not give yet live here in small, named functions:
``record_module`` / ``self_module`` (what ``self.norm`` holds), ``is_linear_call`` (``self.up(x)`` is an
``nn.Linear``), ``is_rms_norm_call`` (``self.norm(x)`` is an RMSNorm module).
"""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from npu_lint.analysis.nodes import OTHER_SCOPES, of_type, own_nodes, walk  # noqa: F401  (own_nodes re-exported for the rules)
from npu_lint.context import FileContext

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_MODULES = "self_modules"   # scratch: (id of the class, attribute, what the attribute holds)
_TRACKED = {
    "torch.nn.LayerNorm": "LayerNorm", "torch.nn.modules.normalization.LayerNorm": "LayerNorm",
    "torch.nn.GroupNorm": "GroupNorm", "torch.nn.modules.normalization.GroupNorm": "GroupNorm",
    "torch.nn.SiLU": "SiLU", "torch.nn.modules.activation.SiLU": "SiLU",
    "torch.nn.Dropout": "Dropout", "torch.nn.modules.dropout.Dropout": "Dropout",
    "torch.nn.Softmax": "Softmax", "torch.nn.modules.activation.Softmax": "Softmax",
    "torch.nn.Linear": "Linear", "torch.nn.modules.linear.Linear": "Linear",
    "torch.nn.GELU": "GELU", "torch.nn.modules.activation.GELU": "GELU",
    "torch.nn.RMSNorm": "RMSNorm", "torch.nn.modules.normalization.RMSNorm": "RMSNorm",
}
_KINDS = ("LayerNorm", "GroupNorm", "SiLU", "Dropout", "Softmax", "Linear", "GELU", "RMSNorm", "Activation")
_ACTIVATION_FACTORIES = ("ACT2FN", "get_activation", "get_act_layer", "create_act_layer")


# -- nn modules held in ``self`` attributes ---------------------------------------------------------------------

def class_of(node: ast.AST, ctx: FileContext) -> Optional[int]:
    owner = ctx.enclosing(node, (ast.ClassDef,))
    return id(owner) if owner is not None else None


def _last_name(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _named_activation(key: Optional[ast.AST]) -> Optional[str]:
    """``ACT2FN["silu"]``: SiLU; ``ACT2FN["gelu_new"]``: GELU; another name: untracked; unknown: configured."""
    if not isinstance(key, ast.Constant):
        return "Activation"
    name = str(key.value).lower()
    if name in ("silu", "swish"):
        return "SiLU"
    return "GELU" if name.startswith("gelu") else None


def module_made_by(value: ast.AST, ctx: FileContext) -> Optional[str]:
    """``LayerNorm`` for ``nn.LayerNorm(d)``; ``Softmax`` only over the last dimension; ``RMSNorm`` also for a
    model's own RMSNorm class (``LlamaRMSNorm(d)``, ``T5LayerNorm(d)``); ``Activation`` for a configured one
    (``ACT2FN[config.hidden_act]``, ``get_activation(name)``).

    Not in the semantic model yet (what a ``self`` attribute holds): kept here for the lead to move.
    """
    if isinstance(value, ast.Subscript) and _last_name(value.value) in _ACTIVATION_FACTORIES:
        return _named_activation(value.slice)
    if not isinstance(value, ast.Call):
        return None
    callee = _last_name(value.func)
    if callee in _ACTIVATION_FACTORIES:
        return _named_activation(value.args[0] if value.args else None)
    qualname = ctx.resolver.qualname(value.func) or ""
    if not qualname.startswith("torch."):
        if callee.endswith("RMSNorm") or callee == "T5LayerNorm":
            return "RMSNorm"
        if callee == "LayerNorm" and not any(kw.arg == "data_format" for kw in value.keywords):
            return "LayerNorm"   # timm.layers.LayerNorm and the like subclass nn.LayerNorm (not channels-first ones)
    kind = _TRACKED.get(qualname)
    if kind == "Softmax":
        dim = argument(value, 0, "dim")
        return kind if dim is not None and is_last_dim(dim) else None
    return kind


def record_module(node: ast.Assign, ctx: FileContext) -> None:
    """``self.norm = nn.LayerNorm(dim)`` in a method: remember what ``self.norm`` holds in that class.

    Any other assignment to the attribute in the class forgets it (``self.norm = nn.Identity()`` in an ``else``),
    except ``None``, which a call could not have used.
    """
    if len(node.targets) != 1:
        return
    target = node.targets[0]
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
        return
    owner = class_of(node, ctx)
    if owner is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
        return   # ``self.norm = None`` in the other branch: a call of ``self.norm`` means the module is there
    modules = ctx.scratch.setdefault(_MODULES, set())
    for entry in [entry for entry in modules if entry[0] == owner and entry[1] == target.attr]:
        modules.discard(entry)
    kind = module_made_by(_with_default_layer(node, ctx), ctx)
    if kind is not None:
        modules.add((owner, target.attr, kind))


def _parameter_default(name: str, node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The default value of parameter ``name`` of the function holding ``node``, if it has one."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return None
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
    pairs += [(arg, default) for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default is not None]
    return next((default for arg, default in pairs if arg.arg == name), None)


def _with_default_layer(node: ast.Assign, ctx: FileContext) -> ast.AST:
    """``self.act = act_layer()`` with ``def __init__(..., act_layer=nn.SiLU)``: ``nn.SiLU()`` (the default layer);
    ``ACT2FN[activation]`` / ``get_activation(act)`` with ``activation="relu"``: ``ACT2FN["relu"]``."""
    value = node.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        default = _parameter_default(value.func.id, node, ctx)
        if isinstance(default, (ast.Name, ast.Attribute)):
            return ast.Call(func=default, args=value.args, keywords=value.keywords)
        if isinstance(value.func, ast.Name) and value.func.id in _ACTIVATION_FACTORIES and value.args and \
                isinstance(value.args[0], ast.Name):
            default = _parameter_default(value.args[0].id, node, ctx)
            if isinstance(default, ast.Constant):
                return ast.Call(func=value.func, args=[default], keywords=[])
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Name):
        default = _parameter_default(value.slice.id, node, ctx)
        if isinstance(default, ast.Constant):
            return ast.Subscript(value=value.value, slice=default, ctx=ast.Load())
    return value


def self_module(func: ast.AST, anchor: ast.AST, ctx: FileContext) -> Optional[str]:
    """What ``self.norm`` (the callee) holds, if an earlier ``self.norm = nn.X(...)`` in the class says so.

    ``anchor`` is the node being checked: the walker gives a node's children their parents only after the
    rules have seen the node, so the class is found from it.
    """
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return None
    owner = class_of(anchor, ctx)
    for kind in _KINDS:
        if (owner, func.attr, kind) in ctx.scratch.get(_MODULES, ()):
            return kind
    return None


def module_call_input(call: ast.AST, kind: str, anchor: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The input of ``self.m(x)`` where ``self.m`` holds an ``nn.<kind>``, or of ``nn.<kind>(...)(x)``."""
    if not isinstance(call, ast.Call) or len(call.args) != 1 or call.keywords:
        return None
    made_inline = isinstance(call.func, ast.Call) and module_made_by(call.func, ctx) == kind
    return call.args[0] if made_inline or self_module(call.func, anchor, ctx) == kind else None


def is_linear_call(call: ast.AST, anchor: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The input of a linear projection: ``self.proj(x)`` where the class assigned ``self.proj = nn.Linear(...)``,
    ``F.linear(x, w)``; else None. (The semantic model does not say "``self.proj`` is an nn.Linear" yet.)"""
    if function_call(call, ("torch.nn.functional.linear",), ctx):
        return argument(call, 0, "input")
    return module_call_input(call, "Linear", anchor, ctx)


def activation_kind(call: ast.AST, anchor: ast.AST, ctx: FileContext) -> Optional[tuple[str, ast.AST]]:
    """(``silu`` / ``gelu`` / ``configured``, the input) for ``F.silu(x)``, ``F.gelu(x)``, ``self.act(x)`` holding
    an ``nn.SiLU`` / ``nn.GELU`` / ``ACT2FN[...]``; else None."""
    if not isinstance(call, ast.Call) or len(call.args) != 1:
        return None
    name = ctx.resolver.qualname(call.func)
    if name in ("torch.nn.functional.silu", "torch.nn.functional.gelu"):
        return name.rsplit(".", 1)[1], call.args[0]
    held = self_module(call.func, anchor, ctx)
    kind = {"SiLU": "silu", "GELU": "gelu", "Activation": "configured"}.get(held or "")
    return (kind, call.args[0]) if kind and not call.keywords else None


# -- small structural helpers ---------------------------------------------------------------------------------

def argument(call: ast.Call, index: int, keyword: str) -> Optional[ast.AST]:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def is_last_dim(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and node.operand.value == 1
    return isinstance(node, ast.Constant) and node.value == -1


def is_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        return is_literal(node.operand)
    return isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.JoinedStr, ast.ListComp))


def is_self_parameter(node: ast.AST) -> bool:
    """``self.pos_embed``, ``self.pos_embed[:, :n]``, ``self.pos_embed.to(x.dtype)``: a parameter, not a module call."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            break
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def function_call(node: ast.AST, names: tuple[str, ...], ctx: FileContext) -> bool:
    return isinstance(node, ast.Call) and ctx.resolver.qualname(node.func) in names


def scope_of(node: ast.AST, ctx: FileContext) -> ast.AST:
    """The function, class or module whose body holds ``node``."""
    return ctx.enclosing(node, _SCOPES + (ast.Module,)) or node




def reads(name: str, tree: Iterator[ast.AST]) -> int:
    return sum(1 for node in tree if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load))


_CASTS = ("type", "to", "float", "half", "bfloat16", "type_as", "contiguous")


def strip_casts(node: ast.AST) -> ast.AST:
    """``x`` of ``x.to(q.dtype)``, ``x.float()``, ``x.type(v.dtype)``, ``x.contiguous()`` (a few levels)."""
    for _ in range(4):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CASTS:
            node = node.func.value
        else:
            break
    return node


def _is_cast_of(statement: ast.AST, name: str) -> bool:
    """``p = p.type(v.dtype)``, ``p = p.to(q.dtype)``, ``p = p.float()``: a statement that only casts ``name``."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and
            isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name):
        return False
    value = statement.value
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _CASTS \
        and isinstance(value.func.value, ast.Name) and value.func.value.id == name


def previous_assignment(name: str, statement: ast.stmt, ctx: FileContext) -> Optional[ast.Assign]:
    """``h = v``, when it is the statement just before ``statement`` in the same block (statements that only cast
    ``h``, such as ``h = h.type(v.dtype)``, in between are looked through)."""
    parent = ctx.parent(statement)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if not isinstance(block, list):
            continue
        index = next((i for i, item in enumerate(block) if item is statement), None)
        if index is None:
            continue
        index -= 1
        while index > 0 and _is_cast_of(block[index], name):
            index -= 1
        before = block[index] if index >= 0 else None
        if isinstance(before, ast.Assign) and len(before.targets) == 1 and \
                isinstance(before.targets[0], ast.Name) and before.targets[0].id == name:
            return before
        return None
    return None


def branch_values(name: str, statement: ast.stmt, ctx: FileContext) -> list[ast.AST]:
    """The values ``name`` gets in the last statements of the branches of the ``if`` just before ``statement``
    (``if c: h = self.norm(h)`` / ``else: h = self.norm(h, emb)`` then ``h = self.act(h)``)."""
    parent = ctx.parent(statement)
    block = next((getattr(parent, field) for field in ("body", "orelse", "finalbody")
                  if isinstance(getattr(parent, field, None), list) and
                  any(item is statement for item in getattr(parent, field))), None)
    if block is None:
        return []
    index = next(i for i, item in enumerate(block) if item is statement)
    before = block[index - 1] if index else None
    if not isinstance(before, ast.If):
        return []
    values = []
    for branch in (before.body, before.orelse):
        last = branch[-1] if branch else None
        if isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name) \
                and last.targets[0].id == name:
            values.append(last.value)
    return values


def read_only_here(name: str, statement: ast.stmt, ctx: FileContext) -> bool:
    """The intermediate ``name`` dies in ``statement``: read once there, and rebound there or read nowhere else."""
    if reads(name, walk(statement)) != 1:
        return False
    if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
        return True
    return reads(name, own_nodes(scope_of(statement, ctx))) == 1


def intermediate(node: ast.AST, statement: ast.stmt, ctx: FileContext) -> Optional[tuple[ast.AST, ast.stmt]]:
    """(the expression, its statement); for a name, the value it got in the statement just before ``statement``,
    provided it dies in ``statement``."""
    if not isinstance(node, ast.Name):
        return node, statement
    before = previous_assignment(node.id, statement, ctx)
    if before is None or not read_only_here(node.id, statement, ctx):
        return None
    return before.value, before


def _bindings(scope: ast.AST, ctx: FileContext) -> dict[str, list[tuple[tuple[int, int], ast.AST, ast.AST]]]:
    """Per name, every binding in the function (or module) body: (position, binding node, value), the value being
    ``None`` for a binding the rules cannot read (a tuple target, a loop variable, ``with ... as``, a walrus).
    Built once per scope: ``definition`` is asked about many names of the same function."""
    cache = ctx.scratch.setdefault("scope_bindings", {})
    found = cache.get(id(scope))
    if found is not None:
        return found
    found = {}
    for item in _own_bindings(scope):
        if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
            found.setdefault(item.targets[0].id, []).append(((item.lineno, item.col_offset), item, item.value))
        elif isinstance(item, ast.AugAssign) and isinstance(item.target, ast.Name):
            value = ast.BinOp(left=ast.Name(id=item.target.id, ctx=ast.Load()), op=item.op, right=item.value)
            found.setdefault(item.target.id, []).append(((item.lineno, item.col_offset), item, value))
        elif isinstance(item, (ast.Assign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr, ast.AnnAssign)):
            anchor = item.optional_vars if isinstance(item, ast.withitem) else item
            if anchor is None:
                continue
            for name in _bound_names(item):
                found.setdefault(name, []).append(((anchor.lineno, anchor.col_offset), item, None))
    cache[id(scope)] = found
    return found


_BINDERS = (ast.Assign, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr, ast.AnnAssign)
_KEPT_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module})


def _own_bindings(scope: ast.AST) -> list[ast.AST]:
    """The binding nodes (:data:`_BINDERS`) of ``own_nodes(scope)``, by type (the order ``_bindings`` does not need:
    ``definition`` takes the last position before the statement): read from the per-type lists of the walk kept on
    a function, class or module (``of_type``, shared with the model's questions), the nodes of nested functions,
    classes and lambdas left out as ``own_nodes`` leaves them; not a generator resumed at every node of the body."""
    if type(scope) not in _KEPT_SCOPES:
        return [item for item in own_nodes(scope) if isinstance(item, _BINDERS)]
    inner: set[int] = set()
    for scope_type in OTHER_SCOPES:
        for nested in of_type(scope, scope_type):
            if nested is not scope and id(nested) not in inner:
                inner.update(map(id, walk(nested)))
    return [item for binder in _BINDERS for item in of_type(scope, binder)
            if item is not scope and id(item) not in inner]


def definition(node: ast.AST, statement: ast.stmt, ctx: FileContext) -> tuple[ast.AST, ast.stmt]:
    """For a name read in ``statement``, the value of its last assignment earlier in the same function
    (``s = s + mask`` in an ``if`` counts, one in the other branch of an ``if`` holding ``statement`` does not;
    ``s += mask`` gives ``s + mask``) and that assignment; otherwise the expression itself (also when the last
    binding is one the rule cannot read: a tuple target, a loop variable, ``with ... as``, a walrus)."""
    if not isinstance(node, ast.Name):
        return node, statement
    where = (statement.lineno, statement.col_offset)
    last, found = None, (node, statement)
    for position, item, value in _bindings(scope_of(statement, ctx), ctx).get(node.id, ()):
        if position < where and (last is None or position > last) and not _exclusive(item, statement, ctx):
            last, found = position, (node if value is None else value, item)
    return found


def _exclusive(item: ast.AST, statement: ast.stmt, ctx: FileContext) -> bool:
    """``item`` and ``statement`` sit in different branches of one ``if`` (``if c: x = x + a`` / ``else: norm(x)``):
    the assignment never reaches the statement."""
    branch_of = {}
    node = statement
    while node is not None:
        parent = ctx.parent(node)
        if isinstance(parent, ast.If):
            branch_of[id(parent)] = "body" if any(child is node for child in parent.body) else "orelse"
        node = parent
    node = item
    while node is not None:
        parent = ctx.parent(node)
        if isinstance(parent, ast.If) and id(parent) in branch_of:
            side = "body" if any(child is node for child in parent.body) else "orelse"
            return side != branch_of[id(parent)]
        node = parent
    return False


def _bound_names(item: ast.AST) -> list[str]:
    if isinstance(item, ast.Assign):
        targets = item.targets
    elif isinstance(item, (ast.For, ast.AsyncFor, ast.NamedExpr, ast.AnnAssign)):
        targets = [item.target]
    else:
        targets = [item.optional_vars] if item.optional_vars is not None else []
    return [sub.id for target in targets for sub in walk(target) if isinstance(sub, ast.Name)]


def is_sum(node: ast.AST, ctx: FileContext, alpha: bool = False) -> bool:
    """``a + b`` of two tensors (no literal, no ``self`` parameter broadcast), or ``torch.add(a, b)``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        operands = (node.left, node.right)
    elif function_call(node, ("torch.add",), ctx) and len(node.args) == 2 and \
            all(kw.arg == "alpha" for kw in node.keywords) and (alpha or not node.keywords):
        operands = tuple(node.args)
    else:
        return False
    return not any(is_literal(operand) or is_self_parameter(operand) for operand in operands)
