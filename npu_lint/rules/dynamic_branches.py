"""NPU413: a loop that skips the rest of an iteration on a tensor's value (``if fg.sum() == 0: continue``); NPU414:
any other ``if`` on a tensor's value that chooses which tensor operators run (``if not mask.all(): ...``)."""
from __future__ import annotations

import ast

from npu_lint.analysis import kinds as K
from npu_lint.analysis.index_forms import is_range
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.setup_time import runs_at_setup
from npu_lint.context import FileContext
from npu_lint.rules.branch_records import records_only, steps_only
from npu_lint.rules.branch_shapes import same_shapes
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.host_work import host_work
from npu_lint.rules.branch_arms import drops_tested, hands_tested, later, returns_other, tensor_work
from npu_lint.rules.branch_tests import bound_guard, calls_in, guard, may_read_value, numpy_tested, runs_after, \
    tensor_test
from npu_lint.rules.broad_branches import arms_of, broad_if, broad_test, broad_work, nested_return as exits, \
    quiet_module, while_hands, while_rebinds
from npu_lint.rules.empty_tests import builds_empty, counts_something, empty_test, graph_count, returns_numbers
from npu_lint.rules.data_whiles import while_on_read_back
from npu_lint.rules.training_loops import trains
from npu_lint.rules.loop_state import carried_state, expression_work, while_break_works, while_on_tensor
from npu_lint.rules.value_flow import FAMILY
from npu_lint.rules.read_backs import training_step, whole_test_bindings

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class DataDependentSkip(Rule):
    """A loop that skips the rest of an iteration, or stops, on a tensor's value.

    What it does:
        Flags ``if <test on a tensor>: continue`` (or ``break`` out of ``for i in range(n)``: decoding stopped at
        an end token, ``if tok[0].item() == eos:`` or ``if new_id.item() in stop_ids:``, the token what a helper or
        the model returned in the loop) inside a ``for`` loop of a function, when the rest
        of the iteration still runs code: per-class or per-category loops of losses that skip the classes absent
        from the batch (``if fg.sum() == 0: continue``, ``if torch.sum(mask_i) < 0.5: continue``), or the items an
        empty data-dependent selection leaves out (``keep = m.nonzero(as_tuple=True)[0]; if keep.numel() == 0:
        continue``). Also a ``while``
        loop that stops on a tensor's value: its test reads one (``while x.abs().max() > 1:``) or compares a name
        the loop advances from a value read back (an adaptive solver's ``while s < t_end:`` with ``s = s + h`` and
        ``h`` computed from ``float(error)``; or rebinds to a tensor: ``s = t`` with ``t = torch.maximum(t_end,
        s + h)``), when its body runs tensor operators; and ``if <test on a tensor>:
        break`` inside a ``while`` loop whose body runs calls or tensor operators outside the ``if`` (a fixed-point
        or Newton iteration: ``while True: z_next = g(z); if torch.norm(z_next - z) < tol: break``). Loops over a
        data loader or training loops (skipping a bad batch, ``.backward()`` / ``.step()`` in a ``while`` loop)
        loops over a tensor's items (their count is the finding) and tests of a draw of torch's generator (LayerDrop's
        ``p = torch.rand([])`` then ``if p < self.layerdrop: continue``) are left alone. Where the test compares
        a name the function bound to ``.item()`` of a value (``tok = sampled.item()`` then ``if tok == eos:
        break``), the line of that read is reported too: the sync the loop waits on.
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
    node_types = (ast.If, ast.While)
    triggers = ("continue", "break", "while ")
    message = "{test} {how} the loop at line {loop} on a tensor's value: a host sync per iteration, and the operators that run change with the batch on NPU; run every iteration and weigh the skipped ones out with a mask"
    must_fire = (
# an ODE solver's own ``step`` method is no optimizer step: the loop is no training loop
                 "import torch\nclass Euler:\n    def step(self, t, dt, y):\n        return y + dt * torch.tanh(y)\n"
                 "    def solve(self, y: torch.Tensor, t_end: torch.Tensor, dt: float):\n        t = torch.zeros(())\n"
                 "        while t < t_end:\n            y = self.step(t, dt, y)\n            t = t + dt\n        return y\n",
                 "import torch\ndef lovasz(probs, labels, C):\n    losses = []\n    for c in range(C):\n"
                 "        fg = (labels == c).float()\n        if fg.sum() == 0:\n            continue\n"
                 "        losses.append((fg - probs[:, c]).abs().sum())\n    return torch.stack(losses)\n",
                 "import torch\ndef loss(cls_score: torch.Tensor, mask: torch.Tensor, names):\n    out = {}\n"
                 "    for i, name in enumerate(names):\n        m = mask[:, i]\n        if torch.sum(m) < 0.5:\n"
                 "            out[name] = 0.0\n            continue\n        out[name] = (cls_score[:, i] * m).sum()\n"
                 "    return out\n",
                 "import torch\ndef f(scores: torch.Tensor, k):\n    kept = []\n    for i in range(k):\n"
                 "        if scores[i].item() < 0.1:\n            break\n        kept.append(scores[i] * 2)\n",
                 # an adaptive solver: the loop's end advanced by a step computed from an error read back
                 "import torch\ndef solve(f, y: torch.Tensor, t_end: float, h: float):\n    s = 0.0\n"
                 "    while s < t_end:\n        y_new = y + h * f(y)\n        error = float((y_new - y).abs().max())\n"
                 "        h = h * min(2.0, 0.9 / max(error, 1e-6))\n        s = s + h\n        y = y_new\n    return y\n",
                 # a while loop on a tensor's value
                 "import torch\ndef f(x: torch.Tensor):\n    while x.abs().max() > 1:\n        x = x * 0.5\n"
                 "    return x\n",
                 # a while loop whose tested name the loop rebinds to a tensor
                 "import torch\ndef f(model, x: torch.Tensor, s, t_end):\n    while s > t_end:\n"
                 "        t = torch.maximum(t_end, s - 0.1)\n        x = x + (t - s) * model(x, s)\n        s = t\n"
                 "    return x\n",
                 # a while loop left on a tensor's value (a fixed-point iteration)
                 "import torch\ndef f(x: torch.Tensor):\n    while True:\n        if x.sum() > 10:\n"
                 "            break\n        x = x * 2\n",
                 "import torch\ndef fixed_point(g, z: torch.Tensor, tol: float):\n    while True:\n"
                 "        z_next = g(z)\n        if torch.norm(z_next - z) < tol:\n            break\n"
                 "        z = z_next\n    return z\n")
    must_not_fire = (
        "import torch\nfrom torch.utils.data import Dataset\nclass Crops(Dataset):\n"
        "    def __getitem__(self, i):\n        x = self.load(i)\n        for t in range(10):\n"
        "            box = torch.randint(0, 9, (2,))\n            if (box > 4).all():\n                continue\n"
        "            x = x[box[0]:]\n        return x\n",
                 # the length of a Python list, no data-dependent result
                 "import torch\ndef run(groups, x):\n    out = []\n    for g in groups:\n        if len(g) == 0:\n"
                 "            continue\n        out.append(x[g].sum())\n    return out\n",
# a host test, a loop over the data loader, the last statement of the loop, a while loop
                     "import torch\ndef f(xs, C):\n    for c in range(C):\n        if c == 0:\n            continue\n"
                     "        xs[c] = torch.zeros(3)\n",
                     "import torch\ndef train(model, loader, opt):\n    for x, y in loader:\n"
                     "        loss = model(x).sum()\n        if torch.isnan(loss):\n            continue\n"
                     "        loss.backward()\n        opt.step()\n",
                     "import torch\ndef f(x: torch.Tensor, n):\n    for i in range(n):\n        x = x * 2\n"
                     "        if x.sum() > 10:\n            break\n",
                     # a while loop left on a host value; a training loop left on the loss
                     "import torch\ndef f(x: torch.Tensor, n):\n    i = 0\n    while True:\n        i += 1\n"
                     "        if i > n:\n            break\n        x = x * 2\n",
                     "import torch\ndef fit(model, opt, x: torch.Tensor):\n    while True:\n"
                     "        loss = model(x).sum()\n        loss.backward()\n        opt.step()\n"
                     "        if loss < 0.1:\n            break\n",
                     # numpy values; ``.item()`` of a value of unknown kind (a parameter)
                     "import torch\ndef f(rows, n):\n    for c in range(n):\n        if rows[c].item() < 0.1:\n"
                     "            continue\n        print(torch.zeros(c))\n",
                     "import numpy as np\nimport torch\ndef f(a, C):\n    for c in range(C):\n"
                     "        m = np.asarray(a) == c\n        if m.sum() == 0:\n            continue\n"
                     "        print(torch.tensor(m))\n",
                     # a flag compared from values of unknown kind (a loop counter and a setting): no tensor
                     "import torch\ndef train(model, args):\n    for epoch in range(args.epochs):\n"
                     "        is_last = epoch == args.epochs - 1\n        if is_last:\n            break\n"
                     "        model.step(torch.zeros(3))\n",
                     # a while loop advanced by host values only; a training loop; a queue of host items
                     "import torch\ndef f(x: torch.Tensor, t_end, h):\n    s = 0.0\n    while s < t_end:\n"
                     "        x = x * 2\n        s += h\n    return x\n",
                     "import torch\ndef train(model, opt, x: torch.Tensor, target: float):\n    loss_v = 1e9\n"
                     "    while loss_v > target:\n        loss = model(x).sum()\n        loss.backward()\n"
                     "        opt.step()\n        loss_v = loss.item()\n",
                     "import torch\ndef f(x: torch.Tensor, queue):\n    while len(queue) > 0:\n"
                     "        x = x + queue.pop()\n    return x\n",
                     # a schedule drawn from a seeded generator on the host
                     "import torch\ndef plan(x: torch.Tensor, n, lens):\n    g = torch.Generator()\n    left = n\n"
                     "    while left > 0:\n        i = torch.randint(0, len(lens), (1,), generator=g).item()\n"
                     "        left -= lens[i]\n        x = x * 2\n    return x\n")

    must_fire += (  # session 18 (values26): a decoding loop stopped on ``.item()`` of what a helper returns (no kind
                    # the model can tell, computed by a call in the function), also by a membership test
                  "import torch\ndef decode(self, tok, n):\n    out = []\n    for i in range(n):\n"
                  "        tok = self.next_token(tok)\n        out.append(tok)\n"
                  "        if tok[0].item() == self.eos_id:\n            break\n    return torch.stack(out)\n",
                  "import torch\ndef decode(self, ids, n, stop_ids):\n    out = []\n    for i in range(n):\n"
                  "        logits = self.model(ids).logits\n        new_id = logits[0, -1].argmax()\n"
                  "        out.append(new_id)\n        if new_id.item() in stop_ids:\n            break\n"
                  "    return torch.stack(out)\n")
    must_not_fire += (  # ``.item()`` of a numpy value's result; a membership test of a Python value
                      "import numpy as np\nimport torch\ndef f(xs, n, stop):\n    for i in range(n):\n"
                      "        v = np.argmax(xs[i])\n        if v.item() in stop:\n            break\n"
                      "        print(torch.zeros(i))\n",
                      "import torch\ndef f(xs, n, stop):\n    for i in range(n):\n        v = xs[i]\n"
                      "        if v in stop:\n            break\n        print(torch.zeros(i))\n")

    while_message = "while {test}: stops on a tensor's value ({origin}, line {line}): a host sync per iteration, and the number of operators the step runs changes with the data on NPU; run a fixed number of iterations and freeze the finished ones with a mask"

    must_fire += (  # session 21 (values21): an emptiness test of a data-dependent result (``keep.numel() == 0``,
                    # ``len(c) == 0``) reads the count back and skips the rest of the iteration (was left to the
                    # selection's own finding, on another line)
        "import torch\ndef match(cls, targets, b):\n    out = []\n    for i in range(b):\n"
        "        keep = (targets[i] != 0).nonzero(as_tuple=True)[0]\n        if keep.numel() == 0:\n"
        "            continue\n        out.append(cls[i][:, targets[i][keep]].sum())\n    return out\n",
        "import torch\ndef bins(d, edges, k):\n    idx = []\n    for i in range(len(edges) - 1):\n"
        "        c = torch.where((edges[i] <= d) & (d < edges[i + 1]))[0]\n        if len(c) == 0:\n"
        "            continue\n        idx.append(c[torch.multinomial(torch.ones_like(c, dtype=torch.float), k)])\n"
        "    return torch.cat(idx)\n")

    # session 21 (branch21): the broad path. A skip on a reduction of a value the model cannot prove is no tensor,
    # when what it skips computes; a ``while`` comparing a state the body rebinds from a call that computes.
    must_fire += ("import torch\ndef per_class(stats, probs, C):\n    out = []\n    for c in range(C):\n"
                  "        if stats[c].sum() == 0:\n            continue\n        out.append(probs[:, c].exp())\n"
                  "    return out\n",
                  "import torch\nclass Solver:\n    def advance(self, next_t):\n        while next_t > self.state.t1:\n"
                  "            self.state = self.step(self.state)\n        return self.state\n"
                  "    def step(self, state):\n        return state._replace(t1=state.t1 + 1, y1=torch.tanh(state.y1))\n")
    must_not_fire += ("import torch\ndef f(stats, C):\n    for c in range(C):\n        if stats[c].sum() == 0:\n"
                      "            continue\n        print(torch.zeros(c))\n",
                      "import torch\nclass Solver:\n    def advance(self, x):\n        while self.count < self.limit:\n"
                      "            self.count = self.count + 1\n            x = torch.relu(x)\n        return x\n",
                      # LayerDrop: a layer skipped on a draw of the generator, not on a value of the data
                      "import torch\nclass Dec(torch.nn.Module):\n    def forward(self, x):\n"
                      "        for layer in self.layers:\n            p = torch.rand([])\n"
                      "            if self.training and p < self.layerdrop:\n                continue\n"
                      "            x = layer(x)\n        return x\n")

    # round 3 (branch21c): an RL episode / decoding loop ``while not td["done"].all():`` whose body hands the
    # tested container to a call, or keeps what an environment's or a decoder's ``step(...)`` returns (no optimizer
    # step: that is a statement of its own, ``opt.step()``).
    must_fire += ("import torch\ndef rollout(td, env, policy):\n    actions = []\n    while not td['done'].all():\n"
                  "        td = policy(td)\n        actions.append(td['action'])\n        td = env.step(td)['next']\n"
                  "    return torch.stack(actions, 1)\n",
                  "import torch\ndef decode(td, hidden, strategy, decoder):\n    while not td['done'].all():\n"
                  "        logits, mask = decoder.heatmap(td, hidden)\n        td = strategy.step(logits, mask, td)\n"
                  "    return td\n")
    must_not_fire += ("import torch\ndef fit(x, y, model, opt, loss_fn):\n    loss = loss_fn(model(x), y)\n"
                      "    while loss.item() > 0.1:\n        opt.zero_grad()\n        loss = loss_fn(model(x), y)\n"
                      "        loss.backward()\n        opt.step()\n    return model\n",
                      "import torch\ndef rollout(td, env):\n    while not td['done'].all():\n"
                      "        print(td)\n        env.reset()\n    return td\n")

    # session 22 (branch22): an emptiness test of a value the model cannot prove fixed (``dets[i].numel() == 0``),
    # the op the trigger: no proof that the value came from a mask or a selection.
    must_fire += ("import torch\ndef pool(dets, feats):\n    out = []\n    for i in range(len(dets)):\n"
                  "        if dets[i].numel() == 0:\n            continue\n        out.append(feats[i].mean(0))\n"
                  "    return out\n",)
    must_not_fire += ("import torch\ndef f(cfg, feats):\n    out = []\n    for i in range(3):\n"
                      "        w = torch.zeros(cfg.n)\n        if w.numel() == 0:\n            continue\n"
                      "        out.append(feats[i].mean(0) * w.sum())\n    return out\n",)

    must_not_fire += (  # session 25 (lead25): ``.ndim`` is what a tensor is, not a value read from it
        "import torch\ndef remove_padding(padded, pad_value):\n    mask = padded == pad_value\n"
        "    while mask.ndim > 1:\n        mask = torch.all(mask, dim=-1)\n    return padded[~mask]\n",)

    # session 27 (precision27, branch_tests.numpy_tested): a parameter the function uses as a numpy array elsewhere
    # (``np.bincount(labels)``, ``labels.astype(...)``) is tested on the host; the same test of one it moves with
    # ``.cpu().numpy()`` is a tensor's value
    must_not_fire += ("import numpy as np\nimport torch\ndef per_class(labels, probs, n):\n    out = []\n"
                      "    for c in range(n):\n        if (labels == c).sum() == 0:\n            continue\n"
                      "        out.append(probs[:, c].exp())\n    return out, np.bincount(labels)\n",)
    must_fire += ("import numpy as np\nimport torch\ndef per_class(labels, probs, n):\n    out = []\n"
                  "    for c in range(n):\n        if (labels == c).sum() == 0:\n            continue\n"
                  "        out.append(probs[:, c].exp())\n    np.save('l.npy', labels.cpu().numpy())\n    return out\n",)

    def check(self, node: object, ctx: FileContext) -> None:
        if ctx.uses_torch and host_work(node, ctx):
            return   # a dataset's per-sample method, a collate function: host work in the loader's workers
        if isinstance(node, ast.While):
            if ctx.uses_torch:
                self._check_while(node, ctx)
            return
        assert isinstance(node, ast.If)
        if not ctx.uses_torch or not node.body:
            return
        jump = node.body[-1]
        if not isinstance(jump, (ast.Continue, ast.Break)):
            return
        loop = ctx.enclosing(node, (*_LOOPS, *FUNCTION_TYPES))
        if isinstance(loop, ast.While) and isinstance(jump, ast.Break):
            test = tensor_test(node.test, ctx) if while_break_works(node, loop, ctx) else None
            if test is not None:
                ctx.report(node, self.break_message.format(test=short_source(test, 40), loop=loop.lineno))
                for statement, name in item_reads(node.test, ctx):
                    ctx.report(statement, self.read_message.format(name=name, line=node.lineno))
            return
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or ctx.enclosing(loop, FUNCTION_TYPES) is None:
            return
        sources = ctx.resolver.loop_sources(loop.iter)
        if ctx.resolver.kind_of(sources[0]) in (K.LOADER, K.BATCH, K.TENSOR, K.MASK) or trains(loop, ctx):
            return   # a bad batch skipped; a loop over a tensor's items (its count is the finding, NPU401/NPU403)
        if isinstance(jump, ast.Break) and not any(is_range(source) for source in sources):
            return   # stopping a walk over an iterator (a stop signal of the data) is not a step count
        if not (runs_after(node, loop, ctx) or (isinstance(jump, ast.Break) and calls_in(loop, node))):
            return
        if numpy_tested(node.test, ctx):
            return   # a test of numpy arrays the function is given (session 27)
        test = tensor_test(node.test, ctx)
        if test is None:
            # the broad paths (branch21; branch22: an emptiness test): what the jump skips computes
            test = broad_test(node.test, ctx) or empty_test(node.test, node.body, ctx)
            if test is None or guard(node.test) or quiet_module(node, ctx) \
                    or not any(broad_work(s, ctx) for s in later(node, loop, ctx)):
                return
        how = "skips the rest of an iteration of" if isinstance(jump, ast.Continue) else "stops"
        ctx.report(node, self.message.format(test=f"if {short_source(test, 40)}:", how=how, loop=loop.lineno))
        for statement, name in item_reads(node.test, ctx):
            ctx.report(statement, self.read_message.format(name=name, line=node.lineno))

    read_message = "{name} = ....item() reads back the value the test at line {line} compares to stop or skip: the host sync the loop waits on each iteration, and the operators that run change with the data on NPU; keep the test a tensor and freeze the finished items with a mask"

    break_message = "if {test}: ends the while loop at line {loop} on a tensor's value: a host sync per iteration, and the number of iterations (of operators the step runs) changes with the data on NPU; run a fixed number of iterations and freeze the converged ones with a mask"

    def _check_while(self, node: ast.While, ctx: FileContext) -> None:
        """``while s < t_end:`` with ``s`` advanced from ``float(error)``; ``while x.sum() > 10:``."""
        if ctx.enclosing(node, FUNCTION_TYPES) is None or not may_read_value(node.test) or trains(node, ctx):
            return
        found = while_on_read_back(node, ctx)
        if found is not None:
            side, read = found
            origin = f"{side.id} from {short_source(read, 30)}"
        else:
            test = tensor_test(node.test, ctx, bare_names=False) or while_on_tensor(node, ctx)
            if test is None or guard(test) or not any(tensor_work(s, ctx) for s in node.body):
                test = broad_test(node.test, ctx) or while_rebinds(node, ctx)   # the broad path (branch21)
                if test is None or guard(node.test) or quiet_module(node, ctx) \
                        or not (any(broad_work(s, ctx) for s in node.body) or while_hands(node, ctx)):
                    return
            read = test
            origin = short_source(test, 30)
        ctx.report(node, self.while_message.format(test=short_source(node.test, 40), origin=origin, line=read.lineno))


class DataDependentBranch(Rule):
    """A branch on a tensor's value that chooses which tensor operators run.

    What it does:
        Flags an ``if`` in a function whose test reads a tensor's value (``if not padding_mask.all():``,
        ``if torch.sum(mask) == 0:``, ``if torch.any(weight > 0):``, ``if done.all().item(): return ...``, a
        name holding a value read back earlier: ``energy = wav.pow(2).mean().item()`` then ``if energy < floor:``; a
        flag compared from one: ``accept = error <= 1`` then ``if accept:``, ``self.done = len(unfinished) == 0``
        with ``unfinished`` kept by values of ``is_finished.tolist()``, then ``if self.done:`` in any method; ``if
        float(g.sum()) != float(g.sum()):``; the file's own function or method that returns a value read back:
        ``if self._can_use_prev_list(x):`` with ``return bool((d < r).all())``; a name bound to a test of a whole
        tensor: ``has_nan = nan_mask.any()`` then ``if has_nan:``; an element of a bool tensor picked
        with a host index: ``if update_required[idx]:``; a whole reduction of a parameter of an ``nn.Module``'s method the
        model cannot type: ``if mask.any():``, ``if (mask > 0).sum() > 0:`` in ``forward``) when an arm runs tensor operators (or the backward pass
        or optimizer step; or hands the tested tensor to a call: ``self.endpointer.detect(segments=segs)``), or the function
        runs them after an early ``return`` the test decides, or returns another value there than later
        (``if not mask.any(): return None`` ... ``return mask``: the caller gets a tensor or not). Also an accept/reject step inside a loop: arms that
        only rebind names the loop reads in its tensor operators (``if error_ratio <= 1: t, y = t + dt, y_new``,
        ``accept = err <= 1`` with ``err`` a tensor, ``accept = False`` elsewhere, then ``if accept:``); and a
        conditional expression whose arms differ in tensor operators (``loss = ce(x, y) if num_fg > 0 else 0``) or
        in shape, one arm a slice of a tensor the other is not (``trg[:, :-1] if has_eos else trg`` with ``has_eos =
        torch.any(trg == eos).item()``; also in the constructor of a data container built per batch).
        A branch on a flag is also reported where the function made the flag from a tensor's value (``has_eos =
        torch.any(trg == eos).item()``, ``periodic = bool(torch.any(cell != 0))``): the line the data is read
        back at and first picks the path, once per such line (a numerical guard's flag is left alone).
        The truth of a reduction (``if fg_mask.sum():``) reads the value as ``!= 0`` does; a flag bound to a
        whole reduction by torch compared with a number on some path (``cal = torch.sum(g) > 0``) is read too.
        The count of a data-dependent result tested (``if len(idx) == 0:`` of ``idx = mask.nonzero()``, ``if
        keep.numel() > 0:``, ``if len(consecutive) > 0:`` of ``torch.where(m)[0]``) reads a value of the data too.
        Left alone: a count compared with a bound whose arm fills the rows up to that bound (``if num_det <
        max_det: dets = torch.cat([dets, torch.zeros((max_det - num_det, 6))])``: one shape on both paths); tests
        of shapes, dtypes, devices or Python values, of tensors the code fixes (a tensor of the
        items' shapes, ``torch.tensor([1] * n)``: the semantic model's ``configured``), a bare name (``if mask:``),
        numerical guards (``isnan``/``isinf``/``isfinite``, ``math.isfinite(loss.item())``) unless they decide
        whether ``.backward()`` or the optimizer step runs (an overflow check that skips the update, though arms
        that only run ``.backward()`` and the optimizer's, scaler's or scheduler's calls change no shape and are left
        alone), arms that only raise, warn or log, an arm that rescales a value from itself alone (``if x.max() >
        1: x = x / 255``: the same shape either way), and arms that end
        in ``continue``/``break`` (a loop's skip or stop: NPU413's, which leaves loader, training and ``while``
        loops alone on purpose), unless that arm runs tensor operators of its own before it jumps and an ``else``
        arm runs others (``if (mask[:, t] == 0).all(): h[:, t] = self.W(s); break`` / ``else: h = layer(h)``:
        the test picks which operators run).
    Why it matters on NPU:
        The test reads a device value back to the host (a sync that stalls the operator queue), and which
        operators the step runs then depends on the batch: a captured graph (``torch.compile``, graph mode)
        breaks or is recompiled at each new path, and the step's timing varies.
    Example:
        padding_masks = tokens != pad_id
        if not padding_masks.all():
            padding_masks = F.pad(padding_masks, (0, steps), value=True)
    Use instead:
        Run the operators on every batch and select with the test as a tensor
        (``torch.where(cond, a, b)``, multiply by a mask, ``masked_fill``); when one arm is much cheaper,
        decide once per run (from the configuration or the data set) rather than per batch.
    Fix safety:
        No automatic fix.
    """

    code = "NPU414"
    name = "data-dependent-branch"
    family = FAMILY
    node_types = (ast.If, ast.IfExp)
    triggers = ("if ",)
    message = "{test} branches on a tensor's value: a host sync, and the operators the step runs change with the batch on NPU; compute both arms and select with torch.where or a mask"
    must_fire = (
        # a count advanced by the data's values is the data's
        "import torch\nclass Trainer:\n    def load(self, path):\n"
        "        self.steps = torch.tensor([step_of(path) + 1], device=self.device)\n"
        "    def train(self):\n        for batch in self.dl:\n            self.steps += batch.sum()\n"
        "            steps = int(self.steps.item())\n"
        "            if self.is_main and not (steps % self.every) and steps != 0:\n"
        "                mel = torch.stft(batch, 512).abs().mean()\n                print(mel)\n",
                 # an arm that computes, then ends the loop; the else arm computes others
                 "import torch\ndef decode(self, mask: torch.Tensor, h: torch.Tensor, s, order):\n"
                 "    for t in order:\n        if (mask[:, t] == 0).all():\n            h[:, t] = torch.tanh(s)\n"
                 "            break\n        else:\n            h = torch.relu(h) * 2\n    return h\n",
                 # torchvision's box overlap typed as a tensor: its value read picks the work
                 "import torch\nimport torchvision\ndef score(box, boxes, thr):\n    out = torch.zeros(1)\n"
                 "    ious = torchvision.ops.box_iou(box, boxes)\n    index = ious.argmax()\n"
                 "    if ious[0, index] > thr:\n        out = out + ious[0, index]\n    return out\n",
                 # a value read back choosing a slice (the result's shape), also in a data container's constructor
                 "import torch\ndef shift(trg: torch.Tensor, eos: int):\n    has_eos = torch.any(trg == eos).item()\n"
                 "    return trg[:, :-1] if has_eos else trg\n",
                 "import torch\nclass Batch:\n    def __init__(self, trg: torch.Tensor, eos: int):\n"
                 "        has_eos = torch.any(trg == eos).item()\n        self.trg_input = trg[:, :-1] if has_eos else trg\n",
                 # a whole-tensor reduction of a module's input the model cannot type
                 "import torch\nfrom torch import nn\nclass Loss(nn.Module):\n    def forward(self, pred, target, mask):\n"
                 "        loss = pred.sum() * 0\n        if mask.any():\n"
                 "            loss = loss + (pred - target).abs().mean()\n        return loss\n",
                 "import torch\nfrom torch import nn\nclass Loss(nn.Module):\n    def forward(self, pred, target, mask):\n"
                 "        loss = pred.sum() * 0\n        if (mask > 0).sum() > 0:\n"
                 "            loss = (pred[mask > 0] - target[mask > 0]).abs().mean()\n        return loss\n",

# a negated test of several reads: probabilities or logits, decided by the values
                 "import torch\ndef score(preds: torch.Tensor, target: torch.Tensor):\n"
                 "    if not (0 <= preds.min() and preds.max() <= 1):\n        preds = preds.sigmoid()[:, 1:]\n"
                 "    return (preds - target).abs().mean()\n",
                 # the items' lengths are the batch's data (unlike their spatial shapes)
                 "import torch\nimport torch.nn.functional as F\ndef stack(items):\n"
                 "    lens = torch.tensor([len(t) for t in items])\n    if (lens.max() - lens).sum() == 0:\n"
                 "        return torch.stack(items)\n    return torch.stack([F.pad(t, (0, 1)) for t in items])\n",
                 "import torch\nclass Dec:\n    def __call__(self, segs: torch.Tensor):\n"
                 "        if segs[-1][1] != 0.0:\n            eou = self.endpointer.detect(segments=segs)\n"
                 "        else:\n            eou = -1\n        return eou\n",
                 "import torch\nimport torch.nn.functional as F\ndef pad_masks(tokens, pad_id, steps):\n"
                 "    masks = tokens != pad_id\n    if not masks.all():\n"
                 "        masks = F.pad(masks, (0, steps), value=True)\n    return masks\n",
                 "import torch\ndef kd_loss(logits: torch.Tensor, labels: torch.Tensor):\n    mask = labels != -100\n"
                 "    if torch.sum(mask) == 0:\n        return torch.tensor(0.0)\n"
                 "    return (logits.softmax(-1)[mask]).sum()\n",
                 "import torch\ndef loss(pred: torch.Tensor, weight: torch.Tensor):\n"
                 "    if torch.any(weight > 0):\n        return (pred * weight).sum()\n    return pred.sum() * 0\n",
                 "import torch\ndef gen(model, tokens: torch.Tensor, done: torch.Tensor):\n"
                 "    if done.all().item():\n        return tokens\n    nxt = model(tokens)\n"
                 "    return torch.cat([tokens, nxt], -1)\n",
                 "import torch\ndef norm(x: torch.Tensor):\n    if x.max() > 1:\n        x = x.sum(0) / 255\n    return x\n",
                 "import torch\ndef f(x: torch.Tensor, m: torch.Tensor):\n    if m.any():\n        x = torch.log(x).mean()\n"
                 "    return x\n",
                 # a mask dropped when it selects nothing: the layers then run without it
                 "import torch\ndef f(x: torch.Tensor, padding_mask: torch.Tensor, layers):\n"
                 "    if not padding_mask.any():\n        padding_mask = None\n    for layer in layers:\n"
                 "        x = layer(x, padding_mask)\n    return x\n",
                 # a value read back in an earlier statement (also through its host copy: ``.cpu().item()``)
                 "import torch\ndef loudness(wav: torch.Tensor, floor: float):\n"
                 "    energy = wav.pow(2).mean().sqrt().cpu().item()\n"
                 "    if energy < floor:\n        return wav\n    return torch.cat([wav, wav * 0.5 / energy])\n",
                 "import torch\ndef loudness(wav: torch.Tensor, floor: float):\n    energy = wav.pow(2).mean().sqrt().item()\n"
                 "    if energy < floor:\n        return wav\n    return torch.cat([wav, wav * 0.5 / energy])\n",
                 # an early return skips a method of the class that runs tensor operators
                 "import torch\nclass Codebook(torch.nn.Module):\n    def replace_(self, samples, mask):\n"
                 "        self.embed.data.copy_(torch.where(mask[..., None], samples, self.embed))\n"
                 "    def expire_(self, samples):\n        expired = self.cluster_size < 2\n"
                 "        if not torch.any(expired):\n            return\n        self.replace_(samples, mask=expired)\n",
                 # an overflow check read back that skips the optimizer step
                 "import torch\ndef step(model, opt, batch):\n    loss = model(batch).mean()\n    loss.backward()\n"
                 "    g = torch.cat([p.grad.flatten() for p in model.parameters()])\n"
                 "    if float(g.sum()) != float(g.sum()):\n        return None\n    opt.step()\n    return loss\n",
                 "import math\nimport torch\nimport torch.nn.functional as F\ndef step(model, opt, x, y):\n"
                 "    loss = F.cross_entropy(model(x), y)\n    if not math.isfinite(loss.item()):\n        return None\n"
                 "    loss.backward()\n    opt.step()\n",
                 # a flag compared from a value read back
                 "import torch\ndef accept_step(y: torch.Tensor, y_new: torch.Tensor, rtol: float):\n"
                 "    error = float((y_new - y).abs().max()) / rtol\n    accept = error <= 1\n    if accept:\n"
                 "        y = torch.lerp(y, y_new, 0.5)\n    return y\n",
                 # the file's own method that returns a value read back
                 "import torch\nclass Nbr(torch.nn.Module):\n    def _can_reuse(self, x: torch.Tensor):\n"
                 "        d = (x - self.prev).norm(dim=-1)\n        return bool((d < self.r).all())\n"
                 "    def forward(self, x):\n        if self._can_reuse(x):\n            return self.cache\n"
                 "        self.cache = torch.cdist(x, x)\n        return self.cache\n",
                 # an element of a bool tensor picked with a host index in a Python loop, the arm storing a new value
                 # in a container (session 26: a write into part of the tensor itself keeps every shape: quiet)
                 "import torch\ndef update(p: torch.Tensor, required: torch.Tensor, g: torch.Tensor):\n"
                 "    out = {}\n    for i in range(p.shape[0]):\n        if required[i]:\n"
                 "            out[i] = torch.relu(g[i]) * 2\n    return out\n",
                 # a name bound to a test of a whole tensor
                 "import torch\ndef f(x: torch.Tensor, m: torch.Tensor):\n    any_pad = m.any()\n    if any_pad:\n"
                 "        x = x.masked_fill(m, 0.0)\n    return x\n",
                 # an adaptive solver's accept/reject: the arms pick the state the next step computes on
                 "import torch\ndef solve(f, y: torch.Tensor, t: float, t_end: float, dt: float):\n"
                 "    while t < t_end:\n        y_new = y + dt * f(t, y)\n        y_half = y + 0.5 * dt * f(t, y)\n"
                 "        err = torch.linalg.norm(y_new - y_half)\n        accept = err <= 1e-3\n"
                 "        if dt < 1e-6:\n            accept = True\n        if accept:\n            t, y = t + dt, y_new\n"
                 "        dt = dt * 0.9\n    return y\n",
                 # the flag a step-size controller of the file returns from a value read back (a DPM-style sampler)
                 "import torch\nclass Pid:\n    def __init__(self, h):\n        self.h = h\n"
                 "    def propose(self, error):\n        factor = 0.9 / (float(error) + 1e-8)\n"
                 "        accept = factor >= 0.8\n        self.h *= factor\n        return accept\n"
                 "def sample(model, x: torch.Tensor, s, t_end):\n    pid = Pid(0.1)\n    info = {'n': 0}\n"
                 "    while s > t_end:\n        t = torch.maximum(t_end, s - pid.h)\n"
                 "        x_new = x + (t - s) * model(x, s)\n        accept = pid.propose(torch.linalg.norm(x_new - x))\n"
                 "        if accept:\n            x = x_new\n            s = t\n            info['n'] += 1\n    return x\n",
                 # a conditional expression on a count of the data
                 "import torch\nimport torch.nn.functional as F\ndef loss(x: torch.Tensor, y: torch.Tensor, ignore: int):\n"
                 "    num_fg = (y != ignore).sum()\n    return F.cross_entropy(x, y) if num_fg > 0 else 0\n",
                 # a flag of the object set from a count of finished items read back
                 "import torch\nclass Beam:\n    def __init__(self):\n        self.done = False\n"
                 "    def update(self, fin: torch.Tensor):\n        rows = fin.tolist()\n"
                 "        left = [i for i, f in enumerate(rows) if not f[0]]\n        self.done = len(left) == 0\n"
                 "    def advance(self, logits: torch.Tensor):\n        if self.done:\n            return\n"
                 "        self.scores = self.scores + logits.log_softmax(-1)\n")
    must_not_fire = (
        # a skip test whose arm only reads values out for a log line, then returns a flag
        "import torch, logging\nlogger = logging.getLogger(__name__)\nclass T:\n    def skip(self, q, c):\n"
        "        found = torch.isin(q, c)\n        if not bool(found.all()):\n"
        "            missing = q[~found].detach().cpu().numpy()\n"
        "            logger.warning('skipping: %s', missing)\n            return True\n        return False\n",
        # a step count kept in a tensor, advanced by constants only: a schedule, not the batch's values
        "import torch\nclass Trainer:\n    def load(self, path):\n"
        "        self.steps = torch.tensor([step_of(path) + 1], device=self.device)\n"
        "    def train(self):\n        for batch in self.dl:\n            self.steps += 1\n"
        "            steps = int(self.steps.item())\n"
        "            if self.is_main and not (steps % self.every) and steps != 0:\n"
        "                mel = torch.stft(batch, 512).abs().mean()\n                print(mel)\n",
        # a dataset's per-sample augmentation: host work in the loader's workers (the batch is what reaches the NPU)
        "import torch\nfrom torch.utils.data import Dataset\nclass Faces(Dataset):\n"
        "    def __getitem__(self, i):\n        img = self.load(i)\n        for fn_id in torch.randperm(2):\n"
        "            if fn_id == 0:\n                img = torch.flip(img, [0])\n"
        "            if fn_id == 1:\n                img = torch.rot90(img)\n        return img\n",
                 # an arm that only skips (NPU413's), and one that computes then stops with no else arm
                 "import torch\ndef decode(self, mask: torch.Tensor, h: torch.Tensor, order):\n"
                 "    for t in order:\n        if (mask[:, t] == 0).all():\n            h = h * 0\n            break\n"
                 "        h = torch.relu(h) * 2\n    return h\n",
                     # a Python flag choosing the slice; a module's constructor choosing once
                     "import torch\ndef shift(trg: torch.Tensor, has_eos: bool):\n    return trg[:, :-1] if has_eos else trg\n",
                     "import torch\nclass Head(torch.nn.Module):\n    def __init__(self, w: torch.Tensor):\n"
                     "        super().__init__()\n        self.w = w[:, :-1] if w.any().item() else w\n",
                 # a module's input that only raises
                 "import torch\nfrom torch import nn\nclass Net(nn.Module):\n    def forward(self, x, lengths):\n"
                 "        if (lengths > 512).any():\n            raise ValueError('too long')\n        return self.f(x)\n",

                 # a data-dependent count compared with a threshold other than emptiness (host statistics);
                 # an empty selection that only raises
                 "import torch\ndef windows(c):\n    idx = torch.nonzero(c).squeeze(-1)\n    if idx.numel() == 0:\n"
                 "        raise ValueError('no windows')\n    return idx\n",
# a tensor of the items' shapes: the same for every batch of the same sizes, no data read
                     "import torch\nimport torch.nn.functional as F\ndef stack(items, divisor: int = 1):\n"
                     "    sizes = torch.Tensor([t.shape for t in items])\n"
                     "    top = torch.ceil(torch.max(sizes, dim=0)[0] / divisor) * divisor\n    pads = top - sizes\n"
                     "    if pads.sum() == 0:\n        return torch.stack(items)\n"
                     "    return torch.stack([F.pad(t, (0, 1)) for t in items])\n",
                     # the best value so far kept in a loop: read by the test only, by no tensor operator
                     "import torch\ndef track(model, xs):\n    best = None\n    for x in xs:\n"
                     "        loss = model(x).mean()\n        if best is None or loss < best:\n            best = loss\n"
                     "    return best\n",
                     # a conditional expression picking constants or strings; a test of a tensor's flags
                     "import torch\ndef scale(x: torch.Tensor):\n    s = 255.0 if x.max() > 1 else 1.0\n    return s\n",
                     "import torch\ndef row(m: torch.Tensor, n):\n"
                     "    return ' '.join('#' if m[0, j] else '.' if j == 0 else '-' for j in range(n))\n",
                     "import torch\ndef f(kp: torch.Tensor):\n    return kp.clone() if kp.is_inference() else kp.detach()\n",
                     # a layer-drop coin flip kept in a flag
                     "import torch\ndef run(layers, x: torch.Tensor, p: float):\n    for layer in layers:\n"
                     "        skip = False\n        r = torch.rand([])\n        skip = r < p\n        out = None\n"
                     "        if skip:\n            out = x\n        x = layer(x) if out is None else out\n    return x\n",
                     # the tested tensor formatted into a log line, kept in a list, written to a summary, saved
                     "import logging\nimport torch\ndef f(x: torch.Tensor, n):\n    empty = (x < 0).sum()\n"
                     "    if empty > 0:\n        logging.warning(f'{fmt(part=empty, total=n)} empty')\n",
                     "import torch\ndef collect(kept: list, scores: torch.Tensor, t: float):\n"
                     "    if scores.max() > t:\n        kept.append(scores)\n    return kept\n",
                     "import torch\ndef best(writer, epoch, val_loss: torch.Tensor, best_loss: torch.Tensor):\n"
                     "    if val_loss < best_loss:\n        writer.add_scalar('val/best', val_loss, epoch)\n"
                     "        ckpt.save(state, val_loss)\n",
                     "import torch\nimport logging\ndef f(x: torch.Tensor):\n    if x.max() > 1:\n"
                     "        logging.warning('large %s', x)\n    return x\n",
                     # shapes, Python values, a bare name, a numerical guard, an arm that only raises or logs
                     "import torch\ndef f(x: torch.Tensor, n):\n    if n > 3:\n        x = x * 2\n    return x\n",
                     "import torch\ndef f(x: torch.Tensor, mask: torch.Tensor):\n    if mask:\n        x = x * 2\n"
                     "    return x\n",
                     "import torch\ndef f(loss: torch.Tensor):\n    if torch.isnan(loss).any():\n"
                     "        loss = torch.zeros_like(loss)\n    return loss\n",
                     "import torch\ndef f(x: torch.Tensor):\n    if (x < 0).any():\n"
                     "        raise ValueError('negative')\n    return x.sqrt()\n",
                     "import torch\ndef f(x: torch.Tensor):\n    if not bool((x > 0).all()):\n"
                     "        bad = (x <= 0).nonzero().tolist()\n        raise ValueError(f'not positive: {bad}')\n"
                     "    return x.log()\n",
                     "import logging\nimport torch\ndef f(x: torch.Tensor):\n    if x.sum() > 1e6:\n"
                     "        logging.warning('large %s', x.sum().item())\n",
                     "import torch\ndef f(x: torch.Tensor, log):\n    if x.sum() > 1e6:\n        log.info('large')\n",
                     # NPU413's jumps; numpy values; a test at module level
                     "import torch\ndef f(probs: torch.Tensor, labels: torch.Tensor, C):\n    out = []\n"
                     "    for c in range(C):\n        fg = labels == c\n        if fg.sum() == 0:\n            continue\n"
                     "        out.append(probs[fg].sum())\n    return out\n",
                     "import numpy as np\nimport torch\ndef f(a):\n    m = np.asarray(a) > 0\n    if m.all():\n"
                     "        return torch.tensor(a)\n    return torch.zeros(1)\n",
                     "import torch\nx = torch.zeros(3)\nif x.sum() == 0:\n    y = torch.ones(3)\n",
                     # a process count is a Python int; a name the test does not read set to None
                     "import torch\ndef world_size():\n    if torch.distributed.is_initialized():\n"
                     "        return torch.distributed.get_world_size()\n    return 1\n"
                     "def reduce(x: torch.Tensor):\n    if world_size() > 1:\n        torch.distributed.all_reduce(x)\n"
                     "        x = x / world_size()\n    return x\n",
                     "import torch\ndef f(x: torch.Tensor, m: torch.Tensor, cache):\n    if m.sum() > 0:\n"
                     "        cache = None\n    return cache\n",
                     # a tensor compared with None: Python's ``False``, no element read
                     "import torch\ndef f(x: torch.Tensor, score: torch.Tensor = None):\n    if score == None:\n"
                     "        score = torch.eye(3)\n    return x @ score\n",
                     # a coin flip drawn on the host (an augmentation's probability)
                     "import torch\ndef mix(x: torch.Tensor, p: float):\n    if torch.rand(1).item() < p:\n"
                     "        x = x.flip(-1)\n    return x\n",
                     "import torch\ndef mix(x: torch.Tensor, p: float):\n    r = torch.rand(1).item()\n    if r < p:\n"
                     "        x = x.flip(-1)\n    return x\n",
                     # a metric read back and compared on the host: no tensor operator in either arm
                     "import torch\ndef track(loss: torch.Tensor, state):\n    value = loss.item()\n"
                     "    if value < state.best:\n        state.best = value\n        state.bad = 0\n    return state\n",
                     # host values: a count of the inputs, a flag from a host list, a helper of configuration
                     "import torch\ndef f(x: torch.Tensor, inputs, cfg):\n    if len(inputs) > 2:\n"
                     "        x = torch.cat(inputs)\n    return x\n",
                     "import torch\nclass Q:\n    def __init__(self):\n        self.done = False\n"
                     "    def push(self, items):\n        self.done = len(items) == 0\n"
                     "    def run(self, x: torch.Tensor):\n        if self.done:\n            return x\n        return x * 2\n",
                     "import torch\ndef big(cfg):\n    return cfg.size > 3\ndef f(x: torch.Tensor, cfg):\n"
                     "    if big(cfg):\n        x = x * 2\n    return x\n",
                     # a constructor: the test runs once, at setup (a module clamping its fixed noise)
                     "import torch\nclass Noise(torch.nn.Module):\n    def __init__(self, noise: torch.Tensor):\n"
                     "        super().__init__()\n        if noise.lt(1e-4).any():\n            noise = noise.clamp_min(1e-4)\n"
                     "        self.register_buffer('noise', noise)\n",
                     # a numerical guard through a name; a name bound to per-row flags (no single value)
                     "import torch\ndef f(loss: torch.Tensor):\n    bad = torch.isnan(loss).any()\n    if bad:\n"
                     "        loss = torch.zeros_like(loss)\n    return loss\n",
                     "import torch\ndef f(x: torch.Tensor, m: torch.Tensor):\n    rows = m.any(dim=-1)\n    if rows:\n"
                     "        x = x * 2\n    return x\n",
                     # a numerical guard read back that does not decide the step's backward or update
                     "import math\nimport torch\ndef f(loss: torch.Tensor):\n    if not math.isfinite(loss.item()):\n"
                     "        loss = torch.zeros_like(loss)\n    return loss\n")
    must_fire += (  # an arm selecting a cache of unknown kind by a mask kept on ``self`` (only tensors take one)
                  "import torch\nclass Gen:\n    def end(self, x: torch.Tensor):\n        self.flag = x > 0\n"
                  "    def step(self, states):\n        if (self.flag == 0).sum().item() > 0:\n"
                  "            states['mask'] = states['mask'][self.flag]\n        return states\n",)
    must_not_fire += (  # the same arm indexing by a value of unknown kind: no evidence of a tensor operator
                      "import torch\nclass Gen:\n    def end(self, x: torch.Tensor):\n        self.flag = x > 0\n"
                      "    def step(self, states, keep):\n        if (self.flag == 0).sum().item() > 0:\n"
                      "            states['mask'] = states['mask'][keep]\n        return states\n",)

    must_not_fire += (  # an arm that only renders the tested values into a warning (``str(req1)``: text, no operator)
                      "import torch\nimport warnings\ndef check(xtg: torch.Tensor, idx: torch.Tensor, tol: float):\n"
                      "    req1 = idx * (xtg - xtg.transpose(-2, -1))\n    if not torch.all(torch.abs(req1) <= tol):\n"
                      "        msg = 'degenerate'\n        msg += 'requirements:\\n%s' % str(req1)\n"
                      "        warnings.warn(Warning(msg))\n    return xtg\n",)

    state_message = "if {test}: picks the state ({names}) the loop at line {loop} runs on next from a tensor's value (accept/reject): a host sync per iteration, and the number of iterations follows the data on NPU; run a fixed number of steps and select with torch.where(accept, new, old)"

    # session 21 (values21): the count of a data-dependent result tested (``len(idx) == 0``, ``keep.numel() == 0``,
    # ``len(y) < 3``): the data picks the path (was left to the selection's own finding, on another line)
    must_fire += ("import torch\ndef triplets(labels, m, d):\n    idx = torch.nonzero(m.any(1) & d.any(1)).squeeze(1)\n"
                  "    if len(idx) == 0:\n        return labels.new_zeros(0)\n    return labels[idx] * 2\n",
                  "import torch\ndef reduce(losses, low):\n    losses = losses[losses > low]\n    n = len(losses)\n"
                  "    if n >= 1:\n        return torch.mean(losses)\n    return losses.sum() * 0\n",
                  "import torch\ndef rho(y):\n    y = y[~torch.isnan(y)]\n    if len(y) < 3:\n"
                  "        return torch.tensor(0.0)\n    return (y[1:] * y[:-1]).sum()\n",
                  "import torch\ndef segs(tokens: torch.Tensor, begin: int):\n    ts = tokens.ge(begin)\n"
                  "    cons = torch.where(ts[:-1] & ts[1:])[0]\n    out = []\n    if len(cons) > 0:\n"
                  "        out.append(tokens[cons])\n    else:\n        out.append(tokens)\n    return out\n")
    must_not_fire += (  # (branch22: the emptiness of a tensor parameter, ``if len(x) == 0: return x.new_zeros(1)``,
                        # fires now: the emptiness path)
                      # the arm pads the rows up to the bound the test compares with: one shape on both paths
                      "import torch\ndef out(dets: torch.Tensor, scores: torch.Tensor, max_det: int):\n"
                      "    idx = (scores > 0.5).nonzero()\n    num = len(idx)\n    if num < max_det:\n"
                      "        dets = torch.cat([dets, torch.zeros((max_det - num, 6))], dim=0)\n    return dets\n",)
    # session 21 (values21): an early return on a tensor's value, the function returning another value later
    must_fire += ("import torch\ndef silence(loud: torch.Tensor, thr: float):\n    mask = loud > thr\n"
                  "    if not mask.any():\n        return None\n    return mask\n",
                  "import torch\ndef pick(x: torch.Tensor):\n    if (x > 0).all():\n        return x\n"
                  "    return x[1:]\n")
    must_not_fire += ("import torch\ndef same(x: torch.Tensor):\n    if x.sum() > 0:\n        return x\n    return x\n",
                      "import torch\ndef guard(x: torch.Tensor):\n    if torch.isnan(x).any():\n        return None\n"
                      "    return x\n",
                      "import torch\ndef flag(x: torch.Tensor, n):\n    if n > 3:\n        return None\n    return x\n")

    # session 21 (branch21): the broad path. A whole test or reduction (``.any()``, ``.all()``, ``.item()``, ``.sum()
    # > 0``) of a value the model cannot prove is no tensor, and arms that may do tensor work (a torch call, a tensor
    # method on a value not proven host, a module call, what a nested ``return`` skips); a latch (the arm sets the
    # tested flag) and a predicate (every return a flag) stay quiet. Was must-not-fire: ``stats(x, mask)``.
    must_fire += ("import torch\ndef stats(x, mask):\n    if mask.any():\n        x = torch.as_tensor(x) * 2\n    return x\n",
                  "import torch, warnings\ndef fix(cov, m: float):\n    variance = cov.diagonal()\n"
                  "    if variance.lt(m).any():\n        warnings.warn('small')\n        variance = variance.clamp_min(m)\n"
                  "    return variance\n",
                  "import torch\ndef post(x, z, mean, covar, dist):\n    if torch.equal(x, z):\n        if covar is None:\n"
                  "            raise RuntimeError\n        else:\n            return dist(mean, covar)\n"
                  "    k = torch.cholesky(covar)\n    return dist(mean, k)\n",
                  "import torch\nclass K:\n    def forward(self, x2, devs):\n        if not torch.equal(x2, self.cached):\n"
                  "            self.subs = [x2.to(d) for d in devs]\n            self.cached = x2\n        return self.subs\n",
                  # a conditional expression on a reduction of an untyped value, one arm computing
                  "import torch\ndef f(x, m):\n    return x.clamp_min(0) if m.any() else x\n",
                  # the tested value handed to a call (a scatter over devices)
                  "import torch\nclass K:\n    def forward(self, x1, kwargs):\n        if not torch.equal(x1, self.cached):\n"
                  "            self.parts = self.scatter((x1,), kwargs)\n            self.cached = x1\n        return self.parts\n")
    must_not_fire += ("import torch\nclass S(torch.nn.Module):\n    def forward(self, x):\n"
                      "        if not self.initialized.item():\n            self.init_params(x.mean(0))\n"
                      "            self.initialized.fill_(1)\n        return self.f(x)\n",
                      "import torch\ndef valid(s, tol):\n    evals = torch.linalg.eigvalsh(s)\n"
                      "    if not torch.all(evals >= -tol):\n        return False\n"
                      "    return all(torch.all(torch.abs(r - 1) < tol) for r in s)\n",
                      "import numpy as np\nimport torch\ndef f(a, x):\n    arr = np.asarray(a)\n    if arr.any():\n"
                      "        x = x.clamp_min(0)\n    return x\n",
                      "import torch\ndef f(x, shapes):\n    if x.shape[0] > 0:\n        x = x.clamp_min(0)\n    return x\n",
                      # a conditional expression whose arms both compute (or neither does)
                      "import torch\ndef f(x, m):\n    return x.exp() if m.any() else x.abs()\n",
                      "import torch\ndef f(x, m):\n    s = 255.0 if x.max() > 1 else 1.0\n    return s\n",
                      # the tested mask only counted for a log line; host state reset
                      "import torch, logging\nlogger = logging.getLogger(__name__)\nclass Q:\n"
                      "    def forward(self, h):\n        mask = h > 0.9\n        if torch.any(mask):\n"
                      "            logger.info('reset %d', torch.sum(mask))\n            self.codes = None\n"
                      "        return h\n",
                      # a Triton kernel's values (``tl.load``): no torch tensor
                      "import torch\nimport triton.language as tl\ndef k(p, out):\n    v = tl.load(p)\n"
                      "    if v.max() > 0:\n        z = tl.load(p + 1).to(tl.float32)\n        tl.store(out, z)\n")

    # session 22 (branch22): the emptiness path. A test whether a value is empty (``numel()``, ``shape[0]``,
    # ``size(0)`` of a value not proven host or fixed; ``len()`` of a proven tensor, or of any value when an arm builds
    # a zero-size tensor) whose arm, or what its return skips, does tensor work.
    must_fire += ("import torch\ndef head(feats, boxes):\n    if boxes.numel() == 0:\n        return feats.sum() * 0\n"
                  "    iou = feats @ boxes.t()\n    return iou.mean()\n",
                  "import torch\ndef top(labels, boxes):\n    kept = [b for b, l in zip(boxes, labels) if l]\n"
                  "    if len(kept) == 0:\n        return torch.empty(0, 4)\n    return torch.stack(kept)\n",
                  "import torch\ndef merge(x1, x2):\n    if not x1.numel():\n        return x2\n"
                  "    return torch.cat([x1 * 2, x2], dim=1)\n",
                  "import torch\ndef crop(dets, img):\n    if dets.shape[0] == 0:\n        return []\n"
                  "    return torch.nn.functional.interpolate(img, size=(64, 64))\n",
                  # a data graph's own count (DGL's ``num_edges()``), two arms computing differently
                  "import torch\ndef layer(g, h, lin):\n    if g.num_edges() > 0:\n"
                  "        h = lin(torch.cat([h, g.ndata['m']], dim=1))\n    else:\n"
                  "        h = lin(torch.cat([h, h * 0], dim=1))\n    return h\n")
    must_not_fire += ("import torch\ndef f(x, cfg):\n    w = torch.zeros(cfg.n)\n    if w.numel() == 0:\n        return x\n"
                      "    return x * w.sum()\n",
                      # a metric computed on the host per item (every return a Python number)
                      "import torch\ndef cmc(is_correct: torch.BoolTensor, k: int) -> float:\n"
                      "    if len(is_correct) == 0:\n        return 1.0\n    return float(is_correct[:k].any())\n",
                      "import numpy as np\nimport torch\ndef f(a, x):\n    arr = np.asarray(a)\n    if arr.shape[0] == 0:\n"
                      "        return x\n    return x.clamp_min(0)\n",
                      # ``len()`` of a value of unknown kind, no zero-size tensor built
                      "import torch\ndef f(items, x):\n    if len(items) == 0:\n        return x\n    return x.clamp_min(0)\n")

    # session 23 (branch23): ``len()`` of a value of unknown kind the function uses as a tensor (a tensor-only method
    # on it, an index of a value not proven host, an argument of a torch function not taking lists): a helper's
    # return or an untyped parameter (gedml's mined indices, instanseg's Lovasz labels).
    must_fire += ("import torch\nfrom . import lf\ndef pairs(row_labels, col_labels, t):\n"
                  "    a1, p, a2, _ = lf.split_indices(t)\n    if len(a1) == 0 or len(a2) == 0:\n"
                  "        return [None] * 4\n    keep = row_labels[a1, :] != col_labels\n    return a1, p, keep.byte()\n",
                  "import torch\ndef hinge(logits, labels):\n    if len(labels) == 0:\n        return logits.sum() * 0.\n"
                  "    signs = 2. * labels.float() - 1.\n    return torch.relu(1. - logits * signs).mean()\n")
    must_not_fire += (  # a host list parameter handed to ``torch.cat`` / iterated: its length may be the code's
                      "import torch\ndef merge(xs, y):\n    if len(xs) == 0:\n        return y\n"
                      "    return torch.cat(xs) + y\n",
                      "import torch\ndef embed(names, table, x):\n    if len(names) > 0:\n"
                      "        return torch.cat([table[n](x) for n in names], dim=-1)\n    return x\n")

    # session 24 (dataops24): a count read back from a mask (``n = is_dupli.sum().item()``) or positions by
    # construction tested, the arm handing that mask or those positions to a function of another module (gsplat's
    # densification ``if n_dupli > 0: duplicate(..., mask=is_dupli)``; rl-games' ``post_step_rnn(all_done_indices)``)
    must_fire += ("import torch\nfrom .ops import duplicate\ndef refine(params, grads, thr):\n"
                  "    is_dupli = grads > thr\n    n_dupli = is_dupli.sum().item()\n    if n_dupli > 0:\n"
                  "        duplicate(params=params, mask=is_dupli)\n    return n_dupli\n",
                  "import torch\nclass Runner:\n    def play(self, done):\n"
                  "        idx = done.nonzero(as_tuple=False)\n        if len(idx) > 0:\n"
                  "            self.net.post_step(idx)\n")
    must_not_fire += (  # the count logged only; a count of a Python list's items
                      "import torch\nimport logging\ndef refine(params, grads, thr):\n    is_dupli = grads > thr\n"
                      "    n_dupli = is_dupli.sum().item()\n    if n_dupli > 0:\n"
                      "        logging.info('dupli %d %s', n_dupli, is_dupli)\n    return n_dupli\n",
                      "import torch\nfrom .ops import run\ndef f(items, x):\n    n = len(items)\n    if n > 0:\n"
                      "        run(items)\n    return x\n")
    must_not_fire += (  # session 24 (precision24): Python numbers by construction, a split's pieces
        'import torch\nfrom random import random\ndef sample_prob(prob):\n    return random() < prob\ndef coin_flip():\n    return sample_prob(0.5)\nclass M(torch.nn.Module):\n    def forward(self, x, mask):\n        frac = 1.\n        if self.no_replace_prob > 0. and coin_flip():\n            frac -= self.no_replace_prob\n            keep = self.subset(mask, self.no_replace_prob)\n            mask &= ~keep\n        return self.net(x, mask)\n',
        'import torch\ndef loss(logits, labels):\n    n, v = logits.shape\n    div, mod = divmod(v, 65536)\n    n_chunks = div + (mod != 0)\n    if n_chunks == 1:\n        return torch.log_softmax(logits, -1)\n    return torch.logsumexp(logits, -1)\n',
        'import torch\ndef generate(model, input_ids, input_mask, k):\n    outs = []\n    for ids, mask in zip(torch.split(input_ids, k), torch.split(input_mask, k)):\n        if len(ids) == 0:\n            return torch.empty(0, 4)\n        outs.append(model(ids, mask))\n    return outs\n',
        'import torch\nimport random\nclass M(torch.nn.Module):\n    def forward(self, x, pm):\n        p = torch.tensor([pm], device=x.device)\n        flip = torch.tensor([1.0]) if random.random() > p else torch.zeros(1).to(x.device)\n        return self.net(x) * flip\n',
    )
    must_not_fire += (  # session 24 (lead): the count of positions numpy found (a host array), not a tensor's
        "import numpy as np\nimport torch\ndef repeats(values: torch.Tensor, sequences: torch.Tensor, pad: int):\n"
        "    for b in range(values.shape[0]):\n        varvar = np.array([np.var(v) for v in values[b].numpy()])\n"
        "        small_var = np.where(varvar < 0.045)[0]\n        if len(small_var) > 1:\n"
        "            idx = int(min(small_var[0] * 1.08, 4095))\n            sequences[b, idx:] = pad\n"
        "    return sequences\n",
    )

    # session 25 (precision25, branch_records.py): arms that only keep a value already computed (a loss summary
    # appended detached, a log line) or write in place run the same operators and shapes either way; an arm that
    # builds a tensor to keep still fires
    must_not_fire += (
        "import torch\nclass Loss:\n    @torch.no_grad()\n    def store(self, ml: torch.Tensor, sl: torch.Tensor):\n"
        "        if ml != 0:\n            self.summaries['MaskLoss'].append(ml.detach())\n"
        "        if sl != 0:\n            self.summaries['SpectralLoss'].append(sl.detach())\n",
        "import torch\ndef init_alias(probs: torch.Tensor):\n    if probs.sum() > 1:\n        probs.div_(probs.sum())\n"
        "    return probs.cumsum(0)\n")
    must_fire += (
        "import torch\ndef spans(cs: torch.Tensor, ce: torch.Tensor, out):\n    if cs.sum() == 0:\n"
        "        out.append(torch.empty(0, 2))\n    else:\n        out.append(torch.stack([cs, ce], 1))\n"
        "    return out\n",)

    # session 25 (precision25b, branch_shapes.py): two arms that both compute, leaving every value read after them
    # with the same shape (a mask vs the mask and-ed, an Euler vs a two-stage step of the same state) make no
    # second graph of other shapes; an arm that skips the other's work (an early ``return out`` before
    # ``torch.where(m, a, out)``), selects, or binds a value of another shape still fires
    must_not_fire += (
        "import torch\ndef gate(x: torch.Tensor, m: torch.Tensor, w: torch.Tensor):\n    if not m.any():\n"
        "        return torch.sigmoid(x) * w\n    y = torch.tanh(x)\n    return torch.where(m, y, torch.sigmoid(x)) * w\n",
        "import torch\nclass MVP:\n    def before_batch(self, x: torch.Tensor):\n        original_mask = torch.isnan(x)\n"
        "        new_mask = torch.rand_like(x) > 0.5\n        if original_mask.any():\n"
        "            self.mask = torch.logical_and(new_mask, ~original_mask)\n        else:\n"
        "            self.mask = new_mask\n        return self.mask\n",
        "import torch\ndef step(model, x: torch.Tensor, sigmas: torch.Tensor, d: torch.Tensor):\n"
        "    for i in range(len(sigmas) - 1):\n        down = sigmas[i + 1] * 0.5\n        if down == 0:\n"
        "            x = x + d * (down - sigmas[i])\n        else:\n            mid = (sigmas[i] + down) / 2\n"
        "            x2 = x + d * (mid - sigmas[i])\n            d2 = model(x2, mid)\n"
        "            x = x + d2 * (down - sigmas[i])\n    return x\n")
    must_fire += (
        "import torch\ndef lookup(emb, idx: torch.Tensor):\n    out = emb(idx)\n    is_oov = idx == 0\n"
        "    if not is_oov.any():\n        return out\n    oov = emb.weight[1:].mean(dim=0)\n"
        "    return torch.where(is_oov.unsqueeze(-1), oov, out)\n",
        "import torch\ndef keep(x: torch.Tensor, m: torch.Tensor):\n    if not m.any():\n        return x\n"
        "    return x[m]\n",
        "import torch\ndef pick(x: torch.Tensor, m: torch.Tensor):\n    if m.sum() > 3:\n        y = x.sum(0)\n"
        "    else:\n        y = x\n    return torch.relu(y)\n",
        "import torch\ndef cut(x: torch.Tensor, m: torch.Tensor):\n    if m.any():\n        x = x[m]\n    else:\n"
        "        x = x * 2\n    return x.sum()\n")
    # session 26 (precision26): an arm that only writes into part of tensors it holds (GPTQ's calibration ``if
    # torch.any(tmp): xmin[tmp] = -xmax[tmp]``) leaves every shape as it was; an arm that also rebinds still fires
    must_not_fire += (
        "import torch\ndef params(x: torch.Tensor, sym: bool):\n    xmin = x.min(1)[0]\n    xmax = x.max(1)[0]\n"
        "    tmp = xmin < 0\n    if torch.any(tmp):\n        xmin[tmp] = -xmax[tmp]\n    return xmin, xmax\n",
        "import torch\nclass Q(torch.nn.Module):\n"
        "    def fit(self, err: torch.Tensor, best: torch.Tensor, scale1: torch.Tensor):\n"
        "        self.scale = torch.ones_like(best)\n        tmp = err < best\n        if torch.any(tmp):\n            best[tmp] = err[tmp]\n"
        "            self.scale[tmp] = scale1[tmp]\n        return best\n",
        "import torch\ndef update(p: torch.Tensor, required: torch.Tensor, g: torch.Tensor):\n"
        "    for i in range(p.shape[0]):\n        if required[i]:\n            p[i] -= 0.1 * g[i]\n    return p\n")
    must_fire += (  # the written part computed by a module for some batches only (a mixture of experts)
        "import torch\ndef moe(x: torch.Tensor, idx: torch.Tensor, experts):\n    y = torch.empty_like(x)\n"
        "    for i, expert in enumerate(experts):\n        if torch.any(idx == i):\n"
        "            y[idx == i] = expert(x[idx == i])\n    return y\n",
        "import torch\ndef mark(terminated: torch.Tensor, timeouts: torch.Tensor):\n    if timeouts.any():\n"
        "        terminated[timeouts] = 0.0\n    else:\n        timeouts = None\n    return terminated, timeouts\n",)
    # session 27 (precision27, branch_tests.bound_guard): a numerical guard kept in a name (``finite =
    # torch.isfinite(cost)`` then ``if finite.all():``; ``ok = torch.isfinite(c).all().item()`` then ``if not ok:``)
    # is the guard the test would spell inline (rf-detr's matcher sanitising a cost matrix). Still reported: such a
    # guard deciding whether the backward pass or the update runs, and a name mixing the guard with a test of the data.
    must_not_fire += (
        "import torch\ndef sanitize(cost: torch.Tensor):\n    finite = torch.isfinite(cost)\n    if finite.all():\n"
        "        return cost\n    if finite.any():\n        big = cost[finite].abs().max() * 2\n    else:\n"
        "        big = torch.tensor(1.0)\n    return torch.where(finite, cost, big)\n",
        "import torch\ndef match(cost: torch.Tensor):\n    all_finite = torch.isfinite(cost).all().item()\n"
        "    if not all_finite:\n        cost = torch.nan_to_num(cost.cpu(), nan=1e9)\n    return cost.argmin(0)\n")
    must_fire += (
        "import torch\ndef step(model, opt, x: torch.Tensor):\n    loss = model(x).mean()\n"
        "    finite = torch.isfinite(loss).all()\n    if not finite:\n        return None\n    loss.backward()\n"
        "    opt.step()\n    return loss\n",
        "import torch\ndef pick(x: torch.Tensor):\n    m = torch.isfinite(x) & (x > 0)\n    if m.any():\n"
        "        x = x[m]\n    return x\n")
    # session 27 (precision27, branch_tests.numpy_tested): a test of parameters the function uses as numpy arrays
    # (cellpose's ``masks_to_flows(masks)`` with ``torch.from_numpy(masks.astype("int64"))``, ``compute_masks(dP,
    # cellprob)`` with ``np.nonzero(cellprob > t)``) reads host values; a tensor parameter the function moves with
    # ``.cpu().numpy()`` for numpy still fires
    must_not_fire += (
        "import torch\ndef flows(masks, device):\n    if masks.max() > 0:\n"
        "        m = torch.from_numpy(masks.astype('int64')).to(device)\n        return torch.nonzero(m)\n    return None\n",
        "import numpy as np\nimport torch\ndef compute(dP, cellprob, t, device):\n    if (cellprob > t).sum():\n"
        "        inds = np.nonzero(cellprob > t)\n        p = torch.from_numpy(dP).to(device)\n"
        "        return p.int(), inds\n    return None\n")
    # session 27 (precision27, branch_tests.state_test): a test of the module's own constant state (ultralytics'
    # FocalLoss: ``self.alpha = torch.tensor(alpha)`` in ``__init__``, later only moved with ``.to(...)``, then ``if
    # (self.alpha > 0).any():``) is the same every batch; state the forward pass updates from the data, or a test
    # mixing the state with the input, still fires
    must_not_fire += (
        "import torch\nfrom torch import nn\nclass Focal(nn.Module):\n    def __init__(self, alpha=0.25):\n"
        "        super().__init__()\n        self.alpha = torch.tensor(alpha)\n    def forward(self, pred, label):\n"
        "        loss = nn.functional.binary_cross_entropy_with_logits(pred, label, reduction='none')\n"
        "        if (self.alpha > 0).any():\n            self.alpha = self.alpha.to(device=pred.device)\n"
        "            loss = loss * (label * self.alpha + (1 - label) * (1 - self.alpha))\n        return loss.sum()\n",)
    must_fire += (
        "import torch\nfrom torch import nn\nclass Ema(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
        "        self.running = torch.zeros(n)\n    def forward(self, x):\n"
        "        self.running = self.running * 0.9 + x.mean(0)\n        if (self.running > 1).any():\n"
        "            x = torch.log(x).mean(0)\n        return x\n",
        "import torch\nfrom torch import nn\nclass Gate(nn.Module):\n    def __init__(self, alpha):\n"
        "        super().__init__()\n        self.alpha = torch.tensor(alpha)\n    def forward(self, x):\n"
        "        self.alpha = self.alpha.to(x.device)\n        if (x > self.alpha).any():\n            x = torch.log(x).mean(0)\n"
        "        return x\n")
    must_not_fire += (  # also the emptiness of one (rf-detr's TFLite mask decoder)
        "import numpy as np\nimport torch\nimport torch.nn.functional as F\ndef decode(logits, h, w):\n"
        "    if logits.shape[0] == 0:\n        return np.zeros((0, h, w), dtype=bool)\n"
        "    t = torch.from_numpy(logits.astype(np.float32)).unsqueeze(0)\n"
        "    return F.interpolate(t, size=(h, w)).squeeze(0).numpy() > 0\n",)
    must_fire += (
        "import numpy as np\nimport torch\ndef f(mask, x):\n    if mask.any():\n        x = torch.log(x)\n"
        "    np.save('m.npy', mask.cpu().numpy())\n    return x\n",
        "import numpy as np\nimport torch\nimport torch.nn.functional as F\ndef decode(logits, h, w):\n"
        "    if logits.shape[0] == 0:\n        return np.zeros((0, h, w), dtype=bool)\n    t = logits.unsqueeze(0)\n"
        "    return F.interpolate(t, size=(h, w)).squeeze(0).cpu().numpy() > 0\n")
    # session 32 (prec32, configuration.counter_state): a trainer's step count kept in a buffer, advanced by one and
    # put back from a checkpoint (``self.step.copy_(tensor(pkg["step"]))`` with ``pkg = torch.load(path)``), is the
    # step number: ``if divisible_by(self.step.item(), self.every):`` is a schedule (dreamer4's trainers, lucidrains'
    # EMA). A buffer copied from the data still fires.
    must_not_fire += (
        "import torch\nfrom torch import nn, tensor\ndef divisible_by(num, den):\n"
        "    return (num % den) == 0\nclass Trainer(nn.Module):\n    def __init__(self, model, every):\n"
        "        super().__init__()\n        self.model = model\n        self.every = every\n"
        "        self.register_buffer('step', tensor(0))\n    def load(self, path):\n"
        "        pkg = torch.load(path)\n        if 'step' in pkg:\n"
        "            self.step.copy_(tensor(pkg['step']))\n    def train(self, x):\n"
        "        loss = self.model(x).sum()\n        loss.backward()\n"
        "        if divisible_by(self.step.item(), self.every):\n"
        "            sample = self.model(torch.randn(4, 3))\n            print(sample.mean())\n"
        "        self.step += 1\n",)
    must_fire += (
        "import torch\nfrom torch import nn, tensor\ndef divisible_by(num, den):\n"
        "    return (num % den) == 0\nclass Trainer(nn.Module):\n    def __init__(self, model, every):\n"
        "        super().__init__()\n        self.model = model\n        self.every = every\n"
        "        self.register_buffer('step', tensor(0))\n    def load(self, path):\n        x = path\n"
        "        if path is not None:\n            self.step.copy_(tensor(x.sum()))\n"
        "    def train(self, x):\n        loss = self.model(x).sum()\n        loss.backward()\n"
        "        if divisible_by(self.step.item(), self.every):\n"
        "            sample = self.model(torch.randn(4, 3))\n            print(sample.mean())\n"
        "        self.step += 1\n",)

    # session 33 (rec33e, branch_shapes._self_elementwise): an arm that rescales a value from itself alone (``if
    # datum.max() > 1.0: datum /= datum.max()``, ``if x.max() > 1: x = x / 255``, logits squashed to probabilities,
    # an early ``return p`` before ``return p.sigmoid() * k``) leaves every shape as it was: reviewers judge it no
    # dynamic shape (bindsnet, snntorch). An arm adding work on other tensors, or cutting, still fires.
    must_not_fire += (
        "import torch\ndef norm(x: torch.Tensor):\n    if x.max() > 1:\n        x = x / 255\n    return x\n",
        "import torch\ndef encode(datum: torch.Tensor, p: float):\n    if datum.max() > 1.0:\n"
        "        datum /= datum.max()\n    return torch.bernoulli(p * datum)\n",
        "import torch\ndef score(preds: torch.Tensor, target: torch.Tensor):\n"
        "    if not (0 <= preds.min() and preds.max() <= 1):\n        preds = preds.sigmoid()\n"
        "    return (preds - target).abs().mean()\n",
        "import torch\ndef latency(spike_time: torch.Tensor, num_steps: int):\n    if torch.min(spike_time) < 0:\n"
        "        spike_time = (spike_time - torch.min(spike_time)) / (torch.max(spike_time) - torch.min(spike_time))"
        " * (num_steps - 1)\n    return spike_time\n",
        "import torch\ndef squash(p: torch.Tensor, k: float):\n    if (p >= 0).all():\n        return p\n"
        "    return p.sigmoid() * k\n")
    must_fire += (
        "import torch\nfrom torch import nn\nclass Loss(nn.Module):\n    def forward(self, pred, target, mask):\n"
        "        loss = pred.sum() * 0\n        if mask.any():\n"
        "            loss = loss * 0.5 + (pred - target).abs().mean()\n        return loss\n",
        # another tensor mixed in by arithmetic (basicsr's ``noise = noise * (1 - g) + noise_gray * g``)
        "import torch\ndef mix(noise: torch.Tensor, other: torch.Tensor, g: torch.Tensor):\n    if torch.sum(g) > 0:\n"
        "        noise = noise * (1 - g) + other * g\n    return noise\n",
        "import torch\ndef interp(t0: torch.Tensor, y0, y1, t: torch.Tensor):\n    if t == t0:\n"
        "        return y0\n    return torch.cat([y0, y1])\n")

    # session 33 (rec33e, read_backs.whole_test_bindings): a flag bound to a whole reduction by torch compared with a
    # number on one path (``cal = torch.sum(gray_noise) > 0``) and to a host comparison on the other (the ``isinstance(
    # gray_noise, (float, int))`` arm): on the tensor's path ``if cal:`` reads its value (basicsr's degradations)
    must_fire += (
        "import torch\ndef noise(img: torch.Tensor, gray=0):\n    if isinstance(gray, (float, int)):\n"
        "        cal = gray > 0\n    else:\n        cal = torch.sum(gray) > 0\n    if cal:\n"
        "        g = torch.randn(*img.size()[2:4])\n        img = img + g.view(1, 1, *g.shape)\n    return img\n",)
    must_not_fire += (
        "import torch\ndef noise(img: torch.Tensor, gray=0):\n    cal = gray > 0\n    if cal:\n"
        "        g = torch.randn(*img.size()[2:4])\n        img = img + g.view(1, 1, *g.shape)\n    return img\n",)

    # session 33 (rec33e, broad_branches.broad_test): the truth of a reduction (``if fg_mask.sum():``, YOLO's box
    # loss run only when the assigner matched anchors) reads the value as ``!= 0`` does; a numpy array's stays quiet
    must_fire += (
        "import torch\nclass Loss:\n    def __call__(self, p, targets):\n        loss = torch.zeros(3)\n"
        "        bboxes, scores, fg_mask = self.assigner(p.detach().sigmoid(), targets)\n        if fg_mask.sum():\n"
        "            loss[0], loss[2] = self.bbox_loss(p, bboxes, scores, fg_mask)\n        return loss.sum()\n",)
    must_not_fire += (
        "import numpy as np\nimport torch\ndef f(p, n):\n    counts = np.zeros(n)\n    if counts.sum():\n"
        "        p = torch.log(p).mean(0)\n    return p\n",)

    # session 33 (rec33e, branch_records.steps_only): arms that only run the training step's backward pass and
    # update (``if loss.item() > 0: loss.backward(); opt.step()``, an overflow check choosing ``scaler.step(opt)``
    # or not) change which operators run, no shape: reviewers judge them false. Other work in an arm still fires.
    must_not_fire += (
        "import torch\ndef train(model, opt: torch.optim.Optimizer, loader):\n    for x, y in loader:\n"
        "        loss = model(x, y)\n        if loss.item() > 0:\n            loss.backward()\n            opt.step()\n"
        "        opt.zero_grad()\n",
        "import torch\ndef step(model, opt: torch.optim.Optimizer, x: torch.Tensor, scaler: torch.cuda.amp.GradScaler):\n"
        "    loss = model(x).mean()\n    scaler.scale(loss).backward()\n"
        "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n    if norm > 100:\n"
        "        print('skip')\n    else:\n        scaler.step(opt)\n    scaler.update()\n")
    must_fire += (
        "import torch\ndef train(model, opt: torch.optim.Optimizer, loader):\n    for x, y in loader:\n"
        "        loss = model(x, y)\n        if loss.item() > 0:\n            loss = loss + model(x[:, 1:], y).mean()\n"
        "            loss.backward()\n            opt.step()\n        opt.zero_grad()\n",)

    def check(self, node: object, ctx: FileContext) -> None:
        if ctx.uses_torch and host_work(node, ctx):
            return   # a dataset's per-sample method, a collate function: host work in the loader's workers
        if isinstance(node, ast.IfExp):
            self._check_expression(node, ctx)
            return
        assert isinstance(node, ast.If)
        if not ctx.uses_torch or ctx.enclosing(node, FUNCTION_TYPES) is None:
            return
        if getattr(ctx.enclosing(node, FUNCTION_TYPES), "name", None) == "__init__":
            return   # a constructor's test runs once, at setup, not per step
        if node.body and isinstance(node.body[-1], (ast.Continue, ast.Break)) \
                and isinstance(ctx.enclosing(node, (*_LOOPS, *FUNCTION_TYPES)), _LOOPS) \
                and not _both_arms_work(node, ctx):
            return   # a loop's skip or stop: NPU413's
        if not may_read_value(node.test):
            return   # ``if x is None:``, ``if self.training:``: no tensor value read
        if node.body and isinstance(node.body[-1], ast.Raise) and not node.orelse:
            return   # an error path: what it computes for the message runs once, before the raise
        if numpy_tested(node.test, ctx):
            return   # a test of numpy arrays the function is given (session 27)
        test = tensor_test(node.test, ctx, bare_names=False)
        if test is None and not _pads_to_bound(node):
            test = broad_test(node.test, ctx)   # the broad path (session 21, branch21)
            if test is not None and not guard(node.test) and not bound_guard(node.test, ctx) \
                    and not quiet_module(node, ctx) and broad_if(node, ctx) \
                    and not steps_only(node, ctx.enclosing(node, FUNCTION_TYPES), ctx):
                ctx.report(node, self.broad_message.format(test=f"if {short_source(test, 40)}:"))
            elif test is None:
                self._check_empty(node, ctx)   # the emptiness path (session 22, branch22)
            return
        if test is None or _pads_to_bound(node):
            return
        function = ctx.enclosing(node, FUNCTION_TYPES)
        arms = node.body + node.orelse
        if node.body and isinstance(node.body[-1], ast.Return):
            arms = arms + later(node, function, ctx)   # what an early return skips
        if (guard(node.test) or any(guard(v) for v in whole_test_bindings(test, ctx)) or bound_guard(node.test, ctx)) \
                and not any(training_step(n, function, ctx) for s in arms for n in walk(s)):
            return   # a numerical guard, unless it decides whether the step's backward or update runs
        if records_only(node, ctx) or steps_only(node, function, ctx):
            return   # branch_records.py: the arms only keep values already computed, write in place or step
        if same_shapes(node, function, ctx):
            return   # branch_shapes.py: the arms leave every value read after them with the same shape
        if not any(tensor_work(statement, ctx) or drops_tested(statement, node.test)
                   or hands_tested(statement, test, ctx) for statement in arms):
            if not quiet_module(node, ctx) and broad_if(node, ctx):   # a tensor method or torch call on a value not proven host; a nested return
                ctx.report(node, self.broad_message.format(test=f"if {short_source(test, 40)}:"))
                return
            if returns_other(node, function, ctx):   # ``if not mask.any(): return None`` ... ``return mask``
                ctx.report(node, self.return_message.format(test=f"if {short_source(test, 40)}:"))
                return
            carried = carried_state(node, ctx)
            if carried is not None:   # an accept/reject step: the arms pick the state the next iteration runs on
                ctx.report(node, self.state_message.format(test=short_source(test, 40), names=", ".join(carried[0]),
                                                           loop=carried[1].lineno))
            return
        ctx.report(node, self.message.format(test=f"if {short_source(test, 40)}:"))
        self._report_reads(node, ctx)

    def _check_empty(self, node: ast.If, ctx: FileContext) -> None:
        """``if boxes.numel() == 0: return ...``, ``if len(keep) == 0: return x.new_zeros((0, 4))``: a test whether
        a value not proven fixed is empty, an arm (or what its ``return`` skips) doing tensor work."""
        if not counts_something(node.test):
            return   # no count in the test: no emptiness test, whatever the arms (not gathered)
        arms = arms_of(node, ctx)
        test = empty_test(node.test, arms, ctx)
        if test is None or quiet_module(node, ctx) or returns_numbers(node, ctx):
            return   # (a function returning only Python numbers: a metric computed on the host)
        if not (builds_empty(arms, ctx)
                or ((exits(node.body) or (node.orelse and graph_count(test))) and broad_if(node, ctx))):
            return   # needs an early exit (what the data's count skips), a graph's two arms or a zero-size tensor
        ctx.report(node, self.empty_message.format(test=f"if {short_source(test, 40)}:"))

    empty_message = "{test} tests whether a value the model cannot prove fixed is empty (a count the data decides: detections, matches, selected indices): the operators and shapes after it change with the data, one more graph to compile on NPU; keep a fixed-size tensor with a validity mask (pad to a bound) so the empty case runs the same operators"

    broad_message = "{test} reads a value the model cannot prove static (a tensor's) and decides which tensor work runs after it: a host sync, and the operators and shapes that follow change with the data on NPU; compute both arms and select with torch.where, or mask instead of skipping"

    return_message = "{test} returns early on a tensor's value, and the function returns another value later: what the caller gets (a tensor or not, which shape) changes with the data, after a host sync on NPU; return one value of a fixed shape and carry the test as a tensor mask"

    read_message = "{name} = {value} reads a tensor's value that the branch at line {line} tests: a host sync, and the operators the step runs change with the batch on NPU; keep the flag a tensor and select with torch.where or a mask"

    def _report_reads(self, node: ast.AST, ctx: FileContext) -> None:
        """After a branch on a flag (``if is_periodic:``, ``x if has_eos else y``): the line in the same function that
        made the flag from a tensor's value (``has_eos = torch.any(trg == eos).item()``, ``p = bool(torch.any(c !=
        0))``), where the value is read back and the data first picks the path; reported once per binding."""
        resolver = ctx.resolver
        if resolver.scopes is None:
            return
        test = node.test   # type: ignore[attr-defined]
        names = [test] if isinstance(test, ast.Name) else [v for v in test.values if isinstance(v, ast.Name)] \
            if isinstance(test, ast.BoolOp) else [test.operand] if isinstance(test, ast.UnaryOp) \
            and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name) else []
        scope = resolver.current
        done = ctx.scratch.setdefault("npu414_reads", set())
        for name in names:
            for binding in resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)):
                value = binding.value
                if binding.tag != "value" or binding.path or binding.scope is not scope \
                        or not isinstance(value, (ast.Call, ast.BoolOp, ast.UnaryOp)):
                    continue
                statement = ctx.parent(value)
                if not isinstance(statement, ast.Assign) or (statement.lineno, statement.col_offset) in done:
                    continue
                if tensor_test(value, ctx, bare_names=False) is None or guard(value):
                    continue
                done.add((statement.lineno, statement.col_offset))
                ctx.report(statement, self.read_message.format(name=name.id, value=short_source(value, 40),
                                                               line=node.lineno))

    def _check_expression(self, node: ast.IfExp, ctx: FileContext) -> None:
        """``loss = ce(x, y) if num_fg > 0 else 0``: a conditional expression on a tensor's value whose arms differ
        in the tensor operators they run."""
        function = ctx.enclosing(node, FUNCTION_TYPES)
        if not ctx.uses_torch or function is None or not may_read_value(node.test) or (
                getattr(function, "name", None) == "__init__" and (runs_at_setup(function, ctx.resolver)
                                                                    or not _cuts_arm(node, ctx))):
            return   # a constructor's test runs once, unless a data container's (``Batch(...)``) cuts a tensor
        test = tensor_test(node.test, ctx, bare_names=False)
        if test is None:   # the broad path (session 21, branch21): one arm may do tensor work the other does not
            test = broad_test(node.test, ctx)
            if test is not None and not guard(node.test) and not quiet_module(node, ctx) and len(
                    {broad_work(ast.Expr(value=arm), ctx) for arm in (node.body, node.orelse)}) == 2:
                ctx.report(node, self.broad_message.format(test=f"... if {short_source(test, 40)} else ..."))
            return
        if guard(node.test) or any(guard(v) for v in whole_test_bindings(test, ctx)):
            return
        if any(expression_work(arm, ctx) for arm in (node.body, node.orelse)) or _cuts_arm(node, ctx):
            ctx.report(node, self.message.format(test=f"... if {short_source(test, 40)} else ..."))
            self._report_reads(node, ctx)


def item_reads(test: ast.AST, ctx: FileContext) -> list[tuple[ast.stmt, str]]:
    """``tok_id = sampled.item()`` ... ``if tok_id == self.eos_id: break``: the statements of the test's function that
    bind a name the test compares (or tests) to ``.item()`` of a value, where the step's token or flag is read back
    (session 33: reviewers mark that line, the sync, as well as the test); once per statement."""
    resolver = ctx.resolver
    if resolver.scopes is None:
        return []
    names = []
    for operand in walk(test):   # ``tok == self.eos_id``, ``if done:``: not a size compared (``x.numel() == n``)
        if isinstance(operand, ast.Compare):
            sides = [operand.left, *operand.comparators]
            if not any(isinstance(n, ast.Call) for side in sides for n in walk(side)):
                names += [side for side in sides if isinstance(side, ast.Name)]
    if isinstance(test, ast.Name):
        names.append(test)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.operand, ast.Name):
        names.append(test.operand)
    scope = resolver.current
    done = ctx.scratch.setdefault("npu413_reads", set())
    found = []
    for name in names:
        for binding in resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)):
            value = binding.value
            if binding.tag != "value" or binding.path or binding.scope is not scope or not isinstance(value, ast.Call) \
                    or not isinstance(value.func, ast.Attribute) or value.func.attr != "item" or value.args:
                continue
            statement = ctx.parent(value)
            if not isinstance(statement, ast.Assign) or (statement.lineno, statement.col_offset) in done:
                continue
            done.add((statement.lineno, statement.col_offset))
            found.append((statement, name.id))
    return found


def _pads_to_bound(node: ast.If) -> bool:
    """``if num_det < max_det: dets = torch.cat([dets, torch.zeros((max_det - num_det, 6))])``: the arm fills the rows
    up to the bound the test compares with, so both paths end with the bound's shape (session 21)."""
    test = node.test
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or node.orelse \
            or not isinstance(test.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return False
    low, high = (test.left, test.comparators[0]) if isinstance(test.ops[0], (ast.Lt, ast.LtE)) \
        else (test.comparators[0], test.left)
    fill = ast.dump(ast.BinOp(left=high, op=ast.Sub(), right=low))
    return any(isinstance(n, ast.BinOp) and ast.dump(n) == fill for s in node.body for n in walk(s))


def _both_arms_work(node: ast.If, ctx: FileContext) -> bool:
    """``if (mask[:, t] == 0).all(): h[:, t] = self.W(s); break`` / ``else: h = layer(h, ...)``: the arm that ends
    the loop runs tensor operators of its own before it jumps, and the ``else`` arm runs others: the test picks
    which operators run, not only whether the rest of the iteration does (NPU413's skip)."""
    return bool(node.orelse) and any(tensor_work(statement, ctx) for statement in node.body[:-1]) \
        and any(tensor_work(statement, ctx) for statement in node.orelse)


def _cuts_arm(node: ast.IfExp, ctx: FileContext) -> bool:
    """``trg[:, :-1] if has_eos else trg``: one arm is a slice of a tensor the other arm is not, so the value read
    back chooses the result's shape (each shape its own graph on NPU)."""
    def cut(arm: ast.AST) -> bool:
        parts = arm.slice.elts if isinstance(arm, ast.Subscript) and isinstance(arm.slice, ast.Tuple) else \
            [arm.slice] if isinstance(arm, ast.Subscript) else []
        return any(isinstance(p, ast.Slice) for p in parts) and ctx.resolver.kind_of(arm.value) in K.TENSORS
    body, orelse = node.body, node.orelse
    return (cut(body) or cut(orelse)) and ast.dump(body) != ast.dump(orelse) \
        and not isinstance(body, ast.Constant) and not isinstance(orelse, ast.Constant)
