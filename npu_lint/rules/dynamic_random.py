"""NPU404: sizes drawn at random per batch: resizes (multi-scale training) and slices of a random shape (CutMix).

The draws are the semantic model's ``random`` flows (:meth:`npu_lint.resolver.Resolver.flows`); the size arguments
of resizes come from :mod:`npu_lint.analysis.size_sinks`.
"""
from __future__ import annotations

import ast

from npu_lint.analysis.cycled_sizes import cycled_size, torch_drawn
from npu_lint.analysis.data_tensors import data_root
from npu_lint.analysis.flows import RANDOM
from npu_lint.analysis.kinds import DATASET, TENSORS
from npu_lint.analysis.size_sinks import RESIZE as _RESIZE, RESIZE_NAMES as _RESIZE_NAMES
from npu_lint.analysis.size_sinks import last_name
from npu_lint.context import FileContext
from npu_lint.rules import short_source
from npu_lint.rules.value_flow import ValueFlow, origin_text


class RandomInputSize(ValueFlow):
    """Resizing to a random size per batch (multi-scale training).

    What it does:
        Flags ``F.interpolate`` / ``F.upsample`` / ``nn.Upsample`` / torchvision ``resize`` calls whose size
        or scale factor comes from ``random`` or ``numpy.random`` (also a seeded generator object's draw:
        ``self.rng.choice(sizes)`` of ``self.rng = np.random.default_rng(seed)``, ``RandomState``,
        ``random.Random``; directly, through names computed from the
        draw, or through what the file's own functions and methods return), the multi-scale training trick
        of YOLO-style detectors; and slices of a tensor whose bounds are drawn at random (CutMix's
        ``x[:, :, yl:yh, xl:xh]`` with a box from ``np.random``), where the region's shape changes per draw (a
        window of a fixed length at a random offset, a random crop, keeps its shape and is left alone, as are
        numpy arrays and the methods of a dataset: a sample prepared on the host). Also a size picked per step
        from a list of sizes (``sizes[step % len(sizes)]``, a list indexed by a draw:
        :mod:`npu_lint.analysis.cycled_sizes`), and a torchvision ``crop`` / ``center_crop`` whose height or width
        is drawn (``random``, ``numpy.random``, or ``torch.rand`` scaling the input's size: RandomIoUCrop); a
        fixed-size crop at a random offset keeps its shape.
    Why it matters on NPU:
        Every new input size compiles the whole network's operators again on Ascend; with a random size per
        batch the first epochs are spent compiling. A region of a random shape compiles its own slice, copy
        and arithmetic operators again for every new box.
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
    triggers = ("random", "% len(", "torch.rand", "crop(")
    kinds = (RANDOM,)
    message = "{sink} resizes to a random size ({origin}, line {line}): every new input size recompiles the network on NPU; use fixed sizes or size buckets"
    crop_message = "{sink} crops to a size drawn at random ({origin}, line {line}): the crop has a new shape per draw, and every new input size recompiles the network on NPU; resize the crop to a fixed size (RandomResizedCrop-style) or crop a fixed size at a random offset"
    cycled_message = "{sink} resizes to a size picked per step from a list of sizes ({origin}, line {line}): each size of the list compiles the network again on NPU, and alternating sizes keeps the graphs cycling; train at one size, or bucket batches by size and warm every size up once"
    slice_message = "a slice bound drawn at random ({origin}, line {line}): the region has a new shape per draw, its operators compile again on NPU; keep the full shape and blend with a mask of the region (torch.where)"
    must_fire = ("import random\nimport torch.nn.functional as F\nsz = random.randrange(320, 640, 32)\n"
                 "imgs = F.interpolate(imgs, size=(sz, sz))\n",
                 "import random\nimport math\nfrom torch import nn\ndef step(imgs, imgsz, gs):\n"
                 "    sz = random.randrange(int(imgsz * 0.5), int(imgsz * 1.5) + gs) // gs * gs\n"
                 "    sf = sz / max(imgs.shape[2:])\n    ns = [math.ceil(x * sf / gs) * gs for x in imgs.shape[2:]]\n"
                 "    return nn.functional.interpolate(imgs, size=ns, mode='bilinear')\n",
                 "import numpy as np\nimport torch.nn.functional as F\ny = F.interpolate(x, scale_factor=np.random.uniform(0.5, 1.5))\n",
                 # drawn in the class's own method, used in another
                 "import random\nimport torch.nn.functional as F\nclass MultiScale:\n    def pick(self):\n"
                 "        return random.choice([320, 416, 512])\n    def __call__(self, imgs):\n"
                 "        size = self.pick()\n        return F.interpolate(imgs, size=(size, size))\n",
                 # CutMix: a box drawn at random, the region's shape new per draw
                 "import numpy as np\nimport torch\ndef rand_bbox(h, w, lam):\n    ch, cw = int(h * lam), int(w * lam)\n"
                 "    cy, cx = np.random.randint(h), np.random.randint(w)\n"
                 "    return np.clip(cy - ch // 2, 0, h), np.clip(cy + ch // 2, 0, h), np.clip(cx - cw // 2, 0, w), "
                 "np.clip(cx + cw // 2, 0, w)\n"
                 "def cutmix(x: torch.Tensor, lam):\n    yl, yh, xl, xh = rand_bbox(x.shape[2], x.shape[3], lam)\n"
                 "    x[:, :, yl:yh, xl:xh] = x.flip(0)[:, :, yl:yh, xl:xh]\n    return x\n",
                 "import random\nimport torch\ndef truncate(x: torch.Tensor):\n"
                 "    return x[:, :random.randint(1, x.shape[1])]\n",
                 # a seeded generator object's draw (numpy's ``Generator``), kept on ``self`` or in a local name
                 "import numpy as np\nimport torch.nn.functional as F\nclass Scales:\n    def __init__(self, seed):\n"
                 "        self.rng = np.random.default_rng(seed)\n    def __call__(self, imgs):\n"
                 "        s = int(self.rng.choice([320, 416, 512]))\n        return F.interpolate(imgs, size=(s, s))\n",
                 "import numpy as np\nimport torch.nn.functional as F\ndef f(imgs):\n    rng = np.random.RandomState(0)\n"
                 "    return F.interpolate(imgs, scale_factor=rng.uniform(0.5, 1.5))\n",
                 # session 21: a crop of a random height and width (RandomIoUCrop)
                 "import torch\nimport torchvision.transforms.functional as TF\nclass IoUCrop(torch.nn.Module):\n"
                 "    def forward(self, image):\n        h, w = image.shape[-2:]\n"
                 "        r = 0.3 + 0.7 * torch.rand(2)\n        nh, nw = int(h * r[0]), int(w * r[1])\n"
                 "        return TF.crop(image, 0, 0, nh, nw)\n",
                 "import random\nimport torchvision.transforms.functional as TF\ndef crop(img):\n"
                 "    s = random.randint(200, 400)\n    return TF.center_crop(img, [s, s])\n",
                 # session 21: a size list cycled through by the step, or indexed by a draw
                 "import torch.nn.functional as F\nSIZES = [320, 416, 512, 608]\ndef step(model, imgs, it):\n"
                 "    size = SIZES[it // 10 % len(SIZES)]\n    return model(F.interpolate(imgs, size=(size, size)))\n",
                 "import numpy as np\nimport torch.nn.functional as F\nclass Trainer:\n    def step(self, imgs):\n"
                 "        s = self.scales[np.random.randint(len(self.scales))]\n"
                 "        return F.interpolate(imgs, scale_factor=s)\n")
    must_not_fire = (  # session 21: a fixed-size crop at a random offset
                     "import torch\nimport torchvision.transforms.functional as TF\ndef crop(img, size=224):\n"
                     "    h, w = img.shape[-2:]\n    top = int(torch.randint(0, h - size + 1, (1,)))\n"
                     "    left = int(torch.randint(0, w - size + 1, (1,)))\n"
                     "    return TF.crop(img, top, left, size, size)\n",
                     # session 21: test-time scales looped over; a list of features indexed by the step
                     "import torch.nn.functional as F\ndef tta(model, x, scales):\n    outs = []\n"
                     "    for i in range(len(scales)):\n        outs.append(model(F.interpolate(x, scale_factor=scales[i])))\n"
                     "    return outs\n",
                     "import torch\nimport torch.nn.functional as F\ndef f(x, feats: torch.Tensor, step):\n"
                     "    return F.interpolate(x, size=(640, 640)), feats[step % len(feats)]\n",
                     "import random\nimport torch.nn.functional as F\nimgs = F.interpolate(imgs, size=(640, 640))\n",
                     "import random\nimport torch.nn.functional as F\nif random.random() < 0.5:\n    x = x.flip(-1)\n"
                     "y = F.interpolate(x, scale_factor=2)\n",
                     # a random choice of the input, not of its size
                     "import random\nimport torch.nn.functional as F\ndef f(feats):\n    x = random.choice(feats)\n"
                     "    return F.interpolate(x, size=(640, 640))\n",
                     # a random crop of a fixed length; numpy; a dataset's sample on the host
                     "import random\nimport torch\ndef crop(x: torch.Tensor, size):\n"
                     "    i = random.randint(0, x.shape[-1] - size)\n    return x[..., i:i + size]\n",
                     "import random\nimport numpy as np\nimport torch\ndef cut(img: np.ndarray):\n"
                     "    return img[:random.randint(1, 5)]\n",
                     "import random\nimport torch\nclass Clips(torch.utils.data.Dataset):\n"
                     "    def __getitem__(self, i):\n        wav: torch.Tensor = self.items[i]\n"
                     "        return wav[:, :random.randint(8000, 16000)]\n",
                     # a mask the code made, masked in blocks of a random size (a BEiT masking generator)
                     "import random\nimport torch\nclass Masking:\n    def _mask(self, mask: torch.Tensor, n):\n"
                     "        h = random.randint(1, n)\n        mask[0:h, 0:h] = 1\n"
                     "    def __call__(self, n):\n        mask = torch.zeros((14, 14))\n        self._mask(mask, n)\n"
                     "        return mask\n",
                     # a generator's shuffle of the inputs, not of their size; an object of unknown kind
                     "import numpy as np\nimport torch.nn.functional as F\ndef f(imgs, make_rng):\n"
                     "    rng = np.random.default_rng(0)\n    order = rng.permutation(len(imgs))\n"
                     "    other = make_rng()\n    s = other.choice([320, 416])\n"
                     "    return F.interpolate(imgs[order], size=(640, 640)), s\n")

    def check_subscript(self, node: ast.Subscript, ctx: FileContext) -> None:
        """``x[:, :, yl:yh, xl:xh]`` of a tensor with bounds drawn at random (CutMix): a region of a new shape per
        draw; a window of a fixed length at a random offset (a random crop) keeps its shape."""
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        bounds = [b for s in elements if isinstance(s, ast.Slice) and not self._window(s, ctx)
                  for b in (s.lower, s.upper) if b is not None]
        if not bounds or ctx.resolver.kind_of(node.value) not in TENSORS:
            return
        origin = self._flow(bounds, node, ctx)
        if origin is not None and not _per_sample(ctx) \
                and data_root(ctx.resolver, node.value, ctx.resolver.current) is not None:
            # not a buffer the code made (a mask generator's on the host), nor a tensor of unknown origin
            ctx.report(node, self.slice_message.format(origin=origin_text(origin), line=origin[1].lineno),
                       "a slice bound")

    def check_call(self, node: ast.Call, ctx: FileContext) -> None:
        if last_name(node.func) in _CROP_NAMES:
            self._check_crop(node, ctx)
            return
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
            ctx.report(node, self.message.format(sink=sink, origin=origin_text(origin), line=origin[1].lineno), name)
            return
        picked = cycled_size(ctx.resolver, args, ctx.resolver.current)
        if picked is not None:
            ctx.report(node, self.cycled_message.format(sink=name.rsplit(".", 1)[-1] + "()",
                                                        origin=short_source(picked, 50), line=picked.lineno), name)


    def _check_crop(self, node: ast.Call, ctx: FileContext) -> None:
        """``TF.crop(img, top, left, h, w)`` / ``TF.center_crop(img, size)`` whose height or width is drawn at random
        (``random`` / ``numpy.random``, or ``torch.rand`` scaling the input's size: torchvision's RandomIoUCrop): the
        crop's shape is new per draw (session 21). A random offset of a fixed-size crop keeps its shape."""
        name = ctx.resolver.qualname(node.func)
        if name not in _CROPS:
            return
        sizes = node.args[3:5] if name.endswith(".crop") else node.args[1:2]
        sizes = sizes + [kw.value for kw in node.keywords if kw.arg in ("height", "width", "output_size")]
        if not sizes:
            return
        origin = self._flow(sizes, node, ctx)
        if origin is not None:
            origin = (origin_text(origin), origin[1].lineno)
        else:
            drawn = torch_drawn(ctx.resolver, sizes, ctx.resolver.current)
            origin = None if drawn is None else (short_source(drawn, 40), drawn.lineno)
        if origin is not None:
            ctx.report(node, self.crop_message.format(sink=name.rsplit(".", 1)[-1] + "()", origin=origin[0],
                                                      line=origin[1]), name)


_CROPS = frozenset({"torchvision.transforms.functional.crop", "torchvision.transforms.v2.functional.crop",
                    "torchvision.transforms.functional.center_crop",
                    "torchvision.transforms.v2.functional.center_crop"})
_CROP_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in _CROPS)


def _per_sample(ctx: FileContext) -> bool:
    """Inside a dataset's method or a ``__getitem__``: a sample prepared on the host, before it reaches the device."""
    scope = ctx.resolver.current
    while scope is not None:
        if getattr(scope.node, "name", None) == "__getitem__":
            return True
        if scope.cls is not None:
            value = ctx.resolver.class_value(scope.cls.node)
            return value is not None and value[0] == DATASET
        scope = scope.parent
    return False
