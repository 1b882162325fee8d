"""The chunks of a sequence cut in fixed steps (NPU407, short_chunks.py): the step of a chunk's end bound, the
data length a ``range`` stops at, whether the chunk is computed on, where a loop's target binds the chunk start.
Nothing here is a rule."""
from __future__ import annotations

import ast
import re
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext

# ``range``'s arguments under other names: tqdm's ``trange`` (with a progress bar), numpy's ``arange``
# (``for c in np.arange(0, num_chunks, batch_size)``).
TRANGES = frozenset({"tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange", "tqdm.autonotebook.trange",
                     "numpy.arange"})


def ranged(call: ast.AST, ctx: FileContext) -> bool:
    """A call of ``range`` or one of its progress-bar twins (``TRANGES``), also through a name bound once to a
    choice among them (``range_fn = range if not verbose else tqdm.trange``; ``range_fn(0, n, bs)``)."""
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    if isinstance(func, ast.Name) and func.id == "range" and ctx.resolver.binding(func) is None:
        return True
    if ctx.resolver.qualname(func) in TRANGES:
        return True
    if not isinstance(func, ast.Name):
        return False
    binding = ctx.resolver.binding(func)
    value = binding.value if binding is not None and binding.tag == VALUE and not binding.path else None
    choices = [value.body, value.orelse] if isinstance(value, ast.IfExp) else \
        list(value.values) if isinstance(value, ast.BoolOp) else []
    return bool(choices) and all((isinstance(c, ast.Name) and c.id == "range" and ctx.resolver.binding(c) is None)
                                 or ctx.resolver.qualname(c) in TRANGES for c in choices)


def length_expr(node: ast.AST) -> bool:
    """``len(x)``, ``x.size(0)``, ``x.shape[0]``, ``x.numel()``: a length read from the data."""
    for child in walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            if isinstance(func, ast.Name) and func.id == "len":
                return True
            if isinstance(func, ast.Attribute) and func.attr in ("size", "numel"):
                return True
        if isinstance(child, ast.Subscript) and isinstance(child.value, ast.Attribute) and child.value.attr == "shape":
            return True
    return False


def chunk_step(upper: ast.AST, index: str, ctx: FileContext, depth: int = 0) -> Optional[ast.AST]:
    """The step of a chunk's end bound: ``i + step``, ``min(i + step, n)``, or a name bound to one of them."""
    if isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add):
        if isinstance(upper.left, ast.Name) and upper.left.id == index:
            return upper.right
        return upper.left if isinstance(upper.right, ast.Name) and upper.right.id == index else None
    if isinstance(upper, ast.Call) and isinstance(upper.func, ast.Name) and upper.func.id == "min" \
            and len(upper.args) == 2 and not upper.keywords:
        steps = [chunk_step(a, index, ctx, depth + 1) for a in upper.args if isinstance(a, ast.BinOp)]
        return next((s for s in steps if s is not None), None)
    if isinstance(upper, ast.Name) and depth == 0:
        binding = ctx.resolver.binding(upper)
        if binding is not None and binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST):
            return chunk_step(binding.value, index, ctx, depth + 1)
    return None


def clipped_to_stop(upper: ast.AST, index: str, stop: ast.AST, ctx: FileContext) -> bool:
    """The chunk's end is clipped to the loop's own stop, ``end = min(i + step, n)`` in ``for i in range(0, n,
    step)``: the code itself expects a shorter last chunk, whatever ``n`` is (a sample count a caller or the
    configuration sets: ``num_samples``), unless ``n`` is a constant."""
    if isinstance(stop, ast.Constant):
        return False
    if isinstance(upper, ast.Name):
        binding = ctx.resolver.binding(upper)
        upper = binding.value if binding is not None and binding.tag == VALUE and not binding.path \
            and isinstance(binding.value, ast.AST) else upper
    if not (isinstance(upper, ast.Call) and isinstance(upper.func, ast.Name) and upper.func.id == "min"
            and len(upper.args) == 2 and not upper.keywords):
        return False
    text = ast.unparse(stop)
    return any(ast.unparse(bound) == text and chunk_step(other, index, ctx, 1) is not None
               for bound, other in (upper.args, upper.args[::-1]))


def clipped_size(name: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The loop whose last chunk ``name`` sizes: ``sz = end - start`` with ``end = min(start + bs, n)``, or ``sz =
    min(bs, n - start)``, in ``for start in range(0, n, bs)`` (``n`` any value but a constant: a sample count a
    caller sets). None otherwise."""
    if not isinstance(name, ast.Name):
        return None
    binding = ctx.resolver.binding(name)
    value = binding.value if binding is not None and binding.tag == VALUE and not binding.path else None
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Sub) and isinstance(value.left, ast.Name) \
            and isinstance(value.right, ast.Name):
        start = value.right.id
        loop = stepping_loop(value, start, ctx)
        if loop is not None and clipped_to_stop(value.left, start, loop.iter.args[1], ctx):   # type: ignore
            return loop
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "min" \
            and len(value.args) == 2 and not value.keywords:
        for step, rest in (value.args, value.args[::-1]):
            if isinstance(rest, ast.BinOp) and isinstance(rest.op, ast.Sub) and isinstance(rest.right, ast.Name):
                loop = stepping_loop(value, rest.right.id, ctx)
                if loop is not None and not isinstance(rest.left, ast.Constant) \
                        and ast.unparse(rest.left) == ast.unparse(loop.iter.args[1]) \
                        and ast.unparse(step) == ast.unparse(loop.iter.args[2]):   # type: ignore[attr-defined]
                    return loop
    return None


def _named_range(source: ast.AST, ctx: FileContext) -> ast.AST:
    """``batch_range = range(0, n, bs)`` then ``for start in batch_range``: the ``range`` the name is bound to (one
    binding); ``source`` otherwise."""
    if not isinstance(source, ast.Name):
        return source
    binding = ctx.resolver.binding(source)
    value = getattr(binding, "value", None) if binding is not None and binding.tag == VALUE and not binding.path \
        else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "range":
        return value
    return source


def stepping_loop(node: ast.AST, index: str, ctx: FileContext) -> Optional[ast.For]:
    """The ``for index in range(start, stop, step)`` loop around ``node`` (``trange(start, stop, step)`` too)."""
    loop = ctx.enclosing(node, (ast.For, *_DEFS, ast.Lambda))
    while isinstance(loop, ast.For):
        if isinstance(loop.target, ast.Name) and loop.target.id == index:
            call = loop.iter
            if isinstance(call, ast.Call) and len(call.args) == 3 and ranged(call, ctx):   # ``trange(0, n, bs)`` too
                return loop
            return None
        loop = ctx.enclosing(loop, (ast.For, *_DEFS, ast.Lambda))
    return None


def remaining_step(node: ast.Call, ctx: FileContext) -> Optional[ast.For]:
    """``min(n - i, bs)`` (either order) in ``for i in range(start, stop, bs)``: what is left of a count ``n`` (any
    value but a constant) clipped to the loop's step, the size of the current batch, short on the last step. ``n``
    is the stop or what the stop is computed from (``n_per_proc = math.ceil(n / nproc)``; an unrelated count
    is left alone). The loop, else None."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "min" and len(node.args) == 2
            and not node.keywords and ctx.resolver.binding(node.func) is None):
        return None
    for step, rest in (node.args, node.args[::-1]):
        if isinstance(rest, ast.BinOp) and isinstance(rest.op, ast.Sub) and isinstance(rest.right, ast.Name) \
                and not isinstance(rest.left, ast.Constant):
            loop = stepping_loop(node, rest.right.id, ctx)
            if loop is not None and _stepped(step, loop.iter.args[2]) \
                    and not (isinstance(step, ast.Constant) and step.value in (0, 1)) \
                    and _stop_from(loop.iter.args[1], rest.left, ctx):   # type: ignore[attr-defined]
                return loop
    return None


def _stepped(chunk: ast.AST, step: ast.AST) -> bool:
    """The loop moves by the chunk (``min(n - i, bs)`` in ``range(0, n, bs)``), or by a hop of its own between
    windows of the chunk's length (``min(total - offset, segment)`` in ``range(0, total, stride)``: overlapping
    segments, the last ones cut by the end of the data); a loop by one (or a constant zero) cuts no chunks."""
    return ast.unparse(chunk) == ast.unparse(step) or not (isinstance(step, ast.Constant) and step.value in (0, 1))


def _stop_from(stop: ast.AST, count: ast.AST, ctx: FileContext) -> bool:
    """The loop's stop is ``count``, computed from it (``ceil(n / k)``), or a name bound to such a value."""
    text = ast.unparse(count)
    value = ctx.resolver.bound_value(stop) if isinstance(stop, ast.Name) else stop
    return ast.unparse(stop) == text or isinstance(value, ast.AST) and any(ast.unparse(n) == text
                                                                          for n in walk(value))


def data_length(stop: ast.AST, ctx: FileContext) -> bool:
    """``len(x)``, ``x.size(0)``, ``x.shape[0]``, or a name bound to one of them: a length read from the data."""
    if length_expr(stop):
        return True
    if isinstance(stop, ast.Name) and ctx.resolver.scopes is not None:
        # any binding that may reach the stop (``if``/``else`` arms: ``num_chunks = 0`` when there is no chunk)
        for binding in ctx.resolver.scopes.may_reach(stop.id, ctx.resolver.current, (stop.lineno, stop.col_offset)):
            if binding.tag != VALUE or not isinstance(binding.value, ast.AST):
                continue
            if not binding.path and length_expr(binding.value):
                return True
            if binding.path and _shape_of(binding.value):   # ``n, _, _ = chunks.shape``: a length of the data
                return True
    return False


_ORDERS = frozenset({"permutation", "randperm"})   # ``np.random.permutation(n)``, ``torch.randperm(n)``: a shuffled order


def permuted_length(sliced: ast.AST, stop: ast.AST, ctx: FileContext) -> bool:
    """``indices = np.random.permutation(n)`` (``torch.randperm(n)``) sliced in chunks up to
    ``n``: the stop is the length of what is cut, a minibatch order over ``n`` samples (a rollout buffer's
    ``buffer_size * n_envs``) that the chunk need not divide."""
    values = [ctx.resolver.bound_value(sliced)] if isinstance(sliced, ast.Name) else []
    if isinstance(sliced, ast.Name) and ctx.resolver.scopes is not None:   # ``if``/``else`` arms of the order
        values += [b.value for b in ctx.resolver.scopes.may_reach(sliced.id, ctx.resolver.current,
                                                                   (sliced.lineno, sliced.col_offset))
                   if b.tag == VALUE and not b.path and isinstance(b.value, ast.AST)]
    return any(_order_over(value, stop) for value in values)


def _order_over(value: Optional[ast.AST], stop: ast.AST) -> bool:
    """``np.random.permutation(n)``, ``torch.randperm(n)``, ``np.random.permutation(np.arange(n))`` or
    ``np.random.choice(pool, size=(n,))``: a random order of ``n`` samples; also either arm of a choice between
    orders, ``np.random.permutation(n) if shuffle else np.arange(n)`` (session 27, recall27b), and the plain
    order ``np.arange(n)`` / ``torch.arange(n)``: cut up to ``n`` in chunks, its last chunk is as short."""
    if isinstance(value, ast.IfExp):
        return _order_over(value.body, stop) or _order_over(value.orelse, stop)
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Attribute, ast.Name)):
        return False
    name = value.func.attr if isinstance(value.func, ast.Attribute) else value.func.id
    wanted = ast.dump(stop)
    if name == "arange" and not value.keywords and (len(value.args) == 1 or (
            len(value.args) == 2 and isinstance(value.args[0], ast.Constant) and value.args[0].value == 0)):
        return ast.dump(value.args[-1]) == wanted   # ``np.arange(n)``: the samples in their order
    if name == "list" and isinstance(value.func, ast.Name) and len(value.args) == 1 and not value.keywords:
        return _order_over(value.args[0], stop)   # ``list(range(n))``: the plain order of ``n`` as a list
    if name == "range" and isinstance(value.func, ast.Name) and not value.keywords and (len(value.args) == 1 or (
            len(value.args) == 2 and isinstance(value.args[0], ast.Constant) and value.args[0].value == 0)):
        return ast.dump(value.args[-1]) == wanted   # ``range(n)`` itself, cut up to ``n``
    if name == "choice":   # ``np.random.choice(np.arange(n), size=(n_epoch,), p=probs)``: n_epoch draws
        size = next((kw.value for kw in value.keywords if kw.arg == "size"), value.args[1] if len(value.args) > 1
                    else None)
        if isinstance(size, ast.Tuple) and len(size.elts) == 1:
            size = size.elts[0]
        return size is not None and ast.dump(size) == wanted
    if name not in _ORDERS or len(value.args) != 1:
        return False
    counted = value.args[0]
    if isinstance(counted, ast.Call) and isinstance(counted.func, (ast.Attribute, ast.Name)) \
            and (counted.func.attr if isinstance(counted.func, ast.Attribute) else counted.func.id) == "arange" \
            and counted.args and not counted.keywords and (len(counted.args) == 1 or (
                len(counted.args) == 2 and isinstance(counted.args[0], ast.Constant) and counted.args[0].value == 0)):
        counted = counted.args[-1]   # ``permutation(np.arange(0, n))``: an order of ``n``
    return ast.dump(counted) == wanted


def _shape_of(value: ast.AST) -> bool:
    """``x.shape`` / ``x.size()``: unpacked, each element is a length read from the data."""
    return (isinstance(value, ast.Attribute) and value.attr == "shape") or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "size"
        and not value.args)


def whole_chunks(stop: ast.AST, ctx: FileContext) -> bool:
    """``n - step``, ``n - k + 1`` (or a name bound to one): the loop stops before the short tail."""
    if isinstance(stop, ast.Name):
        binding = ctx.resolver.binding(stop)
        stop = binding.value if binding is not None and binding.tag == VALUE and not binding.path else stop
    if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Add) and isinstance(stop.right, ast.Constant):
        stop = stop.left   # ``n - k + 1``: the start of the last whole window
    return isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub)


def consumed(node: ast.Subscript, ctx: FileContext) -> bool:
    """The chunk is an argument of a call (a model, an encoder, a torch function): computed on, one shape per chunk."""
    parent = ctx.parent(node)
    return (isinstance(parent, ast.Call) and node in parent.args) or isinstance(parent, ast.BinOp)


def made_tensor(node: ast.Subscript, loop: ast.AST, ctx: FileContext) -> bool:
    """The chunk (or the name it is bound to) reaches a torch call or a tokenizer asked for tensors in the loop."""
    return tensor_call(node, loop, ctx) is not None


def tensor_call(node: ast.Subscript, loop: ast.AST, ctx: FileContext) -> Optional[ast.Call]:
    """The first torch call (or tokenizer asked for tensors) of the loop the chunk reaches: itself, the name it
    is bound to, or a list holding one entry per item of it (`collected`: ``torch.vstack(clips)``)."""
    parent = ctx.parent(node)
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target] if isinstance(parent, ast.AnnAssign) \
        else []
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    names |= collected(getattr(loop, "body", []), names)
    for child in walk(loop):
        if not isinstance(child, ast.Call):
            continue
        if not ((ctx.resolver.qualname(child.func) or "").startswith("torch.")
                or any(kw.arg == "return_tensors" and _asks_torch_tensors(kw.value) for kw in child.keywords)):
            continue
        for argument in [*child.args, *(kw.value for kw in child.keywords)]:
            for inner in walk(argument):
                if inner is node or (isinstance(inner, ast.Name) and inner.id in names):
                    return child
    return None


def _asks_torch_tensors(value: ast.expr) -> bool:
    """A tokenizer's ``return_tensors=`` asking for torch tensors: ``"pt"`` or a value the code chooses; not ``None``
    (Python lists, the default) nor ``"np"`` / ``"tf"`` / ``"jax"`` (another library's arrays)."""
    return not isinstance(value, ast.Constant) or value.value == "pt"


def collected(body: list, names: set[str]) -> set[str]:
    """The lists of ``body`` holding one entry per item of the chunk a name of ``names`` holds: ``clips =
    [load(p) for p in chunk]``, or ``for p in chunk: ... clips.append(f(p))`` (an entry computed from the item):
    as long as the chunk, so a tensor joined from them (``torch.vstack(clips)``) has the chunk's length. Not the
    items themselves (``torch.from_numpy(load(p))`` is one item's tensor, the same shape for a short chunk)."""
    if not names:
        return set()
    found: set[str] = set()
    for statement in body:
        for child in walk(statement):
            if isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name) \
                    and isinstance(child.value, (ast.ListComp, ast.GeneratorExp)) \
                    and len(child.value.generators) == 1 and _uses(child.value.generators[0].iter, names) \
                    and not child.value.generators[0].ifs:
                found.add(child.targets[0].id)
            elif isinstance(child, ast.For) and isinstance(child.iter, ast.Name) and child.iter.id in names:
                found |= filled_per_item(child)
    return found


def filled_per_item(loop: ast.For) -> set[str]:
    """The lists made before ``loop`` that its body appends one entry per item to, each computed from the item
    (``for p in chunk: clips.append(load(p))``; ``for j in range(lo, hi): batch.append(norm(imgs[j]))``)."""
    found: set[str] = set()
    items = derived(loop.body, {n.id for n in walk(loop.target) if isinstance(n, ast.Name)})
    bound = {n.id for s in loop.body for n in walk(s) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)} | {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
    for call in (c for s in loop.body for c in walk(s)):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                and call.func.attr == "append" and isinstance(call.func.value, ast.Name) \
                and len(call.args) == 1 and _uses(call.args[0], items) \
                and call.func.value.id not in bound:   # a list made before the loop over the chunk
            found.add(call.func.value.id)
    return found


def loop_position(target: ast.AST, index: str) -> Optional[tuple[int, ...]]:
    """Where a loop's target binds ``index``: ``()`` for ``for index in ...``, ``(1,)`` for ``for k, index in
    enumerate(...)``; None when it binds no such name."""
    if isinstance(target, ast.Name):
        return () if target.id == index else None
    if isinstance(target, ast.Tuple):
        for position, element in enumerate(target.elts):
            inner = loop_position(element, index)
            if inner is not None:
                return (position, *inner)
    return None


def same_or_variable(loop_step: ast.AST, chunk: ast.AST) -> bool:
    """The chunk is as long as the loop's step, or both are set at run time (``range(0, n, stride)`` with chunks
    of ``segment_length``: overlapping or gapped windows, the last ones cut short all the same)."""
    if ast.dump(loop_step) == ast.dump(chunk):
        return True
    return not isinstance(loop_step, ast.Constant) and not isinstance(chunk, ast.Constant)


_SPLITS = frozenset({"torch.split"})
_WRAPPERS = ("enumerate", "tqdm", "list")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SIZE_KEYWORDS = ("split_size", "split_size_or_sections")
# The words of a callee that runs a model on a piece: ``model(p)``, ``self.encoder(p)``, ``net.forward(p)``.
_MODEL_WORDS = frozenset({"model", "net", "forward", "encode", "encoder", "decode", "decoder", "predict", "infer",
                          "inference", "backbone", "generate", "embed", "module"})


# A split size along another axis than the first that cuts a sequence (audio samples, frames, tokens) rather than
# a model dimension (``head_dim``, ``hidden``): the last piece is shorter there too.
_SEQUENCE_WORDS = re.compile(r"chunk|segment|window|frame|step|len")


def split_pieces(node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST]]:
    """``x.split(bs)`` / ``torch.split(x, bs)`` of a tensor in one integer size (not a list of sizes: NPU410): the
    tensor and the size, else None. ``x.chunk(n)`` is left alone: its pieces are channel groups or halves of a
    model dimension, whole in practice (3 of 3 corpus loops). So is a size read from the data (``batch_size =
    x.shape[0]``, then ``stacked.split(batch_size)``): the split undoes a concatenation of whole batches."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "split":
        return None
    name = ctx.resolver.qualname(func)
    if name is not None:
        if name not in _SPLITS or not node.args:
            return None
        tensor, rest = node.args[0], node.args[1:]
    else:
        tensor, rest = func.value, node.args
    size = rest[0] if rest else next((kw.value for kw in node.keywords if kw.arg in _SIZE_KEYWORDS), None)
    dim = rest[1] if len(rest) > 1 else next((kw.value for kw in node.keywords if kw.arg == "dim"), None)
    if dim is not None and not (isinstance(dim, ast.Constant) and dim.value == 0) \
            and not _SEQUENCE_WORDS.search(ast.unparse(size).lower()):
        return None   # ``x.split(head_dim, dim=-1)``: pieces along a model dimension; ``chunk_size`` cuts a sequence
    folded, written = (constant_int(size) if size is not None else None), size
    if folded is not None and folded > 1 and not isinstance(size, ast.Constant):
        size = ast.copy_location(ast.Constant(folded), size)   # ``1 << 18``, ``64 * 1024``: one fixed size
    if size is None or not isinstance(size, (ast.Name, ast.Attribute, ast.Constant)) \
            or (isinstance(size, ast.Constant) and (not isinstance(size.value, int) or size.value in (0, 1))) \
            or ctx.resolver.kind_of(size) in ("list", "host") or data_length(size, ctx):
        return None   # ``x.split(1)``: pieces of one, all alike
    kind = ctx.resolver.kind_of(tensor)
    if kind not in ("tensor", "batch") and not (kind is None and name is not None) \
            and not (kind is None and name is None and rest and (folded is not None or _int_setting(size, node, ctx))):
        return None   # ``line.split(",")``, a list: no tensor pieces
    return tensor, written


def _int_setting(size: ast.AST, node: ast.AST, ctx: FileContext) -> bool:
    """The size is a setting holding an integer above one unless a caller changes it (``def predict(self, x,
    batch_size=32)``): no separator of ``str.split``, so the receiver cuts itself into pieces of that many rows
    (``torch.split(x, bs)`` names its tensor by the API itself; loops26)."""
    from npu_lint.analysis.defaults import default_constant
    scopes = ctx.resolver.scopes
    function = ctx.enclosing(node, _DEFS)
    scope = scopes.scope_of(function) if function is not None and scopes is not None else None
    value = default_constant(size, scope, scopes) if scopes is not None else None
    return isinstance(value, int) and not isinstance(value, bool) and value > 1


def constant_int(node: ast.AST) -> Optional[int]:
    """The value of an integer written as a constant expression (``4096``, ``1 << 18``, ``64 * 1024``, ``2 ** 16``),
    else None. A ``.split`` method given such a size by position is no ``str.split`` (a separator string or None)
    nor ``re`` / ``bytes`` splitting: the receiver cuts itself into pieces of that many rows (a tensor, or a batch
    container's own ``split``)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.LShift, ast.Mult, ast.Pow, ast.Add)):
        left, right = constant_int(node.left), constant_int(node.right)
        if left is None or right is None or (isinstance(node.op, (ast.LShift, ast.Pow)) and not 0 <= right <= 40):
            return None
        return {ast.LShift: lambda: left << right, ast.Mult: lambda: left * right, ast.Pow: lambda: left ** right,
                ast.Add: lambda: left + right}[type(node.op)]()
    return None


def fed_pieces(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """The model call a ``for`` loop (or a comprehension) over ``node``'s pieces makes with a piece: ``for p in
    x.split(bs): out.append(model(p))``; ``enumerate`` / ``tqdm`` around the pieces are seen through, and so is a
    name the pieces are bound to first (``batches = x.split(bs)``, then ``for b in batches``)."""
    for target, body in loops_over(node, ctx):
        names = {n.id for n in walk(target) if isinstance(n, ast.Name)}
        found = model_call(body, derived(body, names), ctx)
        if found is not None:
            return found
    return None


def loops_over(node: ast.AST, ctx: FileContext) -> list[tuple[ast.AST, list]]:
    """The (target, body) of each ``for`` loop or comprehension over ``node``'s elements, directly, through
    ``enumerate`` / ``tqdm`` / ``list``, or through the name an assignment binds ``node`` to (a loop of the same
    function whose iterable is that binding)."""
    parent, child, path = ctx.parent(node), node, []
    while isinstance(parent, ast.Call) and parent.args and isinstance(parent.func, ast.Name) and (
            parent.args[0] is child and parent.func.id in _WRAPPERS or parent.func.id == "zip" and child in parent.args):
        if parent.func.id in ("enumerate", "zip"):   # ``zip(a.split(n), b.split(n))``: pieces side by side
            path.append(1 if parent.func.id == "enumerate" else parent.args.index(child))
        parent, child = ctx.parent(parent), parent
    if isinstance(parent, ast.For) and parent.iter is child:
        return [(_element(parent.target, path), parent.body)]
    if isinstance(parent, ast.comprehension) and parent.iter is child:
        owner = ctx.parent(parent)
        return [(_element(parent.target, path), [getattr(owner, "elt", None) or getattr(owner, "value", None)])]
    if not (isinstance(parent, ast.Assign) and parent.value is child and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        return []
    name, found = parent.targets[0].id, []
    function = ctx.enclosing(parent, _DEFS)
    for loop in walk(function) if function is not None else ():
        heads = [(loop, loop.iter)] if isinstance(loop, ast.For) else \
            [(g, g.iter) for g in loop.generators] if isinstance(loop, _COMPREHENSIONS) else []
        for head, source in heads:
            while isinstance(source, ast.Call) and source.args and isinstance(source.func, ast.Name) \
                    and source.func.id in _WRAPPERS:
                source = source.args[0]
            if not isinstance(source, ast.Name) or source.id != name:
                continue
            binding = ctx.resolver.binding(source)
            if binding is None or binding.value is not child:
                continue
            body = head.body if isinstance(head, ast.For) else [getattr(loop, "elt", None) or getattr(loop, "value", None)]
            found.append((head.target, body))
    return found


def _element(target: ast.AST, path: list[int]) -> ast.AST:
    """The part of a loop's target that binds the pieces: ``b`` of ``for i, (a, b) in enumerate(zip(xs, ys))`` for
    ``ys`` (the positions ``enumerate`` / ``zip`` put it at, outermost last); the whole target when it is not unpacked
    that far."""
    for index in reversed(path):
        if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) <= index:
            return target
        target = target.elts[index]
    return target


def derived(body: list, names: set[str]) -> set[str]:
    """``names`` and the names the statements of ``body`` bind from them (``batch = {"x": chunk}``, ``ctx =
    [torch.tensor(e) for e in batch]``, ``for item in chunk``, ``wavs.append(load(item))``), in two passes: what a
    loop's element flows into within the loop."""
    names = set(names)
    for _ in range(2):
        for statement in body:
            for child in walk(statement) if statement is not None else ():
                if isinstance(child, (ast.Assign, ast.AnnAssign)) and _uses(child.value, names):
                    targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                elif isinstance(child, (ast.For, ast.comprehension)) and _uses(child.iter, names):
                    targets = [child.target]   # ``for item in chunk:`` walks the chunk's items
                elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                        and child.func.attr in ("append", "extend") and isinstance(child.func.value, ast.Name) \
                        and any(_uses(a, names) for a in child.args):
                    targets = [child.func.value]   # ``tensors.append(load(item))``: the list holds them
                else:
                    continue
                names |= {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name)}
    return names


def _uses(node: Optional[ast.AST], names: set[str]) -> bool:
    return node is not None and any(isinstance(n, ast.Name) and n.id in names for n in walk(node))


def model_call(body: list, names: set[str], ctx: FileContext, node: Optional[ast.AST] = None) -> Optional[ast.Call]:
    """The first call in ``body`` that runs a model on one of ``names`` (or on ``node``): an ``nn.Module``, or a
    callee the model cannot resolve whose name says model / net / encoder / predict ... (``model(p)``,
    ``self.encoder(p)``, ``model.inference(**batch)``), the names in its arguments, not its receiver."""
    for statement in body:
        for call in walk(statement) if statement is not None else ():
            if not isinstance(call, ast.Call) or not any(
                    inner is node or (isinstance(inner, ast.Name) and inner.id in names)
                    for argument in [*call.args, *(kw.value for kw in call.keywords)] for inner in walk(argument)):
                continue
            words = {w for w in re.split(r"[._]", ast.unparse(call.func).lower()) if w}
            if ctx.resolver.kind_of(call.func) == "module" or (
                    ctx.resolver.qualname(call.func) is None and words & _MODEL_WORDS
                    and not any(isinstance(n, ast.Name) and n.id in names for n in walk(call.func))):
                return call
    return None


def while_counter(node: ast.AST, index: str, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST, ast.While]]:
    """``while start < n: ... x[start:start + bs] ... start += bs``: the stop ``n``, the step the body adds to the
    counter (one ``index += step`` among the loop body's own statements) and the loop, for a chunk read in the
    loop's body (not in a function defined there)."""
    loop = ctx.enclosing(node, (ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
    if not isinstance(loop, ast.While):
        return None
    test = loop.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Lt)
            and isinstance(test.left, ast.Name) and test.left.id == index):
        return None
    steps = [s.value for s in loop.body if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add)
             and isinstance(s.target, ast.Name) and s.target.id == index]
    rebound = [s for s in loop.body for t in getattr(s, "targets", ()) if isinstance(t, ast.Name) and t.id == index]
    if not steps and len(rebound) == 1:
        step = _moved_by(rebound[0], loop, index)   # ``start = end`` after ``end = min(start + bs, n)``
        steps = [step] if step is not None else []
        rebound = []
    if len(steps) != 1 or rebound:
        return None
    return test.comparators[0], steps[0], loop


def _advanced(node: ast.AST, index: str) -> Optional[ast.AST]:
    """The step of ``index + step``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Name) \
            and node.left.id == index:
        return node.right
    return None


def _moved_by(statement: ast.stmt, loop: ast.While, index: str) -> Optional[ast.AST]:
    """The step of a counter moved by one assignment of the loop body: ``start = start + bs``, or ``start = end``
    with ``end = start + bs`` / ``end = min(start + bs, n)`` (the clipped end) bound once in the body."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    value = statement.value
    if isinstance(value, ast.Name):
        ends = [s.value for s in loop.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name) and s.targets[0].id == value.id]
        if len(ends) != 1:
            return None
        value = ends[0]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "min" \
                and len(value.args) == 2 and not value.keywords:
            return next((step for step in map(lambda a: _advanced(a, index), value.args) if step is not None), None)
    return _advanced(value, index)


def tail_skipped(loop: ast.AST, index: str, step: ast.AST, stop: ast.AST) -> bool:
    """The loop drops the short last chunk itself: a test at the top level of its body that compares what is left
    with the step and leaves the iteration (``if len(idxs) - start < bs: break``, ``if i + bs > n: continue``)
    before the chunk is cut. Every chunk the body goes on to cut is whole."""
    if not isinstance(loop, (ast.For, ast.While)):
        return False
    wanted = {ast.dump(step), ast.dump(stop)}
    for statement in loop.body:
        if not isinstance(statement, ast.If) or not statement.body \
                or not isinstance(statement.body[-1], (ast.Break, ast.Continue)) or statement.orelse:
            continue
        test = statement.test
        if not isinstance(test, ast.Compare) or len(test.ops) != 1 \
                or not isinstance(test.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            continue
        parts = {ast.dump(n) for n in walk(test) if isinstance(n, ast.expr)}
        if wanted <= parts and any(isinstance(n, ast.Name) and n.id == index for n in walk(test)):
            return True
    return False


# Host-side builtins a piece may be handed to without any shape reaching the device.
_COLLECTING = frozenset({"append", "extend", "insert", "add", "put", "put_nowait"})
_HOST_CALLS = frozenset({"len", "print", "str", "repr", "isinstance", "type", "id", "hash", "bool", "list", "tuple"})


def computed_pieces(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """The broad form of :func:`fed_pieces`: the first call a loop (or comprehension) over ``node``'s pieces makes
    with a piece, whatever the callee (``self._compute_jacobian(batch)``, ``captum.attribute(inputs=batch)``,
    ``batch.to(device)``): every piece is computed on, the last one in its own shape. Host builtins (``len``,
    ``print``) are no computation."""
    for target, body in loops_over(node, ctx):
        names = derived(body, {n.id for n in walk(target) if isinstance(n, ast.Name)})
        for statement in body:
            for call in walk(statement) if statement is not None else ():
                if not isinstance(call, ast.Call) or (isinstance(call.func, ast.Name) and call.func.id in _HOST_CALLS) \
                        or (isinstance(call.func, ast.Attribute) and call.func.attr in _COLLECTING):
                    continue    # a host builtin, or the piece only collected (``outs.append(p)``)
                operands = [*call.args, *(kw.value for kw in call.keywords)]
                if isinstance(call.func, ast.Attribute):
                    operands.append(call.func.value)
                if any(isinstance(n, ast.Name) and n.id in names for operand in operands for n in walk(operand)):
                    return call
    return None
