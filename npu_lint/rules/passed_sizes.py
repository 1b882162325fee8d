"""Where a size a helper takes from its caller is reported: at the call. ``t = pad_at_dim(t, (max_pad_len, 0))``
with ``max_pad_len = pad_lens.amax()`` gives the helper's ``F.pad(t, pad)`` a size read from the data, but the
helper pads whatever it is given: the call is the line that brings the read in, the one a fixed bound replaces,
and the line reviewers mark (NPU403 reports it, naming the chain ``pad_at_dim(...) → pad()``). The size inside
the helper, reached only through its parameters from a read in another function of the file, is left out, unless
every call of the helper in the file hands those parameters a read (session 25, values25): then the parameter is a
value of the data wherever the helper runs (a parameter takes what every call passes), as colbert's
``pool_embeddings_hierarchical(p, doclens)`` slicing ``p[s:s + token_length]`` per length, and the size inside is
reported too (the call stays reported)."""
from __future__ import annotations

import ast

from npu_lint.analysis.flows import Flow
from npu_lint.analysis.index_forms import passed_argument
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES


def passed_in(node: ast.AST, args: list[ast.AST], origin: Flow, ctx: FileContext) -> bool:
    """The size at ``node`` (of ``args``) comes in through the enclosing function's parameters only, from a read
    outside that function, in a function of the file that calls it: that call, which passes it, is reported
    instead."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    read = origin[1]
    if function is None or not hasattr(read, "lineno") or function.lineno <= read.lineno <= function.end_lineno:
        return False
    resolver = ctx.resolver
    scope = resolver.current
    carried = [a for a in args if resolver.flow_of(a, (origin[0],), scope) is not None]
    parameters = [p for a in carried for p in resolver.parameters_reaching(a, function, scope)]
    if not carried or not parameters or not all(resolver.parameters_reaching(a, function, scope) for a in carried):
        return False
    sites = resolver.call_sites(function)
    if _always_read(sites, function, parameters, resolver):
        return False   # every call hands the helper a read: its own size is the data's wherever it runs
    for call, at, offset in sites:   # a call that hands the read over as it is
        if not _holds(at, read):
            continue
        for parameter in parameters:
            passed = passed_argument(call, function, parameter.node, offset)
            if passed is not None and any(f[1] is read for f in resolver.flows(passed, at, sink=False)):
                return True
    return False


def _holds(scope, read: ast.AST) -> bool:
    """The function a call site's scope belongs to holds the read: that call passes it and is reported (a read
    made further up, in a caller of the caller, leaves the size here to be reported)."""
    while scope is not None and not isinstance(scope.node, FUNCTION_TYPES):
        scope = scope.parent
    caller = scope.node if scope is not None else None
    return caller is not None and caller.lineno <= read.lineno <= (caller.end_lineno or read.lineno)


def _always_read(sites, function: ast.AST, parameters, resolver) -> bool:
    """Every call of the file fills each of ``parameters`` with a value the flow model says may be read from a
    tensor (a helper also called with constants, ``pad_at_dim(t, (1, -1))``, pads whatever it is given: no)."""
    if not sites:
        return False
    for call, at, offset in sites:
        for parameter in parameters:
            passed = passed_argument(call, function, parameter.node, offset)
            if passed is None or not resolver.flows(passed, at, sink=False):
                return False
    return True
