"""Code that runs on the host, in a loader's workers, whatever tensors it handles: a dataset's per-sample methods,
a collate function and the helpers it hands its samples to, and every method of a collator class. A shape that
varies there varies on the CPU; what reaches the device is the batch (NPU405 / NPU409 report its padding and its
joined samples). Asked by NPU401 / NPU402 before they report, and by NPU403 for collator classes."""
from __future__ import annotations

import ast

from npu_lint.analysis.setup_time import names_device, runs_per_sample
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.collate_samples import collate_path

_COLLATOR_MODULES = ("transformers.data.data_collator.",)


def collator_class(cls: ast.ClassDef, ctx: FileContext) -> bool:
    """``cls`` builds batches in a loader's workers and names no device: its instances are passed as a collate
    function (its ``__call__`` receives the samples), or it derives from a Hugging Face data collator
    (``class Collator(DataCollatorForSeq2Seq)``, ``transformers.DataCollatorMixin``), which the Trainer passes as
    its DataLoader's ``collate_fn``. Every method of it (``torch_mask_tokens`` choosing tokens to mask) runs on the
    host."""
    memo = ctx.scratch.setdefault("collator_class", {})
    found = memo.get(id(cls))
    if found is None:
        found = memo[id(cls)] = _collator_class(cls, ctx)
    return found


def _collator_class(cls: ast.ClassDef, ctx: FileContext, depth: int = 0) -> bool:
    resolver = ctx.resolver
    for base in cls.bases:
        name = resolver.qualname(base) or ""
        local = resolver.definition(base) if isinstance(base, ast.Name) and not name else None
        if isinstance(local, ast.ClassDef):   # a base of the file (the collator module itself, or a user's)
            if depth < 3 and _collator_class(local, ctx, depth + 1):
                return not names_device(cls)
            name = f"{ctx.module}.{base.id}" if ctx.module else ""
        if name.startswith(_COLLATOR_MODULES) or (name.startswith("transformers.")
                                                  and name.rpartition(".")[2].startswith("DataCollator")):
            return not names_device(cls)
    call = next((item for item in cls.body if isinstance(item, ast.FunctionDef) and item.name == "__call__"), None)
    return call is not None and collate_path(call, ctx) is not None and not names_device(cls)


def in_collator(node: ast.AST, ctx: FileContext) -> bool:
    """``node`` is in a method of a collator class (:func:`collator_class`)."""
    return _in_collator(_at(node, ctx), ctx)


def host_work(node: ast.AST, ctx: FileContext) -> bool:
    """``node`` runs on the host, in a loader's workers: in a method of a dataset that names no device
    (``__getitem__`` and its helpers), or in a collate function (or a helper it hands its samples to) that names
    none. The varying shape of what it builds reaches the device as the batch: the padding (NPU405) or the joined
    samples (NPU409) are reported there; the selection or data-dependent op itself runs on the CPU."""
    found = _at(node, ctx)
    if found[0] is None:
        found[0] = _host_work(found, ctx)
    return found[0]


# The nodes between which the answers above stay the same: every node has the answers of its nearest ancestor of
# these types (its enclosing function, class and outermost def are that ancestor's or that ancestor's own).
_BOUNDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})


def _at(node: ast.AST, ctx: FileContext) -> list:
    """[:func:`host_work`, :func:`in_collator`] for ``node`` (each None until asked): both depend only on the
    function, the class and the def that enclose it, so each is worked out once per nearest enclosing function or
    class (asked at ~25,000 nodes of every 8th file of timm+mmdet, each walking up the parents up to three times),
    in the order the questions came in (the same first questions to the model as before)."""
    last = ctx.scratch.get("host_work_at")
    if last is not None and last[0] is node:
        return last[1]   # the same node asked again (NPU401, NPU402, NPU403 in turn at one place of the walk)
    parents = ctx.parents
    bound = parents.get(node)
    while bound is not None and type(bound) not in _BOUNDS:
        bound = parents.get(bound)
    memo = ctx.scratch.setdefault("host_work", {})
    found = memo.get(bound)   # the bound itself is the key (``None``: at module level)
    if found is None:
        found = memo[bound] = [None, None, bound]
    ctx.scratch["host_work_at"] = (node, found)
    return found


def _in_collator(found: list, ctx: FileContext) -> bool:
    if found[1] is None:
        bound = found[2]
        cls = bound if isinstance(bound, ast.ClassDef) else ctx.enclosing(bound, (ast.ClassDef,)) \
            if bound is not None else None
        found[1] = cls is not None and collator_class(cls, ctx)
    return found[1]


def _host_work(found: list, ctx: FileContext) -> bool:
    bound = found[2]
    function = bound if isinstance(bound, FUNCTION_TYPES) else ctx.enclosing(bound, FUNCTION_TYPES) \
        if bound is not None else None
    if runs_per_sample(function, ctx.resolver):
        return True
    if _in_collator(found, ctx):
        return True
    outer = bound if isinstance(bound, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else ctx.enclosing(bound, (ast.FunctionDef, ast.AsyncFunctionDef)) if bound is not None else None
    if outer is None or collate_path(outer, ctx) is None:
        return False
    memo = ctx.scratch.setdefault("collate_names_device", {})
    if id(outer) not in memo:
        memo[id(outer)] = names_device(outer)
    return not memo[id(outer)]


def host_helper_work(node: ast.AST, ctx: FileContext) -> bool:
    """:func:`host_work` except a dataset's ``__getitem__`` itself and a collate function (session 26, dataops26):
    what NPU401 / NPU402 leave alone. Reviewers mark a data-dependent op in ``__getitem__`` (pytorch-forecasting's
    ``repeat_interleave`` of the time gaps and the mask writes after it) and in a collate function (schnetpack's
    ``repeat_interleave(idx, n_atoms)``): each new sample compiles again where the loader's work runs on the
    device's host graph. A dataset's other methods (a split, ``kg.split_kg``; a masking helper) and a collator
    class's methods stay host work."""
    if not host_work(node, ctx):
        return False
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return True
    memo = ctx.scratch.setdefault("host_helper_work", {})
    key = id(function)
    if key not in memo:
        memo[key] = not (function.name == "__getitem__" or (
            collate_path(function, ctx) is not None and not in_collator(node, ctx)))
    return memo[key]
