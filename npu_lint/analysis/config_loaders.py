"""Loaders described by a framework's configuration file: a module-level ``NAME = dict(...)`` that a builder turns
into a ``DataLoader`` (OpenMMLab's mmengine ``Runner.build_dataloader``: ``train_dataloader = dict(batch_size=8,
sampler=dict(type='DefaultSampler', shuffle=True), dataset=dict(...))``).

What decides the last batch is the dict merged with the same name in its ``_base_`` files (mmengine's ``Config``
merges a child's dict into its bases' key by key, nested dicts too, unless ``_delete_=True``), read from disk beside
the file (memoised per path). mmengine's documented behaviour, as read in its ``runner.py`` /
``dataset/sampler.py``: ``build_dataloader`` pops ``sampler`` and hands the other keys to
``torch.utils.data.DataLoader`` (``drop_last`` False unless the dict says it); ``DefaultSampler`` yields one epoch
(``round_up`` pads to the world size, not to the batch size), so the last batch is short; ``InfiniteSampler``
yields indices forever (iteration-based loops), so every batch is full. A dict is a loader description when its
merged keys hold ``batch_size`` beside ``dataset`` or ``sampler`` and the file never hands its name to code
(``DataLoader(**cfg)`` in the same file is judged at that call)."""
from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import Optional

from npu_lint.bounded import unparse
from npu_lint.context import FileContext

_LOADER_KEYS = frozenset({"dataset", "sampler"})


@lru_cache(maxsize=128)   # parsed dicts hold syntax trees: 512 config files kept 20 MB
def _module_dicts(path: str) -> tuple[dict, tuple[str, ...]]:
    """{name: keywords of its module-level ``dict(...)``} and the ``_base_`` paths of the config file at ``path``."""
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return {}, ()
    return _dicts_of(tree, os.path.dirname(path))


def _dicts_of(tree: ast.Module, folder: str) -> tuple[dict, tuple[str, ...]]:
    dicts: dict = {}
    bases: list[str] = []
    for statement in tree.body:
        if not (isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets)):
            continue
        name, value = statement.targets[0].id, statement.value
        if _is_dict(value):     # ``val_dataloader = test_dataloader = dict(batch_size=64)``
            for target in statement.targets:
                dicts[target.id] = {kw.arg: kw.value for kw in value.keywords if kw.arg is not None}
        elif isinstance(value, ast.Name) and value.id in dicts:    # ``test_dataloader = val_dataloader``
            for target in statement.targets:
                dicts[target.id] = dicts[value.id]
        elif name == "_base_":   # (without the file's folder, or another package's ``mmdet::``: not found, unknown)
            items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            bases.extend(os.path.normpath(os.path.join(folder or "<unknown>", item.value)) for item in items
                         if isinstance(item, ast.Constant) and isinstance(item.value, str))
    return dicts, tuple(bases)


def _is_dict(value: ast.AST) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"


def _lookup(keywords: dict, bases: tuple[str, ...], name: str, path: tuple[str, ...], depth: int = 0
            ) -> tuple[Optional[ast.AST], bool]:
    """(the value at ``path`` of the dict ``name`` merged over its bases, whether every base was read)."""
    value: Optional[ast.AST] = None
    current = keywords
    for position, key in enumerate(path):
        value = current.get(key)
        if value is None:
            break
        if position < len(path) - 1:
            if not _is_dict(value):
                return None, True
            current = {kw.arg: kw.value for kw in value.keywords if kw.arg is not None}
            if "_delete_" in current:
                depth = 99      # the child replaces the base's dict: no merge below it
    if value is not None and (len(path) == 1 or not _is_dict(value)):
        return value, True
    if depth > 6:
        return None, True
    complete = True
    for base in bases:
        dicts, more = _module_dicts(base)
        if not dicts and not os.path.exists(base):
            complete = False
            continue
        if name in dicts:
            found, whole = _lookup(dicts[name], more, name, path, depth + 1)
            complete = complete and whole
            if found is not None:
                return found, complete
        elif more:
            found, whole = _lookup({}, more, name, path, depth + 1)
            complete = complete and whole
            if found is not None:
                return found, complete
    return None, complete


def _handed_to_code(name: str, ctx: FileContext) -> bool:
    """The file reads ``name`` anywhere but as the value of another module-level config entry (``test_dataloader
    = val_dataloader``, ``dict(loader=val_dataloader)``): a script that builds its loader itself."""
    uses = ctx.scratch.get("config-loader-reads")
    if uses is None:
        uses = ctx.scratch["config-loader-reads"] = _code_reads(ctx)
    return name in uses


def _code_reads(ctx: FileContext) -> frozenset[str]:
    module = ctx.scratch.get("config-loader-module")
    if not isinstance(module, ast.Module):
        return frozenset()
    read: set[str] = set()
    for statement in module.body:
        if isinstance(statement, ast.Assign) and (isinstance(statement.value, ast.Name) or _is_dict(statement.value)):
            continue    # config entries: ``test_dataloader = val_dataloader``, ``x = dict(loader=y)``
        read.update(n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return frozenset(read)


def config_statement(node: ast.Call, ctx: FileContext) -> bool:
    """Whether ``node`` is the whole value of a module-level ``NAME = dict(...)``: the only place a config file
    describes a loader. A ``dict(...)`` anywhere else (a kwargs dict in a method) is left to the code paths."""
    statement = ctx.parent(node)
    return isinstance(statement, ast.Assign) and statement.value is node and isinstance(ctx.parent(statement),
                                                                                         ast.Module)


def config_loader(node: ast.Call, ctx: FileContext) -> Optional[tuple[bool, str]]:
    """For ``NAME = dict(...)`` at a config module's top level describing a loader whose last batch the merged
    configuration leaves short: (whether it trains, what the finding says); None otherwise."""
    if not _is_dict(node):
        return None
    statement = ctx.parent(node)
    if not (isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets)):
        return None
    module = ctx.parent(statement)
    if not isinstance(module, ast.Module):
        return None
    name = statement.targets[0].id
    ctx.scratch.setdefault("config-loader-module", module)
    memo = ctx.scratch.setdefault("config-loader-found", {})   # NPU406 and NPU415 both ask of the same dict
    key = id(node)
    if key not in memo:
        found = _described_loader(node, name, module, ctx)
        # asked last: the module's reads are one walk of the whole file, and most dicts describe no loader at all
        memo[key] = None if found is None or _handed_to_code(name, ctx) else found
    return memo[key]


def _described_loader(node: ast.Call, name: str, module: ast.Module, ctx: FileContext
                      ) -> Optional[tuple[bool, str]]:
    """:func:`config_loader`'s answer for the dict ``node`` bound to ``name``, whether or not code reads it."""
    path = getattr(ctx, "path", None)
    folder = os.path.dirname(os.path.abspath(path)) if path else ""
    _, bases = _dicts_of_cached(module, folder, ctx)
    own = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}

    def get(*keys: str) -> tuple[Optional[ast.AST], bool]:
        return _lookup(own, bases, name, keys)

    if "batch_size" not in own and ({"samples_per_gpu", "train_dataloader"} & own.keys()
                                    or get("samples_per_gpu")[0] is not None):
        return _mmcv_data(get)
    batch_size, _ = get("batch_size")
    found = [get(key) for key in sorted(_LOADER_KEYS)]
    described = any(value is not None for value, _ in found)
    whole = all(complete for _, complete in found)
    if not whole:   # a base the code does not show (another package's ``mmdet::...``): unless proven static
        if not (own.keys() & (_LOADER_KEYS | {"batch_size", "drop_last"})):
            return None
    elif batch_size is None or not described:
        return None
    if isinstance(batch_size, ast.Constant) and batch_size.value in (1, None):
        return None
    if get("batch_sampler")[0] is not None:
        return None
    drop_last, _ = get("drop_last")
    if isinstance(drop_last, ast.Constant) and drop_last.value is True:
        return None
    sampler_type, whole = get("sampler", "type")
    kind = _type_name(sampler_type)
    if kind is not None and "infinite" in kind.lower():
        return None     # an endless sampler: every batch is full
    shuffle, _ = get("sampler", "shuffle")
    trains = isinstance(shuffle, ast.Constant) and shuffle.value is True
    size = unparse(batch_size)[:30] if batch_size is not None else "its base's batch size"
    sampler = kind or ("a sampler its bases leave unknown" if not whole else "no sampler type")
    drop = "no drop_last=True" if drop_last is None else f"drop_last={unparse(drop_last)[:30]}"
    what = (f"this config's loader '{name}' (batch_size={size}, {sampler}, {drop}) is built into a DataLoader by "
            f"the framework's builder: unless len(dataset) is a multiple of {size}"
            + ("" if whole else " (a base file the code does not show may set drop_last or an endless sampler)"))
    return trains, what


def _mmcv_data(get) -> Optional[tuple[bool, str]]:
    """mmcv 1.x: ``data = dict(samples_per_gpu=16, workers_per_gpu=4, train=..., val=...,
    train_dataloader=dict(drop_last=True))``. As read in mmcls' and mmedit's ``apis/train.py``: the top-level keys
    (``samples_per_gpu`` the batch size, ``drop_last``) are every loader's defaults, ``train_dataloader`` /
    ``val_dataloader`` override them per phase, and ``build_dataloader`` keeps ``drop_last=False`` unless told: the
    training loader (reported here: one finding per dict) keeps a short last batch each epoch."""
    if get("train")[0] is None:
        return None
    size = get("train_dataloader", "samples_per_gpu")[0] or get("samples_per_gpu")[0]
    if size is None or isinstance(size, ast.Constant) and size.value in (1, None):
        return None
    drop_last = get("train_dataloader", "drop_last")[0] or get("drop_last")[0]
    if isinstance(drop_last, ast.Constant) and drop_last.value is True:
        return None
    text = unparse(size)[:30]
    return True, (f"this config's data (samples_per_gpu={text}, "
                  f"{'no drop_last=True' if drop_last is None else 'drop_last=' + unparse(drop_last)[:30]}) "
                  f"is built into the training DataLoader by the framework's build_dataloader: unless len(dataset) "
                  f"is a multiple of {text}")


def _dicts_of_cached(module: ast.Module, folder: str, ctx: FileContext) -> tuple[dict, tuple[str, ...]]:
    found = ctx.scratch.get("config-loader-dicts")
    if found is None:
        found = ctx.scratch["config-loader-dicts"] = _dicts_of(module, folder)
    return found


def _type_name(value: Optional[ast.AST]) -> Optional[str]:
    """``'DefaultSampler'``, ``DefaultSampler``, ``mmengine.dataset.InfiniteSampler``: the class's name."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value.rsplit(".", 1)[-1]
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute):
        return value.attr
    return None


_RUNNER_BUILDERS = ("mmengine.runner.Runner.build_dataloader", "mmengine.runner.runner.Runner.build_dataloader",
                    "mmengine.Runner.build_dataloader")


def runner_loader(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """``Runner.build_dataloader(cfg)`` (mmengine's static builder, used by tools and hooks: ``DataLoader(**cfg)``
    with the sampler built from ``cfg['sampler']``): what the finding says when the code does not prove the loader's
    last batch full; None when it does (a dict literal with ``drop_last=True``, batch size 1 or none, an
    ``InfiniteSampler``; a config the function sets ``cfg['batch_size'] = 1`` / ``drop_last = True`` on)."""
    if (ctx.resolver.qualname(node.func) or "") not in _RUNNER_BUILDERS:
        return None
    config = node.args[0] if node.args else next((kw.value for kw in node.keywords if kw.arg == "dataloader"), None)
    if config is None:
        return None
    if _is_dict(config) or isinstance(config, ast.Dict):
        own = {kw.arg: kw.value for kw in config.keywords if kw.arg} if isinstance(config, ast.Call) else {
            key.value: value for key, value in zip(config.keys, config.values)
            if isinstance(key, ast.Constant) and isinstance(key.value, str)}
        size, drop_last = own.get("batch_size"), own.get("drop_last")
        sampler = own.get("sampler")
        kind = _type_name(next((kw.value for kw in sampler.keywords if kw.arg == "type"), None)) \
            if _is_dict(sampler) else None
        if size is None or isinstance(size, ast.Constant) and size.value in (1, None) \
                or isinstance(drop_last, ast.Constant) and drop_last.value is True \
                or (kind is not None and "infinite" in kind.lower()):
            return None
        return (f"Runner.build_dataloader builds a DataLoader of batch_size={unparse(size)[:30]} and no "
                f"drop_last=True: unless len(dataset) is a multiple of it")
    root = config
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    scope = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or ctx.scratch.get("config-loader-module")
    if isinstance(root, ast.Name) and scope is not None and _set_static(root.id, scope):
        return None
    return (f"Runner.build_dataloader({unparse(config)[:40]}) builds a DataLoader from a config whose content the "
            "code does not show: unless it sets drop_last=True, batch_size=1 or an InfiniteSampler")


def _set_static(name: str, scope: ast.AST) -> bool:
    """The scope sets the config's ``batch_size`` to 1 or its ``drop_last`` to True (``cfg['batch_size'] = 1``,
    ``cfg.drop_last = True``, ``cfg.update(batch_size=1)``): every batch full."""
    def static(key: Optional[str], value: ast.AST) -> bool:
        return isinstance(value, ast.Constant) and (key == "batch_size" and value.value == 1
                                                    or key == "drop_last" and value.value is True)
    for child in ast.walk(scope):
        if isinstance(child, ast.Assign) and len(child.targets) == 1:
            target = child.targets[0]
            base = target.value if isinstance(target, (ast.Subscript, ast.Attribute)) else None
            key = target.attr if isinstance(target, ast.Attribute) else \
                target.slice.value if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                else None
            if isinstance(base, ast.Name) and base.id == name and static(key, child.value):
                return True
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "update" \
                and isinstance(child.func.value, ast.Name) and child.func.value.id == name \
                and any(static(kw.arg, kw.value) for kw in child.keywords):
            return True
    return False
