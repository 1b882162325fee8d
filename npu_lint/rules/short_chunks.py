"""NPU407: the short last chunk of a sequence cut in fixed steps (the steps, lengths and chunks: chunk_steps.py;
the short last batch of a loader: NPU406 / NPU415)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules.iterator_batches import getitem_chunk, iterator_chunk
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.batch_lists import (library_batchers, library_batches, listed_range, own_batch_join, section_pieces,
                                        served_batches, sliced_batches, stage_batches)
from npu_lint.rules.batch_remainders import emits, remainder_batch, remainder_slice
from npu_lint.rules.chunk_pieces import rounded_chunks
from npu_lint.rules.chunk_sizes import fraction_parts, padded_back, scalar_derived
from npu_lint.rules.chunk_helpers import clipping_helper
from npu_lint.rules.chunk_counts import bound_element, clip_bound, filled_chunk, rounded_up, scaled, scaled_end
from npu_lint.rules.chunk_steps import (ranged, chunk_step, filled_per_item, clipped_size, remaining_step, clipped_to_stop, consumed, data_length, derived, fed_pieces, computed_pieces, length_expr,
                                        loop_position, made_tensor, model_call, tensor_call, collected, same_or_variable, split_pieces,
                                        permuted_length, tail_skipped, while_counter, whole_chunks)
from npu_lint.rules.sampler_yields import sampler_yield
from npu_lint.rules.size_groups import grouped_sizes
from npu_lint.rules.value_flow import FAMILY


# The last word of a name that holds no tensor data (lists of names, parameters, modules, text).
_NOT_TENSOR_WORDS = frozenset({"list", "items", "names", "keys", "headers", "params", "paths", "files", "modules",
                               "submodule", "submodules", "blocks", "layers", "lines", "text", "texts", "strings",
                               "words", "urls", "prompts", "prompt", "captions", "dicts", "tags", "columns"})


def _computed_on(node: ast.Subscript, loop: ast.AST, ctx: FileContext) -> bool:
    """The chunk is an argument of a call (by position or keyword), reaches a model, or is made a tensor in the
    loop (also as one arm of a choice: ``b = x[lo:hi] if have_x else None``)."""
    taken: ast.AST = node
    while isinstance(ctx.parent(taken), ast.IfExp) and ctx.parent(taken).test is not taken:   # type: ignore
        taken = ctx.parent(taken)
    parent = ctx.parent(taken)
    return consumed(taken, ctx) or (isinstance(parent, ast.keyword) and isinstance(ctx.parent(parent), ast.Call)) \
        or _fed_model(taken, loop, ctx) or made_tensor(taken, loop, ctx)   # type: ignore[arg-type]


def _same_text(a: Optional[ast.AST], b: ast.AST) -> bool:
    return a is not None and ast.unparse(a) == ast.unparse(b)


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


def _fed_model(node: ast.Subscript, loop: ast.AST, ctx: FileContext) -> bool:
    """A list's chunk (or what the loop builds from it: ``batch = {"data_in": chunk}``) given to a model:
    ``model.inference(**batch)``, ``self.predict(inputs=xs[i:i + bs])``; the model makes the batch a tensor."""
    parent = ctx.parent(node)
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target] if isinstance(parent, ast.AnnAssign) \
        else []
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    body = loop.body if isinstance(loop, ast.For) else [getattr(loop, "elt", None) or getattr(loop, "value", None)]
    return model_call(body, derived(body, names), ctx, node) is not None


def _pieces_fed(loop: ast.AST, ctx: FileContext) -> bool:
    """A comprehension of chunks bound to a name (``segs = [wav[i:i + seg] for i in range(...)]``) that a loop or
    comprehension of the same function then walks, giving each piece to a model (``[model(s) for s in segs]``)."""
    parent = ctx.parent(loop)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    function = ctx.enclosing(loop, FUNCTION_TYPES)
    if function is None:
        return False
    for walker in walk(function):
        heads = [(walker.target, walker.iter, walker.body)] if isinstance(walker, ast.For) else \
            [(g.target, g.iter, [walker.elt]) for g in walker.generators] \
            if isinstance(walker, (ast.ListComp, ast.GeneratorExp)) else []
        for target, source, body in heads:
            if isinstance(source, ast.Name) and source.id == name and isinstance(target, ast.Name) \
                    and model_call(body, derived(body, {target.id}), ctx) is not None:
                return True
    return False


def _positions(expr: ast.AST, ctx: FileContext) -> list[str]:
    """The names ``expr`` is computed from, also through the names it reads (two steps: ``end = start + (batch -
    1) * hop + win`` with ``start = i * hop``): where a loop's position may enter a chunk's end."""
    found: list[str] = []
    frontier, seen = [expr], set()
    for _ in range(3):
        following = []
        for part in frontier:
            for child in walk(part):
                if isinstance(child, ast.Name) and child.id not in seen:
                    seen.add(child.id)
                    found.append(child.id)
                    value = ctx.resolver.bound_value(child)
                    if isinstance(value, ast.AST) and not isinstance(value, (ast.FunctionDef, ast.ClassDef)):
                        following.append(value)
        frontier = following
    return found


def _bound_slice(name: ast.Name, ctx: FileContext) -> Optional[tuple[ast.Slice, ast.Call]]:
    """``bslc = slice(j, min(j + bs, n))`` (the builtin): the slice the name holds, as ``x[j:min(j + bs, n)]``
    writes it, and the ``slice(...)`` call."""
    value = ctx.resolver.bound_value(name)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "slice"
            and len(value.args) == 2 and not value.keywords and ctx.resolver.binding(value.func) is None):
        return None
    return ast.Slice(lower=value.args[0], upper=value.args[1]), value


def consumed_prefix(node: ast.Subscript, ctx: FileContext) -> Optional[tuple[ast.While, ast.AST, ast.Call]]:
    """``x[:n]`` given to a model in a ``while`` loop that runs while ``x`` has items (``while len(x) > 0``,
    ``while x``) and drops the chunk from ``x`` (``x = x[n:]``): the loop, the chunk length, the model call."""
    bounds = node.slice
    if not (isinstance(bounds, ast.Slice) and bounds.lower is None and bounds.step is None
            and bounds.upper is not None and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load)):
        return None
    name = node.value.id
    loop = ctx.enclosing(node, (ast.While, *FUNCTION_TYPES))
    if not isinstance(loop, ast.While) or not _while_items(loop.test, name):
        return None
    step = bounds.upper
    rest = any(isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name)
               and child.targets[0].id == name and isinstance(child.value, ast.Subscript)
               and isinstance(child.value.value, ast.Name) and child.value.value.id == name
               and isinstance(child.value.slice, ast.Slice) and child.value.slice.upper is None
               and child.value.slice.lower is not None and ast.dump(child.value.slice.lower) == ast.dump(step)
               for child in walk(loop))
    if not rest or isinstance(step, ast.Constant) and step.value == 1:
        return None
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.Call) and node in parent.args):
        return None
    call = model_call([parent], set(), ctx, node)
    return (loop, step, call) if call is not None else None


def _while_items(test: ast.AST, name: str) -> bool:
    """``while x``, ``while len(x)``, ``while len(x) > 0``: the loop runs while ``x`` has items."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Gt, ast.NotEq)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0:
        test = test.left
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len" and len(test.args) == 1:
        test = test.args[0]
    return isinstance(test, ast.Name) and test.id == name


def _chunk_length(node: ast.AST) -> bool:
    """A chunk length: a name or attribute (``bptt``, ``args.bptt``), or one of several chosen by a test
    (``seq_len if seq_len else args.bptt``, ``seq_len or args.bptt``: the AWD-LSTM ``get_batch``)."""
    if isinstance(node, ast.IfExp):
        return _chunk_length(node.body) and _chunk_length(node.orelse)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return all(_chunk_length(v) for v in node.values)
    return isinstance(node, (ast.Name, ast.Attribute))


def _minus_one(arg: ast.BinOp) -> bool:
    """``x.size(1) - 1 - i``: the length less one less a position, the bptt tail of a batch-first sequence (the
    targets are the inputs shifted by one), whatever the axis."""
    left = arg.left
    return isinstance(left, ast.BinOp) and isinstance(left.op, ast.Sub) and isinstance(left.right, ast.Constant) \
        and left.right.value == 1 and length_expr(left.left)


def _bound_names(node: ast.AST, ctx: FileContext) -> set[str]:
    """The names ``node`` is assigned to (``batch = paths[i:i + bs]``)."""
    parent = ctx.parent(node)
    targets = parent.targets if isinstance(parent, ast.Assign) else []
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _names(node: ast.AST) -> set[str]:
    return {child.id for child in walk(node) if isinstance(child, ast.Name)}


def _bound_tail(arg: ast.AST, ctx: FileContext) -> bool:
    """``total_length - offset`` with ``total_length = tensor.shape[-1]`` (a name bound to a length read from the
    data) and ``offset`` a position: what is left of the data after a chunk start (``TensorChunk(x, offset,
    length)`` helpers computing ``min(total_length - offset, length)``)."""
    return isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Sub) and isinstance(arg.left, ast.Name) \
        and isinstance(arg.right, ast.Name) and arg.left.id != arg.right.id and data_length(arg.left, ctx)


def _named_in_function(node: ast.Call, ctx: FileContext) -> Optional[tuple[str, ast.AST]]:
    """The name the call's value is bound to whole (``end = min(...)``) and the function it is bound in."""
    parent = ctx.parent(node)
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name) \
            or function is None:
        return None
    return parent.targets[0].id, function


def _writes_prefix(node: ast.Call, ctx: FileContext) -> bool:
    """``end = min(n - start, block)`` whose every use bounds a slice written into (``mask[:end] = True``): a
    prefix of a buffer of fixed size is set, no tensor takes the short length."""
    found = _named_in_function(node, ctx)
    if found is None:
        return False
    name, function = found
    written = {id(n) for child in walk(function)
               if isinstance(child, ast.Subscript) and isinstance(child.ctx, ast.Store)
               for n in walk(child.slice) if isinstance(n, ast.Name)}
    uses = [n for n in walk(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return bool(uses) and all(id(n) in written for n in uses)


def _whole_length(arg: ast.AST, other: ast.AST) -> bool:
    """``min(nd - d, nd)``: the part left after an offset, up to the whole length, not a chunk of fixed size (the
    shifted windows of a kernel's offsets)."""
    return isinstance(arg, ast.BinOp) and ast.dump(other) in {ast.dump(child) for child in walk(arg.left)}


def _scalar_only(node: ast.Call, ctx: FileContext) -> bool:
    """``k = min(n - start, every)`` whose every use is compared or divides (``loss / k``, ``if i - start + 1 ==
    k``): the count of the last group of gradient accumulation, a scalar that sizes no tensor."""
    found = _named_in_function(node, ctx)
    if found is None:
        return False
    name, function = found
    uses, scalar = [], set()
    for child in walk(function):     # the walk has not reached the later uses: their parents are not known yet
        if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load):
            uses.append(child)
        elif isinstance(child, ast.Compare):
            scalar.update(id(operand) for operand in (child.left, *child.comparators))
        elif isinstance(child, ast.BinOp) and isinstance(child.op, ast.Div):
            scalar.add(id(child.right))
    return bool(uses) and all(id(n) in scalar for n in uses)


# Builtins whose result is a host number or text: a size handed to them sizes no tensor.
_SCALAR_CALLS = frozenset({"range", "print", "len", "int", "float", "str", "round", "abs", "max", "min", "sum",
                           "isinstance", "enumerate", "format"})


def _scalar_call(call: ast.Call, ctx: FileContext) -> bool:
    """A builtin giving a host value (``range(cur)``, ``print(cur)``) or a logging / progress call."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in _SCALAR_CALLS and ctx.resolver.binding(func) is None
    return isinstance(func, ast.Attribute) and func.attr in ("info", "debug", "warning", "log", "update", "write",
                                                             "set_description", "set_postfix", "format", "append")


def _sizes(use: ast.Name, parents: dict, ctx: FileContext) -> bool:
    """A use of a batch size that sizes something: an argument of a call (not a host builtin), a slice bound."""
    parent = parents.get(id(use))
    if isinstance(parent, ast.keyword):
        parent = parents.get(id(parent))
    if isinstance(parent, ast.Call):
        return use is not parent.func and not _scalar_call(parent, ctx)
    if isinstance(parent, (ast.Tuple, ast.List)) and isinstance(parents.get(id(parent)), ast.Call):
        return not _scalar_call(parents[id(parent)], ctx)
    return isinstance(parent, ast.Slice)


def _torch_sink(call: ast.AST, ctx: FileContext) -> bool:
    """A torch call (``torch.zeros(1, c, n)``) or a method of a tensor the model knows."""
    if not isinstance(call, ast.Call):
        return False
    name = ctx.resolver.qualname(call.func) or ""
    if name.startswith("torch."):
        return True
    return isinstance(call.func, ast.Attribute) and ctx.resolver.is_tensor(call.func.value)


def _torch_use(use: ast.Name, parents: dict, ctx: FileContext) -> bool:
    """The size reaches a torch call, or bounds a slice of a tensor, directly (or inside a shape tuple)."""
    parent = parents.get(id(use))
    if isinstance(parent, ast.keyword) or isinstance(parent, (ast.Tuple, ast.List)):
        parent = parents.get(id(parent))
    if isinstance(parent, ast.Slice):
        outer = parents.get(id(parent))
        outer = parents.get(id(outer)) if isinstance(outer, ast.Tuple) else outer
        return isinstance(outer, ast.Subscript) and ctx.resolver.is_tensor(outer.value)
    return _torch_sink(parent, ctx)


# Tensor makers whose first argument is the first dimension: ``torch.randn(sz, z_dim)``.
_SIZED_MAKERS = frozenset({"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "torch.full",
                           "torch.normal", "numpy.random.randn", "numpy.random.rand"})

class ShortLastChunk(Rule):
    """The last chunk of a sequence cut in fixed steps is shorter (bptt tails, hand-made batches).

    What it does:
        Flags the pieces of ``x.chunk(math.ceil(x.shape[0] / s))`` fed to a model (a count rounded up: TabNet's ghost
        batch norm), ``min(bptt, len(source) - 1 - i)`` (a chunk length, a name or several chosen by a test: ``seq_len
        if seq_len else args.bptt``, cut at the end of the data: the length
        of the data minus a position; the bptt loop of language models) and slices ``x[i:i + step]`` inside ``for i in range(start, stop, step)`` (or
        ``while i < stop:`` with ``i += step`` in its body, or ``i = end`` after ``end = min(i + step, stop)``) whose stop is not reduced by the step (a length read
        from the data, or the count a sliced order was made over: ``perm = torch.randperm(n)`` cut up to ``n``): unless the data length is a multiple of the step, the last chunk is shorter.
        The end may be clipped (``end = min(i + step, n)``; ``x[i:end]``), the bounds held in a ``slice`` object
        (``bslc = slice(j, min(j + bs, n))``; ``x[bslc]``, reported at the ``slice``), the order drawn by
        ``np.random.choice(pool, size=(n,))`` or ``permutation(np.arange(n))`` (in any arm), the stop a name bound to a length
        (``n = x.shape[0]``), the steps seen through ``tqdm(range(...))`` (a bare ``tqdm`` whatever binds it: ``tqdm = get_tqdm()``), ``trange`` or ``enumerate``, and the
        loop a comprehension whose chunk is computed on (``torch.cat([model(x[i:i + bs]) for i in range(0,
        len(x), bs)])``, or whose list of pieces a later loop of the function gives a model piece by piece, directly
        or through what it builds from a piece: ``segs = [wav[i:i + seg] for i in range(0, len(wav), seg)]``,
        ``[model(s) for s in segs]``; ``for b in batches: net(torch.stack(b).to(device))``). Also
        ``min(total_length - offset, length)`` with ``total_length`` bound to a length
        of the data (a chunk helper's ``TensorChunk(x, offset, length)``), and loops (or comprehensions) over
        ``x.split(bs)`` / ``torch.split(x, bs)`` of a tensor in one size (not a size read from the data: the
        split of stacked batches) that feed a piece to a model (an ``nn.Module``, or a callee named model / net /
        encoder / forward ...): the last piece is shorter unless the size divides the length (``x.chunk(n)``
        is left alone: channel groups and halves, whole in practice), also when the pieces are bound to a name the
        loop then walks (``batches = torch.split(x, bs)``, ``for b in batches: self.encoder(b)``) or index the data
        fed (``self(x[idx])``). The stop must be a length read from the data (or any value but a constant when the chunk's end is
        clipped to it, ``end = min(i + bs, num_samples)`` in ``for i in range(0, num_samples, bs)``: the code itself
        expects the short tail of a count a caller or the configuration sets), not a constant; a
        Python list cut in chunks counts only when a chunk is made a tensor in the loop (``torch.stack``, or a
        list filled with one entry per item of it joined, ``for p in batch: clips.append(load(p))`` then
        ``torch.vstack(clips)``, reported at the join; a
        tokenizer asked for ``return_tensors``) or given to a model, directly or through what the loop builds from
        it (``batch = {"data_in": items[i:end]}``, then ``model.inference(**batch)``; ``self.predict(inputs=
        series[i:i + bs])``). One finding per loop: its first chunk. The steps may be a list of chunk starts the
        loop walks (``starts = list(range(0, len(data), bs)); random.shuffle(starts)``). The batches a data source
        serves count without a model in sight: ``self.data = [data[i:i + bs] for i in range(0, len(data), bs)]``
        in a torch ``Sampler`` or ``Dataset`` subclass or in a class with ``__len__`` and ``__getitem__`` /
        ``__iter__`` (a project's own loader, a batch sampler), and batch ``idx`` a dataset's ``__getitem__(self,
        idx)`` cuts, ``self.node_idx[idx * self.batch_size:(idx + 1) * self.batch_size]``, when its ``__len__``
        returns a count of batches rounded up (cogdl's samplers). So do the batches of a library batcher
        (``more_itertools.chunked``, ``itertools.batched``, toolz ``partition_all``, ``delu.iter_batches``:
        ``rule_tables/library_batchers.tsv``, built from the libraries' documented signatures) that a loop gives to
        a model or makes a tensor from (``yield torch.LongTensor(ids)`` with ``ids`` built from the batch; not
        with ``strict=True``, ``drop_last=True`` or a ``fill=`` pad), and of a project generator that cuts a
        parameter in batches of a parameter's size (``def batch(items, bs=1): for i in range(0, len(items), bs):
        yield items[i:min(i + bs, len(items))]``, or ``batch = list(islice(it, bs))`` yielded until it comes back
        empty; the file's own or, through the project index, another module's: ``from .util import
        get_batches``; reported where the loop's join makes the chunk a tensor, ``torch.stack(chunk)``, if it
        does; a call leaving the size at its default is left alone), the parts of ``np.array_split(x, n)`` / ``torch.tensor_split(x, n)`` a loop
        feeds a model (sizes one apart unless ``n`` divides the length; split indices are left alone), ``batch =
        list(islice(it, bs))`` in a ``while`` loop that stops when it comes back empty and yields it or feeds a
        model, and the bptt tail of a batch-first sequence (``min(bptt, x.size(1) - 1 -
        i)``). And a batch filled item by item: a loop appends to a list, emits it (``yield``, or appended to the
        batches) and empties it when a size test says it is full (``len(batch) == bs``, a running token count over
        a budget, a cost computed from ``len(batch)``; or, in the ``else`` arm of a test that it still has room,
        emits it and starts the next with the item, ``batch = [idx]``), then ``if batch: yield batch`` (``if batch
        and not self.drop_last:``) after the loop emits the short remainder (reported at the statement emitting it; a
        list flushed on a test of the data, an end-of-sentence label, is no batch).
        So is a chunk whose end follows the loop's position and is clipped to the length of the data it cuts (``end =
        min(audio.size(1), (i + bs - 1) * hop + win)``; ``audio[..., start:end]`` in ``for i in range(0, n_frames,
        bs)``: frames cut in batches; one finding per loop, none beside a ``min(total - i, bs)`` found in it).
        So are the positions of each chunk made a tensor, ``torch.arange(start, min(start + size, total))`` in ``for
        start in range(0, total, size)`` (a generator of index slices, ``total`` any value but a constant).
        The chunk's positions may be a ``range`` handed to the data (``dataset.select(range(i, min(len(dataset),
        i + bs)))``, ``Subset(ds, range(i, i + bs))``) when the loop gives what it takes to a model or makes it a
        tensor (a ``range`` walked item by item is no chunk, unless it fills a batch up to an end the code clips at
        the loop's stop, ``end = min(n, beg + bs)``; ``for j in range(beg, end): batch.append(norm(imgs[j]))``,
        the batch made a tensor or given to a model in the loop: reported at the clip). The plain order as a list,
        ``all_items = list(range(n))``, cut up to ``n`` is the order ``np.arange(n)`` is; numpy's positions of a
        chunk clipped by the code (``users = np.arange(i, min(i + bs, n))``, or ``np.arange(bs * k, min(n, bs * k
        + bs))`` under a count rounded up) count where the loop computes with them (a torch call, a model, a
        helper of the project; not numpy alone).
        The size of each batch as the count left clipped at the loop's step, ``cur = min(n - i, bs)`` in ``for i
        in range(0, stop, bs)`` (or ``trange``; ``n`` any value but a constant, not necessarily the stop), handed to
        any call but a host builtin or a log (``sample_fn(cur)``, ``model.sample(batch_size=cur)``) or bounding a
        slice (``x[:cur]``), is short on the last step: reported at the ``min`` (k-diffusion's
        ``compute_features``; a count only compared or dividing, ``loss / k``, is left alone). So are the sizes
        a helper of the file returns as groups and a remainder (``arr = [divisor] * (num // divisor)`` and
        ``arr.append(num % divisor)``: ``num_to_groups``), each handed to a call by a loop or ``map(lambda n:
        model.sample(batch_size=n), batches)`` (reported at the helper's call). A project generator cutting
        chunk ``b`` of a count rounded up (``n_batches = len(args[0]) // bs + int(len(args[0]) % bs != 0)``;
        ``yield [arg[b * bs:(b + 1) * bs] for arg in args]``: segment-anything's ``batch_iterator(bs, *args)``) is
        such a batcher too, and a loop over any project batcher counts when it hands a batch to a call that is no
        host builtin or log (``self._process_batch(points, ...)``). A pipeline stage that batches the samples a
        loader serves keeps the short last batch unless told: webdataset's ``wds.batched(bs)`` (``partial=True`` by
        default; ``partial=not is_train`` keeps it in evaluation) and the ``.batched(bs)`` method of a webdataset
        pipeline (``wds.WebDataset(urls).decode().batched(bs)``); ``partial=False`` is left alone.
        A sequence fed from its front in chunks while it lasts is the same thing: ``while len(tokens) > 0: out,
        state = model.forward(tokens[:n], state); tokens = tokens[n:]`` (an RNN-mode prompt prefill: the last chunk
        is what remains; the chunk must go to a model, and chunks of one are left alone).
        Chunk ``i`` of a count rounded up is the same thing: ``x[i * bs:(i + 1) * bs]`` under
        ``for i in range(math.ceil(len(x) / bs))`` (also ``(n + bs - 1) // bs``, ``-(-n // bs)``, ``n // bs + 1``,
        ``(n - 1) // bs + 1``, ``int(np.ceil(...))``, through a name; a count rounded down, ``len(x) // bs``, drops the tail: no finding;
        the bounds may be names, ``start, end = i * bs, min(n, (i + 1) * bs)``, and with the end clipped the count
        may round up the clip's own bound, a count a caller sets: ``ceil(float(n_prompts) / bs)``),
        and so is chunk ``idx`` filled item by item (``for i in range(bs): index = idx * bs + i; if index >=
        len(pairs): break; x.append(pairs[index])``, then ``torch.tensor(x)``: reported at the tensor made). A batch
        size clipped the same way sizes a tensor made per batch (``cur = min(bs, num_samples - i)`` or ``sz = end -
        start`` with ``end = min(start + bs, num_samples)``, then ``torch.randn(cur, dim)`` or a shape ``(sz,
        z_dim)`` handed to a sampler: samples generated in batches; the count any value but a constant).
        The loop's ``range`` may be called through a name bound to a choice among ``range`` and its progress-bar
        twins (``range_fn = range if not verbose else tqdm.trange``); the count left may be clipped at a window
        length the loop moves by a hop of its own (``min(total - offset, segment)`` in ``for offset in range(0,
        total, stride)``: overlapping windows), and may size a tensor through the numbers the loop computes from
        it (``frames = ceil(this_len / sr * fr)``; ``torch.zeros(1, c, frames)``). A helper of the file that cuts
        the chunk at the loop's position and clips it at the data's end (``min(total - offset, length)`` in it,
        over its parameters) reports at its call in the loop (``TensorChunk(mix, offset, segment)`` in ``for offset
        in range(0, length, stride)``). Part ``i`` of ``k`` near-equal parts, ``x[round(i * n / k):round((i + 1) *
        n / k)]`` (or ``i * n // k``) in ``for i in range(k)``, is one longer than another unless ``k`` divides
        ``n``. A chunk the loop pads back to its step's length (``F.pad(x, (0, n - x.shape[-1]))``, ``x.zero_pad(0,
        max(0, n - x.shape[-1]))``) is whole.
        The order sliced may be chosen between a shuffle and the plain order (``idx = np.random.permutation(n) if
        shuffle else np.arange(n)``) or be the plain ``np.arange(n)`` itself; and the rest of the data yielded after
        a generator's loop that yields fixed-step slices of it (``while end < len(data): batch = data[start:end];
        start = end; end += bs; yield batch``, then ``yield data[start:]``: the bounds moved by a step bound outside
        the loop, not a position found in the data such as a separator) is the short last batch.
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
    node_types = (ast.Call, ast.Subscript, ast.If)
    triggers = ("min(", "range(", "range if", "else range", "= range", "trange", "split(", "chunk(", "yield", "append(", "_split(", "islice(", "while ", "__next__", "__getitem__") \
        + tuple(sorted({api.rpartition(".")[2] + "(" for api in library_batchers()}))

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that call a project function of another module yielding batches of a parameter reach this rule."""
        return project.batcher_names()

    message = "{what}: the last chunk of the data is shorter, a second shape for the whole step to compile on NPU; trim the data to a multiple of the chunk, skip the tail, or pad it"
    must_fire = (# session 24: the range through a name bound to a choice of range / trange (a progress bar on demand)
                 "import torch\nimport tqdm\ndef decode(model, codes, n, verbose):\n"
                 "    range_fn = range if not verbose else tqdm.trange\n"
                 "    for i in range_fn(0, codes.shape[-1], n):\n        model(codes[..., i:i + n])\n",
                 # session 24: windows of a length moved by a hop of their own, the length left clipped at the end,
                 # sizing a tensor through the numbers computed from it
                 "import math\nimport torch\ndef decompress(model, total, seg, stride, c):\n"
                 "    for offset in range(0, total, stride):\n        this_len = min(total - offset, seg)\n"
                 "        frames = int(math.ceil(this_len / model.sample_rate * model.frame_rate))\n"
                 "        model.decode(torch.zeros(1, c, frames))\n",
                 # session 24: a helper of the file cuts the chunk at the loop's position and clips it at the data's end
                 "import torch\nclass Chunk:\n    def __init__(self, tensor, offset=0, length=None):\n"
                 "        total = tensor.shape[-1]\n        self.length = min(total - offset, length)\n"
                 "        self.tensor = tensor\n"
                 "def apply(model, mix, seg, stride):\n    offsets = range(0, mix.shape[-1], stride)\n"
                 "    for offset in offsets:\n        model(Chunk(mix, offset, seg))\n",
                 # session 24: k parts of a length by rounded fractions (one apart unless k divides it)
                 "import torch\ndef kid(x: torch.Tensor, k, mmd):\n    n = x.shape[0]\n    total = 0\n"
                 "    for i in range(k):\n        total = total + mmd(x[round(i * n / k):round((i + 1) * n / k)])\n"
                 "    return total\n",
                 # a custom iterator's ``__next__`` serving batch ``i`` of its data until a count rounded up
                 "import torch\nclass It:\n    def __init__(self, x, bs):\n        self.x, self.bs = x, bs\n"
                 "        self.n_batches = -(-len(x) // bs)\n        self.current = 0\n    def __next__(self):\n"
                 "        if self.current == self.n_batches:\n            raise StopIteration\n"
                 "        i = self.current\n        self.current += 1\n"
                 "        return self.x[i * self.bs:(i + 1) * self.bs]\n",
                 # the positions of each chunk, the starts walked through a name bound to the range
                 "import torch\ndef f(model, x, bs, dev):\n    batch_range = range(0, len(x), bs)\n"
                 "    for s in batch_range:\n        e = min(s + bs, len(x))\n"
                 "        model(torch.arange(s, e).to(dev))\n",
                 # pieces of one size handed to any computation (not only a model): the broad path
                 "import torch\nclass Attr:\n    def run(self, x: torch.Tensor, bs):\n        out = []\n"
                 "        for piece in torch.split(x, bs):\n            out.append(self._jacobian(piece))\n"
                 "        return out\n",
                 # the positions of each chunk made a tensor, the end clipped to a total the caller sets
                 "import torch\ndef slices(total, size, device):\n    for start in range(0, total, size):\n"
                 "        yield torch.arange(start=start, end=min(start + size, total), device=device)\n",
                 # a list of paths cut in batches, one clip loaded per path into a list joined into a tensor
                 "import torch\ndef augment(paths, bs, aug, device):\n    for i in range(0, len(paths), bs):\n"
                 "        batch = paths[i:i + bs]\n        clips = []\n        for p in batch:\n"
                 "            clips.append(torch.load(p))\n        yield aug(torch.vstack(clips).to(device))\n",
                 # samples generated in batches up to a count the caller sets: the last batch is smaller
                 "import torch\ndef generate(netG, num_samples, bs, dim):\n    for i in range(0, num_samples, bs):\n"
                 "        cur = min(bs, num_samples - i)\n        netG(torch.randn(cur, dim))\n",
                 "import torch\ndef generate(gen, rng, num_samples, bs, sample):\n"
                 "    for start in range(0, num_samples, bs):\n        end = min(start + bs, num_samples)\n"
                 "        sz = end - start\n        gen(sample(rng, (sz, gen.z_size)))\n",
                 # chunk idx of a count rounded up, filled item by item until the data ends
                 "import torch\ndef get_batches(pairs, bs):\n    n_batches = (len(pairs) + (bs - 1)) // bs\n"
                 "    for idx in range(n_batches):\n        x = []\n        for i in range(bs):\n"
                 "            index = idx * bs + i\n            if index >= len(pairs):\n                break\n"
                 "            x.append(pairs[index])\n        yield torch.tensor(x)\n",
                 # a chunk's end clipped to the loop's stop, a sample count the caller sets
                 "import torch\ndef ppl(model, lat, num_samples, bs):\n"
                 "    for begin in range(0, num_samples, bs):\n        end = min(begin + bs, num_samples)\n"
                 "        model(lat[begin:end])\n",
                 # frames cut in batches: the chunk's end follows the loop's position, clipped to the audio's length
                 "import torch\ndef frames(model, audio, bs, hop, win):\n    total = 1 + audio.size(1) // hop\n"
                 "    for i in range(0, total, bs):\n        start = i * hop\n"
                 "        end = min(audio.size(1), (i + bs - 1) * hop + win)\n        model(audio[:, start:end])\n",
                 # a prompt fed to the model in chunks from its front while tokens remain (RNN-mode prefill)
                 "import torch\ndef prefill(model, tokens, state, n=256):\n    while len(tokens) > 0:\n"
                 "        out, state = model.forward(tokens[:n], state)\n        tokens = tokens[n:]\n    return out\n",
                 # the chunk held in a ``slice`` object; an order drawn with ``choice(..., size=(n,))`` cut up to n
                 "import torch\ndef tiles(net, imgs, bs):\n    for j in range(0, imgs.shape[0], bs):\n"
                 "        bslc = slice(j, min(j + bs, imgs.shape[0]))\n        y = net(imgs[bslc])\n",
                 "import numpy as np\nimport torch\ndef fit(net, opt, data, n, n_epoch, probs, bs):\n"
                 "    if n != n_epoch:\n        perm = np.random.choice(np.arange(n), size=(n_epoch,), p=probs)\n"
                 "    else:\n        perm = np.random.permutation(np.arange(0, n))\n"
                 "    for k in range(0, n_epoch, bs):\n        kend = min(k + bs, n_epoch)\n        inds = perm[k:kend]\n"
                 "        net(torch.as_tensor(data[inds])).sum().backward()\n        opt.step()\n",
                 # minibatches of a shuffled order over n samples, up to n (a rollout buffer's samples)
                 "import numpy as np\nimport torch\nclass Buffer:\n    def get(self, bs):\n"
                 "        idx = np.random.permutation(self.size * self.n_envs)\n        start = 0\n"
                 "        while start < self.size * self.n_envs:\n"
                 "            yield self._samples(idx[start:start + bs])\n            start += bs\n",
                 "import torch\ndef batches(data, n, bs):\n    perm = torch.randperm(n)\n"
                 "    for start in range(0, n, bs):\n        yield data[perm[start:start + bs]]\n",
                 # a ``while`` loop that moves its own counter by the chunk (a replay buffer's minibatches)
                 "import numpy as np\nimport torch\ndef minibatches(policy, obs, bs):\n"
                 "    idx = np.random.permutation(len(obs))\n    start = 0\n    while start < len(obs):\n"
                 "        policy(torch.as_tensor(obs[idx[start:start + bs]]))\n        start += bs\n",
                 "import numpy as np\nimport torch\ndef slide(model, chunks: torch.Tensor, bs: int):\n"
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
                 # a progress bar bound by the project (``tqdm = get_tqdm()``) around shuffled chunk starts
                 "import random\nimport torch\nfrom .utils import get_tqdm\ntqdm = get_tqdm()\n"
                 "def train(model, opt, data, bs):\n    starts = list(range(0, len(data), bs))\n"
                 "    random.shuffle(starts)\n    for k, s in enumerate(tqdm(starts)):\n"
                 "        model(data[s:s + bs]).sum().backward()\n        opt.step()\n",
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
                 "        frames.append(self.enc(x[:, :, offset:offset + segment]))\n    return frames\n",
                 # a chunk helper's length: what is left after the offset, through a name bound to the data length
                 "import torch\nclass TensorChunk:\n    def __init__(self, tensor, offset, length):\n"
                 "        total_length = tensor.shape[-1]\n        self.length = min(total_length - offset, length)\n",
                 # pieces of one size fed to a model
                 "import torch\ndef run(model, x: torch.Tensor, bs):\n    outs = []\n    for piece in x.split(bs):\n"
                 "        outs.append(model(piece))\n    return outs\n",
                 "import torch\ndef run(self, x: torch.Tensor):\n"
                 "    return torch.cat([self.encoder(p) for p in torch.split(x, self.chunk_size)])\n",
                 # a sequence axis cut in chunks (audio samples along the last axis)
                 "import torch\ndef encode(self, wave: torch.Tensor):\n"
                 "    return [self.encoder(c) for c in torch.split(wave, self.chunk_size, dim=-1)]\n",
                 # chunk ``i`` of a count rounded up (through a name; a clipped end; ``(n + s - 1) // s``)
                 "import math\nimport torch\ndef predict(model, x, bs):\n    n_batches = math.ceil(len(x) / bs)\n"
                 "    for i in range(n_batches):\n        model(x[i * bs:(i + 1) * bs])\n",
                 "import torch\ndef predict(model, x, bs):\n    n = x.shape[0]\n    for i in range((n + bs - 1) // bs):\n"
                 "        end = min((i + 1) * bs, n)\n        model(x[i * bs:end])\n",
                 "import numpy as np\nimport torch\ndef predict(model, x, bs):\n"
                 "    return [model(x[bs * k:bs * (k + 1)]) for k in range(int(np.ceil(len(x) / bs)))]\n",
                 # the same through names (a tuple assigned whole), the count over the value the end is clipped to
                 "import math\nimport torch\ndef predict(model, x, bs):\n    n_batches = math.ceil(len(x) / bs)\n"
                 "    for k in range(n_batches):\n        start, end = k * bs, min(len(x), (k + 1) * bs)\n"
                 "        model(x[start:end])\n",
                 "import numpy as np\nimport torch\ndef predict(model, boxes, n_prompts, bs):\n"
                 "    n_batches = int(np.ceil(float(n_prompts) / bs))\n    for b in range(n_batches):\n"
                 "        lo = b * bs\n        hi = min((b + 1) * bs, n_prompts)\n        model(boxes[lo:hi])\n",
                 "import torch\ndef embed(model, x, total, bs):\n    n_batches = (total + bs - 1) // bs\n"
                 "    for b in range(n_batches):\n        start = b * bs\n        end = min(start + bs, total)\n"
                 "        model(x[start:end])\n",
                 # a list's chunks given to a model, through a dict the loop builds; pieces bound to a name first
                 "import torch\ndef infer(model, items, bs):\n    out = []\n    for start in range(0, len(items), bs):\n"
                 "        end = min(len(items), start + bs)\n        chunk = items[start:end]\n"
                 "        batch = {'data_in': chunk}\n        with torch.no_grad():\n"
                 "            out.extend(model.inference(**batch))\n    return out\n",
                 "import torch\ndef run(self, x: torch.Tensor, bs):\n    pieces = torch.split(x, bs)\n    outs = []\n"
                 "    for p in pieces:\n        outs.append(self.encoder(p))\n    return torch.cat(outs)\n",
                 # the batches a project's loader serves; a library batcher's lists given to a model
                 "import torch\nclass Loader:\n    def __init__(self, data, batch_size):\n"
                 "        self.data = [data[i:i + batch_size] for i in range(0, len(data), batch_size)]\n"
                 "    def __len__(self):\n        return len(self.data)\n"
                 "    def __getitem__(self, k):\n        return torch.tensor(self.data[k])\n",
                 # a library batcher of tensors (rule_tables/library_batchers.tsv); batches made tensors and yielded
                 "import torch\nimport delu\ndef enc(self, x: torch.Tensor):\n"
                 "    return torch.cat([self.encoder(c) for c in delu.iter_batches(x, self.bs)])\n",
                 "import numpy as np\nimport torch\nfrom more_itertools import chunked\ndef sample(histories, bs):\n"
                 "    for batch in chunked(histories, bs):\n        ids = np.zeros(len(batch))\n"
                 "        yield torch.LongTensor(ids)\n",
                 # the library kept on the class by a lazy import of an optional dependency
                 "import torch\nclass TabR(torch.nn.Module):\n    delu = None\n    def __init__(self):\n"
                 "        super().__init__()\n        if TabR.delu is None:\n            import delu\n"
                 "            TabR.delu = delu\n    def forward(self, x, cands):\n"
                 "        return torch.cat([self.encoder(c) for c in TabR.delu.iter_batches(cands, self.bs)])\n",
                 # the chunk's positions as a range handed to the data (a datasets ``select``)
                 "import torch\nfrom transformers import PreTrainedModel\nclass Tagger(PreTrainedModel):\n"
                 "    def predict(self, dataset, bs):\n        for start in range(0, len(dataset), bs):\n"
                 "            batch = dataset.select(range(start, min(len(dataset), start + bs)))\n"
                 "            batch = {k: v.to(self.device) for k, v in self.collate(batch).items()}\n"
                 "            out = self(**batch)\n",
                 # the file's own generator taking batches with islice until the iterator runs out
                 "import torch\nfrom itertools import islice\ndef get_batches(items, bs=1000):\n    it = iter(items)\n"
                 "    while True:\n        batch = list(islice(it, 0, bs))\n        if batch:\n            yield batch\n"
                 "        else:\n            break\ndef train(model, data, users, bs):\n"
                 "    for users in get_batches(users, bs):\n        model(torch.as_tensor(data[users]))\n",
                 # a list of chunks that a later loop stacks and gives to a model
                 "import torch\ndef upscale(net, tiles, bs):\n    n = len(tiles)\n"
                 "    batches = [tiles[i:i + bs] for i in range(0, n, bs)]\n    for batch in batches:\n"
                 "        x = torch.stack(batch).to('npu')\n        net(x)\n",
                 "import torch\nfrom more_itertools import chunked\ndef embed(model, texts, bs):\n    out = []\n"
                 "    for batch in chunked(texts, bs):\n        ids = torch.stack([encode(t) for t in batch])\n"
                 "        out.append(model(ids))\n    return out\n",
                 "import torch\ndef batch(items, bs=1):\n    n = len(items)\n    for i in range(0, n, bs):\n"
                 "        yield items[i:min(i + bs, n)]\n"
                 "def embed(model, crops, k):\n    for chunk in batch(crops, bs=k):\n"
                 "        x = torch.stack(chunk, 0)\n        model(x)\n",
                 # shuffled chunk starts; the bptt tail of a batch-first sequence
                 "import random\nimport torch\ndef train(model, data, bs):\n    starts = list(range(0, len(data), bs))\n"
                 "    random.shuffle(starts)\n    for s in starts:\n        model(data[s:s + bs]).backward()\n",
                 "import torch\ndef get_batch(source, i, seq_len):\n"
                 "    seq_len = min(seq_len, source.size(1) - 1 - i)\n    return source[:, i:i + seq_len]\n",
                 # pieces cut in a comprehension, then each given to a model
                 "import torch\ndef run(model, wav: torch.Tensor, seg):\n"
                 "    segs = [wav[i:i + seg] for i in range(0, len(wav), seg)]\n    return [model(s) for s in segs]\n",
                 "def embed(model, texts, bs):\n    import torch\n"
                 "    batches = [texts[i:i + bs] for i in range(0, len(texts), bs)]\n"
                 "    out = []\n    for b in batches:\n        out.append(model.encode(b))\n    return out\n",
                 # the chunk length chosen by a test (the AWD-LSTM get_batch); a counter moved to the clipped end
                 "import torch\ndef get_batch(source, i, args, seq_len=None):\n"
                 "    seq_len = min(seq_len if seq_len else args.bptt, len(source) - 1 - i)\n"
                 "    return source[i:i + seq_len]\n",
                 "import torch\ndef infer(model, wav: torch.Tensor, seg):\n    n = wav.shape[-1]\n    start = 0\n"
                 "    while start < n:\n        end = min(start + seg, n)\n        model(wav[..., start:end])\n"
                 "        start = end\n",
                 "import numpy as np\nimport torch\ndef predict(model, x, n):\n"
                 "    return torch.cat([model(torch.from_numpy(p)) for p in np.array_split(x, n)])\n",
                 "import torch\nfrom itertools import islice\ndef batches(items, bs):\n    it = iter(items)\n"
                 "    while True:\n        batch = list(islice(it, bs))\n        if not batch:\n            break\n"
                 "        yield torch.stack(batch)\n",
                 # the remainder of a batch filled item by item, by count or by a token budget
                 "import torch\ndef batches(items, bs):\n    batch = []\n    for x in items:\n        batch.append(x)\n"
                 "        if len(batch) == bs:\n            yield torch.stack(batch)\n            batch = []\n"
                 "    if batch:\n        yield torch.stack(batch)\n",
                 "import torch\ndef budget(items, max_tokens):\n    out, cur, n = [], [], 0\n    for x in items:\n"
                 "        if n + len(x) > max_tokens:\n            out.append(cur)\n            cur, n = [], 0\n"
                 "        cur.append(x)\n        n += len(x)\n    if len(cur) > 0:\n        out.append(cur)\n"
                 "    return out\n")
    must_fire += (
        # the size of each batch, the count left clipped at the step, handed to a sampler (not the loop's stop)
        "import math\nimport torch\nfrom tqdm.auto import trange\ndef features(sample_fn, n, nproc, bs):\n"
        "    feats = []\n    for i in trange(0, math.ceil(n / nproc), bs, disable=False):\n"
        "        cur = min(n - i, bs)\n        feats.append(sample_fn(cur)[:cur])\n    return torch.cat(feats)\n",
        # group sizes with the remainder last, each handed to a sampler through map(lambda ...)
        "import torch\ndef num_to_groups(num, divisor):\n    groups = num // divisor\n"
        "    arr = [divisor] * groups\n    if num % divisor > 0:\n        arr.append(num % divisor)\n    return arr\n"
        "def sample(model, n, bs):\n    batches = num_to_groups(n, bs)\n"
        "    return torch.cat(list(map(lambda b: model.sample(batch_size=b), batches)))\n",
        # chunk b of a count rounded up, cut from *args by the file's generator, handed to a method
        "import torch\ndef batch_iterator(batch_size, *args):\n"
        "    n_batches = len(args[0]) // batch_size + int(len(args[0]) % batch_size != 0)\n"
        "    for b in range(n_batches):\n        yield [arg[b * batch_size:(b + 1) * batch_size] for arg in args]\n"
        "class Gen:\n    def run(self, pts):\n        for (points,) in batch_iterator(self.bs, pts):\n"
        "            self._process_batch(points)\n",
        # a webdataset batching stage keeping its partial last batch in evaluation
        "import torch\nimport webdataset as wds\ndef pipe(bs, is_train):\n"
        "    return wds.DataPipeline(wds.to_tuple('jpg', 'txt'), wds.batched(bs, partial=not is_train))\n",
        "import torch\nimport webdataset as wds\ndef pipe(urls, bs):\n"
        "    return wds.WebDataset(urls).decode('pil').to_tuple('jpg', 'cls').batched(bs)\n")
    must_fire += (  # session 20 (natural20b): a count of chunks rounded up from the batch (TabNet's ghost batch norm)
        "import numpy as np\nimport torch\nclass GBN(torch.nn.Module):\n    def __init__(self, d, vbs):\n"
        "        super().__init__()\n        self.vbs = vbs\n        self.bn = torch.nn.BatchNorm1d(d)\n"
        "    def forward(self, x):\n        chunks = x.chunk(int(np.ceil(x.shape[0] / self.vbs)), 0)\n"
        "        return torch.cat([self.bn(c) for c in chunks], dim=0)\n",)
    must_fire += (  # session 24 (growth24): pieces side by side through zip (under enumerate), and a size written
        # as a constant expression on a receiver of unknown kind (a ``.split`` given an int is no str's)
        "import torch\ndef micro(ids: torch.Tensor, mask: torch.Tensor, mbs: int, model):\n"
        "    for i, (a, m) in enumerate(zip(torch.split(ids, mbs), torch.split(mask, mbs))):\n"
        "        model(a, m)\n",
        "import torch\ndef compress(self, embs):\n    out = []\n    for batch in embs.split(1 << 18):\n"
        "        out.append(self.encode(batch))\n    return torch.cat(out)\n",
        # the ``chunks`` recipe (first item from the loop, the rest from islice of the same iterator), a batch given
        # whole to a tokenizer through a comprehension
        "import torch\nfrom itertools import chain, islice\ndef chunks(iterable, n):\n    it = iter(iterable)\n"
        "    for first in it:\n        yield list(chain([first], islice(it, n - 1)))\n"
        "def encode(tok, model, texts, bs):\n    for batch in chunks(texts, bs):\n"
        "        model(**tok([t.text for t in batch], return_tensors='pt'))\n")
    must_fire += (  # session 26 (loops26): torch.split names its tensor itself (a parameter of unknown kind); a
        # method split given a setting holding an integer; a class's __iter__ (a sampler, a batch iterator) yielding chunks
        "import torch\ndef predict(model, inputs, batch_size):\n    outs = []\n"
        "    for batch in torch.split(inputs, batch_size):\n        outs.append(model(batch))\n    return outs\n",
        "import torch\ndef predict(model, inputs, batch_size=32):\n"
        "    return [model(b) for b in inputs.split(batch_size)]\n",
        "import torch\nfrom torch.utils.data import Sampler\nclass Chunks(Sampler):\n    def __iter__(self):\n"
        "        idx = torch.randperm(len(self.data)).tolist()\n"
        "        for i in range(0, len(idx), self.bs):\n            yield idx[i:i + self.bs]\n",
        "import torch\nclass BatchIterator:\n    def __iter__(self):\n"
        "        order = torch.randperm(len(self.data)).tolist()\n        for i in range(0, len(order), self.bs):\n"
        "            yield self.collate([self.data[j] for j in order[i:i + self.bs]])\n",)
    must_fire += (  # session 27 (recall27b): a batch iterator's order chosen between a shuffle and the plain order
                  "import numpy as np\nimport torch\nclass DataGenerator:\n    def __init__(self, data, batch_size, shuffle=True):\n"
                  "        self.data, self.batch_size, self.shuffle = data, batch_size, shuffle\n"
                  "        self.n = len(data['user'])\n    def __iter__(self):\n"
                  "        idx = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)\n"
                  "        for i in range(0, self.n, self.batch_size):\n            batch_idx = idx[i:i + self.batch_size]\n"
                  "            yield {k: torch.from_numpy(v[batch_idx]) for k, v in self.data.items()}\n",)
    must_not_fire = (  # ... not a str.split by a separator setting, nor a generator function of lists never made tensors
        "import torch\ndef parse(model, line, sep=','):\n    return [model(p) for p in line.split(sep)]\n",
        "import torch\ndef chunks(data, bs):\n        idx = torch.randperm(len(data)).tolist()\n"
        "        for i in range(0, len(idx), bs):\n            yield idx[i:i + bs]\n",)
    must_fire += (  # session 27 (recall27b): a batch generator moving two bounds by the batch size, the rest
                    # yielded after its loop
                  "import random\nimport torch\ndef get_batch(data: list, batch_size: int, shuffle: bool = False):\n"
                  "    if shuffle:\n        random.shuffle(data)\n    sindex = 0\n    eindex = batch_size\n"
                  "    while eindex < len(data):\n        batch = data[sindex:eindex]\n        temp = eindex\n"
                  "        eindex = eindex + batch_size\n        sindex = temp\n        yield batch\n"
                  "    if eindex >= len(data):\n        batch = data[sindex:]\n        yield batch\n",)
    must_not_fire += (  # the rest of a text split at separators the data places (no fixed step)
                      "import torch\ndef split_words(text):\n    start = 0\n    for i, ch in enumerate(text):\n"
                      "        if ch == ' ':\n            yield text[start:i]\n            start = i + 1\n"
                      "    yield text[start:]\n",)
    must_not_fire += (  # session 27 (recall27b): the plain order cut in whole batches only (the tail never served)
                      "import numpy as np\nimport torch\nclass Gen:\n    def __iter__(self):\n        idx = np.arange(self.n)\n"
                      "        for i in range(0, self.n - self.batch_size + 1, self.batch_size):\n"
                      "            yield torch.from_numpy(self.data[idx[i:i + self.batch_size]])\n",)
    must_not_fire += (# an iterator stopping at a count of whole batches (its tail never served); pieces only counted
                     "import torch\ndef words(self, line):\n    for w in line.split(None, 1):\n        self.add(w)\n"
                     "    for a, b in zip(line.split(','), line.split(';')):\n        self.pair(a, b)\n",
                     "import torch\ndef halves(self, embs):\n    for piece in embs.split(2 ** 0):\n"
                     "        self.encode(piece)\n",
                     # groups of batches from the recipe, each batch walked on its own (no tensor of the count)
                     "import torch\nfrom itertools import chain, islice\ndef chunks(iterable, n):\n    it = iter(iterable)\n"
                     "    for first in it:\n        yield list(chain([first], islice(it, n - 1)))\n"
                     "def run(model, batches, k):\n    for group in chunks(batches, k):\n        count = len(group)\n"
                     "        states = (dict(x=b) for b in group)\n        for st in states:\n            model(st['x'])\n",
                     # session 24 (tails24): each chunk padded back to the window's length in the loop
                     "import torch\nimport torch.nn.functional as F\ndef enc(model, audio, n, hop):\n"
                     "    for i in range(0, audio.shape[-1], hop):\n        x = audio[..., i:i + n]\n"
                     "        x = F.pad(x, (0, n - x.shape[-1]))\n        model(x)\n",
                     # session 24: windows moved by a hop of their own over a host buffer: no torch call sized
                     "import torch\ndef scan(buf, size, window, stride, probe):\n"
                     "    for offset in range(0, size, stride):\n        length = min(window, size - offset)\n"
                     "        pages = (length + 4095) // 4096\n        probe(buf, offset, length)\n"
                     "        buf[:pages]\n",
                     # session 24: a loop by one is no chunking; a helper given a fixed start; parts of another count
                     "import torch\ndef look(model, n, w):\n    for i in range(0, n, 1):\n"
                     "        k = min(n - i, w)\n        model(torch.zeros(k))\n",
                     "import torch\nclass Chunk:\n    def __init__(self, tensor, offset=0, length=None):\n"
                     "        self.length = min(tensor.shape[-1] - offset, length)\n"
                     "def apply(model, mixes, seg):\n    for i in range(0, len(mixes), 4):\n"
                     "        model(Chunk(mixes[i], 0, seg))\n",
                     "import torch\ndef parts(x: torch.Tensor, k, m, f):\n    n = x.shape[0]\n"
                     "    for i in range(k):\n        f(x[round(i * n / m):round((i + 1) * n / m)])\n",
                     "import torch\nclass It:\n    def __init__(self, x, bs):\n        self.x, self.bs = x, bs\n"
                     "        self.n_batches = len(x) // bs\n        self.current = 0\n    def __next__(self):\n"
                     "        if self.current >= self.n_batches:\n            raise StopIteration\n"
                     "        i = self.current\n        self.current += 1\n"
                     "        return self.x[i * self.bs:(i + 1) * self.bs]\n",
                     "import torch\ndef sizes(x: torch.Tensor, bs):\n    return [len(p) for p in torch.split(x, bs)]\n",

        # a count left clipped at the step that only divides or counts (gradient accumulation's last group)
        "import torch\ndef accum(model, n, every):\n    for start in range(0, n, every):\n"
        "        k = min(n - start, every)\n        for j in range(k):\n            print(j)\n"
        "        loss = model(start) / k\n",
        # chunks of a model dimension, a fixed count of halves
        "import torch\nclass Gate(torch.nn.Module):\n    def forward(self, x):\n"
        "        a, b = x.chunk(2, dim=-1)\n        return self.proj(a) * b\n"
        "    def heads(self, x):\n        return [self.proj(h) for h in x.chunk(self.n_heads)]\n",
        # groups of a helper that keeps no remainder; sizes only printed
        "import torch\ndef groups(num, divisor):\n    return [divisor] * (num // divisor)\n"
        "def sample(model, n, bs):\n    for b in groups(n, bs):\n        model.sample(batch_size=b)\n",
        "import torch\ndef num_to_groups(num, divisor):\n    arr = [divisor] * (num // divisor)\n"
        "    arr.append(num % divisor)\n    return arr\ndef report(n, bs):\n    for b in num_to_groups(n, bs):\n"
        "        print(b)\n",
        # a count of batches rounded down: the generator drops the tail
        "import torch\ndef batch_iterator(batch_size, *args):\n    n_batches = len(args[0]) // batch_size\n"
        "    for b in range(n_batches):\n        yield [arg[b * batch_size:(b + 1) * batch_size] for arg in args]\n"
        "class Gen:\n    def run(self, pts):\n        for (points,) in batch_iterator(self.bs, pts):\n"
        "            self._process_batch(points)\n",
        # a webdataset stage told to drop the partial batch; another library's batched method
        "import torch\nimport webdataset as wds\ndef pipe(bs):\n"
        "    return wds.DataPipeline(wds.to_tuple('jpg', 'txt'), wds.batched(bs, partial=False))\n",
        "import torch\nimport webdataset as wds\ndef pipe(urls, bs):\n"
        "    return wds.WebDataset(urls).decode('pil').batched(bs, partial=False)\n",
        "import torch\ndef pipe(ds, bs):\n    return ds.map(f).batched(bs)\n",
        # positions clipped at a constant total (its tail is known), or not clipped to the loop's stop
        "import torch\ndef slices(size):\n    for start in range(0, 1024, size):\n"
        "        yield torch.arange(start, min(start + size, 1024))\n",
        "import torch\ndef windows(total, size, width):\n    for start in range(0, total, size):\n"
        "        yield torch.arange(start, start + width)\n","import torch\ndef run(x, bs):\n    for i in range(0, x.size(0) - bs, bs):\n        y = x[i:i + bs]\n",
                     # a pre-tokenizing pass asking for Python lists (``return_tensors=None``): no tensor, no shape
                     "import torch\nclass Reranker:\n    def pre(self, pairs, bs):\n"
                     "        assert isinstance(pairs, list)\n        out = []\n"
                     "        for i in range(0, len(pairs), bs):\n            chunk = pairs[i:i + bs]\n"
                     "            queries = [p[0] for p in chunk]\n"
                     "            out.extend(self.tokenizer(queries, return_tensors=None)['input_ids'])\n"
                     "        return out\n",
                     # one tensor per path of the chunk, each saved alone: the chunk's length makes no shape
                     "import torch\nimport numpy as np\ndef convert(paths, bs):\n    for i in range(0, len(paths), bs):\n"
                     "        batch = paths[i:i + bs]\n        for p in batch:\n"
                     "            torch.save(torch.from_numpy(np.load(p)), p + '.pt')\n",
                     # the loop leaves before cutting a short last chunk
                     "import torch\ndef run(model, x, bs):\n    for i in range(0, len(x), bs):\n"
                     "        if len(x) - i < bs:\n            break\n        model(torch.stack(x[i:i + bs]))\n",
                     # a batch size clipped to a constant count; a size not clipped at the loop's stop
                     "import torch\ndef generate(netG, bs, dim):\n    for i in range(0, 1024, bs):\n"
                     "        cur = min(bs, 1024 - i)\n        netG(torch.randn(cur, dim))\n",
                     "import torch\ndef generate(netG, num_samples, bs, dim, m):\n    for i in range(0, num_samples, bs):\n"
                     "        cur = min(bs, m - i)\n        netG(torch.randn(cur, dim))\n",
                     # filled item by item in a count rounded down (the tail dropped); items never made a tensor
                     "import torch\ndef get_batches(pairs, bs):\n    for idx in range(len(pairs) // bs):\n"
                     "        x = []\n        for i in range(bs):\n            index = idx * bs + i\n"
                     "            if index >= len(pairs):\n                break\n            x.append(pairs[index])\n"
                     "        yield torch.tensor(x)\n",
                     "import torch\ndef get_batches(pairs, bs):\n    for idx in range((len(pairs) + bs - 1) // bs):\n"
                     "        x = []\n        for i in range(bs):\n            index = idx * bs + i\n"
                     "            if index >= len(pairs):\n                break\n            x.append(pairs[index])\n"
                     "        yield x\n",
                     # clipped to another bound than the loop's stop; a constant stop
                     "import torch\ndef run(model, lat, n, m, bs):\n    for b in range(0, n, bs):\n"
                     "        e = min(b + bs, m)\n        model(lat[b:e])\n",
                     "import torch\ndef run(model, lat, bs):\n    for b in range(0, 512, bs):\n"
                     "        e = min(b + bs, 512)\n        model(lat[b:e])\n",
                     # clipped to the length of other data; a loop over a constant count
                     "import torch\ndef frames(model, audio, ref, bs, hop, win):\n    total = 1 + audio.size(1) // hop\n"
                     "    for i in range(0, total, bs):\n        start = i * hop\n"
                     "        end = min(ref.size(1), (i + bs - 1) * hop + win)\n        model(audio[:, start:end])\n",
                     "import torch\ndef frames(model, audio, bs, hop, win):\n    for i in range(0, 64, bs):\n"
                     "        start = i * hop\n        end = min(audio.size(1), (i + bs - 1) * hop + win)\n"
                     "        model(audio[:, start:end])\n",
                     # a list consumed from its front by a call that runs no model; one token at a time
                     "import torch\ndef show(items, n):\n    while items:\n        print(items[:n])\n"
                     "        items = items[n:]\n",
                     "import torch\ndef feed(model, tokens, state):\n    while len(tokens) > 0:\n"
                     "        out, state = model(tokens[:1], state)\n        tokens = tokens[1:]\n",
                     # a ``slice`` of whole windows only
                     "import torch\ndef tiles(net, imgs, bs):\n    for j in range(0, imgs.shape[0] - bs, bs):\n"
                     "        sl = slice(j, j + bs)\n        y = net(imgs[sl])\n",
                     # an order over another count than the stop; whole chunks of the order only
                     "import torch\ndef batches(data, n, m, bs):\n    perm = torch.randperm(m)\n"
                     "    for start in range(0, n, bs):\n        yield data[perm[start:start + bs]]\n",
                     "import torch\ndef batches(data, n, bs):\n    perm = torch.randperm(n)\n"
                     "    for start in range(0, n - bs + 1, bs):\n        yield data[perm[start:start + bs]]\n",
                     # a ``while`` counter that stops before the tail, or moves by another step than the chunk's
                     "import torch\ndef run(model, x, bs):\n    n = len(x)\n    start = 0\n    while start < n - bs:\n"
                     "        model(x[start:start + bs])\n        start += bs\n",
                     "import torch\ndef run(model, x, bs):\n    start = 0\n    while start < len(x):\n"
                     "        model(x[start:start + bs])\n        start += 1\n",
                     "import torch\nn = min(a, b)\n",
                     "import torch\nnum_neg = min(num_pos * 3, losses.numel() - num_pos)\n",
                     "import torch\nn = min(max_new, self.min_length - ids.shape[-1])\n",
                     # what is left after a kernel offset, up to the whole length: windows of one call's input
                     "import torch\ndef pool(h: torch.Tensor, out, k0):\n    nd = h.shape[1]\n"
                     "    for d in range(-k0, k0 + 1):\n        mv = out[:, max(-d, 0):min(nd - d, nd)]\n"
                     "        torch.maximum(mv, h, out=mv)\n",
                     # the last group of gradient accumulation: a divisor and a count, no size
                     "import torch\ndef train(model, loader, opt, every):\n    n = len(loader)\n    start = 0\n"
                     "    k = min(n - start, every)\n    for i, batch in enumerate(loader):\n"
                     "        (model(batch) / k).backward()\n        if i - start + 1 == k:\n"
                     "            opt.step()\n            start = i + 1\n            k = min(n - start, every)\n",
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
                     "import torch\ndef write(items, bs, out):\n    for i in range(0, len(items), bs):\n"
                     "        batch = {'rows': items[i:i + bs]}\n        out.write_rows(**batch)\n",
                     # chunks in a class that serves nothing; a batcher that refuses a short tail, or feeds no model
                     "import torch\nclass Writer:\n    def shards(self, rows, n):\n"
                     "        return [rows[i:i + n] for i in range(0, len(rows), n)]\n",
                     "import torch\nfrom more_itertools import chunked\ndef embed(model, xs, bs):\n"
                     "    return [model(torch.stack(b)) for b in chunked(xs, bs, strict=True)]\n",
                     # a range over the positions of one chunk walked item by item; a range of a fixed count
                     "import torch\ndef run(model, xs, bs):\n    for i in range(0, len(xs), bs):\n"
                     "        for j in range(i, min(i + bs, len(xs))):\n            model(xs[j])\n",
                     "import torch\ndef run(model, ds, bs):\n    for i in range(0, 1024, bs):\n"
                     "        model(torch.stack([ds[k] for k in range(i, i + bs)]))\n",
                     # the library drops the short tail (drop_last=True); batches of names only printed
                     "import torch\nimport delu\ndef enc(self, x: torch.Tensor):\n"
                     "    return torch.cat([self.encoder(c) for c in delu.iter_batches(x, self.bs, drop_last=True)])\n",
                     "import torch\nfrom more_itertools import chunked\ndef show(names, bs):\n"
                     "    for group in chunked(names, bs):\n        print(group, torch.cuda.is_available())\n",
                     # the file's own batcher at its default size of one; a generator of windows, not chunks
                     "import torch\ndef batch(items, bs=1):\n    for i in range(0, len(items), bs):\n"
                     "        yield items[i:i + bs]\ndef embed(model, crops):\n    for chunk in batch(crops):\n"
                     "        model(torch.stack(chunk))\n",
                     "import torch\ndef windows(items, w, step):\n    for i in range(0, len(items), step):\n"
                     "        yield items[i:i + w]\ndef embed(model, xs, k):\n    for c in windows(xs, 8, k):\n"
                     "        model(torch.stack(c))\n",
                     "import torch\nfrom itertools import batched\ndef dump(rows, bs, out):\n"
                     "    for b in batched(rows, bs):\n        out.write(b)\n",
                     "import torch\ndef heads(model, x: torch.Tensor):\n"
                     "    return [model(p) for p in torch.tensor_split(x, [2, 5])]\n",
                     "import torch\nfrom itertools import islice\ndef head(items, n):\n"
                     "    return list(islice(items, n))\n",
                     # windows that all fit: the starts stop at the last whole window, through a name
                     "import torch\ndef conv(self, x: torch.Tensor, k, stride):\n"
                     "    windows = range(0, x.size(2) - k + 1, stride)\n"
                     "    return torch.cat([self.net(x[:, :, i:i + k]) for i in windows], dim=2)\n",
                     # sentences cut at a label of the data; a buffer written out, not emitted
                     "import torch\ndef sentences(units, labels, out):\n    cur = []\n    for u, l in zip(units, labels):\n"
                     "        cur.append(u)\n        if l == 2:\n            out.append(cur)\n            cur = []\n"
                     "    if cur:\n        out.append(cur)\n",
                     "import torch\ndef dump(lines, f):\n    buf = []\n    for l in lines:\n        buf.append(l)\n"
                     "        if len(buf) > 100:\n            f.write(''.join(buf))\n            buf = []\n"
                     "    if buf:\n        f.write(''.join(buf))\n",
                     # pieces of a sequence collected in a list, nothing computed on each
                     "import torch\ndef segment(a, n):\n    return [a[i:i + n] for i in range(0, len(a), n)]\n",
                     # the enumerate counter is no chunk start; whole chunks through a progress bar
                     "import torch\ndef enc(model, emb, bs, starts):\n    for start, _ in enumerate(range(0, len(emb), bs)):\n"
                     "        model(emb[start:start + bs])\n",
                     "import torch\nfrom tqdm import tqdm\ndef enc(model, emb, bs):\n"
                     "    for start in tqdm(range(0, len(emb) - bs, bs)):\n        model(emb[start:start + bs])\n",
                     # text split; pieces of one; pieces only collected; sizes per sample (NPU410); no data length
                     "import torch\ndef run(model, line):\n    for p in line.split(','):\n        model(p)\n",
                     "import torch\ndef run(model, x: torch.Tensor):\n    for p in x.split(1):\n        model(p)\n",
                     "import torch\ndef heads(self, x: torch.Tensor):\n    for h in x.split(self.head_dim, dim=-1):\n"
                     "        self.net(h)\n",
                     "import torch\ndef run(x: torch.Tensor, bs):\n    outs = []\n    for p in x.split(bs):\n"
                     "        outs.append(p)\n",
                     "import torch\ndef run(model, x: torch.Tensor, sizes):\n    for p in x.split([3, 4]):\n"
                     "        model(p)\n",
                     "import torch\ndef f(total, offset, length):\n    return min(total - offset, length)\n",
                     # pieces cut in a comprehension only collected or printed, never computed on
                     "import torch\ndef run(wav: torch.Tensor, seg):\n"
                     "    segs = [wav[i:i + seg] for i in range(0, len(wav), seg)]\n"
                     "    for s in segs:\n        print(s.shape)\n    return segs\n",
                     # a counter moved to the clipped end over a fixed length; a chunk length picked from a list
                     "import torch\ndef infer(model, wav: torch.Tensor, seg):\n    start = 0\n"
                     "    while start < 16000:\n        end = min(start + seg, 16000)\n"
                     "        model(wav[..., start:end])\n        start = end\n",
                     "import torch\ndef get_batch(source, i, lens):\n"
                     "    seq_len = min(lens[0], len(source) - 1 - i)\n    return source[i:i + seq_len]\n",
                     # the short length only bounds a prefix written into a buffer of fixed size
                     "import torch\ndef f(ids, start, block):\n    n = ids.shape[1]\n    mask = torch.zeros(block)\n"
                     "    end = min(n - start, block)\n    mask[:end] = 1\n    return mask\n",
                     # chunks (channel groups); the split of stacked batches by the batch size read from the data
                     "import torch\ndef run(self, x: torch.Tensor):\n"
                     "    return torch.cat([self.blocks[i](p) for i, p in enumerate(torch.chunk(x, self.scale, 1))])\n",
                     "import torch\ndef run(self, x: torch.Tensor, h: torch.Tensor):\n    batch_size = x.shape[0]\n"
                     "    for i, p in enumerate(h.split(batch_size)):\n        self.proj[i](p)\n",
                     # a count rounded down drops the tail; a count not from the data; a chunk of another length
                     "import torch\ndef train(model, x, bs):\n    for i in range(len(x) // bs):\n"
                     "        model(x[i * bs:(i + 1) * bs])\n",
                     "import math\nimport torch\ndef run(model, x, bs, steps):\n    for i in range(steps):\n"
                     "        model(x[i * bs:(i + 1) * bs])\n",
                     "import math\nimport torch\ndef run(model, x, bs):\n    for i in range(math.ceil(len(x) / bs)):\n"
                     "        model(x[i * bs:i * bs + 4])\n",
                     # through names: a count rounded down, and a count of another value than the clip's
                     "import torch\ndef predict(model, x, n, bs):\n    for b in range(n // bs):\n"
                     "        lo, hi = b * bs, min((b + 1) * bs, n)\n        model(x[lo:hi])\n",
                     "import math\nimport torch\ndef predict(model, x, n, m, bs):\n    for b in range(math.ceil(m / bs)):\n"
                     "        lo, hi = b * bs, min((b + 1) * bs, n)\n        model(x[lo:hi])\n",
                     "import torch\ndef embed(model, x, total, bs):\n    for b in range(total // bs):\n"
                     "        start = b * bs\n        end = min(start + bs, total)\n        model(x[start:end])\n",
                     # a sample's lists re-cut through names, never computed on in the loop
                     "import math\nimport torch\ndef spread(sample, space, out):\n"
                     "    for i in range(math.ceil(len(sample['ids']) / space)):\n"
                     "        start = i * space\n        end = (i + 1) * space\n        copy = dict(sample)\n"
                     "        copy['ids'] = sample['ids'][start:end]\n        out.append(copy)\n")

    def check(self, node: object, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if isinstance(node, ast.If):
            found = remainder_batch(node, ctx)
            if found is not None:
                what = f"the partial {found[0]} emitted after the loop at line {found[1].lineno}"
                at = next((s for s in node.body if emits([s], found[0])), node)   # the statement emitting it
                ctx.report(at, self.message.format(what=what), "if batch: yield batch")
                return
            made = filled_chunk(node, ctx)
            if made is not None:
                what = (f"{short_source(made, 30)} (a batch filled item by item until {short_source(node.test, 30)}, "
                        "in a count of batches rounded up)")
                ctx.report(made, self.message.format(what=what), "x[i * bs:(i + 1) * bs]")
            return
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "min" and len(node.args) == 2 \
                    and not node.keywords and any((self._tail(arg) or (_bound_tail(arg, ctx)
                                                                        and not _writes_prefix(node, ctx)))
                                                  and _chunk_length(other)
                                                  and not _whole_length(arg, other)
                                                  for arg, other in (node.args, node.args[::-1])) \
                    and not _scalar_only(node, ctx):
                ctx.report(node, self.message.format(what=f"{short_source(node)} cuts the last chunk short"), "min")
                loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
                if isinstance(loop, (ast.For, ast.While)):   # the loop's chunk is named: no second finding in it
                    ctx.scratch.setdefault("short_chunk_loops", set()).add(id(loop))
            elif isinstance(node.func, ast.Attribute) and node.func.attr in ("split", "chunk"):
                self._pieces(node, ctx)
            else:
                self._remaining(node, ctx)
                self._sized(node, ctx)
                self._batched(node, ctx)
                self._index_range(node, ctx)
                self._helper_chunk(node, ctx)
            return
        assert isinstance(node, ast.Subscript)
        rest = remainder_slice(node, ctx)
        if rest is not None:   # ``yield data[start:]`` after a loop yielding ``data[start:end]`` in fixed steps
            what = f"{short_source(node, 30)}, the rest emitted after the loop at line {rest.lineno}"
            ctx.report(node, self.message.format(what=what), "yield data[start:]")
            return
        bounds = node.slice
        at: ast.AST = node   # where the chunk is cut: the subscript, or the ``slice(...)`` it reads
        if isinstance(bounds, ast.Name):   # ``bslc = slice(j, min(j + bs, n))``, then ``x[bslc]``: the same chunk
            found_slice = _bound_slice(bounds, ctx)
            if found_slice is not None:
                bounds, at = found_slice
        elif self._consumed_prefix(node, ctx):
            return
        if isinstance(node.ctx, ast.Load) and self._parts(node, ctx):
            return
        if isinstance(bounds, ast.Tuple):   # ``x[:, :, offset:offset + segment]``: a chunk along another axis
            bounds = next((b for b in bounds.elts if isinstance(b, ast.Slice)
                           and isinstance(b.lower, (ast.Name, ast.BinOp))), None)
        if isinstance(bounds, ast.Slice) and bounds.upper is not None and isinstance(node.ctx, ast.Load) \
                and isinstance(bounds.lower, ast.BinOp):
            self._counted(node, bounds, ctx)
            return
        if isinstance(bounds, ast.Slice) and bounds.upper is not None and isinstance(node.ctx, ast.Load) \
                and isinstance(bounds.lower, ast.Name) and scaled(bound_element(bounds.lower, ctx) or bounds.lower):
            self._counted(node, bounds, ctx)   # ``start = i * bs``, ``x[start:end]``: chunk ``i`` through names
        if not isinstance(bounds, ast.Slice) or not isinstance(bounds.lower, ast.Name) or bounds.upper is None \
                or not isinstance(node.ctx, ast.Load):
            return
        index = bounds.lower.id
        step = chunk_step(bounds.upper, index, ctx)
        found = self._range_loop(node, index, ctx) if step is not None else None
        if step is None:
            self._clipped(node, bounds, ctx)
            return
        if found is not None:
            stop, loop_step, loop = found[0].args[1], found[0].args[2], found[1]
        else:   # ``while start < n: ... start += bs``
            counter = while_counter(node, index, ctx)
            if counter is None:
                return
            stop, loop_step, loop = counter
        if not same_or_variable(loop_step, step) or not (data_length(stop, ctx)
                                                         or permuted_length(node.value, stop, ctx)
                                                         or clipped_to_stop(bounds.upper, index, stop, ctx)):
            return
        if whole_chunks(stop, ctx) or tail_skipped(loop, index, loop_step, stop) \
                or padded_back(loop, _bound_names(node, ctx), step):
            return      # ``range(0, n - step, step)``, ``if n - i < step: break``, padded back: every chunk is whole
        self._report_chunk(node, loop, f"{short_source(node)} in steps of {short_source(step)}", ctx, at)

    def _consumed_prefix(self, node: ast.Subscript, ctx: FileContext) -> bool:
        """``while len(tokens) > 0: out = model.forward(tokens[:n], state); tokens = tokens[n:]``: a sequence fed in
        chunks of ``n`` from its front, its rest kept for the next pass; the last chunk is what remains (reported at
        the chunk fed, once per loop)."""
        found = consumed_prefix(node, ctx)
        if found is None:
            return False
        loop, step, call = found
        reported = ctx.scratch.setdefault("short_chunk_loops", set())
        if id(loop) not in reported:
            reported.add(id(loop))
            what = (f"{short_source(node)} fed to {short_source(call.func, 20)} while {short_source(node.value, 20)} "
                    f"lasts, cut by {short_source(step, 20)} from its front")
            ctx.report(node, self.message.format(what=what), "x[:n]; x = x[n:]")
        return True

    def _report_chunk(self, node: ast.Subscript, loop: ast.AST, what: str, ctx: FileContext,
                      at: Optional[ast.AST] = None) -> None:
        """Report the loop's first chunk that is computed on (a tensor, or a list made one in the loop)."""
        served = served_batches(node, loop, ctx)
        if not isinstance(loop, (ast.For, ast.While)) and not consumed(node, ctx) and not served \
                and not _pieces_fed(loop, ctx):
            return      # ``[a[i:i + n] for i in range(...)]``: a list of pieces, no computation on each
        if _last_word(node.value) in _NOT_TENSOR_WORDS or ctx.resolver.kind_of(node.value) == "list":
            joined = tensor_call(node, loop, ctx)
            if joined is None and not _fed_model(node, loop, ctx) and not served \
                    and not (not isinstance(loop, (ast.For, ast.While)) and _pieces_fed(loop, ctx)) \
                    and not sampler_yield(node, loop, ctx):
                return      # a list of names, parameters or modules cut in batches, never made a tensor: no shape
            if joined is not None and (at is None or at is node) and joined.lineno != node.lineno and any(
                    isinstance(n, ast.Name) and n.id in collected(getattr(loop, "body", []), _bound_names(node, ctx))
                    for a in joined.args for n in walk(a)):
                at = joined   # ``torch.vstack(clips)`` of one entry per path of the chunk: where it gets a shape
                what = f"{what} (made a tensor by {short_source(joined, 40)})"
        reported = ctx.scratch.setdefault("short_chunk_loops", set())
        if id(loop) in reported:
            return      # the loop's first chunk names it
        reported.add(id(loop))
        ctx.report(at or node, self.message.format(what=what), "x[i:i + step]")

    def _clipped(self, node: ast.Subscript, bounds: ast.Slice, ctx: FileContext) -> None:
        """``end = min(audio.size(1), (i + bs - 1) * hop + win)``; ``audio[..., start:end]`` in ``for i in range(0,
        n_frames, bs)``: a chunk's end computed from the loop's position and clipped to the length of the data it
        cuts, so the last chunk is shorter (frames cut in batches)."""
        upper = ctx.resolver.bound_value(bounds.upper) if isinstance(bounds.upper, ast.Name) else None
        base = node.value
        while isinstance(base, (ast.Subscript, ast.Attribute)):
            base = base.value
        if not (isinstance(upper, ast.Call) and isinstance(upper.func, ast.Name) and upper.func.id == "min"
                and len(upper.args) == 2 and not upper.keywords and isinstance(base, ast.Name)):
            return
        for length, other in (upper.args, upper.args[::-1]):
            if not length_expr(length) or base.id not in _names(length) or length_expr(other):
                continue
            for name in _positions(other, ctx):
                found = self._range_loop(node, name, ctx)
                if found is None:
                    continue
                stop, loop = found[0].args[1], found[1]
                reported = ctx.scratch.get("short_chunk_loops", set())
                if data_length(stop, ctx) and not whole_chunks(stop, ctx) and id(loop) not in reported:
                    what = f"{short_source(node)} ends at {short_source(upper, 40)}"
                    self._report_chunk(node, loop, what, ctx)
                return

    def _counted(self, node: ast.Subscript, bounds: ast.Slice, ctx: FileContext) -> None:
        """``x[i * s:(i + 1) * s]`` in ``for i in range(math.ceil(len(x) / s))``: chunk ``i`` of a count rounded
        up, so the last one is shorter."""
        lower, start = bounds.lower, None
        if isinstance(lower, ast.Name):   # ``start, end = i * bs, min(n, (i + 1) * bs)``; ``x[start:end]``
            lower, start = bound_element(lower, ctx) or lower, lower.id
        for index, step in scaled(lower):
            relative = start is not None and bounds.upper is not None \
                and _same_text(chunk_step(bounds.upper, start, ctx), step)   # ``end = min(start + bs, n)``
            if bounds.upper is None or not (relative or scaled_end(bounds.upper, index, step, ctx)):
                continue
            found = self._range_loop(node, index, ctx, counts=True)
            if found is None:
                count = iterator_chunk(node, index, step, ctx) if start is None else None
                if count is not None:   # a custom iterator's ``__next__`` serving batch ``i`` until ``count``
                    what = (f"{ast.unparse(node)[:40]} served by __next__ until {count} (not a count of whole "
                            f"batches of {short_source(step)})")
                    ctx.report(node, self.message.format(what=what), "x[i * bs:(i + 1) * bs]")
                    return
                count = getitem_chunk(node, index, step, ctx) if start is None else None
                if count is not None:   # a dataset's ``__getitem__`` serving batch ``idx`` of a count rounded up
                    what = (f"{ast.unparse(node)[:40]} served by __getitem__, {count} batches of "
                            f"{short_source(step)} (a count rounded up)")
                    ctx.report(node, self.message.format(what=what), "x[i * bs:(i + 1) * bs]")
                    return
                continue
            call, loop = found
            bound = clip_bound(bounds.upper, start if relative else index, step, ctx, relative)
            if start is not None and not _computed_on(node, loop, ctx):
                return   # bounds through names: only a chunk the loop computes on (not a sample's lists re-cut)
            if rounded_up(call.args[-1], step, ctx, bound=bound):
                what = f"{short_source(node)}, {short_source(call.args[-1], 30)} chunks of {short_source(step)}"
                self._report_chunk(node, loop, what, ctx)
            return

    def _index_range(self, node: ast.Call, ctx: FileContext) -> None:
        """``dataset.select(range(i, min(len(dataset), i + bs)))`` in ``for i in range(0, len(dataset), bs)``: the
        chunk's positions as a ``range`` (``Subset(ds, range(i, i + bs))``, ``x[list(range(i, i + bs))]``), as a
        slice ``x[i:i + bs]`` cuts them; reported when the loop gives what it takes to a model or makes it a
        tensor."""
        if not (isinstance(node.func, ast.Name) and node.func.id == "range" and len(node.args) == 2
                and not node.keywords and isinstance(node.args[0], ast.Name)
                and ctx.resolver.binding(node.func) is None):
            return
        index, upper = node.args[0].id, node.args[1]
        step = chunk_step(upper, index, ctx)
        found = self._range_loop(node, index, ctx) if step is not None else None
        if found is None:
            return
        stop, loop_step, loop = found[0].args[1], found[0].args[2], found[1]
        if not same_or_variable(loop_step, step) or not (data_length(stop, ctx)
                                                         or clipped_to_stop(upper, index, stop, ctx)) \
                or whole_chunks(stop, ctx) or tail_skipped(loop, index, loop_step, stop):
            return
        taken: ast.AST = node   # what the positions take: ``dataset.select(range(...))``, ``x[list(range(...))]``
        while isinstance(ctx.parent(taken), (ast.Call, ast.Subscript)) and not isinstance(ctx.parent(taken), ast.For):
            taken = ctx.parent(taken)
        walker = ctx.parent(node)
        if taken is node and isinstance(walker, ast.For) and walker.iter is node and isinstance(loop, ast.For) \
                and isinstance(upper, ast.Name) and clipped_to_stop(upper, index, stop, ctx):
            self._walked_chunk(node, walker, loop, upper, ctx)
            return
        if taken is node or not isinstance(loop, ast.For) or not (
                _fed_model(taken, loop, ctx) or made_tensor(taken, loop, ctx)):   # type: ignore[arg-type]
            return
        reported = ctx.scratch.setdefault("short_chunk_loops", set())
        if id(loop) not in reported:
            reported.add(id(loop))
            what = f"{short_source(taken, 40)} in steps of {short_source(step)}"
            ctx.report(node, self.message.format(what=what), "x[i:i + step]")

    def _walked_chunk(self, node: ast.Call, walker: ast.For, loop: ast.For, end: ast.Name, ctx: FileContext) -> None:
        """``end = min(n, beg + bs)`` then ``for j in range(beg, end): batch.append(norm(imgs[j]))`` in ``for beg in
        range(0, n, bs)``, the batch made a tensor (``torch.from_numpy(np.concatenate(batch))``) or given to a model
        in the loop: a chunk filled item by item, its end clipped by the code itself (PaddleOCR's recognisers);
        reported at the clip."""
        filled = filled_per_item(walker)
        if not filled:
            return
        made = next((call for call in walk(loop) if isinstance(call, ast.Call)
                     and (ctx.resolver.qualname(call.func) or "").startswith("torch.")
                     and any(isinstance(inner, ast.Name) and inner.id in filled
                             for argument in [*call.args, *(kw.value for kw in call.keywords)]
                             for inner in walk(argument))), None) \
            or model_call(loop.body, filled, ctx)
        if made is None:
            return
        reported = ctx.scratch.setdefault("short_chunk_loops", set())
        if id(loop) in reported:
            return
        reported.add(id(loop))
        binding = ctx.resolver.binding(end)
        at = binding.value if binding is not None and isinstance(binding.value, ast.AST) else node
        what = (f"{short_source(node, 40)} fills {', '.join(sorted(filled))} item by item up to a clipped end "
                f"(made a tensor by {short_source(made, 30)})")
        ctx.report(at, self.message.format(what=what), "x[i:i + step]")

    def _parts(self, node: ast.Subscript, ctx: FileContext) -> bool:
        """``x[round(i * n / k):round((i + 1) * n / k)]`` in ``for i in range(k)`` of a tensor fed to a computation:
        ``k`` parts one apart in size unless ``k`` divides ``n`` (reported once per loop)."""
        found = fraction_parts(node)
        if found is None:
            return False
        index, count = found
        loop = self._range_loop(node, index, ctx, counts=True)
        if loop is None or ast.unparse(loop[0].args[-1]) != count or not isinstance(loop[1], ast.For) \
                or not (ctx.resolver.is_tensor(node.value) or _computed_on(node, loop[1], ctx)):
            return False
        reported = ctx.scratch.setdefault("short_chunk_loops", set())
        if id(loop[1]) not in reported:
            reported.add(id(loop[1]))
            what = f"{short_source(node, 40)} ({count} parts of unequal sizes unless {count} divides the length)"
            ctx.report(node, self.message.format(what=what), "x[i * n // k:(i + 1) * n // k]")
        return True

    def _helper_chunk(self, node: ast.Call, ctx: FileContext) -> None:
        """``TensorChunk(mix, offset, segment)`` in ``for offset in range(0, length, stride)``: a helper of the file
        cutting the chunk at the loop's position and clipping it at the end of the data (``min(total - offset,
        length)`` in it), so the loop's last chunks are shorter; reported at the call, once per loop."""
        if not isinstance(node.func, ast.Name) or not node.args or ctx.enclosing(node, (ast.For,)) is None:
            return
        for arg in node.args:
            if not isinstance(arg, ast.Name):
                continue
            found = self._range_loop(node, arg.id, ctx)
            if found is None or isinstance(found[0].args[1], ast.Constant) or not isinstance(found[1], ast.For):
                continue
            call, loop = found
            if whole_chunks(call.args[1], ctx) or tail_skipped(loop, arg.id, call.args[2], call.args[1]):
                return
            helper = clipping_helper(node, arg.id, ctx)
            reported = ctx.scratch.setdefault("short_chunk_loops", set())
            if helper is None or id(loop) in reported:
                return
            reported.add(id(loop))
            what = (f"{short_source(node, 40)} cuts a chunk at {arg.id} that {getattr(helper, 'name', '?')} clips "
                    f"at the end of the data, in steps of {short_source(call.args[2], 20)}")
            ctx.report(node, self.message.format(what=what), "min(total - offset, length)")
            return

    def _pieces(self, node: ast.Call, ctx: FileContext) -> None:
        """``for piece in x.split(bs): model(piece)``: the last piece is shorter unless ``bs`` divides the length."""
        found = split_pieces(node, ctx) or rounded_chunks(node, ctx)
        model = fed_pieces(node, ctx) if found is not None else None
        verb = "feeds"
        if found is not None and model is None:   # the broad path: any computation on every piece
            model, verb = computed_pieces(node, ctx), "hands"
        if found is None or model is None:
            return
        what = f"{short_source(node, 30)} {verb} {short_source(model.func, 20)} pieces of {short_source(found[1], 20)}"
        ctx.report(node, self.message.format(what=what), "x.split(step)")

    def _sized(self, node: ast.Call, ctx: FileContext) -> None:
        """``noise = torch.randn(sz, z_dim)`` (or a shape ``(sz, z_dim)`` handed to a sampler) with ``sz = end -
        start``, ``end = min(start + bs, num_samples)``, in ``for start in range(0, num_samples, bs)``: the last
        batch made is smaller (samples generated in batches up to a count the caller sets)."""
        if ctx.resolver.qualname(node.func) in ("torch.arange", "numpy.arange"):
            self._positions(node, ctx)
            return
        if not node.args:
            return
        first = node.args[0]
        shapes = [first] if ctx.resolver.qualname(node.func) in _SIZED_MAKERS else []
        shapes += [a.elts[0] for a in node.args if isinstance(a, (ast.Tuple, ast.List)) and a.elts]
        for size in shapes:
            loop = clipped_size(size, ctx) if isinstance(size, ast.Name) else None
            if loop is None:
                continue
            reported = ctx.scratch.setdefault("short_chunk_loops", set())
            if id(loop) not in reported:
                reported.add(id(loop))
                what = (f"{short_source(node, 40)} sized by {size.id} (the chunk clipped at "  # type: ignore
                        f"{short_source(loop.iter.args[1], 20)})")   # type: ignore[attr-defined]
                ctx.report(node, self.message.format(what=what), "min(i + bs, n) - i")
            return

    def _remaining(self, node: ast.Call, ctx: FileContext) -> None:
        """``cur = min(n - i, bs)`` in ``for i in range(0, stop, bs)`` handed to a call (``sample_fn(cur)``,
        ``model.sample(batch_size=cur)``) or bounding a slice (``x[:cur]``): the size of the batch each step makes,
        short on the last step whatever the callee is (k-diffusion's ``compute_features``)."""
        loop = remaining_step(node, ctx)
        if loop is None or id(loop) in ctx.scratch.get("short_chunk_loops", set()):
            return
        parent = ctx.parent(node)
        if isinstance(parent, ast.keyword):
            parent = ctx.parent(parent)
        # by the batch's own step, any sizing use; by a hop of its own or through derived numbers, a torch one
        own = any(ast.unparse(a) == ast.unparse(loop.iter.args[2]) for a in node.args)   # type: ignore[attr-defined]
        if isinstance(parent, ast.Call) and not _scalar_call(parent, ctx):
            sized = own or _torch_sink(parent, ctx)
        elif _named_in_function(node, ctx) is not None and not _scalar_only(node, ctx):
            name, function = _named_in_function(node, ctx)   # type: ignore[misc]
            parents = {id(child): outer for outer in walk(loop) for child in _children(outer)}
            names = scalar_derived(loop.body, name)   # ``frame_length = ceil(this_length / sr * fr)`` too
            sized = any(_sizes(use, parents, ctx) and (own and use.id == name or _torch_use(use, parents, ctx))
                        for use in walk(loop)   # (parents: later nodes not walked yet)
                        if isinstance(use, ast.Name) and use.id in names and isinstance(use.ctx, ast.Load))
        else:
            sized = False
        if sized:
            ctx.scratch.setdefault("short_chunk_loops", set()).add(id(loop))
            what = (f"{short_source(node)} sizes each batch (the count left, clipped at the step of "
                    f"{short_source(loop.iter, 30)})")
            ctx.report(node, self.message.format(what=what), "min(n - i, bs)")

    def _positions(self, node: ast.Call, ctx: FileContext) -> None:
        """``yield torch.arange(start, min(start + size, total))`` in ``for start in range(0, total, size)``: the
        positions of each chunk (a slicing generator scoring every entity in slices), the last one shorter
        whatever ``total`` is (not a constant): the code itself clips the end to it."""
        keywords = {kw.arg: kw.value for kw in node.keywords}
        start = node.args[0] if node.args else keywords.get("start")
        end = node.args[1] if len(node.args) > 1 else keywords.get("end", keywords.get("stop"))
        host = ctx.resolver.qualname(node.func) == "numpy.arange"
        if end is None or (host and len(node.args) > 2):
            return
        if not isinstance(start, ast.Name):
            counted = self._counted_positions(node, start, end, ctx) if host else None
            if counted is not None:
                loop, count = counted
                if id(loop) not in ctx.scratch.setdefault("short_chunk_loops", set()):
                    ctx.scratch["short_chunk_loops"].add(id(loop))
                    what = (f"{short_source(node, 40)} makes the positions of chunk {short_source(start, 20)} of "
                            f"{short_source(count, 30)}, clipped at the end")
                    ctx.report(node, self.message.format(what=what), "arange(i * bs, min(n, (i + 1) * bs))")
            return
        found = self._range_loop(node, start.id, ctx)   # ``for start in range(0, n, bs)``, or a name bound to it
        stop = found[0].args[1] if found is not None else None
        if stop is None or not clipped_to_stop(end, start.id, stop, ctx):
            return
        if host:   # numpy's positions: only where the loop computes with them (a model, a torch call, a helper)
            if not self._positions_used(node, found[1], ctx) \
                    or id(found[1]) in ctx.scratch.setdefault("short_chunk_loops", set()):
                return
            ctx.scratch["short_chunk_loops"].add(id(found[1]))
        # its own site, beside the loop's slice of the data (sentence-transformers: ``index_select`` of these
        # positions for sparse embeddings, ``x[start:end]`` for dense ones): not counted as the loop's finding
        what = (f"{short_source(node, 40)} makes the positions of chunks clipped at "
                f"{short_source(stop, 20)}")
        ctx.report(node, self.message.format(what=what), "arange(i, min(i + bs, n))")

    def _counted_positions(self, node: ast.Call, start: ast.AST, end: ast.AST, ctx: FileContext
                           ) -> Optional[tuple[ast.AST, ast.AST]]:
        """``irange = np.arange(bs * k, min(n, bs * k + bs))`` in ``for k in range(int(np.ceil(n / bs)))``: the
        positions of chunk ``k`` of a count rounded up, used by the loop (``net(x[irange])``); the loop and the
        count, else None."""
        for index, step in scaled(start):
            if clip_bound(end, index, step, ctx) is None:
                continue   # only an end the code clips itself: it expects the short tail
            found = self._range_loop(node, index, ctx, counts=True)
            if found is None:
                continue
            call, loop = found
            if rounded_up(call.args[-1], step, ctx, bound=clip_bound(end, index, step, ctx)) \
                    and self._positions_used(node, loop, ctx):
                return loop, call.args[-1]
        return None

    @staticmethod
    def _positions_used(node: ast.Call, loop: ast.AST, ctx: FileContext) -> bool:
        """The name the positions are bound to reaches, in the loop, a torch call, a model, or a call of the
        project's (not a host builtin, a log, numpy): the positions pick the data computed on."""
        parent = ctx.parent(node)
        if not isinstance(parent, ast.Assign) or len(parent.targets) != 1 or not isinstance(parent.targets[0],
                                                                                           ast.Name):
            return False
        name = parent.targets[0].id
        if tensor_call(node, loop, ctx) is not None or model_call(getattr(loop, "body", []), {name}, ctx) is not None:
            return True
        for call in walk(loop):
            if not isinstance(call, ast.Call) or _scalar_call(call, ctx):
                continue
            if not any(isinstance(inner, ast.Name) and inner.id == name
                       for argument in [*call.args, *(kw.value for kw in call.keywords)] for inner in walk(argument)):
                continue
            qualname = ctx.resolver.qualname(call.func)
            if qualname is None or qualname.startswith("torch."):
                return True
        return False

    def _batched(self, node: ast.Call, ctx: FileContext) -> None:
        """``for batch in chunked(items, bs): model(batch)``: a library batcher's last list is shorter; ``for part
        in np.array_split(x, n): model(part)``: parts one apart in size."""
        staged = stage_batches(node, ctx)
        if staged is not None:
            what = (f"{short_source(node, 40)} batches the samples by {short_source(staged, 20)} and keeps the partial "
                    "last batch (partial=True unless told)")
            ctx.report(node, self.message.format(what=what), "batched(bs, partial=False)")
            return
        fed = grouped_sizes(node, ctx)
        if fed is not None:
            what = (f"{short_source(node, 30)} returns group sizes, the remainder last, each handed to "
                    f"{short_source(fed.func, 30)}")
            ctx.report(node, self.message.format(what=what), "num_to_groups(n, bs)")
            return
        size = sliced_batches(node, ctx)
        if size is not None:
            what = f"{short_source(node, 30)} takes batches of {short_source(size, 20)} until the iterator runs out"
            ctx.report(node, self.message.format(what=what), "islice(it, n)")
            return
        for finder, kind, api in ((section_pieces, "parts of unequal sizes ({} sections)", "array_split(x, n)"),
                                  (library_batches, "batches of {}", "chunked(items, n)")):
            found = finder(node, ctx)   # (the count or size, the model call it feeds)
            if found is not None:
                what = (f"{short_source(node, 30)} feeds {short_source(found[1].func, 20)} "
                        + kind.format(short_source(found[0], 20)))
                join = own_batch_join(node, ctx) if finder is library_batches else None
                if join is not None:    # the file's own batcher: reported where its chunk becomes a tensor
                    what = f"{short_source(join, 30)} joins a chunk of " + what
                ctx.report(join or node, self.message.format(what=what), api)
                return

    @staticmethod
    def _tail(arg: ast.AST) -> bool:
        """``len(source) - 1 - i``: a length read from the data minus a position."""
        if not isinstance(arg, ast.BinOp) or not isinstance(arg.op, ast.Sub) or not length_expr(arg):
            return False
        measured = {name for child in walk(arg) if isinstance(child, (ast.Call, ast.Subscript))
                    for name in _names(child)}
        held = {id(child.value) for child in walk(arg) if isinstance(child, ast.Attribute)}
        positions = {child.id for child in walk(arg) if isinstance(child, ast.Name) and id(child) not in held}
        return bool(positions - measured) and (_first_axis(arg) or _minus_one(arg))

    @staticmethod
    def _range_loop(node: ast.AST, index: str, ctx: FileContext, counts: bool = False
                    ) -> Optional[tuple[ast.Call, ast.AST]]:
        """The ``range(start, stop, step)`` call a ``for`` loop or a comprehension moves ``index`` over, and the
        loop (or comprehension) node; with ``counts``, ``range(count)`` / ``range(0, count)`` instead."""
        kinds = (ast.For, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp, *FUNCTION_TYPES)
        loop = ctx.enclosing(node, kinds)
        while loop is not None and not isinstance(loop, FUNCTION_TYPES):
            heads = [(loop.target, loop.iter)] if isinstance(loop, ast.For) else \
                [(g.target, g.iter) for g in loop.generators]   # type: ignore[attr-defined]
            for target, call in heads:
                path = loop_position(target, index)
                if path is not None:
                    found = ctx.resolver.iterated(call, ctx.resolver.current, path)   # through tqdm, enumerate
                    call = listed_range(found[0], ctx) if found is not None and not found[1] else None
                    wanted = (len(call.args) == 1 or (len(call.args) == 2 and isinstance(call.args[0], ast.Constant)
                                                      and call.args[0].value == 0)) if counts and \
                        isinstance(call, ast.Call) else isinstance(call, ast.Call) and len(call.args) == 3
                    if isinstance(call, ast.Call) and wanted and ranged(call, ctx):
                        return call, loop
                    return None
            loop = ctx.enclosing(loop, kinds)
        return None
    must_fire += (  # session 31 (re-done from 30): a count rounded up as ``(n - 1) // s + 1``
                  "import torch\ndef embed(model, feats, bs):\n    num_batches = (len(feats) - 1) // bs + 1\n"
                  "    for b in range(num_batches):\n        model(torch.stack(feats[b * bs:(b + 1) * bs]))\n",)
    must_not_fire += (  # ``(n - 1) // s`` alone rounds down: the last whole chunk is dropped with the tail
                      "import torch\ndef embed(model, feats, bs):\n    num_batches = (len(feats) - 1) // bs\n"
                      "    for b in range(num_batches):\n        model(torch.stack(feats[b * bs:(b + 1) * bs]))\n",)
    must_fire += (  # session 32 (rec32d): the remainder kept unless drop_last, after a loop that flushes a batch in
                    # the else arm of a test that it still has room, starting the next with the item (funasr's samplers)
                  "import torch\ndef batches(items, lens, budget, drop_last=False):\n    out, batch, m = [], [], 0\n"
                  "    for i in items:\n        cost = max(m, lens[i]) * (len(batch) + 1)\n"
                  "        if cost <= budget:\n            batch.append(i)\n            m = max(m, lens[i])\n"
                  "        else:\n            out.append(batch)\n            batch = [i]\n            m = lens[i]\n"
                  "    if batch and not drop_last:\n        out.append(batch)\n    return iter(out)\n",)
    must_not_fire += (  # a flush on a test of the data (a label), not of the batch's room
                      "import torch\ndef batches(items, labels):\n    out, batch = [], []\n"
                      "    for i in items:\n        if labels[i] <= 0:\n            batch.append(i)\n"
                      "        else:\n            out.append(batch)\n            batch = [i]\n"
                      "    if batch and labels:\n        out.append(batch)\n    return out\n",)
    must_fire += (  # session 32 (rec32d): a dataset's __getitem__ serving batch i of a count rounded up (cogdl)
                  "import torch\nclass Batches(torch.utils.data.Dataset):\n    def __init__(self, idx, bs):\n"
                  "        self.idx, self.n, self.bs = idx, len(idx), bs\n    def __len__(self):\n"
                  "        return (self.n - 1) // self.bs + 1\n    def __getitem__(self, i):\n"
                  "        return self.idx[i * self.bs:(i + 1) * self.bs]\n",)
    must_not_fire += (  # ... of whole batches only
                      "import torch\nclass Batches(torch.utils.data.Dataset):\n    def __init__(self, idx, bs):\n"
                  "        self.idx, self.n, self.bs = idx, len(idx), bs\n    def __len__(self):\n"
                  "        return self.n // self.bs\n    def __getitem__(self, i):\n"
                  "        return self.idx[i * self.bs:(i + 1) * self.bs]\n",)
    must_fire += (  # session 32 (rec32d): chunk ``i``'s end clipped by a choice, as ``min`` would (dgl-ke's scores)
                  "import torch\ndef score(fn, emb, num, bs):\n    for i in range((num + bs - 1) // bs):\n"
                  "        sh = emb[i * bs:(i + 1) * bs if (i + 1) * bs < num else num]\n        fn(sh)\n",)
    must_not_fire += (  # ... of a count rounded down: the tail is never cut
                      "import torch\ndef score(fn, emb, num, bs):\n    for i in range(num // bs):\n"
                      "        sh = emb[i * bs:(i + 1) * bs if (i + 1) * bs < num else num]\n        fn(sh)\n",)
    _BUFFERED = ("import torch\ndef buffered_read(path, size):\n    buffer = []\n    with open(path) as h:\n"
                 "        for line in h:\n            buffer.append(line.strip())\n"
                 "            if len(buffer) >= size:\n                yield buffer\n                buffer = []\n"
                 "{}    if len(buffer) > 0:\n        yield buffer\n")
    must_fire += (_BUFFERED.format(""),)   # session 33 (rec33d): the filling loop inside a ``with`` block (fairseq)
    must_not_fire += (  # ... not one the loop never flushes: the whole file, one batch
        "import torch\ndef read_all(path):\n    buffer = []\n    with open(path) as h:\n"
        "        for line in h:\n            buffer.append(line.strip())\n    if len(buffer) > 0:\n"
        "        yield buffer\n",)
    must_fire += (  # session 32 (rec32c): the plain order as a list, ``list(range(n))``, cut up to ``n``
                  "import torch\ndef feats(model, n_items, bs, dev):\n    all_items = list(range(n_items))\n"
                  "    for i in range(0, n_items, bs):\n        items = all_items[i:i + bs]\n"
                  "        model(torch.tensor(items).to(dev))\n",
                  # numpy's positions of a chunk clipped by the code, handed to a helper of the project
                  "import numpy as np\nimport torch\nclass Emb:\n    def users(self):\n"
                  "        for i in range(0, self.n_users, self.bs):\n"
                  "            users = np.arange(i, min(i + self.bs, self.n_users))\n"
                  "            self.walker.get_user_feats(users)\n",
                  # ... and of chunk ``k`` of a count rounded up, indexing the data a network is given
                  "import numpy as np\nimport torch\ndef run(net, imgs, bs):\n"
                  "    niter = int(np.ceil(imgs.shape[0] / bs))\n    for k in range(niter):\n"
                  "        irange = np.arange(bs * k, min(imgs.shape[0], bs * k + bs))\n        net(imgs[irange])\n",
                  # a batch filled item by item up to an end the code clips (PaddleOCR's recognisers)
                  "import numpy as np\nimport torch\ndef rec(net, imgs, bs):\n    n = len(imgs)\n"
                  "    for beg in range(0, n, bs):\n        end = min(n, beg + bs)\n        batch = []\n"
                  "        for j in range(beg, end):\n            batch.append(norm(imgs[j]))\n"
                  "        net(torch.from_numpy(np.concatenate(batch)))\n",)
    must_not_fire += (  # session 32 (rec32c): numpy positions used only by numpy; names filled item by item
                      "import numpy as np\nimport torch\ndef host(out, n, bs):\n    for i in range(0, n, bs):\n"
                      "        idx = np.arange(i, min(i + bs, n))\n        out[idx] = np.sqrt(idx)\n"
                      "        print(len(idx))\n",
                      "import torch\ndef names(imgs, bs):\n    n = len(imgs)\n    for beg in range(0, n, bs):\n"
                      "        end = min(n, beg + bs)\n        batch = []\n        for j in range(beg, end):\n"
                      "            batch.append(str(imgs[j]))\n        print(batch)\n",
                      # a list of the first ``n`` positions cut up to another count
                      "import torch\ndef feats(model, n_items, m, bs):\n    all_items = list(range(n_items))\n"
                      "    for i in range(0, m, bs):\n        model(torch.tensor(all_items[i:i + bs]))\n",)
