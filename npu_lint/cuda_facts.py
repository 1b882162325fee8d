"""Lookups and code-shape tests shared by the NPU2xx rules (the facts are in rule_tables/cuda_*.tsv)."""
from __future__ import annotations

import ast
import os
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Optional

from npu_lint.tables import keyed
from npu_lint.versions import since_key

if TYPE_CHECKING:
    from npu_lint.context import FileContext

# Names under these prefixes are CUDA usage even when the table has no row for them.
_PREFIX_GROUPS = (("torch.cuda.amp.", "amp"), ("torch.cuda.nvtx.", "nvtx"), ("torch.cuda.profiler.", "nvtx"),
                  ("torch.cuda.", "cuda"), ("torch.backends.cudnn.", "backends_cudnn"),
                  ("torch.backends.cuda.", "backends_cuda"))
_DEVICE = re.compile(r"^cuda(?::\d*)?$")
_DEVICE_TEMPLATE = re.compile(r"^cuda:(?:%[ds]|\{\w*\})$")   # 'cuda:%d' % i, 'cuda:{}'.format(i)
# Bare modules: ``device_mod = torch.cuda``, ``monkeypatch.setattr(torch.backends.cudnn, ...)``.
_MODULES = {"torch.cuda": ("cuda", "torch_npu.npu"), "torch.backends.cuda": ("backends_cuda", ""),
            "torch.backends.cudnn": ("backends_cudnn", "")}
_EXTENSION_MODULE = re.compile(r"(?:^|_)cuda(?:_ext|_kernels?|_ops?)?$")
_ENV_CALLS = frozenset({"getenv", "putenv", "unsetenv", "setenv", "delenv"})
_ENV_METHODS = frozenset({"get", "setdefault", "pop"})
COMPARE, AMP, PATH, KEY, TYPE, OTHER = "compare", "amp", "path", "key", "type", "other"
_DEVICE_TYPES = frozenset({"cpu", "xpu", "mps", "npu", "hpu", "mlu", "musa", "xla", "meta", "default"})
_KEY_METHODS = frozenset({"get", "pop", "setdefault"})
_ATTRIBUTE_CALLS = frozenset({"getattr", "hasattr", "setattr", "delattr"})
_PATH_CALLS = frozenset({"os.path.join", "pathlib.Path", "pathlib.PurePath", "glob.glob", "glob.iglob"})


@lru_cache(maxsize=8192)
def api_row(qualname: str) -> Optional[dict[str, str]]:
    """The cuda_apis.tsv row for a name used as CUDA usage by itself, or None.

    Longer names fall back to their nearest listed prefix (``torch.cuda.Stream.synchronize``
    -> ``torch.cuda.Stream``); unlisted names under ``torch.cuda.`` and the cuDNN/CUDA
    backends get a generic row.
    """
    table = keyed("cuda_apis.tsv", "api")
    if qualname.startswith("torch.torch."):   # the torch module is an attribute of itself: ``torch.torch.cuda``
        qualname = qualname[len("torch."):]
    name = qualname
    while "." in name:
        row = table.get(name)
        if row is not None:
            return row if row["trigger"] == "name" else None
        name = name.rsplit(".", 1)[0]
    if qualname in _MODULES:
        group, npu = _MODULES[qualname]
        return {"api": qualname, "group": group, "trigger": "name", "status": "module",
                "npu_equivalent": npu, "since": "", "note": "", "source": ""}
    for prefix, group in _PREFIX_GROUPS:
        if qualname.startswith(prefix):
            return {"api": qualname, "group": group, "trigger": "name", "status": "unlisted",
                    "npu_equivalent": "", "since": "", "note": "", "source": ""}
    if "." in qualname and cuda_named(qualname) and library_row(qualname) is None:
        # a library's (or torch's) own name for a CUDA thing: ``torch.version.cuda``, ``torch._C._cuda_getDeviceCount``,
        # ``pytorch_lightning.accelerators.cuda.CUDAAccelerator``; the CUDA-only libraries of cuda_libraries.tsv are
        # NPU216 / NPU217's
        status = "unlisted" if qualname.startswith("torch.") else LIBRARY
        return {"api": qualname, "group": "cuda", "trigger": "name", "status": status,
                "npu_equivalent": "", "since": "", "note": NAMED, "source": ""}
    return None


NAMED = "named by its words"   # api_row note of a row no table gives (``cuda_named``)
LIBRARY = "library"   # api_row status: a name outside torch whose module or own name says CUDA (not in the table)
# the words that name a CUDA component in a module or API name (``accelerators.cuda``, ``CUDAAccelerator``,
# ``is_cuda_available``, ``cudnn``, ``nccl``): CUDA's own libraries, never a word of another backend
_CUDA_WORDS = frozenset({"cuda", "cudnn", "cublas", "cufft", "curand", "cusparse", "cusolver", "cudart", "nvrtc", "nccl",
                         "nvtx", "nvml", "nvidia"})
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@lru_cache(maxsize=8192)
def cuda_named(qualname: str) -> bool:
    """A dotted name with a CUDA word among the words of its parts (``snake_case`` and ``CamelCase`` split:
    ``CUDAAccelerator`` -> CUDA, Accelerator; ``is_cuda_available`` -> is, cuda, available); not ``torch.Tensor.cuda``
    / ``is_cuda``, nor a torch class's ``cuda`` / ``is_cuda`` (``torch.TypedStorage.is_cuda``: a tensor's, module's or
    storage's method, NPU203 / NPU204, and the support tables' NPU101)."""
    parts = qualname.split(".")
    if parts[-1] in ("cuda", "is_cuda") and len(parts) > 2 and qualname.startswith("torch.") and (
            qualname.startswith(("torch.Tensor.", "torch.nn.")) or parts[-2][:1].isupper()):
        return False
    return any(word.lower() in _CUDA_WORDS for part in parts for word in _WORD.findall(part))


def defined_here(qualname: str, ctx: "FileContext") -> bool:
    """A library's CUDA wrapper (a cuda_apis.tsv row outside torch: ``classy_vision.generic.util.copy_model_to_gpu``)
    used inside the library itself (a module of the same top-level package, where the project index defines it): the
    library's own function, whose body is reported where it does the CUDA work. A project that vendors the library
    beside its own package still has its calls reported."""
    return not qualname.startswith("torch.") and ctx.project is not None \
        and qualname.split(".", 1)[0] == ctx.module.split(".", 1)[0] \
        and ctx.project.defines(qualname, ctx.module) is not None


def argument_api(qualname: Optional[str]) -> Optional[dict[str, str]]:
    """The row of a device-generic API that is CUDA only through an argument (``torch.autocast``)."""
    if qualname is None:
        return None
    row = keyed("cuda_apis.tsv", "api").get(qualname)
    return row if row is not None and row["trigger"] == "argument" else None


def default_device(qualname: Optional[str]) -> Optional[dict[str, str]]:
    """The cuda_default_devices.tsv row of a device-generic API whose device parameter defaults to CUDA
    (``torch.amp.GradScaler``), else None."""
    return keyed("cuda_default_devices.tsv", "api").get(qualname) if qualname else None


def construct_since(row_id: str) -> str:
    return keyed("cuda_constructs.tsv", "row_id")[row_id]["since"]


def handled(since: str, ctx: "FileContext") -> bool:
    """True when the target torch-npu release is at or after ``since``."""
    return bool(since) and ctx.target.key >= since_key(since)


# -- strings ---------------------------------------------------------------------------------
def is_docstring(node: ast.AST, ctx: "FileContext") -> bool:
    return isinstance(ctx.parent(node), ast.Expr)


def is_device_string(node: ast.AST, ctx: "FileContext") -> bool:
    """``'cuda'``, ``'cuda:0'``, an f-string starting ``cuda:`` or a formatted one (``'cuda:%d' % i``,
    ``'cuda:{}'.format(i)``)."""
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, str) or isinstance(ctx.parent(node), ast.JoinedStr):
            return False
        if _DEVICE.match(node.value) is not None:
            return True
        if _DEVICE_TEMPLATE.match(node.value) is None:
            return False
        parent = ctx.parent(node)
        return (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mod) and parent.left is node) or (
            isinstance(parent, ast.Attribute) and parent.attr == "format" and isinstance(ctx.parent(parent), ast.Call))
    if isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        return isinstance(head, ast.Constant) and isinstance(head.value, str) and (
            head.value.startswith("cuda:") or (head.value == "cuda" and len(node.values) == 1))
    return False


def is_nccl_string(node: ast.AST) -> bool:
    value = node.value if isinstance(node, ast.Constant) else None
    if not isinstance(value, str) or len(value) > 64:
        return False
    return "nccl" in (token.strip().lower() for token in re.split(r"[,:]", value))


def string_use(node: ast.AST, ctx: "FileContext") -> str:
    """Where a string sits: a comparison (``COMPARE``), an AMP device type (``AMP``), a type (``TYPE``: an
    annotation, ``Literal["cpu", "cuda"]``) or else ``OTHER``."""
    parent = ctx.parent(node)
    if in_type(node, ctx):
        return TYPE
    if isinstance(parent, ast.Compare):
        return COMPARE
    if isinstance(parent, (ast.List, ast.Tuple, ast.Set)):
        outer = ctx.parent(parent)
        if isinstance(outer, ast.Compare) and parent in outer.comparators:
            return COMPARE
        if _is_prefix_test(outer):
            return COMPARE
    if _is_prefix_test(parent) and node in parent.args:
        return COMPARE
    if _is_path(parent, ctx):
        return PATH
    if _is_key(node, parent):
        return KEY
    call, keyword = parent, None
    if isinstance(parent, ast.keyword):
        keyword, call = parent.arg, ctx.parent(parent)
    if isinstance(call, ast.Call) and argument_api(ctx.resolver.qualname(call.func)) is not None:
        if keyword in ("device_type", "device") or (keyword is None and call.args and call.args[0] is node):
            return AMP
    return OTHER


_TYPE_PARTS = (ast.Subscript, ast.Tuple, ast.List, ast.BinOp)


def in_type(node: ast.AST, ctx: "FileContext") -> bool:
    """The constant is part of a type, not a value the program uses: it sits in an annotation (of a parameter, a
    variable, a return) or inside ``Literal[...]`` (also a type alias, ``Device = Literal["cpu", "cuda"]``). Only the
    value given to the annotated name (a default, an assignment) or a runtime test uses the device."""
    child, parent = node, ctx.parent(node)
    while isinstance(parent, _TYPE_PARTS):
        if isinstance(parent, ast.Subscript):
            if parent.value is child:
                return False
            head = ctx.resolver.qualname(parent.value) or getattr(parent.value, "attr", getattr(parent.value, "id", ""))
            if head.rsplit(".", 1)[-1] == "Literal":
                return True
        if isinstance(parent, ast.BinOp) and not isinstance(parent.op, ast.BitOr):
            return False
        child, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.arg):
        return parent.annotation is child
    if isinstance(parent, ast.AnnAssign):
        return parent.annotation is child
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return parent.returns is child
    return False


def _is_key(node: ast.AST, parent: Optional[ast.AST]) -> bool:
    """A mapping key or an attribute name, not a device: ``{"cuda": True}``, ``cfg["cuda"]``,
    ``cfg.get("cuda", False)``, ``getattr(args, "cuda")``. A ``'cuda:N'`` key of a dict stays a device
    (``map_location={"cuda:1": "cuda:0"}``), and so does the key of a table keyed by device type
    (``{"cuda": torch.cuda.empty_cache, "cpu": None}``: on NPU the lookup needs an ``"npu"`` entry)."""
    if isinstance(parent, ast.Dict):
        return isinstance(node, ast.Constant) and node.value == "cuda" and any(k is node for k in parent.keys) \
            and not any(isinstance(k, ast.Constant) and k.value in _DEVICE_TYPES for k in parent.keys)
    if isinstance(parent, ast.Subscript):
        return parent.slice is node
    if isinstance(parent, ast.Call) and len(parent.args) >= 1:
        func = parent.func
        if isinstance(func, ast.Attribute) and func.attr in _KEY_METHODS:
            return parent.args[0] is node
        if isinstance(func, ast.Name) and func.id in _ATTRIBUTE_CALLS:
            return len(parent.args) >= 2 and parent.args[1] is node
    return False


def _is_path(node: Optional[ast.AST], ctx: "FileContext") -> bool:
    """A path component: ``os.path.join(root, "cuda", ...)``, ``Path(...) / "cuda"``, ``.joinpath("cuda")``."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Div)
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("joinpath", "join") \
            and not (isinstance(node.func.value, ast.Constant)):   # "sep".join(...) is not a path
        return ctx.resolver.qualname(node.func) in (None, "os.path.join") or node.func.attr == "joinpath"
    return ctx.resolver.qualname(node.func) in _PATH_CALLS


def _is_prefix_test(node: Optional[ast.AST]) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith"))


# -- environment variables -------------------------------------------------------------------
@lru_cache(maxsize=4096)
def env_var_row(name: str) -> Optional[dict[str, str]]:
    table = keyed("cuda_env_vars.tsv", "name")
    if name in table:
        return table[name]
    for prefix in env_prefixes():   # the table's ``NCCL_*`` / ``CUDA_*`` rows, longest first
        if name.startswith(prefix) and len(name) > len(prefix):
            return table[prefix + "*"]
    return None


@lru_cache(maxsize=1)
def env_prefixes() -> tuple[str, ...]:
    """The prefixes of the table's wildcard rows (``NCCL_*`` -> ``NCCL_``), longest first: a name under one belongs
    to a CUDA-only component (``CUDA_MODULE_LOADING``, ``NCCL_IB_DISABLE``) though the table does not list it."""
    names = keyed("cuda_env_vars.tsv", "name")
    return tuple(sorted((n[:-1] for n in names if n.endswith("*")), key=len, reverse=True))


def is_env_use(node: ast.AST, ctx: "FileContext", anywhere: bool = False) -> bool:
    """The string is a key of the process environment: ``os.environ[...]``, ``os.getenv(...)``, ``env={...}``.
    ``anywhere``: ``node`` may lie further down the file than the walk has reached."""
    parent = ctx.parent_anywhere(node) if anywhere else ctx.parent(node)
    if isinstance(parent, ast.FormattedValue) and parent.conversion == -1 and parent.format_spec is None:
        joined = ctx.parent_anywhere(parent) if anywhere else ctx.parent(parent)
        if isinstance(joined, ast.JoinedStr) and len(joined.values) == 1:   # ``os.environ[f"{CUDA_ENVVAR}"]``
            node, parent = joined, ctx.parent_anywhere(joined) if anywhere else ctx.parent(joined)
    if isinstance(parent, ast.Subscript):
        return parent.slice is node and _is_environ(parent.value, ctx)
    if isinstance(parent, ast.Compare):
        return any(_is_environ(c, ctx) for c in parent.comparators)
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
        func = parent.func
        if isinstance(func, ast.Attribute):
            if func.attr in _ENV_CALLS:
                return True
            return func.attr in _ENV_METHODS and _is_environ(func.value, ctx)
        return isinstance(func, ast.Name) and ctx.resolver.qualname(func) in ("os.getenv", "os.putenv")
    if isinstance(parent, ast.Dict) and node in parent.keys:
        outer = ctx.parent_anywhere(parent) if anywhere else ctx.parent(parent)
        if isinstance(outer, ast.keyword):
            return outer.arg == "env"
        if isinstance(outer, ast.Call) and isinstance(outer.func, ast.Attribute):
            return outer.func.attr == "update" and _is_environ(outer.func.value, ctx)
        if isinstance(outer, ast.Assign):
            return any(_is_environ(target, ctx) for target in outer.targets)
    return False


def _is_environ(node: ast.AST, ctx: "FileContext") -> bool:
    if isinstance(node, ast.Call):
        node = node.func.value if isinstance(node.func, ast.Attribute) and node.func.attr in ("copy", "keys") \
            else node.func   # ``os.environ.copy()``; ``"CUDA_VISIBLE_DEVICES" in os.environ.keys()``
    if ctx.resolver.qualname(node) == "os.environ":
        return True
    if isinstance(node, ast.Attribute):   # ``os.environ``, a process's or a job's ``replica.env``
        return node.attr == "environ" or "env" in node.attr.lower()
    return isinstance(node, ast.Name) and "env" in node.id.lower()


def named_env_key(node: ast.Constant, ctx: "FileContext") -> Optional[ast.Name]:
    """Where a name bound to the string ``node`` is read as a key of the process environment, else None: the string
    is assigned once to a module-level or local name (``CUDA_ENVVAR = "CUDA_VISIBLE_DEVICES"``) that the code then
    uses as the key (``os.environ[CUDA_ENVVAR] = ids``, ``CUDA_ENVVAR in os.environ``, ``os.environ.get(...)``, an
    f-string of the name alone). Returned: the first such read (in the name's own scope or a nested one that does not
    rebind it). Class attributes (``device_control_env_var = "CUDA_VISIBLE_DEVICES"`` of a platform class) are left
    out: they are read through an object whose class decides the value."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and parent.value is node:
        target = parent.targets[0]
    elif isinstance(parent, ast.AnnAssign) and parent.value is node:
        target = parent.target
    else:
        return None
    scopes = ctx.resolver.scopes
    if not isinstance(target, ast.Name) or scopes is None:
        return None
    owner = ctx.resolver.current
    if owner is None or owner.kind not in ("module", "function") or owner.node is None:
        return None
    bindings = owner.names.get(target.id, ())
    if any(not (isinstance(b.value, ast.Constant) and b.value.value == node.value) for b in bindings):
        return None   # the name holds other values too
    pending = list(ast.iter_child_nodes(owner.node))
    uses = []
    while pending:
        inner = pending.pop()
        inner_scope = scopes.scope_of(inner)
        if inner_scope is not None and target.id in inner_scope.names and target.id not in inner_scope.globals:
            continue   # a nested scope with a name of its own
        if isinstance(inner, ast.Name) and inner.id == target.id and isinstance(inner.ctx, ast.Load):
            uses.append(inner)
        pending.extend(ast.iter_child_nodes(inner))
    return min((use for use in uses if is_env_use(use, ctx, anywhere=True)),
               key=lambda use: (use.lineno, use.col_offset), default=None)


# -- imports -----------------------------------------------------------------------------------
def imported_names(node: ast.AST) -> list[tuple[str, int]]:
    """Full dotted names an import statement brings in, with the relative level."""
    if isinstance(node, ast.Import):
        return [(alias.name, 0) for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        return [(f"{module}.{alias.name}" if module else alias.name, node.level or 0) for alias in node.names]
    return []


@lru_cache(maxsize=4096)
def feature_row(api: str) -> Optional[dict[str, str]]:
    """The cuda_features.tsv row of an API that enters a CUDA-only torch feature (``torch.cuda.CUDAGraph``: CUDA graph
    capture), or None."""
    return keyed("cuda_features.tsv", "api").get(api)


def library_row(name: str) -> Optional[dict[str, str]]:
    """The cuda_libraries.tsv row of the module an imported name belongs to."""
    table = keyed("cuda_libraries.tsv", "module")
    while True:
        if name in table:
            return table[name]
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]


def library_words(code: str) -> tuple[str, ...]:
    """The words a file must contain to use a cuda_libraries.tsv row of ``code``: the top module of a library, the
    name itself of a library's CUDA-only part (``CudaGraphModule`` of ``tensordict.nn``)."""
    rows = keyed("cuda_libraries.tsv", "module").values()
    return tuple(sorted({row["module"].split(".")[0] if row["kind"] == "module" else row["module"].rsplit(".", 1)[-1]
                         for row in rows if row["code"] == code}))


@lru_cache(maxsize=None)
def switch_values() -> frozenset[str]:
    """The setting values of cuda_attention_switches.tsv (``flash_attention_2``): a cheap first test of a string."""
    return frozenset(row["value"] for row in keyed("cuda_attention_switches.tsv", "value").values())


def switch_words() -> tuple[str, ...]:
    """The setting values of cuda_attention_switches.tsv a file must contain to use a row (``reduce-overhead``);
    a flag row's ``True`` is no word (its argument is: ``use_flash_attention_2``)."""
    rows = keyed("cuda_attention_switches.tsv", "value").values()
    return tuple(sorted(row["value"] if row["value"] not in ("True", "False") else row["argument"] for row in rows))


def switch_row(argument: str, value: str) -> Optional[dict[str, str]]:
    """The cuda_attention_switches.tsv row of a library setting that selects CUDA-only kernels
    (``attn_implementation`` = ``flash_attention_2``), else None."""
    for row in keyed("cuda_attention_switches.tsv", "value").values():
        if row["argument"] == argument and row["value"] == value:
            return row
    return None


def is_extension_module(name: str, level: int) -> bool:
    """A compiled CUDA extension: ``nms_cuda``, ``deform_conv_cuda``, or a relative ``_ext`` / ``_C``."""
    if name.split(".", 1)[0] in ("torch", "torch_npu") or library_row(name) is not None:
        return False
    parts = name.split(".")
    tail = parts[-2:] if len(parts) > 1 else parts
    if any(part != "cuda" and _EXTENSION_MODULE.search(part) for part in tail):
        return True
    return level > 0 and any(part in ("_ext", "_C") for part in tail)


def has_cuda_token(name: str) -> bool:
    """``cuda`` is one ``_``-separated word of the module's last two dotted parts (``alt_cuda_corr``,
    ``wkv_cuda_ops``), the bare word ``cuda`` excepted (``numba.cuda``, ``cuda-python``'s ``cuda``)."""
    return any(part != "cuda" and "cuda" in part.split("_") for part in name.split(".")[-2:])


_ABSENCE_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError"})


def guarded_import(node: ast.AST, ctx: "FileContext") -> bool:
    """The import sits in a ``try`` body whose handler catches the module's absence (bare ``except``,
    ``ImportError``, ``Exception``): the project expects the module may not be built on this host."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if isinstance(parent, ast.Try) and any(child is s for s in parent.body):
            return any(_catches_absence(handler.type) for handler in parent.handlers)
        child, parent = parent, ctx.parent(parent)
    return False


def _catches_absence(kind: Optional[ast.expr]) -> bool:
    if kind is None:
        return True
    if isinstance(kind, ast.Tuple):
        return any(_catches_absence(k) for k in kind.elts)
    name = kind.attr if isinstance(kind, ast.Attribute) else kind.id if isinstance(kind, ast.Name) else ""
    return name in _ABSENCE_ERRORS


def is_extension_import(name: str, level: int, node: ast.AST, ctx: "FileContext") -> bool:
    """The import brings in a compiled CUDA extension the project builds: named like one (:func:`is_extension_module`),
    an absolute module with ``cuda`` among its words that the import expects may be missing (a guarded import of
    ``alt_cuda_corr``), or, with the project index at hand, a ``_C`` / ``_ext`` / ``*_cuda_*`` module of the project's
    own package that no Python file defines (``from groundingdino import _C``); never a Python module the project
    itself defines."""
    if name.split(".", 1)[0] in ("torch", "torch_npu") or library_row(name) is not None:
        return False
    if ctx.project is not None and ctx.project.defines("." * level + name, ctx.module) is not None:
        return False
    if ctx.project is not None and ctx.project.declares_extension("." * level + name, ctx.module):
        return True   # a module the project's setup.py builds (``CUDAExtension("DCNv4.ext", ...)``)
    if is_extension_module(name, level):   # (a stat or two only for a name that looks like an extension)
        return not (ctx.project is None and level and _python_beside(name, level, node, ctx))
        #           ``from .triton_ops import median_filter_cuda`` with triton_ops.py beside the file: Python
    if level == 0 and guarded_import(node, ctx) and (has_cuda_token(node.module or "") if isinstance(node, ast.ImportFrom)
                                                    else has_cuda_token(name)):
        return True   # the module's own name: ``from sageattention import sageattn_..._cuda_sm90`` names a function
    # ``from mypkg import _C`` in mypkg's own code: a module of the project's package with no Python source is built
    return level == 0 and ctx.project is not None and ctx.project.holds_package(name, ctx.module) \
        and (has_cuda_token(name) or name.rsplit(".", 1)[-1] in ("_C", "_ext"))


def _python_beside(name: str, level: int, node: ast.AST, ctx: "FileContext") -> bool:
    """With no project index (one file checked, flake8), a relative import whose module is Python source on disk
    beside the file: ``from .triton_ops import median_filter_cuda`` with ``triton_ops.py`` there names a function
    of that file; ``from . import nms_cuda`` with ``nms_cuda.py`` there is that Python module. Only the file
    system is read (a ``stat`` or two), never the module."""
    if not ctx.path:
        return False
    folder = os.path.dirname(os.path.abspath(ctx.path))
    for _ in range(level - 1):
        folder = os.path.dirname(folder)
    path = os.path.join(folder, *name.split("."))
    if os.path.isfile(path + ".py") or os.path.isfile(os.path.join(path, "__init__.py")):
        return True   # the name is a Python module (``from . import nms_cuda`` with nms_cuda.py there)
    # ``from .triton_ops import f``: ``f`` is a name inside the Python file triton_ops.py (a package's ``__init__``
    # may re-export a compiled module: not enough)
    return isinstance(node, ast.ImportFrom) and node.module is not None and "." in name \
        and os.path.isfile(os.path.dirname(path) + ".py")


_LOADERS = frozenset({"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"})


def builds_cuda(call: ast.Call) -> bool:
    """A ``cpp_extension.load`` / ``load_inline`` call compiles CUDA code (``.cu`` sources, ``cuda_sources``)."""
    for keyword in call.keywords:
        if keyword.arg in ("cuda_sources", "extra_cuda_cflags"):
            return not (isinstance(keyword.value, ast.Constant) and keyword.value.value is None)
        if keyword.arg == "with_cuda":
            return isinstance(keyword.value, ast.Constant) and keyword.value.value is True
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.endswith((".cu", ".cuh"))
               for n in ast.walk(call))


def extension_module(node: ast.Name, ctx: "FileContext", depth: int = 0, scope: Optional[Any] = None) -> Optional[str]:
    """The compiled CUDA extension a name stands for where it is read, else None: a name some binding of its scope
    imports as an extension (:func:`is_extension_import`, also when the ``except`` arm rebinds it to None), or
    binds to the module ``cpp_extension.load(name=..., sources=[...cu])`` builds and returns, or to another name
    that is one (``ext_c = exllamav2_ext``, two hands deep). Returned: the module's name as the code writes it."""
    scopes = ctx.resolver.scopes
    if scopes is None:
        return None
    binding = scopes.lookup(node.id, scope or ctx.resolver.current, (node.lineno, node.col_offset))
    if binding is None:
        return None
    owner = next((s for s in (binding.scope, scopes.module) if binding in s.names.get(node.id, ())), binding.scope)
    for candidate in owner.names.get(node.id, ()):
        if candidate.tag == "value" and not candidate.path and isinstance(candidate.value, ast.Name) and depth < 2 \
                and candidate.value.id != node.id:
            found = extension_module(candidate.value, ctx, depth + 1, scope)
            if found is not None:
                return found
            continue
        if candidate.tag == "import" and isinstance(candidate.value, str) and candidate.node is not None:
            module = candidate.value
            level = len(module) - len(module.lstrip("."))
            if is_extension_import(module.lstrip("."), level, candidate.node, ctx):
                return module
        elif candidate.tag == "value" and not candidate.path and isinstance(candidate.value, ast.Call) \
                and ctx.resolver.qualname(candidate.value.func, candidate.scope) in _LOADERS \
                and builds_cuda(candidate.value):
            return node.id
    return None


def built_here(name: str, ctx: "FileContext") -> bool:
    """The module scope binds ``name`` to what a CUDA-building ``cpp_extension.load`` returns (``exllamav2_ext =
    load(name=extension_name, sources=..., extra_cuda_cflags=...)``): an ``import exllamav2_ext`` of the same name
    is the prebuilt copy of that extension (the prebuilt-or-JIT pattern)."""
    scopes = ctx.resolver.scopes
    if scopes is None:
        return False
    return any(b.tag == "value" and not b.path and isinstance(b.value, ast.Call)
               and ctx.resolver.qualname(b.value.func, b.scope) in _LOADERS and builds_cuda(b.value)
               for b in scopes.module.names.get(name, ()))


def instance_class(receiver: ast.AST, ctx: "FileContext") -> Optional[str]:
    """The class a local name holds an instance of, when every binding that reaches the use makes one by a call of
    the same library class (``ev = torch.cuda.Event(enable_timing=True)``; ``ev.record()``, ``knn =
    cuml.neighbors.NearestNeighbors(n_neighbors=k)``; ``knn.fit(x)``): its qualified name, else None (a
    parameter, a name bound otherwise on some path, a project class)."""
    from npu_lint.analysis.bindings import VALUE
    scopes = ctx.resolver.scopes
    if not isinstance(receiver, ast.Name) or scopes is None:
        return None
    bindings = scopes.lookup_reaching(receiver.id, ctx.resolver.current, (receiver.lineno, receiver.col_offset))
    found: Optional[str] = None
    for binding in bindings:
        value = binding.value
        if binding.tag != VALUE or binding.path or type(value) is not ast.Call:
            return None
        qualname = ctx.resolver.qualname(value.func, binding.scope)
        if not qualname or qualname.startswith(".") or not qualname.rpartition(".")[2][:1].isupper() \
                or (found is not None and qualname != found):
            return None
        found = qualname
    return found
