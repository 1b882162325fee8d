"""NPU410: a tensor split into per-sample pieces whose lengths are counted per item (the items' evidence comes
from :mod:`npu_lint.rules.dynamic_samples`)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.index_forms import passed_argument
from npu_lint.context import FileContext
from npu_lint.rules import Rule, short_source
from npu_lint.rules.sample_items import _Items, _built_list, counted_field
from npu_lint.rules.sample_lengths import measured_item
from npu_lint.rules.value_flow import FAMILY

_SPLIT = frozenset({"torch.split", "torch.split_with_sizes", "torch.tensor_split"})
_SPLIT_METHODS = frozenset({"split", "split_with_sizes", "tensor_split"})


class PerSampleSplit(Rule):
    """A tensor split into per-sample pieces whose lengths are counted per item.

    What it does:
        Flags ``torch.split`` / ``Tensor.split`` / ``split_with_sizes`` / ``tensor_split`` whose sizes are a list
        of per-item lengths (``[len(t) for t in targets]``, ``[b.shape[0] for b in boxes]``, ``t.size(0)``
        appended in a loop) over per-sample items, or a ``.tolist()`` of counts for ``split_with_sizes``
        (``Tensor.split`` with a ``.tolist()`` is NPU403). An integer split size is left alone. A length read
        through a method or property of the project that counts the items of one of the object's fields
        (``frame.num_detected`` returning ``len(self.instances)``, the model's ``counts`` fact) is the length of
        that field; sizes passed in as a parameter are looked up at the file's own calls of the function.
    Why it matters on NPU:
        Every piece has the length of its sample (its objects or tokens): the pieces' shapes, and those of the
        operators that read them, change with every batch and compile again on NPU.
    Example:
        num_per_image = [len(t["boxes"]) for t in targets]
        boxes_per_image = pred_boxes.split(num_per_image)
    Use instead:
        Keep the batch padded (``(batch, max_objects, ...)`` with a validity mask) and index it per sample,
        instead of splitting a flat tensor into pieces of different lengths.
    Fix safety:
        No automatic fix.
    """

    code = "NPU410"
    name = "per-sample-split"
    family = FAMILY
    node_types = (ast.Call,)
    methods = _SPLIT_METHODS   # dispatch: the calls judged
    triggers = ("split",)
    message = "{what} cuts per-sample pieces of different lengths ({why}): their shapes change with every batch, a recompile per length on NPU; keep the batch padded with a mask and index it"
    must_fire = ("import torch\ndef f(pred, targets):\n    sizes = [len(t['boxes']) for t in targets]\n"
                 "    return pred.split(sizes)\n",
                 "import torch\nfrom typing import Dict, List\n"
                 "def f(pred, targets: List[Dict[str, torch.Tensor]]):\n"
                 "    return torch.split(pred, [t['boxes'].shape[0] for t in targets], 0)\n",
                 "import torch\ndef f(rois, results: InstanceList):\n    n = [len(res) for res in results]\n"
                 "    return rois.split(n, 0)\n",
                 "import torch\ndef f(x, counts):\n    return x.split_with_sizes(counts.tolist())\n",
                 "import torch\ndef f(x, preds):\n    n = []\n    for p in preds:\n        n.append(p[p[:, 4] > 0.5].size(0))\n"
                 "    return torch.split(x, n)\n",
                 # a property counting each frame's instances, the sizes passed to a helper
                 "import torch\nclass Frame:\n    @property\n    def num_detected(self):\n"
                 "        return len(self.instances)\n"
                 "class Loss:\n    def forward(self, pred, frames):\n        n_t = [f.num_detected for f in frames]\n"
                 "        return self._per_frame(pred, n_t)\n    def _per_frame(self, pred, n_t):\n"
                 "        return pred.split(n_t, dim=0)\n")
    must_not_fire = ("import torch\ndef f(x):\n    return x.split(64, dim=1)\n",
                     "import torch\ndef f(x):\n    return torch.split(x, [3, 4, 5])\n",
                     "import torch\ndef f(x, dims):\n    return x.split(dims)\n",
                     "import torch\ndef f(x, counts):\n    return x.split(counts.tolist())\n",
                     "import torch\ndef f(x, heads):\n    return x.split([h.out_features for h in heads], -1)\n",
                     "import torch\ndef f(labels, points):\n    n = [center.size(0) for center in points]\n"
                     "    return labels.split(n, 0)\n",
                     "import torch\ndef f(flat, params):\n    return flat.split([v.numel() for v in params])\n",
                     "def f(s):\n    return s.split([len(p) for p in parts])\n",
                     # a property counting a module's layers; a helper whose callers pass fixed sizes
                     "import torch\nclass Block:\n    @property\n    def depth(self):\n        return len(self.layers)\n"
                     "def f(x, blocks):\n    return x.split([b.depth for b in blocks])\n",
                     "import torch\nfrom torch import nn\nclass Head(nn.Module):\n    @property\n    def n_out(self):\n"
                     "        return len(self.classes)\ndef f(x, heads):\n    return x.split([h.n_out for h in heads])\n",
                     "import torch\ndef g(x, sizes):\n    return x.split(sizes)\ndef h(x, heads):\n"
                     "    return g(x, [h.dim for h in heads])\n")

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not ctx.uses_torch or not isinstance(func, ast.Attribute) or func.attr not in _SPLIT_METHODS:
            return
        name = ctx.resolver.qualname(func)
        if name is not None:
            if name not in _SPLIT or len(node.args) < 2:
                return
            sizes = node.args[1]
        else:
            sizes = node.args[0] if node.args else next(
                (kw.value for kw in node.keywords if kw.arg in ("split_size", "split_sizes", "split_size_or_sections",
                                                                "sections", "indices")), None)
            if sizes is None or ctx.resolver.kind_of(func.value) in ("host", "list") \
                    or isinstance(func.value, ast.Constant):
                return
        why = self._per_item_lengths(sizes, ctx, func.attr)
        if why:
            ctx.report(node, self.message.format(what=f"{func.attr}({short_source(sizes, 30)})", why=why),
                       name or f"torch.Tensor.{func.attr}")

    def _passed_lengths(self, binding, ctx: FileContext, method: str) -> Optional[str]:
        """A parameter's sizes from the file's own calls of its function: a caller's list of per-item lengths
        (``n_t = [f.num_detected for f in frames]``, then ``self._match(..., n_t)``)."""
        function = binding.scope.node
        if binding.node is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        for call, scope, offset in ctx.resolver.call_sites(function):
            passed = passed_argument(call, function, binding.node, offset)
            if isinstance(passed, ast.Name):
                bound = ctx.resolver.binding(passed, scope)
                passed = bound.value if bound is not None and bound.tag == "value" and not bound.path else None
            if isinstance(passed, ast.ListComp):
                why = self._lengths(passed, ctx)
                if why:
                    return f"{why}, passed by the call at line {call.lineno}"
        return None

    def _per_item_lengths(self, sizes: ast.AST, ctx: FileContext, method: str, depth: int = 0) -> Optional[str]:
        if isinstance(sizes, ast.Call) and isinstance(sizes.func, ast.Attribute) and sizes.func.attr == "tolist":
            return "counts read back with .tolist()" if method == "split_with_sizes" else None
        if isinstance(sizes, ast.Name):
            binding = ctx.resolver.binding(sizes)
            if binding is not None and binding.tag == "param" and depth == 0:
                return self._passed_lengths(binding, ctx, method)
            if binding is None or binding.tag != "value" or binding.path:
                return None
            if isinstance(binding.value, ast.Call):
                return self._per_item_lengths(binding.value, ctx, method)
            if isinstance(binding.value, ast.ListComp):
                return self._lengths(binding.value, ctx)
            for element, items in _built_list(sizes, ctx):
                measured = measured_item(element) or counted_field(element, ctx)
                why = items.varies(measured) if measured is not None else None
                if why:
                    return f"{short_source(element, 30)} per item, {why}"
            return None
        if isinstance(sizes, ast.ListComp):
            return self._lengths(sizes, ctx)
        return None

    @staticmethod
    def _lengths(comprehension: ast.ListComp, ctx: FileContext) -> Optional[str]:
        measured = measured_item(comprehension.elt) or counted_field(comprehension.elt, ctx)
        if measured is None:
            return None
        why = _Items(ctx, [(g.target, g.iter) for g in comprehension.generators], None).varies(measured)
        return f"{short_source(comprehension.elt, 30)} per item, {why}" if why else None


