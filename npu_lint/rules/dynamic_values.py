"""NPU403-NPU404: sizes that come from tensor values or from a random draw.

A small forward data flow per function: names assigned from ``t.item()``, ``t.tolist()``, ``int(t)``
(host values) or from ``random`` / ``numpy.random`` (random values), and names computed from those,
are followed to the places that fix a shape: factory sizes, ``view`` / ``reshape`` / ``split`` /
``topk`` arguments, slice bounds, ``range`` loop counts, ``interpolate`` sizes.
"""
from __future__ import annotations

import ast
from typing import ClassVar, Optional

from npu_lint.context import FileContext
from npu_lint.resolver import MASK, names_in
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source

FAMILY = "dynamic-shape"
HOST, RANDOM, BATCH_MAX = "host", "random", "batch_max"
_HOST_METHODS = frozenset({"item", "tolist"})
_ZERO_D = frozenset({"sum", "count_nonzero", "max", "min", "amax", "amin", "argmax", "argmin", "prod"})
_REDUCTIONS = frozenset({"sum", "max", "min", "amax", "amin", "argmax", "argmin", "count_nonzero", "mean", "prod"})
FACTORIES = frozenset({"torch." + name for name in (
    "zeros", "ones", "empty", "full", "arange", "range", "randn", "rand", "randint", "randperm", "linspace",
    "logspace", "eye", "reshape", "split", "narrow", "topk", "tensor_split", "chunk", "tile")})
SHAPE_METHODS = frozenset({"view", "reshape", "expand", "repeat", "narrow", "split", "tensor_split", "new_zeros",
                            "new_ones", "new_empty", "new_full", "unflatten", "resize_", "tile", "topk", "chunk"})
_RESIZE = frozenset({"torch.nn.functional.interpolate", "torch.nn.functional.upsample",
                     "torch.nn.functional.upsample_bilinear", "torch.nn.functional.upsample_nearest",
                     "torch.nn.functional.adaptive_avg_pool2d", "torch.nn.functional.adaptive_max_pool2d",
                     "torch.nn.functional.pad", "torch.nn.Upsample", "torchvision.transforms.functional.resize",
                     "torchvision.transforms.v2.functional.resize"})
_RESIZE_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in _RESIZE)
_SINK_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in FACTORIES) | _RESIZE_NAMES | SHAPE_METHODS | {"range"}
Origin = tuple[str, str, int]   # (HOST or RANDOM, the source expression, its line)


def _scope(node: ast.AST, ctx: FileContext) -> int:
    return id(ctx.enclosing(node, FUNCTION_TYPES))


def _source(node: ast.AST, ctx: FileContext, direct: bool = False) -> Optional[Origin]:
    """``t.item()``, ``t.tolist()``, ``int(t.sum())`` (host) or ``random.choice(...)`` (random)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _HOST_METHODS and not node.args:
        if _from_constants(func.value, ctx):
            return None     # ``torch.tensor(config.depths).cumsum(0).tolist()``: configuration, not data
        return HOST, short_source(node), node.lineno
    if isinstance(func, ast.Name) and func.id in ("int", "float", "round") and len(node.args) == 1:
        value = node.args[0]
        if ctx.resolver.is_tensor(value) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                                             and value.func.attr in _REDUCTIONS and not value.args[1:]
                                             and ctx.resolver.qualname(value.func) is None):   # not np.min(...)
            return HOST, short_source(node), node.lineno
        return None
    if isinstance(func, ast.Attribute) and func.attr in _ZERO_D and not node.args and not node.keywords:
        receiver = func.value      # ``mask.sum()``: a 0-d tensor, used as a size it is read back from the device
        if direct or isinstance(receiver, ast.Compare) or ctx.resolver.kind_of(receiver) in ("tensor", "batch", MASK):
            return HOST, short_source(node) + " (a 0-d tensor)", node.lineno
        return None
    if len(node.args) == 1 and "max" in last_name(func).lower() and _lengths(node.args[0]):
        # ``max(len(s) for s in batch)``, ``_max_by_axis([list(img.shape) for img in images])``
        return BATCH_MAX, short_source(node), node.lineno
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or not (ctx.resolver.imported(root.id) or "").startswith(("random", "numpy")):
        return None   # resolve only names that can reach ``random`` or ``numpy.random``
    name = ctx.resolver.qualname(func)
    if name is not None and (name.startswith(("random.", "numpy.random.")) and name != "random.seed"):
        return RANDOM, short_source(node), node.lineno
    return None


def _from_constants(receiver: ast.AST, ctx: FileContext) -> bool:
    """The receiver chain starts at ``torch.tensor(...)`` / ``torch.as_tensor(...)`` of a non-tensor value."""
    while isinstance(receiver, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(receiver, ast.Call) and ctx.resolver.qualname(receiver.func) in ("torch.tensor", "torch.as_tensor"):
            return bool(receiver.args) and not ctx.resolver.is_tensor(receiver.args[0])
        receiver = receiver.func if isinstance(receiver, ast.Call) else receiver.value
    return False


def _metadata_receivers(expr: ast.AST) -> set[int]:
    """Names only read for their metadata: ``x`` in ``x.shape[0]``, ``x.size(1)``, ``len(x)``, ``x.dtype``."""
    skipped = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "dtype", "device", "ndim"):
            skipped.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "size", "dim", "numel"):
            skipped.add(id(node.func.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
            skipped.add(id(node.args[0]))
    return skipped


def _lengths(node: ast.AST) -> bool:
    """``len(s) for s in batch`` / ``[x.size(0) for x in seqs]`` / ``x.shape[0] for ...``: per-item lengths."""
    if not isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return False
    element = node.elt
    if isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id in ("list", "tuple") \
            and len(element.args) == 1:
        element = element.args[0]       # ``list(img.shape)``: every dimension of every item
    if isinstance(element, ast.Attribute) and element.attr == "shape":
        return True
    if isinstance(element, ast.Call):
        return (isinstance(element.func, ast.Name) and element.func.id == "len") or (
            isinstance(element.func, ast.Attribute) and element.func.attr == "size")
    return isinstance(element, ast.Subscript) and isinstance(element.value, ast.Attribute) \
        and element.value.attr == "shape"


def _origin_in(expr: ast.AST, ctx: FileContext, scope: int, kinds: tuple[str, ...],
               where: Optional[ast.AST] = None) -> Optional[Origin]:
    """The first host or random value that ``expr`` (an argument of ``where``) is computed from."""
    flows: dict[tuple[int, str], Origin] = ctx.scratch.get("value_flows", {})
    attributes: dict[tuple[int, str], Origin] = ctx.scratch.get("host_attributes", {})
    skipped = _metadata_receivers(expr) if flows or attributes else set()
    for node in ast.walk(expr):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Name):
            origin = flows.get((scope, node.id))
        elif attributes and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            origin = attributes.get((id(ctx.enclosing(where or expr, (ast.ClassDef,))), node.attr))
        elif isinstance(node, ast.Call):
            origin = _source(node, ctx, direct=True)     # ``torch.zeros(b, counts.max())``: any receiver
        else:
            continue
        if origin is not None and origin[0] in kinds:
            return origin
    return None


def last_name(func: ast.AST) -> str:
    """``interpolate`` for ``F.interpolate``: a cheap test before resolving the name."""
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""




def _first_time(node: ast.AST, ctx: FileContext) -> bool:
    """True once per node: NPU403, NPU404 and NPU405 share the bindings."""
    seen = ctx.scratch.setdefault("value_flow_seen", set())
    if id(node) in seen:
        return False
    seen.add(id(node))
    return True


def _targets(statement: ast.AST) -> list[str]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return [name for target in targets for name in names_in(target)]


def _bind(statement: ast.AST, ctx: FileContext) -> None:
    """An assignment or ``for``, before its value is walked: its targets take the flow of the names it reads
    (only in functions where something flows), or lose theirs. Sources in the value bind later (_bind_source)."""
    flows = ctx.scratch.get("value_flows")
    if not flows or not _first_time(statement, ctx):
        return   # nothing flows in this file yet: the common case
    scope = _scope(statement, ctx)
    origin = None
    if scope in ctx.scratch.setdefault("value_flow_scopes", set()):
        value = statement.value if isinstance(statement, ast.Assign) else statement.iter
        origin = next((flows[(scope, n.id)] for n in ast.walk(value)
                       if isinstance(n, ast.Name) and (scope, n.id) in flows), None)
    for name in _targets(statement):
        if origin is not None:
            flows[(scope, name)] = origin
        else:
            flows.pop((scope, name), None)
    if origin is not None:
        ctx.scratch.setdefault("value_flow_bound", set()).add(id(statement))
        _bind_attributes(statement, origin, ctx)


def _bind_source(call: ast.Call, ctx: FileContext) -> None:
    """A host, random or batch-maximum source inside an assignment's value (or a ``for``'s iterable) binds the
    targets to it, unless the statement already took a flow from the names it reads."""
    checked = ctx.scratch.setdefault("value_flow_sources", set())   # once per call, whichever rule comes first
    if id(call) in checked:
        return
    checked.add(id(call))
    origin = _source(call, ctx)
    if origin is None or not _first_time(call, ctx):
        return
    child, statement = call, ctx.parent(call)
    while statement is not None and not isinstance(statement, ast.stmt):
        child, statement = statement, ctx.parent(statement)
    if not (isinstance(statement, ast.Assign) and child is statement.value) and not (
            isinstance(statement, ast.For) and child is statement.iter):
        return
    if origin[1].endswith("(a 0-d tensor)") and child is not call:
        return      # ``n = mask.sum()`` binds ``n``; ``loss = l.sum() / mask.sum()`` is no size
    bound = ctx.scratch.setdefault("value_flow_bound", set())
    if id(statement) in bound:
        return
    bound.add(id(statement))
    scope = _scope(statement, ctx)
    ctx.scratch.setdefault("value_flow_scopes", set()).add(scope)
    flows = ctx.scratch.setdefault("value_flows", {})
    for name in _targets(statement):
        flows[(scope, name)] = origin
    _bind_attributes(statement, origin, ctx)


def _bind_attributes(statement: ast.AST, origin: Origin, ctx: FileContext) -> None:
    """``self.n = t.item()`` in one method: ``self.n`` carries the host value in every method of the class
    (those checked after this one: the walk is in source order)."""
    if origin[0] != HOST or not isinstance(statement, ast.Assign):
        return
    for target in statement.targets:
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            owner = ctx.enclosing(statement, (ast.ClassDef,))
            if owner is not None:
                ctx.scratch.setdefault("host_attributes", {})[(id(owner), target.attr)] = origin


class ValueFlow(Rule):
    """Shared walk: record where host / random values flow (assignments, for targets), then check sinks."""

    family = FAMILY
    node_types = (ast.Assign, ast.For, ast.Call, ast.Subscript)
    kinds: ClassVar[tuple[str, ...]] = ()

    def check(self, node: object, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if isinstance(node, (ast.Assign, ast.For)):
            _bind(node, ctx)
            if isinstance(node, ast.For):
                self.check_loop(node, ctx)
        elif isinstance(node, ast.Call):
            _bind_source(node, ctx)
            self.check_call(node, ctx)
        else:
            self.check_subscript(node, ctx)

    def check_loop(self, node: ast.For, ctx: FileContext) -> None:
        pass

    def check_call(self, node: ast.Call, ctx: FileContext) -> None:
        pass

    def check_subscript(self, node: ast.Subscript, ctx: FileContext) -> None:
        pass

    def _flow(self, args: list[ast.AST], node: ast.AST, ctx: FileContext) -> Optional[Origin]:
        scope = _scope(node, ctx)
        for arg in args:
            origin = _origin_in(arg, ctx, scope, self.kinds, node)
            if origin is not None:
                return origin
        return None


def call_args(node: ast.Call) -> list[ast.AST]:
    return list(node.args) + [kw.value for kw in node.keywords]


class TensorValueInShape(ValueFlow):
    """A size, slice bound or loop count read back from a tensor (``.item()``, ``.tolist()``, ``int(t)``).

    What it does:
        Follows values read from tensors with ``.item()``, ``.tolist()`` or ``int()`` / ``float()`` of a
        tensor, and 0-d tensors (``mask.sum()``, ``lengths.max()``), and names computed from them within one
        function, and attributes of ``self`` assigned from them in an earlier method of the class, to the
        places that fix a shape: the size
        arguments of ``torch.zeros`` / ``arange`` / ``randperm`` and friends, ``view`` / ``reshape`` /
        ``expand`` / ``repeat`` / ``split`` / ``narrow`` / ``topk`` / ``new_zeros``, ``F.interpolate`` sizes,
        slice bounds ``x[:n]`` and ``for ... in range(n)`` loops.
    Why it matters on NPU:
        Reading a value is a host-device sync, and a shape built from it changes with the data: each new
        shape compiles the NPU operators again, so the step time follows the data instead of staying flat.
    Example:
        num_pos = int(pos_mask.sum())
        topk = scores.topk(num_pos)
    Use instead:
        k = max_candidates                               # a fixed upper bound
        vals, idx = scores.topk(k); keep = torch.arange(k, device=scores.device) < pos_mask.sum()
    Fix safety:
        No automatic fix.
    """

    code = "NPU403"
    name = "tensor-value-in-shape"
    triggers = (".item()", ".tolist()", "int(", "float(", ".sum()", ".max()", ".min()", ".count_nonzero()")
    kinds = (HOST,)
    message = "{sink} takes a size from a tensor's value ({origin}, line {line}): a sync and a new shape per value on NPU; use a fixed upper bound and a mask"
    must_fire = ("import torch\nn = counts.max().item()\nbuf = torch.zeros(n, 4)\n",
                 "import torch\ndef f(x: torch.Tensor, lengths: torch.Tensor):\n    sizes = lengths.tolist()\n    return x.split(sizes)\n",
                 "import torch\ndef f(scores, pos_mask):\n    k = int(pos_mask.sum())\n    return scores.topk(k)\n",
                 "import torch\nn = int(t.sum())\ny = x[:n]\n",
                 "import torch\nfor i in range(labels.max().item() + 1):\n    pass\n",
                 "import torch\nout = x.view(t.item(), -1)\n",
                 "import torch\ndef f(x, labels):\n    n = (labels > 0).sum()\n    return x[:n]\n",
                 "import torch\ndef f(b, counts):\n    return torch.zeros(b, counts.max(), 5)\n",
                 "import torch\nclass Head(torch.nn.Module):\n    def prepare(self, counts):\n"
                 "        self.k = int(counts.max().item())\n    def forward(self, x):\n        return x.topk(self.k)\n")
    must_not_fire = ("import torch\nloss_value = loss.item()\nprint(loss_value)\n",
                     "import torch\nn = x.size(0)\nbuf = torch.zeros(n, 4)\n",
                     "import torch\nn = t.item()\nn = 8\nbuf = torch.zeros(n)\n",
                     "import torch\ndef a(t):\n    n = t.item()\ndef b():\n    return torch.zeros(n)\n",
                     "n = t.item()\nbuf = zeros(n)\n",
                     "import torch\nimport numpy as np\nstart = int(np.min(tracks[:, 1]))\nfor i in range(start):\n    pass\n",
                     "import torch\ndef f(x, arr):\n    n = arr.sum()\n    return x[:n]\n",
                     "import torch\nends = torch.tensor(config.depths).cumsum(0).tolist()\nd = dpr[ends[0]:ends[1]]\n",
                     "import torch\ndef f(p: torch.Tensor):\n    rng = p.max() - p.min()\n    c = (0.01 * rng) ** 2\n"
                     "    s = p * c\n    return s.reshape(s.shape[0], -1)\n",
                     "import torch\nclass A:\n    def a(self, t):\n        self.k = t.item()\nclass B:\n"
                     "    def b(self, x):\n        return x.topk(self.k)\n")

    def check_call(self, node: ast.Call, ctx: FileContext) -> None:
        func = node.func
        if last_name(func) not in _SINK_NAMES:
            return
        name = ctx.resolver.qualname(func)
        if name is not None:
            if name not in FACTORIES and name not in _RESIZE:
                return
            args = call_args(node)
            sink = name.rsplit(".", 1)[-1] + "()"
        elif isinstance(func, ast.Attribute) and func.attr in SHAPE_METHODS:
            args, sink = call_args(node), f".{func.attr}()"
        elif isinstance(func, ast.Name) and func.id == "range" and isinstance(ctx.parent(node), ast.For) \
                and ctx.parent(node).iter is node:
            args, sink = list(node.args), "the loop count range()"
        else:
            return
        origin = self._flow(args, node, ctx)
        if origin is not None:
            ctx.report(node, self.message.format(sink=sink, origin=origin[1], line=origin[2]), sink)

    def check_subscript(self, node: ast.Subscript, ctx: FileContext) -> None:
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        bounds = [b for s in elements if isinstance(s, ast.Slice) for b in (s.lower, s.upper, s.step) if b is not None]
        origin = self._flow(bounds, node, ctx) if bounds else None
        if origin is not None:
            ctx.report(node, self.message.format(sink="a slice bound", origin=origin[1], line=origin[2]), "x[:n]")


class RandomInputSize(ValueFlow):
    """Resizing to a random size per batch (multi-scale training).

    What it does:
        Flags ``F.interpolate`` / ``F.upsample`` / ``nn.Upsample`` / torchvision ``resize`` calls whose size
        or scale factor comes from ``random`` or ``numpy.random`` (directly or through names computed from
        the draw, within one function), the multi-scale training trick of YOLO-style detectors.
    Why it matters on NPU:
        Every new input size compiles the whole network's operators again on Ascend; with a random size per
        batch the first epochs are spent compiling.
    Example:
        size = random.choice([320, 416, 512, 608])
        imgs = F.interpolate(imgs, size=size)
    Use instead:
        Train at one size, or draw from a short fixed list and bucket batches by size so each size compiles
        once; ``torch_npu.npu.set_compile_mode(jit_compile=False)`` uses prebuilt binaries for the rest.
    Fix safety:
        No automatic fix.
    """

    code = "NPU404"
    name = "random-input-size"
    triggers = ("random",)
    kinds = (RANDOM,)
    message = "{sink} resizes to a random size ({origin}, line {line}): every new input size recompiles the network on NPU; use fixed sizes or size buckets"
    must_fire = ("import random\nimport torch.nn.functional as F\nsz = random.randrange(320, 640, 32)\n"
                 "imgs = F.interpolate(imgs, size=(sz, sz))\n",
                 "import random\nimport math\nfrom torch import nn\ndef step(imgs, imgsz, gs):\n"
                 "    sz = random.randrange(int(imgsz * 0.5), int(imgsz * 1.5) + gs) // gs * gs\n"
                 "    sf = sz / max(imgs.shape[2:])\n    ns = [math.ceil(x * sf / gs) * gs for x in imgs.shape[2:]]\n"
                 "    return nn.functional.interpolate(imgs, size=ns, mode='bilinear')\n",
                 "import numpy as np\nimport torch.nn.functional as F\ny = F.interpolate(x, scale_factor=np.random.uniform(0.5, 1.5))\n")
    must_not_fire = ("import random\nimport torch.nn.functional as F\nimgs = F.interpolate(imgs, size=(640, 640))\n",
                     "import random\nimport torch.nn.functional as F\nif random.random() < 0.5:\n    x = x.flip(-1)\n"
                     "y = F.interpolate(x, scale_factor=2)\n")

    def check_call(self, node: ast.Call, ctx: FileContext) -> None:
        if last_name(node.func) not in _RESIZE_NAMES:
            return
        name = ctx.resolver.qualname(node.func)
        if name not in _RESIZE:
            return
        positional = node.args if name == "torch.nn.Upsample" else node.args[1:]   # Upsample(size, scale_factor)
        args = positional + [kw.value for kw in node.keywords if kw.arg in ("size", "scale_factor", "pad")]
        origin = self._flow(args, node, ctx)
        if origin is not None:
            sink = name.rsplit(".", 1)[-1] + "()"
            ctx.report(node, self.message.format(sink=sink, origin=origin[1], line=origin[2]), name)
