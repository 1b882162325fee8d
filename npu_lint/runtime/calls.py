"""Which calls the dynamic-shape detector records (part of the detector copied by ``npu-lint analyse -m
dynamic_shape``; standard library and torch only).

torch, torchvision, torchaudio and torch_npu functions, ``Tensor`` methods, custom autograd ``Function.apply``,
``nn.Module`` calls and methods (the project's subclasses included) and methods of torch classes are recorded;
metadata reads (``numel``, ``size``, ``dim``, ``shape``, ...) and the vendor's skipped calls (``to``, ``cpu``,
``detach``, ...) never are. Verdicts are cached per function, or per class and method name, never keyed by an
object a cache would keep alive.
"""
from __future__ import annotations

import functools
import types
from typing import Any

import torch

# The vendor's never-traced calls, calls that return no tensor, and metadata reads (no operator runs).
SKIPPED_NAMES = frozenset({
    "cpu", "cuda", "long", "float", "int", "detach", "to", "contiguous", "type", "requires_grad_", "clone", "numpy",
    "item", "tolist", "size", "dim", "numel", "nelement", "ndimension", "shape", "ndim", "stride", "storage_offset",
    "element_size", "data_ptr", "is_contiguous", "is_floating_point", "is_complex", "get_device", "__len__",
    "untyped_storage", "is_nonzero", "npu", "half", "double", "bool", "byte", "short", "bfloat16"})
TORCH_PACKAGES = frozenset({"torch", "torchvision", "torch_npu", "torchaudio"})

_Tensor, _Module, _TensorBase = torch.Tensor, torch.nn.Module, torch._C.TensorBase
_Function = torch.autograd.Function


def _torch_module(module: Any) -> bool:
    return isinstance(module, str) and module.partition(".")[0] in TORCH_PACKAGES \
        and not module.startswith("torch.nn.init")


_BUILTIN, _METHOD, _FUNCTION = types.BuiltinFunctionType, types.MethodType, types.FunctionType
_MODULE_TYPE = types.ModuleType
STABLE = _STABLE = (types.FunctionType, types.BuiltinFunctionType, type, types.MethodDescriptorType,
           types.WrapperDescriptorType)
VERDICTS: dict = {}        # functions, module-level builtins and classes (torch.cat, F.relu) -> recorded?
_OWNED: dict = {}           # (the owner's class, method name) for methods of other objects -> recorded?
_OBJECTS: dict = {}         # (class, __module__) of the project's callable objects -> False
_CACHE_SIZE = 4096


def traced(func: Any) -> bool:
    """Whether a call of ``func`` is recorded: Tensor and module methods answered at once, other verdicts cached
    per function (or per class and method name), never keyed by an object a cache would keep alive."""
    kind = type(func)
    if kind is _BUILTIN or kind is _METHOD:
        owner = func.__self__
        if owner is not None and type(owner) is not _MODULE_TYPE:
            if isinstance(owner, _Tensor) or isinstance(owner, _Module):
                return func.__name__ not in SKIPPED_NAMES
            key = (owner if isinstance(owner, type) else type(owner), func.__name__)
            verdict = _OWNED.get(key)
            if verdict is None:
                verdict = _decide(func)
                if len(_OWNED) < _CACHE_SIZE:
                    _OWNED[key] = verdict
            return verdict
    elif isinstance(func, _Module):
        return True
    elif not isinstance(func, _STABLE):
        return object_traced(func, kind)
    try:
        verdict = VERDICTS.get(func)
    except TypeError:                 # a class whose metaclass makes it unhashable
        return _decide(func)
    if verdict is None:
        verdict = _decide(func)
        if len(VERDICTS) < _CACHE_SIZE:
            VERDICTS[func] = verdict
    return verdict


def object_traced(func: Any, kind: type) -> bool:
    """Whether a call of a callable object (not a function, class or module) is recorded. For an object that is
    no partial and has no ``__self__``, the verdict depends on its ``__module__`` alone: when that is a string and
    not torch's (a transform, a loss of the project), the call is not recorded, cached per class and module. The
    others (partials, torch's callable objects) are decided on every call: their verdict may differ per object."""
    module = getattr(func, "__module__", None)
    if isinstance(func, functools.partial) or getattr(func, "__self__", None) is not None:
        return _decide(func)
    try:
        if _OBJECTS.get((kind, module)) is False:
            return False
    except TypeError:                 # an unhashable class or module attribute
        return _decide(func)
    verdict = _decide(func)
    if not verdict and type(module) is str and not _torch_module(module) and len(_OBJECTS) < _CACHE_SIZE:
        _OBJECTS[(kind, module)] = False
    return verdict


def _decide(func: Any) -> bool:
    name = getattr(func, "__name__", None)
    if name in SKIPPED_NAMES:
        return False
    owner = getattr(func, "__self__", None)
    if owner is not None:
        if isinstance(owner, (_Tensor, _Module)):      # Tensor methods; methods of modules, the project's too
            return True
        if isinstance(owner, type) and issubclass(owner, _Function):     # MyFunction.apply (a C builtin)
            return True
    if isinstance(func, type):
        return False
    if isinstance(func, functools.partial):
        return traced(func.func)
    module = getattr(func, "__module__", None)
    if module is None:
        objclass = getattr(func, "__objclass__", None)   # torch.Tensor.add and other unbound C methods
        if isinstance(objclass, type) and issubclass(objclass, _TensorBase):
            return True
        module = type(owner).__module__ if owner is not None else None   # C methods of torch objects
    return _torch_module(module)
