"""NPU2xx rules on string literals: CUDA device strings, device and backend checks, CUDA
environment variables and CUDA tensor type names."""
from __future__ import annotations

import ast
import re

from npu_lint.context import FileContext
from npu_lint.cuda_facts import (COMPARE, OTHER, env_var_row, is_device_string, is_docstring, is_env_use,
                                 is_nccl_string, named_env_key, string_use)
from npu_lint.analysis.defaults import default_constant
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source

FAMILY = "cuda"


class CudaDeviceString(Rule):
    """A ``'cuda'`` / ``'cuda:N'`` device string.

    What it does:
        Flags the device strings ``'cuda'``, ``'cuda:N'`` and f-strings starting ``cuda:`` in files that
        use torch: ``torch.device('cuda')``, ``.to('cuda:0')``, ``device='cuda'``, ``map_location=``,
        ``'cuda' if torch.cuda.is_available() else 'cpu'``, argparse defaults; and ``torch.device(device, gpu_id)``
        whose ``device`` is ``'cuda'`` unless a caller passes another (a parameter defaulting to it): the call builds
        ``cuda:<gpu_id>``; ``torch.random.fork_rng(...)`` without ``device_type`` (its default is ``'cuda'``).
        A string that is part of a type (``map_location: Literal["cpu", "cuda"] = "auto"``, a ``Literal`` alias)
        is no device use: the default or the value passed is.
    Why it matters on NPU:
        ``transfer_to_npu`` rewrites such strings only when they are passed straight into the calls it
        wraps (factories, ``.to``, ``torch.load`` from 2.2.0, DDP, ...). A string kept in a variable,
        a config or a ``torch.device`` built elsewhere stays ``'cuda'`` and fails on an Ascend host.
    Example:
        device = torch.device("cuda", local_rank)
    Use instead:
        device = torch.device("npu", local_rank)
    Fix safety:
        Safe: ``npu-lint check --fix`` rewrites the literal to ``'npu'`` / ``'npu:N'`` (f-strings are left alone).
    """

    code = "NPU205"
    fix_safety = "safe"
    name = "cuda-device-string"
    family = FAMILY
    node_types = (ast.Constant, ast.JoinedStr, ast.Call)
    constant_types = (str,)   # dispatch: string constants only
    callees = frozenset({"torch.device", "torch.random.fork_rng"})   # dispatch: _indexed_default, _default_cuda
    triggers = ("cuda", "fork_rng")
    message = "{text} is a CUDA device: use {npu} on NPU"
    must_fire = ("import torch\ndevice = torch.device('cuda')\n",
                 "import torch\nx = x.to('cuda:0')\n",
                 "import torch\nstate = torch.load(path, map_location='cuda:0')\n",
                 "import torch\ndevice = 'cuda' if torch.cuda.is_available() else 'cpu'\n",
                 "import torch\ndev = torch.device(f'cuda:{rank}')\n",
                 "import torch\ndev = torch.device('cuda:%d' % rank)\n",
                 "import torch\ndev = torch.device('cuda:{}'.format(rank))\n",
                 "import torch\nstate = torch.load(path, map_location={'cuda:1': 'cuda:0'})\n",
                 "import torch\ndevice = kwargs.get('device', 'cuda')\n",
                 "import torch\nDEVICES = {'gpu': 'cuda', 'cpu': 'cpu'}\n",
                 "import torch\nEMPTY_CACHE = {'cuda': torch.cuda.empty_cache, 'cpu': None}\n",
                 "import torch\ndef f(gpu_id, device='mps'):\n    return torch.device(device, gpu_id)\n"
                 "def g(gpu_id, device='cuda'):\n    return torch.device(device, gpu_id)\n",
                 "import torch\nwith torch.random.fork_rng(devices=[0]):\n    pass\n",
                 # the default of an annotated parameter is the value used (the annotation is a type)
                 "import torch\nfrom typing import Literal\ndef load(map_location: Literal['cpu', 'cuda'] = 'cuda'):  # NPU205\n"
                 "    return torch.load('m.pt', map_location=map_location)\n")
    must_not_fire = ("device = 'cuda'\n",
                     # a type: the annotation of a device parameter, a Literal alias
                     "import torch\nfrom typing import Literal, Optional, Union\n"
                     "def load(map_location: Literal['auto', 'cpu', 'cuda', 'mps'] = 'auto'):\n    pass\n"
                     "def pick(device: Union[None, Literal['cpu', 'cuda']]) -> Optional[Literal['cpu', 'cuda']]:\n"
                     "    return device\nDevice = Literal['cpu', 'cuda']\nkind: Literal['cuda'] | None = None\n", "import torch\nlog('cuda:%d ready', rank)\n",
                     "import torch\nprint('running on cuda devices')\n",
                     "import torch\nif x.device.type == 'cuda':\n    pass\n",
                     "import torch\nwith torch.autocast('cuda'):\n    pass\n",
                     "import torch\ndef f():\n    'cuda'\n",
                     "import torch\ncfg = {'cuda': True, 'seed': 0}\n",
                     "import torch\nuse_gpu = cfg['cuda']\n",
                     "import torch\nuse_gpu = cfg.get('cuda', False) and torch.cuda.is_available()\n",
                     "import torch\nif getattr(args, 'cuda'):\n    pass\n",
                     "def f(device='cpu'):\n    return torch.device(device, 0)\n",
                     "def f(device='cuda'):\n    device = pick(device)\n    return torch.device(device, 0)\n",
                     "import torch\nwith torch.random.fork_rng(devices=[0], device_type='npu'):\n    pass\n",
                     "import torch\nwith torch.random.fork_rng(**kwargs):\n    pass\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        if isinstance(node, ast.Call):
            if ctx.resolver.qualname(node.func) == "torch.random.fork_rng":
                self._default_cuda(node, ctx)
            else:
                self._indexed_default(node, ctx)
        elif ctx.uses_torch and is_device_string(node, ctx) and not is_docstring(node, ctx) \
                and string_use(node, ctx) == OTHER:
            text = repr(node.value) if isinstance(node, ast.Constant) else "f-string 'cuda:...'"
            npu = repr(node.value.replace("cuda", "npu")) if isinstance(node, ast.Constant) else "f'npu:...'"
            ctx.report(node, self.message.format(text=text, npu=npu), "cuda")

    def _default_cuda(self, node: ast.Call, ctx: FileContext) -> None:
        """``torch.random.fork_rng(...)`` without ``device_type``: its default is ``'cuda'`` (torch/random.py,
        ``device_type: str = "cuda"``), so it forks the CPU and CUDA generators and, on an NPU host, leaves the NPU
        generator unforked: what the block draws or seeds there leaks out. A ``**kwargs`` may pass the type."""
        if any(kw.arg in ("device_type", None) for kw in node.keywords) or len(node.args) >= 4:
            return
        ctx.report(node, "torch.random.fork_rng forks the CUDA generators by default (device_type='cuda'): "
                         "pass device_type='npu' on NPU", "torch.random.fork_rng")

    def _indexed_default(self, node: ast.Call, ctx: FileContext) -> None:
        """``torch.device(device, gpu_id)`` where ``device`` is ``'cuda'`` unless a caller says otherwise (a
        parameter defaulting to it, ``self.device_type`` only ever set to it: the model's defaults): the call builds
        ``cuda:<gpu_id>``, a device no string of the file names (the default's line is reported as well). The
        one-argument form passes the string along and is the default's line only."""
        arguments = dict(zip(("type", "index"), node.args))
        arguments.update({kw.arg: kw.value for kw in node.keywords if kw.arg in ("type", "index")})
        kind = arguments.get("type")
        if "index" not in arguments or kind is None or isinstance(kind, (ast.Constant, ast.JoinedStr)):
            return
        function = ctx.enclosing(node, FUNCTION_TYPES)
        scopes = ctx.resolver.scopes
        scope = scopes.scope_of(function) if function is not None and scopes is not None else None
        value = default_constant(kind, scope, scopes)
        if isinstance(value, str) and value == "cuda":
            ctx.report(node, f"torch.device({short_source(kind, 30)}, ...) builds a CUDA device ({short_source(kind, 30)}"
                             f" is 'cuda' unless a caller passes another): use 'npu' on NPU", "torch.device")


_CUDA_OOM = re.compile(r"\bCUDA (?:error: )?out of memory", re.IGNORECASE)   # CUDA's allocator error text


class CudaDeviceCheck(Rule):
    """A comparison against a ``'cuda'`` device string.

    What it does:
        Flags ``x.device.type == 'cuda'``, ``device in ('cuda', ...)``, ``str(d).startswith('cuda')``, and a test
        of an error's text for CUDA's out-of-memory message (``"CUDA out of memory" in str(e)``).
    Why it matters on NPU:
        After migration the device type is ``'npu'``, so the check flips silently: code guarded by it
        stops running (or the CPU branch runs) with no error. An NPU allocator failure says ``NPU out of memory``:
        the recovery an OOM test guards (a CPU fallback, a smaller batch) never runs and the error is re-raised.
    Example:
        if x.device.type == "cuda": torch.cuda.synchronize()
    Use instead:
        if x.device.type == "npu": torch.npu.synchronize()
    Fix safety:
        No fix: both branches need review.
    """

    code = "NPU206"
    name = "cuda-device-check"
    family = FAMILY
    node_types = (ast.Constant, ast.JoinedStr)
    constant_types = (str,)   # dispatch: string constants only
    triggers = ("cuda", "CUDA")
    message = "comparison with {text} flips after migration (the device type becomes 'npu')"
    must_fire = ("import torch\nif x.device.type == 'cuda':\n    pass\n",
                 "import torch\nok = args.device in ['cuda', 'cpu']\n",
                 "import torch\nif str(dev).startswith('cuda'):\n    pass\n",
                 "import torch\ntry:\n    y = f(x)\nexcept RuntimeError as e:\n    if 'CUDA out of memory. ' not in str(e):\n"
                 "        raise\n    y = f(x.cpu())\n")
    must_not_fire = ("import torch\nif x.device.type == 'npu':\n    pass\n", "if dev == 'cuda':\n    pass\n",
                     "import torch\nif 'out of memory' in str(e):\n    pass\n",
                     "import torch\nlogger.warning('CUDA out of memory, retrying on CPU')\n",
                     "import torch\nif x.device.type in ['cuda', 'npu']:\n    pass\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if is_device_string(node, ctx):
            if string_use(node, ctx) == COMPARE and not _accepts_npu(node, ctx):
                text = repr(node.value) if isinstance(node, ast.Constant) else "an f-string 'cuda:...'"
                ctx.report(node, self.message.format(text=text), "cuda")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _CUDA_OOM.search(node.value) \
                and string_use(node, ctx) == COMPARE and not _accepts_npu(node, ctx):
            ctx.report(node, f"{short_source(node, 40)} matches CUDA's out-of-memory error text only: an NPU "
                             "allocator failure says 'NPU out of memory' (test for 'out of memory', or catch "
                             "torch.OutOfMemoryError)", "CUDA out of memory")


def _accepts_npu(node: ast.AST, ctx: FileContext) -> bool:
    """``device.type in ['cuda', 'npu']``: the membership test already accepts the NPU device type (or, for an
    error text, the NPU's: ``('CUDA out of memory', 'NPU out of memory')``)."""
    parent = ctx.parent(node)
    return isinstance(parent, (ast.List, ast.Tuple, ast.Set)) and any(
        isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.lower().startswith("npu")
        for e in parent.elts)


class NcclCheck(Rule):
    """A comparison against ``'nccl'``.

    What it does:
        Flags ``backend == 'nccl'``, ``dist.get_backend() != 'nccl'``, ``backend in ['gloo', 'nccl']``.
    Why it matters on NPU:
        ``transfer_to_npu`` turns the ``nccl`` backend into ``hccl`` when the process group starts, so
        later checks against ``'nccl'`` flip; the migration manual asks for these to be edited by hand.
    Example:
        assert dist.get_backend() == "nccl"
    Use instead:
        assert dist.get_backend() == "hccl"
    Fix safety:
        No fix.
    """

    code = "NPU208"
    name = "nccl-check"
    family = FAMILY
    node_types = (ast.Constant,)
    constant_types = (str,)   # dispatch: string constants only
    triggers = ("nccl", "NCCL")
    message = "comparison with {text} flips after migration (the backend becomes 'hccl')"
    must_fire = ("import torch\nif backend == 'nccl':\n    pass\n",
                 "import torch.distributed as dist\nassert dist.get_backend() in ('gloo', 'nccl')\n")
    must_not_fire = ("import torch.distributed as dist\ndist.init_process_group('nccl')\n",
                     "if backend == 'nccl':\n    pass\n")

    def check(self, node: ast.Constant, ctx: FileContext) -> None:
        if ctx.uses_torch and is_nccl_string(node) and string_use(node, ctx) == COMPARE:
            ctx.report(node, self.message.format(text=repr(node.value)), "nccl")


class CudaEnvVar(Rule):
    """A CUDA or NCCL environment variable read or set from code.

    What it does:
        Flags ``CUDA_VISIBLE_DEVICES``, ``CUDA_LAUNCH_BLOCKING``, ``PYTORCH_CUDA_ALLOC_CONF``,
        ``NCCL_*`` and similar names used as keys of the process environment (``os.environ[...]``,
        ``os.getenv``, ``os.environ.update({...})``, ``env={...}`` of a subprocess), also through a module-level or
        local name holding the string (``CUDA_ENVVAR = "CUDA_VISIBLE_DEVICES"``; ``os.environ[CUDA_ENVVAR] = ids``):
        reported once, where the name is given the string (the one place to change).
    Why it matters on NPU:
        The Ascend runtime ignores them: device selection, launch blocking, allocator settings and
        collective settings have their own variables (``ASCEND_RT_VISIBLE_DEVICES``, ``HCCL_*``, ...).
    Example:
        os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
    Use instead:
        os.environ["ASCEND_RT_VISIBLE_DEVICES"] = "0,1"
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU219"
    name = "cuda-env-var"
    family = FAMILY
    node_types = (ast.Constant,)
    constant_types = (str,)   # dispatch: string constants only
    triggers = ("CUDA", "NCCL", "CUBLAS", "CUDNN", "NVIDIA")   # the prefixes of cuda_env_vars.tsv's rows
    message = "{name} is {effect}{use}"
    must_fire = ("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n",
                 "import os\nblocking = os.getenv('CUDA_LAUNCH_BLOCKING')\n",
                 "import os\nos.environ.update({'NCCL_DEBUG': 'INFO'})\n",
                 "import subprocess, os\nsubprocess.run(cmd, env={'CUDA_VISIBLE_DEVICES': '1'})\n",
                 "import os\nif 'CUDA_VISIBLE_DEVICES' in os.environ.keys():\n    pass\n",
                 "import os\nCUDA_ENVVAR = 'CUDA_VISIBLE_DEVICES'  # NPU219\n"
                 "def visible():\n    return os.environ[f'{CUDA_ENVVAR}'].split(',')\n",
                 "import os\ndef pin(device):\n    key = 'CUDA_VISIBLE_DEVICES'  # NPU219\n"
                 "    if key in os.environ:\n        return\n    os.environ[key] = str(device)\n",
                 "def launch(replica, ids):\n    replica.env['CUDA_VISIBLE_DEVICES'] = ids\n",
                 # a name under a CUDA-only prefix the table does not list (its wildcard rows: CUDA_*, NVIDIA_*, ...)
                 "import os\nos.environ['CUDA_MODULE_LOADING'] = 'LAZY'\n",
                 "import os\nos.environ.setdefault('NVIDIA_VISIBLE_DEVICES', 'all')\n",
                 "import os\nif os.getenv('CUDNN_LOGINFO_DBG'):\n    pass\n")
    must_not_fire = ("import os\nos.environ['ASCEND_RT_VISIBLE_DEVICES'] = '0'\n",
                     "print('set CUDA_VISIBLE_DEVICES first')\n",
                     "import os\nif 'CUDA_VISIBLE_DEVICES' in config.keys():\n    pass\n",
                     "import os\nCUDA_ENVVAR = 'CUDA_VISIBLE_DEVICES'\nprint(f'set {CUDA_ENVVAR} first')\n",
                     "import os\nclass Platform:\n    device_control_env_var = 'CUDA_VISIBLE_DEVICES'\n"
                     "    def ids(self):\n        return os.environ[self.device_control_env_var]\n",
                     "import os\nKEY = 'CUDA_VISIBLE_DEVICES'\ndef f(KEY='HIP_VISIBLE_DEVICES'):\n"
                     "    return os.environ[KEY]\n",
                     # the prefix alone, or a CUDA_* name that is no environment key
                     "import os\nv = os.environ.get('CUDA_')\nopts = {'CUDA_MODULE_LOADING': 'LAZY'}\n")

    def check(self, node: ast.Constant, ctx: FileContext) -> None:
        if not isinstance(node.value, str) or not node.value.isupper():
            return
        row = env_var_row(node.value)
        if row is None:
            return
        name = node.value
        if not is_env_use(node, ctx):
            read = named_env_key(node, ctx)
            if read is None:
                return
            name = f"{node.value} (as {read.id}, used as an environment key at line {read.lineno})"
        counterpart = row["ascend_counterpart"]
        if counterpart.endswith("*"):
            use = f": set the matching {counterpart} variable instead"
        else:
            use = f": use {counterpart}" if counterpart else ""
        ctx.report(node, self.message.format(name=name, effect=env_effect(row["effect_on_npu"]), use=use),
                   node.value)


def env_effect(effect: str) -> str:
    """The table's effect as a message phrase: ``ignored on NPU``, or what the variable is and what NPU uses.

    >>> env_effect("ignored: cuBLAS does not exist on NPU")
    'ignored on NPU'
    >>> env_effect("ignored by the NPU runtime")
    'ignored by the NPU runtime'
    >>> env_effect("CUDA toolkit path: NPU builds use the CANN toolkit")
    'the CUDA toolkit path: NPU builds use the CANN toolkit'
    """
    head, _, rest = effect.partition(": ")
    if head.startswith("ignored"):
        return head if "NPU" in head else head + " on NPU"
    return f"the {head}: {rest}" if rest else f"the {head}"


class CudaTensorTypeString(Rule):
    """A ``'torch.cuda.*Tensor'`` type name in a string.

    What it does:
        Flags strings such as ``'torch.cuda.FloatTensor'`` (``x.type('torch.cuda.HalfTensor')``).
    Why it matters on NPU:
        Type-name strings are not rewritten by ``transfer_to_npu``; on NPU the CUDA tensor types do
        not exist (and DoubleTensor maps to float32).
    Example:
        x = x.type("torch.cuda.FloatTensor")
    Use instead:
        x = x.npu().float()
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU222"
    name = "cuda-tensor-type-string"
    family = FAMILY
    node_types = (ast.Constant,)
    constant_types = (str,)   # dispatch: string constants only
    triggers = ("torch.cuda.",)
    message = "{text} names a CUDA tensor type: use {npu}"
    must_fire = ("import torch\nx = x.type('torch.cuda.FloatTensor')\n",)
    must_not_fire = ("import torch\nx = x.type(torch.float32)\n", "import torch\ndef f():\n    'torch.cuda.x docs'\n")

    def check(self, node: ast.Constant, ctx: FileContext) -> None:
        value = node.value
        if (isinstance(value, str) and value.startswith("torch.cuda.") and value.endswith("Tensor")
                and ctx.uses_torch and not is_docstring(node, ctx)):
            ctx.report(node, self.message.format(text=repr(value), npu=repr(value.replace("torch.cuda.", "torch.npu."))),
                       value)
