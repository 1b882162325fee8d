"""NPU407: the last chunk of a sequence cut in fixed steps is shorter (a tensor that grows in a loop, NPU408:
dynamic_growth.py)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.chunk_steps import (TRANGES, chunk_step, consumed, data_length, length_expr, loop_position,
                                        made_tensor, same_or_variable, whole_chunks)
from npu_lint.rules.value_flow import FAMILY

# The last word of a name that holds no tensor data (lists of names, parameters, modules, text).
_NOT_TENSOR_WORDS = frozenset({"list", "items", "names", "keys", "headers", "params", "paths", "files", "modules",
                               "submodule", "submodules", "blocks", "layers", "lines", "text", "texts", "strings",
                               "words", "urls", "prompts", "prompt", "captions", "dicts", "tags", "columns"})


def _last_word(node: ast.AST) -> str:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lower().rsplit("_", 1)[-1]


def _first_axis(node: ast.AST) -> bool:
    """The length is along the first axis: ``len(x)``, ``x.size(0)``, ``x.shape[0]``."""
    for child in walk(node):
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == "len":
            return True
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "size":
            return bool(child.args) and isinstance(child.args[0], ast.Constant) and child.args[0].value == 0
        if isinstance(child, ast.Subscript) and isinstance(child.value, ast.Attribute) and child.value.attr == "shape":
            return isinstance(child.slice, ast.Constant) and child.slice.value == 0
    return False


def _names(node: ast.AST) -> set[str]:
    return {child.id for child in walk(node) if isinstance(child, ast.Name)}


class ShortLastChunk(Rule):
    """The last chunk of a sequence cut in fixed steps is shorter (bptt tails, hand-made batches).

    What it does:
        Flags ``min(bptt, len(source) - 1 - i)`` (a chunk length, a name, cut at the end of the data: the length
        of the data minus a position; the bptt loop of language models) and slices ``x[i:i + step]`` inside ``for i in range(start, stop, step)`` whose stop is
        not reduced by the step: unless the data length is a multiple of the step, the last chunk is shorter.
        The end may be clipped (``end = min(i + step, n)``; ``x[i:end]``), the stop a name bound to a length
        (``n = x.shape[0]``), the steps seen through ``tqdm(range(...))``, ``trange`` or ``enumerate``, and the
        loop a comprehension whose chunk is computed on (``torch.cat([model(x[i:i + bs]) for i in range(0,
        len(x), bs)])``). The stop must be a length read from the data, not a constant; a
        Python list cut in chunks counts only when a chunk is made a tensor in the loop (``torch.stack``, a
        tokenizer asked for ``return_tensors``). One finding per loop: its first chunk.
    Why it matters on NPU:
        The short chunk is a second sequence length (or batch size) for every operator of the training step:
        the whole step compiles again on NPU for it, once per epoch and per distinct tail.
    Example:
        seq_len = min(bptt, len(source) - 1 - i)
        data = source[i:i + seq_len]
    Use instead:
        Trim the data to a multiple of the chunk length once (``source = source[:(len(source) - 1) // bptt * bptt
        + 1]``), or skip the short tail (``range(0, len(source) - bptt, bptt)``), or pad it to ``bptt`` and mask.
    Fix safety:
        No automatic fix: trimming or padding changes which tokens a step sees.
    """

    code = "NPU407"
    name = "short-last-chunk"
    family = FAMILY
    node_types = (ast.Call, ast.Subscript)
    triggers = ("min(", "range(")
    message = "{what}: the last chunk of the data is shorter, a second shape for the whole step to compile on NPU; trim the data to a multiple of the chunk, skip the tail, or pad it"
    must_fire = ("import numpy as np\nimport torch\ndef slide(model, chunks: torch.Tensor, bs: int):\n"
                 "    for c in np.arange(0, chunks.shape[0], bs):\n        model(chunks[c:c + bs])\n",
                 "import torch\ndef get_batch(source, i, bptt):\n    seq_len = min(bptt, len(source) - 1 - i)\n"
                 "    return source[i:i + seq_len]\n",
                 "import torch\ndef run(x, bs):\n    for i in range(0, x.size(0), bs):\n        y = model(x[i:i + bs])\n",
                 # the end bound clipped to the length, through a name; the length through a name
                 "import torch\ndef run(x, chunk):\n    n = x.shape[0]\n    for start in range(0, n, chunk):\n"
                 "        end = min(start + chunk, n)\n        y = model(x[start:end])\n",
                 "import torch\ndef enc(model, x, bs):\n    return torch.cat([model(x[i:min(i + bs, len(x))]) for i in range(0, len(x), bs)])\n",
                 # a Python list of texts cut in chunks that are made tensors
                 "import torch\ndef embed(texts, bs):\n    for i in range(0, len(texts), bs):\n"
                 "        chunk = texts[i:i + bs]\n        x = torch.stack([encode(t) for t in chunk])\n",
                 # the steps through a progress bar or enumerate
                 "import torch\nfrom tqdm import tqdm\ndef enc(model, emb, bs):\n"
                 "    for start in tqdm(range(0, len(emb), bs), desc='encode'):\n        model(emb[start:start + bs])\n",
                 "import torch\nfrom tqdm.auto import trange\ndef enc(model, emb, bs):\n"
                 "    for start in trange(0, emb.shape[0], bs, desc='encode'):\n        model(emb[start:start + bs])\n",
                 "import torch\ndef enc(model, emb, bs):\n    for k, start in enumerate(range(0, len(emb), bs)):\n"
                 "        model(emb[start:start + bs])\n",
                 # the length unpacked from a shape, in one arm of an ``if``
                 "import numpy as np\nimport torch\ndef slide(model, wave: torch.Tensor, w, s, bs):\n"
                 "    if wave.shape[1] >= w:\n        chunks = wave.unfold(1, w, s)\n        n, _, _ = chunks.shape\n"
                 "    else:\n        n = 0\n    for c in np.arange(0, n, bs):\n"
                 "        batch: torch.Tensor = chunks[c:c + bs]\n        model(batch)\n",
                 # windows of one length every ``stride`` along the last axis
                 "import torch\ndef encode(self, x: torch.Tensor, segment, stride):\n    _, channels, length = x.shape\n"
                 "    frames = []\n    for offset in range(0, length, stride):\n"
                 "        frames.append(self.enc(x[:, :, offset:offset + segment]))\n    return frames\n")
    must_not_fire = ("import torch\ndef run(x, bs):\n    for i in range(0, x.size(0) - bs, bs):\n        y = x[i:i + bs]\n",
                     "import torch\nn = min(a, b)\n",
                     "import torch\nnum_neg = min(num_pos * 3, losses.numel() - num_pos)\n",
                     "import torch\nn = min(max_new, self.min_length - ids.shape[-1])\n",
                     "import torch\ndef run(x, bs):\n    for i in range(0, 10):\n        y = x[i:i + bs]\n",
                     "def run(x, bs):\n    for i in range(0, len(x), bs):\n        y = x[i:i + bs]\n",
                     "import torch\nfor i in range(0, len(params_list), 100):\n    log(params_list[i:i + 100])\n",
                     # a constant length, a whole-chunk stop, a list chunk never made a tensor
                     "import torch\ndef run(x):\n    for i in range(0, 1024, 128):\n        end = min(i + 128, 1024)\n"
                     "        y = x[i:end]\n",
                     "import torch\ndef run(x, bs):\n    n = len(x) - bs\n    for i in range(0, len(x) - bs, bs):\n"
                     "        end = min(i + bs, n)\n        y = x[i:end]\n",
                     "import torch\ndef names(texts, bs):\n    for i in range(0, len(texts), bs):\n"
                     "        chunk = texts[i:i + bs]\n        print(', '.join(chunk))\n",
                     # pieces of a sequence collected in a list, nothing computed on each
                     "import torch\ndef segment(a, n):\n    return [a[i:i + n] for i in range(0, len(a), n)]\n",
                     # the enumerate counter is no chunk start; whole chunks through a progress bar
                     "import torch\ndef enc(model, emb, bs, starts):\n    for start, _ in enumerate(range(0, len(emb), bs)):\n"
                     "        model(emb[start:start + bs])\n",
                     "import torch\nfrom tqdm import tqdm\ndef enc(model, emb, bs):\n"
                     "    for start in tqdm(range(0, len(emb) - bs, bs)):\n        model(emb[start:start + bs])\n")

    def check(self, node: object, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "min" and len(node.args) == 2 \
                    and not node.keywords and any(self._tail(arg) and isinstance(other, (ast.Name, ast.Attribute))
                                                  for arg, other in (node.args, node.args[::-1])):
                ctx.report(node, self.message.format(what=f"{short_source(node)} cuts the last chunk short"), "min")
            return
        assert isinstance(node, ast.Subscript)
        bounds = node.slice
        if isinstance(bounds, ast.Tuple):   # ``x[:, :, offset:offset + segment]``: a chunk along another axis
            bounds = next((b for b in bounds.elts if isinstance(b, ast.Slice) and isinstance(b.lower, ast.Name)), None)
        if not isinstance(bounds, ast.Slice) or not isinstance(bounds.lower, ast.Name) or bounds.upper is None \
                or not isinstance(node.ctx, ast.Load):
            return
        index = bounds.lower.id
        step = chunk_step(bounds.upper, index, ctx)
        found = self._range_loop(node, index, ctx) if step is not None else None
        if step is None or found is None:
            return
        call, loop = found
        stop = call.args[1]
        if not same_or_variable(call.args[2], step) or not data_length(stop, ctx):
            return
        if whole_chunks(stop, ctx):
            return      # ``range(0, n - step, step)``: every chunk is whole
        if not isinstance(loop, ast.For) and not consumed(node, ctx):
            return      # ``[a[i:i + n] for i in range(...)]``: a list of pieces, no computation on each
        if (_last_word(node.value) in _NOT_TENSOR_WORDS or ctx.resolver.kind_of(node.value) == "list") \
                and not made_tensor(node, loop, ctx):
            return      # a list of names, parameters or modules cut in batches, never made a tensor: no shape
        reported = ctx.scratch.setdefault("short_chunk_loops", set())
        if id(loop) in reported:
            return      # the loop's first chunk names it
        reported.add(id(loop))
        ctx.report(node, self.message.format(what=f"{short_source(node)} in steps of {short_source(step)}"),
                   "x[i:i + step]")

    @staticmethod
    def _tail(arg: ast.AST) -> bool:
        """``len(source) - 1 - i``: a length read from the data minus a position."""
        if not isinstance(arg, ast.BinOp) or not isinstance(arg.op, ast.Sub) or not length_expr(arg):
            return False
        measured = {name for child in walk(arg) if isinstance(child, (ast.Call, ast.Subscript))
                    for name in _names(child)}
        held = {id(child.value) for child in walk(arg) if isinstance(child, ast.Attribute)}
        positions = {child.id for child in walk(arg) if isinstance(child, ast.Name) and id(child) not in held}
        return bool(positions - measured) and _first_axis(arg)

    @staticmethod
    def _range_loop(node: ast.AST, index: str, ctx: FileContext) -> Optional[tuple[ast.Call, ast.AST]]:
        """The ``range(start, stop, step)`` call a ``for`` loop or a comprehension moves ``index`` over, and the
        loop (or comprehension) node."""
        kinds = (ast.For, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp, *FUNCTION_TYPES)
        loop = ctx.enclosing(node, kinds)
        while loop is not None and not isinstance(loop, FUNCTION_TYPES):
            heads = [(loop.target, loop.iter)] if isinstance(loop, ast.For) else \
                [(g.target, g.iter) for g in loop.generators]   # type: ignore[attr-defined]
            for target, call in heads:
                path = loop_position(target, index)
                if path is not None:
                    found = ctx.resolver.iterated(call, ctx.resolver.current, path)   # through tqdm, enumerate
                    call = found[0] if found is not None and not found[1] else None
                    if isinstance(call, ast.Call) and len(call.args) == 3 and (
                            (isinstance(call.func, ast.Name) and call.func.id == "range")
                            or ctx.resolver.qualname(call.func) in TRANGES):
                        return call, loop
                    return None
            loop = ctx.enclosing(loop, kinds)
        return None
