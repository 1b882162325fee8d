"""NPU413: a loop that skips the rest of an iteration on a tensor's value (``if fg.sum() == 0: continue``)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.dynamic_values import FAMILY

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TESTS = frozenset({"torch.any", "torch.all", "torch.isnan", "torch.isinf", "torch.isfinite", "torch.equal"})


class DataDependentSkip(Rule):
    """A loop that skips the rest of an iteration, or stops, on a tensor's value.

    What it does:
        Flags ``if <test on a tensor>: continue`` (or ``break`` out of ``for i in range(n)``: decoding stopped at
        an end token) inside a ``for`` loop of a function, when the rest
        of the iteration still runs code: per-class or per-category loops of losses that skip the classes absent
        from the batch (``if fg.sum() == 0: continue``, ``if torch.sum(mask_i) < 0.5: continue``). Loops over a
        data loader or training loops (skipping a bad batch), loops over a tensor's items (their count is the
        finding) and ``while`` loops (NPU412) are left alone.
    Why it matters on NPU:
        The test reads a device value back to the host (a sync per iteration), and which operators run then
        depends on the batch: the step's operator sequence, and any graph captured from it, changes with the
        classes present.
    Example:
        for c in range(num_classes):
            fg = (labels == c).float()
            if fg.sum() == 0:
                continue
            losses.append(lovasz_grad(fg, probs[:, c]))
    Use instead:
        Run every iteration and weigh the absent ones out: ``present = fg.sum() > 0``, then
        ``loss = torch.where(present, loss_c, 0)``, and divide by ``present.sum()`` at the end.
    Fix safety:
        No automatic fix.
    """

    code = "NPU413"
    name = "data-dependent-skip"
    family = FAMILY
    node_types = (ast.If,)
    triggers = ("continue", "break")
    message = "{test} {how} the loop at line {loop} on a tensor's value: a host sync per iteration, and the operators that run change with the batch on NPU; run every iteration and weigh the skipped ones out with a mask"
    must_fire = ("import torch\ndef lovasz(probs, labels, C):\n    losses = []\n    for c in range(C):\n"
                 "        fg = (labels == c).float()\n        if fg.sum() == 0:\n            continue\n"
                 "        losses.append((fg - probs[:, c]).abs().sum())\n    return torch.stack(losses)\n",
                 "import torch\ndef loss(cls_score: torch.Tensor, mask: torch.Tensor, names):\n    out = {}\n"
                 "    for i, name in enumerate(names):\n        m = mask[:, i]\n        if torch.sum(m) < 0.5:\n"
                 "            out[name] = 0.0\n            continue\n        out[name] = (cls_score[:, i] * m).sum()\n"
                 "    return out\n",
                 "import torch\ndef f(scores: torch.Tensor, k):\n    kept = []\n    for i in range(k):\n"
                 "        if scores[i].item() < 0.1:\n            break\n        kept.append(scores[i] * 2)\n")
    must_not_fire = (# a host test, a loop over the data loader, the last statement of the loop, a while loop
                     "import torch\ndef f(xs, C):\n    for c in range(C):\n        if c == 0:\n            continue\n"
                     "        xs[c] = torch.zeros(3)\n",
                     "import torch\ndef train(model, loader, opt):\n    for x, y in loader:\n"
                     "        loss = model(x).sum()\n        if torch.isnan(loss):\n            continue\n"
                     "        loss.backward()\n        opt.step()\n",
                     "import torch\ndef f(x: torch.Tensor, n):\n    for i in range(n):\n        x = x * 2\n"
                     "        if x.sum() > 10:\n            break\n",
                     "import torch\ndef f(x: torch.Tensor):\n    while True:\n        if x.sum() > 10:\n"
                     "            break\n        x = x * 2\n",
                     # numpy values; ``.item()`` of a value of unknown kind
                     "import torch\ndef f(rows, n):\n    for c in range(n):\n        if rows[c].item() < 0.1:\n"
                     "            continue\n        print(torch.zeros(c))\n",
                     "import numpy as np\nimport torch\ndef f(a, C):\n    for c in range(C):\n"
                     "        m = np.asarray(a) == c\n        if m.sum() == 0:\n            continue\n"
                     "        print(torch.tensor(m))\n")

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.If)
        if not ctx.uses_torch or not node.body:
            return
        jump = node.body[-1]
        if not isinstance(jump, (ast.Continue, ast.Break)):
            return
        loop = ctx.enclosing(node, (*_LOOPS, *FUNCTION_TYPES))
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or ctx.enclosing(loop, FUNCTION_TYPES) is None:
            return
        if ctx.resolver.kind_of(_unwrapped(loop.iter)) in (K.LOADER, K.BATCH, K.TENSOR, K.MASK) or _trains(loop):
            return   # a bad batch skipped; a loop over a tensor's items (its count is the finding, NPU401/NPU403)
        if isinstance(jump, ast.Break) and not _counted(loop, ctx):
            return   # stopping a walk over an iterator (a stop signal of the data) is not a step count
        if not _runs_after(node, loop, ctx):
            return
        test = _tensor_test(node.test, ctx)
        if test is None:
            return
        how = "skips the rest of an iteration of" if isinstance(jump, ast.Continue) else "stops"
        ctx.report(node, self.message.format(test=f"if {short_source(test, 40)}:", how=how, loop=loop.lineno))


def _unwrapped(iterated: ast.AST) -> ast.AST:
    """``x`` of ``enumerate(x)``, ``tqdm(x)``, ``reversed(x)``, ``zip(x, ...)``."""
    while isinstance(iterated, ast.Call) and iterated.args and isinstance(iterated.func, (ast.Name, ast.Attribute)) \
            and (iterated.func.id if isinstance(iterated.func, ast.Name) else iterated.func.attr) in (
                "enumerate", "tqdm", "reversed", "zip", "sorted", "list"):
        iterated = iterated.args[0]
    return iterated


def _counted(loop: ast.AST, ctx: FileContext) -> bool:
    """``for i in range(n)`` (also through ``enumerate``/``tqdm``): a count of steps a tensor's value may cut short."""
    iterated = loop.iter
    while isinstance(iterated, ast.Call) and iterated.args and not (
            isinstance(iterated.func, ast.Name) and iterated.func.id == "range"):
        iterated = iterated.args[0]
    return isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "range"


def _trains(loop: ast.AST) -> bool:
    """The loop is a training loop: it calls ``.backward()`` or ``.step()``."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("backward", "step")
               for n in walk(loop))


def _runs_after(node: ast.If, loop: ast.AST, ctx: FileContext) -> bool:
    """The loop's body runs a call after the ``if`` (what the jump skips)."""
    statement: ast.AST = node
    while True:
        parent = ctx.parent(statement)
        if parent is None:
            return False
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and statement in block:
                later = block[block.index(statement) + 1:]
                if any(isinstance(n, ast.Call) for s in later for n in walk(s)):
                    return True
        if parent is loop:
            return False
        statement = parent


def _tensor_test(test: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The part of an ``if`` test that reads a tensor's value (``fg.sum() == 0``, ``torch.any(m)``,
    ``x.item() < t``), or None."""
    resolver = ctx.resolver
    operands = test.values if isinstance(test, ast.BoolOp) else [test]
    for operand in operands:
        inner = operand.operand if isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not) else operand
        if isinstance(inner, ast.Compare):
            sides = (inner.left, *inner.comparators)
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in inner.ops):
                continue
            if any(resolver.kind_of(s) in K.TENSORS or _item(s, ctx) for s in sides):
                return operand
        elif isinstance(inner, ast.Call) and resolver.qualname(inner.func) in _TESTS:
            return operand
        elif resolver.kind_of(inner) in K.TENSORS:
            return operand
    return None


def _item(node: ast.AST, ctx: FileContext) -> bool:
    """``t.item()`` on a value the model knows is a tensor (a numpy scalar has ``item`` too)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item" \
        and not node.args and ctx.resolver.kind_of(node.func.value) in K.TENSORS
