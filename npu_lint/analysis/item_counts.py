"""What a method's result counts: the attribute of ``self`` whose items it has one of each for. A property or
method that returns ``len(self.instances)`` (a frame's number of detections), or a tensor made of one piece per
item of ``self.instances`` (``torch.cat([i.track_id for i in self.instances])``), gives a count, or a length, that
is the number of items the object holds. Early returns of a constant or an empty tensor (``if not
self.has_instances(): return torch.tensor([])``) are left aside. Stored per method by the project index
(``FunctionFacts.counts``) so that ``frame.num_detected`` / ``frame.get_gt_track_ids()`` in another module reads as
``frame.instances``: whether those items differ in number per object is the rules' question (a per-sample field).
Nothing here is a rule."""
from __future__ import annotations

import ast

from npu_lint.analysis.summaries import return_statements

_JOINS = frozenset({"cat", "concat", "concatenate", "stack", "tensor", "as_tensor", "LongTensor", "FloatTensor",
                    "IntTensor", "vstack", "hstack", "array"})


def counted_attribute(function: ast.AST) -> str:
    """``instances`` for a method whose every return (constants and empty tensors aside) is ``len(self.instances)``
    or a tensor joined from one piece per item of ``self.instances``; "" otherwise."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not function.args.args:
        return ""
    me = function.args.args[0].arg
    if me not in ("self", "cls"):
        return ""
    found = ""
    for statement in return_statements(function):
        value = statement.value
        if value is None or _trivial(value):
            continue
        attr = _counted(value, me)
        if not attr or (found and attr != found):
            return ""
        found = attr
    return found


def _counted(value: ast.AST, me: str) -> str:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "len" \
            and len(value.args) == 1:
        return _own(value.args[0], me)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _JOINS \
            and value.args and isinstance(value.args[0], (ast.ListComp, ast.GeneratorExp)) \
            and len(value.args[0].generators) == 1 and not value.args[0].generators[0].ifs:
        return _own(value.args[0].generators[0].iter, me)
    return ""


def _own(node: ast.AST, me: str) -> str:
    """``instances`` for ``self.instances``."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me:
        return node.attr
    return ""


def _trivial(value: ast.AST) -> bool:
    """A constant, ``torch.tensor([])``, ``torch.empty(0)``: the answer for an object without items."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        args = value.args
        if value.func.attr in ("tensor", "as_tensor") and len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            return not args[0].elts
        if value.func.attr in ("empty", "zeros") and args and isinstance(args[0], ast.Constant) and args[0].value == 0:
            return True
    return False


def counted_elements(resolver, comprehension: ast.AST, scope) -> bool:
    """``[length > t for length in lengths]`` with ``lengths`` a tensor of data: one 0-d tensor per element, so
    ``sum()`` of it is a count kept in a tensor (the effective batch size of a recurrent step over sorted lengths),
    as ``(lengths > t).sum()`` is; a collection the model cannot type counts too (the lengths of the batch, unpacked
    from a tuple the model returned: the count varies with the data either way). The element must be built from the
    loop's own variable; a tensor of constants (``torch.tensor([...])``) and a literal list are configuration."""
    from npu_lint.analysis import kinds as K
    from npu_lint.analysis.configuration import from_constants
    if not isinstance(comprehension, (ast.ListComp, ast.GeneratorExp)) or len(comprehension.generators) != 1:
        return False
    generator = comprehension.generators[0]
    if not isinstance(generator.target, ast.Name) or generator.is_async:
        return False
    element = comprehension.elt
    if not isinstance(element, ast.Compare) or not any(
            isinstance(n, ast.Name) and n.id == generator.target.id for n in (element.left, *element.comparators)):
        return False
    kind = resolver.kind_of_at(generator.iter, scope)   # session 21: a collection the model cannot type (``lengths``
    return (kind in K.TENSORS or kind is None and untyped(resolver, generator.iter, scope)) \
        and not from_constants(generator.iter, resolver, scope)   # unpacked from a tuple parameter) counts the same


def untyped(resolver, node: ast.AST, scope, depth: int = 0) -> bool:
    """A name the model cannot type and the code declares nothing of: no annotated parameter (``lengths: list``
    is a host list of lengths), no literal, no call's result; through a conditional expression and a rebinding of
    another name (``topk = (topk,) if isinstance(topk, int) else topk`` of a parameter ``topk: Union[int,
    Sequence[int]]``: every arm declared, a tuple or the annotated parameter, so no tensor; session 23)."""
    if not isinstance(node, ast.Name) or resolver.scopes is None:
        return False
    for binding in resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
        if isinstance(binding.node, ast.arg) and binding.node.annotation is not None \
                or _declared(resolver, binding.value, binding.scope, depth):
            return False
    return True


def _declared(resolver, value: ast.AST, scope, depth: int) -> bool:
    """A literal, a call's result, or a conditional expression whose every arm is declared (a name in an arm is
    declared where :func:`untyped` says it is not untyped)."""
    if isinstance(value, (ast.List, ast.Tuple, ast.ListComp, ast.Call)):
        return True
    if isinstance(value, ast.IfExp) and depth < 4:
        return all(_declared(resolver, arm, scope, depth + 1) if not isinstance(arm, ast.Name)
                   else not untyped(resolver, arm, scope, depth + 1) for arm in (value.body, value.orelse))
    return False
