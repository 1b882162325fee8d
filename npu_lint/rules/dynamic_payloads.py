"""NPU416: a tensor of serialized bytes put on the device (the all-gather of picklable objects)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import Rule, short_source
from npu_lint.rules.value_flow import FAMILY

_SERIALIZERS = frozenset({"pickle.dumps", "cloudpickle.dumps", "dill.dumps"})
# calls that keep the bytes' length: the byte string as a list, a buffer, a storage, an array
_VIEWS = frozenset({"list", "bytes", "bytearray", "memoryview"})
_BUFFERS = frozenset({"torch.ByteStorage.from_buffer", "torch.UntypedStorage.from_buffer", "torch.frombuffer",
                      "numpy.frombuffer", "torch.from_numpy", "numpy.array", "numpy.asarray"})
# tensors made from them
_TENSORS = frozenset({"torch.ByteTensor", "torch.tensor", "torch.as_tensor", "torch.frombuffer", "torch.from_numpy",
                      "torch.cuda.ByteTensor"})
_MOVES = frozenset({"to", "cuda", "npu"})
_DEPTH = 5


class VariableLengthPayload(Rule):
    """A tensor of serialized bytes put on the device (the all-gather of picklable objects).

    What it does:
        Flags ``.to(device)`` / ``.cuda()`` / ``.npu()`` (or ``device=``, or ``torch.cuda.ByteTensor``) of a tensor
        made from the bytes of ``pickle.dumps(obj)`` (also ``cloudpickle`` / ``dill``): ``torch.ByteTensor(list(buf))``,
        ``torch.ByteTensor(torch.ByteStorage.from_buffer(buf))``, ``torch.frombuffer(buf, dtype=torch.uint8)``,
        ``torch.from_numpy(np.frombuffer(buf, dtype=np.uint8))``, through names bound in the same scope. The
        distributed helpers that gather arbitrary Python objects (metrics, predictions) do this, then exchange the
        sizes and pad every payload to the largest.
    Why it matters on NPU:
        The tensor is as long as the serialized object, a new length at nearly every call: every operator on it
        (the copy to the device, the size exchange, the padding, the gather) compiles again on NPU.
    Example:
        buffer = pickle.dumps(data)
        tensor = torch.ByteTensor(torch.ByteStorage.from_buffer(buffer)).to("cuda")
    Use instead:
        ``torch.distributed.all_gather_object`` (it handles the bytes itself), or copy the bytes into a buffer of a
        fixed maximum size on the host and move that buffer (``buf = torch.zeros(MAX, dtype=torch.uint8);
        buf[:n] = payload; buf.to(device)``) with the length sent separately.
    Fix safety:
        No automatic fix.
    """

    code = "NPU416"
    name = "variable-length-payload"
    family = FAMILY
    node_types = (ast.Call,)
    triggers = ("dumps(",)
    message = "{what} puts the bytes of {source} on the device: the tensor is as long as the serialized object, a new length at every call, a recompile per length on NPU; use all_gather_object or a fixed-size host buffer"
    must_fire = ("import pickle\nimport torch\ndef gather(data):\n    buffer = pickle.dumps(data)\n"
                 "    storage = torch.ByteStorage.from_buffer(buffer)\n"
                 "    return torch.ByteTensor(storage).to('cuda')\n",
                 "import pickle\nimport torch\ndef gather(data, device):\n"
                 "    t = torch.tensor(list(pickle.dumps(data)), dtype=torch.uint8)\n    return t.to(device)\n",
                 "import pickle\nimport numpy as np\nimport torch\ndef gather(data):\n    buf = pickle.dumps(data)\n"
                 "    return torch.from_numpy(np.frombuffer(buf, dtype=np.uint8)).cuda()\n",
                 "import pickle\nimport torch\ndef gather(data, device):\n"
                 "    return torch.frombuffer(bytearray(pickle.dumps(data)), dtype=torch.uint8).to(device)\n")
    must_not_fire = (# bytes kept on the host; a fixed-size buffer moved; a tensor from other data
                     "import pickle\nimport torch\ndef encode(data):\n"
                     "    return torch.ByteTensor(list(pickle.dumps(data)))\n",
                     "import pickle\nimport torch\ndef gather(data, buf):\n    enc = pickle.dumps(data)\n"
                     "    buf[2:len(enc) + 2] = torch.ByteTensor(list(enc))\n    return buf.cuda()\n",
                     "import torch\ndef move(values, device):\n    return torch.tensor(list(values)).to(device)\n",
                     "import pickle\nimport torch\ndef save(model, path):\n    blob = pickle.dumps(model.cfg)\n"
                     "    return model.to('cuda'), blob\n")

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _MOVES:
            made = _made_tensor(func.value, ctx, 0)
            what = f".{func.attr}()"
        elif ctx.resolver.qualname(func) in _TENSORS and (
                any(kw.arg == "device" for kw in node.keywords) or ctx.resolver.qualname(func) == "torch.cuda.ByteTensor"):
            made, what = node, short_source(func, 30) + "(...)"
        else:
            return
        if made is None:
            return
        source = _serialized(made.args[0], ctx, 0) if made.args else None
        if source is not None:
            ctx.report(node, self.message.format(what=what, source=short_source(source, 30)), "pickle.dumps")


def _made_tensor(node: ast.AST, ctx: FileContext, depth: int) -> Optional[ast.Call]:
    """The call that made the tensor ``node`` is (through a name bound once in the scope), when it is one of
    ``_TENSORS``."""
    if depth > _DEPTH:
        return None
    if isinstance(node, ast.Name):
        value = ctx.resolver.bound_value(node)
        return _made_tensor(value, ctx, depth + 1) if value is not None else None
    if isinstance(node, ast.Call) and ctx.resolver.qualname(node.func) in _TENSORS:
        return node
    return None


def _serialized(node: ast.AST, ctx: FileContext, depth: int) -> Optional[ast.Call]:
    """The ``pickle.dumps(...)`` call whose bytes ``node`` holds unchanged in length (a list, a buffer, a storage,
    an array of them, through names), else None."""
    if depth > _DEPTH or node is None:
        return None
    if isinstance(node, ast.Name):
        value = ctx.resolver.bound_value(node)
        return _serialized(value, ctx, depth + 1) if value is not None else None
    if not isinstance(node, ast.Call) or not node.args:
        return None
    name = ctx.resolver.qualname(node.func) or (node.func.id if isinstance(node.func, ast.Name) else None)
    if name in _SERIALIZERS:
        return node
    if name in _VIEWS or name in _BUFFERS or name in _TENSORS:
        return _serialized(node.args[0], ctx, depth + 1)
    return None

