"""NPU2xx rules on code shapes: ``.cuda()`` calls, ``.is_cuda``, and imports of CUDA-only
libraries and compiled CUDA extension modules."""
from __future__ import annotations

import ast
import os
import sys
from typing import Optional

from npu_lint.analysis.nodes import walk as _walk_nodes   # ``ast.walk``: the same nodes, in its order
from npu_lint.analysis.bindings import CLASS, DEF, IMPORT, VALUE
from npu_lint.context import FileContext
from npu_lint.cuda_kernels import factory_launch, kernel_launch, npu_backend
from npu_lint.extension_values import extension_receiver, imported_operator, table_operator
from npu_lint.cuda_facts import (OTHER, built_here, cuda_named, extension_module, imported_names, instance_class,
                                 is_docstring, is_extension_import, library_row, library_words, string_use, switch_row,
                                 switch_values, switch_words)
from npu_lint.rules import ApiRef, Rule, method_position, short_source

FAMILY = "cuda"
# calls that load a module or a shared library by name (NPU221 judges what they load)
_LOADED_BY_CALL = ("torch.ops.load_library", "ctypes.CDLL", "ctypes.cdll.LoadLibrary", "ctypes.CDLL.LoadLibrary",
                   "importlib.import_module")
# cuda_libraries.tsv ``reported``: each use and the import, or the uses only (a settings class of a library that runs
# on NPU otherwise, ``transformers.BitsAndBytesConfig``: importing it loads no CUDA code, making one asks for it);
# ``portable``: a pure-PyTorch part of such a library, never reported (``torch_scatter.scatter_add``, ``gsplat.utils``:
# their source is torch operators only, which run on the NPU; session 24, precision24).
_EACH_USE = ("each use", "uses only")


class CudaMethod(Rule):
    """A ``.cuda()`` call on a tensor or module.

    What it does:
        Flags every ``x.cuda(...)`` call, whatever the receiver (tensor, module, ``super()``); a receiver
        spanning lines (a call of several lines, then ``.cuda()``) is reported on the line of ``.cuda()``.
    Why it matters on NPU:
        ``.cuda()`` moves data to a CUDA device, which an Ascend host does not have; without
        ``transfer_to_npu`` it raises.
    Example:
        model = model.cuda()
    Use instead:
        model = model.npu()   # or model.to(device) with device = torch.device("npu", rank)
    Fix safety:
        Safe: ``npu-lint check --fix`` renames the call to ``.npu()`` (``import torch_npu`` must run first).
    """

    code = "NPU203"
    fix_safety = "safe"
    name = "cuda-method"
    family = FAMILY
    node_types = (ast.Call,)
    methods = frozenset({"cuda"})   # dispatch: the calls judged
    triggers = (".cuda(",)
    message = ".cuda() moves to a CUDA device: use .npu() (or .to(device) with an 'npu' device)"
    must_fire = ("model = model.cuda()\n", "x = batch['x'].float().cuda(non_blocking=True)\n",
                 "import torch\ny = self.net.cuda(local_rank)\n",
                 "y = decode(\n    codes,\n    table,\n).cuda()\n")
    must_not_fire = ("model = model.npu()\n", "import torch\nn = torch.cuda.device_count()\n",
                     "x.cuda_graph_enabled()\n")

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "cuda":
            qualname = ctx.resolver.qualname(func)
            if qualname is None or not qualname.startswith(("torch.cuda", "numba")):
                ctx.report(node, self.message, "Tensor.cuda", at=method_position(node))


class IsCuda(Rule):
    """The ``.is_cuda`` attribute.

    What it does:
        Flags reads of ``x.is_cuda``.
    Why it matters on NPU:
        An NPU tensor has ``is_cuda == False``: code that branches on it takes the CPU path.
        ``transfer_to_npu`` patches ``Tensor.is_cuda`` only; storages and PackedSequence keep theirs.
    Example:
        if x.is_cuda: ...
    Use instead:
        if x.is_npu: ...
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU204"
    name = "is-cuda"
    family = FAMILY
    node_types = (ast.Attribute,)
    triggers = ("is_cuda",)
    message = ".is_cuda is False for NPU tensors: use .is_npu"
    must_fire = ("if x.is_cuda:\n    pass\n", "flags = [t.is_cuda for t in ts]\n")
    must_not_fire = ("if x.is_npu:\n    pass\n", "is_cuda = True\n")

    def check(self, node: ast.Attribute, ctx: FileContext) -> None:
        if node.attr == "is_cuda":
            ctx.report(node, self.message, "Tensor.is_cuda")


class _LibraryImport(Rule):
    family = FAMILY
    node_types = (ast.Import, ast.ImportFrom, ApiRef)
    message = "{name} is CUDA-only; on NPU: {alternative}"
    use_message = "{api} is from {name}, CUDA-only; on NPU: {alternative}"

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        row = library_row(qualname)
        return row is not None and row["code"] == cls.code and row["reported"] in _EACH_USE

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ApiRef):
            self._use(node, ctx)
            return
        self._imports(node, ctx)

    def _use(self, node: ApiRef, ctx: FileContext) -> None:
        """Each use of a name from a library the table reports at each use (``amp.scale_loss(loss, opt)`` after
        ``from apex import amp``, ``bnb.optim.AdamW8bit(...)``), however the name arrived (an alias, an import
        in a ``try`` or under ``if has_apex:``, a star import of a project module that imports it): called,
        decorating or a base class. The module itself, tested or passed on, is no use."""
        row = library_row(node.qualname)
        if row is None or row["code"] != self.code or row["reported"] not in _EACH_USE \
                or (node.qualname == row["module"] and row["kind"] == "module") or not _used(node.node, ctx) \
                or _has_fallback(node.node, row["module"], ctx):
            return   # the check stands without the dispatch (tests run it ungated); the module itself is no use
        ctx.report(node.node, self.use_message.format(api=node.qualname, name=row["library"],
                                                      alternative=row["npu_alternative"]), node.qualname)

    def _imports(self, node: ast.AST, ctx: FileContext) -> None:
        for name, level in imported_names(node):
            row = library_row(name) if level == 0 else None
            if row is not None and row["code"] == self.code and row["reported"] not in ("uses only", "portable"):
                ctx.report(node, self.message.format(name=name, alternative=row["npu_alternative"]), name)


class ApexImport(_LibraryImport):
    """An import from NVIDIA apex (``apex.amp``, ``amp_C``, fused optimizers and layers).

    What it does:
        Flags each name imported from ``apex`` and the imports of its CUDA modules ``amp_C`` and
        ``fused_layer_norm_cuda``, and each use of a name from ``apex`` (``amp.initialize(...)``,
        ``with amp.scale_loss(loss, optimizer)``, ``amp.master_params(optimizer)``, ``FusedAdam(params)``), however
        the name arrived: an alias, an import under ``if has_apex:`` or in a ``try``, a star import of a project
        module that imports it. A use is silent when the name also has a portable fallback where it is bound
        (``except ImportError: LayerNorm = torch.nn.LayerNorm``): the import is the line to change.
    Why it matters on NPU:
        NVIDIA apex builds CUDA kernels; Ascend ships a fork of apex (``apex.amp`` and ``NpuFused*``
        optimizers) and ``torch_npu.optim``. ``amp_C`` has no NPU build: the manual says to delete it.
    Example:
        from apex.optimizers import FusedAdam
    Use instead:
        from torch_npu.optim import NpuFusedAdam
    Fix safety:
        No fix.
    """

    code = "NPU216"
    name = "apex-import"
    triggers = ("apex", "amp_C", "fused_layer_norm_cuda")
    must_fire = ("from apex import amp\n", "import amp_C\n", "from apex.optimizers import FusedAdam, FusedLAMB\n",
                 "try:\n    from apex import amp\nexcept ImportError:\n    amp = None\n"
                 "def step(loss, optimizer):\n    with amp.scale_loss(loss, optimizer) as scaled:  # NPU216\n"
                 "        scaled.backward()\n",
                 "import apex\ndef setup(model, optimizer):\n"
                 "    return apex.amp.initialize(model, optimizer, opt_level='O1')  # NPU216\n")
    must_not_fire = ("import apexpy\n", "from torch_npu.optim import NpuFusedAdam\n")
    # the uses that stay silent (a portable fallback bound in the ``except`` arm) are pinned line by line in
    # tests/fixtures/cuda/third_party.py: the import there fires.


class CudaOnlyLibrary(_LibraryImport):
    """An import or a use of a CUDA-only library (cupy, RAPIDS, pynvml, triton, flash_attn, bitsandbytes, ...).

    What it does:
        Flags imports of libraries whose kernels or queries exist only for NVIDIA GPUs, and, as ruff's
        banned-API rule does, each use of a name from them in host code (``pynvml.nvmlDeviceGetCount()``,
        ``flash_attn_func(q, k, v)``, ``bnb.optim.AdamW8bit(...)``), and each method called on a name holding an
        object one of their classes made (``knn = cuml.neighbors.NearestNeighbors(...)``; ``knn.fit(x)``): every
        such line needs a replacement.
        The kernel languages (Triton, ``numba.cuda``) are reported at the import, at each kernel's decorator
        (``@triton.jit``, ``@cuda.jit``) and at each launch (``_k[grid](x, n)`` of a kernel of the file, or of a
        project module in a file that imports the language), not inside the kernel body, which is rewritten whole;
        a kernel CuPy compiles at run time is reported where a function of the file that makes it is called and
        its result launched (``cupy_launch("splat", src)(grid=..., args=[...])``, the factory memoised by
        ``@cupy.memoize`` or returning ``cupy.RawModule(...).get_function(...)``);
        a file of the project's NPU port (it imports ``torch_npu``, or sits in an ``ascend`` / ``npu`` package)
        keeps its triton-ascend kernels. The 3D CUDA packages (gsplat, diff-gaussian-rasterization, 3DGS's
        ``simple_knn._C``, spconv, torch-scatter / -sparse / -cluster) are reported at the import and each use
        (``cuda_libraries.tsv`` says which library is reported how). The table also
        names the CUDA-only parts of libraries that run on the host otherwise (faiss's GPU build:
        ``faiss.StandardGpuResources``, ``faiss.index_cpu_to_gpu``; pymatting's CuPy backend), also reached through
        a module a class keeps (``TabR.faiss = faiss`` after a lazy ``import faiss``), and settings that make a
        library load CUDA-only kernels (``attn_implementation="flash_attention_2"``, ``use_flash_attention_2=True``
        in transformers before 4.51; Lightning's ``accelerator="gpu"``, which is MPS or CUDA and nothing else;
        ``torch.compile(mode="reduce-overhead")`` / ``"max-autotune"``, inductor's CUDA graphs; onnxruntime's
        ``CUDAExecutionProvider`` / ``TensorrtExecutionProvider`` wherever the code keeps the name, not where it
        tests it: ``cuda_attention_switches.tsv``).
    Why it matters on NPU:
        They fail to import, or import and fail at the first kernel, on an Ascend host. The message
        names the NPU alternative where one exists (``npu_fusion_attention`` for flash attention,
        ``triton-ascend`` for Triton, ``torch_npu.npu`` queries for NVML).
    Example:
        from flash_attn import flash_attn_func
    Use instead:
        torch_npu.npu_fusion_attention(q, k, v, head_num, "BSND")
    Fix safety:
        No fix.
    """

    code = "NPU217"
    name = "cuda-only-library"
    triggers = ("cupy", "nvml", "nvidia_smi", "triton", "flash_attn", "xformers", "bitsandbytes", "mamba_ssm",
                "causal_conv1d", "pycuda", "numba", "GPUtil", "gpustat", "nerfacc", "tinycudann", "dali", "faiss",
                "pymatting", "flash_attention", "accelerator") + library_words("NPU217") + switch_words()
    node_types = (ast.Import, ast.ImportFrom, ApiRef, ast.Constant, ast.Call, ast.keyword)
    constant_types = (str,)   # dispatch: the library's name given to importlib
    by_name_message = "{call}({name!r}) {what} {module}, CUDA-only; on NPU: {alternative}"
    launch_message = "{kernel}[...](...) launches a {library} GPU kernel, CUDA-only; on NPU: {alternative}"
    factory_message = "{factory}(...)(...) launches a kernel {library} built, CUDA-only; on NPU: {alternative}"
    must_fire = ("import cupy as cp\n", "from cuml.neighbors import NearestNeighbors\n",
                 "import transformer_engine.pytorch as te\nwith te.fp8_autocast(enabled=True):  # NPU217\n    pass\n", "import GPUtil\n", "import nvidia.dali.fn as fn\n", "import nerfacc\n", "import triton.language as tl\n", "from numba import cuda\n",
                 "from flash_attn import flash_attn_func\n", "import pynvml\n",
                 "try:\n    import pynvml\nexcept ImportError:\n    pynvml = None\n"
                 "def free_memory(i):\n    handle = pynvml.nvmlDeviceGetHandleByIndex(i)  # NPU217\n"
                 "    return pynvml.nvmlDeviceGetMemoryInfo(handle).free  # NPU217\n",
                 "import bitsandbytes as bnb\ndef make(params):\n    return bnb.optim.AdamW8bit(params, lr=1e-4)  # NPU217\n",
                 "import cuml\ndef neighbours(x, k):\n    knn = cuml.neighbors.NearestNeighbors(n_neighbors=k)  # NPU217\n"
                 "    knn.fit(x)  # NPU217\n    return knn.kneighbors(x)  # NPU217\n",
                 "from flash_attn import flash_attn_func\ndef attend(q, k, v):\n"
                 "    return flash_attn_func(q, k, v, causal=True)  # NPU217\n",
                 "def _load():\n    try:\n        from flash_attn_interface import flash_attn_func\n"
                 "    except ImportError:\n        return None\n    return flash_attn_func\n"
                 "def attend(q, k, v):\n    fn = _load()\n    return fn(q, k, v)  # NPU217\n",
                 "def _load():\n    try:\n        from flash_attn.cute import flash_attn_func\n        return flash_attn_func\n"
                 "    except ImportError:\n        from flash_attn import flash_attn_func\n        return flash_attn_func\n"
                 "def attend(q, k, v):\n    return _load()(q, k, v)  # NPU217\n")
    must_not_fire = ("import numba\n", "from numba import jit\n", "import tritonclient\n",
                     "def neighbours(knn, x):\n    knn.fit(x)\n    return knn.kneighbors(x)\n",
                     "def f(pynvml):\n    return pynvml.nvmlDeviceGetCount()\n",
                     "def gpu_count(nvml):\n    return nvml.nvmlDeviceGetCount()\n",
                     "import importlib\nprint('flash_attn')\nmod = importlib.import_module('numpy')\n",
                     "import torch\ndef _load():\n    return torch.nn.functional.scaled_dot_product_attention\n"
                     "def attend(q, k, v):\n    fn = _load()\n    return fn(q, k, v)\n")
    must_fire += (  # a CUDA-only part of a library that also runs on the host (faiss's GPU build, pymatting's CuPy)
                  "import faiss\ndef build(d):\n    return faiss.GpuIndexFlatL2(faiss.StandardGpuResources(), d)  # NPU217\n",
                  "from pymatting.foreground.estimate_foreground_ml_cupy import estimate_foreground_ml_cupy\n",
                  # the module kept on a class by a lazy import
                  "class Knn:\n    faiss = None\n    def load(self):\n        import faiss\n        Knn.faiss = faiss\n"
                  "    def index(self, d):\n        return Knn.faiss.GpuIndexFlatL2(Knn.faiss.StandardGpuResources(), d)  # NPU217\n",
                  # a library setting that selects CUDA-only kernels (cuda_attention_switches.tsv)
                  "from transformers import AutoModel\nm = AutoModel.from_pretrained(name, attn_implementation='flash_attention_2')\n",
                  "from transformers import AutoModel\nm = AutoModel.from_pretrained(name, use_flash_attention_2=flash)\n",
                  # Lightning's 'gpu' accelerator is MPS or CUDA, nothing else
                  "import lightning as L\ntrainer = L.Trainer(accelerator='gpu', devices=1, max_epochs=3)  # NPU217\n",
                  "kwargs = {'attn_implementation': 'flash_attention_3'}\n",
                  # the default a caller leaving the setting out gets: a parameter, a config class's field
                  "class Actor:\n    def __init__(self, name, attn_implementation='flash_attention_2'):  # NPU217\n"
                  "        self.name = name\n",
                  "from dataclasses import dataclass\n@dataclass\nclass EngineConfig:\n"
                  "    attn_implementation: str = 'flash_attention_2'  # NPU217\n")
    must_fire += ("from torch_scatter import scatter_max\n",   # torch.ops.torch_scatter: CPU and CUDA kernels only
                  "import torch_scatter\ndef pool(x, i):\n    return torch_scatter.segment_csr(x, i)  # NPU217\n")
    must_not_fire += (  # session 24 (precision24): pure-PyTorch parts of such a library (cuda_libraries.tsv: portable)
        "from torch_scatter import scatter_mean, scatter_add\ndef pool(x, i):\n    return scatter_mean(x, i, dim=0)\n",
        "from gsplat.utils import normalized_quat_to_rotmat\ndef rot(q):\n    return normalized_quat_to_rotmat(q)\n")
    must_not_fire += ("import faiss\nindex = faiss.IndexFlatL2(d)\nn = faiss.get_num_gpus()\n",
                      "from transformers import AutoModel\n"
                      "m = AutoModel.from_pretrained(name, attn_implementation='sdpa', use_flash_attention_2=False)\n",
                      "impl = 'flash_attention_2' if has_flash else 'eager'\n",
                      "import lightning as L\ntrainer = L.Trainer(accelerator='auto', devices=1)\nacc = 'gpu'\n",
                      "def load(name, attn_implementation='sdpa', impl='flash_attention_2'):\n    pass\n",
                      "ATTN_IMPLEMENTATION = 'flash_attention_2'\n",
                      "@require_flash_attn\ndef test_fa2(self):\n    self.check(attn_implementation='flash_attention_2')\n",
                      "class Knn:\n    faiss = None\n    def load(self, lib):\n        Knn.faiss = lib\n"
                      "    def index(self, d):\n        return Knn.faiss.GpuIndexFlatL2(d)\n")
    must_fire += (  # the library imported, or looked for, by its name
                  "import importlib.util\nHAS_FLASH = importlib.util.find_spec('flash_attn') is not None\n",
                  "import importlib\nbnb = importlib.import_module('bitsandbytes')\n",
                  # a settings class whose use asks a library for CUDA-only kernels (reported: uses only)
                  "from transformers import AutoModel, BitsAndBytesConfig\n"
                  "cfg = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4')  # NPU217\n",
                  "from tensordict.nn import CudaGraphModule\nstep = CudaGraphModule(update, warmup=5)  # NPU217\n")
    must_not_fire += ("from transformers import AutoModel, BitsAndBytesConfig\n",)
    must_fire += (  # a kernel language: each kernel's decorator and each launch (the body is rewritten whole)
                  "import triton\n@triton.jit  # NPU217\ndef _k(x_ptr, n):\n    pass\n"
                  "def run(x):\n    _k[(x.numel(),)](x, x.numel())  # NPU217\n",
                  "import triton\n@triton.autotune(configs=[], key=['n'])\n@triton.jit  # NPU217\ndef _k(x_ptr, n):\n"
                  "    pass\n",
                  "import triton\nfrom .kernels import _fwd_kernel\ndef run(x, grid):\n"
                  "    _fwd_kernel[grid](x)  # NPU217\n",
                  "from numba import cuda\n@cuda.jit  # NPU217\ndef add(a):\n    pass\nadd[1, 32](a)  # NPU217\n",
                  # third-party CUDA extension packages (3D: splatting, sparse conv, scatter ops)
                  "from gsplat import rasterization\ndef render(*args):\n    return rasterization(*args)  # NPU217\n",
                  "import spconv.pytorch as spconv\nconv = spconv.SubMConv3d(16, 32, 3)  # NPU217\n",
                  "from simple_knn._C import distCUDA2\nd = distCUDA2(points)  # NPU217\n",
                  # NVIDIA's cuEquivariance kernels, imported lazily where a model picks its implementation
                  "def tri_attention(q, k, v, bias, mask, scale):\n"
                  "    from cuequivariance_ops_torch import triangle_attention as f\n"
                  "    return f(q, k, v, bias, mask, scale)  # NPU217\n",
                  "from torch_scatter import scatter_max\ny, arg = scatter_max(x, index, dim=0)  # NPU217\n",   # (scatter_mean: pure PyTorch, portable)
                  # CUDA-only kernel packages of LLM quantization, serving, attention and rendering (session 23)
                  "import awq_ext\ndef gemm(x, w, s, z):\n    return awq_ext.gemm_forward_cuda(x, w, s, z, 8)  # NPU217\n",
                  "import awq_ext\nclass MLP:\n    def __init__(self):\n"
                  "        self.linear = awq_ext.gemv_forward_cuda  # NPU217\n",
                  "from flashinfer.prefill import single_prefill_with_kv_cache\n",
                  "from functools import partial\nimport sageattention\n"
                  "attn = partial(sageattention.sageattn, tensor_layout='NHD')  # NPU217\n",
                  "import nvdiffrast.torch as dr\ndef raster(ctx, v, f):\n    return dr.rasterize(ctx, v, f, (64, 64))  # NPU217\n")
    must_not_fire += ("def run(layers, i, x):\n    return layers[i](x)\n",
                      "class MLP:\n    def __init__(self, kernels):\n        self.linear = kernels.gemv_forward_cuda\n",
                      "import simple_knn\n",
                      "from .kernels import table\ndef run(x, i):\n    return table[i](x)\n",
                      # a factory of the file whose result is called: a kernel only when a CUDA-only library made it
                      # (``cupy_launch(name, src)(grid=..., args=...)``: pinned in tests/fixtures/cuda/cupy_kernels.py)
                      "import torch\ndef make(c):\n    return torch.nn.Linear(c, c)\ndef run(x):\n    return make(4)(x)\n")
    must_fire += (  # session 26 (cuda26): plugins and settings of CUDA-only kernels, NVIDIA TensorRT
                  "from lightning.fabric.plugins import BitsandbytesPrecision\ndef plugins(dtype):\n"
                  "    return BitsandbytesPrecision('nf4', dtype)  # NPU217\n",
                  "import tensorrt as trt\n",
                  "import torch\nstep = torch.compile(step, mode='reduce-overhead')  # NPU217\n",
                  "import onnxruntime as ort\nsess = ort.InferenceSession(path, providers=['CUDAExecutionProvider'])  # NPU217\n")
    must_not_fire += ("from lightning.fabric.plugins import BitsandbytesPrecision\n"
                      "def quantized(fabric):\n    return isinstance(fabric.strategy.precision, BitsandbytesPrecision)\n",
                      "import torch\nstep = torch.compile(step, mode='max-autotune-no-cudagraphs')\n",
                      "import onnxruntime as ort\nuse_gpu = 'CUDAExecutionProvider' in ort.get_available_providers()\n")
    # The import fires in any example that can resolve a library name, so the uses that stay silent (Triton kernel
    # bodies, ``triton.cdiv(n, BLOCK)``, ``layers[i](x)`` beside a kernel launch, ``flash_attn_func is not None``) are
    # pinned line by line in tests/fixtures/cuda/ext_and_libs.py; the kernels of a triton-ascend port (a file that
    # imports torch_npu) in tests/fixtures/cuda/triton_ascend.py.

    @classmethod
    def wants_call(cls, name: Optional[str], method: Optional[str]) -> bool:
        # dispatch: a local name called (``fn(q, k, v)``), a method called on a name (``knn.fit(x)``)
        return method is not None or name is None

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Subscript):
                self._launch(node, ctx)
            elif isinstance(node.func, ast.Call):
                self._factory_launch(node, ctx)
            elif isinstance(node.func, ast.Attribute):
                self._instance_call(node, ctx)
            else:
                self._loaded(node, ctx)
            return
        if isinstance(node, ast.Constant):
            self._by_name(node, ctx)
            self._switched_on(node, ctx)
            return
        if isinstance(node, ast.keyword):
            self._flag(node, ctx)
            return
        super().check(node, ctx)


    def _use(self, node: ApiRef, ctx: FileContext) -> None:
        row = library_row(node.qualname)
        if row is not None and row["kind"] == "api" and row["module"].endswith(".jit") and npu_backend(ctx):
            return   # a kernel of the project's NPU port (triton-ascend)
        super()._use(node, ctx)

    def _launch(self, node: ast.Call, ctx: FileContext) -> None:
        """``_k[grid](x, n, BLOCK=128)``: a launch of a kernel a kernel compiler built (:func:`kernel_launch`)."""
        found = kernel_launch(node, ctx)
        if found is not None:
            kernel, row = found
            ctx.report(node, self.launch_message.format(kernel=kernel, library=row["library"],
                                                        alternative=row["npu_alternative"]), row["module"])

    def _factory_launch(self, node: ast.Call, ctx: FileContext) -> None:
        """``cupy_launch(name, source)(grid=..., args=[...])``: a launch of a kernel a function of the file made with
        a CUDA-only library (:func:`factory_launch`)."""
        found = factory_launch(node, ctx)
        if found is not None:
            factory, row = found
            ctx.report(node, self.factory_message.format(factory=factory, library=row["library"] or row["module"],
                                                         alternative=row["npu_alternative"]), row["module"])

    def _instance_call(self, node: ast.Call, ctx: FileContext) -> None:
        """``knn = cuml.neighbors.NearestNeighbors(n_neighbors=k); knn.fit(x)``: a method called on a name holding
        an object a CUDA-only library's class made (every binding reaching the call made one) runs that library's
        kernels as the constructor does."""
        func = node.func
        api = instance_class(func.value, ctx) if isinstance(func, ast.Attribute) else None
        row = library_row(api) if api else None
        if row is None or row["code"] != self.code or row["reported"] not in _EACH_USE \
                or (row["kind"] == "module" and api == row["module"]):
            return
        scopes = ctx.resolver.scopes
        made = scopes.lookup(func.value.id, ctx.resolver.current, (func.value.lineno, func.value.col_offset)) \
            if scopes is not None else None
        if made is None or _has_fallback(made.value.func, row["module"], ctx):
            return   # the constructor has a portable fallback: so has the object
        ctx.report(node, self.use_message.format(api=f"{func.value.id}.{func.attr}() on a {api}",
                                                 name=row["library"], alternative=row["npu_alternative"]), api)

    def _loaded(self, node: ast.Call, ctx: FileContext) -> None:
        """``fn = _load_fa3_func(); fn(q, k, v)``: a name bound to what a function of the file returns, when that
        function returns one library name only (the lazy import of an optional CUDA-only kernel, ``from
        flash_attn_interface import flash_attn_func; return flash_attn_func``, else None)."""
        value = node.func if isinstance(node.func, ast.Call) else \
            ctx.resolver.bound_value(node.func) if isinstance(node.func, ast.Name) else None
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name):
            return
        function = ctx.resolver.definition(value.func)
        scopes = ctx.resolver.scopes
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or scopes is None:
            return
        scope = scopes.scope_of(function)
        names = set()
        for inner in _walk_nodes(function):
            if isinstance(inner, ast.Return) and inner.value is not None \
                    and not (isinstance(inner.value, ast.Constant) and inner.value.value is None):
                names.add(ctx.resolver.qualname(inner.value, scope) if isinstance(inner.value, ast.Name) else None)
        rows = [library_row(api) if api else None for api in sorted(names, key=str)]
        if not rows or any(row is None or row["code"] != self.code or row["reported"] not in _EACH_USE for row in rows) \
                or any(api == row["module"] and row["kind"] == "module" for api, row in zip(sorted(names, key=str), rows)):
            return   # every return is a function of a CUDA-only library (FA3, else FA2), none a module or a value
        api, row = min(names, key=str), rows[0]
        ctx.report(node, self.use_message.format(api=f"{short_source(node.func, 40)} ({value.func.id}() returns {api})",
                                                 name=row["library"], alternative=row["npu_alternative"]), api)

    switch_message = "{argument}={value} asks {library} for {needs}, CUDA-only{since}; on NPU: {alternative}"

    def _switched_on(self, node: ast.Constant, ctx: FileContext) -> None:
        """``attn_implementation="flash_attention_2"``: a library's setting that selects CUDA-only kernels
        (``cuda_attention_switches.tsv``), given as a keyword, a dict entry (``model_kwargs``), stored on a
        config (``config._attn_implementation = ...``, ``kwargs["attn_implementation"] = ...``) or the default of a
        parameter or a config class's field of that name (what a caller leaving it out gets). A plain variable
        holding the value is not judged: it may be the outcome of an availability test."""
        if not isinstance(node.value, str) or node.value not in switch_values():
            return
        parent = ctx.parent(node)
        argument: Optional[str] = None
        if isinstance(parent, ast.keyword):
            argument = parent.arg
        elif isinstance(parent, ast.Dict):
            key = next((k for k, v in zip(parent.keys, parent.values) if v is node), None)
            argument = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        elif isinstance(parent, ast.arguments):
            argument = _parameter_of_default(node, parent)
        elif isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node \
                and len(getattr(parent, "targets", [None])) == 1:
            target = parent.targets[0] if isinstance(parent, ast.Assign) else parent.target
            if isinstance(target, ast.Attribute):
                argument = target.attr.lstrip("_")
            elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
                argument = target.slice.value if isinstance(target.slice.value, str) else None
            elif isinstance(target, ast.Name) and isinstance(ctx.parent(parent), ast.ClassDef):
                argument = target.id   # a config class's field default (a dataclass, a pydantic model)
        row = switch_row(argument, node.value) if argument else None
        if row is None and switch_row("providers", node.value) is not None and not is_docstring(node, ctx) \
                and string_use(node, ctx) == OTHER:
            # an execution provider's name (onnxruntime's ``CUDAExecutionProvider``) wherever the code keeps it: a
            # ``providers=[...]`` list, a table of providers per device, a variable; not a test of what is available
            argument, row = "providers", switch_row("providers", node.value)
        if row is not None:
            self._report_switch(node, argument, repr(node.value), row, ctx)

    def _flag(self, node: ast.keyword, ctx: FileContext) -> None:
        """``use_flash_attention_2=flash``: a boolean keyword that turns the CUDA-only kernels on, unless it is
        written False (or None / 0)."""
        row = switch_row(node.arg, "True") if node.arg else None
        if row is None or (isinstance(node.value, ast.Constant) and not node.value.value):
            return
        self._report_switch(node.value, node.arg, short_source(node.value, 30), row, ctx)

    def _report_switch(self, node: ast.AST, argument: str, value: str, row: dict[str, str],
                       ctx: FileContext) -> None:
        if _guarded_by_requirement(node, ctx):
            return   # ``@require_flash_attn``: the function runs only where the kernels are installed
        since = f" before {row['library']} {row['npu_since']}" if row["npu_since"] else ""
        ctx.report(node, self.switch_message.format(argument=argument, value=value, library=row["library"],
                                                    needs=row["needs"], since=since,
                                                    alternative=row["npu_alternative"]), f"{row['library']}.{argument}")

    def _by_name(self, node: ast.Constant, ctx: FileContext) -> None:
        """``importlib.import_module("bitsandbytes")``, ``importlib.util.find_spec("flash_attn")``: the library
        imported by its name, or the test of whether it is installed (the branch it guards is the CUDA path)."""
        call = ctx.parent(node)
        if not isinstance(node.value, str) or not isinstance(call, ast.Call) or not call.args or call.args[0] is not node:
            return
        what = _IMPORTERS.get(ctx.resolver.qualname(call.func) or "")
        row = library_row(node.value) if what else None
        if row is not None and row["code"] == self.code:
            ctx.report(node, self.by_name_message.format(call=short_source(call.func, 40), name=node.value, what=what,
                                                         module=row["module"], alternative=row["npu_alternative"]),
                       row["module"])


def _parameter_of_default(node: ast.AST, arguments: ast.arguments) -> Optional[str]:
    """The parameter whose default the node is (``def __init__(self, attn_implementation="flash_attention_2")``):
    what a caller leaves out is that setting."""
    positional = arguments.posonlyargs + arguments.args
    for parameter, default in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults):
        if default is node:
            return parameter.arg
    for parameter, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        if default is node:
            return parameter.arg
    return None


_IMPORTERS = {"importlib.import_module": "imports", "builtins.__import__": "imports", "__import__": "imports",
              "importlib.util.find_spec": "tests for", "pkgutil.find_loader": "tests for",
              "importlib.find_loader": "tests for"}


def _guarded_by_requirement(node: ast.AST, ctx: FileContext) -> bool:
    """The setting sits in a function whose decorator requires the kernels it selects (``@require_flash_attn``,
    ``@pytest.mark.skipif(not is_flash_attn_2_available(), ...)``): a test that skips itself where they are
    missing, as on an Ascend host."""
    current = ctx.parent(node)
    while current is not None:
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if any("flash_attn" in ast.unparse(decorator) for decorator in current.decorator_list):
                return True
        current = ctx.parent(current)
    return False


def _has_fallback(node: ast.expr, module: str, ctx: FileContext) -> bool:
    """The name used is also bound to something portable where it is bound (``try: from apex.normalization import
    FusedLayerNorm as LayerNorm / except ImportError: LayerNorm = torch.nn.LayerNorm``, or a class of the file's
    own): the use runs on an Ascend host with that fallback; the import alone is the CUDA-only line. ``None`` (or
    a raise) in the ``except`` arm is no fallback: the use still needs the library."""
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    scopes = ctx.resolver.scopes
    if not isinstance(root, ast.Name) or scopes is None:
        return False
    binding = scopes.lookup(root.id, ctx.resolver.current, (root.lineno, root.col_offset))
    if binding is None:
        return False
    top = module.split(".", 1)[0]
    bindings = binding.scope.names.get(root.id, ())
    if not any(other.tag == IMPORT and isinstance(other.value, str) and other.value.split(".", 1)[0] == top
               for other in bindings):
        return False   # the library arrives otherwise (``Knn.faiss`` kept on a class): no import to fall back from
    for other in bindings:
        if other.tag == IMPORT:
            if isinstance(other.value, str) and other.value.split(".", 1)[0] not in (top, ""):
                return True
        elif other.tag in (DEF, CLASS):
            return True
        elif other.tag == VALUE and not other.path and isinstance(other.value, ast.AST) \
                and not (isinstance(other.value, ast.Constant) and other.value.value in (None, False)):
            return True
    return False


def _used(node: ast.expr, ctx: FileContext) -> bool:
    """The name is called, decorates or is a base class: a use to replace; so is a member of the library read
    through its module (``linear_type=bnb.nn.Linear4bit``, ``version.parse(flash_attn.__version__)``,
    ``isinstance(m, bnb.nn.Linear8bitLt)``): the line needs the library. A test (``flash_attn_func is not None``,
    ``if bnb.nn:``), a bare name passed as an argument or an alias only passes the name on; a member stored on an
    object (``self.linear = awq_ext.gemv_forward_cuda``, autoawq's fused MLP) is called through the attribute, where
    no import says what it holds: the store is the line that needs the library."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and parent.func is node:
        return True
    if isinstance(parent, ast.Assign) and parent.value is node and isinstance(node, ast.Attribute) \
            and all(isinstance(target, ast.Attribute) for target in parent.targets):
        return True
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node not in parent.body
    if not isinstance(node, ast.Attribute) or isinstance(parent, (ast.Attribute, ast.Assign, ast.AnnAssign,
                                                                   ast.If, ast.While, ast.BoolOp,
                                                                   ast.UnaryOp, ast.Assert)):
        return False   # an alias (``fn = mod.func``), a test, or a longer chain (judged at its own end)
    if isinstance(parent, ast.Compare):
        return not any(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)
    if isinstance(parent, ast.IfExp):
        return node is not parent.test
    return not isinstance(parent, ast.Expr)


class CudaExtensionImport(Rule):
    """An import of a compiled CUDA extension module.

    What it does:
        Flags imports of the compiled modules the project's ``setup.py`` declares (``CUDAExtension("DCNv4.ext",
        ...)``, with a project index), of modules named like compiled CUDA extensions (``nms_cuda``,
        ``deform_conv_cuda``, ``sigmoid_focal_loss_cuda``), relative imports of ``_ext`` / ``_C``, imports in a
        ``try`` whose ``except ImportError`` expects the module may be missing of a module with ``cuda`` among its
        words (``alt_cuda_corr``), and, with the project index, ``_C`` / ``_ext`` / ``*_cuda_*`` modules of the
        project's own package that no Python file defines (``from mypkg import _C``). A Python module of the
        project merely named so stays silent: with the index, any the project defines; without it (one file, flake8),
        a relative import of a Python file beside the analysed one (``from .triton_ops import median_filter_cuda``).
    Why it matters on NPU:
        These are CUDA binaries built by the project; they do not exist on an Ascend host. Each
        operator they export needs an NPU implementation (the ``cuda_op_list`` of the report).
    Example:
        from . import deform_conv_cuda
    Use instead:
        torch_npu.npu_deformable_conv2d, or an Ascend C operator.
    Fix safety:
        No fix.
    """

    code = "NPU221"
    name = "cuda-extension-import"
    family = FAMILY
    node_types = (ast.Import, ast.ImportFrom, ast.Call)
    callees = frozenset(_LOADED_BY_CALL)   # dispatch: the calls that load a module or a shared library
    triggers = ("cuda", "_ext", "_C", "load_library", "CDLL", "LoadLibrary")
    message = "{name} looks like a compiled CUDA extension module: it needs an NPU implementation"
    must_fire = ("import sigmoid_focal_loss_cuda\n", "from . import deform_conv_cuda\n",
                 "from .._ext import roi_align\n", "from . import _C\n",
                 "try:\n    import alt_cuda_corr\nexcept ImportError:\n    alt_cuda_corr = None\n",
                 # the prebuilt copy of an extension the file otherwise compiles under the same name
                 "from torch.utils.cpp_extension import load\ntry:\n    import fastops\nexcept ImportError:\n"
                 "    fastops = load(name='fastops', sources=srcs, extra_cuda_cflags=['-O3'])\n",
                 # loaded by a call: an operator library, a CUDA runtime library, an extension by name
                 "import torch\ntorch.ops.load_library(os.path.join(root, 'libfused_ops.so'))\n",
                 "import ctypes\nrt = ctypes.CDLL('libcudart.so')\n",
                 "import importlib\nops = importlib.import_module('deform_conv_cuda')\n")
    must_not_fire = ("import torch.cuda\n", "from .cuda_utils import get_device\n", "from numba import cuda\n",
                     "from mmcv import _ext\n", "try:\n    from .cuda_utils import get_device\nexcept ImportError:\n    pass\n",
                     "try:\n    import cuda_helpers\nexcept KeyError:\n    pass\n",
                     "try:\n    from sageattention import sageattn_qk_int8_pv_fp8_cuda_sm90\nexcept ImportError:\n    pass\n",
                     "from torch.utils.cpp_extension import load\ntry:\n    import fastops\nexcept ImportError:\n"
                     "    fastops = load(name='fastops', sources=['fastops.cpp'])\n",
                     "import ctypes, importlib\nlibc = ctypes.CDLL('libc.so.6')\nmod = importlib.import_module('numpy')\n")

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that import a compiled module the project's build scripts declare (``import hqq_aten``)."""
        return project.extension_names()

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        if isinstance(node, ast.Call):
            self._loaded(node, ctx)
            return
        for name, level in imported_names(node):
            if is_extension_import(name, level, node, ctx) \
                    or (isinstance(node, ast.Import) and "." not in name and built_here(name, ctx)):
                shown = "." * level + name
                ctx.report(node, self.message.format(name=shown), shown)


    def _loaded(self, node: ast.Call, ctx: FileContext) -> None:
        """The module or library a call loads: ``torch.ops.load_library(path)`` (always a compiled operator
        library: its operators need NPU kernels), ``ctypes.CDLL("libcudart.so")`` of a CUDA runtime library (a file
        name with a CUDA word: :func:`cuda_named`), ``importlib.import_module("nms_cuda")`` of a name an import
        statement would report."""
        api = ctx.resolver.qualname(node.func)
        if api not in _LOADED_BY_CALL or not node.args:
            return
        argument = node.args[0]
        text = argument.value if isinstance(argument, ast.Constant) and isinstance(argument.value, str) else None
        if api == "torch.ops.load_library":
            shown = short_source(argument, 40)
            ctx.report(node, f"torch.ops.load_library({shown}) loads a compiled operator library: each operator it "
                             "registers needs an NPU implementation", api)
        elif api == "importlib.import_module":
            if text and not text.startswith(".") and is_extension_import(text, 0, node, ctx):
                ctx.report(node, self.message.format(name=text), text)
        elif text and cuda_named(os.path.basename(text).split(".so", 1)[0].replace("lib", "", 1)):
            ctx.report(node, f"{api}({text!r}) loads a CUDA library, which does not exist on an Ascend host (CANN "
                             "ships its own runtime libraries)", api)


class CustomCudaOperatorCall(Rule):
    """A call into a user-defined CUDA operator.

    What it does:
        Flags calls of an operator imported by name from a compiled extension module (``from pkg.simple_knn._C
        import distCUDA2``; ``distCUDA2(points)``), calls whose receiver is a compiled CUDA extension module
        (``nms_cuda.nms(...)``,
        ``_C.roi_align(...)``, the imports NPU221 reports, also when the ``except`` arm rebinds the name to None) or
        the module ``torch.utils.cpp_extension.load(sources=[... .cu])`` returned (``wkv = load(...)``;
        ``wkv.forward(...)``), also handed on by the file's code (``_get_ext().forward(x)`` where ``_get_ext``
        returns the loaded module, ``self.ext.forward(x)`` where ``self.ext`` is only ever set to it), methods of an
        object of a class the extension exports (``mc = _C.CUMCFloat()``; ``mc.forward(grid)``, also from a closure or
        ``self``), operators picked from a table of them (``OPS = {1: na1d_cxx, 2: na2d_cxx}``; ``OPS[dim](x)``;
        ``fwd, bwd = {1: (na1d_fwd, na1d_bwd), ...}[dim]``; ``fwd(x)``: every entry an extension's operator) and, in
        ``npu-lint analyse``, calls to any operator the project's own
        ``.cpp`` / ``.cu`` files export through ``PYBIND11_MODULE`` or ``TORCH_LIBRARY`` (the
        ``cuda_op_list.csv`` of the report).
    Why it matters on NPU:
        The operator's implementation is a compiled kernel, CUDA or C++ for the CPU: called with NPU tensors it
        fails ("could not run ... with arguments from the PrivateUse1 backend") until the operator has an NPU
        implementation; a CPU-only C++ operator still runs on tensors moved back to the CPU, at a sync each call.
    Example:
        keep = nms_cuda.nms(boxes, scores, 0.5)
    Use instead:
        keep = torch_npu.npu_nms_v4(...)   # or an Ascend C operator with the same signature
    Fix safety:
        No fix.
    """

    code = "NPU223"
    name = "custom-cuda-operator-call"
    family = FAMILY
    node_types = (ast.Call,)
    triggers = ("cuda", "_ext", "_C", "torch.ops")
    message = "{name} calls an operator the project compiles itself (a CUDA or C++ extension): on NPU tensors it needs an NPU implementation"
    must_fire = ("from . import nms_cuda\nkeep = nms_cuda.nms(boxes, scores, 0.5)\n",
                 "from . import _C\nout = _C.roi_align_forward(x, rois)\n",
                 "def roi_align(x, rois):\n    return _C.roi_align_forward(x, rois)\n\nfrom . import _C\n",
                 "try:\n    import alt_cuda_corr\nexcept:\n    alt_cuda_corr = None\n"
                 "def corr(a, b, coords):\n    return alt_cuda_corr.forward(a, b, coords, 4)\n",
                 "from torch.utils.cpp_extension import load\ndef build(path):\n"
                 "    wkv = load(name='wkv', sources=[f'{path}/wkv_op.cpp', f'{path}/wkv.cu'])\n"
                 "    def run(x, y):\n        wkv.forward_bf16(x, y)\n    return run\n",
                 # an operator imported by name from the extension module
                 "from ._C import nms_rotated\ndef nms(boxes, scores):\n    return nms_rotated(boxes, scores, 0.5)  # NPU223\n",
                 "from .ops.deform_conv_cuda import deform_conv_forward\ny = deform_conv_forward(x, w)  # NPU223\n",
                 # a name given the extension module (``ext_c = exllamav2_ext``), built here or imported prebuilt
                 "from torch.utils.cpp_extension import load\ntry:\n    import fastops\nexcept ImportError:\n"
                 "    fastops = load(name='fastops', sources=srcs, extra_cuda_cflags=['-O3'])\next_c = fastops\n"
                 "def remap(x, m):\n    return ext_c.tensor_remap(x, m)  # NPU223\n",
                 # the module a function of the file returns, or a class keeps (extension_values.py)
                 "from torch.utils.cpp_extension import load\n_ext = None\ndef _get_ext():\n    global _ext\n"
                 "    if _ext is None:\n        _ext = load(name='fused', sources=['fused.cu'])\n    return _ext\n"
                 "def fused(x):\n    return _get_ext().forward(x)  # NPU223\n",
                 "from torch.utils.cpp_extension import load\ndef build(name):\n"
                 "    return load(name=name, sources=[name + '.cu'])\nclass Knn:\n    def __init__(self):\n"
                 "        self.ext = build('knn')\n    def __call__(self, x):\n        return self.ext.forward(x)  # NPU223\n",
                 # an object the extension makes (a pybind11 class: upper-case name), read in a closure
                 "from . import _C\nclass DiffMC:\n    def __init__(self, double=False):\n        if double:\n"
                 "            mc = _C.CUMCDouble()\n        else:\n            mc = _C.CUMCFloat()\n"
                 "        def run(grid, iso):\n            return mc.forward(grid, iso)  # NPU223\n        self.run = run\n",
                 # operators picked from a table of them
                 "from ._C import na1d_forward, na2d_forward\nOPS = {1: na1d_forward, 2: na2d_forward}\n"
                 "def na(x, dim):\n    return OPS[dim](x)  # NPU223\n",
                 "from ._C import na1d_fwd as na1d_fwd_cxx, na1d_bwd as na1d_bwd_cxx, na2d_fwd, na2d_bwd\n"
                 "def make(dim):\n    fwd, bwd = {1: (na1d_fwd_cxx, na1d_bwd_cxx), 2: (na2d_fwd, na2d_bwd)}[dim]\n"
                 "    def op(q):\n        return fwd(q)  # NPU223\n    return op\n",
                 # a module a class keeps for every caller, built on first use (lava-dl's Accelerated)
                 "from torch.utils.cpp_extension import load\nclass Accelerated:\n    module = None\n"
                 "    @staticproperty\n    def dynamics():\n        if Accelerated.module is None:\n"
                 "            Accelerated.module = load(name='d', sources=['d.cu'])\n        return Accelerated.module\n"
                 "def run(x):\n    return Accelerated.dynamics.fwd(x)  # NPU223\n")
    must_not_fire = ("import torch\nkeep = torch.ops.torchvision.nms(boxes, scores, 0.5)\n",
                     # a class attribute that may hold something else than the extension
                     "import torch\nfrom torch.utils.cpp_extension import load\nclass Acc:\n    module = None\n"
                     "    @classmethod\n    def get(cls, cuda):\n        if cuda:\n"
                     "            cls.module = load(name='d', sources=['d.cu'])\n        else:\n"
                     "            cls.module = torch.nn.Identity()\n        return cls.module\n"
                     "def run(x):\n    return Acc.module.forward(x)\n",
                     # a table that holds a Python function too; a table of torch ops
                     "from . import _C\nfrom .python_ops import slow_knn\nOPS = {1: _C.knn1, 2: slow_knn}\n"
                     "def knn(x, dim):\n    return OPS[dim](x)\n",
                     "from . import _C\nimport torch\nACTS = {'relu': torch.relu, 'tanh': torch.tanh}\n"
                     "def act(x, name):\n    fn = ACTS[name]\n    return fn(x)\n",
                     # an object that is the caller's, not the extension's
                     "from . import _C\nclass Cubes:\n    def __init__(self, impl):\n        self.impl = impl\n"
                     "    def __call__(self, grid):\n        return self.impl.forward(grid)\n",
                     "from .ops.boxes import nms_rotated\nkeep = nms_rotated(boxes, scores, 0.5)\n",
                     "from .ops import nms\nkeep = nms(boxes, scores)\n",
                     "from torch.utils.cpp_extension import load\nm = load(name='m', sources=['m.cpp'])\ny = m.forward(x)\n",
                     "import cuda_helpers\nx = cuda_helpers.to_device(x)\n",
                     "import numpy as np\nops = np\ny = ops.sum(x)\n",
                     # a function or attribute that may hold something else, a C++-only build
                     "from torch.utils.cpp_extension import load\ndef get(name, cuda):\n"
                     "    if cuda:\n        return load(name=name, sources=[name + '.cu'])\n    return helpers\n"
                     "y = get('knn', True).forward(x)\n",
                     "from torch.utils.cpp_extension import load\nclass Knn:\n    def __init__(self, ext=None):\n"
                     "        self.ext = load(name='k', sources=['k.cpp'])\n    def __call__(self, x):\n"
                     "        return self.ext.forward(x)\n")

    @classmethod
    def wants_call(cls, name: Optional[str], method: Optional[str]) -> bool:
        # dispatch: attribute calls (``ops.<op>(...)``), imported names (``from pkg._C import knn; knn(x)``), local
        # names and subscripts (``fwd(x)``, ``OPS[dim](x)``: picked from a table of operators)
        return method is not None or name is None or ("." in name
                                      and name.split(".", 1)[0] not in _NOT_EXTENSIONS)

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that call into a compiled module the project's build scripts declare (``hqq_aten.dequantize``)."""
        return project.extension_names()

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        func = node.func
        if isinstance(func, ast.Name) and ctx.resolver.qualname(func) is not None \
                and self._imported_operator(node, func, ctx):
            return   # (a local name has no qualified name: only a table can hand it an operator)
        if isinstance(func, (ast.Name, ast.Subscript)):
            operator = table_operator(func, ctx)   # ``OPS[na_dim](x)``, ``fwd, bwd = {...}[na_dim]; fwd(x)``
            if operator is not None:
                ctx.report(node, self.message.format(name=short_source(func, 40)), operator)
            return
        if not isinstance(func, ast.Attribute):
            return
        if ctx.custom_ops and isinstance(func.value, ast.Attribute):
            name = ctx.resolver.qualname(func)   # torch.ops.<namespace>.<op> of a namespace the project registers
            if name and name.startswith("torch.ops.") and name.rpartition(".")[0] in ctx.custom_ops:
                ctx.report(node, self.message.format(name=name), name)
                return   # (any other attribute receiver is asked below: ``Accelerated.ext.fwd(x)``)
        if not isinstance(func.value, ast.Name):
            module = extension_receiver(func.value, ctx)   # ``_get_ext().forward(x)``, ``self.ext.forward(x)``
            if module is not None:
                ctx.report(node, self.message.format(name=short_source(func, 40)), f"{module}.{func.attr}")
            return
        module = extension_module(func.value, ctx) or extension_receiver(func.value, ctx)
        if module is not None:
            ctx.report(node, self.message.format(name=f"{func.value.id}.{func.attr}"), f"{module}.{func.attr}")
        elif func.attr in ctx.custom_ops:   # an operator the project's C++/CUDA files export, on an imported module
            module = ctx.resolver.imported(func.value.id)
            if module is not None and not project_python(ctx, module):
                ctx.report(node, self.message.format(name=f"{func.value.id}.{func.attr}"), f"{module}.{func.attr}")


    def _imported_operator(self, node: ast.Call, func: ast.Name, ctx: FileContext) -> bool:
        """``distCUDA2(points)`` after ``from pkg.simple_knn._C import distCUDA2``: an operator imported by name
        from a compiled extension module (:func:`is_extension_import` of the import that binds it)."""
        operator = imported_operator(func, ctx)
        if operator is not None:
            ctx.report(node, self.message.format(name=func.id), operator)
        return operator is not None


# top-level names no compiled extension of a project is imported from: the call of a name of theirs is not judged
_NOT_EXTENSIONS = frozenset(getattr(sys, "stdlib_module_names", ())) | {"torch", "numpy", "builtins", "typing_extensions",
                                                                         "os", "math", "functools", "typing"}


def project_python(ctx: FileContext, name: str) -> bool:
    """The project's own Python defines ``name`` (a function, class or module): no compiled extension. Known
    only where a project index is at hand (``analyse``, ``check`` on folders)."""
    return ctx.project is not None and ctx.project.defines(name, ctx.module) is not None
