"""What a function's own code shows of a name: one given where torch wants an index tensor is a tensor.

``maxm = int(idx_m[-1]) + 1; y = scatter_add(y, idx_m, dim_size=maxm)``: ``idx_m`` came from a dict of inputs
(``inputs["idx_m"]``) and has no tensor-only method called on it, yet it is the index of a scatter, which only a
tensor can be, so ``int(idx_m[-1])`` reads a tensor's element back. The places, in the function's own body (nested
functions and classes are other scopes; a comprehension's own names are its own):

- the index of a tensor's index methods: ``y.index_add(0, idx, x)``, ``x.index_select(0, idx)``, ``x.gather(1,
  idx)``, ``x.scatter_add(0, idx, src)`` (``index=``), and of torch's functions of the same names
  (``torch.index_select(x, 0, idx)``: the third argument);
- the input of ``torch.bincount(idx)``;
- the index of a scatter or segment function (torch_scatter's, PyG's or the project's own, which follow
  torch_scatter's ``scatter_*(src, index, ...)`` convention: the second argument, ``index=``), and the ``batch``
  vector of PyG's ``global_*_pool(x, batch)`` / ``to_dense_batch(x, batch)``.

Python lists and numpy arrays have none of these methods, and a distributed ``scatter`` (``torch.distributed``)
is left out. A text pre-filter keeps functions without such a call from being walked.
"""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Callable, Optional

from npu_lint.analysis.bindings import Binding, Scope
from npu_lint.analysis.nodes import function_text
from npu_lint.analysis.usage import own_calls

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_INDEX_METHODS = frozenset({"index_add", "index_add_", "index_copy", "index_copy_", "index_fill", "index_fill_",
                            "index_select", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_",
                            "scatter_reduce", "scatter_reduce_"})
_TORCH_INDEX = frozenset("torch." + name for name in ("index_add", "index_copy", "index_fill", "index_select",
                                                         "gather", "scatter", "scatter_add", "scatter_reduce"))
_BATCH_FUNCTIONS = frozenset({"global_add_pool", "global_mean_pool", "global_max_pool", "to_dense_batch"})
_CALLS = re.compile(r"\b(?:index_(?:add|copy|fill|select)_?|gather|scatter\w*|segment_\w+|bincount|global_\w+_pool"
                    r"|to_dense_batch)\s*\(")


# The words one of which every match of ``_CALLS`` holds: looked for first (a plain substring test is far cheaper
# than the pattern's ``\b`` tried at every position of a text that has none of them).
_CALL_WORDS = ("index_", "gather", "scatter", "segment_", "bincount", "global_", "to_dense_batch")


def _calls_in(text: str) -> bool:
    return any(word in text for word in _CALL_WORDS) and _CALLS.search(text) is not None


def _argument(call: ast.Call, position: int, keyword: str) -> Optional[ast.AST]:
    found = next((kw.value for kw in call.keywords if kw.arg == keyword), None)
    if found is not None:
        return found
    if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        return call.args[position]
    return None


# Libraries whose ``scatter`` / ``gather`` are no index operations (a plot's points, arrays, a cluster's messages).
_NOT_TORCH = frozenset({"numpy", "pandas", "matplotlib", "seaborn", "plotly", "bokeh", "scipy", "sklearn", "jax",
                        "tensorflow", "mpi4py", "ray"})


def _dimension(call: ast.Call) -> bool:
    """A tensor method's first argument is a dimension: an int (``x.scatter_add(0, idx, src)``, ``-1``), a name
    saying so (``dim``), or ``dim=`` (``ax.scatter(xs, ys)`` of a plot is none of these)."""
    if any(kw.arg == "dim" for kw in call.keywords):
        return True
    first = call.args[0] if call.args else None
    if isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub):
        first = first.operand
    if isinstance(first, ast.Constant):
        return isinstance(first.value, int) and not isinstance(first.value, bool)
    return isinstance(first, (ast.Name, ast.Attribute)) and ("dim" in ast.unparse(first).lower()
                                                              or "axis" in ast.unparse(first).lower())


def index_of(call: ast.Call, qualname: Callable[[ast.AST], Optional[str]]) -> Optional[ast.AST]:
    """The argument of ``call`` that torch (or the scatter convention) requires to be an index tensor (None: none)."""
    func = call.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if not (last in _INDEX_METHODS or last.startswith(("scatter", "segment_")) or last in _BATCH_FUNCTIONS
            or last == "bincount"):
        return None
    name = qualname(func)
    if name is None:
        if isinstance(func, ast.Attribute) and last in _INDEX_METHODS and len(call.args) + len(call.keywords) >= 2 \
                and _dimension(call):
            return _argument(call, 1, "index")   # ``y.index_add(0, idx, x)``: a tensor's method
        if not isinstance(func, ast.Name):
            return None
        name = last   # a function of the file, or one the model does not resolve: the convention by its name
    if name.startswith("torch.distributed") or name.split(".", 1)[0] in _NOT_TORCH:
        return None
    if name in _TORCH_INDEX:
        return _argument(call, 2, "index")
    if name == "torch.bincount":
        return _argument(call, 0, "input")
    short = name.rsplit(".", 1)[-1]
    if short in _BATCH_FUNCTIONS:
        return _argument(call, 1, "batch")
    if short.startswith(("scatter", "segment_")) and not name.startswith("torch.") and len(call.args) >= 2:
        return _argument(call, 1, "index")
    return None


def index_names(function: ast.AST, qualname: Callable[[ast.AST], Optional[str]]) -> dict[str, list[ast.Name]]:
    """The names ``function``'s own body gives where an index tensor goes, by name."""
    found: dict[str, list[ast.Name]] = {}
    for call, hidden in own_calls(function):
        index = index_of(call, qualname)
        if isinstance(index, ast.Name) and index.id not in hidden:
            found.setdefault(index.id, []).append(index)
        elif isinstance(index, ast.Attribute) and isinstance(index.value, ast.Name) \
                and index.value.id not in hidden:   # ``scatter(x, data.batch)``: by the receiver's name
            found.setdefault(f"{index.value.id}.{index.attr}", []).append(index.value)
    return found


def _uses(resolver: "Resolver", function: ast.AST, scope: Scope) -> dict[str, list[ast.Name]]:
    """:func:`index_names` of a function, once per function (``resolver._usage``, the per-file memo); a function
    whose text has no such call is not walked."""
    store, key = resolver._usage, ("index", id(function))
    uses = store.get(key)
    if uses is None:
        text = function_text(function, resolver.source, store) if resolver.source is not None else None
        uses = store[key] = {} if text is not None and not _calls_in(text) else index_names(
            function, lambda func: resolver.qualname(func, scope))
    return uses   # type: ignore[return-value]


def used_as_index(resolver: "Resolver", binding: Binding) -> bool:
    """Whether the own body of the function that binds ``binding`` gives the name, as bound there, where an index
    tensor goes."""
    function = binding.scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return id(binding) in _bound(resolver, function, binding.scope)


def _bound(resolver: "Resolver", function: ast.AST, scope: Scope) -> set[int]:
    """The ids of the bindings the function's index uses see (names only, not attribute receivers), resolved once
    per function and scope (each lookup is linear in the name's bindings: once per use, not once per binding)."""
    store, key = resolver._usage, ("index_bound", id(function), id(scope))
    bound = store.get(key)
    if bound is None:
        uses = _uses(resolver, function, scope)
        bound = store[key] = {id(resolver.binding(node, scope)) for name, nodes in uses.items() if "." not in name
                              for node in nodes}
    return bound   # type: ignore[return-value]


def attribute_used_as_index(resolver: "Resolver", node: ast.Attribute, scope: Scope) -> bool:
    """``data.batch`` (``data`` bound as at ``node``) given where an index tensor goes in the function ``node``
    stands in: ``int(data.batch[-1]) + 1`` then ``scatter(x, data.batch, dim_size=n)``."""
    receiver = node.value
    if not isinstance(receiver, ast.Name):
        return False
    current: Optional[Scope] = scope
    while current is not None and not isinstance(current.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        current = current.parent
    if current is None:
        return False
    found = _uses(resolver, current.node, current).get(f"{receiver.id}.{node.attr}")
    if not found:
        return False
    binding = resolver.binding(receiver, scope)
    return binding is not None and any(resolver.binding(name, current) is binding for name in found)
