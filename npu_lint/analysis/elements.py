"""The elements of values: what ``a, b = value`` binds at each position (tuples, the tuples tensor methods return,
the file's own functions' and other modules' returned tuples) and what ``for target in source`` binds (through
``enumerate``, ``zip``, ``tqdm`` ...; loaders give batches, modules' ``parameters()`` tensors).

A mixin of :class:`npu_lint.resolver.Resolver`, which supplies ``value_of``, ``qualname``, ``definition``,
``callee``, ``class_method``, ``_returned_element``, ``_declared_element``, ``project`` and ``module_name``.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.declared import CLASSED as _CLASSED
from npu_lint.analysis.attribute_items import attribute_item
from npu_lint.analysis.dict_entries import keyed_mask
from npu_lint.analysis.nodes import body_of
from npu_lint.analysis.packed import packed_element
from npu_lint.analysis.scopes import ANNOTATION, LOOP, PARAM, STAR, VALUE, Binding, Scope
from npu_lint.analysis.returned_tuples import element_value
from npu_lint.analysis.summaries import return_statements

_ITERATION_WRAPPERS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.autonotebook.tqdm",
                                 "iter", "sorted", "reversed", "list"})
_SEQUENCE_COPIES = frozenset({"list", "tuple", "sorted", "reversed"})   # ``list(xs)[0]``: an element of ``xs``
# ``nn.ModuleList(blocks)``: its elements are the list's (``for conv in self.convs`` runs a ``MainBlock``)
_MODULE_LISTS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential"})
_ADDERS = {"append": 0, "insert": 1, "extend": -1}   # ``out.append(t)``, ``out.insert(0, t)``, ``out.extend(ts)``
_DEPTH = 40
_LIBRARIES = ("torch", "numpy", "pandas")   # no project function: ``u, n = np.unique(x, return_counts=True)``


def _progress_bar(func: ast.AST) -> bool:
    """A call of a bare ``tqdm`` whatever the module binds it to (``tqdm = get_tqdm()``, a project's re-export):
    the name is the convention for a progress bar that yields its argument's items."""
    return isinstance(func, ast.Name) and func.id == "tqdm"


class Elements:
    """Elements of tuples and of iterables (mixed into the Resolver)."""

    def _tuple_element(self, value: ast.AST, scope: Scope, depth: int) -> Optional[K.Value]:
        """``x.max(-1)[0]``, ``torch.sort(x)[1]``: an element of the tuple of tensors a tensor method returns."""
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) \
                or value.func.attr not in K.TENSOR_TUPLES:
            return None
        name = self.qualname(value.func, scope)
        if name is not None:
            return (K.TENSOR, None) if K.tensor_function(name) else None
        receiver = self.value_of(value.func.value, scope, depth)
        if receiver == (K.HOST, K.CPU_TENSOR):
            return receiver   # ``scores.cpu().unbind()``: the pieces of a host tensor stay on the host
        return (K.TENSOR, None) if receiver is not None and receiver[0] in K.TENSORS else None

    def _element(self, value: ast.AST, scope: Scope, path: tuple[int, ...], depth: int) -> Optional[K.Value]:
        """What ``a, b = value`` binds at ``path``."""
        index = path[0]
        if len(path) == 1 and isinstance(value, (ast.Name, ast.Call)) and packed_element(self, value, scope, index):
            return K.TENSOR, None   # ``x, batch_sizes, _, _ = packed``: a PackedSequence's fields are tensors
        if isinstance(value, ast.Name):   # ``for i, item in enumerate(zip(masks, xs)): m, x = item``
            return self._name_element(value, scope, path, depth)
        if isinstance(value, (ast.Tuple, ast.List)):
            if index == STAR or index >= len(value.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
                return None
            element = value.elts[index]
            return self._element(element, scope, path[1:], depth) if path[1:] else self.value_of(element, scope, depth)
        if isinstance(value, ast.Call):
            func = value.func
            passed = self.passed_through(value, scope)
            if passed is not None and index != STAR:   # ``loader, sched = accelerator.prepare(loader, sched)``
                if index >= len(passed):
                    return None
                return self._element(passed[index], scope, path[1:], depth) if path[1:] \
                    else self.value_of(passed[index], scope, depth)
            name = self.qualname(func, scope)
            method = name.rpartition(".")[2] if name else (func.attr if isinstance(func, ast.Attribute) else "")
            if name is None and isinstance(func, ast.Attribute):
                receiver = self.value_of(func.value, scope, depth)
                if receiver is not None and receiver[0] in K.TENSORS and method in K.TENSOR_TUPLES:
                    return K.TENSOR, None
                if method in ("unique", "unique_consecutive") and receiver is None and any(
                        kw.arg in K.TENSOR_TUPLE_KEYWORDS for kw in value.keywords):
                    return K.TENSOR, None   # ``_, counts = idx.unique_consecutive(return_counts=True)``
            elif name is not None and K.tensor_function(name) and method in K.TENSOR_TUPLES:
                return K.TENSOR, None
            definition = self.definition(func, scope) if isinstance(func, ast.Name) else None
            if definition is None and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                method = self.callee(value, scope)   # ``a, b = self.helper(x)``
                definition = method[0] if method is not None and method[0].name == func.attr else None
            asked = None
            if definition is None and isinstance(func, ast.Attribute) and len(path) == 1 and index != STAR:
                receiver = self.value_of(func.value, scope, depth)   # ``v, p = self.policy.evaluate(x)``
                if receiver is not None and receiver[0] in _CLASSED and receiver[1]:
                    definition, asked = self.class_method(receiver[1], func.attr)
            if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(path) == 1:
                return self._returned_element(definition, index)
            if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) and index != STAR \
                    and depth < _DEPTH:   # ``(logits, mask), state = self.step(x)``: nested tuples returned
                return self._nested_element(definition, path, depth + 1)
            if asked is not None and self.project is not None:
                return self.project.element_of_method(asked, func.attr, index)
            if self.project is not None and len(path) == 1 and index != STAR:
                found = None
                if name is not None and not name.startswith(_LIBRARIES):   # ``a, mask = pkg.ops.split(x)``
                    found = self.project.element_of_call(name, self.module_name, index)
                elif name is None:   # ``boxes, mask = self.assigner(x)``: a project module's ``forward``
                    called = self.value_of(func, scope, depth)
                    if called is not None and called[0] == K.MODULE and called[1]:
                        found = self.project.element_of_method(called[1], "forward", index)
                if found is not None:
                    return found
        whole = self.value_of(value, scope, depth)
        if whole is not None and whole[0] in (K.BATCH, K.HOST, K.MASK):
            return whole   # ``j, k = mask.T``: the rows of a mask are masks
        return None

    def _nested_element(self, function: ast.AST, path: tuple[int, ...], depth: int) -> Optional[K.Value]:
        """Element ``path`` (two deep or more) of the tuples every return of the file's ``function`` gives
        (``return (logits, mask), state``), agreeing; None when one return is no tuple literal (session 25)."""
        scope = self.scopes.scope_of(function) if self.scopes is not None else None
        values = [r.value for r in return_statements(function)
                  if r.value is not None and not (isinstance(r.value, ast.Constant) and r.value.value is None)]
        if scope is None or not values:
            return None
        found = []
        for value in values:
            if not isinstance(value, (ast.Tuple, ast.List)) or path[0] >= len(value.elts) \
                    or any(isinstance(e, ast.Starred) for e in value.elts):
                return None
            found.append(self._element(value.elts[path[0]], scope, path[1:], depth + 1))
        return element_value(found)

    def passed_through(self, call: ast.Call, scope: Scope) -> Optional[list[ast.AST]]:
        """What a call hands back as it was given, wrapped for the devices: accelerate's ``accelerator.prepare(model,
        opt, loader)`` (its arguments, in order) and ``accelerator.skip_first_batches(loader, n)`` (the loader),
        where the receiver is bound to ``Accelerator(...)``; None for any other call."""
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in ("prepare", "skip_first_batches") or not call.args \
                or any(isinstance(a, ast.Starred) for a in call.args) or self.scopes is None:
            return None
        receiver = func.value
        if isinstance(receiver, ast.Name):
            bindings = self.scopes.may_reach(receiver.id, scope, (receiver.lineno, receiver.col_offset))
        elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) \
                and receiver.value.id == self.scopes.self_name(scope):
            bindings = self.scopes.attribute(scope, receiver.attr)
        else:
            return None
        if not bindings or not all(b.tag == VALUE and not b.path and isinstance(b.value, ast.Call)
                                   and (self.qualname(b.value.func, b.scope) or "").startswith("accelerate.")
                                   and (self.qualname(b.value.func, b.scope) or "").endswith(".Accelerator")
                                   for b in bindings):
            return None
        return list(call.args) if func.attr == "prepare" else call.args[:1]

    def _name_element(self, name: ast.Name, scope: Scope, path: tuple[int, ...], depth: int) -> Optional[K.Value]:
        """``m, x = item`` where ``item`` is bound (by one binding) to a tuple, or to an element of a loop's tuples: the
        element at ``path`` of what ``item`` was bound to. Otherwise what the whole value says (a mask's rows)."""
        bindings = self.scopes.lookup_reaching(name.id, scope, (name.lineno, name.col_offset)) \
            if self.scopes is not None and depth < _DEPTH else ()
        if len(bindings) == 1 and STAR not in bindings[0].path and STAR not in path:
            binding = bindings[0]
            if binding.tag == LOOP:
                return self._iter_element(binding.value, binding.scope, binding.path + path, depth + 1)
            if binding.tag == VALUE and isinstance(binding.value, (ast.Tuple, ast.List, ast.Name)):
                return self._element(binding.value, binding.scope, binding.path + path, depth + 1)
            if binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.Call):
                return self._element(binding.value, binding.scope, path, depth + 1)   # ``out = f(x)``; ``a, m = out``
        whole = self.value_of(name, scope, depth)
        return whole if whole is not None and whole[0] in (K.BATCH, K.HOST, K.MASK) else None

    def _call_bound(self, name: ast.Name, scope: Scope) -> bool:
        """``name`` is bound (by the one binding reaching it) to the whole result of a call (``out = f(x)``)."""
        bindings = self.scopes.lookup_reaching(name.id, scope, (name.lineno, name.col_offset)) \
            if self.scopes is not None else ()
        return len(bindings) == 1 and bindings[0].tag == VALUE and not bindings[0].path \
            and isinstance(bindings[0].value, ast.Call)

    def loop_sources(self, source: ast.AST, scope: Optional[Scope] = None) -> list[ast.AST]:
        """The sequences a ``for`` walks in step: ``labels.unique()`` for ``enumerate(labels.unique())``, through
        ``tqdm``, ``reversed``, ``sorted``, ``list``, ``iter``; each argument of ``zip(boxes[keep], scores[keep])``."""
        for _ in range(4):
            if not isinstance(source, ast.Call) or not source.args:
                break
            name = self.qualname(source.func, scope)
            if name == "zip":
                return list(source.args)
            if name != "enumerate" and name not in _ITERATION_WRAPPERS and not _progress_bar(source.func):
                break
            source = source.args[0]
        return [source]

    def iterated(self, source: ast.AST, scope: Scope, path: tuple[int, ...]) -> Optional[tuple[ast.AST, tuple[int, ...]]]:
        """``for target in source``: the iterable the element at ``path`` comes from, through ``enumerate``,
        ``zip``, ``tqdm``, ``sorted`` ... (None: the enumerate counter, or no such element)."""
        while isinstance(source, ast.Call) and source.args:
            name = self.qualname(source.func, scope)
            if name == "enumerate":
                if not path or path[0] != 1:
                    return None
                source, path = source.args[0], path[1:]
            elif name == "zip":
                if not path or path[0] == STAR or path[0] >= len(source.args):
                    return None
                source, path = source.args[path[0]], path[1:]
            elif name in _ITERATION_WRAPPERS or _progress_bar(source.func):
                source = source.args[0]
            else:
                break
        return source, path

    def _iter_element(self, source: ast.AST, scope: Scope, path: tuple[int, ...], depth: int) -> Optional[K.Value]:
        """What ``for target in source`` binds at ``path``."""
        found = self.iterated(source, scope, path)
        if found is None:
            return None
        source, path = found
        if not path:
            declared = self.sequence_element(source, scope, depth)
            if declared is not None:
                return declared
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and not source.args \
                and source.func.attr in ("items", "values") and path == ((1,) if source.func.attr == "items" else ()):
            # ``for name, logit in logits.items()`` over a dict built in the function: what its values all hold
            return self.mapping_value(source.func.value, scope, depth + 1)
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute):
            receiver = self.value_of(source.func.value, scope, depth)
            if receiver is not None and receiver[0] == K.MODULE:
                method = source.func.attr
                if method == "parameters" or (method == "named_parameters" and path[:1] == (1,)):
                    return K.TENSOR, None
                if method in ("modules", "children") or (method in ("named_modules", "named_children")
                                                          and path[:1] == (1,)):
                    return K.MODULE, None
                return None
        value = self.value_of(source, scope, depth)
        if value is None:
            return None
        if value[0] == K.LOADER:
            return K.BATCH, None
        if value[0] in K.TENSORS and not path:
            return (K.MASK if value[0] == K.MASK else K.TENSOR), None
        if value[0] == K.HOST:
            return K.HOST, None
        if value[0] == K.MODULE and value[1] in ("torch.nn.ModuleList", "torch.nn.Sequential") and not path:
            return K.MODULE, None
        return None

    # -- elements of sequences ---------------------------------------------------------------------------------------
    def sequence_element(self, source: ast.AST, scope: Scope, depth: int = 0) -> Optional[K.Value]:
        """What an element of the sequence ``source`` is, iterated or indexed: the elements of a literal agreeing, a
        comprehension's element, ``[t] * n`` and ``xs + ys``, the tuple of tensors ``x.split(2)`` gives, what a
        function returns or yields a list of, a name bound to one of these (with what ``append`` / ``insert`` /
        ``extend`` / ``+=`` add to it) or declared ``List[Tensor]``. None when any element is unknown."""
        if depth > _DEPTH:
            return None
        kind = type(source)
        if kind in (ast.ListComp, ast.GeneratorExp, ast.SetComp):
            if self.scopes is None:
                return None
            return self.value_of(source.elt, self.scopes.open_expression_scope(source, scope), depth + 1)
        if kind is ast.Name:
            if self.scopes is None:
                return None
            bindings = self.scopes.lookup_reaching(source.id, scope, (source.lineno, source.col_offset))
            return K.join([self._bound_element(b, depth + 1) for b in bindings]) if bindings else None
        if kind is ast.Attribute and isinstance(source.value, ast.Name) and self.scopes is not None \
                and source.value.id == self.scopes.self_name(scope):   # ``self.anchors = self.make_anchors()``
            bindings = self.scopes.attribute(scope, source.attr)
            return K.join([self._bound_element(b, depth + 1) for b in bindings]) if bindings else None
        if kind is ast.BinOp:
            if isinstance(source.op, ast.Add):   # ``xs + ys`` of lists (of tensors: a tensor, whose elements are too)
                return K.join([self.sequence_element(side, scope, depth + 1) for side in (source.left, source.right)])
            if isinstance(source.op, ast.Mult):   # ``[torch.zeros(0, 6)] * n``
                listed = [side for side in (source.left, source.right) if isinstance(side, (ast.List, ast.Tuple))]
                return self.sequence_element(listed[0], scope, depth + 1) if len(listed) == 1 else None
            return None
        if kind is ast.IfExp:
            return K.join([self.sequence_element(arm, scope, depth + 1) for arm in (source.body, source.orelse)])
        if kind is ast.Call:
            piece = self._tuple_element(source, scope, depth + 1)
            if piece is not None:   # ``x.split(2)``, ``torch.unbind(x)``; ``x.cpu().unbind()``: host pieces
                return piece
            if not isinstance(source.func, ast.Call):   # ``outs = self.head(x)``: a module's ``forward`` returns a list
                callee = self.value_of(source.func, scope, depth + 1)
                if callee is not None and callee[0] == K.MODULE:
                    element = self.module_call_element(callee)
                    if element is not None:
                        return element
            if source.args and len(source.args) == 1 and not source.keywords \
                    and self.qualname(source.func, scope) in _SEQUENCE_COPIES:
                return self.sequence_element(source.args[0], scope, depth + 1)
            if len(source.args) == 1 and not source.keywords and self.qualname(source.func, scope) in _MODULE_LISTS:
                argument = source.args[0]   # ``nn.ModuleList(blocks)``, ``nn.Sequential(*layers)``
                element = self.sequence_element(argument.value if isinstance(argument, ast.Starred) else argument,
                                                scope, depth + 1)
                if element is not None and element[0] == K.MODULE and element[1]:
                    return element
        if kind in (ast.Tuple, ast.List, ast.Call):
            return self._declared_element(source, scope, depth)
        return None

    def _bound_element(self, binding: Binding, depth: int) -> Optional[K.Value]:
        """An element of the sequence a name is bound to (its declaration, else its value and what is added to it)."""
        key = ("element", id(binding))
        cached = self._summaries.get(key, self)
        if cached is not self:
            return cached   # type: ignore[return-value]
        self._summaries[key] = None   # a cycle (``xs = xs + [t]``) is unknown
        value = self._compute_bound_element(binding, depth)
        self._summaries[key] = value
        return value

    def _compute_bound_element(self, binding: Binding, depth: int) -> Optional[K.Value]:
        node, scope = binding.node, binding.scope
        if binding.tag == PARAM and node is not None and getattr(node, "annotation", None) is not None:
            return self.element_annotation_value(node.annotation, scope.parent or scope, -1)
        if binding.tag == ANNOTATION:
            return self.element_annotation_value(binding.value, scope, -1)
        if isinstance(node, ast.AnnAssign) and not binding.path:
            declared = self.element_annotation_value(node.annotation, scope, -1)
            if declared is not None:
                return declared
        if binding.tag == VALUE and binding.path and _empty_literal(binding.value, binding.path):
            added = self._added_elements(binding, depth)   # ``keep, masks = [], []`` then ``masks.append(m)``
            return K.join(added) if added else None
        if binding.tag != VALUE or binding.path:
            whole = self.binding_value(binding, depth)   # a tensor bound by unpacking or a loop: its rows are tensors
            return (K.TENSOR, None) if whole is not None and whole[0] in (K.TENSOR, K.BATCH) else None
        added = self._added_elements(binding, depth)
        if isinstance(binding.value, (ast.List, ast.Tuple)) and not binding.value.elts:
            return K.join(added) if added else None   # ``out = []`` then ``out.append(t)``
        whole = self.value_of(binding.value, scope, depth)
        own = (K.TENSOR, None) if whole is not None and whole[0] in (K.TENSOR, K.BATCH) \
            else self.sequence_element(binding.value, scope, depth + 1)
        return K.join([own] + added)

    def _added_elements(self, binding: Binding, depth: int) -> list[Optional[K.Value]]:
        """What the statements ``name.append(v)`` / ``name.insert(i, v)`` / ``name.extend(vs)`` / ``name += vs``
        reached by ``binding`` add to its list."""
        found: list[Optional[K.Value]] = []
        for call, scope in self._adding_calls().get(id(binding), ()):
            position = _ADDERS[call.func.attr]   # type: ignore[attr-defined]
            if position < 0:
                found.append(self.sequence_element(call.args[0], scope, depth + 1) if len(call.args) == 1 else None)
            else:
                found.append(self.value_of(call.args[position], scope, depth + 1)
                             if len(call.args) == position + 1 and not call.keywords else None)
        for target, value in self._stored_items(binding.scope).get(binding.name, ()):   # ``out[i] = t``
            if binding in self.scopes.lookup_reaching(binding.name, binding.scope, (target.lineno, target.col_offset)):
                found.append(self.value_of(value, binding.scope, depth + 1))
        for augment in binding.scope.augments.get(binding.name, ()):   # ``out += [t]``
            if augment.pos > binding.pos and binding in self.scopes.lookup_reaching(binding.name, binding.scope,
                                                                                     augment.pos):
                found.append(self.sequence_element(augment.value, binding.scope, depth + 1))
        return found

    def _adding_calls(self) -> dict[int, list[tuple[ast.Call, Scope]]]:
        """``xs.append(v)`` / ``insert`` / ``extend`` calls by the binding of ``xs`` they reach (built once a file)."""
        if self._adders is None:
            self._adders = {}
            for call, scope in (self.scopes.calls if self.scopes is not None else ()):
                func = call.func
                if not isinstance(func, ast.Attribute) or func.attr not in _ADDERS \
                        or not isinstance(func.value, ast.Name):
                    continue
                for reached in self.scopes.lookup_reaching(func.value.id, scope, (call.lineno, call.col_offset)):
                    self._adders.setdefault(id(reached), []).append((call, scope))
        return self._adders

    def added_values(self, binding: Binding) -> list[ast.AST]:
        """The expressions the list ``binding`` gives its name later receives: ``name.append(v)`` / ``insert`` /
        ``extend(vs)`` (the argument), ``name += vs``, ``name[i] = v`` (the statements it reaches)."""
        found: list[ast.AST] = [call.args[-1] if call.args else call
                                for call, _ in self._adding_calls().get(id(binding), ())]
        found += [augment.value for augment in binding.scope.augments.get(binding.name, ())
                  if augment.pos > binding.pos and isinstance(augment.value, ast.AST)
                  and binding in self.scopes.lookup_reaching(binding.name, binding.scope, augment.pos)]
        return found + self.stored_values(binding)

    def stored_values(self, binding: Binding) -> list[ast.AST]:
        """The values ``name[i] = value`` stores into the elements of what ``binding`` gives ``name`` (the stores it
        reaches): ``shape = list(x.shape); shape[dim] = n`` gives ``[n]``."""
        found = []
        for target, value in self._stored_items(binding.scope).get(binding.name, ()):
            if binding in self.scopes.lookup_reaching(binding.name, binding.scope, (target.lineno, target.col_offset)):
                found.append(value)
        return found

    def _stored_items(self, scope: Scope) -> dict[str, list[tuple[ast.Subscript, ast.AST]]]:
        """``name[i] = value`` statements of a scope's own body, by name (an element replaced in place)."""
        key = ("stored", id(scope))
        found = self._summaries.get(key)
        if found is None:
            found = {}
            stack = list(body_of(scope.node) if scope.node is not None else ())
            while stack:
                statement = stack.pop()
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                if isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                            found.setdefault(target.value.id, []).append((target, statement.value))
                for field in ("body", "orelse", "finalbody", "handlers"):
                    stack.extend(getattr(statement, field, ()) or ())
            self._summaries[key] = found
        return found   # type: ignore[return-value]

    def subscript_element(self, node: ast.Subscript, scope: Scope, depth: int) -> Optional[K.Value]:
        """``xs[i]`` where ``xs`` is no tensor the model knows: an element of a tuple a tensor method returns
        (``x.max(-1)[0]``), element ``i`` of a returned tuple (``g(x)[1]``), an element of a sequence
        (``outs[0]`` of ``outs = [conv(x) for conv in self.convs]``); a slice is no element."""
        if isinstance(node.slice, ast.Slice):
            return None
        found = self._tuple_element(node.value, scope, depth)
        if found is not None:
            return found
        keyed = keyed_mask(self, node, scope, depth)   # ``targets["pos_mask"]`` of ``{"pos_mask": labels > 0, ...}``
        if keyed is not None:
            return keyed
        mapped = self.mapping_value(node.value, scope, depth)   # ``inputs["R"]`` of ``inputs: Dict[str, Tensor]``
        if mapped is not None:
            return mapped
        index = node.slice
        if isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0 \
                and (not isinstance(node.value, ast.Name) or self._call_bound(node.value, scope)):
            found = self._element(node.value, scope, (index.value,), depth)   # ``out = f(x)`` then ``out[1]``
            if found is not None:
                return found
        item = attribute_item(self, node, scope, depth)   # ``self.tokenizers[k]`` of ``self.tokenizers[k] = Tok()``
        if item is not None:
            return item
        return self.sequence_element(node.value, scope, depth)

    def returned_sequence_element(self, function: ast.AST) -> Optional[K.Value]:
        """An element of the sequence a function of this file returns (``return [t for t in ...]``, ``return out``
        after ``out.append(t)``): what every return statement's elements agree on (``return None`` left out)."""
        scope = self.scopes.scope_of(function) if self.scopes is not None else None
        if scope is None:
            return None
        returned = [r.value for r in return_statements(function)
                    if r.value is not None and not (isinstance(r.value, ast.Constant) and r.value.value is None)]
        return K.join([self.sequence_element(value, scope) for value in returned]) if returned else None


def _empty_literal(value: Optional[ast.AST], path: tuple[int, ...]) -> bool:
    """The element at ``path`` of a literal tuple or list is an empty list or tuple (``a, b = [], []``)."""
    for step in path:
        if not isinstance(value, (ast.Tuple, ast.List)) or step < 0 or step >= len(value.elts) \
                or any(isinstance(e, ast.Starred) for e in value.elts):
            return False
        value = value.elts[step]
    return isinstance(value, (ast.List, ast.Tuple)) and not value.elts
