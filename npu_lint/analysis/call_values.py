"""What calls and binary operators produce: constructors, factories and ``*_like`` functions (their dtype
argument: ``dtype=torch.bool`` gives a mask), calls of the file's own functions and classes, methods of tensors,
modules and project classes (here or through the project index), modules called, callables chosen at run time,
``getattr(torch.optim, name)(...)``; ``a & b`` of masks, arithmetic of tensors and host arrays.

A mixin of :class:`npu_lint.resolver.Resolver`, which supplies ``value_of``, ``qualname``, ``binding``,
``binding_value``, ``_attribute_value``, ``returns``, ``class_value``, ``class_method``, ``dispatched_value``,
``callee``, ``_overrides``, ``has_frames``, ``project`` and ``module_name``.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.declared import CLASSED as _CLASSED
from npu_lint.analysis.scopes import CLASS, DEF, LOOP, PARAM, VALUE, Scope
from npu_lint.analysis.summaries import TRUNCATED

_NAMESPACE_KINDS = {"torch.optim": K.OPTIMIZER, "torch.optim.lr_scheduler": K.SCHEDULER, "torch.nn": K.MODULE}
_CONVERTERS = frozenset({"torch.as_tensor", "torch.tensor", "torch.asarray"})   # a tensor made from a value
_MASK_KEEPING = frozenset({"torch.nn.functional.pad", "torch.squeeze", "torch.unsqueeze", "torch.flatten",
                           "torch.reshape", "torch.transpose", "torch.permute", "torch.logical_not",
                           # the elements of the mask, picked or moved: still booleans
                           "torch.gather", "torch.index_select", "torch.take_along_dim", "torch.narrow",
                           "torch.select", "torch.movedim", "torch.roll", "torch.flip", "torch.repeat_interleave",
                           # einops' rearranging of its first operand (session 32): the same elements, laid out anew
                           "einops.repeat", "einops.rearrange"})
_ARRAY_CONVERTERS = _CONVERTERS | {"torch.from_numpy"}
# The functions ``functools.reduce`` folds masks with into one mask (session 32): and, or, xor, elementwise.
_MASK_COMBINERS = frozenset({"operator.and_", "operator.iand", "operator.or_", "operator.ior", "operator.xor",
                             "operator.ixor", "torch.logical_and", "torch.logical_or", "torch.logical_xor",
                             "torch.bitwise_and", "torch.bitwise_or", "torch.Tensor.logical_and",
                             "torch.Tensor.logical_or", "torch.Tensor.__and__", "torch.Tensor.__or__"})
# numpy functions making an array of a given dtype, and numpy's functions that return booleans.
_NUMPY_MAKERS = frozenset({"zeros", "ones", "full", "empty", "array", "asarray", "zeros_like", "ones_like", "full_like",
                           "empty_like"})
_NUMPY_LOGICAL = frozenset("numpy." + name for name in ("logical_and", "logical_or", "logical_not", "logical_xor",
                                                          "isin", "isnan", "isfinite", "isinf"))
_JOINS = frozenset({"torch.stack", "torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})


_UNASKED = object()
_HOST_DEPTH = 6   # how many torch ops of host tensors are followed one inside another
_HOST_REACH = 8   # and how deep in a question they are still asked (a wide expression asks each operand)
_HOST_MARKS = (".cpu(", "from_numpy", "torchaudio", "torchvision", ".numpy(", "asarray", "np.array", ".to(",
               "return_tensors")
# torch functions that make a tensor on the default device (or a given one) from sizes or data.
FACTORY_NAMES = frozenset({"tensor", "as_tensor", "zeros", "ones", "full", "empty", "arange", "linspace", "logspace",
                           "eye", "rand", "randn", "randint", "randperm", "normal", "empty_strided", "Tensor",
                           "IntTensor", "LongTensor", "FloatTensor", "DoubleTensor", "HalfTensor", "BoolTensor",
                           "ByteTensor", "scalar_tensor", "tril_indices", "triu_indices", "bernoulli", "multinomial"})
_NEW_FACTORIES = frozenset({"new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"})
# Tensor methods of torch's ``(dim, index, ...)`` signature: given a tensor index, the receiver was a tensor.
_INDEXED_METHODS = frozenset({"gather", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy",
                              "index_fill"})
_WHOLE_REDUCTIONS = frozenset({"max", "min", "median", "nanmedian"})   # a tuple only with a dim
# Reductions and scans that take torch's ``dim=`` keyword (numpy and pandas spell it ``axis=``; xarray's string
# dimension names are told apart): ``feats["mask"].sum(dim=-1)`` is a tensor whatever the receiver is known to be.
_DIM_METHODS = frozenset({"sum", "mean", "prod", "cumsum", "cumprod", "argmax", "argmin", "softmax", "log_softmax",
                          "norm", "std", "var", "logsumexp", "amax", "amin", "count_nonzero", "nansum", "nanmean"})


def _torch_dim(node: ast.Call) -> bool:
    """``dim=`` given as a number (``dim=-1``, ``dim=1 + k``) or a name, not a string (xarray's ``dim="time"``);
    or ``keepdim=`` (numpy's is ``keepdims``)."""
    for keyword in node.keywords:
        if keyword.arg == "keepdim":
            return True
        if keyword.arg == "dim":
            return not any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(keyword.value)) \
                and not isinstance(keyword.value, (ast.List, ast.Tuple))
    return False


class CallValues:
    """The values of calls and binary operations (mixed into the Resolver)."""

    def _numpy_bool(self, node: ast.AST, scope: Scope) -> bool:
        """A numpy array of booleans: ``np.zeros(n, dtype=bool)`` (``ones``, ``full``, ``array``, ...), numpy's
        logical functions, a comparison of a numpy array, ``~`` of one, or a name bound to one (a few steps)."""
        for _ in range(4):
            while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
                node = node.operand
            if isinstance(node, ast.Call):
                name = self.qualname(node.func, scope) or ""
                if name in _NUMPY_LOGICAL:
                    return True
                if name.rpartition(".")[0] != "numpy" or name.rpartition(".")[2] not in _NUMPY_MAKERS:
                    return False
                dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
                if isinstance(dtype, ast.Constant):
                    return dtype.value in ("bool", "bool_")
                if isinstance(dtype, ast.Name) and dtype.id == "bool" and self.binding(dtype, scope) is None:
                    return True
                return dtype is not None and self.qualname(dtype, scope) in ("numpy.bool_", "numpy.bool", "numpy.bool8")
            if isinstance(node, ast.Compare):
                return len(node.ops) == 1 and self.value_of(node.left, scope) == (K.HOST, None)
            if not isinstance(node, ast.Name):
                return False
            binding = self.binding(node, scope)
            if binding is None or binding.tag != VALUE or binding.path or binding.value is None:
                return False
            node, scope = binding.value, binding.scope
        return False

    def _call_value(self, node: ast.Call, scope: Scope, depth: int) -> Optional[K.Value]:
        func = node.func
        receiver: object = _UNASKED   # asked once: a chain of calls (``s.replace(..).replace(..)``) stays linear
        if type(func) is ast.Attribute and func.attr in K.STR_METHODS:
            receiver = self.value_of(func.value, scope, depth)
            if receiver == K.STR:
                return K.STR   # ``"".join(parts)``, ``name.strip()`` on a string
        if type(func) is ast.Name and func.id == "str" and self.binding(func, scope) is None:
            return K.STR
        name = self.qualname(func, scope)
        if name is not None:
            if name in K.LIKE_FUNCTIONS and node.args:
                if _dtype_argument(node, self, scope) is None:
                    source = self.value_of(node.args[0], scope, depth)
                    if source is not None and (source[0] in K.TENSORS or (source == (K.HOST, K.CPU_TENSOR) and not any(
                            k.arg == "device" for k in node.keywords))):
                        return source   # ``torch.zeros_like(wav)`` of a host tensor stays on the host
                    return K.TENSOR, None
            if name in _JOINS and node.args and isinstance(node.args[0], (ast.Tuple, ast.List)) and node.args[0].elts \
                    and all((self.value_of(e, scope, depth) or ("",))[0] == K.MASK for e in node.args[0].elts):
                return K.MASK, None   # ``torch.stack((torch.ones_like(j), j, k))`` of masks is a mask
            if name in _JOINS and node.args and isinstance(node.args[0], ast.Name) \
                    and self.sequence_element(node.args[0], scope, depth + 1) == (K.MASK, None):
                return K.MASK, None   # ``masks.append(fg_mask)`` per image, then ``torch.cat(masks)``: a mask
            if name == "functools.reduce" and len(node.args) >= 2 and not node.keywords \
                    and self.qualname(node.args[0], scope) in _MASK_COMBINERS \
                    and self.sequence_element(node.args[1], scope, depth + 1) == (K.MASK, None):
                return K.MASK, None   # ``reduce(operator.iand, [labels != i for i in ignored])``: masks combined
            if name == "torch.load" and _loads_to_cpu(node):
                return K.HOST, None   # ``torch.load(path, map_location="cpu")``: what it holds stays on the host
            if name in _MASK_KEEPING and node.args and self.value_of(node.args[0], scope, depth) == (K.MASK, None) \
                    and _dtype_argument(node, self, scope) in (None, "torch.bool"):
                return K.MASK, None   # ``F.pad(remove, (1, -1), value=False)`` of a mask is a mask
            if name in _CONVERTERS and node.args and _dtype_argument(node, self, scope) in (None, "torch.bool") \
                    and self.value_of(node.args[0], scope, depth) == (K.MASK, None):
                return K.MASK, None   # ``torch.as_tensor(keep, device=v.device)`` of a mask is that mask
            if name in _ARRAY_CONVERTERS and node.args and _dtype_argument(node, self, scope) in (None, "torch.bool") \
                    and self._numpy_bool(node.args[0], scope):
                return K.MASK, None   # ``torch.from_numpy(~support)`` of ``np.zeros(n, dtype=bool)``: a boolean mask
            value = K.of_call(name)
            if value == (K.TENSOR, None) and self._host_operands(node, name, scope, depth):
                return K.HOST, K.CPU_TENSOR   # ``torch.cat([a.cpu(), b.cpu()])``: a CPU op on host tensors
            if value is None and self.project is not None and not name.startswith(("torch.", "numpy.", "pandas.")):
                value = self.project.value_of_call(name, self.module_name)
            if value is not None and value[0] in K.TENSORS and _dtype_argument(node, self, scope) == "torch.bool":
                return K.MASK, None
            return value
        if isinstance(func, ast.Name):
            binding = self.binding(func, scope)
            if binding is None:
                return None
            if binding.tag in (VALUE, PARAM) and host_encoding(node) \
                    and (self.binding_value(binding, depth) or (K.OBJECT,))[0] == K.OBJECT:
                return K.HOST, K.HOST_ENCODING   # ``enc = tokenizer(text, return_tensors="pt")``
            if binding.tag == DEF:
                return self.returns(binding.value)
            if binding.tag == CLASS:
                return self.class_value(binding.value)
            if binding.tag == VALUE and isinstance(binding.value, ast.Name) and not binding.path:
                aliased = self.binding(binding.value, binding.scope)   # ``Model = DetectionModel``; ``Model()``
                if aliased is not None and aliased.tag == CLASS:
                    return self.class_value(aliased.value)
            callee = self.binding_value(binding, depth)
            if callee is not None and callee[0] == K.MODULE:
                return self._module_call_value(callee)
            return self.dispatched_value(func, scope) if binding.tag in (VALUE, PARAM) and callee is None else None
        if isinstance(func, ast.Attribute):
            passed = self.passed_through(node, scope)   # ``loader = accelerator.prepare(loader)``
            if passed is not None and len(passed) == 1:
                return self.value_of(passed[0], scope, depth)
            if receiver is _UNASKED:
                receiver = self.value_of(func.value, scope, depth)
            callee = self._attribute_value(func, scope, depth, receiver)
            if callee is not None and callee[0] == K.MODULE:
                return self._module_call_value(callee)   # ``self.fc(x)``: calling a module
            method = self.callee(node, scope) if isinstance(func.value, ast.Name) else None
            if method is not None and method[0].name == func.attr:   # ``self.build_optimizer()``: the class's own
                return K.join([self.returns(method[0])] + self._overrides(method[0]))   # method, or a subclass's
            if (func.attr in ("to", "type") and (receiver is None or receiver[0] in K.TENSORS)) \
                    or func.attr in _NEW_FACTORIES:   # ``x.new_zeros(n, dtype=torch.bool)``: a tensor's method only;
                #                                         numpy and pandas have no ``.to``: ``m.to(torch.bool)`` too
                dtype = _dtype_argument(node, self, scope)
                if dtype == "torch.bool":
                    return K.MASK, None
                if receiver is not None and receiver[0] == K.MASK and _numeric_dtype(dtype):
                    return K.TENSOR, None   # ``(seq == v).to(torch.int32)``: numbers now, like ``.long()``
            if receiver is not None and receiver[0] in _CLASSED and receiver[1]:
                local, asked = self.class_method(receiver[1], func.attr)   # ``policy.predict_proba(x)``
                if local is not None:
                    return self.returns(local)
                if asked is not None and self.project is not None:
                    value = self.project.value_of_method(asked, func.attr)
                    if value is not None:
                        return value
            if receiver is not None and receiver[0] == K.HOST and func.attr in K.MOVES and moves(node, self, scope):
                return (K.MASK, None) if _dtype_argument(node, self, scope) == "torch.bool" else (K.TENSOR, None)
            value = K.of_method(receiver, func.attr)
            if value is None and receiver is not None and receiver[0] in K.TENSORS and (
                    (func.attr == "type" and (node.args or node.keywords))   # ``x.type(torch.half)`` casts
                    or (func.attr in _WHOLE_REDUCTIONS and not node.args and not node.keywords)):
                value = K.TENSOR, None   # ``x.max()``: a 0-d tensor (with a dim: values and indices)
            if value is None and receiver is None and func.attr in _DIM_METHODS and _torch_dim(node) \
                    and not self.has_frames():
                return K.TENSOR, None   # ``mask.sum(dim=-1)``: torch's keyword (``axis=`` elsewhere)
            if receiver is not None and receiver[0] == K.SCALER and func.attr == "scale":
                return K.TENSOR, None   # ``scaler.scale(loss)``: the scaled loss (``.backward()`` is a tensor's)
            if value is None and receiver is None and func.attr in _INDEXED_METHODS \
                    and self._indexed_by_tensor(node, scope, depth):
                return K.TENSOR, None   # ``state.cache.gather(dim=2, index=idx)``: torch's signature, a tensor index
            if value is None and receiver is None and ((func.attr in K.COMPARISON_METHODS and not self.has_frames())
                                                       or func.attr in K.TORCH_ONLY_MASK_METHODS):
                return K.MASK, None   # ``labels.eq(labels.t())`` like ``labels == labels.t()``: no pandas here
            if value is None and receiver is None and func.attr in K.FRAME_SHARED_METHODS and not self.has_frames() \
                    and not node.keywords and len(node.args) <= 1:
                return K.TENSOR, None   # ``norm(err / tol).abs()``: numpy and Python's numbers have no such method
            if value is None and callee is None and isinstance(func.value, ast.Name) \
                    and self.scopes is not None and func.value.id == self.scopes.self_name(scope):
                value = self.dispatched_value(func, scope)   # ``self.mask_fn(x)``: a method chosen at run time
            if value is None and callee is None and host_encoding(node):
                return K.HOST, K.HOST_ENCODING   # ``tok.apply_chat_template(msgs, return_tensors="pt")``
            return value
        if isinstance(func, ast.Subscript):
            callee = self.value_of(func, scope, depth)
            if callee is None and host_encoding(node):
                return K.HOST, K.HOST_ENCODING   # ``self.tokenizers[lang](text, return_tensors="pt")``
            if callee is not None and callee[0] == K.MODULE:
                return self._module_call_value(callee)
            return self.dispatched_value(func, scope) if callee is None else None   # ``table[mode](x)``
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "getattr" \
                and len(func.args) >= 2 and self.binding(func.func, scope) is None:
            # ``getattr(torch.optim, name, torch.optim.Adam)(params)``: a class of that namespace, built
            kind = _NAMESPACE_KINDS.get(self.qualname(func.args[0], scope) or "")
            if kind is not None:
                return kind, None
        if isinstance(func, ast.Call):
            return self.dispatched_value(func, scope)   # ``getattr(self, f"_mask_{mode}")(x)``
        return None

    def _indexed_by_tensor(self, node: ast.Call, scope: Scope, depth: int) -> bool:
        """``x.gather(2, idx)`` / ``x.gather(dim=2, index=idx)``: torch's ``(dim, index)`` signature, the index a
        tensor the model knows (numpy arrays have no such method; ``dist.gather(t, gather_list)`` takes no index)."""
        index = next((kw.value for kw in node.keywords if kw.arg == "index"), None)
        if index is None and len(node.args) >= 2:
            index = node.args[1]
        if index is None:
            return False
        value = self.value_of(index, scope, depth + 1)
        return value is not None and value[0] == K.TENSOR

    def _has_host_tensors(self) -> bool:
        """The file's text shows a way to a host tensor (``.cpu()``, a reader, ``.numpy()``): files of pure device math
        (long chains of torch ops) skip the operands' walk."""
        found = getattr(self, "_host_text", None)
        if found is None or found[0] is not self.source:
            text = self.source or ""
            found = (self.source, any(mark in text for mark in _HOST_MARKS))
            self._host_text = found
        return found[1]

    def _host_name(self, name: ast.Name, scope: Scope) -> bool:
        """Every binding reaching ``name`` gives it a host tensor by its own expression (``y.cpu()``, a reader's call)
        or an empty list (whose elements ``sequence_element`` judges): no walk through chains of names."""
        bindings = self.scopes.lookup_reaching(name.id, scope, (name.lineno, name.col_offset)) \
            if self.scopes is not None else ()
        if not bindings:
            return False
        for binding in bindings:
            value = binding.value
            if binding.tag != VALUE or binding.path:
                return False
            if isinstance(value, ast.List) and not value.elts:
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "cpu":
                continue
            if isinstance(value, ast.Call) and self.qualname(value.func, binding.scope) in K.HOST_TENSOR_SOURCES:
                continue
            return False
        return True

    def _loop_bound(self, name: ast.Name, scope: Scope) -> bool:
        """Every binding reaching ``name`` is a ``for`` target (its element comes from the model's elements)."""
        bindings = self.scopes.lookup_reaching(name.id, scope, (name.lineno, name.col_offset)) \
            if self.scopes is not None else ()
        return bool(bindings) and all(b.tag == LOOP for b in bindings)

    def _listed(self, name: ast.Name, scope: Scope) -> bool:
        bindings = self.scopes.lookup_reaching(name.id, scope, (name.lineno, name.col_offset))
        return any(isinstance(b.value, ast.List) for b in bindings)

    def _host_operands(self, node: ast.Call, name: str, scope: Scope, depth: int) -> bool:
        """A torch op whose tensor operands are all host tensors (``torch.cat([a.cpu(), b.cpu()])``,
        ``F.pad(torch.from_numpy(a), ...)``) and that is told no device: it runs on the CPU, its result stays there.
        Not a factory (``torch.zeros(n)`` is made on the default device) nor anything with an unknown operand."""
        if name.rpartition(".")[2] in FACTORY_NAMES or not node.args \
                or any(k.arg == "device" for k in node.keywords) or not self._has_host_tensors():
            return False
        if self._host_chain >= _HOST_DEPTH or depth > _HOST_REACH:   # counted along the chain, and bounded
            TRUNCATED[0] += 1
            return False
        self._host_chain += 1
        try:
            return self._host_operands_of(node, scope, depth)
        finally:
            self._host_chain -= 1

    def _host_operands_of(self, node: ast.Call, scope: Scope, depth: int) -> bool:
        operands = list(node.args) + [k.value for k in node.keywords if k.arg not in ("dtype", "dim", "out")]
        first = node.args[0]
        if isinstance(first, ast.BinOp) and isinstance(first.op, ast.Mult) and isinstance(first.left, ast.List):
            first = first.left   # ``torch.stack([ranking] * 5)``
        if isinstance(first, (ast.List, ast.Tuple)):
            operands[:1] = first.elts
        host = False
        for operand in operands:
            if isinstance(operand, ast.Constant):
                continue
            if isinstance(operand, (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Subscript)):
                value = self.value_of(operand, scope, depth + 1)   # ``torch.where(ranking == truth)``
                if value is None or value[0] != K.HOST or value == (K.HOST, K.PYTHON_NUMBER):
                    return False
                host = True
                continue
            if isinstance(operand, ast.Call) and isinstance(operand.func, ast.Attribute) \
                    and operand.func.attr == "cpu" and not operand.args:
                host = True   # ``torch.cat([a.cpu(), b.cpu()])``
                continue
            if isinstance(operand, ast.Call) and not any(k.arg == "device" for k in operand.keywords) \
                    and (self.qualname(operand.func, scope) or "").rpartition(".")[0] == "torch" \
                    and (self.qualname(operand.func, scope) or "").rpartition(".")[2] in FACTORY_NAMES:
                continue   # ``torch.cat([m, torch.tensor([n])])``: a factory told no device joins a host op there
            if isinstance(operand, ast.Call) and self.value_of(operand, scope, depth + 1) == (K.HOST, K.CPU_TENSOR):
                host = True   # ``torch.sqrt(torch.mean(wav))``: a host op's result (bounded by the chain's depth)
                continue
            if not isinstance(operand, (ast.Name, ast.ListComp, ast.GeneratorExp)):
                return False   # no walk into nested expressions: a chain of ops stays linear
            if isinstance(operand, ast.Name) and not self._host_name(operand, scope):
                if self.value_of(operand, scope, depth + 1) == (K.HOST, K.CPU_TENSOR):
                    host = True   # ``for name, logit in logits.items()`` over a dict of ``.cpu()`` results,
                    continue      # ``row = logits[d, :]`` of a ``.cpu()`` result
                return False
            value = self.sequence_element(operand, scope, depth + 1) if not isinstance(operand, ast.Name) \
                or self._listed(operand, scope) else (K.HOST, K.CPU_TENSOR)
            if value is None or value[0] != K.HOST or value == (K.HOST, K.PYTHON_NUMBER):
                return False   # host items given to a torch op are host tensors (it takes no numpy arrays)
            host = True
        return host

    def _module_call_value(self, callee: K.Value) -> Optional[K.Value]:
        """Calling a module gives a tensor, unless its project class says otherwise: a ``__call__`` of its own
        (``model(img)`` running a predictor) gives what that returns, unknown where the code does not show it; a
        ``forward`` returning an instance of a project class or a host array (a list of results) gives that."""
        cls = callee[1]
        if cls and not cls.startswith("torch."):
            for method in ("__call__", "forward"):
                returned, defined = self._method_return(cls, method)
                if not defined:
                    continue
                if returned is not None and returned[0] == K.LIST:   # a list of results, or of tensors
                    element = self._method_element(cls, method)
                    return (K.LIST, None) if element is not None and element[0] not in K.TENSORS else (K.TENSOR, None)
                if returned is not None and returned[0] in K.TENSORS:
                    return K.TENSOR, None
                if method == "__call__" or (returned is not None and returned[0] in (K.OBJECT, K.HOST)):
                    return returned
                break
        return K.TENSOR, None

    def module_call_element(self, callee: K.Value) -> Optional[K.Value]:
        """An element of what calling a module of a project class gives (its ``forward`` returning a list)."""
        cls = callee[1]
        if not cls or cls.startswith("torch."):
            return None
        for method in ("__call__", "forward"):
            if self._method_return(cls, method)[1]:
                return self._method_element(cls, method)
        return None

    def _method_element(self, cls: str, method: str) -> Optional[K.Value]:
        local, asked = self.class_method(cls, method)
        if local is not None:
            return self.yielded(local)
        return self.project.element_of_method(asked, method, -1) if asked is not None and self.project else None

    def _method_return(self, cls: str, method: str) -> tuple[Optional[K.Value], bool]:
        """What ``method`` of the project class ``cls`` returns, and whether the project defines it at all."""
        local, asked = self.class_method(cls, method)
        if local is not None:
            return self.returns(local), True
        if asked is not None and self.project is not None and self.project.defines_method(asked, method):
            return self.project.value_of_method(asked, method), True
        return None, False

    def _binop_value(self, node: ast.BinOp, scope: Scope, depth: int) -> Optional[K.Value]:
        operands: list[Optional[K.Value]] = []
        while isinstance(node, ast.BinOp) and len(operands) < 64:   # walk the left spine without recursing
            operands.append(self.value_of(node.right, scope, depth))
            op = node.op
            node = node.left
        operands.append(self.value_of(node, scope, depth))
        kinds = {value[0] for value in operands if value is not None}
        if isinstance(op, (ast.Add, ast.Mod)) and K.STR in operands and not kinds & {K.TENSOR, K.BATCH, K.MASK}:
            return K.STR   # ``s[:n] + "/" + s[n:]``, ``"%d" % n``
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and K.MASK in kinds and K.HOST not in kinds:
            return K.MASK, None
        if isinstance(op, ast.Mult) and len(operands) == 2 and all(v is not None and v[0] == K.MASK for v in operands):
            return K.MASK, None   # ``(a == b) * (a != -1)``: a product of two masks is a mask (bool * bool)
        if kinds & {K.TENSOR, K.BATCH, K.MASK}:
            return K.TENSOR, None
        if K.HOST in kinds:
            return K.HOST, None
        if kinds == {K.LIST}:
            return K.LIST, None   # ``[a] * n``, ``xs + ys``
        return None


def _loads_to_cpu(call: ast.Call) -> bool:
    """``torch.load(f, map_location="cpu")`` (or ``torch.device("cpu")``, the classic ``lambda storage, loc:
    storage``): every tensor it reads is made on the host, and stays there until the code moves it."""
    where = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "map_location"), None)
    if isinstance(where, ast.Call) and isinstance(where.func, ast.Attribute) and where.func.attr == "device" \
            and len(where.args) == 1:
        where = where.args[0]
    if isinstance(where, ast.Constant):
        return where.value == "cpu"
    return isinstance(where, ast.Lambda) and len(where.args.args) == 2 and isinstance(where.body, ast.Name) \
        and where.body.id == where.args.args[0].arg


def moves(call: ast.Call, resolver: CallValues, scope: Scope) -> bool:
    """``x.cuda()``, ``x.npu()``, ``x.to(device)``, ``x.to(y.device)``, ``x.to(y)``: the value leaves the host; not
    ``x.to(torch.float32)``, ``x.to(dtype=...)``, ``x.to("cpu")``."""
    if call.func.attr != "to":
        return True
    targets = list(call.args[:1]) + [k.value for k in call.keywords if k.arg == "device"]
    for target in targets:
        if isinstance(target, ast.Constant):
            if isinstance(target.value, str) and target.value.split(":")[0] != "cpu":
                return True
            continue
        name = resolver.qualname(target, scope)
        if name is not None and name.startswith("torch.") and name.rpartition(".")[2] in _DTYPE_NAMES:
            continue   # ``x.to(torch.float32)``: a cast on the host
        if _a_dtype(target, resolver, scope):
            continue   # ``x.to(y.dtype)``, ``dtype = pred.dtype`` then ``x.to(dtype)``: a cast
        return True
    return False


def _a_dtype(target: ast.AST, resolver: CallValues, scope: Scope) -> bool:
    """``y.dtype``, or a name every reaching binding of which is one (or a torch dtype)."""
    if isinstance(target, ast.Attribute):
        return target.attr == "dtype"
    if not isinstance(target, ast.Name) or resolver.scopes is None:
        return False
    values = resolver.scopes.plain_values(target, scope)
    if values is None:
        return False
    for value, where in values:
        if isinstance(value, ast.Attribute) and value.attr == "dtype":
            continue
        name = resolver.qualname(value, where)
        if not (name is not None and name.startswith("torch.") and name.rpartition(".")[2] in _DTYPE_NAMES):
            return False
    return True


_DTYPE_NAMES = frozenset({"float64", "double", "float32", "float", "float16", "half", "bfloat16", "int64", "long",
                          "int32", "int", "int16", "short", "int8", "uint8", "bool", "complex64", "complex128",
                          "cfloat", "cdouble"})


def _numeric_dtype(dtype: Optional[str]) -> bool:
    """``torch.int32``, ``torch.float``, ``torch.cuda.FloatTensor``: a cast to numbers, not to a boolean mask
    (``torch.uint8`` still indexes as a mask)."""
    if dtype is None or not dtype.startswith("torch."):
        return False
    last = dtype.rsplit(".", 1)[1]
    if last.endswith("Tensor"):
        return last not in ("BoolTensor", "ByteTensor", "Tensor")
    return last in K.NUMERIC_DTYPES


def _dtype_argument(call: ast.Call, resolver: CallValues, scope: Scope) -> Optional[str]:
    """The dtype a call is given (``dtype=torch.bool``, ``.to(torch.bool)``), as a qualified name."""
    for keyword in call.keywords:
        if keyword.arg == "dtype":
            return resolver.qualname(keyword.value, scope)
    if isinstance(call.func, ast.Attribute) and call.func.attr in ("to", "type") and call.args:
        return resolver.qualname(call.args[0], scope)
    return None


def host_encoding(node: ast.Call) -> bool:
    """``tokenizer(text, return_tensors="pt")``, ``processor(images=img, return_tensors="pt")``,
    ``tok.apply_chat_template(msgs, return_tensors="pt")``: Hugging Face's convention for a tokenizer, processor or
    feature extractor asked for torch tensors. They are made on the CPU (a ``BatchEncoding`` / ``BatchFeature``),
    whatever the default device, and stay there until the code moves them (``enc.to(device)``,
    ``enc["input_ids"].to(device)``). Not a call told a device."""
    for keyword in node.keywords:
        if keyword.arg == "return_tensors":
            if not (isinstance(keyword.value, ast.Constant) and keyword.value.value == "pt"):
                return False
            return not any(k.arg == "device" for k in node.keywords)
    return False
