"""Code that runs when a model is built, not at every step: the constructor of an ``nn.Module`` (or of a dataset,
a sampler, an optimizer) and the file's private helpers (``_meshgrid(res)``) that only such code calls. A value
read back there (``int(resolution.prod())``) sizes a buffer once per model: one sync and one shape for the whole
run, not a shape per batch. A data container's constructor (``Batch(samples)``, ``Boxes(t)``) is not setup: it
is built per batch. Asked by NPU403 before it reports a read or a size taken from one."""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scalars import python_number
from npu_lint.analysis.summaries import IN_PROGRESS, MISSING, memo

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_BUILT_ONCE = frozenset({K.MODULE, K.DATASET, K.SAMPLER, K.OPTIMIZER, K.SCHEDULER})
# Lightning's data module (every spelling it is exported under): the trainer calls ``prepare_data`` and ``setup``
# once, before the loaders it builds are iterated.
_DATA_MODULES = frozenset({"lightning.LightningDataModule", "lightning.pytorch.LightningDataModule",
                           "lightning.pytorch.core.LightningDataModule",
                           "lightning.pytorch.core.datamodule.LightningDataModule",
                           "pytorch_lightning.LightningDataModule", "pytorch_lightning.core.LightningDataModule",
                           "pytorch_lightning.core.datamodule.LightningDataModule"})
_DATA_MODULE_SETUP = frozenset({"__init__", "prepare_data", "setup"})
_DEPTH = 3


def runs_at_setup(function: object, resolver: "Resolver", depth: int = 0) -> bool:
    """``function`` (a def of this file) runs only while objects built once are constructed: the ``__init__`` of a
    class the model knows as a module, dataset, sampler, optimizer or scheduler, or a private function of the file
    (``_name``, not a dunder) called at least once in the file and only from such code; for a function of the
    module, the project index must say no other module imports or calls it (without an index, it may)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or depth > _DEPTH \
            or resolver.scopes is None:
        return False
    key = ("setup", id(function))
    known = resolver._summaries.get(key, MISSING)   # a memo hit without the call and its closure (asked at every
    if known is not MISSING and known is not IN_PROGRESS:   # call and subscript NPU403 checks)
        return bool(known)
    return bool(memo(resolver._summaries, key, lambda: _runs_at_setup(function, resolver, depth)))


def _runs_at_setup(function: ast.AST, resolver: "Resolver", depth: int) -> bool:
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    if scope is None:
        return False
    name = function.name   # type: ignore[attr-defined]
    if name in _DATA_MODULE_SETUP and scope.cls is not None and isinstance(scope.cls.node, ast.ClassDef) \
            and _data_module(scope.cls.node, resolver):
        return True   # a Lightning data module's constructor, ``prepare_data`` and ``setup``: once per run
    if name == "__init__":
        cls = scope.cls.node if scope.cls is not None else None
        value = resolver.class_value(cls) if isinstance(cls, ast.ClassDef) else None
        return value is not None and value[0] in _BUILT_ONCE
    if not name.startswith("_") or name.startswith("__"):
        return False
    if scope.parent is not None and scope.parent.kind == "module":   # a module's helper: other modules may call it
        project = resolver.project
        if project is None or not resolver.module_name \
                or project.used_elsewhere(f"{resolver.module_name}.{name}", resolver.module_name):
            return False
    sites = resolver.call_sites(function)
    if not sites:
        return False
    for _, site_scope, _ in sites:
        caller = site_scope
        while caller is not None and caller.kind not in ("function", "module"):
            caller = caller.parent   # a comprehension or lambda runs in its function
        if caller is None or caller.kind != "function" or not runs_at_setup(caller.node, resolver, depth + 1):
            return False
    return True


# What moves a tensor to the accelerator inside a dataset: then its items are built on the device, not the host.
_DEVICE_TOKENS = frozenset({"cuda", "npu", "gpu"})


def _device_word(name: str) -> bool:
    """``device``, ``self.device``, ``.cuda()``, ``to_npu``, ``use_gpu``: a name that speaks of the accelerator
    (``input_ids`` does not: "npu" is a word of the name, not any three letters of it)."""
    lower = name.lower()
    return "device" in lower or not _DEVICE_TOKENS.isdisjoint(re.split(r"[_\d]+", lower))


def runs_per_sample(function: object, resolver: "Resolver") -> bool:
    """``function`` (a def of this file) is a method of a class the model knows as a dataset (``__getitem__`` and the
    helpers it calls, static ones too; a split of the data set, ``kg.split_kg(share)``) that never names a device:
    it runs on the host, per sample in the loader's workers or once at setup. A shape that varies there (``mask.topk(int(mask.sum() * ratio))`` choosing which values to
    hide) varies on the host only; what reaches the device is the batch the collate function builds (NPU405's,
    NPU409's question). Asked by NPU401 / NPU402 / NPU403 before they report."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or resolver.scopes is None:
        return False
    key = ("per_sample", id(function))
    known = resolver._summaries.get(key, MISSING)   # a memo hit, as in :func:`runs_at_setup`
    if known is not MISSING and known is not IN_PROGRESS:
        return bool(known)
    return bool(memo(resolver._summaries, key, lambda: _runs_per_sample(function, resolver)))


def _runs_per_sample(function: ast.AST, resolver: "Resolver") -> bool:
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    cls = scope.parent.node if scope is not None and scope.parent is not None else None
    if not isinstance(cls, ast.ClassDef):
        return False   # a method of a class (static ones too), not a function nested in one
    value = resolver.class_value(cls)
    return value is not None and value[0] == K.DATASET and not names_device(cls)


def names_device(node: ast.AST) -> bool:
    """``node`` (a class or function) mentions a device: ``.cuda()``, ``.to(self.device)``, ``device=...``, a
    ``"cuda"`` / ``"npu"`` string: what it builds may be built on the accelerator."""
    for child in walk(node):
        if isinstance(child, ast.Attribute) and _device_word(child.attr):
            return True
        if isinstance(child, ast.Name) and _device_word(child.id):
            return True
        if isinstance(child, ast.keyword) and child.arg and "device" in child.arg:
            return True
        if isinstance(child, ast.Constant) and isinstance(child.value, str) and child.value.startswith(("cuda", "npu")):
            return True
    return False


# The types of user inputs an input-conversion helper tells apart from tensors.
_INPUT_TYPES = frozenset({"PIL.Image.Image", "numpy.ndarray"})


def converts_inputs(function: object, resolver: "Resolver") -> bool:
    """``function`` (a def of this file) converts what a user hands in: it tests ``isinstance(x, PIL.Image.Image)`` or
    ``isinstance(x, np.ndarray)`` (a pipeline's ``prepare_mask_and_masked_image(image, mask)`` taking PIL images,
    numpy arrays or tensors). The tensors it handles are the caller's inputs, on the host until the pipeline moves
    them, converted once per call. Asked by NPU402 before it reports a fill through a mask."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or resolver.scopes is None:
        return False
    return bool(memo(resolver._summaries, ("converts_inputs", id(function)),
                     lambda: _converts_inputs(function, resolver)))


def _converts_inputs(function: ast.AST, resolver: "Resolver") -> bool:
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    for node in walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2:
            types = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            if any(resolver.qualname(t, scope) in _INPUT_TYPES for t in types):
                return True
    return False


def _data_module(cls: ast.ClassDef, resolver: "Resolver", depth: int = 0) -> bool:
    """``cls`` derives from Lightning's data module: directly, through classes of this file, or through a name the
    project re-exports."""
    for base in cls.bases:
        local = resolver.definition(base) if isinstance(base, ast.Name) else None
        if isinstance(local, ast.ClassDef):
            if depth < _DEPTH and _data_module(local, resolver, depth + 1):
                return True
            continue
        name = resolver.qualname(base)
        if name is not None and name not in _DATA_MODULES and resolver.project is not None and resolver.module_name:
            name = resolver.project.external(name, resolver.module_name)   # re-exported by the project
        if name in _DATA_MODULES:
            return True
    return False


def asserts_host(function: object) -> bool:
    """``function`` (a def) states that its tensors are on the CPU before its work: ``assert x.device ==
    torch.device("cpu")``, ``assert x.device.type == "cpu"``, ``assert not x.is_cuda``, ``assert x.is_cpu``, or
    ``if x.device.type != "cpu": raise ...`` among the checks it starts with (an op of a host library, Open3D's or a C++
    extension's, that has no accelerator kernel). Everything it runs runs on the host: no shape of it reaches the
    NPU's graphs. Asked for every NPU4xx finding (``FileContext.report``)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    devices: set[str] = set()   # ``device = points.device``: the names the function binds to a tensor's device
    for statement in function.body:   # its leading checks: before any work (not a test's check after a move)
        guard = isinstance(statement, ast.If) and not statement.orelse and bool(statement.body) \
            and isinstance(statement.body[-1], ast.Raise)
        if isinstance(statement, ast.Assert) and _states_cpu(statement.test, True, devices):
            return True
        if guard and _states_cpu(statement.test, False, devices):   # type: ignore[attr-defined]
            return True
        if isinstance(statement, ast.Assign):
            if not isinstance(statement.value, (ast.Attribute, ast.Name, ast.Constant)):
                return False
            if len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) \
                    and _device_read(statement.value, frozenset()):
                devices.add(statement.targets[0].id)
        elif not (guard or isinstance(statement, (ast.Assert, ast.Import, ast.ImportFrom))
                  or (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))):
            return False
    return False


def _states_cpu(test: ast.AST, holds: bool, devices: set[str]) -> bool:
    """``test`` says (``holds``) or denies (not ``holds``) that a tensor is on the CPU (``devices``: local names
    of a tensor's device)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _states_cpu(test.operand, not holds, devices)
    if isinstance(test, ast.BoolOp):   # ``assert a.is_cpu and b.is_cpu``; ``if a.is_cuda or b.is_cuda: raise``
        joined = isinstance(test.op, ast.And) if holds else isinstance(test.op, ast.Or)
        return joined and any(_states_cpu(value, holds, devices) for value in test.values)
    if isinstance(test, ast.Attribute) and test.attr in ("is_cpu", "is_cuda"):
        return (test.attr == "is_cpu") == holds
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = test.ops[0]
        if not isinstance(op, (ast.Eq, ast.NotEq)):
            return False
        sides = (test.left, test.comparators[0])
        if not any(_cpu_literal(side) for side in sides) or not any(_device_read(side, devices) for side in sides):
            return False
        return isinstance(op, ast.Eq) == holds
    return False


def _cpu_literal(node: ast.AST) -> bool:
    """``"cpu"`` or ``torch.device("cpu")``."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and isinstance(node.func, ast.Attribute) and node.func.attr == "device":
        node = node.args[0]
    return isinstance(node, ast.Constant) and node.value == "cpu"


def _device_read(node: ast.AST, devices: "set[str] | frozenset[str]") -> bool:
    """``x.device``, ``x.device.type``, ``str(x.device)`` (or a name in ``devices`` bound to ``x.device``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Attribute) and node.attr == "type":
        node = node.value
    return (isinstance(node, ast.Attribute) and node.attr == "device") \
        or (isinstance(node, ast.Name) and node.id in devices)


# Calls a loop of host work makes: Python's builtins and a list's own methods.
_HOST_BUILTINS = frozenset({"range", "len", "min", "max", "abs", "int", "float", "round", "enumerate", "zip", "list",
                            "tuple", "str", "print", "divmod", "sum", "sorted", "reversed"})
_LIST_METHODS = frozenset({"append", "extend", "insert"})


def tensor_work(comprehension: ast.AST, resolver: "Resolver") -> bool:
    """The element or a filter of ``comprehension`` evidently runs torch work: it reads a value the model knows as a
    tensor (``idx == i`` of a tensor parameter) or calls torch (``torch.zeros(k)``). Asked by NPU403 before it
    counts a comprehension over ``range(n)`` as a loop (unknown names and numpy work are no device work)."""
    parts = ([comprehension.key, comprehension.value] if isinstance(comprehension, ast.DictComp)
             else [comprehension.elt] if isinstance(comprehension, (ast.ListComp, ast.SetComp, ast.GeneratorExp))
             else [])
    parts += [test for generator in getattr(comprehension, "generators", ()) for test in generator.ifs]
    for node in (n for part in parts for n in walk(part)):
        if isinstance(node, ast.Call):
            name = resolver.qualname(node.func)
            if name is not None and name.startswith("torch."):
                return True
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) \
                and resolver.kind_of(node) in K.TENSORS:
            return True
    return False


def host_only_loop(loop: ast.AST, resolver: "Resolver") -> bool:
    """The body of ``loop`` (its nested loops too) runs no torch work: it calls only Python's builtins and list
    methods (``cells.append([i, j, k])``) and reads only the loops' counters and values the model knows as Python
    lists or host data (a value of unknown kind may be a tensor). How
    many times it runs changes no operator the device runs (what the list becomes is judged where it is made into a
    tensor). Asked by NPU403 before it reports a loop count taken from a tensor's value."""
    if not isinstance(loop, (ast.For, ast.While)):
        return False
    function = resolver.current.node if resolver.current is not None else None   # counters of enclosing loops too
    counters = {name.id for outer in walk(function if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                                          else loop)
                if isinstance(outer, ast.For) and _counted(outer.iter)
                for name in walk(outer.target) if isinstance(name, ast.Name)}
    called = set()
    for statement in loop.body + loop.orelse:
        for node in walk(statement):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name):
                    if func.id not in _HOST_BUILTINS or resolver.binding(func) is not None:
                        return False
                    called.add(id(func))
                elif not (isinstance(func, ast.Attribute) and func.attr in _LIST_METHODS
                          and resolver.kind_of(func.value) == K.LIST):
                    return False
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in called \
                    and node.id not in counters and resolver.kind_of(node) not in (K.LIST, K.HOST) \
                    and not _python_number_name(node, resolver) and not _python_container_name(node, resolver) \
                    and not _read_to_host(node, resolver):
                return False   # only counters, numbers and Python lists: a value of unknown kind may be a tensor
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Await, ast.Yield,
                                   ast.YieldFrom)):
                return False
    return True


def _python_number_name(name: ast.Name, resolver: "Resolver") -> bool:
    """Every binding reaching ``name`` gives a Python number by its look (``n = max(int(t.max()), 1)``)."""
    if resolver.scopes is None:
        return False
    bindings = resolver.scopes.lookup_reaching(name.id, resolver.current, (name.lineno, name.col_offset))
    return bool(bindings) and all(b.tag == "value" and not b.path and isinstance(b.value, ast.AST)
                                  and _number(b.value) for b in bindings)


def _python_container_name(name: ast.Name, resolver: "Resolver") -> bool:
    """Every binding reaching ``name`` makes a Python dict or set (``pair_to_idx = {}``, ``seen = set()``): the loop
    fills a host container (session 25, values25: gliner's map of entity pairs, counted by a read)."""
    if resolver.scopes is None:
        return False
    bindings = resolver.scopes.lookup_reaching(name.id, resolver.current, (name.lineno, name.col_offset))
    return bool(bindings) and all(b.tag == "value" and not b.path and isinstance(b.value, ast.AST) and (
        isinstance(b.value, (ast.Dict, ast.Set, ast.DictComp, ast.SetComp)) or (
            isinstance(b.value, ast.Call) and isinstance(b.value.func, ast.Name) and b.value.func.id in ("dict", "set")
            and resolver.binding(b.value.func) is None)) for b in bindings)


def _read_to_host(name: ast.Name, resolver: "Resolver") -> bool:
    """The name holds only values already read back to the host (``n = counts_cpu[i]`` of ``counts.tolist()``): a
    Python number or list, whatever the loop then does with it on the host."""
    found = resolver.flows(name)
    return bool(found) and all(flavour == "host" for flavour, _ in found)


def _number(node: ast.AST) -> bool:
    """A Python number by its look, also ``max(int(x), 1)`` / ``min(...)`` of such numbers."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("max", "min") \
            and len(node.args) >= 2 and not node.keywords:
        return all(_number(arg) for arg in node.args)
    return python_number(node)


def _counted(iterable: ast.AST) -> bool:
    """``range(...)``: the loop's target is a Python int."""
    return isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"
