"""NPU408: a tensor that grows inside a loop (per-sample lists: dynamic_samples.py; the short last chunk of a
sequence cut in fixed steps, NPU407: short_chunks.py)."""
from __future__ import annotations

import ast
import re
from typing import Optional

from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.kinds import HOST, TENSORS
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.summaries_sizes import parameters, size_parameters
from npu_lint.analysis.scopes import PARAM, Scope
from npu_lint.analysis.summaries import return_statements
from npu_lint.analysis.step_growth import CATS, Growth, reordered
from npu_lint.context import FileContext
from npu_lint.host_arrays import is_host_array
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.value_flow import FAMILY
from npu_lint.rules.own_calls import own_call
from npu_lint.rules.growth_items import grown_items
from npu_lint.rules.broad_joins import BROAD_GROWTH, broad_growth
from npu_lint.rules.growth_state import handed_back, item_state_growth, state_growth
from npu_lint.rules.growth_loops import ended_join, kept_count_join
from npu_lint.rules.growth_carried import carried_join, empty_start_join, paired_merge, stored_join
from npu_lint.rules.growth_derived import derived_join
from npu_lint.rules.growth_fields import field_join
from npu_lint.rules.growth_outside import outside_join
from npu_lint.rules.growth_counters import advanced_prefix, follows_length, growing_lengths, growth_axes
from npu_lint.rules.growth_fresh import made_per_call
from npu_lint.rules.growth_views import NARROWS, cache_method_join, growing_view, step_parameter
from npu_lint.rules.kept_lists import generation_keywords, kept_list
from npu_lint.rules.growth_steps import describe, fed_back, feeding
from npu_lint.rules.loop_arms import (carried, named_steps, over_batches, over_layers, rearranged, step_loop, steps,
                                     stored_back)

_PADS = frozenset({"torch.nn.functional.pad"})
# numpy's joins that return a longer copy of their first operand (a host array grown by a step).
_HOST_GROWERS = frozenset({"numpy.append", "numpy.concatenate", "numpy.vstack", "numpy.hstack", "numpy.row_stack"})
_BATCHES = ("{what} grows by a batch every iteration of a loop over a loader: a new length to compile on NPU at each "
            "batch; collect the pieces in a list and concatenate once after the loop (or write into a buffer "
            "allocated for the whole set)")
_STACKS = frozenset({"torch.stack"})
# Tensors made from a Python list: the list's length is the tensor's (``torch.as_tensor([output_ids])``).
_FROM_LIST = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor", "torch.Tensor",
                        "torch.FloatTensor"})
_FACTORY_NAMES = frozenset({"ones", "zeros", "empty", "full", "arange", "rand", "randn", "eye", "tril_indices",
                            "triu_indices"})
_FACTORIES = frozenset("torch." + name for name in _FACTORY_NAMES)
_JOINS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack"})
# methods that keep a tensor's length: ``cat([xs, x]).detach()`` is stored as long as the concatenation
_KEEPING = frozenset({"detach", "contiguous", "to", "float", "half", "long", "clone", "type", "requires_grad_"})


def _size_arguments(node: ast.Call, ctx: FileContext) -> list[ast.AST]:
    """The arguments a call passes to the parameters its callee sizes a tensor with: the file's own function (the
    model's summary), another module's (the project index's ``sizes`` facts), or torch's square-mask helper."""
    resolver = ctx.resolver
    callee = own_call(node, ctx)
    if callee is not None:
        function, offset = callee
        sized = size_parameters(function, resolver, ctx.scratch.setdefault("size_parameters", {}))
        return [a for a in (passed_argument(node, function, arg, offset) for arg in parameters(function)
                            if arg.arg in sized and _made(sized[arg.arg])) if a is not None]
    name = resolver.qualname(node.func) or ""
    if name.endswith("Transformer.generate_square_subsequent_mask"):
        return node.args[:1]
    if ctx.project is None or not name or name.startswith(("torch.", "numpy.")):
        return []
    starred = any(isinstance(a, ast.Starred) for a in node.args)
    found: list[ast.AST] = []
    for parameter, position, chain in ctx.project.size_parameters(name, ctx.module):
        if not _made(chain):
            continue
        passed = next((kw.value for kw in node.keywords if kw.arg == parameter), None)
        if passed is None and 0 <= position < len(node.args) and not starred:
            passed = node.args[position]
        if passed is not None:
            found.append(passed)
    return found


def _made(chain: str) -> bool:
    """The way a helper's parameter reaches a shape ends at a tensor it makes (``triu(ones(sz, sz))``), not at a slice
    bound (an n-gram window ``tokens[i, step - n:step]`` keeps its width) nor at a loop count."""
    return not chain.endswith(("a slice bound", "range()"))


def _decoded(loop: ast.For, ctx: FileContext) -> Optional[str]:
    """What the loop grows every step, by its own statements: ``x = cat([x, y])`` (``x`` reordered too), or a list
    appended there and joined there (``torch.stack(din)`` then ``din.append(...)``); None when nothing (memoised)."""
    store = ctx.scratch.setdefault("growth_decoded", {})
    if id(loop) in store:
        return store[id(loop)]
    found: Optional[str] = None
    appended = {n.func.value.id for n in walk(loop) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "append" and isinstance(n.func.value, ast.Name)}
    for n in walk(loop):
        if not isinstance(n, ast.Call) or not n.args:
            continue
        short = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
        if short not in _JOINS:
            continue
        items = n.args[0]
        if isinstance(items, ast.Name) and items.id in appended:
            found = items.id
            break
        parent = ctx.parent_anywhere(n)
        if isinstance(items, (ast.List, ast.Tuple)) and isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Name):
            target = parent.targets[0].id
            if any(isinstance(e, ast.Name) and e.id == target or ast.unparse(reordered(e)) == target
                   for e in items.elts):
                found = target
                break
    store[id(loop)] = found
    return found


def _growing_lengths(loop: ast.AST, ctx: FileContext) -> Optional[tuple[str, frozenset[int], frozenset[str]]]:
    """The sequence a loop carries and grows by a ``cat`` of itself, the axes it grows along and the names its body
    binds to its length at each step (growth_counters.py), once per loop; None for a loop over the model's layers
    or one that grows nothing so."""
    if isinstance(loop, ast.For) and over_layers(loop):
        return None
    grown = _decoded(loop, ctx)   # type: ignore[arg-type]
    if grown is None or not _steadily_grown(loop, grown, ctx):
        return None
    axes = growth_axes(loop, grown)
    return grown, axes, growing_lengths(loop, grown, axes)


def _steadily_grown(loop: ast.AST, grown: str, ctx: FileContext) -> bool:
    """The loop carries ``grown`` from one iteration to the next (the join of itself is its only assignment there,
    :func:`carried`), not a name read afresh each time (``feats = features[name]`` then ``feats = cat([feats, z],
    1)``: one column more, the same every iteration)."""
    for node in walk(loop):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == grown and isinstance(node.value, ast.Call) and node.value.args \
                and isinstance(node.value.args[0], (ast.List, ast.Tuple)) \
                and any(isinstance(e, ast.Name) and e.id == grown for e in node.value.args[0].elts):
            return carried(loop, node, grown, ctx=ctx)
    return False


def _rebound(loop: ast.For, value: ast.AST) -> bool:
    """The sliced tensor is assigned anew in the loop (a fresh value per step, not one tensor read in steps)."""
    text = ast.unparse(value)
    return any(isinstance(child, ast.Assign) and any(ast.unparse(t) == text for t in child.targets)
               for child in walk(loop))


def _returns(element: ast.AST, names: set[str], holders: set[str]) -> bool:
    """An element of a returned tuple that hands back one of ``names`` (the grown name, its aliases): the name, a
    tuple holding it, or a name bound to such a tuple (``present``)."""
    if isinstance(element, ast.Tuple):
        return any(isinstance(e, ast.Name) and e.id in names for e in element.elts)
    return isinstance(element, ast.Name) and (element.id in names or element.id in holders)


def _holds(value: ast.AST, name: str, element: int) -> bool:
    """``value`` stores ``name`` back whole: ``nk``, ``nk[:, offset:]`` (a start that is no constant: not a fixed
    window ``nk[:, -10:]``), or at ``element`` of a tuple (``k, v``)."""
    if element >= 0:
        if not isinstance(value, ast.Tuple) or element >= len(value.elts):
            return False
        value = value.elts[element]
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        if not all(isinstance(p, ast.Slice) and p.upper is None and p.step is None
                   and (p.lower is None or isinstance(p.lower, (ast.Name, ast.Attribute))) for p in parts):
            return False
        value = value.value
    return isinstance(value, ast.Name) and value.id == name


_SHAPED = frozenset({"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like",
                     "new_zeros", "new_ones", "new_empty", "new_full"})


def _shaped_like(element: ast.AST, text: str, loop: ast.AST, ctx: FileContext) -> bool:
    """``element`` is a name bound in ``loop`` to a tensor of ``text``'s shape: ``torch.zeros(x.size())``,
    ``torch.zeros_like(x)``, ``x.new_zeros(x.shape)`` (filled with rows of ``x`` after), or ``x`` rearranged
    (``x[beam_idx]``, ``x.view(...)``): concatenated with a new piece and stored in ``x``, it makes ``x`` longer."""
    if not isinstance(element, ast.Name):
        return False
    value = ctx.resolver.bound_value(element)
    binding = ctx.resolver.binding(element)
    if value is None or binding is None or not loop.lineno < binding.pos[0] <= getattr(loop, "end_lineno", 0):
        return False
    if rearranged(value, text):
        return True
    if not isinstance(value, ast.Call) or not value.args:
        return False
    func = value.func
    method = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if method not in _SHAPED:
        return False
    first = value.args[0]
    if method.endswith("_like"):
        return ast.unparse(first) == text
    return ast.unparse(first) in (f"{text}.size()", f"{text}.shape")


def _root(target: ast.AST) -> ast.AST:
    """The name under a stored item: ``out`` of ``out[1]`` / ``out["k"].x``."""
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return target


def _names(node: ast.AST) -> set[str]:
    return {child.id for child in walk(node) if isinstance(child, ast.Name)}


def _advancing(written: ast.Slice) -> bool:
    """``[start_pos : start_pos + seqlen]``: a piece written at a position, its end the start plus a length (not
    the rest from a position, ``[n:]``, nor a fixed window)."""
    upper = written.upper
    return isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add) and written.lower is not None \
        and bool(_names(written.lower)) and _names(written.lower) <= _names(upper) and _names(upper) != _names(written.lower)


def _computed_with(function: ast.AST, after: int, names: set[str], holders: set[str]) -> bool:
    """Some statement after line ``after`` computes another value from the grown state (``scores = q @ k.T``, or a
    returned element other than the state itself: ``return self.attn(q, k, v), (k, v)``): the state is a cache the
    output reads, not a prefix only handed back."""
    kept = names | holders
    for child in walk(function):
        if getattr(child, "lineno", 0) <= after or not isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign,
                                                                         ast.Expr, ast.Return)):
            continue
        if isinstance(child, ast.Return):
            parts = child.value.elts if isinstance(child.value, ast.Tuple) else [child.value]
        elif isinstance(child, ast.Assign) and all(isinstance(t, ast.Name) and t.id in kept for t in child.targets):
            continue   # the state rebound or packed (``k = k.detach()``, ``present = (k, v)``)
        else:
            parts = [child]
        for part in parts:
            if part is None or isinstance(part, ast.Name) and part.id in kept:
                continue
            if any(isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load) for n in walk(part)):
                return True
    return False


def _bound_in_function(node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.Assign, str, ast.AST, Scope]]:
    """``name = cat([...])`` in a function: the statement, the name, the function and its scope."""
    statement = ctx.parent(node)
    if not isinstance(statement, ast.Assign) or statement.value is not node or len(statement.targets) != 1 \
            or not isinstance(statement.targets[0], ast.Name):
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scope = ctx.resolver.scopes.scope_of(function) if function is not None and ctx.resolver.scopes else None
    if scope is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return statement, statement.targets[0].id, function, scope


# The keywords of Hugging Face's cache protocol: a model given the cache of the previous steps returns it with this
# step's keys and values appended (``outputs.past_key_values``); ``past`` is the older models' name for it.
_CACHE_KEYWORDS = ("past_key_values", "past")


# A keyword that hands a callee the cache of the previous steps under another name than Hugging Face's
# (``cache=``, ``kv_cache=``, ``past_kv=``, ``att_cache=``, ``layer_past=``), and the caches of a fixed length
# (a convolution's left context: ``cnn_cache``, ``conv_cache``).
_STEP_CACHE = re.compile(r"cache|past|(^|_)kvs?($|_)", re.IGNORECASE)
_FIXED_CACHE = re.compile(r"cnn|conv", re.IGNORECASE)


def _cache_of(value: ast.AST) -> Optional[ast.AST]:
    """``out.past_key_values`` / ``out["past_key_values"]``: ``out``, what the cache is read from; else None."""
    if isinstance(value, ast.Attribute) and value.attr == "past_key_values":
        return value.value
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
            and value.slice.value == "past_key_values":
        return value.value
    return None


# A parameter that names the state of the previous calls (``layer_past``, ``past_key_value``, ``kv_cache``,
# ``prev_states``): concatenated with this call's keys, it is one step longer at every call of a decoding loop,
# whether the grown value or the new piece alone (``present = stack((k, v))``) is handed back to the caller.
_PAST_STATE = re.compile(r"past|cache|prev|incremental", re.IGNORECASE)


def _item_store(target: ast.AST, name: str) -> bool:
    """``target`` writes one item of the list ``name`` (``ids[-1] = tok``, ``ids[i] = t``; not a slice, which may
    change its length)."""
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name \
        and not isinstance(target.slice, ast.Slice) and not any(
            isinstance(n, ast.Name) and n.id == name for n in walk(target.slice))


def _cache_arm(value: ast.AST) -> Optional[ast.Name]:
    """The name a cache keyword passes: ``past`` itself, or the arm of ``past if not reset else None`` that is no
    None (the cache on every step the test lets through); else None."""
    if isinstance(value, ast.IfExp):
        arms = [a for a in (value.body, value.orelse) if not (isinstance(a, ast.Constant) and a.value is None)]
        value = arms[0] if len(arms) == 1 else None
    return value if isinstance(value, ast.Name) else None


def _static_cache(scope: ast.AST, name: str) -> bool:
    """``name`` is bound in the function to a static cache (``StaticCache(...)``, ``HybridCache(...)``): written in
    place at fixed length, it does not grow."""
    for child in walk(scope):
        if isinstance(child, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in child.targets) \
                and isinstance(child.value, ast.Call):
            callee = short_source(child.value.func, 60)
            if "Static" in callee or "Hybrid" in callee or "Sliding" in callee:
                return True
    return False


class GrowingTensor(Rule):
    """A tensor concatenated onto itself inside a loop (autoregressive growth).

    What it does:
        Flags ``x = torch.cat([x, new], dim)`` (and ``torch.concat`` / ``hstack`` / ``vstack``, and
        ``x = F.pad(x, (0, 1))`` by constant amounts; ``x[beam_idx]``
        or ``x.index_select(0, idx)`` for ``x``: beam search's reordered rows) inside a
        ``while`` loop or a ``for`` loop over steps (``range``, ``count``, ``tqdm(range(...))``, or a call of one of the
        file's functions or methods that returns one: ``for step in self._stopping_steps():`` of ``return
        range(max_new_tokens)``; not a counted loop
        over a module's layers, ``range(len(self.layers))`` or ``self.blocks[i](x)`` in it: a dense block), where the result is assigned back to a name (or attribute) that is one of
        the concatenated tensors and the concatenation is the only assignment to it in the loop (others only rearrange it: beam search's
        ``prefixes = prefixes.unsqueeze(1).repeat(1, k, 1)`` before and ``prefixes.view(...).gather(1, ids)`` after,
        also through a name bound only to it rearranged: ``predictions = alive_seq.view(-1, k, n)`` then ``alive_seq =
        predictions.index_select(0, unfinished).view(-1, n)``; or keep the last steps of a configured context,
        ``mask = mask[:, -self.max_seq_len:]``, which the generation fills step by step (a constant window,
        ``ids[:, -10:]``, stops the growth); or set afresh only on some paths of an iteration:
        ``if t == 0: out = y``, a buffer emptied once a test says so, ``acc = torch.Tensor([])`` after the
        optimizer step of a gradient accumulation, grown by the iterations in between): the
        tensor is one step longer every iteration, as in token-by-token generation. A ``for`` loop over the batches of a
        loader (the model's value of what it iterates, also through ``enumerate``, ``tqdm`` or ``zip``: a
        ``DataLoader``, another library's subclass of it such as ``torch_geometric.loader.DataLoader``, a
        parameter the file's calls pass one, or a name or attribute of unknown kind whose items the loop moves to
        the device first thing: ``for us, items in test_loader:`` then ``us = us.to(self.device)``) grows such a tensor by a batch every iteration (``preds =
        torch.cat([preds, out])`` collecting outputs), unless the pieces are on the host (``out.cpu()``, a
        tensor the model knows is on the CPU). One tensor per layer kept in a list
        (``xs[j] = torch.cat((xs[j], new[j]), 2)`` under ``for j in range(len(xs))``) grows with the loop around that
        one, also through a temporary stored back (``t = torch.cat((xs[j], new[j]), 2); xs[j] = t.gather(1, ids)``). Outside a loop, state kept between
        calls that is concatenated onto itself (``self.cache = torch.cat([self.cache, k])``, or
        ``kwargs["attention_mask"] = torch.cat([mask, ...])`` after ``mask = kwargs["attention_mask"]``) grows at
        every call: a growing key/value cache or generation state; so does such state grown through a local
        name and stored back (``pk = self._state["past_keys"]``; ``nk = torch.cat([pk, k], 1)``;
        ``self._state["past_keys"] = nk[:, offset:]``; or ``k_top, v_top = cache[key]`` of a dict the caller
        passes in, also in a helper nested in that function, ``k = torch.cat([k_top, k], -2)``, ``cache[key] =
        k, v``), when every assignment to the state
        stores the grown name back (not cut to a fixed window ``nk[:, -16:]``), and a cache written at an
        advancing position and read up to it (``self.cache_k[:bsz, start_pos:start_pos + n] = xk`` then
        ``self.cache_k[:bsz, :start_pos + n]``; read whole with a mask it stays silent). In a loop, the
        carried tensor rebuilt in a buffer of its own shape (``prev = torch.zeros(beams.size())``, filled with
        reordered rows, then ``beams = torch.cat([prev, best], 2)``) grows as well, and so does a tensor whose first
        value is set in the arm of a None test of it (``if out is None: out = y`` / ``else: out = torch.cat((out,
        y), 1)``; reset to None in the loop it stays silent); a list appended every step and joined inside the loop
        over steps (``inp = torch.cat(seq, 1)`` then ``seq.append(tok)``; not started anew in the loop, no ``pop``,
        ``del`` or ``deque(maxlen=k)``; joined after the loop it is NPU409's question, if at all); a Hugging Face key/value cache handed back to the model
    every step (``out = model(tok, past_key_values=past, use_cache=True)`` then ``past = out.past_key_values`` in a loop
    over steps: the model appends the step's keys and values; not a ``StaticCache``; also a cache passed on
    some steps only, ``past_key_values=past if not reset else None``, and a cache object the loop never rebinds,
    ``model(ids[:, -1:], past_key_values=cache)`` with ``cache`` a ``DynamicCache`` the model extends in place, unless
    the function binds it to None or a literal or the call says ``use_cache=False``; and a cache kept on the object
    between calls of a step method, ``out = self.model(tok, past_key_values=self.kv)`` then ``self.kv = out[1]`` or
    ``out.past_key_values``, unless the method empties it first: a prefill). And the state of the previous
        call handed back grown (incremental decoding): a parameter that defaults to None (``previous_states``,
        ``layer_past`` or the names it unpacks into), concatenated under a test of it (``if layer_past is not
        None:``) with a new piece that is no parameter, and returned beside the output at every later return
        (``return out, states``; ``present = (key, value)``; ``return out, present``), not cut after; a parameter
        named as that state (``layer_past``, ``past_key_value``, ``kv_cache``, ``prev_states``: a name with
        ``past``, ``cache``, ``prev`` or ``incremental``) counts without being returned (``present = stack((k,
        v))`` handed back alone: the caller keeps the pieces), and so does such a parameter joined whole under its
        test (``if past is not None: past = torch.cat(past, dim=-2)``: the list of every earlier step's keys), and
        the cache protocol of Hugging Face's attention layers, ``k, v = past_key_value.update(k, v, self.layer_idx,
        kw)`` on such a parameter (the cache appends this call's keys and values and hands back the whole sequence),
        and fairseq's incremental state: the keys read from the container an accessor hands back for a parameter
        tested against None (``saved_state = self._get_input_buffer(incremental_state)``), joined with this
        call's and written back into it (``saved_state["prev_key"] = k.view(...)``). Also a tensor read through a prefix whose end
        follows the counter of a loop over steps (``model(buf[:, :t + 1])``, ``x[:, :step]``, ``seq[..., prev:t]``
        with a start the loop never rebinds or rebinds only under a test, ``if use_cache: prev = t``; the steps also
        through a name, ``it = range(n)``, ``if bar: it = progress_bar(it)`` or ``it = progress_bar(range(n)) if
        bar else range(n)``, then ``for i in it``), the other parts of
        the index staying put (not ``x[st:en]`` windows nor ``x[:, t]`` columns), and a tensor sized by that
        counter in a loop that grows the sequence it decodes (``x = cat([x, y])`` or a list appended and joined
        there): ``torch.triu(torch.ones(t + 1, t + 1))``, ``generate_square_subsequent_mask(i + 1)`` (torch's, or a
        helper of the project that sizes a tensor with its parameter). And the step helper of a
        decoder: a function or method of the file that returns its parameter concatenated with a new piece (``return
        torch.cat((xs, x))``; ``tokens = torch.cat([tokens, nxt], -1)`` then ``return tokens, done``; the piece no
        other parameter), reported at that concatenation when a loop over steps of the file calls it (``f(...)``,
        ``self.f(...)``, ``self.decoder.update(...)`` where ``self.decoder`` holds an instance of one of the
        file's classes) and feeds the result back: the argument rebound from it (``tokens, done =
        self.decoder.update(tokens, logits)``), the result stored in the field the argument is read from
        (``Hypothesis(yseq=self.append_token(hyp.yseq, j))``, where the call runs at every step), or a list
        rebuilt from the list the loop reads (``hyps = [grow(h, t) for h in hyps]``). Such a helper in another
        module of the project (a function, its index fact ``grows``) is reported at the call that a loop over steps
        of the file feeds back (``ids = append_token(ids, tok)``). The step may copy its parameter's rows first
        (``if step == 0: ids = ids.repeat(n, 1)``), and the loop may hand the grown value to another helper of
        the file that gives it back unchanged or with rows dropped (``ids, stop = self._end(ids)`` returning
        ``ids`` or ``ids[keep]``: the unfinished rows, the steps kept) without ending the growth.
        The previous calls' state of an attention layer is also read through a name bound to one item of it
        (``past_key = past_kv[0]``), handed back packed (``kv_cache = torch.stack((k, v))``) or, for a parameter
        naming it (``cache``), handed back beside the output with nothing computed from it after (an ESPnet
        layer's ``x = torch.cat([cache, x], 1); return x, mask``); a forward hook's cache item grows after a
        first arm that stores it (``if module not in cache: cache[module] = output`` / ``else: cache[module] =
        torch.cat([cache[module], output], 1).detach()``); a carried sequence rebuilt from its own items each
        concatenated with a new piece (``past = tuple((torch.cat([pk, k], 2), ...) for (pk, pv), (k, v) in
        zip(past, new))``) grows in a loop over steps, and so does a loop over the pieces of a tensor
        (``wav.split(seg, dim=-1)``, ``x.unbind(1)``: as many as its length gives).
        Beside these proofs (``broad_joins.py``), the op itself: a value re-bound from a ``cat`` /
        ``hstack`` / ``column_stack`` / ``F.pad`` by a positive constant / ``einops.pack`` of itself inside a loop
        of steps (a ``while``, a ``range``, a loader), kept on the object between calls (``self.x``, ``self.kv[i]``)
        or passed down a recursive call, and a list such a loop appends to made a tensor in it; left alone where the
        model shows the shape static: a loop over other sequences or over the model's layers (DenseNet's ``for layer
        in self.layers: x = torch.cat([x, layer(x)], 1)``, a reviewer's "unsure": the same shapes at every call), a
        module's or a host piece, a window (sliced, trimmed, popped), a value also set otherwise in the loop.
        The sequence such a loop grows and feeds back is reported outside it too (``growth_outside.py``):
        the join of the name with itself that starts it once per call before the loop (a prefill's
        ``gen = torch.cat([gen, first])``), and the join of the whole of it after the loop (``torch.cat(st.ids)``
        of the records the loop rebuilt one item longer, ``torch.cat(toks)`` of the list it appended and joined);
        not a list only appended (a fixed count joined once). A prefix up to a counter the loop advances itself at
        every step (``masks[:, :pos + 1, :pos + 1]`` with ``pos += 1`` in the body: growth_counters.py) grows like
        one up to the loop's own counter.
        A cache handed back under another keyword than Hugging Face's and rebound from the call's results every
        step of a loop over steps (``y_pred, cache = llm.forward_one_step(x, cache=cache)``, ``logits, kv_cache =
        model(x, past_kv=kv_cache)``: a keyword saying cache, past or kv; not a convolution's fixed cache,
        ``cnn_cache``, a recurrent ``hidden=``, a call told ``use_cache=False`` nor a loop over layers) grows as the
        Hugging Face one does; so does a tensor made in a loop over steps from a host array the loop grows by
        itself, ``x = torch.from_numpy(hist)`` with ``hist = np.append(hist, y)`` (a recursive forecast re-reading
        its history; not a window cut back to its length).
        A size read of the sequence a loop carries and grows, along the axis it grows (``cur_len = out.shape[1]``
        bound once at each step, ``out.size(-1)``, ``len(seq)`` for axis 0), is a length one step longer every
        iteration: a prefix slice up to it and a factory sized by it (a causal mask ``torch.ones((cur_len,
        cur_len))``) are reported; the batch axis, a window and a name read afresh each iteration are not. An item
        kept between calls (``self``'s, a parameter's) grows in either arm of a test, appended or prepended
        (``d[k] = cat([new, d[k]])``). A ``generate`` call's generation keywords may come through a dict the
        function builds (``kwargs = dict(max_length=n)``, ``kwargs["eos_token_id"] = eos``, ``**kwargs``).
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
    node_types = (ast.Call, ast.Subscript)
    triggers = ("cat(", "concat", "stack(", "range(", "pad(", "pack(", "[:", "while ", "past_key_values", "tensor(", "Tensor(", "from_numpy(", ".update(",
                ".generate(")
    message = "{what} grows by a step every iteration: a new length to compile on NPU at each step; allocate the full length once and write each step into it"
    must_fire = ("import torch\nfor _ in range(n):\n    ids = torch.cat([ids, nxt], dim=1)\n",
                 # a Hugging Face key/value cache fed back to the model every decoding step
                 "import torch\ndef generate(model, tok, past, n):\n    for _ in range(n):\n"
                 "        out = model(input_ids=tok, past_key_values=past, use_cache=True)\n"
                 "        past = out.past_key_values\n        tok = out.logits[:, -1:].argmax(-1)\n    return tok\n",
                 # a causal mask sized by the step of a decode loop; beam state kept through a rearranged alias
                 "import torch\ndef decode(dec, mem, x, k):\n    din = [x]\n    for t in range(k):\n"
                 "        causal = torch.triu(torch.ones(t + 1, t + 1), 1)\n"
                 "        h = dec(torch.stack(din, 0), mem, tgt_mask=causal)\n        din.append(h[-1])\n    return din\n",
                 "import torch\ndef beam(model, alive, k, steps):\n    for step in range(steps):\n"
                 "        ids, sel, fin = model(alive)\n        alive = torch.cat([alive.index_select(0, sel), ids], -1)\n"
                 "        if fin.any():\n            preds = alive.view(-1, k, alive.size(-1))\n"
                 "            alive = preds.index_select(0, fin.nonzero().view(-1)).view(-1, alive.size(-1))\n"
                 "    return alive\n",
                 # one arm of a conditional expression: scores kept per step when asked for
                 "import torch\ndef greedy(model, ys, yv, steps, keep):\n    for _ in range(steps):\n"
                 "        prob, nxt = model(ys).max(-1, keepdim=True)\n        ys = torch.cat([ys, nxt], dim=1)\n"
                 "        yv = torch.cat([yv, prob], dim=1) if keep else None\n    return ys, yv\n",
                 # the generation mask padded by one position per step, beside the growing sequence
                 "import torch\nimport torch.nn.functional as F\ndef gen(model, out, mask, n):\n"
                 "    for _ in range(n):\n        nxt = model(out, mask=mask).argmax(-1, keepdim=True)\n"
                 "        out = torch.cat((out, nxt), dim=-1)\n        mask = F.pad(mask, (0, 1), value=True)\n"
                 "    return out\n",
                 "import torch\nclass Cache:\n    def update(self, k):\n        self.keys = torch.cat([self.keys, k], dim=2)\n",
                 # the state started on the first call, grown on every later one
                 "import torch\nclass Search:\n    def advance(self, attn):\n        if self.alive_attn is None:\n"
                 "            self.alive_attn = attn\n        else:\n"
                 "            self.alive_attn = torch.cat([self.alive_attn, attn], 1)\n",
                 "import torch\ndef update(kwargs):\n    mask = kwargs['attention_mask']\n"
                 "    kwargs['attention_mask'] = torch.cat([mask, mask.new_ones((mask.shape[0], 1))], dim=-1)\n",
                 "import torch\ndef update(kwargs, n):\n    if (t := kwargs.get('ids')) is not None:\n"
                 "        kwargs['ids'] = torch.cat([t, t[:, -n:]], dim=-1)\n",
                 "import torch\nwhile not done:\n    self.cache = torch.cat((self.cache, k), dim=2)\n",
                 # a slice whose start stays put unless a cache is used (rebound only under a test)
                 "import torch\ndef gen(model, seq, start, total, use_cache):\n    prev = 0\n"
                 "    for offset in range(start, total):\n        nxt = model(seq[..., prev:offset])\n"
                 "        seq[..., offset] = nxt\n        if use_cache:\n            prev = offset\n",
                 # a prefix whose end follows the loop counter, and beam search's reordered rows
                 "import torch\ndef gen(model, x, steps):\n    buf = torch.zeros(x.size(0), steps)\n"
                 "    for t in range(steps):\n        buf[:, t] = model(buf[:, :t + 1])\n    return buf\n",
                 "import torch\ndef gen(model, x, n, bar):\n    toks = torch.zeros(x.size(0), n)\n    it = range(n)\n"
                 "    if bar:\n        it = progress_bar(it)\n    for i in it:\n        toks[:, i] = model(x, toks[:, :i])\n",
                 "import torch\ndef gen(model, x, n, bar):\n    toks = torch.zeros(x.size(0), n)\n"
                 "    steps = progress_bar(range(n)) if bar else range(n)\n    for i in steps:\n"
                 "        toks[:, i] = model(x, toks[:, :i])\n",
                 "import torch\ndef beam(model, seqs, steps):\n    for step in range(steps):\n"
                 "        idx, tok = model(seqs)\n        seqs = torch.cat([seqs[idx], tok], -1)\n    return seqs\n",
                 # one arm of a test the loop does not change: a run that takes it grows every step
                 "import torch\ndef gen(step, x, logits, n, incremental):\n    for _ in range(n):\n"
                 "        y = step(x)\n        if incremental:\n            logits = torch.cat([logits, y], dim=1)\n"
                 "        else:\n            logits = y\n    return logits\n",
                 # the concatenation in the file's own helper, called in the generation loop
                 "import torch\nclass Search:\n    @staticmethod\n    def append_token(xs, x):\n"
                 "        return torch.cat((xs, x.view(1)))\n    def run(self, ys, steps):\n"
                 "        for _ in range(steps):\n            ys = self.append_token(ys, self.best(ys))\n        return ys\n",
                 # a decoder's step method, through the instance an attribute may hold, its result unpacked
                 "import torch\nclass Greedy:\n    def update(self, tokens, logits):\n"
                 "        nxt = logits.argmax(dim=-1)\n        tokens = torch.cat([tokens, nxt[:, None]], dim=-1)\n"
                 "        return tokens, (tokens[:, -1] == 0).all()\nclass Beam:\n    def update(self, tokens, logits):\n"
                 "        return tokens, True\nclass Task:\n    def __init__(self, beam):\n        if beam:\n"
                 "            self.decoder = Beam()\n        else:\n            self.decoder = Greedy()\n"
                 "    def loop(self, tokens, n):\n        for i in range(n):\n"
                 "            tokens, done = self.decoder.update(tokens, self.model(tokens))\n"
                 "            if done:\n                break\n        return tokens\n",
                 # the grown sequence kept in the hypotheses' field, the search run at every step
                 "from typing import List, NamedTuple\nimport torch\nclass Hyp(NamedTuple):\n"
                 "    yseq: torch.Tensor\n    score: float\nclass Search:\n    def append_token(self, xs, x):\n"
                 "        x = torch.tensor([x], dtype=xs.dtype)\n        return torch.cat((xs, x))\n"
                 "    def search(self, hyps: List[Hyp]):\n        best = []\n        for hyp in hyps:\n"
                 "            for j in self.top(hyp):\n"
                 "                best.append(Hyp(yseq=self.append_token(hyp.yseq, j), score=0.0))\n"
                 "        return best\n    def forward(self, hyps, maxlen):\n        for i in range(maxlen):\n"
                 "            hyps = self.search(hyps)\n        return hyps\n",
                 # beam search rebuilding its prefixes: repeated, grown, gathered back every step
                 "import torch\ndef beam(model, prefixes, k, steps):\n    for i in range(steps):\n"
                 "        idx, tok = model(prefixes)\n        prefixes = prefixes.unsqueeze(1).repeat(1, k, 1)\n"
                 "        prefixes = torch.cat((prefixes, tok.unsqueeze(2)), dim=2)\n"
                 "        prefixes = prefixes.view(-1, k * k, prefixes.size(2)).gather(1, idx)\n    return prefixes\n",
                 # one tensor per layer, each grown once per step of the outer loop; through a temporary
                 "import torch\ndef gen(step, layers, n):\n    for i in range(n):\n        new = step(i)\n"
                 "        for j in range(len(layers)):\n            layers[j] = torch.cat((layers[j], new[j]), dim=2)\n"
                 "    return layers\n",
                 "import torch\ndef gen(step, attn, idx, n):\n    for i in range(n):\n        new = step(i)\n"
                 "        for j in range(len(new)):\n            grown = torch.cat((attn[j], new[j]), dim=2)\n"
                 "            attn[j] = grown.view(-1, 4, grown.size(2)).gather(1, idx)\n    return attn\n",
                 # a list appended every step and joined inside the loop; the first step's value set in the arm of
                 # a None test of the grown name
                 "import torch\ndef gen(model, x, n):\n    seq = [x]\n    for _ in range(n):\n"
                 "        inp = torch.cat(seq, 1)\n        seq.append(model(inp)[:, -1:])\n    return inp\n",
                 "import torch\ndef gen(model, x, n):\n    outs = []\n    while len(outs) < n:\n"
                 "        h = model(torch.stack(outs, 1) if outs else x)\n        outs += [h]\n    return outs\n",
                 "import torch\ndef gen(model, x, n):\n    out = None\n    for t in range(n):\n        y = model(x)\n"
                 "        if out is None:\n            out = y\n        else:\n"
                 "            out = torch.cat((out, y), dim=1)\n    return out\n",
                 # state kept between calls grown through a local name and stored back (a key/value cache on the
                 # module, or in a dict the caller passes in), also through a slice or a tuple
                 "import torch\nclass Attn:\n    def complete(self, k):\n        if self._state:\n"
                 "            pk = self._state['past_keys']\n            nk = torch.cat([pk, k], dim=1)\n"
                 "        else:\n            nk = k\n        self._state['past_keys'] = nk[:, self.offset:]\n"
                 "        return nk\n",
                 "import torch\ndef attend(q, k, v, cache, key, offset):\n    if offset > 0:\n"
                 "        k_top, v_top = cache[key]\n        k = torch.cat([k_top, k], dim=-2)\n"
                 "        v = torch.cat([v_top, v], dim=-2)\n    cache[key] = k, v\n    return q @ k\n",
                 "import torch\ndef shift(x, cache, key):\n    if key in cache:\n"
                 "        x = torch.cat([cache[key], x], dim=-2)\n    cache[key] = x\n    return x\n",
                 # the same through a helper nested in the function the cache is passed to
                 "import torch\ndef attention(q, cache=None):\n    def update(layer, key):\n"
                 "        out = layer(q)\n        if cache is not None:\n            res = cache[key]\n"
                 "            res = torch.cat([res, out], dim=1)\n            cache[key] = res\n"
                 "        return out\n    return update(None, 'k')\n",
                 # the previous call's state (a parameter that defaults to None) grown and handed back
                 "import torch\nclass Attn:\n    def forward(self, x, previous_states=None):\n"
                 "        q, states = self.proj(x).split((8, 16), dim=2)\n        if previous_states is not None:\n"
                 "            states = torch.cat((previous_states, states), dim=0)\n"
                 "        return self.attend(q, states), states\n",
                 "import torch\nclass Attn:\n    def forward(self, h, layer_past=None, use_cache=False):\n"
                 "        q, k, v = self.c_attn(h).split(64, dim=2)\n        if layer_past is not None:\n"
                 "            past_key, past_value = layer_past\n            k = torch.cat((past_key, k), dim=-2)\n"
                 "            v = torch.cat((past_value, v), dim=-2)\n        k_cache = k\n"
                 "        present = (k_cache, v) if use_cache else None\n        return self.attn(q, k, v), present\n",
                 # the previous calls' cache named so, grown and used while only the new piece is handed back
                 "import torch\nclass Attn:\n    def forward(self, x, layer_past=None):\n"
                 "        k, v = self.key(x), self.value(x)\n        present = torch.stack((k, v))\n"
                 "        if layer_past is not None:\n            past_key, past_value = layer_past\n"
                 "            k = torch.cat((past_key, k), dim=-2)\n        return self.attn(x, k, v), present\n",
                 # a cache object extended in place by the model at every step; a cache passed on one path only
                 "import torch\ndef answer(model, ids, cache, n):\n    out = [ids[:, -1:]]\n    for i in range(n):\n"
                 "        o = model(input_ids=out[-1], past_key_values=cache)\n"
                 "        out.append(o.logits[:, -1:].argmax(-1))\n    return out\n",
                 "import torch\ndef gen(model, ids, n, reset):\n    for i in range(n):\n        if i == 0:\n"
                 "            out = model(input_ids=ids, use_cache=True)\n            past = out.past_key_values\n"
                 "        else:\n            out = model(input_ids=ids[:, -1:], use_cache=True,\n"
                 "                        past_key_values=past if not reset else None)\n"
                 "            past = out.past_key_values\n        ids = out.logits[:, -1:].argmax(-1)\n    return ids\n",
                 "import torch\nclass GPT:\n    def forward_with_past(self, idx, past=None):\n"
                 "        if past is not None:\n            past = torch.cat(past, dim=-2)\n"
                 "        return self.blocks(self.emb(idx), past)\n",
                 # the tokens so far, a list appended every step, made a device tensor at each step
                 "import torch\ndef gen(model, ids, n, dev):\n    out = list(ids)\n    for i in range(n):\n"
                 "        hist = torch.as_tensor([out], device=dev)\n        tok = model(hist)\n"
                 "        out.append(tok)\n        if tok == 2:\n            out[-1] = 0\n    return out\n",
                 # a mask kept to the configured context window, padded by one every step (it fills the window)
                 "import torch\nimport torch.nn.functional as F\ndef gen(self, out, mask, n):\n"
                 "    for _ in range(n):\n        mask = mask[:, -self.max_seq_len:]\n"
                 "        nxt = self.net(out[:, -self.max_seq_len:], mask=mask)[:, -1:].argmax(-1)\n"
                 "        mask = F.pad(mask, (0, 1), value=True)\n    return mask\n",
                 # the cache protocol of an attention layer: the cache appends this call's keys and values
                 "import torch\nclass Attn:\n    def forward(self, h, past_key_value=None, cache_kwargs=None):\n"
                 "        k, v = self.k(h), self.v(h)\n        if past_key_value is not None:\n"
                 "            k, v = past_key_value.update(k, v, self.layer_idx, cache_kwargs)\n"
                 "        return self.attn(h, k, v)\n",
                 # a cache kept on the object between calls of a decoding step
                 "import torch\nclass Gen:\n    def next(self, tok):\n"
                 "        out = self.model(input_ids=tok, past_key_values=self.kv, use_cache=True)\n"
                 "        self.kv = out.past_key_values\n        return out.logits[:, -1].argmax(-1)\n",
                 # the state rebound to the grown pair before the names are used for something else
                 "import torch\ndef attn(q, kv, past_key_value=None):\n    k, v = kv.chunk(2, -1)\n"
                 "    if past_key_value is not None:\n"
                 "        if len(past_key_value) != 0:\n"
                 "            k = torch.cat([past_key_value[0], k], dim=3)\n"
                 "            v = torch.cat([past_key_value[1], v], dim=2)\n        past_key_value = (k, v)\n"
                 "    k = k.repeat(1, 2, 1, 1)\n    return q @ k @ v, past_key_value\n",
                 # a cache written at an advancing position and read up to it
                 "class Attention:\n    def forward(self, x, start_pos):\n        bsz, n, _ = x.shape\n"
                 "        self.cache_k[:bsz, start_pos:start_pos + n] = self.wk(x)\n"
                 "        keys = self.cache_k[:bsz, :start_pos + n]\n        return x @ keys\n",
                 # beam search rebuilding its hypotheses in a buffer of their shape, one step longer each time
                 "import torch\ndef beam(self, steps, k):\n    for _ in range(steps):\n"
                 "        prev = torch.zeros(self.beams.size(), dtype=torch.long)\n        for i in range(k):\n"
                 "            prev[i] = self.beams[self.src[i]]\n"
                 "        self.beams = torch.cat([prev, self.best(k).unsqueeze(2)], dim=2)\n",
                 # a loader the model cannot name (a parameter no call of the file shows), whose batches the loop
                 # moves to the device first thing
                 "import torch\ndef rank(self, test_loader):\n    rec = torch.tensor([], device=self.device)\n"
                 "    for us, items in test_loader:\n        us = us.to(self.device)\n"
                 "        items = items.to(self.device)\n        top = torch.gather(items, 1, self.score(us, items))\n"
                 "        rec = torch.cat((rec, top), 0)\n    return rec.cpu().numpy()\n",
                 # outputs collected on the device batch by batch, the loader passed in by the file's own call
                 "import torch\nfrom torch_geometric.loader import DataLoader\nclass Run:\n"
                 "    def val(self, model, loader, device):\n        preds = torch.Tensor([]).to(device)\n"
                 "        for step, data in enumerate(loader):\n            out = model(data.to(device))\n"
                 "            preds = torch.cat([preds, out.detach()], dim=0)\n        return preds\n"
                 "    def run(self, model, ds, device):\n        return self.val(model, DataLoader(ds, 32), device)\n",
                 # a name bound to the concatenation, a list of sequences rebuilt in a while loop
                 "import torch\ndef extend(seq, tok):\n    seq = torch.cat([seq, tok.view(1)])\n    return seq\n"
                 "def decode(model, seqs):\n    while not done(seqs):\n"
                 "        seqs = [extend(s, model(s)) for s in seqs]\n    return seqs\n",
                 # the steps counted by a method of the file (``return range(n)``), the ids repeated for the samples
                 # at the first step, and an end check giving back the unfinished rows (``ids[keep]``)
                 "import torch\nclass Gen:\n    def _steps(self):\n        n = self.max_new or self.max_len - 1\n"
                 "        return range(n)\n    def _step(self, step, ids):\n        if step == 0:\n"
                 "            ids = ids.repeat(self.n, 1)\n        nxt = torch.multinomial(self.model(ids), 1)\n"
                 "        ids = torch.cat([ids, nxt], 1)\n        return ids, nxt\n    def _end(self, ids):\n"
                 "        keep = ids[:, -1] != self.eos\n        if not keep.all():\n            ids = ids[keep]\n"
                 "        return ids, len(ids) == 0\n    def sample(self, ids):\n        for step in self._steps():\n"
                 "            ids, nxt = self._step(step, ids)\n            ids, stop = self._end(ids)\n"
                 "            if stop:\n                break\n        return ids\n",
                 # gradient accumulation: predictions gathered until enough samples are in, then emptied
                 "import torch\ndef train(model, opt, loader, device):\n    acc = torch.Tensor([]).to(device)\n"
                 "    n = 0\n    for x in loader:\n        p = model(x.to(device))\n        n += p.shape[0]\n"
                 "        if n < 128:\n            acc = torch.cat((acc, p))\n        else:\n"
                 "            p.sum().backward()\n            opt.step()\n            n = 0\n"
                 "            acc = torch.Tensor([]).to(device)\n",
                 # the first step sets the value, the others grow it
                 "import torch\ndef gen(model, x, steps):\n    for t in range(steps):\n        y = model(x)\n"
                 "        if t == 0:\n            out = y\n        else:\n            out = torch.cat([out, y], 1)\n"
                 "    return out\n",
                 # the previous calls' cache read through a name bound to one item of it (Bark's attention)
                 "import torch\nclass Attn:\n    def forward(self, x, past_kv=None, use_cache=False):\n"
                 "        q, k, v = self.c_attn(x).split(8, dim=2)\n        if past_kv is not None:\n"
                 "            past_key = past_kv[0]\n            k = torch.cat((past_key, k), dim=-2)\n"
                 "        present = (k, v) if use_cache else None\n        return q @ k.transpose(-2, -1) @ v, present\n",
                 # handed back packed into one tensor before the keys get a fixed prefix (AudioLM's null keys)
                 "import torch\nclass Attn:\n    def forward(self, x, ret=False, kv_cache=None):\n"
                 "        q, k, v = self.q(x), self.k(x), self.v(x)\n        if kv_cache is not None:\n"
                 "            ck, cv = kv_cache\n            k = torch.cat((ck, k), dim=-2)\n"
                 "        kv_cache = torch.stack((k, v))\n        k = torch.cat((self.null_k, k), dim=-2)\n"
                 "        return self.attend(q, k, v), kv_cache\n",
                 # a forward hook's cache: the first call stores, the later calls append (Whisper's kv hooks)
                 "import torch\ndef install(model):\n    cache = {}\n    def save(module, _, output):\n"
                 "        if module not in cache:\n            cache[module] = output\n        else:\n"
                 "            cache[module] = torch.cat([cache[module], output], dim=1).detach()\n"
                 "        return cache[module]\n    return cache, save\n",
                 # a carried cache rebuilt from its own items, each one step longer (older GPT-2 loops)
                 # a loop over the pieces of a tensor (as many as its length gives), the output grown per piece
                 "import torch\ndef stream(model, wav, seg):\n    out = None\n    for chunk in wav.split(seg, dim=-1):\n"
                 "        y = model(chunk)\n        out = y if out is None else torch.cat([out, y], dim=-1)\n"
                 "    return out\n",
                 # an ESPnet decoder layer: this step's output joined to the cache of the earlier ones, handed back
                 "import torch\nclass DecoderLayer(torch.nn.Module):\n"
                 "    def forward(self, tgt, mask, memory, cache=None):\n        x = self.ff(self.attn(tgt[:, -1:], tgt))\n"
                 "        if cache is not None:\n            x = torch.cat([cache, x], dim=1)\n"
                 "        return x, mask, memory\n",
                 "import torch\ndef gen(model, x, past, n):\n    for _ in range(n):\n        new = model(x)\n"
                 "        past = tuple((torch.cat([pk, k], dim=2), torch.cat([pv, v], dim=2))\n"
                 "                     for (pk, pv), (k, v) in zip(past, new))\n    return past\n")
    # the broad path (broad_joins.py): the op on itself in a loop, kept between calls, or down a recursion
    must_fire += (
        "import torch\nfrom einops import pack\ndef gen(model, codes, n):\n    for _ in range(n):\n        sample = model(codes).argmax(-1)\n        codes, _ = pack([codes, sample], 'b *')\n    return codes\n",
        'import torch\ndef gen(model, ids, eos):\n    while True:\n        nxt = model(ids).argmax(-1, keepdim=True)\n        ids = torch.hstack([ids, nxt])\n        if nxt.item() == eos:\n            break\n    return ids\n',
        'import torch\nclass Memory:\n    def write(self, key, x):\n        self.store[key] = torch.cat([self.store[key], x], 0)\n',
        'import torch\ndef expand(model, seq, depth):\n    nxt = model(seq).argmax(-1, keepdim=True)\n    seq = torch.column_stack((seq, nxt))\n    return seq if depth == 0 else expand(model, seq, depth - 1)\n',
        'import torch\ndef decode(model, x, n):\n    toks = []\n    for _ in range(n):\n        toks.append(model(x).argmax(-1))\n        x = torch.tensor(toks)\n    return x\n',
        # a generation whose keywords come through a dict the function builds (BE-GREAT, REaLTabFormer's sampler)
        "import torch\ndef sample(self, ids, n, eos):\n    kwargs = dict(max_length=n, do_sample=True)\n"
        "    return self.model.generate(ids, **kwargs)\n",
        "import torch\ndef sample(self, ids, eos):\n    kwargs = {'input_ids': ids}\n    kwargs['eos_token_id'] = eos\n"
        "    return self.model.generate(**kwargs)\n",
        # a memory kept in a dict the caller holds, appended or prepended in two arms of a test (Cutie's
        # _add_last_dim(self.v, obj, value, prepend=...)): each arm grows it; the other arm is no reset
        "import torch\ndef add(d, key, new, prepend=False):\n    if key in d:\n        if prepend:\n"
        "            d[key] = torch.cat([new, d[key]], -1)\n        else:\n            d[key] = torch.cat([d[key], new], -1)\n"
        "    else:\n        d[key] = new\n",
        # a size read of the sequence the loop grows: a prefix up to it, a causal mask of its size (TerraMind)
        "import torch\ndef gen(model, out, emb, n):\n    for i in range(n):\n        cur_len = out.shape[1]\n"
        "        y = model(out) + emb[:, :cur_len]\n        nxt = y[:, -1].argmax(-1, keepdim=True)\n"
        "        out = torch.cat((out, nxt), dim=-1)\n    return out\n",
        "import torch\ndef gen(model, out, eos):\n    while True:\n        n = out.size(1)\n"
        "        mask = torch.ones((n, n), dtype=torch.bool).triu(1)\n        nxt = model(out, mask)[:, -1:]\n"
        "        out = torch.cat([out, nxt], 1)\n        if (nxt == eos).all():\n            break\n    return out\n",
    )
    must_not_fire = (# per-level lists walked side by side and moved to the device: no loader's batches
                     "import torch\ndef head(self, feats, anchors):\n    out = torch.zeros(0, 4, device=self.device)\n"
                     "    for f, a in zip(feats, anchors):\n        f = f.to(self.device)\n"
                     "        out = torch.cat((out, self.reg(f) + a), 0)\n    return out\n",
                     # items rebuilt once per layer, or from another sequence than the carried one
                     "import torch\ndef f(layers, past, x):\n    for layer in layers:\n"
                     "        past = [torch.cat([p, layer(x)], 1) for p in past]\n    return past\n",
                     "import torch\ndef f(model, prefixes, x, n):\n    for _ in range(n):\n"
                     "        past = [torch.cat([p, model(x)], 1) for p in prefixes]\n    return past\n",
                     # a fixed number of pieces (``chunk(n)``), and a string's parts: no steps of the data
                     "import torch\ndef heads(x, attn, n):\n    out = x[..., :0]\n    for h in x.chunk(n, dim=-1):\n"
                     "        out = torch.cat([out, attn(h)], -1)\n    return out\n",
                     "import torch\ndef emb(table, name, out):\n    for part in name.split('.'):\n"
                     "        out = torch.cat([out, table[part]], 0)\n    return out\n",
                     # a streaming remainder of one frame put before each chunk, then a tail appended (FunASR's CIF)
                     "import torch\nclass P:\n    def chunk(self, hidden, cache=None, final=False):\n"
                     "        alphas = self.out(hidden)\n        if cache is not None:\n"
                     "            alphas = torch.cat((cache['alphas'], alphas), dim=1)\n"
                     "        if final:\n            alphas = torch.cat((alphas, self.tail), dim=1)\n"
                     "        cache['alphas'] = alphas[:, -1:]\n        return self.fire(alphas)\n",
                     # an item of the previous state joined with a fixed prefix, handed back cut to a window
                     "import torch\nclass Attn:\n    def forward(self, x, past_kv=None):\n"
                     "        k = self.k(x)\n        if past_kv is not None:\n            past_key = past_kv[0]\n"
                     "            k = torch.cat((past_key, k), dim=-2)\n            k = k[:, :, -16:]\n"
                     "        return self.attn(x, k), (k,)\n",
                     # the hook's cache replaced whole on one arm, a fixed piece concatenated to a local otherwise
                     "import torch\ndef install(model):\n    cache = {}\n    def save(module, _, output):\n"
                     "        if module not in cache:\n            cache[module] = output\n"
                     "        out = torch.cat([output, model.pad], dim=1).detach()\n        return out\n"
                     "    return cache, save\n",
                     # a fresh value on every path of the iteration (both arms of a test)
                     "import torch\ndef gen(model, x, steps, a, b):\n    for t in range(steps):\n"
                     "        if t % 2:\n            out = a\n        else:\n            out = b\n"
                     "        out = torch.cat([out, model(x)], 1)\n    return out\n",
                     "import torch\nids = torch.cat([ids, nxt], dim=1)\n",
                     # a helper that returns a list of items (not steps); an end check that cuts the ids to a window
                     "import torch\nclass Gen:\n    def _parts(self):\n        return self.parts\n"
                     "    def _step(self, ids):\n        return torch.cat([ids, self.model(ids)], 1)\n"
                     "    def run(self, ids):\n        for p in self._parts():\n            ids = self._step(ids)\n"
                     "        return ids\n",
                     "import torch\nclass Gen:\n    def _steps(self):\n        return range(self.n)\n"
                     "    def _step(self, ids):\n        return torch.cat([ids, self.model(ids)], 1)\n"
                     "    def _end(self, ids):\n        return ids[:, -16:]\n    def run(self, ids):\n"
                     "        for i in self._steps():\n            ids = self._step(ids)\n            ids = self._end(ids)\n"
                     "        return ids\n",
                     # outputs collected batch by batch on the host; a loop over a list of items
                     "import torch\nfrom torch.utils.data import DataLoader\ndef val(model, ds):\n"
                     "    preds = torch.Tensor([])\n    for x in DataLoader(ds, batch_size=8):\n"
                     "        preds = torch.cat([preds, model(x).cpu()], dim=0)\n    return preds\n",
                     "import torch\ndef gather(parts, acc):\n    for p in parts:\n"
                     "        acc = torch.cat([acc, p], dim=0)\n    return acc\n",
                     # a static cache (fixed length, written in place); a cache read once, outside a loop
                     "import torch\ndef generate(model, tok, n):\n    past = StaticCache(config=model.config, max_cache_len=256)\n"
                     "    for _ in range(n):\n        out = model(input_ids=tok, past_key_values=past, use_cache=True)\n"
                     "        past = out.past_key_values\n    return out\n",
                     "import torch\ndef step(model, tok, past):\n    out = model(input_ids=tok, past_key_values=past)\n"
                     "    past = out.past_key_values\n    return out, past\n",
                     # a slice whose start follows the end at every step: one new step fed with a cache
                     "import torch\ndef gen(model, seq, start, total):\n    prev = 0\n"
                     "    for offset in range(start, total):\n        nxt = model(seq[..., prev:offset])\n"
                     "        seq[..., offset] = nxt\n        prev = offset\n",
                     # a size following the counter of a loop that grows nothing
                     "import torch\ndef pyramid(x, n):\n    outs = []\n    for i in range(n):\n"
                     "        outs.append(x[:, :4] * torch.ones(i + 1, 4).sum())\n    return outs\n",
                     # the beam's alias is the model's output, not the state rearranged
                     "import torch\ndef beam(model, alive, steps):\n    for step in range(steps):\n"
                     "        ids, sel = model(alive)\n        alive = torch.cat([alive.index_select(0, sel), ids], -1)\n"
                     "        preds = model(alive)\n        alive = preds.index_select(0, sel)\n    return alive\n",
                     # the rest of a weight from a position written back, a prefix read: no advancing cache
                     "import torch\ndef merge(w: torch.Tensor, b, r):\n    n = w.shape[1] // r * r\n"
                     "    head = w[:, :n] + b\n    w[:, n:] = w[:, n:] * 2\n    return head\n",
                     # an optional prefix (a class token, denoising queries) only handed back: no cache read
                     "import torch\ndef post_pool(x, heads, cls_tok=None):\n    size = [x.shape[2], x.shape[3]]\n"
                     "    x = x.reshape(-1, heads, x.shape[1], size[0] * size[1])\n    if cls_tok is not None:\n"
                     "        x = torch.cat((cls_tok, x), dim=2)\n    return x, size\n",
                     "import torch\ndef f(a, b, keep):\n    y = torch.cat([a, b], dim=1) if keep else a\n    return y\n",
                     "import torch\ndef f(xs, b, keep):\n    for a in xs:\n"
                     "        y = torch.cat([a, b], dim=1) if keep else None\n    return y\n",
                     # padded once, not carried; padded by a runtime amount; a loop over items, not steps
                     "import torch.nn.functional as F\ndef f(x, n):\n    for _ in range(n):\n"
                     "        y = F.pad(x, (0, 1))\n    return y\n",
                     "import torch.nn.functional as F\ndef f(x, n, k):\n    for _ in range(n):\n"
                     "        x = F.pad(x, (0, k))\n    return x\n",
                     "import torch.nn.functional as F\ndef f(x, layers):\n    for layer in layers:\n"
                     "        x = F.pad(x, (1, 1))\n        x = layer(x)\n    return x\n",
                     # each element concatenated once; cut back after growing; a temporary not stored back
                     "import torch\ndef join(xs, ys, n):\n    for j in range(n):\n"
                     "        xs[j] = torch.cat([xs[j], ys[j]])\n    return xs\n",
                     "import torch\nfor _ in range(n):\n    ids = torch.cat([ids, nxt], dim=1)\n    ids = ids[:, -10:]\n",
                     "import torch\nfor _ in range(n):\n    t = torch.cat([h, a], 1)\n    h = block(t)\n",
                     "import torch\ndef f(self, k):\n    self.queue = torch.cat([self.queue, k])\n"
                     "    self.queue = self.queue[-100:]\n",
                     "import torch\ndef f(out, a):\n    out['x'] = torch.cat([a, a])\n",
                     "import torch\ndef f(state, a):\n    state.x = torch.cat([state.x, a])\n",
                     "import torch\nfor _ in range(n):\n    out = torch.cat([a, b], dim=1)\n",
                     "import torch\nfor i in range(n):\n    if i % 8:\n        h = torch.cat([h, a], 1)\n"
                     "    else:\n        h = a\n",   # the arm changes with the loop: the value is reset
                     "import random\nimport torch\nfor _ in range(n):\n    if random.random() < 0.5:\n"
                     "        h = torch.cat([h, a], 1)\n    else:\n        h = a\n",
                     "import torch\nfor _ in range(n):\n    ids = torch.cat([ids, nxt], dim=1)[:, -10:]\n",
                     "import torch\nfor block, skip in zip(blocks, skips):\n    h = torch.cat([h, skip], dim=1)\n"
                     "    h = block(h)\n",
                     "import torch\nfor ts in inputs:\n    ts = torch.cat([pad, ts])\n",
                     "import torch\nfor c in self.conditions:\n    emb = torch.cat([emb, embed(c)], dim=1)\n",
                     # fixed-size windows, chunks, one column per step, a Python list's prefix
                     "import torch\ndef f(x: torch.Tensor, n, c):\n    for st in range(0, n, c):\n"
                     "        en = min(st + c, n)\n        y = x[:, st:en]\n        z = x[:, st:st + 4]\n        w = x[:, st]\n",
                     "import torch\ndef f(names, steps):\n    for t in range(steps):\n        print(names[:t])\n",
                     # a name bound to a list of items, not steps
                     "import torch\ndef f(model, x, items):\n    it = items\n    for i in it:\n        model(x[:, :i])\n",
                     "import torch\ndef f(model, x, loader, bar):\n    it = bar(loader)\n    for i in it:\n        model(x[:, :i])\n",
                     "import torch\nfor _ in range(n):\n    ids = torch.cat([ids[:, -10:], nxt], dim=1)\n",
                     "import torch\ndef pair(a, b):\n    return torch.cat((b, b))\nfor _ in range(n):\n"
                     "    ys = pair(ys, y)\n",   # the loop's value is not one of the helper's concatenated operands
                     "import torch\ndef keep(a, b):\n    return torch.cat((a, b))[-8:]\nfor _ in range(n):\n"
                     "    ys = keep(ys, y)\n",
                     # a step helper called once after the loop, its result not fed back
                     "import torch\ndef add_eos(ids, eos):\n    return torch.cat([ids, eos.view(1)])\n"
                     "def decode(model, ids, n):\n    for _ in range(n):\n        model(ids)\n"
                     "    ids = add_eos(ids, model.eos)\n    return ids\n",
                     "import torch\ndef append_token(xs, x):\n    return torch.cat((xs, x.view(1)))\n"
                     "def decode(model, ys, steps):\n    outs = []\n    for t in range(steps):\n"
                     "        outs.append(append_token(ys, model(ys)))\n    return outs\n",
                     # a BOS built once, prepended once before the loop; end markers added to final hypotheses
                     "import torch\nclass Gen:\n    def __init__(self):\n        self.bos = torch.tensor([1])\n"
                     "    def with_bos(self, ids):\n        return torch.cat([self.bos, ids])\n"
                     "    def run(self, ids, n):\n        ids = self.with_bos(ids)\n        for _ in range(n):\n"
                     "            ids = self.step(ids)\n        return ids\n",
                     "import torch\ndef add_eos(xs, eos):\n    return torch.cat((xs, torch.tensor([eos])))\n"
                     "def finish(hyps, eos):\n    return [h._replace(yseq=add_eos(h.yseq, eos)) for h in hyps]\n",
                     # a list joined after its loop, a bounded deque, a loop over items, a list started anew each
                     # step, a window that drops its oldest; a value reset to None in the loop
                     "import torch\ndef f(model, x, n):\n    outs = []\n    for t in range(n):\n"
                     "        outs.append(model(x))\n    return torch.stack(outs, 1)\n",
                     "import torch\nfrom collections import deque\ndef f(model, x, n, k):\n    hist = deque(maxlen=k)\n"
                     "    for t in range(n):\n        hist.append(model(x))\n        y = torch.stack(list(hist))\n"
                     "    return y\n",
                     "import torch\ndef f(model, xs):\n    outs = []\n    for x in xs:\n        outs.append(model(x))\n"
                     "        y = torch.cat(outs)\n    return y\n",
                     "import torch\ndef f(model, x, n):\n    for t in range(n):\n        parts = []\n"
                     "        for head in model.heads:\n            parts.append(head(x))\n"
                     "        x = torch.cat(parts, 1)\n    return x\n",
                     "import torch\ndef f(model, x, n, k):\n    win = [x]\n    for t in range(n):\n"
                     "        win.append(model(torch.cat(win, 1)))\n        if len(win) > k:\n            win.pop(0)\n"
                     "    return win\n",
                     "import torch\ndef f(model, x, n):\n    out = None\n    for t in range(n):\n"
                     "        if out is None:\n            out = model(x)\n        else:\n"
                     "            out = torch.cat((out, x), 1)\n        if t % 4 == 0:\n            out = None\n"
                     "    return out\n",
                     # a dense block: a counted loop over the module's layers joins every layer's features
                     "import torch\nclass Dense(torch.nn.Module):\n    def forward(self, x):\n"
                     "        for i in range(self.num_layers):\n            x = torch.cat([x, self.layers[i](x)], 1)\n"
                     "        return x\n",
                     "import torch\nclass Dense(torch.nn.Module):\n    def forward(self, x):\n        feats = [x]\n"
                     "        for i in range(len(self.layers)):\n            feats.append(self.run(i, torch.cat(feats, 1)))\n"
                     "        return torch.cat(feats, 1)\n",
                     # the stored state cut to a fixed window, read without being stored back, or set anew too
                     "import torch\nclass A:\n    def f(self, k):\n        pk = self._state['k']\n"
                     "        nk = torch.cat([pk, k], dim=1)\n        self._state['k'] = nk[:, -16:]\n        return nk\n",
                     "import torch\nclass A:\n    def f(self, k):\n        pk = self._state['k']\n"
                     "        return torch.cat([pk, k], dim=1)\n",
                     "import torch\nclass A:\n    def f(self, k):\n        pk = self._state['k']\n"
                     "        nk = torch.cat([pk, k], dim=1)\n        self._state['k'] = nk\n"
                     "        if self.reset:\n            self._state['k'] = k\n        return nk\n",
                     "import torch\ndef f(x, y, out):\n    z = torch.cat([x, x], 1)\n    out['z'] = z\n",
                     # an optional prefix joined and returned alone; memories cut to a fixed length; two inputs
                     "import torch\nclass Prefix:\n    def forward(self, tokens, prefix=None):\n"
                     "        x = self.emb(tokens)\n        if prefix is not None:\n"
                     "            x = torch.cat([prefix, x], 1)\n        return x\n",
                     "import torch\nclass Mem:\n    def forward(self, x, mems=None):\n        h = self.proj(x)\n"
                     "        if mems is not None:\n            h = torch.cat([mems, h], 0)\n"
                     "        return self.attn(h), h[-self.mem_len:]\n",
                     "import torch\nclass Skip:\n    def forward(self, x, skip=None):\n        if skip is not None:\n"
                     "            x = torch.cat([x, skip], 1)\n        return self.conv(x), x\n",
                     # an optional context of another name used and not handed back; a cache object reset or
                     # not used, a prefix cache over a list of prompts
                     "import torch\nclass Cross:\n    def forward(self, x, context=None):\n        k = self.key(x)\n"
                     "        if context is not None:\n            k = torch.cat((context, k), dim=-2)\n"
                     "        return self.attn(x, k)\n",
                     "import torch\ndef gen(model, ids, n):\n    cache = None\n    for i in range(n):\n"
                     "        o = model(input_ids=ids, past_key_values=cache)\n"
                     "        ids = o.logits[:, -4:].argmax(-1)\n    return ids\n",
                     "import torch\ndef gen(model, ids, cache, n):\n    for i in range(n):\n"
                     "        o = model(input_ids=ids, past_key_values=cache, use_cache=False)\n    return o\n",
                     "import torch\ndef score(model, prompts, cache):\n    for p in prompts:\n"
                     "        o = model(input_ids=p, past_key_values=cache)\n    return o\n",
                     "import torch\nclass Heads:\n    def forward(self, x, parts=None):\n"
                     "        if parts is not None:\n            x = torch.cat(parts, dim=-1)\n        return x\n",
                     # a list of the last k tokens (dropped from the front), on the host
                     "import torch\ndef gen(model, ids, n, dev, k):\n    out = list(ids)\n    for i in range(n):\n"
                     "        hist = torch.as_tensor([out], device=dev)\n        out.append(model(hist))\n"
                     "        if len(out) > k:\n            out.pop(0)\n    return out\n",
                     # a dict's update; a cache the caller always passes (a parameter without a None default)
                     "import torch\ndef f(h, cache_files=None):\n    if cache_files is not None:\n"
                     "        cache_files.update(h)\n    return h\n",
                     # a prefill: the cache emptied first, then filled from the prompt
                     "import torch\nclass Gen:\n    def prefill(self, ids):\n        self.kv = None\n"
                     "        out = self.model(input_ids=ids, past_key_values=self.kv, use_cache=True)\n"
                     "        self.kv = out.past_key_values\n        return out\n",
                     "import torch\nclass NoTest:\n    def forward(self, x, past=None):\n"
                     "        h = torch.cat([past, self.proj(x)], 1)\n        return self.attn(h), h\n",
                     # a fixed-size cache written by index and read whole; a window; a prefix not where it writes
                     "class Static:\n    def forward(self, x, pos, n):\n        b = x.shape[0]\n"
                     "        self.cache_k[:b, pos] = x\n        keys = self.cache_k[:b]\n"
                     "        win = self.cache_k[:b, pos:pos + 4]\n        head = self.cache_k[:b, :n]\n"
                     "        return keys, win, head\n",
                     # a buffer of another shape each step (not the carried tensor's)
                     "import torch\ndef f(self, n):\n    while True:\n"
                     "        prev = torch.zeros(self.beams.size(0), 1)\n"
                     "        self.beams = torch.cat([prev, n], dim=2)\n",
                     # features of a fixed number of layers joined in a loop over layers
                     "import torch\ndef f(feats, layers):\n    out = feats[0]\n    for layer in layers:\n"
                     "        prev = torch.zeros_like(out)\n        out = torch.cat([prev, layer(out)], 1)\n"
                     "    return out\n",
                     # the same field of an object of another class: built anew from the same input every step
                     "import torch\ndef with_pos(x, p):\n    return torch.cat([x, p.view(1, -1)])\n"
                     "def run(batch, pos, n):\n    for _ in range(n):\n"
                     "        out = Out(feats=with_pos(batch.feats, pos))\n    return out\n")
    # proven static: DenseNet's pass over the model's layers (a reviewer's 'unsure': the same shapes every call), a window sliced back, a trimmed queue, a value set afresh each step
    must_not_fire += (
        # a data generator's generate given a dict of other options
        "import torch\ndef make(gen, n):\n    options = dict(size=n, seed=0)\n    return gen.generate(**options)\n",
        # features joined side by side into an entry of a graph: the new piece another entry of the same holder, or
        # the holder made in the function (DGL-LifeSci's JTVAE dataset)
        "import torch\ndef build(g):\n    g.edata['x'] = torch.cat([g.edata.pop('src'), g.edata['x']], dim=1)\n    return g\n",
        "import torch\ndef build(smiles, make):\n    g = make(smiles)\n    g.ndata['h'] = torch.cat([g.ndata['a'] * 2, g.ndata['h']], 1)\n"
        "    return g\n",
        # a loop that does not grow the sequence whose length it reads (the lines of a growing loop: test_growth_outside.py)
        "import torch\ndef refine(model, x, emb, n):\n    for i in range(n):\n        cur_len = x.shape[1]\n"
        "        x = model(x + emb[:, :cur_len])\n        m = torch.ones(cur_len, cur_len)\n    return x\n",
    )
    must_not_fire += (
        # a construction extended by a fixed number of pieces: nothing in the loop reads it (no step)
        'import torch\ndef extend_grid(grid, k):\n    h = (grid[:, [-1]] - grid[:, [0]]) / (grid.shape[1] - 1)\n    for i in range(k):\n        grid = torch.cat([grid[:, [0]] - h, grid], dim=1)\n        grid = torch.cat([grid, grid[:, [-1]] + h], dim=1)\n    return grid\n',
        # the list made a tensor once, at the last step
        'import torch\ndef targets(assign, gts, n):\n    pos = []\n    for i in range(n):\n        pos.append(assign(gts[i]).sum())\n        if i == n - 1:\n            pos = torch.stack(pos)\n    return pos\n',
        'import torch\nclass Dense(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.layers = torch.nn.ModuleList([torch.nn.Conv2d(8, 8, 3) for _ in range(4)])\n    def forward(self, x):\n        for layer in self.layers:\n            x = torch.cat([x, layer(x)], 1)\n        return x\n',
        'import torch\ndef roll(model, x, n):\n    for _ in range(n):\n        nxt = model(x)\n        x = torch.cat([x[:, 1:], nxt], 1)\n    return x\n',
        'import torch\nclass Queue:\n    def push(self, k):\n        self.queue = torch.cat([self.queue, k], 0)\n        self.queue = self.queue[-4096:]\n',
        'import torch\ndef enc(model, batch, extra):\n    out = []\n    for b in batch:\n        h = model(b)\n        h = torch.cat([h, extra], -1)\n        out.append(h)\n    return out\n',
    )

    # session 20 (concat20b): beam rows reordered with ``[idx, :]`` or einops ``repeat``; a state kept on ``self``
    # grown in a method (its rows reordered, started on the first step); a storage read and stored back grown in
    # a loop; a per-key state grown inside a loop over a dict's items
    must_fire += ("import torch\ndef beam(model, ids, n):\n    for _ in range(n):\n        logits = model(ids)\n"
                  "        idx = logits.argmax(-1)\n        ids = torch.cat([ids[idx, :], idx.unsqueeze(-1)], dim=-1)\n"
                  "    return ids\n",
                  "import torch\nfrom einops import repeat\ndef beam(model, out, n, k):\n    for _ in range(n):\n"
                  "        s = model(out).topk(k, dim=-1).indices\n        out = repeat(out, 'b ... -> (b k) ...', k=k)\n"
                  "        out = torch.cat((out, s.view(-1, 1)), dim=-1)\n    return out\n",
                  "import torch\ndef beam(self, ids):\n    while True:\n        cur = torch.zeros(4)\n"
                  "        for g in range(2):\n            ids[g] = ids[g].flip(0)\n"
                  "        ids = torch.cat([ids, cur.unsqueeze(-1)], dim=-1)\n        if self.done:\n            break\n"
                  "    return ids\n",
                  "import torch\nclass Beam:\n    def advance(self, ids, attn, step):\n"
                  "        self.seq = torch.cat([self.seq[self.sel], ids.view(-1, 1)], -1)\n"
                  "        if step == 1:\n            self.attn = attn\n        else:\n"
                  "            self.attn = self.attn[self.sel]\n            self.attn = torch.cat([self.attn, attn], 1)\n",
                  "import torch\ndef forecast(model, batch, futr, n, h):\n    for i in range(n):\n"
                  "        t = batch['temporal']\n        t[:, 0, -h:] = model(batch)\n"
                  "        t = torch.cat((t, futr[:, :, i * h:(i + 1) * h]), dim=-1)\n        batch['temporal'] = t\n",
                  "import torch\nclass Data:\n    def cat(self, new):\n        for k, v in new.items():\n"
                  "            if k not in self._stats:\n                self._stats[k] = v\n"
                  "            elif isinstance(v, torch.Tensor):\n"
                  "                self._stats[k] = torch.cat([self._stats[k], v], dim=0)\n"
                  "            else:\n                self._stats[k] = self._stats[k] + v\n")
    must_fire += ("import torch\ndef attend(q, layer, cache=None):\n    def update(key):\n        out = layer(q)\n"
                  "        res = cache[key]\n        res.append(out.squeeze(1))\n        return torch.stack(res, dim=1)\n"
                  "    return update('k')\n",)
    must_fire += ("import torch\ndef on_policy(model, inputs, config):\n"
                  "    return model.generate(input_ids=inputs['prompts'], generation_config=config)\n",
                  "import torch\nclass VQA:\n    def answer(self, states, n):\n        bos = torch.full((4, 1), 0)\n"
                  "        return self.text_decoder.generate(input_ids=bos, max_length=n, num_beams=3)\n")
    must_fire += (  # session 31 (h32): the caller's container given its item back one piece longer (gsplat, funasr)
        "import torch\ndef sample_add(state, idx):\n    for k, v in state.items():\n"
        "        v_new = torch.zeros((len(idx), *v.shape[1:]))\n        state[k] = torch.cat((v, v_new))\n",
        "import torch\ndef attend(q, k, v, cache):\n    cache['k'] = torch.cat((cache['k'], k), dim=1)\n"
        "    return q @ cache['k'].transpose(1, 2)\n",)
    must_not_fire += (  # a window kept, items paired with another list's by the same key
        "import torch\ndef pair(state, extra):\n    for k, v in state.items():\n"
        "        state[k] = torch.cat((v, extra[k]))\n",
        "import torch\ndef keep(cache, k):\n    cache['k'] = torch.cat((cache['k'], k))[-16:]\n",
        # a checkpoint's weight widened once by a piece of literal sizes (Cutie's load_weights)
        "import torch\ndef load_weights(src_dict):\n    for k in list(src_dict):\n"
        "        pads = torch.zeros((64, 1, 7, 7))\n        src_dict[k] = torch.cat([src_dict[k], pads], 1)\n",)
    must_fire += (  # session 31 (h30): a helper starting the state empty along the axis it joins on (speechbrain)
        "import torch\ndef update_mem(inp_tokens, memory):\n    if memory is None:\n"
        "        memory = torch.empty(inp_tokens.size(0), 0, device=inp_tokens.device)\n"
        "    return torch.cat([memory, inp_tokens.unsqueeze(1)], dim=-1)\n",)
    must_not_fire += (  # started with a full row (a prefix token), or empty along another axis than the join's
        "import torch\ndef with_bos(tokens, prefix):\n    if prefix is None:\n        prefix = torch.zeros(tokens.size(0), 1)\n"
        "    return torch.cat([prefix, tokens], dim=-1)\n",
        "import torch\ndef stack_rows(rows, acc):\n    if acc is None:\n        acc = torch.empty(0, rows.size(1))\n"
        "    return torch.cat([acc, rows], dim=1)\n",)
    must_not_fire += (  # made afresh earlier in the iteration, on every path to the join, whatever tests sit between
        "import torch\nfrom torch import nn\nclass Enc(nn.Module):\n"
        "    def forward(self, message, b2revb, feats, b2a, depth):\n        for _ in range(depth - 1):\n"
        "            if not self.atom_messages:\n                rev = message[b2revb]\n"
        "                if self.attached_feat:\n                    rev = torch.cat((rev, feats[b2a[b2revb]]), dim=1)\n"
        "                message = message - rev\n        return message\n",)
    must_fire += (  # made afresh before an inner loop over steps, grown by that loop
        "import torch\ndef gen(model, x, n, k):\n    for i in range(n):\n        seq = x[:, :1]\n"
        "        for t in range(k):\n            if t > 0:\n                seq = torch.cat((seq, model(seq)), dim=1)\n"
        "    return seq\n",)
    must_not_fire += (  # a generator's ``generate`` without a generation's keywords; numpy's
        "import torch\ndef f(gen, n):\n    return gen.generate(n)\n",
        "import torch\ndef f(sampler, cfg):\n    return sampler.generate(cfg, seed=0)\n")
    must_not_fire += (  # a list made here, or bound anew before the join
        "import torch\ndef f(layer, q, cache):\n    res = []\n    res.append(layer(q))\n    return torch.stack(res)\n",
        "import torch\ndef f(layer, q, cache):\n    res = cache['k']\n    res = list(res[-4:])\n    res.append(layer(q))\n"
        "    return torch.stack(res)\n")
    must_not_fire += (  # a storage read afresh and only read after; per-key state cut back after growing
        "import torch\ndef f(model, batch, futr, n):\n    for i in range(n):\n        t = batch['temporal']\n"
        "        t = torch.cat((t, futr), dim=-1)\n        out = model(t)\n    return out\n",
        "import torch\nclass Data:\n    def cat(self, new):\n        for k, v in new.items():\n"
        "            self._stats[k] = torch.cat([self._stats[k], v], dim=0)\n"
        "            self._stats[k] = self._stats[k][-100:]\n",
        # rows picked by a constant (the first beam) then joined: a fixed window, not the state reordered
        "import torch\ndef f(model, ids, n):\n    for _ in range(n):\n        ids = torch.cat([ids[0, :], model(ids)], -1)\n"
        "    return ids\n")

    # session 21 (growth21b): a loop of steps behind any wrapper (``wrapper_fn(range(n))``, ``itertools.count()``),
    # growth under a structure loop inside a loop of steps, a list attribute appended and made a tensor per step,
    # and the object's changing state joined with new pieces and stored back (growth_state.py)
    must_fire += ("import torch\nfrom einops import pack\ndef gen(model, out, n, wrapper_fn):\n    for _ in wrapper_fn(range(n)):\n"
                  "        sample = model(out)\n        out, _ = pack([out, sample], 'b *')\n    return out\n",
                  "import torch, itertools\ndef gen(model, ids):\n    for step in itertools.count():\n"
                  "        nxt = model(ids)\n        ids = torch.cat([ids, nxt], 1)\n        if nxt.item() == 0:\n"
                  "            break\n    return ids\n",
                  "import torch\ndef gen(model, cache, tok, n):\n    for step in range(n):\n        new = model(tok, cache)\n"
                  "        for key in ('k', 'v'):\n            cache[key] = torch.cat([cache[key], new[key]], -2)\n"
                  "    return cache\n",
                  "import torch\nclass Rec:\n    def run(self, model, x, n):\n        for t in range(n):\n"
                  "            self.frames.append(model(x))\n            h = torch.stack(self.frames)\n            x = h[-1]\n"
                  "        return x\n",
                  "import torch\nclass Env:\n    def reset(self, ids):\n        self.full_ids = ids\n"
                  "    def step(self, gen_ids):\n        full_ids = self.full_ids\n"
                  "        self.full_ids = torch.cat([full_ids, gen_ids.unsqueeze(0)], dim=1)\n        return self.full_ids\n",
                  "import torch\nclass Env:\n    def reset(self, ids):\n        self._t = ('', ids)\n"
                  "    def step(self, new, text):\n        old_text, ids = self._t\n        joined = torch.cat([ids, new], dim=1)\n"
                  "        self._turn = {'input_ids': joined, 'text': old_text + text}\n")
    must_not_fire += (  # a zip of pairs is no loop of steps; a value rebuilt at every step of the outer loop;
        # state set only in __init__; a window kept; a join read but not stored back
        "import torch\ndef f(xs, ys, acc):\n    for x, y in zip(xs, ys):\n        acc = torch.cat([acc, x * y])\n    return acc\n",
        "import torch\ndef f(model, batches, n):\n    for b in range(n):\n        feats = model(b)\n"
        "        for layer in model.extra:\n            feats = torch.cat([feats, layer(feats)], 1)\n    return feats\n",
        "import torch\nclass M:\n    def __init__(self):\n        self.cls = torch.zeros(1, 1, 8)\n"
        "    def forward(self, x):\n        self.out = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1)\n",
        "import torch\nclass Stream:\n    def push(self, x):\n        prev = self.buf\n"
        "        self.buf = torch.cat([prev, x], -1)[..., -1024:]\n",
        "import torch\nclass Stream:\n    def push(self, x):\n        prev = self.buf\n        y = torch.cat([prev, x], -1)\n"
        "        self.buf = x\n        return y\n")

    must_fire += (  # a generator's loop (streaming); an optional cache joined and handed back; items' histories
        "import torch\ndef stream(model, chunks):\n    hist = None\n    for c in chunks:\n        y = model(c)\n"
        "        hist = y if hist is None else torch.cat([hist, y], 0)\n        yield hist\n",
        "import torch\ndef attend(q, k, v, kv_cache):\n    if kv_cache is not None:\n        pk, pv = kv_cache\n"
        "        k = torch.cat([pk, k], dim=-2)\n        v = torch.cat([pv, v], dim=-2)\n"
        "    return q @ k.transpose(-1, -2) @ v, (k, v)\n",
        "import torch\nclass Tracker:\n    def update(self, dets):\n        for t in self.tracks:\n"
        "            t.history = torch.cat([t.history, dets[:1]], 0)\n")
    must_not_fire += (  # a prefix joined once and returned as the output; a memory handed back as a window;
        # items' histories cut back; a loop over pairs that yields no step
        "import torch\ndef add_prefix(x, mask, prefix=None):\n    if prefix is not None:\n"
        "        x = torch.cat([prefix, x], 1)\n    return x, mask\n",
        "import torch\ndef enc(layer, x, mems=None):\n    h = torch.cat([mems, x], 1)\n    out = layer(h)\n"
        "    return out, h[:, -16:]\n",
        "import torch\nclass Tracker:\n    def update(self, dets):\n        for t in self.tracks:\n"
        "            t.history = torch.cat([t.history, dets[:1]], 0)\n            t.history = t.history[-30:]\n",
        # the state made afresh in the call before the join; a local read from the state then rebound by blocks
        "import torch\nclass Reg:\n    def set_input(self, x):\n        self.input = x\n    def forward(self, t):\n"
        "        self.output = self.net(self.input)\n        self.output = torch.cat([self.output, self.net(t)], 0)\n",
        "import torch\nclass Seg:\n    def set_input(self, x):\n        self.input = x\n    def forward(self):\n"
        "        data = self.input\n        for blk in self.blocks:\n            data = blk(data)\n"
        "        feat = torch.cat([data.x, self.head(data).x], 1)\n        self.output = self.fc(feat)\n")
    must_fire += (  # the kept turn read, then cleared, then the joined transcript stored back
        "import torch\nclass Env:\n    def reset(self, turn):\n        self._turn = turn\n    def step(self, gen):\n"
        "        turn = self._turn\n        self._turn = None\n        ids = turn['input_ids'].detach()\n"
        "        self.full_ids = torch.cat([ids, gen], 1)\n        self._turn = {'input_ids': self.full_ids}\n",)

    # session 21 (growth21c): a decoding step as its own function, a preallocated cache's growing view, a cache
    # object's own ``cat`` (growth_views.py)
    must_fire += ("import torch\ndef update_inputs(input_ids, candidates, best, n_acc, new_token):\n"
                  "    input_ids = torch.cat([input_ids, candidates[None, best, :n_acc + 1]], dim=-1)\n"
                  "    new_token += n_acc + 1\n    return input_ids, new_token\n",
                  "import torch\nclass KVCache:\n    def cat(self, t, dim=2):\n"
                  "        dst = self.data.narrow(dim, self.current_length, t.shape[dim])\n        dst.copy_(t)\n"
                  "        self.current_length.add_(t.shape[dim])\n"
                  "        return torch.narrow(self.data, 2, 0, self.current_length)\n",
                  "import torch\nclass Buf:\n    def push(self, t):\n        self.buf[:, self.n:self.n + 1] = t\n"
                  "        self.n += 1\n        return self.buf[:, :self.n]\n",
                  "import torch\ndef attn(q, k, v, past_key_value=None):\n    if past_key_value is not None:\n"
                  "        k = past_key_value[0].cat(k, dim=2)\n        v = past_key_value[1].cat(v, dim=2)\n"
                  "    return q @ k.transpose(-1, -2) @ v\n")
    must_not_fire += (  # a learned token joined once; a join rebound before the return; the length only set;
        # a receiver that is no optional parameter
        "import torch\nclass M:\n    def add_cls(self, x, mask):\n        x = torch.cat([x, self.cls], 1)\n"
        "        return x, mask\n",
        "import torch\ndef step(ids, nxt):\n    ids = torch.cat([ids, nxt], -1)\n    ids = ids[:, -8:]\n"
        "    return ids, nxt\n",
        "import torch\nclass KVCache:\n    def reset(self, n):\n        self.length.fill_(n)\n"
        "        return torch.narrow(self.data, 2, 0, self.length)\n",
        "import torch\ndef f(parts, x):\n    x = parts.cat(x)\n    return x\n",
        # a fixed token made in the function and appended once (chronos' ``_append_eos_token``)
        "import torch\ndef append_eos(ids, mask, logits):\n    eos = torch.full((ids.shape[0], 1), 2)\n"
        "    ids = torch.concat((ids, eos), dim=1)\n    return ids, mask\n")

    # session 22 (growth22): a step helper joining two parameters (the prefix fed back), a loop over an unproven
    # sequence that carries a state through a call (a sampler's history), an episode appended until the data ends a
    # ``while``, kept storage joined while it grows (growth_loops.py)
    must_fire += ("import torch\ndef join(a, b):\n    return torch.cat([a, b], dim=-1)\n"   # quiet before session 22
                  "def decode(model, ys, steps):\n    for t in range(steps):\n        ys = join(ys, model(ys))\n"
                  "    return ys\n",
                  "import torch\ndef add_token(seq, tok):\n    return torch.cat([seq, tok], dim=-1)\n"
                  "def sample(model, seq, n):\n    for _ in range(n):\n        tok = model(seq)\n"
                  "        seq = add_token(seq, tok)\n    return seq\n",
                  "import torch\ndef ddim(model, x, timesteps):\n    hist = x[None]\n    for t in timesteps:\n"
                  "        x = model(x, t)\n        hist = torch.cat([hist, x[None]])\n    return hist\n",
                  "import torch\ndef rollout(env, policy):\n    obs, done, traj = env.reset(), False, []\n"
                  "    while not done:\n        obs, rew, done, _ = env.step(policy(obs))\n        traj.append(obs)\n"
                  "    return torch.stack(traj)\n",
                  "import torch\nimport torch.nn.functional as F\ndef f(model, x, n):\n    for i in range(n):\n"
                  "        k = model(x)\n        x = F.pad(x, (0, k.shape[-1]))\n    return x\n",
                  "import torch\ndef rollout(env, policy):\n    obs, traj = env.reset(), {'obs': []}\n    while True:\n"
                  "        traj['obs'].append(obs)\n        obs, r, done, _ = env.step(policy(obs))\n        if done:\n"
                  "            break\n    return torch.stack(traj['obs'])\n",
                  "import torch\ndef rollout(env, policy, n):\n    obs, seen = env.reset(), []\n    for t in range(n):\n"
                  "        obs, r, done, _ = env.step(policy(obs))\n        seen.append(obs)\n        if done:\n"
                  "            break\n    return torch.stack(seen)\n",
                  "import torch\nclass Db:\n    def add(self, c):\n        self.db['c'].append(c)\n        self.n += 1\n"
                  "    def get(self, k):\n        k = min(k, self.n)\n        idx = [i for i in range(k)]\n"
                  "        return torch.stack([self.db['c'][i] for i in idx])\n")
    must_not_fire += (  # a join of two parameters in a loop over a list; features joined with no state carried;
        # a walk over blocks that calls its target; a counted while; an epoch's outputs gathered then emptied; host
        # rewards
        "import torch\ndef fuse(x, skip):\n    return torch.cat([x, skip], 1)\ndef up(x, skips):\n"
        "    for skip in skips:\n        x = fuse(x, skip)\n    return x\n",
        "import torch\ndef f(proj, out, feats):\n    for feat in feats:\n        out = torch.cat([out, proj(feat)], 1)\n"
        "    return out\n",
        "import torch\ndef f(x, blocks):\n    for blk in blocks:\n        x = torch.cat([x, blk(x)], 1)\n    return x\n",
        "import torch\ndef f(model, x, n):\n    outs, t = [], 0\n    while t < n:\n        outs.append(model(x))\n"
        "        t += 1\n    return torch.stack(outs)\n",
        "import torch\nclass M:\n    def validation_step(self, b):\n        self.outs.append(self.model(b))\n"
        "    def on_validation_epoch_end(self):\n        allp = torch.cat(self.outs)\n        return allp\n",
        "import torch\nclass Knn:\n    def update(self, f):\n        self.feats.append(f)\n        self.n += 1\n"
        "    def reset(self):\n        self.n = 0\n    def compute(self):\n"
        "        return torch.stack([self.feats[i] for i in range(self.n)])\n",
        "import torch\ndef binarize(pair):\n    active, i = [], 0\n    while i < len(pair):\n"
        "        a, i = resolve(i, pair)\n        active.append(a)\n    return torch.hstack(active)\n",
        "import torch\nimport torch.nn.functional as F\ndef f(model, x, n, m):\n    for i in range(n):\n"
        "        y = model(x)\n        x = F.pad(x, (0, m - x.shape[-1]))\n    return x\n",
        "import torch\ndef f(model, x, n, m):\n    outs = []\n    for t in range(n):\n        outs.append(model(x))\n"
        "        if t >= m:\n            break\n    return torch.stack(outs)\n",
        "import torch\ndef f(model, x, scales):\n    out = x\n    for s in scales:\n        y = model(x, s)\n"
        "        y = model.refine(y)\n        out = torch.cat([out, y], 1)\n    return out\n",
        "import torch\ndef run(env, pi):\n    done, rs = False, []\n    while not done:\n"
        "        _, r, done, _ = env.step(pi())\n        rs.append(r.item())\n    return torch.tensor(rs)\n")

    # session 23 (growth23): a state the caller passes in, joined and given back (growth_carried.py): written back
    # into a dict / state object, returned in a dict or in a tuple bound to a name, the join in one arm of an if
    # chain whose other arms bind the name afresh; a step helper that reorders its parameter's rows first
    must_fire += (
        "import torch\ndef attend(self, q, x, v, incremental_state=None):\n    k = self.k_proj(x)\n"
        "    if incremental_state is not None:\n"
        "        if 'prev_key' in incremental_state:\n"
        "            prev_key = incremental_state['prev_key'].view(q.size(0), -1, k.size(-1))\n"
        "            k = torch.cat([prev_key, k], dim=1)\n        incremental_state['prev_key'] = k.view(q.size(0), -1)\n"
        "    return torch.bmm(q, k.transpose(1, 2)) @ v\n",
        "import torch\ndef attend(self, x, state):\n    prev_k = state.prev_key[self.idx]\n    k = self.k(x)\n"
        "    if prev_k is not None:\n        k = torch.cat((prev_k, k), dim=1)\n    state.prev_key[self.idx] = k\n"
        "    return x @ k.transpose(1, 2)\n",
        "import torch\ndef attend(self, q, x, past_key_value=None, cross=None):\n"
        "    if cross is not None and past_key_value is not None:\n        k = past_key_value[0]\n"
        "    elif past_key_value is not None:\n        k = self.k(x)\n        k = torch.cat([past_key_value[0], k], dim=2)\n"
        "    else:\n        k = self.k(x)\n    past_key_value = (k,)\n    k = k.view(-1, k.size(-1))\n"
        "    outputs = (q @ k.T,)\n    outputs = outputs + (past_key_value,)\n    return outputs\n",
        "import torch\ndef attend(self, q, x, incr_state=None):\n    if incr_state is None:\n        incr_state = {}\n"
        "    if 'prev_key' in incr_state:\n        prev_key = incr_state['prev_key'].view(q.size(0), -1, 8)\n"
        "        k = torch.cat([prev_key, self.k(x)], dim=1)\n    else:\n        k = self.k(x)\n"
        "    new_state = {'prev_key': k.view(q.size(0), 1, -1, 8)}\n    return q.bmm(k.transpose(1, 2)), new_state\n",
        "import torch\nclass Agent:\n    def _next(self, prev, sel, inds):\n        prev = torch.index_select(prev, 0, inds)\n"
        "        return torch.cat([prev, sel], dim=-1)\n    def gen(self, model, x, n):\n        for _ in range(n):\n"
        "            s = model(x)\n            x = self._next(x, s.argmax(-1, keepdim=True), s.argmax(-1))\n"
        "        return x\n")
    must_not_fire += (  # a prefix given back as the output; a window written back; rebound before it is given
        # back; a state not given back at all; a join of two parameters
        "import torch\ndef add_prefix(x, mask, prefix=None):\n    if prefix is not None:\n"
        "        x = torch.cat([prefix, x], 1)\n    return {'x': x, 'mask': mask}\n",
        "import torch\ndef attend(self, q, x, state=None):\n    k = self.k(x)\n    if state is not None:\n"
        "        k = torch.cat([state['k'], k], 1)\n        state['k'] = k[:, -16:]\n    return q @ k.transpose(1, 2)\n",
        "import torch\ndef attend(self, q, x, state=None):\n    k = self.k(x)\n    if state is not None:\n"
        "        k = torch.cat([state['k'], k], 1)\n        k = k[:, -16:]\n    return q @ k.transpose(1, 2), (k,)\n",
        "import torch\ndef enc(layer, x, mem=None):\n    h = torch.cat([mem, x], 1)\n    return {'out': layer(h)}\n",
        "import torch\ndef fuse(self, x, skip=None):\n    y = torch.cat([skip, x], 1)\n    return self.conv(y), (y,)\n")
    # a join of a sequence the same loop of steps grows (growth_derived.py): a candidate sequence, a beam group's
    # rows joined with their next tokens; silent for a window of it (the last token) and outside a loop of steps
    must_fire += (
        "import torch\ndef beam(model, ids, n):\n    cur = 0\n    while cur < n:\n        nxt = model(ids).argmax(-1)\n"
        "        cand = torch.cat([ids, nxt], dim=-1)\n        model.score(cand)\n"
        "        ids = torch.cat([ids, nxt], dim=-1)\n        cur += 1\n    return ids\n",
        "import torch\ndef group_beam(model, ids, n, groups):\n    while True:\n        nxt = model(ids).argmax(-1)\n"
        "        for g in groups:\n            gids = ids[g]\n            best = model.rank(gids)\n"
        "            gids = torch.cat([gids[best, :], nxt[g]], dim=-1)\n            model.keep(gids)\n"
        "        ids = torch.cat([ids, nxt], dim=-1)\n        if ids.shape[-1] > n:\n            break\n    return ids\n")
    must_not_fire += (
        "import torch\ndef decode(model, ids, n):\n    for _ in range(n):\n        nxt = model(ids).argmax(-1)\n"
        "        last = torch.cat([ids[:, -1:], nxt], dim=-1)\n        y = torch.cat([ids, nxt], dim=-1)\n"
        "        ids = y[:, -8:]\n    return ids\n",
        "import torch\ndef pairs(model, ids, feats):\n    for f in feats:\n        y = torch.cat([ids, f], dim=-1)\n"
        "        model.score(y)\n        ids = torch.cat([ids, f], dim=-1)\n    return ids\n")
    # session 24 (growth24): a sequence carried inside a container. A record's field the loop of steps rebuilds one
    # item longer (growth_fields.py, nanotron's GenerationStates); the items of a list a data-ended loop grows, read
    # through a comprehension (growth_loops.py, lerobot's observations); a dict of joins seeded under ``is None``
    # (broad_joins.py, lerobot's episode data across batches)
    must_fire += (
        "import torch\ndef gen(model, states, n):\n    for _ in range(n):\n        new = []\n"
        "        for st in states:\n            x = torch.cat(st.ids, dim=-1)\n            nxt = model(x).argmax(-1)\n"
        "            new.append(State(last=nxt, ids=st.ids + [nxt]))\n        states = new\n    return states\n",
        "import torch\ndef gen(model, st, n):\n    for _ in range(n):\n        x = torch.stack(st.steps, 1)\n"
        "        st.steps.append(model(x))\n    return st\n",
        "import torch\nimport numpy as np\ndef roll(env, policy):\n    done = np.array([False])\n    seen = []\n"
        "    obs = env.reset()\n    while not np.all(done):\n        seen.append(obs)\n"
        "        obs, r, done, _ = env.step(policy(obs))\n    return torch.stack([o['img'] for o in seen], 1)\n",
        "import torch\ndef gather(env, policy, n):\n    data = None\n    for b in range(n):\n        new = policy(env)\n"
        "        if data is None:\n            data = new\n        else:\n"
        "            data = {k: torch.cat([data[k], new[k]]) for k in data}\n    return data\n")
    must_not_fire += (  # the field made afresh in the loop; joined once after the loop; a filtered comprehension
        "import torch\ndef gen(model, states, n):\n    for _ in range(n):\n        new = []\n"
        "        for st in states:\n            x = torch.cat(st.ids, dim=-1)\n            nxt = model(x).argmax(-1)\n"
        "            new.append(State(last=nxt, ids=[nxt]))\n        states = new\n    return states\n",
        "import torch\ndef gen(model, states, n):\n    for _ in range(n):\n"
        "        states = [State(last=model(s.last), ids=s.ids + [s.last]) for s in states]\n"
        "    return [torch.cat(s.ids, -1) for s in states]\n",
        "import torch\nimport numpy as np\ndef roll(env, policy):\n    done = np.array([False])\n    seen = []\n"
        "    obs = env.reset()\n    while not np.all(done):\n        seen.append(obs)\n"
        "        obs, r, done, _ = env.step(policy(obs))\n"
        "    return torch.stack([o['img'] for o in seen if o['ok']], 1)\n")

    # session 25 (growth25): the sequence a loop of steps grows and feeds back, joined outside that loop -- its
    # first step before it, the whole of it after it (growth_outside.py: torchtune's seed, nanotron's records);
    # a prefix up to a counter the loop advances itself (growth_counters.py: torchtune's ``curr_pos += 1``)
    must_fire += (
        "import torch\ndef generate(model, prompt, n):\n    gen = prompt\n    tok = model(prompt)\n"
        "    gen = torch.cat([gen, tok], dim=-1)\n    for _ in range(n - 1):\n        tok = model(gen)\n"
        "        gen = torch.cat([gen, tok], dim=-1)\n    return gen\n",
        "import torch\ndef gen(model, states, n):\n    for _ in range(n):\n        for st in states:\n"
        "            y = model(torch.cat(st.ids, dim=-1))\n"
        "        states = [State(last=y, ids=st.ids + [y]) for st in states]\n"
        "    return [torch.cat(st.ids, dim=-1) for st in states]\n",
        "import torch\ndef dec(model, x, n):\n    toks = [x]\n    for _ in range(n):\n"
        "        toks.append(model(torch.cat(toks, -1)))\n    out = torch.cat(toks, -1)\n    return out\n",
        "import torch\ndef gen(model, toks, pos, masks, n, p):\n    cur = p\n    for _ in range(n):\n"
        "        y = model(toks, pos[:, :cur + 1], masks[:, :cur + 1, :cur + 1])\n        cur += 1\n    return y\n",
        "import torch\ndef run(model, ids, n):\n    pos = 1\n    while pos < n:\n        y = model(ids[:, :pos])\n"
        "        pos += 1\n    return y\n")
    must_not_fire += (  # a fixed count appended, joined once after; a prefix joined before a walk over blocks; a
        # window whose both ends move; a counter advanced under a test; a Python list's prefix
        "import torch\ndef f(model, x, n):\n    outs = []\n    for t in range(n):\n        outs.append(model(x))\n"
        "    return torch.stack(outs)\n",
        "import torch\ndef f(blocks, x, y):\n    x = torch.cat([x, y], 1)\n    for blk in blocks:\n"
        "        x = torch.cat([x, blk(x)], 1)\n    return x\n",
        "import torch\ndef f(model, ids, n):\n    start, pos = 0, 4\n    while pos < n:\n"
        "        y = model(ids[:, start:pos])\n        start = pos\n        pos += 4\n    return y\n",
        "import torch\ndef f(model, ids, n, ok):\n    pos = 1\n    for _ in range(n):\n        y = model(ids[:, :pos])\n"
        "        if ok(y):\n            pos += 1\n    return y\n",
        "import torch\ndef f(seq, n):\n    i, out = 0, []\n    while i < n:\n        out.append(seq[:i])\n"
        "        i += 1\n    return torch.tensor(out)\n")
    # session 25 (precision25): an item of a container the function is given, joined with itself, is state kept
    # between calls only when the container comes back: fed back by a loop of the caller (Hugging Face's model
    # kwargs), or no call shown; every call passing a container its caller has just made joins it once
    # (growth_fresh.py, mmsegmentation's VPD backbone)
    must_fire += (
        "import torch\nclass Gen:\n    def _update(self, out, kw):\n        m = kw['mask']\n"
        "        kw['mask'] = torch.cat([m, m.new_ones((m.shape[0], 1))], -1)\n        return kw\n"
        "    def run(self, ids, kw, n):\n        for _ in range(n):\n            out = self.model(ids, **kw)\n"
        "            kw = self._update(out, kw)\n        return ids\n",
        "import torch\ndef extend(outs, extra):\n    outs[1] = torch.cat([outs[1], extra], 1)\n"
        "def run(model, x, n):\n    outs = model(x)\n    for _ in range(n):\n        extend(outs, model.attn())\n")
    must_not_fire += (
        "import torch\nclass Unet:\n    def _append(self, out_list, attn):\n"
        "        out_list[1] = torch.cat([out_list[1], attn], dim=1)\n    def forward(self, x):\n"
        "        hs, out_list = self._body(x)\n        self._append(out_list, self.attn())\n        return out_list\n",
        "import torch\ndef extend(outs, extra):\n    outs[1] = torch.cat([outs[1], extra], 1)\n"
        "def run(model, xs):\n    for x in xs:\n        outs = model(x)\n        extend(outs, model.attn())\n")
    must_fire += (  # session 27 (recall27b): a cache handed back under another keyword than Hugging Face's and
                  # rebound from the call's results every step (a speech LM's decoding loop; an older GPT's past_kv)
                  "import torch\n@torch.inference_mode()\ndef inference(llm, text, max_len, eos):\n"
                  "    lm_input = llm.embed(text)\n    out_tokens = []\n    cache = None\n    for i in range(max_len):\n"
                  "        y_pred, cache = llm.forward_one_step(lm_input, cache=cache)\n"
                  "        top_id = llm.decoder(y_pred[:, -1]).argmax(-1).item()\n        if top_id == eos:\n"
                  "            break\n        out_tokens.append(top_id)\n"
                  "        lm_input = llm.speech_embedding.weight[top_id].reshape(1, 1, -1)\n    return out_tokens\n",
                  "import torch\ndef generate(model, x, n_steps):\n    kv_cache = None\n    for n in range(n_steps):\n"
                  "        x_input = x[:, [-1]] if kv_cache is not None else x\n"
                  "        logits, kv_cache = model(x_input, use_cache=True, past_kv=kv_cache)\n"
                  "        x = torch.cat((x, logits[:, -1:].argmax(-1)), dim=1)\n    return x\n")
    must_fire += (  # session 27 (recall27b): a recursive forecast re-reading its history grown on the host
                  "import numpy as np\nimport torch\ndef forecast(model, history, horizon):\n    hist = history.copy()\n"
                  "    preds = []\n    for h in range(horizon):\n        x = torch.from_numpy(hist).float().unsqueeze(0)\n"
                  "        y = model(x).item()\n        preds.append(y)\n        hist = np.append(hist, y)\n    return preds\n",)
    must_not_fire += (  # the model reads a window of fixed length; the history cut back to its length; one append
                        # per series of a loop over series
                      "import numpy as np\nimport torch\ndef forecast(model, history, horizon, window):\n"
                      "    hist = history.copy()\n    for h in range(horizon):\n"
                      "        x = torch.from_numpy(hist[-window:]).float().unsqueeze(0)\n"
                      "        hist = np.append(hist, model(x).item())\n    return hist\n",
                      "import numpy as np\nimport torch\ndef rolling(model, history, horizon):\n    hist = history.copy()\n"
                      "    for h in range(horizon):\n        x = torch.from_numpy(hist).float().unsqueeze(0)\n"
                      "        hist = np.append(hist[1:], model(x).item())\n    return hist\n",
                      "import numpy as np\nimport torch\ndef per_series(model, series_list):\n    for s in series_list:\n"
                      "        hist = np.array(s)\n        hist = np.append(hist, 0.0)\n        model(torch.from_numpy(hist))\n")
    must_not_fire += (  # two batches the caller gives, merged item by item under the same key (not a step's piece)
                      "import torch\ndef merge(left, right):\n"
                      "    left['action'] = torch.cat([left['action'], right['action']], dim=0)\n    return left\n",)
    must_fire += ("import torch\ndef update(cache, new):\n    cache['k'] = torch.cat([cache['k'], new['v']], dim=1)\n",)
    must_not_fire += (  # a recurrent state, a convolution's fixed cache, a call told use_cache=False, a loop over layers
                      "import torch\ndef run_rnn(cell, x, steps):\n    hidden = None\n    for t in range(steps):\n"
                      "        out, hidden = cell(x[:, t], hidden=hidden)\n    return out\n",
                      "import torch\ndef stream(encoder, chunks, n):\n    cnn_cache = torch.zeros(1, 256, 14)\n"
                      "    for i in range(n):\n        y, cnn_cache = encoder.conv(chunks[i], cnn_cache=cnn_cache)\n",
                      "import torch\ndef score(model, x, n):\n    cache = None\n    for i in range(n):\n"
                      "        y, cache = model(x, cache=cache, use_cache=False)\n",
                      "import torch\ndef layers(blocks, x):\n    past = None\n    for block in blocks:\n"
                      "        x, past = block(x, past=past)\n    return x\n")

    must_fire += (  # session 32 (rec32c): fairseq's incremental state, read through an accessor of the optional
                    # parameter, the joined keys written back into the container it handed back
                  "import torch\nclass MHA:\n    def forward(self, q, x, incremental_state=None):\n"
                  "        k = self.k_proj(x)\n        if incremental_state is not None:\n"
                  "            saved_state = self._get_input_buffer(incremental_state)\n        else:\n"
                  "            saved_state = None\n        if saved_state is not None:\n"
                  "            if 'prev_key' in saved_state:\n"
                  "                prev_key = saved_state['prev_key'].view(-1, 4, 8)\n"
                  "                k = torch.cat([prev_key, k], dim=1)\n"
                  "            saved_state['prev_key'] = k.view(1, 4, -1, 8)\n"
                  "            self._set_input_buffer(incremental_state, saved_state)\n"
                  "        if self.add_zero_attn:\n            k = torch.cat([k, k.new_zeros(1, 1, 8)], dim=1)\n"
                  "        return torch.bmm(q, k.transpose(1, 2))\n",)
    must_not_fire += (  # session 32 (rec32c): the accessor's container never written back; the parameter never
                        # tested against None (always passed: no state of earlier calls)
                      "import torch\nclass MHA:\n    def forward(self, q, x, incremental_state=None):\n"
                      "        k = self.k_proj(x)\n        if incremental_state is not None:\n"
                      "            saved = self._get_input_buffer(incremental_state)\n"
                      "            k = torch.cat([saved['prev_key'], k], dim=1)\n"
                      "        return torch.bmm(q, k.transpose(1, 2))\n",
                      "import torch\nclass MHA:\n    def forward(self, q, x, memory):\n"
                      "        k = self.k_proj(x)\n        saved = self.lookup(memory)\n        prev = saved['prev_key']\n"
                      "        k = torch.cat([prev, k], dim=1)\n        saved['prev_key'] = k\n"
                      "        return torch.bmm(q, k.transpose(1, 2))\n",)

    def check(self, node: object, ctx: FileContext) -> None:
        before = len(ctx.findings)
        self._proven(node, ctx)
        if len(ctx.findings) == before and isinstance(node, ast.Subscript) and ctx.uses_torch \
                and isinstance(node.slice, (ast.Slice, ast.Tuple)):
            found = growing_view(node, None, ctx)   # growth_views.py: a cache's view up to a length it advances
            if found is not None:
                ctx.report(node, self.message.format(what=found), None)
        if len(ctx.findings) == before and isinstance(node, ast.Call) and ctx.uses_torch:
            name = ctx.resolver.qualname(node.func)
            found = broad_growth(node, name, ctx) if name in BROAD_GROWTH else None
            if found is None and name in BROAD_GROWTH:
                found = state_growth(node, name, ctx) or handed_back(node, name, ctx) \
                    or item_state_growth(node, name, ctx)   # growth_state.py
            if found is None and name in BROAD_GROWTH:
                found = step_parameter(node, name, ctx)   # growth_views.py
            if found is None and name in BROAD_GROWTH:
                found = carried_join(node, name, ctx) or derived_join(node, name, ctx) \
                    or empty_start_join(node, name, ctx) or stored_join(node, name, ctx)   # growth_carried/derived
            if found is None and name in BROAD_GROWTH:
                found = field_join(node, name, ctx)   # growth_fields.py: a record's field grown per step
            if found is None and name in BROAD_GROWTH:
                found = ended_join(node, name, ctx) or kept_count_join(node, name, ctx)   # growth_loops.py
            if found is None and name in BROAD_GROWTH:
                found = outside_join(node, name, ctx)   # growth_outside.py: grown by a loop, joined outside it
            if found is None and name in NARROWS:
                found = growing_view(node, name, ctx)
            if found is None and name not in BROAD_GROWTH and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("cat", "concat"):
                found = cache_method_join(node, name, ctx)
            if found is not None:   # the op is the trigger (broad_joins.py): nothing proves the shape static
                ctx.report(node, self.message.format(what=found), name)

    def _proven(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ast.Subscript):
            self._advancing_slice(node, ctx)
            return
        assert isinstance(node, ast.Call)
        if node.keywords and self._cache_fed_back(node, ctx):
            return
        if isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            self._cache_updated(node, ctx)
            return
        if isinstance(node.func, ast.Attribute) and node.func.attr == "generate":
            self._generated(node, ctx)
            return
        if self._grown_elsewhere(node, ctx):
            return
        if self._counter_sized(node, ctx):
            return
        if node.args and isinstance(node.args[0], ast.Name) and (self._growing_list(node, node.args[0], ctx)
                                                                 or self._growing_array(node, node.args[0], ctx)
                                                                 or self._joined_state(node, node.args[0], ctx)
                                                                 or self._kept_list(node, node.args[0], ctx)):
            return
        if node.args and isinstance(node.args[0], ast.List) and len(node.args[0].elts) == 1 \
                and isinstance(node.args[0].elts[0], ast.Name) \
                and self._growing_list(node, node.args[0].elts[0], ctx, made=True):
            return   # ``torch.as_tensor([output_ids])``: a row of the tokens so far
        if len(node.args) >= 2 and isinstance(node.args[0], (ast.Name, ast.Attribute)):
            if ctx.resolver.qualname(node.func) in _PADS:
                self._padded_here(node, ctx)   # the callee first (memoised): most calls are no pad
            return
        if not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)) or self._grown_here(node, ctx) \
                or self._kept_through(node, ctx) or self._returned_state(node, ctx):
            return
        found = fed_back(node, ctx)   # a step helper: ``return torch.cat((xs, x))`` fed back by a loop's call
        if found is not None:
            function, growth, site = found
            name = ctx.resolver.qualname(node.func) or "torch.cat"
            ctx.report(node, self.message.format(what=f"{name.rsplit('.', 1)[-1]}([{growth.name}, ...]), "
                                                 f"{describe(function, site, ctx)},"), name)
            return
        rebuilt = grown_items(node, ctx) if ctx.resolver.qualname(node.func) in CATS else None
        if rebuilt is not None:   # ``past = tuple((cat([pk, k], 2), ...) for (pk, pv), (k, v) in zip(past, new))``
            name = ctx.resolver.qualname(node.func) or "torch.cat"
            ctx.report(node, self.message.format(
                what=f"every item of {rebuilt} (rebuilt as {name.rsplit('.', 1)[-1]}([item, ...]) from its own items)"),
                name)

    def _cache_fed_back(self, node: ast.Call, ctx: FileContext) -> bool:
        """``out = model(x, past_key_values=past, use_cache=True)`` then ``past = out.past_key_values`` in a loop over
        steps: the Hugging Face cache protocol -- the model appends this step's keys and values to the cache it is
        handed and returns it -- so the cache (and every attention over it) is one step longer each iteration.
        Reported at the call (True); a cache made static (``StaticCache(...)``) is not."""
        keyword, passed = None, None
        for kw in node.keywords:
            if kw.arg in _CACHE_KEYWORDS:
                if kw.arg == "past_key_values" and self._cache_kept(node, kw.value, ctx):
                    return True
                passed = _cache_arm(kw.value)
                if passed is not None:
                    keyword = kw
                    break
        if keyword is None or passed is None:
            return self._state_fed_back(node, ctx)
        name = passed.id
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        if not isinstance(loop, (ast.For, ast.While)):
            return False
        if keyword.arg == "past_key_values" and self._cache_in_place(node, passed, loop, ctx):
            return True
        statement = ctx.parent(node)
        results = {t.id for t in statement.targets if isinstance(t, ast.Name)} \
            if isinstance(statement, ast.Assign) and statement.value is node else set()
        for child in walk(loop):
            if not (isinstance(child, ast.Assign) and len(child.targets) == 1
                    and isinstance(child.targets[0], ast.Name) and child.targets[0].id == name):
                continue
            source = _cache_of(child.value)
            if source is None or not (source is node or (isinstance(source, ast.Name) and source.id in results)):
                continue
            function = ctx.enclosing(loop, FUNCTION_TYPES)
            if _static_cache(function or ctx.tree, name):
                return False
            if not carried(loop, child, name, ctx=ctx) and not all(
                    _cache_of(c.value) is not None for c in walk(loop) if isinstance(c, ast.Assign)
                    and any(isinstance(n, ast.Name) and n.id == name for t in c.targets for n in walk(t))):
                return False   # also set from something else than a model's returned cache (the prefill's is one)
            callee = short_source(node.func, 30)
            ctx.report(node, self.message.format(
                what=f"the key/value cache {name} handed back to {callee}() (rebound to "
                     f"{short_source(child.value, 40)} at line {child.lineno}; the model appends each step's keys "
                     f"and values)"), "past_key_values")
            return True
        return False

    def _state_fed_back(self, node: ast.Call, ctx: FileContext) -> bool:
        """``y, cache = llm.forward_one_step(x, cache=cache)`` (``logits, kv_cache = model(x, past_kv=kv_cache)``) in a
        loop over steps: a keyword naming the previous steps' cache or past (`_STEP_CACHE`) given a name the same
        statement rebinds from the call's results, the only binding of it in the loop: the callee hands back the
        cache it was given with this step's entries appended, one step longer each iteration (session 27,
        recall27b: the cache protocol under other keywords than Hugging Face's). A convolution's cache (a fixed
        number of frames, ``cnn_cache``) and a recurrent state (``hidden=h``) are no growing cache; a call told
        ``use_cache=False`` keeps none."""
        statement = ctx.parent(node)
        if not isinstance(statement, ast.Assign) or statement.value is not node or len(statement.targets) != 1 \
                or not isinstance(statement.targets[0], ast.Tuple):
            return False
        results = {t.id for t in statement.targets[0].elts if isinstance(t, ast.Name)}
        if any(kw.arg == "use_cache" and isinstance(kw.value, ast.Constant) and not kw.value.value
               for kw in node.keywords):
            return False
        keyword = next((kw for kw in node.keywords if kw.arg and _STEP_CACHE.search(kw.arg)
                        and not _FIXED_CACHE.search(kw.arg) and isinstance(kw.value, ast.Name)
                        and kw.value.id in results), None)
        if keyword is None:
            return False
        name = keyword.value.id
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        if not isinstance(loop, (ast.For, ast.While)) or not carried(loop, statement, name, ctx=ctx):
            return False
        function = ctx.enclosing(loop, FUNCTION_TYPES)
        if _static_cache(function or ctx.tree, name):
            return False
        ctx.report(node, self.message.format(
            what=f"{name}, the cache of the previous steps handed back to {short_source(node.func, 30)}() as "
                 f"{keyword.arg}= and rebound from its results (the callee appends each step's entries),"),
            "past_key_values")
        return True

    def _cache_kept(self, node: ast.Call, passed: ast.AST, ctx: FileContext) -> bool:
        """``out = self.model(tok, past_key_values=self.kv)`` then ``self.kv = out[1]`` (or ``out.past_key_values``)
        in a method, outside a loop: the cache kept on the object between calls, handed back one step longer at each
        call of the caller's decoding loop. Not when the method empties it first (``self.kv = None``: a prefill).
        Reported at the call (True)."""
        if not isinstance(passed, ast.Attribute) or not isinstance(passed.value, ast.Name):
            return False
        function = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        self_name = ctx.resolver.scopes.self_name(ctx.resolver.scopes.scope_of(function)) \
            if ctx.resolver.scopes is not None and ctx.resolver.scopes.scope_of(function) is not None else None
        if self_name is None or passed.value.id != self_name:
            return False
        statement = ctx.parent(node)
        if not isinstance(statement, ast.Assign) or statement.value is not node or len(statement.targets) != 1 \
                or not isinstance(statement.targets[0], ast.Name):
            return False
        result, text = statement.targets[0].id, ast.unparse(passed)
        stores = [c for c in walk(function) if isinstance(c, ast.Assign)
                  and any(ast.unparse(t) == text for t in c.targets)]
        fed = [c for c in stores if c.lineno > statement.lineno and isinstance(c.value, (ast.Attribute, ast.Subscript))
               and isinstance(c.value.value, ast.Name) and c.value.value.id == result
               and (_cache_of(c.value) is not None or isinstance(c.value, ast.Subscript)
                    and isinstance(c.value.slice, ast.Constant) and c.value.slice.value == 1)]
        if not fed or any(c.lineno < statement.lineno for c in stores):
            return False   # not handed back, or emptied before the call (a prefill starts the cache anew)
        ctx.report(node, self.message.format(
            what=f"the key/value cache {text} handed to {short_source(node.func, 30)}() and stored back from its "
                 f"output (line {fed[0].lineno}) at every call"), "past_key_values")
        return True

    def _cache_in_place(self, node: ast.Call, passed: ast.Name, loop: ast.AST, ctx: FileContext) -> bool:
        """``out = model(ids[:, -1:], past_key_values=cache)`` in a loop over steps (a counted ``for`` over steps, not
        over layers, or a ``while``) that never rebinds ``cache``: the cache object the model is handed is extended in
        place (a ``DynamicCache``: every call appends its keys and values), one step longer each iteration.
        Reported at the call (True); not a static cache, a cache the function binds to None or a literal, nor a call
        told ``use_cache=False``."""
        name = passed.id
        if isinstance(loop, ast.For) and (not steps(loop.iter, ctx) or over_layers(loop)):
            return False
        if any(kw.arg == "use_cache" and isinstance(kw.value, ast.Constant) and not kw.value.value
               for kw in node.keywords):
            return False
        for child in walk(loop):
            targets: list[ast.AST] = []
            if isinstance(child, ast.Assign):
                targets = list(child.targets)
            elif isinstance(child, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)):
                targets = [child.target]
            elif isinstance(child, ast.withitem) and child.optional_vars is not None:
                targets = [child.optional_vars]
            elif isinstance(child, ast.NamedExpr):
                targets = [child.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in walk(t)):
                return False   # rebound in the loop: the protocol of ``past = out.past_key_values`` (or reset)
        function = ctx.enclosing(loop, FUNCTION_TYPES)
        if _static_cache(function or ctx.tree, name):
            return False
        for child in walk(function or ctx.tree):
            if isinstance(child, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in child.targets) \
                    and isinstance(child.value, (ast.Constant, ast.Tuple, ast.List)):
                return False   # ``cache = None`` (no cache: the whole sequence each step, another question)
        callee = short_source(node.func, 30)
        ctx.report(node, self.message.format(
            what=f"the key/value cache {name} handed to {callee}() at every step (never rebound in the loop: the "
                 f"model appends each step's keys and values to it in place)"), "past_key_values")
        return True

    def _grown_here(self, node: ast.Call, ctx: FileContext) -> bool:
        """``x = cat([x, y])`` in a loop over steps, or on state kept between calls: reported (True)."""
        statement, held = ctx.parent(node), node
        while isinstance(statement, ast.Attribute) and statement.value is held and statement.attr in _KEEPING:
            call = ctx.parent(statement)   # ``cat([cache[m], out], dim=1).detach()``: the same length
            if not isinstance(call, ast.Call) or call.func is not statement:
                return False
            statement, held = ctx.parent(call), call
        if isinstance(statement, ast.IfExp) and node is not statement.test:
            statement, held = ctx.parent(statement), statement   # ``yv = cat([yv, p], 1) if keep else None``
        if not isinstance(statement, ast.Assign) or statement.value is not held or len(statement.targets) != 1:
            return False
        target = statement.targets[0]
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            return False
        text = ast.unparse(target)
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        grown = {text} & {ast.unparse(e) for element in node.args[0].elts for e in (element, reordered(element))}
        via = ""
        if isinstance(loop, (ast.For, ast.While)) and not grown:
            found = stored_back(statement, node.args[0].elts, ctx)   # ``t = cat([xs[j], y]); xs[j] = t.view(..)``
            if found is not None:
                statement, text, grown = found, ast.unparse(found.targets[0]), {ast.unparse(found.targets[0])}
            else:
                shaped = next((e for e in node.args[0].elts if _shaped_like(e, text, loop, ctx)), None)
                if shaped is not None:   # ``prev = torch.zeros(x.size()); ...; x = cat([prev, new])``: one longer
                    grown, via = {text}, f" ({short_source(shaped, 30)}, made in the shape of {text} each step)"
        kept = isinstance(loop, ast.For) and bool(grown) and _self_rooted(target) and not steps(loop.iter, ctx) \
            and self._stored(ctx.enclosing(node, FUNCTION_TYPES), statement, node, text,
                             _none_test_arm(statement, text, ctx))
        if kept:
            loop = None   # ``for k, v in new.items(): self._stats[k] = cat([self._stats[k], v])``: kept state,
            #               grown at every call whatever the loop walks
        inner, loop = loop, step_loop(loop, statement.targets[0], ctx) if not kept else None
        if inner is not loop and not isinstance(loop, (ast.For, ast.While)):
            return False    # each element concatenated once
        batches = False
        if isinstance(loop, (ast.For, ast.While)):
            if not grown:
                return False
            # a loop over a loader's batches grows a device tensor by a batch each time (``preds = cat([preds,
            # out])`` collecting outputs); one kept on the host (``.cpu()`` pieces) compiles nothing on the device
            batches = isinstance(loop, ast.For) and over_batches(loop, ctx)   # also ``tqdm(loader)``
            if batches and (ctx.resolver.kind_of(node) not in TENSORS
                            or any(ctx.resolver.is_host(e) for e in node.args[0].elts)):
                return False
            if ctx.resolver.kind_of(node) == HOST:
                return False   # a tensor the model knows is on the CPU (``torch.from_numpy`` pieces): no device shape
            if not carried(loop, statement, text, batches, ctx) and not _round_trip(loop, statement, text, ctx):
                return False
        elif not kept and (not self._stored(loop, statement, node, text, _none_test_arm(statement, text, ctx))
                           or made_per_call(loop, _root(statement.targets[0]), ctx)
                           or paired_merge(statement.targets[0], node.args[0].elts, ctx)):
            return False   # (growth_fresh.py: an item of a container every caller makes afresh, joined once)
        name = ctx.resolver.qualname(node.func)
        if name not in CATS:
            return False
        elements = [ast.unparse(e) for e in node.args[0].elts]
        pieces = f"..., {text}" if len(elements) == 2 and elements[-1] == text and elements[0] != text else f"{text}, ..."
        what = f"{text} = {name.rsplit('.', 1)[-1]}([{pieces}]){via}"
        ctx.report(node, self.message.format(what=what) if not batches else _BATCHES.format(what=what), name)
        return True

    def _grown_elsewhere(self, node: ast.Call, ctx: FileContext) -> bool:
        """``ids = append_token(ids, tok)`` in a loop over steps, where ``append_token`` is a function of another
        module of the project that returns its parameter concatenated with a new piece (its facts' ``grows``,
        the model's summary there) and the loop feeds the result back. Reported at the call (True)."""
        func = node.func
        short = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        project = ctx.project
        if project is None or short not in project.growth_helper_names() or ctx.resolver.own_function(node):
            return False
        called = ctx.resolver.qualname(func)
        grows = project.grown_parameter(called, ctx.module) if called is not None else None
        if grows is None:
            return False
        index, name, position, target, line = grows
        site = feeding(node, ctx.resolver.current, 0, Growth(index, name, (), position), ctx)
        if site is None:
            return False
        what = (f"{short_source(func)}(...) (returns its parameter {name} concatenated with a new piece: {target}, "
                f"line {line}), fed back {site.how} in the loop of line {site.loop.lineno},")
        ctx.report(node, self.message.format(what=what), target)
        return True

    def _counter_sized(self, node: ast.Call, ctx: FileContext) -> bool:
        """``torch.ones(t + 1, t + 1)`` (a causal mask), ``torch.arange(step)`` in ``for t in range(...)`` whose body
        grows the sequence it decodes (``x = cat([x, nxt])``, a list appended and joined every step): a tensor made
        one step larger every iteration, in step with the sequence. Reported (True)."""
        func = node.func
        short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if not node.args or not short:
            return False
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name) or not steps(loop.iter, ctx) \
                or not any(loop.target.id in _names(a) for a in node.args) or over_layers(loop):
            return self._length_sized(node, short, loop, ctx)
        counter = loop.target.id
        if short in _FACTORY_NAMES and ctx.resolver.qualname(func) in _FACTORIES:
            sizes = node.args[:1] if short in ("full", "full_like") else node.args
        else:   # ``generate_square_subsequent_mask(i + 1)``: a helper that sizes a tensor with its parameter
            sizes = _size_arguments(node, ctx)
        if not any(counter in _names(a) for a in sizes):
            return False
        if any(isinstance(n, ast.Subscript) or (isinstance(n, ast.Call) and not isinstance(n.func, ast.Name))
               for a in sizes for n in walk(a)):
            return False   # ``torch.zeros(lengths[t])``: a value per step, not the step itself
        decoded = _decoded(loop, ctx)
        if decoded is None:
            return False
        name = ctx.resolver.qualname(func) or short
        ctx.report(node, self.message.format(what=f"{short_source(node)} (a size follows the loop counter {counter}, "
                                             f"the loop grows {decoded} each step)"), name)
        return True

    def _length_sized(self, node: ast.Call, short: str, loop: Optional[ast.AST], ctx: FileContext) -> bool:
        """``torch.ones((cur_len, cur_len))`` (a causal mask), ``torch.arange(cur_len)`` after ``cur_len =
        out.shape[1]`` in a loop (``for``, ``while``) that grows ``out`` by a ``cat`` of itself every step
        (growth_counters.py): a tensor one step larger at every iteration. Reported (True)."""
        if not isinstance(loop, (ast.For, ast.While)) or short not in _FACTORY_NAMES \
                or ctx.resolver.qualname(node.func) not in _FACTORIES:
            return False
        growing = ctx.per_node("growing_lengths", loop, lambda lp: _growing_lengths(lp, ctx))
        if growing is None:
            return False
        grown, axes, lengths = growing
        sizes = node.args[:1] if short == "full" else node.args
        length = next((found for a in sizes if (found := follows_length(a, lengths, grown, axes)) is not None), None)
        if length is None or any(isinstance(n, ast.Subscript) and not (isinstance(n.value, ast.Attribute)
                                                                       and n.value.attr == "shape")
                                 for a in sizes for n in walk(a)):
            return False   # ``torch.zeros(lengths[t])``: a value per step, not the step itself
        name = ctx.resolver.qualname(node.func) or short
        ctx.report(node, self.message.format(what=f"{short_source(node)} (a size follows {length}, the length of "
                                             f"{grown}, which the loop of line {loop.lineno} grows at every step)"), name)
        return True

    def _growing_list(self, node: ast.Call, items: ast.Name, ctx: FileContext, made: bool = False) -> bool:
        """``torch.cat(seq, 1)`` / ``torch.stack(outs)`` in a loop over steps that appends to the list every
        iteration (``seq.append(tok)``) and never starts it anew there nor drops from it (``pop``, ``del``, a
        ``deque(maxlen=k)``): the joined tensor is one step longer each time, as a generation that re-reads its
        tokens; so is a tensor made from that list (``torch.as_tensor([output_ids], device=d)``, ``made``: the
        list itself or its one row) unless the model knows it stays on the host. Reported (True)."""
        name = ctx.resolver.qualname(node.func)
        if name not in CATS and name not in _STACKS and name not in _FROM_LIST:
            return False
        if name in _FROM_LIST and ctx.resolver.kind_of(node) == HOST:
            return False   # a host tensor of the tokens (``torch.tensor(ids).tolist()`` work, CPU only)
        if made and name not in _FROM_LIST:
            return False
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        if not isinstance(loop, (ast.For, ast.While)) or isinstance(loop, ast.For) and (
                not steps(loop.iter, ctx) or over_layers(loop) or items.id in _names(loop.target)):
            return False
        appended: Optional[ast.AST] = None
        for child in walk(loop):
            if isinstance(child, (ast.Assign, ast.AnnAssign, ast.Delete)):
                targets = child.targets if isinstance(child, (ast.Assign, ast.Delete)) else [child.target]
                if any(isinstance(n, ast.Name) and n.id == items.id and not _item_store(t, items.id)
                       for t in targets for n in walk(t)) or isinstance(child, ast.Delete) and any(
                        isinstance(n, ast.Name) and n.id == items.id for t in targets for n in walk(t)):
                    return False   # started anew (or cut) in the loop; ``ids[-1] = tok`` keeps its length
            elif isinstance(child, ast.AugAssign) and isinstance(child.target, ast.Name) \
                    and child.target.id == items.id:
                appended = appended or child
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and isinstance(child.func.value, ast.Name) and child.func.value.id == items.id:
                if child.func.attr in ("pop", "popleft", "clear", "remove") and not (
                        child.func.attr == "pop" and (not child.args or isinstance(child.args[0], ast.UnaryOp)
                                                      and ast.unparse(child.args[0]) == "-1")):
                    return False   # a window of fixed length (``pop()`` of the last item only takes back a step)
                if child.func.attr in ("append", "extend", "insert"):
                    appended = appended or child
        if appended is None or ctx.resolver.kind_of(items) not in (None, "list"):
            return False
        start = ctx.resolver.bound_value(items)
        if isinstance(start, ast.Call) and ast.unparse(start.func).rsplit(".", 1)[-1] == "deque":
            return False
        ctx.report(node, self.message.format(what=f"{name.rsplit('.', 1)[-1]}({items.id}) of a list appended every "
                                             f"step (line {appended.lineno})"), name)   # type: ignore[union-attr]
        return True

    def _growing_array(self, node: ast.Call, items: ast.Name, ctx: FileContext) -> bool:
        """``x = torch.from_numpy(hist)`` (``torch.tensor(hist)``) in a loop over steps that grows the host array
        by the step's value, ``hist = np.append(hist, y)`` (``np.concatenate([hist, y])``, ``np.vstack``,
        ``np.hstack``), its only binding in the loop: a recursive forecast re-reading its history, one step longer
        each iteration (session 27, recall27b; a window cut back to its length, ``hist = np.append(hist[1:], y)``,
        keeps it)."""
        name = ctx.resolver.qualname(node.func)
        if name not in _FROM_LIST and name != "torch.from_numpy":
            return False
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        if not isinstance(loop, (ast.For, ast.While)):
            return False
        for child in walk(loop):
            if not (isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name)
                    and child.targets[0].id == items.id and isinstance(child.value, ast.Call)):
                continue
            grower = ctx.resolver.qualname(child.value.func)
            if grower not in _HOST_GROWERS or not child.value.args:
                continue
            first = child.value.args[0]
            if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
                first = first.elts[0]   # ``np.concatenate([hist, y])``
            if not (isinstance(first, ast.Name) and first.id == items.id):
                continue   # ``np.append(hist[1:], y)``: a window of fixed length
            if not carried(loop, child, items.id, ctx=ctx):
                return False
            ctx.report(node, self.message.format(
                what=f"{name.rsplit('.', 1)[-1]}({items.id}) of a host array grown every step ({items.id} = "
                     f"{grower.rsplit('.', 1)[-1]}({items.id}, ...) at line {child.lineno})"), name)
            return True
        return False

    def _kept_through(self, node: ast.Call, ctx: FileContext) -> bool:
        """``nk = cat([pk, k])`` after ``pk = self._state["past_keys"]`` (or ``k_top, v_top = cache[key]`` of a
        parameter ``cache``; or ``x = cat([cache[key], x])``), then ``self._state["past_keys"] = nk`` (``nk[:,
        offset:]``; ``cache[key] = k, v``): state kept between calls, grown through a local name and stored back,
        one step longer at every call (a key/value cache). Reported (True)."""
        found = _bound_in_function(node, ctx)
        if found is None:
            return False
        statement, name, function, scope = found
        for element in node.args[0].elts:
            read = ctx.resolver.state_read(element, function, scope) \
                or ctx.resolver.state_read(reordered(element), function, scope)   # ``pk[beam_idx]``
            if read is None:
                continue
            storage = ast.unparse(read.storage)
            stores = [child for child in walk(function) if isinstance(child, ast.Assign)
                      and any(ast.unparse(t) == storage for t in child.targets)]
            if not stores or not all(len(s.targets) == 1 and s.lineno > statement.lineno
                                     and _holds(s.value, name, read.element) for s in stores):
                continue   # not stored back, or the state also set from something else (reset, truncated)
            if ctx.resolver.qualname(node.func) not in CATS:
                return False
            what = f"{name} = {ast.unparse(node.func).rsplit('.', 1)[-1]}([{short_source(element, 30)}, ...]) " \
                   f"stored back in {short_source(read.storage, 40)} (state kept between calls)"
            ctx.report(node, self.message.format(what=what), ctx.resolver.qualname(node.func) or "torch.cat")
            return True
        return False

    def _returned_state(self, node: ast.Call, ctx: FileContext) -> bool:
        """``states = cat((previous_states, states), 0)`` under ``if previous_states is not None`` (a parameter
        that defaults to None, or the names it unpacks into: ``past_key, past_value = layer_past``), the grown
        name returned beside the output (``return out, states``; ``present = (key, value)``; ``return out,
        present``): the previous call's key/value state, handed back one step longer for the next call (the
        incremental-decoding protocol). Reported (True)."""
        found = _bound_in_function(node, ctx)
        if found is None:
            return False
        statement, name, function, scope = found
        states = [ctx.resolver.optional_state(e, function, scope) for e in node.args[0].elts]
        found = [s for s in states if s is not None]
        if len(found) != 1 or any(isinstance(e, ast.Starred) or isinstance(e, ast.Name) and state is None and (
                (b := ctx.resolver.binding(e)) is None or b.tag == PARAM)
                for e, state in zip(node.args[0].elts, states)):
            return False   # one state, every other piece new (not a parameter: ``cat([x, skip])`` joins two)
        parameter = found[0]
        guarded, parent = False, ctx.parent(statement)
        while parent is not None and parent is not function:
            guarded = guarded or isinstance(parent, ast.If) and parameter in _names(parent.test)
            parent = ctx.parent(parent)
        if not guarded:
            return False   # no test of the state (``if layer_past is not None``): not a state absent at first
        aliases = {child.targets[0].id: child.lineno for child in walk(function) if isinstance(child, ast.Assign)
                   and child.lineno > statement.lineno and len(child.targets) == 1
                   and isinstance(child.targets[0], ast.Name) and isinstance(child.value, ast.Name)
                   and child.value.id == name}   # ``k_cache = k``: handed back under another name
        packed = [child for child in walk(function) if isinstance(child, ast.Assign)
                  and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name)
                  and child.targets[0].id not in (name, *aliases)
                  and child.lineno > statement.lineno and any(_returns(arm, {name, *aliases}, set()) for arm in (
                      _packed_pieces(a, ctx) for a in ((child.value.body, child.value.orelse)
                                                       if isinstance(child.value, ast.IfExp) else (child.value,)))
                      if isinstance(arm, ast.Tuple))]   # ``present = (key, value)``, ``kv = torch.stack((k, v))``
        holders = {child.targets[0].id for child in packed}   # type: ignore[union-attr]
        returns = [r.value for r in return_statements(function) if r.lineno > statement.lineno]
        handed = bool(returns) and all(isinstance(r, ast.Tuple) and any(_returns(e, {name, *aliases}, holders)
                                                                         for e in r.elts) for r in returns)
        if not handed and not _PAST_STATE.search(parameter):
            return False   # not handed back beside the output at every return after it (one before: another arm),
            #               nor named the previous calls' state (``layer_past``: the caller keeps the new pieces)
        if not _computed_with(function, statement.lineno, {name, *aliases}, holders) \
                and not (handed and _PAST_STATE.search(parameter)):
            return False   # only handed back (``x = cat((cls_tok, x)); return x, size``): a prefix, no cache; an
            #               ESPnet decoder layer's ``x = cat([cache, x], 1); return x, mask`` hands back the cache
        kept = [*aliases.values(), *(child.lineno for child in packed)]
        end = min(kept) if kept else float("inf")   # handed back from there: what the name becomes after is not
        for child in walk(function):
            if isinstance(child, ast.Assign) and statement.lineno < child.lineno < end \
                    and not rearranged(child.value, name) \
                    and any(isinstance(n, ast.Name) and n.id == name for t in child.targets for n in walk(t)):
                return False   # cut or replaced after growing (``h = h[-mem_len:]``)
        if ctx.resolver.qualname(node.func) not in CATS:
            return False
        read = next(e for e, state in zip(node.args[0].elts, states) if state is not None)
        what = f"{name} = {ast.unparse(node.func).rsplit('.', 1)[-1]}([{short_source(read, 30)}, ...]) " + (
            f"returned for the next call (the state {parameter} of the previous one)" if handed else
            f"(the state {parameter} of the previous calls, a key/value cache one step longer at each call)")
        ctx.report(node, self.message.format(what=what), ctx.resolver.qualname(node.func) or "torch.cat")
        return True

    def _cache_updated(self, node: ast.Call, ctx: FileContext) -> None:
        """``key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, kw)`` under a
        test of it: the cache protocol of Hugging Face's attention layers, ``past_key_value`` a parameter that defaults
        to None and names the previous calls' state; the cache appends this call's keys and values and hands back
        the whole sequence so far, one step longer at each call of a decoding loop (a ``DynamicCache``)."""
        receiver = node.func.value   # type: ignore[attr-defined]
        if not isinstance(receiver, ast.Name) or not _PAST_STATE.search(receiver.id) or len(node.args) < 2:
            return
        statement = ctx.parent(node)
        if not isinstance(statement, ast.Assign) or statement.value is not node or not (
                isinstance(statement.targets[0], ast.Tuple) and len(statement.targets[0].elts) >= 2):
            return   # the keys and values handed back (not a dict's ``update``)
        function = ctx.enclosing(node, FUNCTION_TYPES)
        scope = ctx.resolver.scopes.scope_of(function) if function is not None and ctx.resolver.scopes else None
        if scope is None or ctx.resolver.optional_state(receiver, function, scope) != receiver.id:
            return
        ctx.report(node, self.message.format(
            what=f"the key/value cache {receiver.id}.update(...) (the previous calls' keys and values with this "
                 f"call's appended, handed back whole)"), "past_key_values")

    def _generated(self, node: ast.Call, ctx: FileContext) -> None:
        """``model.generate(input_ids=ids, max_length=n, ...)``: a Hugging Face style generation, an autoregressive
        loop that grows the sequence and the key/value cache by a step each iteration (generated_calls.py)."""
        if not ctx.uses_torch or ctx.resolver.is_host(node.func.value):   # type: ignore[attr-defined]
            return
        keywords = generation_keywords(node, ctx)
        if not keywords:
            return
        ctx.report(node, self.message.format(
            what=f"{short_source(node.func, 30)}({', '.join(k + '=' for k in keywords[:3])}...) decodes step by step: "
                 f"the sequence and its key/value cache"), "generate")

    def _kept_list(self, node: ast.Call, pieces: ast.Name, ctx: FileContext) -> bool:
        """``res = cache[key]; res.append(out); out = torch.stack(res, dim=1)``: a list kept between calls,
        appended and joined at every call (kept_lists.py). Reported (True)."""
        name = ctx.resolver.qualname(node.func)
        if name not in CATS and name not in _STACKS:
            return False
        storage = kept_list(node, pieces, ctx)
        if storage is None:
            return False
        ctx.report(node, self.message.format(
            what=f"{name.rsplit('.', 1)[-1]}({pieces.id}) of the list kept in {short_source(storage, 30)}, appended "
                 f"at every call (a step longer each call of a decoding loop)"), name)
        return True

    def _joined_state(self, node: ast.Call, pieces: ast.Name, ctx: FileContext) -> bool:
        """``past = torch.cat(past, dim=-2)`` under ``if past is not None:``, ``past`` a parameter that defaults to
        None and names the previous calls' state (``past``, ``cache``): the caller's list of every earlier step's
        keys and values, one item longer at each call of its decoding loop. Reported (True)."""
        if ctx.resolver.qualname(node.func) not in CATS or not _PAST_STATE.search(pieces.id):
            return False
        function = ctx.enclosing(node, FUNCTION_TYPES)
        scope = ctx.resolver.scopes.scope_of(function) if function is not None and ctx.resolver.scopes else None
        if scope is None or ctx.resolver.optional_state(pieces, function, scope) != pieces.id:
            return False
        parent = ctx.parent(node)
        guarded = False
        while parent is not None and parent is not function:
            guarded = guarded or isinstance(parent, ast.If) and pieces.id in _names(parent.test)
            parent = ctx.parent(parent)
        if not guarded:
            return False
        name = ctx.resolver.qualname(node.func) or "torch.cat"
        ctx.report(node, self.message.format(
            what=f"{name.rsplit('.', 1)[-1]}({pieces.id}) of the state of the previous calls (a step longer at each "
                 f"call of a decoding loop)"), name)
        return True

    def _padded_here(self, node: ast.Call, ctx: FileContext) -> None:
        """``mask = F.pad(mask, (0, 1), value=True)`` in a loop over steps: padded by a constant every iteration,
        carried to the next (the generation mask that follows the growing sequence)."""
        statement = ctx.parent(node)
        if not isinstance(statement, ast.Assign) or statement.value is not node or len(statement.targets) != 1 \
                or ast.unparse(statement.targets[0]) != ast.unparse(node.args[0]):
            return
        amounts = node.args[1].elts if isinstance(node.args[1], (ast.Tuple, ast.List)) else []
        values = [a.value for a in amounts if isinstance(a, ast.Constant)]
        if not values or len(values) != len(amounts) or not all(isinstance(v, int) and v >= 0 for v in values) \
                or not any(values):
            return   # a constant, non-negative padding that adds something
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        text = ast.unparse(statement.targets[0])
        if not isinstance(loop, (ast.For, ast.While)) or (isinstance(loop, ast.For) and not steps(loop.iter, ctx)) \
                or not carried(loop, statement, text, ctx=ctx):
            return
        ctx.report(node, self.message.format(what=f"{text} = pad({text}, {short_source(node.args[1], 20)})"), "pad")

    @staticmethod
    def _stored(function: Optional[ast.AST], statement: ast.Assign, call: ast.Call, text: str,
                first_arm: Optional[list] = None) -> bool:
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
        first_ids = {id(n) for arm_statement in first_arm or () for n in walk(arm_statement)}
        others = _other_branches(statement, function)
        for child in walk(function):
            if child is statement or getattr(child, "lineno", 0) > statement.lineno or id(child) in first_ids \
                    or id(child) in others:
                continue   # ``if self.x is None: self.x = y`` (the first call's arm) sets the state it grows; an
                #            arm a run takes instead of the statement's (``if prepend: d[k] = cat([y, d[k]])``)
            if isinstance(child, ast.NamedExpr) and isinstance(child.target, ast.Name) and child.target.id == read \
                    and ast.unparse(child.value) in sources:
                return True         # ``if (mask := kwargs.get("attention_mask")) is not None:``
            if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for assigned in targets:
                    if ast.unparse(assigned) == text and not (child.value is not None
                                                              and rearranged(child.value, text)):
                        return False            # assigned again in the function: not the stored state
                    #                             (``self.x = self.x[beam_idx]``: the rows reordered, kept)
                    if isinstance(assigned, ast.Name) and assigned.id == read and child.value is not None \
                            and ast.unparse(child.value) in sources:
                        return True
        for child in walk(function):         # assigned again after the concatenation (a truncation)
            if child is not statement and isinstance(child, ast.Assign) and child.lineno > statement.lineno \
                    and id(child) not in others and any(ast.unparse(t) == text for t in child.targets):
                return False    # (not in another arm of a test around it: ``elif isinstance(v, np.ndarray)``)
        if read == text or ast.unparse(reordered(first)) == text:   # ``cat([self.seq[sel], tok])``
            return True
        # prepended: ``d[k] = cat([new, d[k]], -1)`` (Cutie's permanent memory) is one step longer too, when the
        # container is kept (``self``'s, or the caller's: a parameter) and the new piece is no other entry of it
        # (``g.edata["x"] = cat([g.edata.pop("src"), g.edata["x"]], 1)``: features joined side by side)
        elements = call.args[0].elts    # type: ignore[attr-defined]
        holder = ast.unparse(container.value) if isinstance(container, (ast.Subscript, ast.Attribute)) else ""
        kept = isinstance(root, ast.Name) and (root.id == "self" or root.id in {a.arg for a in parameters(function)})
        return len(elements) == 2 and ast.unparse(elements[-1]) == text and kept and holder not in read

    def _written_prefix(self, node: ast.Subscript, elements: list[ast.expr], ctx: FileContext) -> None:
        """``self.cache_k[:bsz, :start_pos + seqlen]`` where the function writes ``self.cache_k[:bsz, start_pos :
        start_pos + seqlen] = xk``: a cache filled at an advancing position and read up to it, so attention
        over it is one step longer at every call (a static cache is read whole, with a mask)."""
        prefixes = [i for i, s in enumerate(elements) if isinstance(s, ast.Slice) and s.step is None
                    and s.upper is not None and (s.lower is None or isinstance(s.lower, ast.Constant)
                                                 and s.lower.value == 0) and _names(s.upper)]
        function = ctx.enclosing(node, FUNCTION_TYPES)
        if not prefixes or function is None:
            return
        store = ctx.scratch.setdefault("growth_written", {})
        writes = store.get(id(function))
        if writes is None:   # once per function: its sliced writes by the tensor written
            writes = store[id(function)] = {}
            for child in walk(function):
                if isinstance(child, ast.Subscript) and isinstance(child.ctx, ast.Store):
                    writes.setdefault(ast.unparse(child.value), []).append(child)
        for child in writes.get(ast.unparse(node.value), ()):
            parts = child.slice.elts if isinstance(child.slice, ast.Tuple) else [child.slice]
            if len(parts) != len(elements):
                continue
            for axis in prefixes:   # the end of the prefix read is where this write starts
                written = parts[axis]
                if isinstance(written, ast.Slice) and written.lower is not None and _advancing(written) \
                        and _names(written.upper) <= _names(elements[axis].upper):   # type: ignore[attr-defined]
                    ctx.report(node, self.message.format(what=f"{short_source(node)} (read up to "
                                                         f"{ast.unparse(written.lower)}, where line {child.lineno} "
                                                         f"writes it)"), "x[:t]")
                    return

    def _advancing_slice(self, node: ast.Subscript, ctx: FileContext) -> None:
        """``model(buf[:, :t + 1])``, ``x[:, :step]`` in ``for t in range(...)``: one bound of a tensor's slice
        follows the loop counter and the other stays, so the slice is one step longer (or shorter) each time."""
        if not isinstance(node.ctx, ast.Load):
            return
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not any(isinstance(s, ast.Slice) and s.step is None and s.upper is not None for s in elements):
            return   # no prefix slice (the ``moving`` form below): the loop need not be looked for
        loop = ctx.enclosing(node, (ast.For, ast.While, *FUNCTION_TYPES))
        if isinstance(loop, ast.While):   # growth_counters.py: ``pos += 1`` at each step
            before = len(ctx.findings)
            self._advanced_counter(node, elements, loop, ctx)
            if len(ctx.findings) == before:
                self._written_prefix(node, elements, ctx)
            return
        if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name) or not (
                steps(loop.iter, ctx) or named_steps(loop, ctx)):
            self._written_prefix(node, elements, ctx)
            return
        counter = loop.target.id
        # a prefix whose end follows the counter (``[:t + 1]``, ``[0:step]``); every other part stays
        moving = [s for s in elements if isinstance(s, ast.Slice) and s.step is None and s.upper is not None
                  and (s.lower is None or isinstance(s.lower, ast.Constant) or _stays(s.lower, loop, counter))
                  and counter in _names(s.upper)]
        if not moving and not any(counter in _names(e) for e in elements):
            self._advanced_counter(node, elements, loop, ctx)
            return
        if len(moving) != 1 or any(counter in _names(e) for e in elements if e is not moving[0]):
            return
        kind = ctx.resolver.kind_of(node.value)
        if kind not in ("tensor", "batch", "mask") and not (   # ``x[:, :step]``: only arrays take a tuple index
                kind is None and ctx.uses_torch and isinstance(node.slice, ast.Tuple) and not is_host_array(node.value, ctx, node)):
            return
        if _rebound(loop, node.value):
            return
        ctx.report(node, self.message.format(what=f"{short_source(node)} (a slice bound follows the loop counter "
                                             f"{counter})"), "x[:t]")


    def _advanced_counter(self, node: ast.Subscript, elements: list, loop: ast.AST, ctx: FileContext) -> None:
        """``masks[:, :curr_pos + 1]`` in a loop of steps that advances ``curr_pos += 1`` itself (growth_counters.py)."""
        if isinstance(loop, ast.For) and not (steps(loop.iter, ctx) or named_steps(loop, ctx)):
            return
        counter = advanced_prefix(node, elements, loop, ctx, _stays)
        if counter is None:
            self._length_prefix(node, elements, loop, ctx)
            return
        if _rebound(loop, node.value):
            return
        kind = ctx.resolver.kind_of(node.value)
        if kind not in ("tensor", "batch", "mask") and not (
                kind is None and ctx.uses_torch and isinstance(node.slice, ast.Tuple) and not is_host_array(node.value, ctx, node)):
            return
        ctx.report(node, self.message.format(what=f"{short_source(node)} (a slice bound follows {counter}, which the "
                                             f"loop of line {loop.lineno} advances at every step)"), "x[:t]")

    def _length_prefix(self, node: ast.Subscript, elements: list, loop: ast.AST, ctx: FileContext) -> None:
        """``y_emb[:, :cur_len]`` after ``cur_len = out.shape[1]`` in a loop that grows ``out`` by a ``cat`` of itself
        every step (growth_counters.py): a prefix as long as the sequence so far, one step longer each iteration."""
        growing = ctx.per_node("growing_lengths", loop, lambda lp: _growing_lengths(lp, ctx))
        if growing is None:
            return
        grown, axes, lengths = growing
        moving = [(s, follows_length(s.upper, lengths, grown, axes)) for s in elements if isinstance(s, ast.Slice)
                  and s.step is None and s.upper is not None and (s.lower is None or isinstance(s.lower, ast.Constant))]
        moving = [(s, length) for s, length in moving if length is not None]
        if not moving or any(follows_length(e, lengths, grown, axes) for e in elements
                             if not any(e is m for m, _ in moving)):
            return
        root = node.value
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name) and root.id == grown or _rebound(loop, node.value):
            return   # the sequence itself, cut to its own length
        kind = ctx.resolver.kind_of(node.value)
        if kind not in ("tensor", "batch", "mask") and not (
                kind is None and ctx.uses_torch and isinstance(node.slice, ast.Tuple) and not is_host_array(node.value, ctx, node)):
            return
        ctx.report(node, self.message.format(what=f"{short_source(node)} (a slice bound follows {moving[0][1]}, the "
                                             f"length of {grown}, which the loop of line {loop.lineno} grows at every "
                                             f"step)"), "x[:t]")


def _stays(bound: ast.AST, loop: ast.For, counter: str) -> bool:
    """A slice's start that may keep its value from one step to the next: a name the loop does not rebind, or
    rebinds only under a test (``prev = 0`` before, ``if use_cache: prev = offset`` inside: without the cache the
    prefix ``seq[..., prev:offset]`` is one step longer each time). Rebound at every step it moves with the end (a
    window of a fixed length)."""
    if not isinstance(bound, ast.Name) or bound.id == counter:
        return False
    for statement in loop.body:
        for node in walk(statement):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)) else []
            if any(isinstance(n, ast.Name) and n.id == bound.id for t in targets for n in walk(t)):
                if node is statement or isinstance(statement, (ast.For, ast.While, ast.With)):
                    return False   # rebound at every step (also in a loop nested in it)
                if isinstance(node, ast.NamedExpr):
                    return False
    return True


def _packed_pieces(value: ast.AST, ctx: FileContext) -> ast.AST:
    """``(k, v)`` for ``torch.stack((k, v))`` (the key and value packed into one tensor to hand back, each piece
    rearranged or not: ``key.transpose(-2, -1)``; not a concatenation, which may grow the name again); else
    ``value`` itself."""
    if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], (ast.Tuple, ast.List)) \
            and ctx.resolver.qualname(value.func) in _STACKS:
        return ast.Tuple(elts=[_unwrapped(e) for e in value.args[0].elts], ctx=ast.Load())
    return value


def _unwrapped(piece: ast.AST) -> ast.AST:
    """``key`` for ``key.transpose(-2, -1)`` / ``key.contiguous()``: a rearrangement keeps the piece's length."""
    while isinstance(piece, ast.Call) and isinstance(piece.func, ast.Attribute) \
            and piece.func.attr in ("transpose", "permute", "contiguous", "unsqueeze", "detach"):
        piece = piece.func.value
    return piece


def _none_test_arm(statement: ast.stmt, text: str, ctx: FileContext) -> Optional[list]:
    """The other arm of ``if <text> is None: <text> = y else: <text> = cat([<text>, y])`` (the statement in the
    ``else``; for an item ``d[k]``, also ``if k not in d``, one operand of ``or`` or ``and`` counting): the arm that
    starts the state the statement grows; None when the statement is in no such test."""
    target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
    absent = (ast.unparse(target.slice), ast.unparse(target.value)) if isinstance(target, ast.Subscript) else None
    child, parent = statement, ctx.parent(statement)
    while isinstance(parent, ast.If):   # also down an ``elif`` chain: ``if k not in d: ... elif t: d[k] = cat(..)``
        if child in parent.orelse:
            found = _starting_arm(parent, text, absent)
            if found is not None:
                return found
        child, parent = parent, ctx.parent(parent)
    return None


def _starting_arm(parent: ast.If, text: str, absent: Optional[tuple[str, str]]) -> Optional[list]:
    """The body of ``parent`` when its test asks whether the state ``text`` is yet to start."""
    for test in walk(parent.test):   # also one operand of ``or``: ``module not in cache or fresh``
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            continue
        if isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant) \
                and test.comparators[0].value is None and ast.unparse(test.left) == text:
            return parent.body
        if isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant) \
                and test.comparators[0].value in (0, 1) and type(test.comparators[0].value) is int \
                and isinstance(test.left, (ast.Name, ast.Attribute)) and parent.test is test:
            return parent.body   # ``if step == 1: self.alive_attn = attn else: ... cat([self.alive_attn, attn])``
        if isinstance(test.ops[0], ast.NotIn) and absent == (ast.unparse(test.left), ast.unparse(test.comparators[0])):
            return parent.body   # ``if key not in cache: cache[key] = y else: cache[key] = cat([cache[key], y])``
    return None


def _round_trip(loop: ast.AST, statement: ast.Assign, text: str, ctx: FileContext) -> bool:
    """``x = batch["temporal"]`` ... ``x = cat([x, nxt])`` ... ``batch["temporal"] = x`` in a loop over steps: the
    name is read from a storage at the start of each iteration and stored back grown, so the storage grows by a
    step every iteration (a recursive forecast's inputs). Every other assignment of the name in the loop reads
    that storage (or rearranges the name), the storage is set only from the name after the concatenation, and
    the loop (a ``for``) counts steps."""
    if not isinstance(statement.targets[0], ast.Name):
        return False
    if isinstance(loop, ast.For) and (not steps(loop.iter, ctx) or over_layers(loop)):
        return False
    storage: Optional[str] = None
    for child in walk(loop):
        if child is statement or not isinstance(child, ast.Assign) or len(child.targets) != 1:
            continue
        target = ast.unparse(child.targets[0])
        if target == text:
            if isinstance(child.value, (ast.Subscript, ast.Attribute)) and child.lineno < statement.lineno \
                    and (storage is None or storage == ast.unparse(child.value)):
                storage = ast.unparse(child.value)
            elif not rearranged(child.value, text):
                return False
    if storage is None:
        return False
    stores = [child for child in walk(loop) if isinstance(child, (ast.Assign, ast.AugAssign))
              and any(ast.unparse(t) == storage for t in (child.targets if isinstance(child, ast.Assign)
                                                            else [child.target]))]
    return bool(stores) and all(isinstance(s, ast.Assign) and s.lineno > statement.lineno
                                and isinstance(s.value, ast.Name) and s.value.id == text for s in stores)


def _self_rooted(target: ast.AST) -> bool:
    """``self.x``, ``self._stats[k]``: state of the object, kept between calls."""
    if not isinstance(target, (ast.Attribute, ast.Subscript)):
        return False
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return isinstance(target, ast.Name) and target.id == "self"


def _other_branches(statement: ast.stmt, function: ast.AST) -> set[int]:
    """The nodes of the arms of the tests around ``statement`` (in ``function``) that do not hold it: a run takes
    one of them, never both."""
    found: set[int] = set()
    for test in walk(function):
        if not isinstance(test, ast.If) or not test.lineno <= statement.lineno <= (test.end_lineno or test.lineno):
            continue
        for arm, other in ((test.body, test.orelse), (test.orelse, test.body)):
            if any(n is statement for a in arm for n in walk(a)):
                found |= {id(n) for a in other for n in walk(a)}
    return found
