"""NPU407-NPU408: shapes that change because a length changes: the short last chunk of a sequence cut in
fixed steps and a tensor that grows inside a loop (per-sample lists: dynamic_samples.py)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.dynamic_values import FAMILY

_CAT = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})
# The last word of a name that holds no tensor data (lists of names, parameters, modules, text).
_NOT_TENSOR_WORDS = frozenset({"list", "items", "names", "keys", "headers", "params", "paths", "files", "modules",
                               "submodule", "submodules", "blocks", "layers", "lines", "text", "texts", "strings",
                               "words", "urls", "prompts", "prompt", "captions", "dicts", "tags", "columns"})


def _last_word(node: ast.AST) -> str:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lower().rsplit("_", 1)[-1]


def _length_expr(node: ast.AST) -> bool:
    """``len(x)``, ``x.size(0)``, ``x.shape[0]``, ``x.numel()``: a length read from the data."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            if isinstance(func, ast.Name) and func.id == "len":
                return True
            if isinstance(func, ast.Attribute) and func.attr in ("size", "numel"):
                return True
        if isinstance(child, ast.Subscript) and isinstance(child.value, ast.Attribute) and child.value.attr == "shape":
            return True
    return False


def _first_axis(node: ast.AST) -> bool:
    """The length is along the first axis: ``len(x)``, ``x.size(0)``, ``x.shape[0]``."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == "len":
            return True
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "size":
            return bool(child.args) and isinstance(child.args[0], ast.Constant) and child.args[0].value == 0
        if isinstance(child, ast.Subscript) and isinstance(child.value, ast.Attribute) and child.value.attr == "shape":
            return isinstance(child.slice, ast.Constant) and child.slice.value == 0
    return False


def _names(node: ast.AST) -> set[str]:
    return {child.id for child in ast.walk(node) if isinstance(child, ast.Name)}


class ShortLastChunk(Rule):
    """The last chunk of a sequence cut in fixed steps is shorter (bptt tails, hand-made batches).

    What it does:
        Flags ``min(bptt, len(source) - 1 - i)`` (a chunk length, a name, cut at the end of the data: the length
        of the data minus a position; the bptt loop of language models) and slices ``x[i:i + step]`` inside ``for i in range(start, stop, step)`` whose stop is
        not reduced by the step: unless the data length is a multiple of the step, the last chunk is shorter.
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
    must_fire = ("import torch\ndef get_batch(source, i, bptt):\n    seq_len = min(bptt, len(source) - 1 - i)\n"
                 "    return source[i:i + seq_len]\n",
                 "import torch\ndef run(x, bs):\n    for i in range(0, x.size(0), bs):\n        y = model(x[i:i + bs])\n")
    must_not_fire = ("import torch\ndef run(x, bs):\n    for i in range(0, x.size(0) - bs, bs):\n        y = x[i:i + bs]\n",
                     "import torch\nn = min(a, b)\n",
                     "import torch\nnum_neg = min(num_pos * 3, losses.numel() - num_pos)\n",
                     "import torch\nn = min(max_new, self.min_length - ids.shape[-1])\n",
                     "import torch\ndef run(x, bs):\n    for i in range(0, 10):\n        y = x[i:i + bs]\n",
                     "def run(x, bs):\n    for i in range(0, len(x), bs):\n        y = x[i:i + bs]\n",
                     "import torch\nfor i in range(0, len(params_list), 100):\n    log(params_list[i:i + 100])\n")

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
        if not isinstance(bounds, ast.Slice) or not isinstance(bounds.lower, ast.Name) \
                or not isinstance(bounds.upper, ast.BinOp) or not isinstance(bounds.upper.op, ast.Add) \
                or not isinstance(node.ctx, ast.Load):
            return
        if _last_word(node.value) in _NOT_TENSOR_WORDS:
            return      # a list of names, parameters or modules cut in batches: no tensor shape
        index = bounds.lower.id
        upper = bounds.upper
        step = upper.right if isinstance(upper.left, ast.Name) and upper.left.id == index else \
            upper.left if isinstance(upper.right, ast.Name) and upper.right.id == index else None
        loop = self._range_loop(node, index, ctx)
        if step is None or loop is None:
            return
        call = loop.iter
        assert isinstance(call, ast.Call)
        if ast.dump(call.args[2]) != ast.dump(step) or not _length_expr(call.args[1]):
            return
        stop = call.args[1]
        if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub):
            return      # ``range(0, n - step, step)``: every chunk is whole
        ctx.report(node, self.message.format(what=f"{short_source(node)} in steps of {short_source(step)}"),
                   "x[i:i + step]")

    @staticmethod
    def _tail(arg: ast.AST) -> bool:
        """``len(source) - 1 - i``: a length read from the data minus a position."""
        if not isinstance(arg, ast.BinOp) or not isinstance(arg.op, ast.Sub) or not _length_expr(arg):
            return False
        measured = {name for child in ast.walk(arg) if isinstance(child, (ast.Call, ast.Subscript))
                    for name in _names(child)}
        held = {id(child.value) for child in ast.walk(arg) if isinstance(child, ast.Attribute)}
        positions = {child.id for child in ast.walk(arg) if isinstance(child, ast.Name) and id(child) not in held}
        return bool(positions - measured) and _first_axis(arg)

    @staticmethod
    def _range_loop(node: ast.AST, index: str, ctx: FileContext) -> Optional[ast.For]:
        loop = ctx.enclosing(node, (ast.For, *FUNCTION_TYPES))
        while isinstance(loop, ast.For):
            if isinstance(loop.target, ast.Name) and loop.target.id == index:
                call = loop.iter
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range" \
                        and len(call.args) == 3:
                    return loop
                return None
            loop = ctx.enclosing(loop, (ast.For, *FUNCTION_TYPES))
        return None


class GrowingTensor(Rule):
    """A tensor concatenated onto itself inside a loop (autoregressive growth).

    What it does:
        Flags ``x = torch.cat([x, new], dim)`` (and ``torch.concat`` / ``hstack`` / ``vstack``) inside a
        ``while`` loop or a ``for`` loop over steps (``range``, ``count``, ``tqdm(range(...))``), where the result is assigned back to a name (or attribute) that is one of
        the concatenated tensors and the concatenation is the only assignment to it in the loop: the tensor is
        one step longer every iteration, as in token-by-token generation. Outside a loop, state kept between
        calls that is concatenated onto itself (``self.cache = torch.cat([self.cache, k])``, or
        ``kwargs["attention_mask"] = torch.cat([mask, ...])`` after ``mask = kwargs["attention_mask"]``) grows at
        every call: a growing key/value cache or generation state.
    Why it matters on NPU:
        Every step has a new length: the concatenation and every operator that reads the tensor (attention
        over the sequence, the model's forward) compile again on NPU at each step.
    Example:
        for _ in range(max_new_tokens):
            logits = model(ids)[:, -1]
            ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=1)
    Use instead:
        Allocate the full length once (``torch.full((b, max_len), pad_id)``), write step ``t`` with
        ``ids[:, t] = next_token`` and pass an attention mask; a static key/value cache does the same for attention.
    Fix safety:
        No automatic fix.
    """

    code = "NPU408"
    name = "growing-tensor"
    family = FAMILY
    node_types = (ast.Call,)
    callees = _CAT   # dispatch: the calls judged
    triggers = ("cat(", "concat", "stack(")
    message = "{what} grows by a step every iteration: a new length to compile on NPU at each step; allocate the full length once and write each step into it"
    must_fire = ("import torch\nfor _ in range(n):\n    ids = torch.cat([ids, nxt], dim=1)\n",
                 "import torch\nclass Cache:\n    def update(self, k):\n        self.keys = torch.cat([self.keys, k], dim=2)\n",
                 "import torch\ndef update(kwargs):\n    mask = kwargs['attention_mask']\n"
                 "    kwargs['attention_mask'] = torch.cat([mask, mask.new_ones((mask.shape[0], 1))], dim=-1)\n",
                 "import torch\ndef update(kwargs, n):\n    if (t := kwargs.get('ids')) is not None:\n"
                 "        kwargs['ids'] = torch.cat([t, t[:, -n:]], dim=-1)\n",
                 "import torch\nwhile not done:\n    self.cache = torch.cat((self.cache, k), dim=2)\n")
    must_not_fire = ("import torch\nids = torch.cat([ids, nxt], dim=1)\n",
                     "import torch\ndef f(self, k):\n    self.queue = torch.cat([self.queue, k])\n"
                     "    self.queue = self.queue[-100:]\n",
                     "import torch\ndef f(out, a):\n    out['x'] = torch.cat([a, a])\n",
                     "import torch\ndef f(state, a):\n    state.x = torch.cat([state.x, a])\n",
                     "import torch\nfor _ in range(n):\n    out = torch.cat([a, b], dim=1)\n",
                     "import torch\nfor _ in range(n):\n    ids = torch.cat([ids, nxt], dim=1)[:, -10:]\n",
                     "import torch\nfor block, skip in zip(blocks, skips):\n    h = torch.cat([h, skip], dim=1)\n"
                     "    h = block(h)\n",
                     "import torch\nfor ts in inputs:\n    ts = torch.cat([pad, ts])\n",
                     "import torch\nfor c in self.conditions:\n    emb = torch.cat([emb, embed(c)], dim=1)\n")

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        if not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
            return
        statement = ctx.parent(node)
        if not isinstance(statement, ast.Assign) or statement.value is not node or len(statement.targets) != 1:
            return
        target = statement.targets[0]
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            return
        text = ast.unparse(target)
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        if isinstance(loop, (ast.For, ast.While)):
            if not any(ast.unparse(element) == text for element in node.args[0].elts) \
                    or not self._carried(loop, statement, text):
                return
        elif not self._stored(loop, statement, node, text):
            return
        name = ctx.resolver.qualname(node.func)
        if name not in _CAT:
            return
        ctx.report(node, self.message.format(what=f"{text} = {name.rsplit('.', 1)[-1]}([{text}, ...])"), name)

    @staticmethod
    def _stored(function: Optional[ast.AST], statement: ast.Assign, call: ast.Call, text: str) -> bool:
        """Outside a loop: ``self.cache = cat([self.cache, k])`` or ``kwargs["mask"] = cat([mask, ...])`` after
        ``mask = kwargs["mask"]``: state kept between calls grows by a step at every call."""
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or isinstance(statement.targets[0],
                                                                                          ast.Name):
            return False
        container = statement.targets[0]
        root = container
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(container, ast.Attribute) and not (isinstance(root, ast.Name) and root.id == "self"):
            return False        # ``state.x = cat([state.x, y])`` on a local object: no state kept between calls
        first = call.args[0].elts[0] if call.args[0].elts else None    # type: ignore[attr-defined]
        if first is None:
            return False
        read = ast.unparse(first)
        sources = {text}
        if isinstance(container, ast.Subscript):     # ``v = d[key]`` / ``v = d.get(key)`` read the same storage
            sources.add(f"{ast.unparse(container.value)}.get({ast.unparse(container.slice)})")
        for child in ast.walk(function):
            if child is statement or getattr(child, "lineno", 0) > statement.lineno:
                continue
            if isinstance(child, ast.NamedExpr) and isinstance(child.target, ast.Name) and child.target.id == read \
                    and ast.unparse(child.value) in sources:
                return True         # ``if (mask := kwargs.get("attention_mask")) is not None:``
            if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for assigned in targets:
                    if ast.unparse(assigned) == text:
                        return False            # assigned again in the function: not the stored state
                    if isinstance(assigned, ast.Name) and assigned.id == read and child.value is not None \
                            and ast.unparse(child.value) in sources:
                        return True
        for child in ast.walk(function):         # assigned again after the concatenation (a truncation)
            if child is not statement and isinstance(child, ast.Assign) and child.lineno > statement.lineno \
                    and any(ast.unparse(t) == text for t in child.targets):
                return False
        return read == text

    @staticmethod
    def _carried(loop: ast.AST, statement: ast.Assign, text: str) -> bool:
        """The concatenation is the only assignment to ``text`` in the loop: the value grows from one iteration
        to the next (not ``x = f(x)`` after it, nor a fresh ``x`` each iteration)."""
        if isinstance(loop, ast.For):
            steps = loop.iter
            if not (isinstance(steps, ast.Call) and isinstance(steps.func, (ast.Name, ast.Attribute))
                    and _last_word(steps.func) in ("range", "count", "trange", "tqdm")):
                return False    # a loop over a list of items (conditions, layers): the same shapes every call
            if text in {ast.unparse(n) for n in ast.walk(loop.target)}:
                return False
        for child in ast.walk(loop):
            if child is statement:
                continue
            if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                if any(ast.unparse(n) == text for target in targets for n in ast.walk(target)):
                    return False
        return True
