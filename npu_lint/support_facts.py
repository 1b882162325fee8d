"""Per-release support verdicts (rule_tables/support/<release>.tsv) and the dtypes code visibly uses."""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.bindings import VALUE
from npu_lint.analysis.kinds import AUTOGRAD, CPU_TENSOR, DISTRIBUTION, HOST, INSTANCE, TENSORS
from npu_lint.tables import TABLES_DIR, keyed, read_tsv

if TYPE_CHECKING:
    from npu_lint.context import FileContext

# torch dtype attribute -> the token the vendor lists use.
DTYPE_TOKENS = {
    "float64": "fp64", "double": "fp64", "float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16",
    "bfloat16": "bf16", "int64": "int64", "long": "int64", "int32": "int32", "int": "int32", "int16": "int16",
    "short": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool", "complex64": "complex64",
    "cfloat": "complex64", "complex128": "complex128", "cdouble": "complex128",
}
# Tensor casting methods -> dtype token.
CAST_METHODS = {"double": "fp64", "float": "fp32", "half": "fp16", "bfloat16": "bf16", "long": "int64",
                "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool",
                "cfloat": "complex64", "cdouble": "complex128"}


@lru_cache(maxsize=None)
def support_table(release: str) -> dict[str, dict[str, str]]:
    """The verdicts for one torch-npu release (empty when the release has no support table)."""
    name = f"support/{release}.tsv"
    if not (TABLES_DIR / name).is_file():
        return {}
    return keyed(name, "api")


# Where a torch class's methods are listed when the class itself has no row for them.
_METHOD_OWNERS = {"module": ("torch.nn.Module",), "optimizer": ("torch.optim.Optimizer",),
                  "scheduler": ("torch.optim.lr_scheduler.LRScheduler", "torch.optim.lr_scheduler._LRScheduler"),
                  "loader": ("torch.utils.data.DataLoader",), "dataset": ("torch.utils.data.Dataset",),
                  "scaler": ("torch.amp.GradScaler",), "sampler": ("torch.utils.data.Sampler",),
                  AUTOGRAD: ("torch.autograd.Function",), DISTRIBUTION: ("torch.distributions.distribution.Distribution",)}


def method_api(node: ast.Call, ctx: "FileContext") -> Optional[str]:
    """The API a method call reaches, named by its receiver's class: ``torch.Tensor.<name>`` on an evident
    tensor, ``torch.optim.Adam.step`` on an ``Adam``, ``torch.nn.Module.to`` on a model (a project class
    deriving from ``nn.Module`` included). None for host arrays and receivers of unknown kind."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return None
    if _is_super(func.value) and not func.attr.startswith("__"):   # ``super().forward(x)``; not ``__init__``
        named = func.value.args[0].id if func.value.args and isinstance(func.value.args[0], ast.Name) else None
        found = ctx.resolver.super_owners(func.attr, named) if named or not func.value.args else None
        return class_method_api(found[0], found[1], func.attr, ctx.target.release, found[1][0].startswith("torch.")) \
            if found is not None else None
    cls_value = ctx.resolver.class_reference(func.value) \
        if func.attr in _CLASS_CALLED and isinstance(func.value, (ast.Name, ast.Attribute)) else None
    if cls_value is not None and cls_value[0] == AUTOGRAD and cls_value[1]:   # ``MyFn.apply(x)``
        classes = ctx.resolver.method_owners(cls_value[1], func.attr)
        return class_method_api(AUTOGRAD, classes, func.attr, ctx.target.release) if classes else None
    if ctx.resolver.qualname(func) is not None:
        return None
    value = ctx.resolver.value_of(func.value)
    if value is None:
        return None
    kind, cls = value
    if kind in TENSORS or (kind == HOST and cls == CPU_TENSOR):   # ``t.cpu().numpy()``: a tensor's method
        # a method no tensor has (``self.value.append(v)`` on a state annotated ``Tensor`` that holds a list,
        # ``m.astype``: numpy's)
        return "torch.Tensor." + func.attr if func.attr in tensor_methods() else None
    if cls is None:   # e.g. an optimizer whose class depends on a branch: named by the torch base class
        return class_method_api(kind, (), func.attr, ctx.target.release) \
            if func.attr in base_methods(kind) or func.attr in _UNLISTED_METHODS.get(kind, {}) else None
    classes = ctx.resolver.method_owners(cls, func.attr)
    if kind == DISTRIBUTION:   # ``torch.distributions.Normal`` is listed as ``torch.distributions.normal.Normal``
        classes = tuple(listed_class(c) for c in classes)
    return class_method_api(kind, classes, func.attr, ctx.target.release, cls.startswith("torch.")) if classes else None


def _is_super(node: ast.AST) -> bool:
    """``super()`` or ``super(Cls, self)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def aliased_apply(func: ast.Name, ctx: "FileContext") -> Optional[str]:
    """``sparsemax(x)`` after ``sparsemax = SparsemaxFunction.apply``: the autograd Function's ``apply``."""
    binding = ctx.resolver.binding(func)
    value = binding.value if binding is not None and binding.tag == VALUE else None
    if not (isinstance(value, ast.Attribute) and value.attr == "apply" and isinstance(value.value, ast.Name)):
        return None
    cls_value = ctx.resolver.class_reference(value.value, binding.scope)
    if cls_value is None or cls_value[0] != AUTOGRAD or not cls_value[1]:
        return None
    classes = ctx.resolver.method_owners(cls_value[1], "apply")
    return class_method_api(AUTOGRAD, classes, "apply", ctx.target.release) if classes else None


@lru_cache(maxsize=None)
def _listed_classes() -> dict[str, str]:
    """``torch.distributions.Normal`` -> ``torch.distributions.normal.Normal``: where the tables list a class."""
    found: dict[str, str] = {}
    for row in read_tsv("class_methods.tsv"):
        head, _, last = row["class"].rpartition(".")
        if head.count(".") == 2:   # torch.<package>.<module>.Class
            found.setdefault(f"{head.rpartition('.')[0]}.{last}", row["class"])
    return found


def listed_class(cls: str) -> str:
    return _listed_classes().get(cls, cls)


def class_method_api(kind: str, classes: tuple[str, ...], method: str, release: str,
                     torch_instance: bool = False) -> Optional[str]:
    """``<class>.<method>`` as the support table lists it (the class, then the torch base that defines it);
    a method no table of this release lists, but some release lists for a class of the same kind
    (``StepLR.step``: the schedulers' ``step``), is named on the nearest class, with no verdict; so is any public
    method of an instance of a torch class (``torch_instance``: ``SummaryWriter(...).add_scalar``)."""
    table = support_table(release)
    owners = classes + _METHOD_OWNERS.get(kind, ())
    for owner in owners:
        if f"{owner}.{method}" in table:
            return f"{owner}.{method}"
    if owners and method in kind_methods(kind):
        if kind == "module" and (not classes or classes[0] == "torch.nn.Module") and method in container_methods():
            return None   # a module of unknown class (``-> nn.Module``): ``nn.ModuleDict.update`` is not its method
        return f"{owners[0]}.{method}"
    if torch_instance and kind in (INSTANCE, DISTRIBUTION) and classes \
            and not method.startswith("_") and method not in AMBIGUOUS_METHODS:
        return f"{classes[0]}.{method}"   # a torch class's instance: whatever it calls is that class's method
    defined = _UNLISTED_METHODS.get(kind, {}).get(method)
    if defined is not None:   # a torch method no table lists: named on the receiver's class, else where torch defines it
        return f"{classes[0] if classes else defined}.{method}"
    return None


_CLASS_CALLED = frozenset({"apply", "forward", "backward"})   # called on an autograd Function class itself

# Methods of torch classes that no support table lists, with the torch class that defines them.
_UNLISTED_METHODS = {AUTOGRAD: {"apply": "torch.autograd.Function"},
                     "sampler": {"set_epoch": "torch.utils.data.distributed.DistributedSampler"}}


@lru_cache(maxsize=None)
def tensor_methods() -> frozenset[str]:
    """Every method a torch tensor has: those any release's support table lists, and a few it never did."""
    return owner_methods("torch.Tensor") | {"new", "resize", "const_data_ptr", "map2_", "module_load", "xpu", "ipu",
                                            "mtia", "is_nested", "grad_fn", "is_leaf"}


@lru_cache(maxsize=None)
def container_methods() -> frozenset[str]:
    """Methods of torch's module containers (``ModuleDict.update``, ``ModuleList.append``) ``nn.Module`` lacks."""
    found: set[str] = set()
    for owner in ("torch.nn.ModuleDict", "torch.nn.ModuleList", "torch.nn.ParameterDict", "torch.nn.ParameterList",
                  "torch.nn.Sequential"):
        found |= owner_methods(owner)
    return frozenset(found - owner_methods("torch.nn.Module"))


@lru_cache(maxsize=None)
def owner_methods(owner: str) -> frozenset[str]:
    """The methods any release's support table lists for one torch class (``ModuleDict.update`` is no
    ``nn.Module``'s)."""
    return frozenset(method for row in read_tsv("class_methods.tsv") if row["class"] == owner
                     for method in row["methods"].split())


# The torch classes whose methods (in class_methods.tsv) belong to each kind's instances.
_KIND_CLASSES = {"module": ("torch.nn.",), "optimizer": ("torch.optim.",), "scheduler": ("torch.optim.lr_scheduler.",),
                 "scaler": ("torch.cuda.amp.GradScaler", "torch.amp.GradScaler"),
                 "loader": ("torch.utils.data.DataLoader",), "dataset": ("torch.utils.data.",),
                 "sampler": ("torch.utils.data.",), AUTOGRAD: ("torch.autograd.Function",),
                 DISTRIBUTION: ("torch.distributions.",)}


@lru_cache(maxsize=None)
def kind_methods(kind: str) -> frozenset[str]:
    """The methods any release's support table lists for a torch class of this kind (rule_tables/class_methods.tsv)."""
    prefixes = _KIND_CLASSES.get(kind)
    if prefixes is None:
        return frozenset()
    found: set[str] = set()
    for row in read_tsv("class_methods.tsv"):
        owner = row["class"]
        if owner.startswith(prefixes) and (kind != "optimizer" or "lr_scheduler" not in owner) \
                and (kind != "dataset" or owner.endswith(("Dataset", "Subset"))) \
                and (kind != "sampler" or owner.endswith("Sampler")) and (kind != AUTOGRAD or owner.endswith("Function")):
            found.update(row["methods"].split())
    return frozenset(found)


@lru_cache(maxsize=None)
def base_methods(kind: str) -> frozenset[str]:
    """The methods of the torch base class of a kind (``torch.nn.Module``, ``torch.optim.Optimizer``): what a
    receiver of that kind but of no one known class surely has (``ModuleDict.items`` is not among them: the
    receiver may be a project module defining its own ``items``)."""
    owners = _METHOD_OWNERS.get(kind, ())
    found: set[str] = set()
    for row in read_tsv("class_methods.tsv"):
        if row["class"] in owners or (kind == "scaler" and row["class"].endswith(".GradScaler")):
            found.update(row["methods"].split())
    return frozenset(found) if found else kind_methods(kind)


def dtype_token(node: ast.AST, ctx: "FileContext") -> Optional[str]:
    """``fp64`` for ``torch.float64`` / ``torch.double``; None for anything else."""
    name = ctx.resolver.qualname(node)
    if name and name.startswith("torch."):
        return DTYPE_TOKENS.get(name[len("torch."):])
    return None


def visible_dtypes(call: ast.Call, ctx: "FileContext") -> list[tuple[ast.AST, str]]:
    """dtypes the call visibly uses: a ``dtype=`` argument, or a cast right on its receiver or an argument
    (``x.double().matmul(y)``, ``torch.matmul(a.to(torch.float64), b)``)."""
    found = [(kw.value, token) for kw in call.keywords if kw.arg == "dtype"
             for token in [dtype_token(kw.value, ctx)] if token]
    operands = list(call.args)
    if isinstance(call.func, ast.Attribute):
        operands.append(call.func.value)
    for operand in operands:
        token = cast_token(operand, ctx)
        if token:
            found.append((operand, token))
    return found


def cast_token(node: ast.AST, ctx: "FileContext") -> Optional[str]:
    """The dtype a cast expression produces: ``x.double()``, ``x.to(torch.float64)``, ``x.type(torch.half)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    method = node.func.attr
    if method in CAST_METHODS and not node.args and not node.keywords:
        return CAST_METHODS[method]
    if method in ("to", "type") and node.args:
        return dtype_token(node.args[0], ctx)
    return None


# Tensor method names that str, list, dict, set or nn.Module also have: a call of one of these on a receiver
# of unknown type is not counted as a torch API reference (numpy-style names are, in files that use torch).
AMBIGUOUS_METHODS = frozenset({
    "split", "index", "count", "copy", "sort", "type", "apply", "values", "T", "data", "real", "imag", "ndim",
    "shape", "eval", "train", "new", "update", "format", "join", "items", "keys", "get", "pop", "append",
    "extend", "insert", "remove", "clear", "add", "set_", "share_memory", "register_hook",
    "absolute", "rename",   # pathlib.Path has them too
})


# numpy.ndarray's methods (numpy 2.x): in a file that uses numpy, one of these on a receiver of unknown kind may
# be numpy's as well as torch's.
NDARRAY_METHODS = frozenset({
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "byteswap", "choose", "clip", "compress",
    "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot", "dump", "dumps", "fill", "flatten",
    "getfield", "item", "max", "mean", "min", "nonzero", "partition", "prod", "put", "ravel", "repeat", "reshape",
    "resize", "round", "searchsorted", "setfield", "setflags", "sort", "squeeze", "std", "sum", "swapaxes", "take",
    "tobytes", "tofile", "tolist", "trace", "transpose", "var", "view",
})


@lru_cache(maxsize=None)
def tensor_method_names(release: str) -> frozenset[str]:
    """Method names the support table knows as ``torch.Tensor.<name>`` and no other torch class has
    (``nn.Module`` has ``to``, ``half``, ``float``, ``cuda``: on a receiver of unknown kind those say nothing)."""
    def methods(prefix: str) -> set[str]:
        return {api[len(prefix):] for api in support_table(release) if api.startswith(prefix)
                and "." not in api[len(prefix):]}
    return frozenset(methods("torch.Tensor.") - methods("torch.nn.Module.") - methods("torch.optim.Optimizer."))


def probable_method_api(node: ast.Call, ctx: "FileContext") -> Optional[str]:
    """``torch.Tensor.<name>`` for a call of an unambiguous tensor method on a receiver of unknown type
    (``bbox_pred.permute(0, 2, 3, 1)``): counted in the report's API inventory, never reported as a finding."""
    func = node.func
    if (ctx.uses_torch and isinstance(func, ast.Attribute) and func.attr not in AMBIGUOUS_METHODS
            and not (func.attr in NDARRAY_METHODS and ctx.mentions("numpy"))
            and ctx.resolver.kind_of(func.value) is None
            and func.attr in tensor_method_names(ctx.target.release) and ctx.resolver.qualname(func) is None
            and not (isinstance(func.value, ast.Name) and func.value.id in ("self", "cls", "super"))
            and ctx.resolver.imported_alias(func.value) is None
            and not (isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
                     and func.value.func.id == "super")
            and not any(value[0] != HOST or func.attr in NDARRAY_METHODS   # ``b = Boxes(x) if c else x``: maybe
                        for value in ctx.resolver.other_values(func.value))):   # the other value's method
        return "torch.Tensor." + func.attr
    return None
