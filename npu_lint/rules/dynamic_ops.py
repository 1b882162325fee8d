"""NPU401-NPU402: operations whose output shape depends on the values in a tensor.

The operators come from ``rule_tables/dynamic_shape.tsv`` (torch's ``dynamic_output_shape`` tag, the
fake-tensor implementations and the op-plugin kernels that size their output with a device sync);
boolean-mask indexing is matched structurally.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.project.facts import ONE_ARGUMENT
from npu_lint.host_arrays import host_array_evidence, is_host_array
from npu_lint.resolver import MASK, return_statements
from npu_lint.rules import ApiRef, Rule, short_source
from npu_lint.rules.mask_values import computed_tensor, is_fill_value
from npu_lint.tables import keyed

FAMILY = "dynamic-shape"
JIT_TIP = "torch_npu.npu.set_compile_mode(jit_compile=False) where it cannot be avoided"
# Calls that return a boolean tensor (a mask) when given tensors.
_BOOL_FUNCTIONS = frozenset({
    "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isneginf", "torch.isposinf", "torch.logical_and",
    "torch.logical_or", "torch.logical_not", "torch.logical_xor", "torch.eq", "torch.ne", "torch.gt", "torch.ge",
    "torch.lt", "torch.le", "torch.isin", "torch.bernoulli"})
_BOOL_METHODS = frozenset({"bool", "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not",
                           "logical_xor", "eq", "ne", "gt", "ge", "lt", "le", "isin"})


def dynamic_row(api: str) -> Optional[dict[str, str]]:
    return keyed("dynamic_shape.tsv", "api").get(api)


def _keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


def _condition_holds(condition: str, call: ast.Call, ctx: FileContext, method: bool) -> bool:
    if condition == "one_argument":
        return len(call.args) == 1 and not call.keywords
    if condition == "no_num_classes":
        classes = call.args[1] if len(call.args) > 1 else _keyword(call, "num_classes")
        return classes is None or (isinstance(classes, ast.UnaryOp) and isinstance(classes.operand, ast.Constant)
                                   and classes.operand.value == 1)
    if condition == "tensor_repeats":
        if _keyword(call, "output_size") is not None:
            return False
        if not method and len(call.args) == 1 and not call.keywords:
            return True   # torch.repeat_interleave(repeats): the one-argument form always takes a tensor
        position = 0 if method else 1
        repeats = call.args[position] if len(call.args) > position else _keyword(call, "repeats")
        return repeats is not None and ctx.resolver.kind_of(repeats) in ("tensor", "batch")
    if condition == "tensor_receiver":
        return isinstance(call.func, ast.Attribute) and ctx.resolver.kind_of(call.func.value) in ("tensor", "batch", MASK)
    return condition == "always"


class DataDependentShapeOp(Rule):
    """An operator whose output shape depends on the values in its input.

    What it does:
        Flags ``nonzero``, ``argwhere``, one-argument ``torch.where``, ``masked_select``, ``unique`` and
        ``unique_consecutive``, ``repeat_interleave`` with tensor repeats and no ``output_size``, ``bincount``,
        ``F.one_hot`` without ``num_classes``, CTC loss, ``linalg.lstsq``, ``pack_padded_sequence`` and
        torchvision's ``nms`` / ``batched_nms``: the operators torch tags ``dynamic_output_shape`` or whose
        NPU kernels size their output after running (``rule_tables/dynamic_shape.tsv``). Method calls are
        matched on any receiver except evident numpy arrays; ``.unique()`` only on evident tensors.
    Why it matters on NPU:
        The NPU kernel must synchronise with the host to learn how big its output is, and every new output
        size means new shapes downstream: on Ascend each new shape compiles the operators again, so a
        training step that should take milliseconds stalls on compilation.
    Example:
        pos_inds = torch.nonzero(labels > 0).squeeze(1)
        loss = F.l1_loss(pred[pos_inds], target[pos_inds])
    Use instead:
        pos = (labels > 0).float()
        loss = (F.l1_loss(pred, target, reduction="none").sum(-1) * pos).sum() / pos.sum().clamp(min=1)
    Fix safety:
        No automatic fix: the static form changes how the results are used downstream.
    """

    code = "NPU401"
    name = "data-dependent-shape-op"
    family = FAMILY
    node_types = (ApiRef, ast.Call)
    triggers = ("nonzero", "argwhere", "where", "masked_select", "unique", "repeat_interleave", "bincount",
                "one_hot", "ctc", "CTC", "lstsq", "pack_", "nms")
    message = "{api} has a data-dependent output shape ({construct}): a device sync and a recompile per new size on NPU; {alternative}"
    must_fire = ("import torch\npos = torch.nonzero(labels > 0)\n",
                 "import torch\nidx = (scores > 0.5).nonzero(as_tuple=True)\n",
                 "import torch\nrows, cols = torch.where(mask)\n",
                 "import torch\nvals = x.masked_select(m)\n",
                 "import torch\nids = torch.unique(labels)\n",
                 "import torch\ndef f(t: torch.Tensor):\n    return t.unique(return_counts=True)\n",
                 "import torch\ncounts = torch.bincount(labels, minlength=10)\n",
                 "import torch\nimport torch.nn.functional as F\noh = F.one_hot(labels)\n",
                 "import torch\nlens = torch.tensor(lengths)\nidx = torch.repeat_interleave(ids, lens)\n",
                 "from torchvision.ops import batched_nms\nkeep = batched_nms(boxes, scores, idxs, 0.5)\n",
                 "from torch.nn.utils.rnn import pack_padded_sequence\np = pack_padded_sequence(x, lengths)\n")
    must_fire += ("import torch\ndef positives(labels):\n    inds = torch.nonzero(labels > 0)\n    return inds\n"
                  "pos = positives(gt)\n",
                  "import torch\ndef keep(s):\n    return torch.unique(s)\ndef keep2(s):\n    return keep(s) + 1\n"
                  "k = keep2(scores)\n")
    must_not_fire = ("import torch\ndef loss(labels):\n    return torch.where(labels > 0, labels, 0).sum()\nl = loss(gt)\n",
                     "import torch\ny = torch.where(mask, x, 0)\n",
                     "import torch\nimport torch.nn.functional as F\noh = F.one_hot(labels, num_classes=10)\n",
                     "import torch\nk = x.repeat_interleave(4, dim=1)\n",
                     "import torch\nk = k.repeat_interleave(self.n_rep, dim=1)\n",
                     "import torch\nidx = torch.repeat_interleave(ids, lens, output_size=64)\n",
                     "import numpy as np\nimport torch\nidx = np.array(v).nonzero()\n",
                     "import numpy as np\nimport torch\nidx = np.nonzero(v)\n",
                     "import torch\nimport pandas as pd\nnames = df['name'].unique()\n",
                     "idx = x.nonzero()\n", "import torch\nidx = (labels > 0).nonzero()[0]\n")

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and ctx.resolver.definition(node.func):
            self._wrapper_call(node, ctx)
            return
        if isinstance(node, ApiRef) and ctx.project is not None and not node.qualname.startswith("torch"):
            call = ctx.call_of(node.node)
            chain = ctx.project.returned_leaf(node.qualname, ctx.module, _always_dynamic) if call else None
            if chain:   # a project wrapper defined in another module
                self._report(call, " → ".join(chain), dynamic_row(chain[-1].removesuffix(ONE_ARGUMENT)), ctx)
            return
        if isinstance(node, ApiRef):
            call = ctx.call_of(node.node)
            row = dynamic_row(node.qualname)
            if call is None or row is None or not _condition_holds(row["condition"], call, ctx, method=False):
                return
            self._report(node.node, node.qualname, row, ctx)
            return
        func = node.func
        if not ctx.uses_torch or not isinstance(func, ast.Attribute) or ctx.resolver.qualname(func) is not None:
            return
        api = "torch.Tensor." + func.attr
        row = dynamic_row(api)
        if row is None or is_host_array(func.value, ctx, node) or not _condition_holds(row["condition"], node, ctx, True):
            return
        parent = ctx.parent(node)
        if func.attr == "nonzero" and not node.args and not node.keywords and isinstance(parent, ast.Subscript) \
                and parent.value is node and isinstance(parent.slice, ast.Constant):
            return   # ``m.nonzero()[0]``: numpy's tuple-returning nonzero (torch's returns one 2-D tensor)
        self._report(node, api, row, ctx)

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that call a project wrapper of a data-dependent op must reach this rule too."""
        return project.wrapper_names(_always_dynamic)

    def _wrapper_call(self, node: ast.Call, ctx: FileContext) -> None:
        """A call of one of the file's functions that returns the result of a data-dependent op."""
        definition = ctx.resolver.definition(node.func)
        if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            chain = wrapper_chain(definition, ctx)
            if chain and chain[-1] != MASK_SELECTION:   # a helper returning ``x[mask]`` is NPU402's
                self._report(node, " → ".join(chain), dynamic_row(chain[-1]), ctx)

    def _report(self, where: ast.AST, api: str, row: dict[str, str], ctx: FileContext) -> None:
        alternative = (f"static alternative: {row['alternative']}" if row["alternative"]
                       else f"keep it out of the training step, or {JIT_TIP}")
        ctx.report(where, self.message.format(api=api, construct=row["construct"], alternative=alternative), api)


def is_bool_index(node: ast.expr, ctx: FileContext) -> bool:
    """A boolean mask: a comparison, ``~``/``&``/``|`` of masks, a name bound to one, ``torch.isnan(x)``, ``m.bool()``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return is_bool_index(node.operand, ctx) or ctx.resolver.kind_of(node) == MASK   # ``x[~keep]``
    if isinstance(node, ast.Call):
        name = ctx.resolver.qualname(node.func)
        if name is not None:
            return name in _BOOL_FUNCTIONS
        if isinstance(node.func, ast.Attribute) and node.func.attr in _BOOL_METHODS:
            return True
    return ctx.resolver.kind_of(node) == MASK   # ``x[fn(x)]``: a callable whose every candidate returns a mask


def _tensor_evidence(subscript: ast.Subscript, index: ast.expr, ctx: FileContext) -> bool:
    """The indexed value, or the tensor the mask was computed from, is evidently a torch tensor."""
    if ctx.resolver.is_tensor(subscript.value):
        return True
    while isinstance(index, ast.UnaryOp):
        index = index.operand
    if isinstance(index, ast.Compare):
        return ctx.resolver.is_tensor(index.left) or any(ctx.resolver.is_tensor(c) for c in index.comparators)
    if isinstance(index, ast.Call):
        name = ctx.resolver.qualname(index.func)
        if name is not None:
            return name in _BOOL_FUNCTIONS
        return ctx.resolver.is_tensor(index.func.value) if isinstance(index.func, ast.Attribute) else False
    return False


class BooleanMaskIndexing(Rule):
    """Reading a tensor through a boolean mask: ``x[mask]``, ``x[x > 0]``, ``boxes[keep, :]``.

    What it does:
        Flags subscripts read (or updated in place: ``x[mask] += v``) with a boolean index: a comparison, a combination of masks
        (``~``, ``&``, ``|``), ``torch.isnan(x)`` or ``m.bool()``, or a name bound to one of these, in files
        that use torch. Values that evidently come from numpy or pandas (``np.*`` calls, ``.numpy()``, names
        bound to them, comparisons with strings) and literal tuples indexed by a condition are left alone.
        Mask assignment of one fill value (``x[mask] = 0``) is NPU303; an assignment NPU303 leaves alone because
        the value is computed (``x[mask] = rows``, ``x[m] = i + 1``, ``x[m] = torch.sigmoid(y)``) is flagged here,
        unless the value itself reads through a mask (``x[m] = y[m] * 2``: the read is flagged).
    Why it matters on NPU:
        A boolean index turns into ``nonzero`` followed by a gather: the NPU syncs with the host to count the
        selected elements, and the result has a new shape whenever the count changes, which compiles the
        following operators again.
    Example:
        loss = criterion(logits[valid], labels[valid])
    Use instead:
        per_item = criterion_none(logits, labels)           # reduction="none"
        loss = (per_item * valid).sum() / valid.sum().clamp(min=1)   # or torch.where(valid, x, 0)
    Fix safety:
        No automatic fix: a dense mask changes how the selection is used afterwards.
    """

    code = "NPU402"
    name = "boolean-mask-indexing"
    family = FAMILY
    node_types = (ast.Subscript, ast.Call)
    triggers = ("[",)
    message = "{value}[{index}] selects by a boolean mask: a data-dependent shape and a device sync on NPU; keep the mask dense (torch.where / masked_fill / multiply by the mask)"
    must_fire = ("import torch\nx = torch.randn(8)\npos = x[x > 0]\n",
                 "import torch\ndef f(scores: torch.Tensor, boxes, thr):\n    keep = scores > thr\n    return boxes[keep], scores[keep]\n",
                 "import torch\ndef f(pred: torch.Tensor, valid: torch.Tensor):\n    valid_mask = valid > 0\n    return pred[:, valid_mask]\n",
                 "import torch\nbad = x[torch.isnan(x)]\n",
                 "import torch\ndef f(boxes, scores, thr):\n    keep = scores > thr\n    return boxes[keep]\n",
                 "import torch\ndef f(p: torch.Tensor, e, s, n):\n    p[p <= e - s] += n\n",
                 "import torch\ndef f(x, keep):\n    return x[~keep]\n",
                 # the call of the file's helper that returns a selection by a mask
                 "import torch\ndef flat(s, l, ignore):\n    valid = l != ignore\n    return s.view(-1)[valid.view(-1)]\n"
                 "def loss(s, l):\n    return flat(s, l, 255).sum()\n",
                 # a method chosen at run time whose every candidate returns a mask
                 "import torch\nclass Head(torch.nn.Module):\n    def __init__(self, cfg):\n"
                 "        self.mask_fn = self._by_thr if cfg else self._by_nan\n    def _by_thr(self, x):\n"
                 "        return x > 0.5\n    def _by_nan(self, x):\n        return torch.isnan(x)\n"
                 "    def forward(self, x):\n        m = self.mask_fn(x)\n        return x[m]\n",
                 "import torch\ndef f(x, mode):\n    fn = {'nan': torch.isnan, 'inf': torch.isinf}[mode]\n    return x[fn(x)]\n",
                 # assigning computed rows through a mask (NPU303 advises masked_fill_ for one fill value only)
                 "import torch\ndef f(self, embeds, pixels, ids, tok):\n    img = self.visual(pixels)\n"
                 "    embeds[ids == tok] = img\n    return embeds\n",
                 "import torch\ndef f(x: torch.Tensor, y):\n    m = x > 0\n    x[m] = torch.sigmoid(y)\n")
    must_not_fire = ("import torch\nlabel = ('neg', 'pos')[score > 0]\n",
                     # one candidate returns a mask, the other an index tensor: no evidence of a mask
                     "import torch\nclass H:\n    def _a(self, x):\n        return x > 0\n    def _b(self, x):\n"
                     "        return x.argmax(-1)\n    def run(self, x, c):\n        fn = self._a if c else self._b\n"
                     "        return x[fn(x)]\n",
                     "import torch\nimport numpy as np\ndef f(t):\n    a = t.cpu().numpy()\n    keep = a > 0\n    return a[keep]\n",
                     "import torch\nimport pandas as pd\nswitches = events[events.Type == 'SWITCH']\n","import torch\nx = torch.randn(8)\nx[x > 0] = 0\n",
                     "import torch\nx = torch.randn(8)\ny = x[idx]\n",
                     "import numpy as np\nimport torch\na = np.zeros(3)\nb = a[a > 0]\n",
                     "import torch\nx = torch.randn(8)\ny = x[:, 0]\n",
                     "x = get()\ny = x[x > 0]\n",
                     "import torch\ndef dense(s, l):\n    return s * (l > 0)\ndef loss(s, l):\n    return dense(s, l).sum()\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if isinstance(node, ast.Call):
            self._helper_call(node, ctx)
            return
        rows = None
        if not isinstance(node.ctx, ast.Load) and not _updated_in_place(node, ctx):
            rows = _rows_written(node, ctx)   # ``x[mask] = rows``: one value per selected element (NPU303 advises
            if rows is None:                  # ``masked_fill_`` for one fill value)
                return
        if isinstance(node.value, (ast.Tuple, ast.List, ast.Constant)) \
                or (isinstance(node.value, ast.Name) and node.value.id[:1].isupper()):   # Optional[...], Union[...]
            return
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for index in elements:
            if isinstance(index, (ast.Slice, ast.Constant)) or not is_bool_index(index, ctx):
                continue
            if _tensor_evidence(node, index, ctx) or not host_array_evidence(node, index, ctx):
                if rows is not None:
                    ctx.report(node, f"{short_source(node.value)}[{short_source(node.slice)}] = {short_source(rows, 30)} "
                               "assigns through a boolean mask (IndexPut with a data-dependent nonzero): a device sync "
                               "on NPU, and a shape that follows the mask when the value has one entry per selected "
                               "element; write densely (torch.where(mask, value, x), the value laid out at full size)",
                               "x[mask]")
                    return
                ctx.report(node, self.message.format(value=short_source(node.value), index=short_source(node.slice)), "x[mask]")
                return

    def _helper_call(self, node: ast.Call, ctx: FileContext) -> None:
        chain = _mask_helper(node, ctx)
        if chain:
            ctx.report(node, f"{' → '.join(chain[:-1])} returns a selection by a boolean mask: a data-dependent shape "
                       "and a device sync on NPU; keep the mask dense (torch.where / masked_fill / multiply by the mask)",
                       "x[mask]")


def _mask_helper(node: ast.Call, ctx: FileContext) -> Optional[list[str]]:
    """``flatten(scores, labels)`` where the file's ``flatten`` returns ``scores[valid]``: the chain to it."""
    if not isinstance(node.func, ast.Name):
        return None
    definition = ctx.resolver.definition(node.func)
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    chain = wrapper_chain(definition, ctx)
    return chain if chain and chain[-1] == MASK_SELECTION else None


def _rows_written(node: ast.Subscript, ctx: FileContext) -> Optional[ast.AST]:
    """``x[mask] = rows`` where the right-hand side is tensor rows, not one fill value (NPU303's case), and reads
    nothing through a mask itself (``x[m] = y[m] * 2``: NPU402 on the read already): the value written, else None."""
    parent = ctx.parent(node)
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1 or parent.targets[0] is not node:
        return None
    value = parent.value
    if is_fill_value(value, ctx) and not computed_tensor(value, parent, ctx):
        return None
    if not computed_tensor(value, parent, ctx) and not isinstance(value, (ast.Call, ast.BinOp, ast.Subscript)):
        return None
    for child in ast.walk(value):
        if isinstance(child, ast.Subscript) and not isinstance(child.slice, (ast.Slice, ast.Constant)) \
                and is_bool_index(child.slice, ctx):
            return None
    return value


def _updated_in_place(node: ast.Subscript, ctx: FileContext) -> bool:
    """``x[mask] += v``: the masked elements are read, then written back."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.AugAssign) and parent.target is node


def wrapper_chain(function: ast.AST, ctx: FileContext, depth: int = 0) -> Optional[list[str]]:
    """``[my_nonzero, torch.nonzero]`` when what ``function`` returns comes from a data-dependent op (directly,
    through names bound in the function, or through another of the file's functions); None otherwise.
    Computed once per function (a summary), to a fixed depth."""
    cache = ctx.scratch.setdefault("dynamic_wrappers", {})
    key = id(function)
    if key in cache:
        return cache[key]
    cache[key] = None   # recursion guard
    scope = ctx.resolver.scopes.scope_of(function) if ctx.resolver.scopes else None
    chain = None
    if scope is not None and depth < 4:
        for statement in return_statements(function):
            leaf = _dynamic_source(statement.value, scope, ctx, depth) if statement.value is not None else None
            if leaf:
                chain = [function.name] + leaf
                break
    cache[key] = chain
    return chain


def _dynamic_source(expr: ast.AST, scope, ctx: FileContext, depth: int) -> Optional[list[str]]:
    """The data-dependent op (or wrapper chain) a returned expression's value comes from."""
    stack, seen, budget, selection = [expr], set(), 200, None
    picked: set[int] = set()   # values only indexed by a scalar on the way (``sens[idx]``): their length is gone
    while stack and budget:
        budget -= 1
        node = stack.pop()
        inside_pick = id(node) in picked
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in _SCALAR_BUILTINS \
                    and ctx.resolver.binding(node.func, scope) is None:
                continue   # ``len(torch.unique(x))``: a Python number, no tensor of that shape
            name = ctx.resolver.qualname(node.func, scope)
            if name is not None:
                row = dynamic_row(name)
                if row is not None and row["condition"] in ("always", "one_argument", "no_num_classes", "tensor_repeats") \
                        and (row["condition"] != "one_argument" or (len(node.args) == 1 and not node.keywords)):
                    return [name]
            elif isinstance(node.func, ast.Attribute):
                row = dynamic_row("torch.Tensor." + node.func.attr)
                if row is not None and row["condition"] in ("always", "tensor_receiver"):
                    receiver = ctx.resolver.value_of(node.func.value, scope)
                    if row["condition"] == "always" or (receiver is not None and receiver[0] in ("tensor", "batch", MASK)):
                        return ["torch.Tensor." + node.func.attr]
            elif isinstance(node.func, ast.Name):
                definition = ctx.resolver.definition(node.func, scope)
                if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    chain = wrapper_chain(definition, ctx, depth + 1)
                    if chain and not (inside_pick and chain[-1] == MASK_SELECTION):
                        return chain
            if node.func.__class__ is ast.Attribute and node.func.attr in _SHAPE_FREE:
                continue   # ``inds.numel()``, ``len(...)``: what is returned no longer has that shape
        elif isinstance(node, ast.Name):
            binding = ctx.resolver.binding(node, scope)
            if binding is not None and binding.scope is scope and id(binding) not in seen and binding.tag == "value":
                seen.add(id(binding))
                value = binding.value
                for step in binding.path:   # ``a, b = x, y``: only the element bound to the name
                    value = value.elts[step] if isinstance(value, ast.Tuple) and 0 <= step < len(value.elts) else value
                stack.append(value)
                if inside_pick:
                    picked.add(id(value))
            continue
        elif isinstance(node, ast.Subscript) and type(node.ctx) is ast.Load:
            if selection is None and not inside_pick and _selects_by_mask(node, scope, ctx):
                selection = [MASK_SELECTION]   # a data-dependent op found further on still names the chain
            elif not isinstance(node.slice, (ast.Slice, ast.Tuple, ast.Constant)):
                picked.add(id(node.value))     # ``sens[idx]`` with a scalar index: one element, a fixed shape
        elif isinstance(node, (ast.Lambda, ast.Compare)):
            continue
        children = list(ast.iter_child_nodes(node))
        if inside_pick:
            picked.update(id(child) for child in children)
        elif isinstance(node, ast.Call):   # ``torch.argmax(x[m])``: a selection passed in is not what is returned
            picked.update(id(child) for child in children if child is not node.func)
        stack.extend(children)
    return selection


MASK_SELECTION = "x[mask]"   # the leaf of a wrapper that returns a boolean-mask selection (``return x[valid]``)
_MASK_SELECTION_ROW = {"construct": "boolean-mask selection",
                       "alternative": "keep the mask dense (torch.where / masked_fill / multiply by the mask)"}


def _selects_by_mask(node: ast.Subscript, scope, ctx: FileContext) -> bool:
    """``scores[valid]`` in one of the file's functions: an index the model knows is a mask, on a value that is
    not evidently a host array."""
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not any(not isinstance(e, (ast.Slice, ast.Constant)) and (ctx.resolver.value_of(e, scope) or ("",))[0] == MASK
               for e in elements):
        return False
    value = ctx.resolver.value_of(node.value, scope)
    return value is None or value[0] not in ("host", "list")


def _leaf_row(leaf: str) -> Optional[dict[str, str]]:
    return _MASK_SELECTION_ROW if leaf == MASK_SELECTION else dynamic_row(leaf)


_SCALAR_BUILTINS = frozenset({"len", "int", "float", "bool", "str", "round", "print"})
_SHAPE_FREE = frozenset({"numel", "size", "dim", "item", "tolist", "sum", "mean", "any", "all", "__len__"})


def _always_dynamic(api: str) -> bool:
    """A leaf for the project index: an op whose output shape is data-dependent whatever its arguments."""
    if api.endswith(ONE_ARGUMENT):   # the project index saw it called with one argument (``torch.where(cond)``)
        row = dynamic_row(api[:-len(ONE_ARGUMENT)])
        return row is not None and row["condition"] == "one_argument"
    row = dynamic_row(api)
    return row is not None and row["condition"] == "always"
