"""NPU2xx rules on CUDA-bound features used by name: TorchScript, channels_last, AMP bound to CUDA, cuDNN / CUDA
backend flags and CUDA extensions, all resolved through the file's imports."""
from __future__ import annotations

import ast

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.cuda_facts import api_row, builds_cuda as _builds_cuda, construct_since, handled
from npu_lint.rules import ApiRef, Rule
from npu_lint.rules.cuda_apis import FAMILY, TRIGGERS, _ApiGroupRule, _npu, own_instance


class TorchScript(Rule):
    """``torch.jit.script`` / ``script_method`` in code that will run under automatic migration.

    What it does:
        Flags ``torch.jit.script`` and ``torch.jit.script_method``, as decorators or calls, for releases whose
        ``transfer_to_npu`` conflicts with them; from the release that turns them into no-ops (2.3.1), only
        the calls (``torch.jit.script(model)``): a decorated function then runs eagerly with the same result,
        but a call returns its argument itself, so whatever needs a ``ScriptModule`` (``.save()``, ``.code``,
        ``torch.jit.freeze``) fails. Off by default: TorchScript is no CUDA usage, and the finding holds only for
        code migrated with ``transfer_to_npu`` (select ``NPU210`` to see it).
    Why it matters on NPU:
        TorchScript does not support the dynamic patching ``transfer_to_npu`` relies on; the vendor
        therefore turns ``torch.jit.script`` into a no-op (with a RuntimeWarning) under automatic
        migration, so scripted code silently runs eagerly and scripted modules are plain modules.
    Example:
        scripted = torch.jit.script(model)
        scripted.save("model.pt")
    Use instead:
        Export with ``torch.jit.trace`` or ``torch.export``, or migrate with the GPU2Ascend tool instead of
        transfer_to_npu.
    Fix safety:
        No fix.
    """

    code = "NPU210"
    name = "jit-script-under-migration"
    family = FAMILY
    default_enabled = False   # a note on the transfer_to_npu migration mode, not CUDA usage: select it to see it
    node_types = (ApiRef,)
    triggers = ("jit",)
    message = "{api} {what}: remove the scripting or migrate without transfer_to_npu"
    must_fire = ("import torch\nm = torch.jit.script(model)\nm.save('m.pt')\n",
                 "from torch.jit import script\nm = script(model)\n")
    must_not_fire = ("import torch\nm = torch.jit.trace(model, x)\n", "def script(x):\n    return x\ny = script(1)\n",
                     # a decorated function runs eagerly under transfer_to_npu (2.3.1+): the same result
                     "import torch\n@torch.jit.script\ndef f(x):\n    return x\n")

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        return qualname in ("torch.jit.script", "torch.jit.script_method")

    def check(self, ref: ApiRef, ctx: FileContext) -> None:
        if ref.qualname in ("torch.jit.script", "torch.jit.script_method"):
            since = construct_since("C178")
            if handled(since, ctx) and _decorator(ref.node, ctx):
                return   # the function runs eagerly under transfer_to_npu: the same result
            what = (f"is turned into a no-op by transfer_to_npu (torch-npu {since}+): it returns its argument, "
                    "no ScriptModule" if handled(since, ctx)
                    else "conflicts with transfer_to_npu (automatic migration shields it)")
            ctx.report(ref.node, self.message.format(api=ref.qualname, what=what), ref.qualname)


def _decorator(node: ast.AST, ctx: FileContext) -> bool:
    """``@torch.jit.script`` (not ``torch.jit.script(model)``): the node is one of a definition's decorators."""
    parent = ctx.parent(node)
    return isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and any(
        d is node for d in parent.decorator_list)


class ChannelsLast(Rule):
    """``torch.channels_last`` / ``channels_last_3d`` memory format.

    What it does:
        Flags any use of the channels-last memory formats.
    Why it matters on NPU:
        Automatic migration does not support channels_last, and ``Tensor.to`` / ``.npu`` accept only
        ``contiguous_format`` and ``preserve_format`` on NPU.
    Example:
        model = model.to(memory_format=torch.channels_last)
    Use instead:
        model = model.contiguous()   # or drop the memory_format argument
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU211"
    name = "channels-last"
    family = FAMILY
    node_types = (ApiRef,)
    triggers = ("channels_last",)
    message = "{api} is not supported on NPU: use torch.contiguous_format (or drop memory_format)"
    must_fire = ("import torch\nx = x.to(memory_format=torch.channels_last)\n",
                 "from torch import channels_last_3d\ny = v.contiguous(memory_format=channels_last_3d)\n")
    must_not_fire = ("import torch\nx = x.contiguous(memory_format=torch.contiguous_format)\n",
                     "channels_last = True\n")

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        return qualname in ("torch.channels_last", "torch.channels_last_3d")

    def check(self, ref: ApiRef, ctx: FileContext) -> None:
        if ref.qualname in ("torch.channels_last", "torch.channels_last_3d"):
            ctx.report(ref.node, self.message.format(api=ref.qualname), ref.qualname)


_SCALER_METHODS = frozenset({"scale", "step", "update", "unscale_", "get_scale", "state_dict", "load_state_dict"})


class CudaAmp(_ApiGroupRule):
    """Automatic mixed precision bound to CUDA: ``torch.cuda.amp.*`` and ``autocast('cuda')``.

    What it does:
        Flags ``torch.cuda.amp.autocast/GradScaler/custom_fwd/custom_bwd``, a ``'cuda'`` device type
        given to the device-generic AMP APIs (``torch.autocast``, ``torch.amp.GradScaler``, ...) and a
        device-generic scaler made without its device, whose default is ``'cuda'`` (``torch.GradScaler()``,
        ``ShardedGradScaler()``: ``cuda_default_devices.tsv``). Methods of
        a CUDA ``GradScaler`` (``scaler.step(opt)``) are reported only in files that do not name the class
        (a scaler made in another module of the project): where the file constructs or annotates it, that
        line is the one to change. ``from torch.cuda.amp import GradScaler, autocast`` and
        ``import torch.cuda.amp as amp`` are reported at the import too, once (as ruff's banned-API rule does):
        the import changes with the uses.
    Why it matters on NPU:
        The CUDA AMP classes exist only for CUDA; ``transfer_to_npu`` patches ``torch.cuda.amp`` but
        a ``'cuda'`` device type given to ``torch.autocast`` is rewritten only from the release the
        table gives, otherwise autocast is silently disabled.
    Example:
        scaler = torch.cuda.amp.GradScaler()
        with torch.autocast("cuda", dtype=torch.float16): ...
    Use instead:
        scaler = torch.amp.GradScaler("npu")
        with torch.autocast("npu", dtype=torch.float16): ...
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU212"
    name = "cuda-amp"
    groups = ("amp",)
    triggers = TRIGGERS + ("GradScaler",)   # a scaler made without its device names no 'cuda'
    node_types = (ApiRef, ast.Constant, ast.JoinedStr, ast.Call, ast.ImportFrom, ast.Import)
    constant_types = (str,)   # dispatch: string constants only
    methods = _SCALER_METHODS   # dispatch: the calls it judges are a scaler's methods (``_scaler_method``)
    message = "{api} is CUDA mixed precision: use {npu}"
    must_fire = ("import torch\nscaler = torch.cuda.amp.GradScaler()\n",
                 "import torch\nscaler = torch.cuda.amp.GradScaler()\ndef step(loss, opt):\n"
                 "    scaler.scale(loss).backward()\n    scaler.step(opt)\n",
                 "from torch.cuda.amp import autocast\nwith autocast():\n    pass\n",
                 "import torch.cuda.amp as amp\n",
                 "import torch\ndtype = torch.get_autocast_gpu_dtype()\n",
                 "import torch\nwith torch.autocast('cuda', dtype=torch.float16):\n    pass\n",
                 "import torch\ns = torch.amp.GradScaler(device='cuda')\n",
                 # the device-generic scaler without its device: the default is 'cuda' (cuda_default_devices.tsv)
                 "import torch\nscaler = torch.GradScaler(enabled=use_amp)\n",
                 "from torch.amp import GradScaler\nscaler = GradScaler()\n")
    must_not_fire = ("import torch\nwith torch.autocast('npu'):\n    pass\n", "import torch.cuda.amp\n",
                     "import torch\nwith torch.autocast(device_type='cpu'):\n    pass\n",
                     "import torch\nscaler = torch.amp.GradScaler('npu')\nscaler.step(opt)\n",
                     "import torch\nscaler = make_scaler()\nscaler.step(opt)\n",
                     "import torch\nscaler = torch.amp.GradScaler(device.type, enabled=True)\n",
                     "import torch\nscaler = torch.GradScaler(**scaler_kwargs)\n",
                     "import torch\nscaler = torch.amp.GradScaler(device=dev)\n",
                     "import torch\nscaler = torch.GradScaler(enabled=False)\n")
    # lines quiet beside a reported one (tests/test_cuda_names.py): the uses of a name a fallback import may bind to
    # the generic class, the inherited methods of a subclass of the CUDA scaler

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        return True   # every reference's line is noted (amp_lines), not only the group's

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, (ast.ImportFrom, ast.Import)):
            super().check(node, ctx)
            return
        if isinstance(node, ApiRef):
            super().check(node, ctx)
            ctx.scratch.setdefault("amp_lines", set()).add(node.node.lineno)
            self._default_device(node, ctx)
            return
        if isinstance(node, ast.Call):
            if ctx.mentions("GradScaler"):
                self._scaler_method(node, ctx)
            return
        from npu_lint.cuda_facts import AMP, argument_api, is_device_string, string_use
        if is_device_string(node, ctx) and string_use(node, ctx) == AMP:
            call = ctx.parent(node)
            call = ctx.parent(call) if isinstance(call, ast.keyword) else call
            api = ctx.resolver.qualname(call.func) or "autocast"
            row = argument_api(api) or {}
            ctx.report(node, f"{api}('cuda') is CUDA mixed precision: use device type 'npu'"
                             f" ({row.get('npu_equivalent', 'npu')})", api)

    def _default_device(self, ref: ApiRef, ctx: FileContext) -> None:
        """``torch.amp.GradScaler(enabled=True)``: a device-generic AMP class called without its device, whose
        default is ``'cuda'`` (``cuda_default_devices.tsv``): the scaler is CUDA's, disabled with a warning where
        CUDA is missing. A call that may pass the device through ``*args`` / ``**kwargs`` is not judged."""
        from npu_lint.cuda_facts import default_device
        row = default_device(ref.qualname)
        call = ctx.parent(ref.node)
        if row is None or not isinstance(call, ast.Call) or call.func is not ref.node:
            return
        if len(call.args) > int(row["position"]) or any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg in (row["parameter"], None) for k in call.keywords):
            return   # the device is given (a 'cuda' one is reported at the string), or may be
        if any(k.arg == "enabled" and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in call.keywords):
            return   # a scaler switched off does nothing on any device
        ctx.report(call, f"{ref.qualname}() without a device is CUDA mixed precision ({row['parameter']} defaults to "
                         f"'{row['default']}'): use {row['npu_equivalent']}", ref.qualname)

    def _scaler_method(self, node: ast.Call, ctx: FileContext) -> None:
        """``scaler.step(opt)`` on a ``torch.cuda.amp.GradScaler`` made elsewhere in the file."""
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in _SCALER_METHODS:
            return
        if isinstance(func.value, ast.Call) or node.lineno in ctx.scratch.get("amp_lines", ()) \
                or ctx.resolver.qualname(func) is not None:   # the constructor on this line is reported
            return
        if own_instance(func.value, ctx, node):   # ``self.unscale_(opt)`` in a subclass: its class statement is reported
            return
        if ctx.resolver.class_of(func.value) == "torch.cuda.amp.GradScaler" and not _builds_cuda_scaler(node, ctx):
            api = f"torch.cuda.amp.GradScaler.{func.attr}"
            ctx.report(node, self.message.format(api=api, npu="torch.amp.GradScaler('npu')"), api)


def _builds_cuda_scaler(node: ast.AST, ctx: FileContext) -> bool:
    """The file names ``torch.cuda.amp.GradScaler`` (its constructor or an annotation, reported there: the line
    to change), so the methods called on it are not reported again; a scaler from another module is."""
    built = ctx.scratch.get("cuda_scaler_built")
    if built is None:
        root = node
        while ctx.parent(root) is not None:
            root = ctx.parent(root)
        built = ctx.scratch["cuda_scaler_built"] = any(
            isinstance(name, (ast.Name, ast.Attribute))
            and getattr(name, "attr", getattr(name, "id", "")) == "GradScaler"
            and ctx.resolver.qualname(name) == "torch.cuda.amp.GradScaler" for name in walk(root))
    return built




class CudnnFlags(_ApiGroupRule):
    """``torch.backends.cudnn`` flags.

    What it does:
        Flags reads and writes of ``torch.backends.cudnn`` settings (benchmark, deterministic,
        enabled, allow_tf32, benchmark_limit), and the statements importing the module
        (``import torch.backends.cudnn as cudnn``, ``from torch.backends import cudnn``), once each.
    Why it matters on NPU:
        There is no cuDNN on an Ascend host: the flags are accepted and do nothing, so code that
        relies on them for determinism or speed gets neither. TF32 has an NPU analogue (HF32).
    Example:
        torch.backends.cudnn.benchmark = True
    Use instead:
        Remove it; for TF32 use torch.npu.conv.allow_hf32 / torch.npu.matmul.allow_hf32.
    Fix safety:
        No fix.
    """

    code = "NPU213"
    name = "cudnn-flags"
    groups = ("backends_cudnn",)
    triggers = ("cudnn",)
    message = "{api} has no effect on NPU (no cuDNN): {advice}"
    must_fire = ("import torch\ntorch.backends.cudnn.benchmark = True\n",
                 "import torch\nmonkeypatch.setattr(torch.backends, 'cudnn', None)\nmonkeypatch.setattr(torch.backends.cudnn, 'x', 1)\n",
                 "import torch.backends.cudnn as cudnn\ncudnn.deterministic = True\n",
                 "from torch.backends import cudnn\nif cudnn.enabled:\n    pass\n",
                 "import torch.backends.cudnn as cudnn\n", "import torch.backends.cudnn\n",
                 "from torch.backends import cudnn\n",
                 # the namespace read by ``getattr`` of a literal name, set after existence probes
                 "import torch\ncudnn = getattr(torch.backends, 'cudnn', None)\nif cudnn is not None:\n"
                 "    cudnn.deterministic = True\n")
    must_not_fire = ("import torch\ntorch.use_deterministic_algorithms(True)\n", "from torch.backends import mps\n",
                     "import torch.backends.mps as mps\n",
                     # probes that use nothing of it: whether it exists, whether it has a flag
                     "import torch\ncudnn = getattr(torch.backends, 'cudnn', None)\nok = cudnn is not None\n"
                     "tf32 = hasattr(cudnn, 'allow_tf32')\n")

    def describe(self, api: str, row: dict[str, str], ctx: FileContext) -> str:
        hf32 = next((word for word in _npu(row).split() if word.startswith("torch.npu.")), "")
        if api.endswith("allow_tf32") and hf32:
            advice = f"the NPU analogue is {hf32}"
        elif api.endswith("deterministic"):
            advice = "use torch.use_deterministic_algorithms(True)"
        else:
            advice = "remove it"
        return self.message.format(api=api, advice=advice)


class CudaBackendFlags(_ApiGroupRule):
    """``torch.backends.cuda`` switches: TF32 matmul, SDP kernel selection, cuFFT plan cache.

    What it does:
        Flags ``torch.backends.cuda.*`` (``matmul.allow_tf32``, ``sdp_kernel``, ``enable_flash_sdp``,
        ``cufft_plan_cache``, ``preferred_linalg_library``, ...).
    Why it matters on NPU:
        None of these reach the NPU. TF32 maps to HF32 (``torch.npu.matmul.allow_hf32``), the FFT plan
        cache to ``torch.npu.backends.fft_plan_cache``; the SDP switches have no NPU counterpart.
    Example:
        torch.backends.cuda.matmul.allow_tf32 = True
    Use instead:
        torch.npu.matmul.allow_hf32 = True
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU214"
    name = "cuda-backend-flags"
    groups = ("backends_cuda",)
    message = "{api} does not reach the NPU: {npu}"
    must_fire = ("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n",
                 "import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=True):\n    pass\n")
    must_not_fire = ("import torch\ntorch.backends.mps.is_available()\n",)

    def describe(self, api: str, row: dict[str, str], ctx: FileContext) -> str:
        npu = _npu(row)
        return self.message.format(api=api, npu=f"use {npu}" if npu else "no NPU counterpart, remove it")


class CudaExtension(_ApiGroupRule):
    """Custom CUDA extensions built with ``torch.utils.cpp_extension``.

    What it does:
        Flags ``CUDAExtension``, ``CUDA_HOME``, and ``load`` / ``load_inline`` calls that compile CUDA
        sources (``.cu`` files, ``cuda_sources=``, ``with_cuda=True``, ``extra_cuda_cflags=``), their import line
        (``from torch.utils.cpp_extension import BuildExtension, CUDAExtension``), and ``BuildExtension`` in a
        file that builds CUDA code (it names ``CUDAExtension`` / ``CUDA_HOME`` or a ``.cu`` source).
    Why it matters on NPU:
        CUDA kernels do not build or run on Ascend; each operator must be rewritten (Ascend C,
        op-plugin) or replaced by an existing torch_npu operator.
    Example:
        ext = load(name="roi_align", sources=["roi_align.cpp", "roi_align_kernel.cu"])
    Use instead:
        torch_npu.utils.cpp_extension.NpuExtension with an Ascend C kernel, or a torch_npu fused op.
    Fix safety:
        No fix.
    """

    code = "NPU215"
    name = "cuda-extension"
    node_types = (ApiRef, ast.ImportFrom)   # no CUDA extension is imported from torch.cuda
    groups = ("cpp_extension",)
    triggers = ("cpp_extension", "CUDA")
    message = "{api} builds CUDA code, which cannot run on NPU: {npu}"
    import_message = "{names} imported from torch.utils.cpp_extension: the build compiles CUDA code, which cannot run on NPU: {npu}"
    must_fire = ("from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('x', ['x.cu'])\n",
                 "from torch.utils.cpp_extension import load\nm = load(name='m', sources=['m.cpp', 'm_kernel.cu'])\n",
                 "import torch.utils.cpp_extension as ce\nm = ce.load_inline('m', cpp_sources=a, cuda_sources=b)\n",
                 # the import of the CUDA builders, and the build command of a setup.py that builds CUDA code
                 "from torch.utils.cpp_extension import (  # NPU215\n    BuildExtension,\n    CUDAExtension,\n)\n",
                 "from torch.utils.cpp_extension import BuildExtension, CUDAExtension  # NPU215\n"
                 "setup(ext_modules=[CUDAExtension('x', ['x.cu'])],  # NPU215\n"
                 "      cmdclass={'build_ext': BuildExtension})  # NPU215\n",
                 "import torch\nfrom setuptools import setup\nsetup(ext_modules=make(['a.cu']),\n"
                 "      cmdclass={'build_ext': torch.utils.cpp_extension.BuildExtension})  # NPU215\n")
    must_not_fire = ("from torch.utils.cpp_extension import load\nm = load(name='m', sources=['m.cpp'])\n",
                     "from torch.utils.cpp_extension import CppExtension\next = CppExtension('x', ['x.cpp'])\n",
                     "from torch.utils.cpp_extension import BuildExtension, CppExtension\n"
                     "setup(ext_modules=[CppExtension('x', ['x.cpp'])], cmdclass={'build_ext': BuildExtension})\n")

    def check(self, ref: object, ctx: FileContext) -> None:
        if isinstance(ref, ast.ImportFrom):
            self._imported(ref, ctx)
            return
        row = api_row(ref.qualname)
        if row is None or row["group"] not in self.groups:
            return
        last = ref.qualname.rsplit(".", 1)[-1]
        if last == "BuildExtension" and not _builds_cuda_file(ctx):
            return   # the build command of C++ extensions only (``CppExtension``)
        if last in ("load", "load_inline"):
            call = ctx.call_of(ref.node)
            if call is None or not _builds_cuda(call):
                return
        ctx.report(ref.node, self.describe(ref.qualname, row, ctx), ref.qualname)

    def _imported(self, node: ast.ImportFrom, ctx: FileContext) -> None:
        """``from torch.utils.cpp_extension import BuildExtension, CUDAExtension``: the import line of the CUDA
        builders (``CUDAExtension``, ``CUDA_HOME``; ``BuildExtension`` in a file that builds CUDA code); ``load`` is
        judged where it is called (C++ sources only build for the host)."""
        if node.module != "torch.utils.cpp_extension" or node.level:
            return
        names = [alias.name for alias in node.names
                 if alias.name in ("CUDAExtension", "CUDA_HOME")
                 or (alias.name == "BuildExtension" and _builds_cuda_file(ctx))]
        if names:
            row = api_row(f"torch.utils.cpp_extension.{names[0]}")
            ctx.report(node, self.import_message.format(names=", ".join(names), npu=_npu(row) if row else ""),
                       f"torch.utils.cpp_extension.{names[0]}")


def _builds_cuda_file(ctx: FileContext) -> bool:
    """The file builds CUDA code: it names ``CUDAExtension`` or ``CUDA_HOME``, or lists a ``.cu`` source."""
    return ctx.mentions("CUDAExtension") or ctx.mentions("CUDA_HOME") or ctx.mentions(".cu'") \
        or ctx.mentions('.cu"') or ctx.mentions("*.cu")
