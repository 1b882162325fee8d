"""Steps that grow their input: a function or method of the file that returns one of its parameters concatenated
with a new piece along one axis (``return torch.cat((xs, x))``; ``tokens = torch.cat([tokens, nxt], -1)`` then
``return tokens, completed``), the autoregressive step of greedy and beam-search decoders; and the file's calls
that run such a function: ``f(...)``, ``self.f(...)`` (the model's call sites) and ``recv.f(...)`` where ``recv``
(``self.decoder``, a local name) holds an instance of a class of the file (every class its bindings may hold,
``self.decoder = BeamSearchDecoder(...)`` in one arm and ``GreedyDecoder(...)`` in the other).

A mixin of :class:`npu_lint.resolver.Resolver` (it supplies ``binding``, ``qualname``, ``value_of``,
``binding_value``, ``call_sites`` and the scopes); each summary is computed once per function. Which calls feed
the grown value back into a loop is the rule's question (NPU408, ``rules/growth_steps.py``).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, NamedTuple, Optional

from npu_lint.analysis.scopes import PARAM, VALUE, Scope
from npu_lint.analysis.call_lines import CallLines, nested_calls
from npu_lint.analysis.summaries import memo, method_def, return_statements
from npu_lint.analysis.nodes import body_of, children, function_text

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

CATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Growth(NamedTuple):
    """A function that returns its parameter grown: which parameter (its index among the positional parameters,
    ``self`` included, and its name), the concatenations that grow it, and where the grown value is returned (its
    element of a returned tuple; -1: the returned value itself)."""
    parameter: int
    name: str
    cats: tuple[ast.Call, ...]
    position: int


class StepGrowth:
    """Functions returning a parameter grown by a piece, and the calls that run them (mixed into the Resolver)."""

    def grown_parameter(self: "Resolver", function: ast.AST) -> Optional[Growth]:
        """The parameter ``function`` returns concatenated with a new piece (None: no such step). The piece is no
        parameter itself (``torch.cat([a, b])`` of two parameters joins them, it grows neither), the parameter
        appears once in the concatenation (rows reordered, ``xs[beam_idx]``, count as ``xs``), the concatenation is
        returned as it is (a name bound to it, an element of a returned tuple; not cut after it), and every other
        return gives the same element unchanged (``if done: return tokens``) or grown too."""
        return memo(self._summaries, ("grows", id(function)), lambda: self._grown_parameter(function))

    def _grown_parameter(self: "Resolver", function: ast.AST) -> Optional[Growth]:
        if not isinstance(function, _DEFS) or self.scopes is None:
            return None
        scope = self.scopes.scope_of(function)
        if scope is None:
            return None
        positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        returned = [r.value for r in return_statements(function) if r.value is not None
                    and not (isinstance(r.value, ast.Constant) and r.value.value is None)]
        sizes = {len(v.elts) if isinstance(v, ast.Tuple) else -1 for v in returned}
        if len(sizes) != 1:
            return None   # no return, or returns of different shapes: no one element to follow
        text = function_text(function, self.source, self._usage) if self.source is not None else None
        if (text is None or not text.isascii() or "yield" in text) and _generator(function):
            return None   # a generator's call gives a generator, not the grown sequence (no ``yield`` in the text: none)
        size = sizes.pop()
        found: Optional[Growth] = None
        for position in range(size) if size >= 0 else (-1,):
            elements = [v.elts[position] if position >= 0 else v for v in returned]   # type: ignore[attr-defined]
            growth = self._grown_element(elements, scope, positional, position)
            if growth is not None:
                if found is not None:
                    return None   # two grown elements: not one sequence a step extends
                found = growth
        return found

    def _grown_element(self: "Resolver", elements: list[ast.AST], scope: Scope, positional: list[str],
                       position: int) -> Optional[Growth]:
        """The growth every returned ``elements`` (one per return, at ``position``) agrees on."""
        cats: list[ast.Call] = []
        grown: Optional[str] = None
        unchanged: set[str] = set()
        for element in elements:
            if isinstance(element, ast.Name):
                bindings = self.scopes.lookup_reaching(element.id, scope, (element.lineno, element.col_offset))
            else:
                bindings = []
            values = [b.value for b in bindings if b.tag == VALUE and not b.path and b.scope is scope] \
                if bindings else [element]
            if bindings and len(values) != len(bindings):
                if all(b.tag == PARAM and b.scope is scope for b in bindings):
                    unchanged.add(element.id)   # ``return tokens`` unchanged on an early exit
                    continue
                return None
            for value in values:
                parameter = self._grows(value, scope)
                if parameter is None or grown not in (None, parameter):
                    return None
                grown = parameter
                cats.append(value)   # type: ignore[arg-type]
        if grown is None or grown not in positional or unchanged - {grown}:
            return None
        return Growth(positional.index(grown), grown, tuple(dict.fromkeys(cats)), position)

    def _grows(self: "Resolver", value: ast.AST, scope: Scope) -> Optional[str]:
        """The parameter ``torch.cat([p, new], dim)`` grows: ``p`` (or its reordered rows) once, every other
        piece no parameter; of several parameters, the first piece (``cat([seq, tok])``: the prefix), which is a
        growth only where a caller feeds the result back to it in a loop of steps (`feeding`)."""
        if not isinstance(value, ast.Call) or not value.args or not isinstance(value.args[0], (ast.List, ast.Tuple)) \
                or len(value.args[0].elts) < 2 or self.qualname(value.func, scope) not in CATS:
            return None
        grown: list[str] = []
        for element in value.args[0].elts:
            if isinstance(element, ast.Starred):
                return None
            base = reordered(element)
            if isinstance(base, ast.Name):
                binding = self.binding(base, scope)
                if binding is not None and binding.tag == PARAM and binding.scope is scope \
                        or self._parameter_rearranged(base, scope):
                    grown.append(base.id)
        if len(grown) > 1 and isinstance(reordered(value.args[0].elts[0]), ast.Name) \
                and reordered(value.args[0].elts[0]).id == grown[0] and grown.count(grown[0]) == 1:
            return grown[0]   # ``cat([seq, tok])`` of two parameters: the prefix, when a caller feeds it back (session 22)
        return grown[0] if len(grown) == 1 else None

    def iterates_steps(self: "Resolver", iterated: ast.AST, scope: Optional[Scope]) -> bool:
        """A loop over ``iterated`` runs over steps: ``range(...)``, ``count()``, ``tqdm(range(...))`` (`step_iterable`),
        or a call of one of the file's functions or methods whose every return is one (``for step in
        self._stopping_steps(states):`` of ``return range(max_new_tokens)``: the number of steps a decoder may take)."""
        if step_iterable(iterated):
            return True
        if not isinstance(iterated, ast.Call) or scope is None or self.scopes is None:
            return False
        target = self.callee(iterated, scope)
        return target is not None and self.returns_steps(target[0])

    def returns_steps(self: "Resolver", function: ast.AST) -> bool:
        """Every return of ``function`` gives steps (`step_iterable`: ``return range(n)``, ``return tqdm(range(n))``,
        or a name bound only to one); not a generator (its call gives what it yields)."""
        def compute() -> bool:
            if not isinstance(function, _DEFS) or _generator(function):
                return False
            scope = self.scopes.scope_of(function) if self.scopes is not None else None
            returned = [r.value for r in return_statements(function)]
            if scope is None or not returned or any(v is None for v in returned):
                return False
            for value in returned:
                if isinstance(value, ast.Name):
                    bindings = self.scopes.lookup_reaching(value.id, scope, (value.lineno, value.col_offset))
                    values = [b.value for b in bindings if b.tag == VALUE and not b.path and b.scope is scope]
                    if not bindings or len(values) != len(bindings) or not all(_counted(v) for v in values):
                        return False
                elif not _counted(value):
                    return False
            return True
        return bool(memo(self._summaries, ("returns steps", id(function)), compute))

    def kept_parameter(self: "Resolver", function: ast.AST, position: int) -> Optional[int]:
        """The positional parameter (its index, ``self`` included) every return of ``function`` gives back at
        ``position`` of the returned tuple (-1: the returned value) unchanged or only rearranged (``return xs``;
        ``xs = xs[keep]`` then ``return xs, done``: the finished rows dropped, the steps kept); None otherwise."""
        def compute() -> Optional[int]:
            if not isinstance(function, _DEFS) or self.scopes is None or _generator(function):
                return None
            scope = self.scopes.scope_of(function)
            positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
            returned = [r.value for r in return_statements(function)]
            if scope is None or not returned:
                return None
            kept: set[str] = set()
            for value in returned:
                if position >= 0:
                    if not isinstance(value, ast.Tuple) or position >= len(value.elts) \
                            or any(isinstance(e, ast.Starred) for e in value.elts):
                        return None
                    value = value.elts[position]
                if not isinstance(value, ast.Name):
                    return None
                bindings = self.scopes.may_reach(value.id, scope, (value.lineno, value.col_offset))
                if not bindings:
                    return None
                for binding in bindings:
                    if binding.scope is not scope:
                        return None
                    if binding.tag != PARAM and not (binding.tag == VALUE and not binding.path
                                                     and rearranged(binding.value, value.id)):
                        return None
                kept.add(value.id)
            if len(kept) != 1:
                return None
            name = kept.pop()
            return positional.index(name) if name in positional else None
        return memo(self._summaries, ("kept parameter", id(function), position), compute)   # type: ignore

    def _parameter_rearranged(self: "Resolver", name: ast.Name, scope: Scope) -> bool:
        """Every binding of ``name`` that may reach it is the parameter itself or the parameter rearranged
        (``if step == 0: ids = ids.repeat(n, 1)``: the rows copied once for the samples, the steps kept)."""
        bindings = self.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset))
        if not all(b.scope is scope and (b.tag == PARAM or b.tag == VALUE and not b.path
                                         and rearranged(b.value, name.id)) for b in bindings):
            return False
        if any(b.tag == PARAM for b in bindings):
            return True
        # ``ids = torch.index_select(ids, 0, beam_idx)`` on every path (session 23): the parameter's rows reordered,
        # its steps kept; the name it is read from must reach back to the parameter in turn
        for binding in bindings[:2]:
            read = next((n for n in ast.walk(binding.value) if isinstance(n, ast.Name) and n.id == name.id), None)
            if read is None or (read.lineno, read.col_offset) >= (name.lineno, name.col_offset) \
                    or not self._parameter_rearranged(read, scope):
                return False
        return bool(bindings) and len(bindings) <= 2

    def runs(self: "Resolver", function: ast.AST) -> list[tuple[ast.Call, Scope, int]]:
        """The file's calls of ``function`` with the scope of each and how many leading parameters the call fills
        implicitly: the model's call sites (``f(x)``, ``self.f(x)``), ``self.f(x)`` of a ``@staticmethod`` and, for
        a method, ``recv.f(x)`` where ``recv`` may hold an instance of its class or of a subclass of the file that
        inherits it."""
        def compute() -> list[tuple[ast.Call, Scope, int]]:
            found = list(self.call_sites(function))
            name = getattr(function, "name", "")
            scope = self.scopes.scope_of(function) if self.scopes is not None else None
            if scope is None or scope.parent is None or scope.parent.kind != "class" or name.startswith("__"):
                return found
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                         for d in function.decorator_list)   # type: ignore[attr-defined]
            seen = {id(call) for call, _, _ in found}
            if self._call_lines is None:
                self._call_lines = CallLines(self.scopes, self.source)
            for call, where, held in self._calls_named(name):
                if id(call) in seen:
                    continue
                target = self.callee(call, where)
                if target is not None and target[0] is function:
                    found.append((call, where, target[1]))   # ``self.f(x)`` of a static method
                elif any(method is function for method in held):
                    found.append((call, where, 0 if static else 1))
                seen.add(id(call))
            return found
        return memo(self._summaries, ("runs", id(function)), compute)   # type: ignore[return-value]

    def _calls_named(self: "Resolver", name: str) -> list[tuple[ast.Call, Scope, list[ast.AST]]]:
        """The file's calls ``x.name(...)`` (statements and inside expressions), each with the methods of the file
        its receiver may hold: once per method name, whichever of the same-named methods asks."""
        key = ("calls named", name)
        found = self._summaries.get(key)
        if found is None:
            by_attribute = self._summaries.get(("calls by attribute",))
            if by_attribute is None:   # once per file: the statement-level calls ``x.f(...)`` by ``f``
                by_attribute = self._summaries[("calls by attribute",)] = {}
                for call, where in self.scopes.calls:
                    if isinstance(call.func, ast.Attribute):
                        by_attribute.setdefault(call.func.attr, []).append((call, where))
            if self._call_lines is None:
                self._call_lines = CallLines(self.scopes, self.source)
            candidates = list(by_attribute.get(name, ())) + list(nested_calls(self.scopes, self._call_lines, "." + name))
            found = self._summaries[key] = [(call, where, self._held_methods(call, where)) for call, where in candidates]
        return found   # type: ignore[return-value]

    def _held_methods(self: "Resolver", call: ast.Call, scope: Scope) -> list[ast.AST]:
        """The file's methods ``recv.f(...)`` may run: ``f`` of each class of the file ``recv`` may hold."""
        func = call.func
        assert isinstance(func, ast.Attribute)
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id == self.scopes.self_name(scope):
            return []   # ``self.f(...)``: the model's call sites
        if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) \
                and receiver.value.id == self.scopes.self_name(scope):
            values = []
            for bound in self.scopes.attribute(scope, receiver.attr):   # ``Greedy() if n == 1 else Beam()``: each arm
                arms = (bound.value.body, bound.value.orelse) if isinstance(bound.value, ast.IfExp) else None
                values.extend([self.value_of(arm, bound.scope) for arm in arms] if arms else [self.binding_value(bound)])
        else:
            values = [self.value_of(receiver, scope)]
        methods = []
        for value in values:
            cls = value[1] if value is not None and isinstance(value[1], str) else None
            seen: set[str] = set()
            while cls in self._local_classes and cls not in seen:   # up the file's own bases
                seen.add(cls)
                method = method_def(self._local_classes[cls], func.attr, 1)
                if method is not None:
                    methods.append(method[0])
                    break
                cls = self._parents.get(cls)
        return methods


def step_iterable(iterated: Optional[ast.AST]) -> bool:
    """``range(...)``, ``count()``, ``trange(...)``, ``tqdm(range(...))`` (a callee named for one: ``xrange``,
    ``progress_count``): what a loop over steps iterates, syntactically."""
    if not isinstance(iterated, ast.Call):
        return False
    func = iterated.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name.lower().rsplit("_", 1)[-1] in ("range", "count", "trange", "tqdm")


_REARRANGING = frozenset({"view", "reshape", "unsqueeze", "squeeze", "repeat", "expand", "gather", "index_select",
                          "contiguous", "transpose", "permute", "flatten", "unflatten", "clone", "detach", "to",
                          "float", "long", "int", "half", "bfloat16", "repeat_interleave", "movedim", "view_as",
                          "reshape_as", "expand_as", "cpu", "type"})


# torch functions whose first argument is the tensor the method of the same name rearranges (session 23)
_TORCH_FORMS = frozenset({"index_select", "gather", "repeat_interleave", "reshape", "transpose", "permute",
                          "squeeze", "unsqueeze", "flatten", "movedim"})


def rearranged(value: ast.AST, text: str) -> bool:
    """``value`` is ``text`` through a chain of rearranging methods (``text.view(...).gather(1, i)``) or its rows
    reordered (``text[beam_idx]``): the same steps again, none cut off (not ``text[:, -10:]``, not ``f(text)``)."""
    seen = False
    while True:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.args \
                and value.func.attr in _TORCH_FORMS and isinstance(value.func.value, ast.Name) \
                and value.func.value.id == "torch":
            value, seen = value.args[0], True   # ``torch.index_select(ids, 0, beam_idx)``: the method's function form
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr in _REARRANGING:
            value, seen = value.func.value, True
        elif isinstance(value, ast.Subscript) and isinstance(value.ctx, ast.Load) and reordered(value) is not value:
            value, seen = value.value, True
        elif _einops(value):
            value, seen = value.args[0], True   # type: ignore[attr-defined]
        else:
            return seen and ast.unparse(value) == text


def _einops(value: ast.AST) -> bool:
    """``repeat(x, 'b ... -> (b beams) ...', beams=k)``, ``rearrange(x, pattern)``: einops' rearranging of ``x``
    (a pattern with ``->``), its steps kept (beam search's rows repeated per beam)."""
    if not isinstance(value, ast.Call) or len(value.args) < 2:
        return False
    func = value.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    pattern = value.args[1]
    return name in ("repeat", "rearrange") and isinstance(pattern, ast.Constant) \
        and isinstance(pattern.value, str) and "->" in pattern.value


def _counted(value: ast.AST) -> bool:
    """A `step_iterable` that counts (``range(n)``, ``tqdm(range(n))``; not ``tqdm(loader)``, a loader's batches)."""
    if not step_iterable(value):
        return False
    func = value.func   # type: ignore[attr-defined]
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return not name.lower().endswith("tqdm") or bool(value.args) and step_iterable(value.args[0])  # type: ignore


def _whole(part: ast.AST) -> bool:
    """``:`` or ``...``: an axis taken whole."""
    if isinstance(part, ast.Constant):
        return part.value is Ellipsis
    return isinstance(part, ast.Slice) and part.lower is None and part.upper is None and part.step is None


def reordered(element: ast.AST) -> ast.AST:
    """``xs[beam_idx]`` (``xs[beam_idx, :]``), ``xs.index_select(0, idx)``: the rows of ``xs`` reordered (beam search), whose length
    along the other axes is ``xs``'s; else the element itself."""
    if isinstance(element, ast.Subscript):
        parts = element.slice.elts if isinstance(element.slice, ast.Tuple) else [element.slice]
        if not any(isinstance(p, (ast.Slice, ast.Constant)) for p in parts):
            return element.value
        if len(parts) > 1 and not isinstance(parts[0], (ast.Slice, ast.Constant)) \
                and all(_whole(p) for p in parts[1:]):
            return element.value   # ``xs[beam_idx, :]``: the rows reordered, every other axis whole
    if isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) \
            and element.func.attr == "index_select":
        return element.func.value
    return element


def _generator(function: ast.AST) -> bool:
    """``yield`` in the function's own body (not in a nested function or class)."""
    stack = list(body_of(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(children(node))
    return False


class StateRead(NamedTuple):
    """Where a value was read from state kept between calls: the storage (``self._state["k"]``, ``cache[key]``
    of a parameter) and the value's element when an unpacking read it (``k, v = cache[key]``: 0 and 1; -1: whole)."""
    storage: ast.AST
    element: int


def storage_root(node: ast.AST) -> Optional[ast.Name]:
    """The name an attribute or item chain is rooted at (``self`` of ``self._state["k"]``, ``cache`` of
    ``cache[key].keys``); None for a plain name or any other root."""
    if not isinstance(node, (ast.Attribute, ast.Subscript)):
        return None
    root = node
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    return root if isinstance(root, ast.Name) else None


def kept_storage(node: ast.AST, function: ast.AST, self_name: Optional[str],
                 parameter: Optional[Callable[[str], bool]] = None) -> bool:
    """``node`` names state that outlives a call of ``function``: an attribute or item of ``self``
    (``self.cache``, ``self._state["past_keys"]``), or an item of a container the caller passes in
    (``cache[key]`` for a parameter ``cache`` of ``function`` or, ``parameter`` says, of a function around it);
    not a local name, nor an attribute of a local object."""
    root = storage_root(node)
    if root is None:
        return False
    if self_name is not None and root.id == self_name:
        return True
    names = {a.arg for a in (*function.args.posonlyargs, *function.args.args,   # type: ignore[attr-defined]
                             *function.args.kwonlyargs)}
    return isinstance(node, ast.Subscript) and (root.id in names or parameter is not None and parameter(root.id))


class StateReads:
    """Values read from state kept between calls (mixed into the Resolver with StepGrowth)."""

    def state_read(self: "Resolver", element: ast.AST, function: ast.AST, scope: Scope) -> Optional[StateRead]:
        """The kept state ``element`` is read from: the storage itself (``self._state["k"]``) or a name bound
        to it once in ``function`` (``pk = self._state["k"]``, ``k_top, v_top = cache[key]``); None otherwise."""
        self_name = self.scopes.self_name(scope) if self.scopes is not None else None

        def closed_over(name: str) -> bool:   # ``cache`` of the function a nested helper is defined in
            binding = self.scopes.lookup(name, scope, None)
            return binding is not None and binding.tag == PARAM and binding.scope is not scope \
                and binding.scope.kind == "function"
        if kept_storage(element, function, self_name, closed_over):
            return StateRead(element, -1)
        if not isinstance(element, ast.Name):
            return None
        reaching = self.scopes.lookup_reaching(element.id, scope, (element.lineno, element.col_offset))
        if len(reaching) != 1:
            return None   # bound in two places (``pk = None`` on the first call): not one read of the state
        binding = reaching[0]
        if binding.tag != VALUE or binding.scope is not scope or len(binding.path) > 1 \
                or not isinstance(binding.value, ast.AST):
            return None
        value = binding.value
        if not kept_storage(value, function, self_name, closed_over):
            return None
        return StateRead(value, binding.path[0] if binding.path else -1)

    def optional_state(self: "Resolver", element: ast.AST, function: ast.AST, scope: Scope) -> Optional[str]:
        """The parameter with a ``None`` default that ``element`` reads whole: the parameter itself
        (``previous_states``), a name it is unpacked into (``past_key, past_value = layer_past``) or an item of it
        (``layer_past[0]``, also through a name: ``past_key = past_kv[0]``): the state of the previous call, absent
        on the first (None otherwise)."""
        optional = _optional_parameters(function)
        if isinstance(element, ast.Subscript) and isinstance(element.slice, ast.Constant) \
                and isinstance(element.value, ast.Name):
            element = element.value
        if not isinstance(element, ast.Name):
            return None
        reaching = self.scopes.lookup_reaching(element.id, scope, (element.lineno, element.col_offset))
        if len(reaching) != 1 or reaching[0].scope is not scope:
            return None
        binding = reaching[0]
        if binding.tag == PARAM:
            return element.id if element.id in optional else None
        value = binding.value
        if binding.tag == VALUE and not binding.path and isinstance(value, ast.Subscript) \
                and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, int):
            value = value.value   # ``past_key = past_kv[0]``: an item of the state, bound to a name
        elif not (binding.tag == VALUE and len(binding.path) == 1):
            return None
        if isinstance(value, ast.Name) and value.id in optional:
            inner = self.scopes.lookup_reaching(value.id, scope, (value.lineno, value.col_offset))
            if len(inner) == 1 and inner[0].tag == PARAM and inner[0].scope is scope:
                return value.id
        return None


def _optional_parameters(function: ast.AST) -> set[str]:
    """The parameters of ``function`` whose default is ``None``."""
    args = function.args   # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    found = {a.arg for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)
             if isinstance(d, ast.Constant) and d.value is None}
    found |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults)
              if isinstance(d, ast.Constant) and d.value is None}
    return found
