"""NPU2xx rules on names: ``torch.cuda.*`` (redirected or without equivalent), NCCL names, default generators,
NVTX / CUDA profiling and DataParallel, all resolved through the file's imports; the base of the rules on groups of
cuda_apis.tsv names. TorchScript, channels_last, AMP, cuDNN/CUDA backend flags and CUDA extensions are in
:mod:`npu_lint.rules.cuda_features`."""
from __future__ import annotations

import ast
from typing import ClassVar, Optional

from npu_lint.context import FileContext
from npu_lint.cuda_facts import LIBRARY, NAMED, api_row, defined_here, feature_row, handled, instance_class
from npu_lint.rules import FUNCTION_TYPES, ApiRef, Rule, short_source

FAMILY = "cuda"
TRIGGERS = ("cuda", "nccl", "NCCL", "DataParallel", "data_parallel", "jit", "channels_last", "CUDA", "Cuda", "autocast_gpu",
            "cudnn", "cublas", "nvtx", "nvml", "Nccl",
            "classy_vision")   # its CUDA wrappers (copy_model_to_gpu) are cuda_apis.tsv rows


def _npu(row: dict[str, str]) -> str:
    """The NPU API to use instead, or "" when the table's cell is a note in parentheses (``(none)``, ``(no
    torch_npu.npu.OutOfMemoryError export found)``): no counterpart."""
    equivalent = row["npu_equivalent"]
    return equivalent if equivalent and not equivalent.startswith("(") else ""


def _no_counterpart_advice(row: dict[str, str]) -> str:
    """What to do for an API with no NPU counterpart: the table's own advice when its note gives one (``(none; use
    torch.distributed collectives over HCCL)``), else remove or guard it."""
    note = row["npu_equivalent"]
    if note.startswith("(none; use ") and note.endswith(")"):
        return note[len("(none; "):-1]
    return "remove it or guard it for CUDA only"


# the methods of torch.cuda objects (an Event, a Stream, a CUDAGraph) judged when called on a name holding one
_OBJECT_METHODS = frozenset({"record", "synchronize", "wait", "query", "elapsed_time", "wait_event", "wait_stream",
                             "record_event", "replay", "capture_begin", "capture_end", "reset"})


class _ApiGroupRule(Rule):
    """Base for rules that fire on a group of cuda_apis.tsv names."""

    family = FAMILY
    node_types = (ApiRef, ast.ImportFrom, ast.Import)
    triggers = TRIGGERS
    groups: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        row = api_row(qualname)
        return row is not None and row["group"] in cls.groups

    def check(self, ref: object, ctx: FileContext) -> None:
        if isinstance(ref, ast.ImportFrom):
            self.check_import(ref, ctx)
            return
        if isinstance(ref, ast.Import):
            self.check_module_alias(ref, ctx)
            return
        if isinstance(ref, ast.Call):
            self.check_instance_call(ref, ctx)
            return
        assert isinstance(ref, ApiRef)
        row = api_row(ref.qualname)
        if row is not None and row["group"] in self.groups and self.accepts(row, ctx) \
                and not defined_here(ref.qualname, ctx) and not _own_name(ref.qualname, row, ctx) \
                and not _may_be_generic(ref, ctx) and not _inherited(ref, ctx) \
                and not (row["note"] == NAMED and _recorded(ref.node, ctx)):
            ctx.report(ref.node, self.describe(ref.qualname, row, ctx), ref.qualname)

    def check_instance_call(self, node: ast.Call, ctx: FileContext) -> None:
        """``ev = torch.cuda.Event(enable_timing=True); ev.record()``: a method of a CUDA object called on the
        name holding it (every binding reaching the call made one) is a CUDA use of its own, as the constructor."""
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in _OBJECT_METHODS:
            return
        api = instance_class(func.value, ctx)
        row = api_row(api) if api and api.startswith("torch.cuda.") else None
        if row is not None and row["group"] in self.groups and self.accepts(row, ctx) and not defined_here(api, ctx):
            ctx.report(node, f"{func.value.id}.{func.attr}() on a {api}: " + self.describe(api, row, ctx),
                       f"{api}.{func.attr}")

    def check_import(self, node: ast.ImportFrom, ctx: FileContext) -> None:
        """``from torch.cuda.amp import GradScaler, autocast``: the import is a line to change as well (the module
        moves to ``torch.amp`` / ``torch_npu.npu``), reported once, by the rule of its first CUDA name's group."""
        if node.level or not node.module:
            return
        names = [f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"]
        if not (node.module == "torch.cuda" or node.module.startswith("torch.cuda.")):
            # ``from torch.backends import cudnn``; a library's CUDA name (``from lightning.pytorch.accelerators
            # import CUDAAccelerator``): the import changes with its uses
            names = [name for name in names if _backend_module(name) or _library_name(name, ctx)]
        rows = [(name, row) for name in names for row in [api_row(name)] if row is not None]
        if rows and rows[0][1]["group"] in self.groups and self.accepts(rows[0][1], ctx):
            listed = ", ".join(alias.name for alias in node.names)
            ctx.report(node, f"from {node.module} import {listed}: {self.describe(rows[0][0], rows[0][1], ctx)}",
                       rows[0][0])

    def check_module_alias(self, node: ast.Import, ctx: FileContext) -> None:
        """``import torch.cuda.amp as amp``: the alias is the line to change with the uses (``amp.autocast()`` is
        reported where it is used), as for ``from torch.cuda import amp``. A plain ``import torch.cuda.amp`` binds
        ``torch`` only and its uses name the module in full, and ``import torch.cuda as tc`` is ``from torch import
        cuda``: neither is reported. A CUDA backend module (``import torch.backends.cudnn [as cudnn]``) is: it has
        no NPU counterpart, so the statement goes with its uses, or stands alone when nothing uses it."""
        for alias in node.names:
            if (alias.asname and alias.name.startswith("torch.cuda.")) or _backend_module(alias.name):
                row = api_row(alias.name)
                if row is not None and row["group"] in self.groups and self.accepts(row, ctx):
                    bound = f" as {alias.asname}" if alias.asname else ""
                    ctx.report(node, f"import {alias.name}{bound}: {self.describe(alias.name, row, ctx)}", alias.name)

    def accepts(self, row: dict[str, str], ctx: FileContext) -> bool:
        return True

    def describe(self, api: str, row: dict[str, str], ctx: FileContext) -> str:
        npu = _npu(row)
        return self.message.format(api=api, npu=npu or "no direct NPU equivalent")


def _backend_module(name: str) -> bool:
    """``torch.backends.cudnn`` / ``torch.backends.cuda``: a module of CUDA switches with no NPU twin (its
    api_row is a bare module's)."""
    row = api_row(name)
    return row is not None and row["status"] == "module" and name.startswith("torch.backends.")


_SHOWN = frozenset({"print", "info", "debug", "warning", "warn", "error", "write", "format", "append", "add_row"})


def _recorded(node: ast.AST, ctx: FileContext) -> bool:
    """A value only shown or recorded (``f"built for CUDA {torch.version.cuda}"``, ``{"cuda_version":
    torch.version.cuda}``, ``print(torch.version.cuda)``): no use of it that changes on NPU. Judged for the names
    only their words say are CUDA's (``cuda_named``), not for the table's APIs."""
    if not isinstance(getattr(node, "ctx", None), ast.Load):
        return True   # a name the code sets (``torch.cuda_mod = None``): nothing of CUDA's is read
    parent = ctx.parent(node)
    while isinstance(parent, (ast.IfExp, ast.BoolOp, ast.Lambda)) and getattr(parent, "test", None) is not node:
        node, parent = parent, ctx.parent(parent)   # one of the values shown: ``torch.version.cuda if cuda else ''``,
        # ``_dict_append(output, "CUDA version", lambda: torch.version.cuda)``
    if isinstance(parent, (ast.FormattedValue, ast.Dict, ast.keyword)):
        return isinstance(parent, ast.FormattedValue) or isinstance(parent, ast.Dict) \
            or isinstance(ctx.parent(parent), ast.Call) and _shown(ctx.parent(parent))
    return isinstance(parent, ast.Call) and parent.func is not node and _shown(parent)


def _shown(call: ast.Call) -> bool:
    """A call that prints, logs or records its arguments: ``print``, ``log.info``, ``fprint``, ``_dict_append``."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name.lower().endswith(_SHOWN_ENDINGS)


_SHOWN_ENDINGS = tuple(_SHOWN)


def _may_be_generic(ref: ApiRef, ctx: FileContext) -> bool:
    """A name one of whose reaching bindings is no CUDA name: ``try: from torch.amp import GradScaler / except
    ImportError: from torch.cuda.amp import GradScaler``, or an import per backend (``if is_npu_available(): from
    torch.npu.amp import GradScaler ... else: from torch.cuda.amp import GradScaler``). The CUDA import is the line to
    change (reported there); a use of the name may be the generic or the NPU class and asks for nothing. A no-op
    shim for old torch (``except ImportError: from contextlib import nullcontext as autocast``, a ``def autocast``
    in the ``else`` arm) is no alternative: the use runs the CUDA class wherever torch has it."""
    if not ref.qualname.startswith("torch.cuda."):
        return False
    return any(not name.startswith("torch.cuda.") and name.startswith(("torch.", "torch_npu."))
               for name in ctx.resolver.qualnames(ref.node))


def _inherited(ref: ApiRef, ctx: FileContext) -> bool:
    """``self.unscale_(opt)`` in a method of a class deriving from a CUDA class (``class ShardedGradScaler(
    torch.cuda.amp.GradScaler)``): the instance's inherited method; the class statement naming the base is the line
    reported."""
    node = ref.node
    return isinstance(node, ast.Attribute) and own_instance(node.value, ctx)


def own_instance(node: ast.AST, ctx: FileContext, site: Optional[ast.AST] = None) -> bool:
    """``node`` is the instance parameter (the first) of a method, read in that method: what the class itself is.
    ``site``: a node the walk has reached that encloses ``node`` (the call ``node`` is the receiver of)."""
    if not isinstance(node, ast.Name):
        return False
    function = ctx.enclosing(site or node, FUNCTION_TYPES)
    if function is None or not function.args.args or function.args.args[0].arg != node.id \
            or not isinstance(ctx.parent(function), ast.ClassDef):
        return False
    return not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)


def _library_name(name: str, ctx: FileContext) -> bool:
    """A library's own CUDA name (api_row status ``library``), not the file's own package's."""
    row = api_row(name)
    return row is not None and row["status"] == LIBRARY and not _own_name(name, row, ctx)


def _own_name(qualname: str, row: dict[str, str], ctx: FileContext) -> bool:
    """A ``library`` row's name the file's own package or project defines (``from d3rlpy.torch_utility import
    CudaGraphWrapper`` inside d3rlpy, ``from .cuda_utils import pick``): the project's code, whose body is
    reported where it does the CUDA work; also a name of a module the project index knows."""
    if row["status"] != LIBRARY:
        return False
    top = qualname.split(".", 1)[0]
    return not top or (bool(ctx.module) and top == ctx.module.split(".", 1)[0]) \
        or (ctx.project is not None and ctx.project.defines(qualname, ctx.module) is not None)


def _redirected_for(row: dict[str, str], ctx: FileContext) -> bool:
    return row["status"] == "module" or (row["status"] == "redirected" and handled(row["since"], ctx))


class CudaApiRedirected(_ApiGroupRule):
    """A ``torch.cuda`` API that has a ``torch_npu.npu`` twin.

    What it does:
        Flags calls and attributes under ``torch.cuda`` that ``transfer_to_npu`` redirects to
        ``torch_npu.npu`` for the target torch-npu release, the methods of a CUDA object called on the name
        holding it (``ev = torch.cuda.Event(); ev.record()``, ``s = torch.cuda.Stream(); s.synchronize()``: every
        binding reaching the call made one), and ``from torch.cuda import ...`` statements (once
        per statement, by the rule of the statement's first CUDA name: ``from torch.cuda import amp, Stream`` is
        NPU212's). With the project index, also the call of a project wrapper: a small one of a CUDA action, and a
        function or class of any length built around a CUDA-only feature (CUDA graph capture,
        ``rule_tables/cuda_features.tsv``: ``CUDAGraphRunner(model)``, ``make_inference_graphed_callable(fn, args)``;
        tests/test_cuda_feature_wrappers.py).
    Why it matters on NPU:
        Without ``from torch_npu.contrib import transfer_to_npu`` these calls talk to a CUDA runtime
        that does not exist on an Ascend host; with it they work, but only from the release named
        in the message.
    Example:
        torch.cuda.synchronize()
    Use instead:
        torch_npu.npu.synchronize()   # or torch.npu.synchronize() after ``import torch_npu``
    Fix safety:
        No automatic fix yet; the rename is mechanical.
    """

    code = "NPU201"
    name = "cuda-api-redirected"
    groups = ("cuda",)
    node_types = _ApiGroupRule.node_types + (ast.Call,)

    @classmethod
    def wants_call(cls, name: Optional[str], method: Optional[str]) -> bool:
        return True   # dispatch: a torch.cuda object's method (``ev.record()``), a project CUDA wrapper (``gc_cuda()``)

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that call one of the project's CUDA wrappers (defined in another module) reach this rule."""
        return project.cuda_wrapper_names()

    def check_instance_call(self, node: ast.Call, ctx: FileContext) -> None:
        super().check_instance_call(node, ctx)
        self._wrapper_call(node, ctx)

    def _wrapper_call(self, node: ast.Call, ctx: FileContext) -> None:
        """``gc_cuda()`` with ``def gc_cuda(): gc.collect(); torch.cuda.empty_cache()`` in the project, ``batch =
        to_cuda(batch)`` with ``to_cuda`` moving each tensor by ``.cuda()``: the call of a small project wrapper of a
        CUDA action with no NPU arm (:meth:`npu_lint.analysis.project_functions.FunctionFacts.cuda_wrappers`) is a
        CUDA use of this line as the wrapped call is of its own."""
        project = ctx.project
        func = node.func
        short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if project is None or short is None or short not in project.cuda_wrapper_names():
            return
        qualname = ctx.resolver.qualname(func)
        found = project.cuda_wrapper(qualname, ctx.module) if qualname else None
        if found is None:
            feature = project.cuda_feature_wrapper(qualname, ctx.module) if qualname else None
            if feature is not None:
                self._feature_call(node, feature, ctx)
            return
        target, action = found
        wrapped = ".cuda()" if action.startswith("torch.") and action.endswith(".cuda") \
            and not action.startswith("torch.cuda.") else action
        ctx.report(node, f"{short_source(func, 40)}() wraps {wrapped} ({target}), a CUDA call with no NPU arm: give the "
                         f"wrapper one (torch_npu.npu / .npu())", target)
    @staticmethod
    def _feature_call(node: ast.Call, found: tuple[str, str, str], ctx: FileContext) -> None:
        """``graphed = make_inference_graphed_callable(fn, args)``, ``runner = CUDAGraphRunner(model)``: the call of a
        project function or class built around a CUDA-only torch feature (a CUDA graph capture,
        :meth:`npu_lint.analysis.project_functions.FunctionFacts.cuda_feature_wrappers`), whatever its length."""
        target, api, feature = found
        npu = feature_row(api)
        alternative = f": on NPU {npu['npu_alternative']}" if npu and npu["npu_alternative"] else ""
        ctx.report(node, f"{short_source(node.func, 40)}() is the project's {feature} ({target} uses {api}), "
                         f"CUDA-only{alternative}", target)

    message = "{api} is a CUDA API: on NPU use {npu}{since}"
    must_fire = ("import torch\ntorch.cuda.synchronize()\n",
                 "import torch.cuda as tc\nn = tc.device_count()\n",
                 "from torch.cuda import max_memory_allocated\nm = max_memory_allocated()\n",
                 "import torch\ncuda = torch.cuda\ncuda.empty_cache()\n",
                 "def f():\n    import torch\n    s = torch.cuda.Stream()\n",
                 "import torch\nstream = torch.cuda.Stream() if use_cuda else None\n",
                 # a method of a CUDA object called on the name holding it
                 "import torch\ndef timed(fn):\n    start = torch.cuda.Event(enable_timing=True)  # NPU201\n"
                 "    start.record()  # NPU201\n    fn()\n    start.synchronize()  # NPU201\n",
                 # a library's wrapper of torch.cuda calls (a cuda_apis.tsv row citing the library's source)
                 "from classy_vision.generic.util import copy_model_to_gpu\nmodel = copy_model_to_gpu(model)\n",
                 "from classy_vision.dataset import DataloaderAsyncGPUWrapper\nloader = DataloaderAsyncGPUWrapper(loader)\n")
    must_not_fire = ("import torch\ntorch.npu.synchronize()\n",
                     "import torch\ndef copy_model_to_gpu(model):\n    return model.to('npu')\nm = copy_model_to_gpu(m)\n",
                     "import torch\ndevice_mod = torch.cuda if use_cuda else torch.npu\n",   # has its NPU branch
                     "import torch\nimport torch.cuda\n", "import torch\nimport torch_npu\nmod = torch.npu\n",
                     "class A:\n    def synchronize(self):\n        self.cuda.synchronize()\n",
                     "import torch\ntorch.cuda.get_device_capability()\n",
                     "def timed(fn, start):\n    start.record()\n    fn()\n    start.synchronize()\n")

    def accepts(self, row: dict[str, str], ctx: FileContext) -> bool:
        return _redirected_for(row, ctx)

    def describe(self, api: str, row: dict[str, str], ctx: FileContext) -> str:
        if row["status"] == "module":
            return f"{api} is the CUDA module: on NPU use {_npu(row)} (torch.npu after import torch_npu)"
        since = f" (transfer_to_npu redirects it from torch-npu {row['since']})" if row["since"] else ""
        return self.message.format(api=api, npu=_npu(row), since=since)


class CudaApiNoEquivalent(_ApiGroupRule):
    """A ``torch.cuda`` API with no working NPU equivalent for the target release.

    What it does:
        Flags ``torch.cuda`` names that ``transfer_to_npu`` leaves pointing at CUDA, names it redirects
        only in a later torch-npu release than the target, and names that are redirected but behave
        differently (``get_device_capability`` returns None on NPU).
    Why it matters on NPU:
        These calls raise, return None or report nonsense on an Ascend host, often far from the
        line that made the call (an ``sm_80`` capability check that silently picks a slow path).
    Example:
        if torch.cuda.get_device_capability()[0] >= 8: ...
    Use instead:
        Remove the architecture check, or use the NPU API the message names.
    Fix safety:
        No fix: the replacement depends on what the code wanted.
    """

    code = "NPU202"
    name = "cuda-api-no-equivalent"
    groups = ("cuda",)
    node_types = _ApiGroupRule.node_types + (ast.Call,)
    methods = _OBJECT_METHODS   # dispatch: the methods of a torch.cuda object called on a name holding one
    message = "{api} {why}"
    must_fire = ("import torch\ncap = torch.cuda.get_device_capability()\n",
                 "import torch\narchs = torch.cuda.get_arch_list()\n",
                 "from torch.cuda import comm\ncomm.broadcast(t, devices)\n",
                 # a torch name outside torch.cuda, or a library's, whose own words say CUDA (cuda, cudnn, nccl, ...)
                 "import torch\nif not torch.version.cuda:\n    pass\n",
                 "import torch\nn = torch.torch.cuda.get_arch_list()\n",
                 "from pytorch_lightning.accelerators.cuda import CUDAAccelerator  # NPU202\n"
                 "def on_gpu(accelerator):\n    return isinstance(accelerator, CUDAAccelerator)  # NPU202\n",
                 "import lightning.pytorch as pl\nok = pl.accelerators.CUDAAccelerator.is_available()\n")
    must_not_fire = ("import torch\ntorch.cuda.synchronize()\n", "import torch\nx = torch.npu.get_device_capability()\n",
                     # a tensor's own method (NPU203 / NPU204), a CUDA-only library (NPU217), the package's own name
                     "import torch\nf = torch.Tensor.cuda\n", "from numba import cuda\n",
                     "from lightning.pytorch.accelerators import Accelerator\n",
                     # a version only shown or recorded
                     "import torch\nINFO = {'cuda_version': torch.version.cuda if on_gpu else ''}\n"
                     "print(f'CUDA {torch.version.cuda}')\n"
                     "log.info('cuda %s', torch.version.cuda)\nfprint('CUDA version:', torch.version.cuda)\n"
                     "_dict_append(output, 'CUDA version', lambda: torch.version.cuda)\n")

    def accepts(self, row: dict[str, str], ctx: FileContext) -> bool:
        return not _redirected_for(row, ctx)

    def describe(self, api: str, row: dict[str, str], ctx: FileContext) -> str:
        npu, status = _npu(row), row["status"]
        if status == "redirected":
            why = (f"is redirected by transfer_to_npu only from torch-npu {row['since']} (target "
                   f"{ctx.target.release}): use {npu} where your release has it, or upgrade")
        elif status == "misbehaves":
            note = row["note"].split(";")[0].split(" (")[0]
            why = f"does not work as on CUDA ({note}): remove it or guard it for CUDA only"
        elif npu:
            why = f"is not redirected by transfer_to_npu: use {npu}"
        elif status == LIBRARY:
            why = (f"is {api.split('.', 1)[0]}'s CUDA-specific API (its qualified name says CUDA): use the library's "
                   "NPU path where it has one, or guard it for CUDA only")
        else:
            why = f"has no NPU equivalent: {_no_counterpart_advice(row)}"
        return self.message.format(api=api, why=why)


class CudaNcclName(_ApiGroupRule):
    """NCCL names: ``is_nccl_available``, ``ProcessGroupNCCL``, ``Backend.NCCL``, ``torch.cuda.nccl``.

    What it does:
        Flags references to NCCL-specific names of ``torch.distributed`` and ``torch.cuda``
        (the ``'nccl'`` backend strings are checked by the same code, NPU207).
    Why it matters on NPU:
        Ascend collectives run on HCCL. NCCL objects do not exist there; ``transfer_to_npu`` aliases
        only some of them, from the release the table gives.
    Example:
        if dist.is_nccl_available(): ...
    Use instead:
        if dist.is_hccl_available(): ...
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU207"
    name = "nccl-backend"
    groups = ("nccl",)
    message = "{api} is NCCL-specific: Ascend uses HCCL ({npu})"
    must_fire = ("import torch.distributed as dist\nok = dist.is_nccl_available()\n",
                 "import torch.distributed as dist\nb = dist.Backend.NCCL\n",
                 "import torch\ndist.init_process_group('nccl')\n",
                 "import torch.distributed as dist\ndist.init_process_group(backend='nccl')\n",
                 "import torch\nparser.add_argument('--backend', default='nccl')\n")
    must_not_fire = ("import torch.distributed as dist\ndist.init_process_group('hccl')\n",
                     "import torch\nif backend == 'nccl':\n    pass\n",
                     "print('nccl')\n",
                     "import torch\nmsg = 'falling back from nccl to gloo'\n",
                     "import torch\nfrom typing import Literal\ndef init(backend: Literal['nccl', 'gloo'] = 'gloo'):\n    pass\n")

    node_types = (ApiRef, ast.Constant)
    constant_types = (str,)   # dispatch: string constants only

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, (ApiRef, ast.ImportFrom)):
            super().check(node, ctx)
            return
        from npu_lint.cuda_facts import COMPARE, TYPE, is_docstring, is_nccl_string, string_use
        if ctx.uses_torch and is_nccl_string(node) and not is_docstring(node, ctx) \
                and string_use(node, ctx) not in (COMPARE, TYPE):
            npu = node.value.replace("nccl", "hccl").replace("NCCL", "HCCL").replace("cuda", "npu")
            ctx.report(node, f"{node.value!r} names the NCCL backend: on NPU use {npu!r}", "nccl")


class CudaDefaultGenerators(_ApiGroupRule):
    """``torch.cuda.default_generators``.

    What it does:
        Flags reads of ``torch.cuda.default_generators``.
    Why it matters on NPU:
        The migration manual lists it as unsupported on NPU and asks for a manual change;
        ``transfer_to_npu`` redirects it only from torch-npu 2.11.0.
    Example:
        gen = torch.cuda.default_generators[0]
    Use instead:
        gen = torch_npu.npu.default_generators[0]
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU209"
    name = "cuda-default-generators"
    groups = ("default_generators",)
    message = "{api}: use {npu}{when}"
    must_fire = ("import torch\ng = torch.cuda.default_generators[0]\n",)
    must_not_fire = ("import torch\nimport torch_npu\ng = torch_npu.npu.default_generators[0]\n",)

    def describe(self, api: str, row: dict[str, str], ctx: FileContext) -> str:
        when = (f" (redirected automatically from torch-npu {row['since']})" if handled(row["since"], ctx)
                else f" (not redirected before torch-npu {row['since']}: change it by hand)")
        return self.message.format(api=api, npu=_npu(row), when=when)


class CudaProfiling(_ApiGroupRule):
    """NVTX ranges and CUDA profiler activities.

    What it does:
        Flags ``torch.cuda.nvtx.*``, ``torch.cuda.profiler``, ``torch.autograd.profiler.emit_nvtx`` /
        ``load_nvprof`` and ``ProfilerActivity.CUDA``.
    Why it matters on NPU:
        NVTX markers and CUDA profiler activities record nothing on an Ascend host; the NPU profiler
        and its mstx markers do.
    Example:
        torch.cuda.nvtx.range_push("forward")
    Use instead:
        torch_npu.npu.mstx.range_push("forward")   # torch-npu 2.3.1+
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU218"
    name = "cuda-profiling"
    groups = ("nvtx",)
    triggers = ("nvtx", "nvprof", "CUDA", "cuda")
    message = "{api} profiles CUDA only: use {npu}"
    must_fire = ("import torch\ntorch.cuda.nvtx.range_push('fwd')\n",
                 "from torch.profiler import ProfilerActivity\nacts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]\n",
                 "import torch\nwith torch.autograd.profiler.emit_nvtx():\n    pass\n")
    must_not_fire = ("from torch.profiler import ProfilerActivity\nacts = [ProfilerActivity.CPU]\n",)


class DataParallel(_ApiGroupRule):
    """``torch.nn.DataParallel`` and ``torch.nn.parallel.data_parallel``.

    What it does:
        Flags single-process multi-device data parallelism.
    Why it matters on NPU:
        The vendor lists DataParallel as unsupported on NPU; multi-device training needs
        DistributedDataParallel over HCCL.
    Example:
        model = nn.DataParallel(model)
    Use instead:
        model = DistributedDataParallel(model, device_ids=[local_rank])   # torchrun, backend="hccl"
    Fix safety:
        No fix: the launch changes too.
    """

    code = "NPU220"
    name = "data-parallel"
    groups = ("data_parallel",)
    triggers = ("DataParallel", "data_parallel")
    message = "{api} is not supported on NPU: use {npu}"
    must_fire = ("import torch.nn as nn\nmodel = nn.DataParallel(model)\n",
                 "from torch.nn import DataParallel\nm = DataParallel(m)\n",
                 "import torch\nwrap = torch.nn.DataParallel\n")
    # A type test or an annotation only asks or says whether a model is wrapped: nothing to change there, the line
    # that wraps is reported.
    must_not_fire = ("from torch.nn.parallel import DistributedDataParallel\nm = DistributedDataParallel(m)\n",
                     "import torch\nif isinstance(m, torch.nn.DataParallel):\n    m = m.module\n",
                     "import torch.nn as nn\ndef is_parallel(model):\n"
                     "    return type(model) in (nn.parallel.DataParallel, nn.parallel.DistributedDataParallel)\n",
                     "from torch.nn import DataParallel\ndef reset(self: DataParallel) -> None:\n    self.module.reset()\n")

    def check(self, ref: object, ctx: FileContext) -> None:
        if isinstance(ref, (ast.ImportFrom, ast.Import)) or not (_type_test(ref.node, ctx) or ctx.in_annotation(ref.node)):
            super().check(ref, ctx)


def _type_test(node: ast.AST, ctx: FileContext) -> bool:
    """``node`` is a class tested against: ``isinstance(m, node)``, ``isinstance(m, (A, node))``, ``type(m) is node``,
    ``type(m) in (node, B)``."""
    parent = ctx.parent(node)
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
        parent = ctx.parent(parent)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) \
            and parent.func.id in ("isinstance", "issubclass") and parent.args and parent.args[0] is not node:
        return True
    return isinstance(parent, ast.Compare) and any(
        isinstance(o, ast.Call) and isinstance(o.func, ast.Name) and o.func.id == "type"
        for o in (parent.left, *parent.comparators))
