"""Name resolution: import aliases to qualified names, and evident tensor receivers.

One :class:`Resolver` per file is fed by the walker in source order (imports, simple
aliases and bindings as they appear) and answered by every rule, so no rule resolves
names on its own.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.namespaces import is_namespace

# Re-exports: the public name a user reaches through another module path.
CANONICAL = {
    "torch.nn.parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
    "torch.distributed.distributed_c10d": "torch.distributed",
    "torch.amp.autocast_mode.autocast": "torch.amp.autocast",
    "torch.cuda.amp.autocast_mode.autocast": "torch.cuda.amp.autocast",
    "torch.cuda.amp.grad_scaler.GradScaler": "torch.cuda.amp.GradScaler",
    "torch.amp.grad_scaler.GradScaler": "torch.amp.GradScaler",
    "torch.utils.data.dataloader.DataLoader": "torch.utils.data.DataLoader",
    "torch._C._nn": "torch.nn.functional",
}

# torch functions that return something other than a tensor.
_NOT_TENSOR = frozenset({
    "device", "dtype", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "manual_seed",
    "seed", "initial_seed", "load", "save", "compile", "is_tensor", "is_storage", "numel", "get_default_dtype",
    "set_default_dtype", "set_default_device", "set_printoptions", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "autocast", "Generator", "finfo", "iinfo", "is_floating_point",
    "is_complex", "is_nonzero", "Size", "get_num_threads", "set_num_threads", "is_grad_enabled",
    "get_rng_state", "set_rng_state", "typename", "equal", "allclose", "is_same_size", "result_type",
    "can_cast", "promote_types", "broadcast_shapes", "set_float32_matmul_precision", "vmap", "cond",
})
_TENSOR_MODULES = ("torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")
# Tensor methods whose result is not a tensor.
_NOT_TENSOR_METHODS = frozenset({
    "item", "tolist", "size", "dim", "ndimension", "numel", "nelement", "numpy", "data_ptr", "element_size",
    "is_contiguous", "is_floating_point", "is_complex", "get_device", "stride", "storage_offset", "type",
    "untyped_storage", "storage", "__len__", "backward", "register_hook", "equal", "allclose",
    "chunk", "split", "unbind", "tensor_split", "unique_consecutive", "sort", "topk", "max", "min", "kthvalue",
    "mode", "median", "nanmedian", "cummax", "cummin", "sum_to_size", "apply_", "map_", "all", "any",
})
_TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter",
                                 "torch.FloatTensor", "torch.LongTensor"})
_LOADERS = frozenset({"torch.utils.data.DataLoader"})
_ITER_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "iter", "zip"})

TENSOR, LOADER, BATCH, MASK = "tensor", "loader", "batch", "mask"   # batch: taken from a data loader
_TENSORS = (TENSOR, BATCH)


class Resolver:
    """Import aliases (file-wide) and value kinds (per scope) for one module."""

    def __init__(self) -> None:
        # ``torch`` is torch even when it arrives through a star import (``from .layers import *``).
        self.aliases: dict[str, str] = {"torch": "torch"}
        self._scopes: list[dict[str, str]] = [{}]
        self._class_scopes: list[dict[str, str]] = []   # where ``self.x`` bindings live

    # -- imports and aliases -------------------------------------------------------------
    def add_import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.aliases[alias.asname] = canonical(alias.name)
            else:
                root = alias.name.split(".", 1)[0]
                self.aliases[root] = root

    def add_import_from(self, node: ast.ImportFrom) -> None:
        module = "." * (node.level or 0) + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                continue
            full = f"{module}.{alias.name}" if module and not module.endswith(".") else module + alias.name
            self.aliases[alias.asname or alias.name] = canonical(full)

    def add_assign(self, node: ast.Assign) -> None:
        """``cuda = torch.cuda`` makes an alias; ``x = torch.randn(...)`` binds a tensor."""
        if len(node.targets) != 1:
            return
        target, value = node.targets[0], node.value
        key = _binding_key(target)
        if key is None:
            if isinstance(target, (ast.Tuple, ast.List)):
                for element in target.elts:
                    element_key = _binding_key(element)
                    if element_key:
                        self._scopes[-1].pop(element_key, None)
            return
        qualified = self.alias_target(node)
        if qualified is not None:
            self.aliases[target.id] = qualified
            return
        kind = self.kind_of(value)
        scope = self._class_scopes[-1] if key.startswith("self.") and self._class_scopes else self._scopes[-1]
        if kind:
            scope[key] = kind
        else:
            scope.pop(key, None)
            is_fallback = isinstance(value, ast.Constant) and value.value is None   # ``except ImportError: x = None``
            if isinstance(target, ast.Name) and target.id in self.aliases and not is_fallback \
                    and len(self._scopes) == 1:
                del self.aliases[target.id]

    def alias_target(self, node: ast.Assign) -> Optional[str]:
        """The namespace ``name = torch.cuda`` makes ``name`` stand for (None for value copies)."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) \
                or not isinstance(node.value, (ast.Name, ast.Attribute)):
            return None
        qualified = self.qualname(node.value)
        if qualified and "." in qualified and not qualified.startswith(".") and is_namespace(qualified):
            return qualified
        return None

    # -- scopes --------------------------------------------------------------------------
    def enter_function(self, node: ast.AST) -> None:
        scope: dict[str, str] = {}
        args = getattr(node, "args", None)
        if args is not None:
            for arg in args.posonlyargs + args.args + args.kwonlyargs:
                if arg.annotation is not None and self.qualname(_strip_optional(arg.annotation)) in _TENSOR_ANNOTATIONS:
                    scope[arg.arg] = TENSOR
        self._scopes.append(scope)

    def enter_class(self) -> None:
        scope: dict[str, str] = {}
        self._scopes.append(scope)
        self._class_scopes.append(scope)

    def leave_scope(self) -> None:
        if len(self._scopes) > 1:
            scope = self._scopes.pop()
            if self._class_scopes and self._class_scopes[-1] is scope:
                self._class_scopes.pop()

    def bind_loop(self, node: ast.For) -> None:
        """``for x, y in loader`` (or ``enumerate(loader)``, ``tqdm(loader)``) binds batch tensors."""
        source, target = node.iter, node.target
        wrapped = False
        while isinstance(source, ast.Call) and source.args and self.qualname(source.func) in _ITER_WRAPPERS:
            wrapped = wrapped or self.qualname(source.func) == "enumerate"
            source = source.args[0]
        if self.kind_of(source) != LOADER:
            return
        if wrapped and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]
        for name in names_in(target):
            self._scopes[-1][name] = BATCH

    # -- queries -------------------------------------------------------------------------
    def qualname(self, node: ast.AST) -> Optional[str]:
        """``torch.cuda.synchronize`` for ``tc.synchronize`` after ``import torch.cuda as tc``."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        root = self.aliases.get(node.id)
        if root is None:
            return node.id if node.id in _ITER_WRAPPERS else None
        if not parts:
            return root
        return canonical(root + "." + ".".join(reversed(parts)))

    def lookup(self, key: str) -> Optional[str]:
        for scope in reversed(self._scopes):
            if key in scope:
                return scope[key]
        return None

    def kind_of(self, node: ast.AST, depth: int = 0) -> Optional[str]:
        """``tensor`` or ``loader`` where the code makes it evident, else None."""
        if depth > 40:   # long method chains or operator chains: give up rather than recurse
            return None
        depth += 1
        if isinstance(node, ast.Call):
            func = self.qualname(node.func)
            if func is not None:
                return _call_kind(func)
            if isinstance(node.func, ast.Attribute) and node.func.attr not in _NOT_TENSOR_METHODS:
                return TENSOR if self.kind_of(node.func.value, depth) in _TENSORS else None
            return None
        if isinstance(node, (ast.Name, ast.Attribute)):
            key = _binding_key(node)
            if key is not None:
                kind = self.lookup(key)
                if kind:
                    return kind
            if isinstance(node, ast.Name) and node.id.lower().endswith(("loader", "dataloader")):
                return LOADER
            if isinstance(node, ast.Name) and "mask" in node.id.lower() and not node.id[:1].isupper() \
                    and "slice" not in node.id.lower():   # not ``BitmapMasks`` (a class) nor ``mask_slice``
                return MASK
            if isinstance(node, ast.Attribute) and node.attr in ("T", "mT", "H", "data", "grad", "real", "imag"):
                return TENSOR if self.kind_of(node.value, depth) in _TENSORS else None
            return None
        if isinstance(node, ast.Compare):   # ``scores > thr``: a boolean mask when the operands are tensors
            comparable = not isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn))
            return MASK if comparable and len(node.ops) == 1 else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)) and (
                self.kind_of(node.left, depth) == MASK or self.kind_of(node.right, depth) == MASK):
            return MASK
        if isinstance(node, ast.BinOp):
            while isinstance(node, ast.BinOp):   # walk the left spine without recursing
                if self.kind_of(node.right, depth) in _TENSORS:
                    return TENSOR
                node = node.left
            return TENSOR if self.kind_of(node, depth) in _TENSORS else None
        if isinstance(node, ast.UnaryOp):
            return self.kind_of(node.operand, depth)
        if isinstance(node, ast.Subscript):
            return TENSOR if self.kind_of(node.value, depth) in _TENSORS else None
        return None

    def is_tensor(self, node: ast.AST) -> bool:
        return self.kind_of(node) in _TENSORS

    def is_batch(self, node: ast.AST) -> bool:
        """A name bound by iterating a data loader (``for images, labels in loader``)."""
        return self.kind_of(node) == BATCH


def _call_kind(func: str) -> Optional[str]:
    if func in _LOADERS:
        return LOADER
    if func.startswith(_TENSOR_MODULES) or func in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
        return TENSOR
    head, _, last = func.rpartition(".")
    if head == "torch" and last[:1].islower() and last not in _NOT_TENSOR:
        return TENSOR
    return None


def canonical(name: str) -> str:
    """Map a re-exported path to its public name (``torch.nn.parallel.DataParallel`` -> ``torch.nn.DataParallel``)."""
    head, rest = name, ""
    while True:
        public = CANONICAL.get(head)
        if public is not None:
            return public + rest
        if "." not in head:
            return name
        head, _, last = head.rpartition(".")
        rest = "." + last + rest


def _binding_key(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return "self." + node.attr
    return None


def names_in(target: ast.AST) -> list[str]:
    """The names an assignment or ``for`` target binds (``a, (b, *c)`` -> a, b, c)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in names_in(element)]
    if isinstance(target, ast.Starred):
        return names_in(target.value)
    return []


def _strip_optional(annotation: ast.AST) -> ast.AST:
    """``Optional[torch.Tensor]`` and ``torch.Tensor | None`` count as a tensor annotation."""
    if isinstance(annotation, ast.Subscript):
        return annotation.slice if not isinstance(annotation.slice, ast.Tuple) else annotation.slice.elts[0]
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return annotation.left
    return annotation
