"""What the code declares about values: annotations (``x: Tensor``, ``Optional[GradScaler]``, ``-> tuple[Tensor,
Tensor]``, ``Iterator[Batch]``; the classes ``isinstance`` tests name, which receivers.py narrows with), the
attributes a class declares or assigns (NamedTuple and dataclass fields, ``optimizer: Optimizer`` in a base class,
in this file or another module) and where a project class's method is defined.

A mixin of :class:`npu_lint.resolver.Resolver`, which supplies ``binding``, ``value_of``, ``qualname``,
``class_value`` and the scopes. Unknown stays unknown: a declaration is read, a name never.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.data_records import constructed_field
from npu_lint.analysis.names import rooted
from npu_lint.analysis.nodes import class_bases, of_type, walk
from npu_lint.analysis.scopes import ANNOTATION, IMPORT, PARAM, VALUE, Binding, Scope
from npu_lint.analysis.summaries import method_def

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DEPTH = 40
# Qualified names that are no class of another library (``typing.Any``, ``collections.OrderedDict``): unknown.
_NOT_INSTANCES = ("torch", "typing", "typing_extensions", "collections", "builtins", "abc", "types")
# The parameters and buffers of torch's layers (``conv.weight``, ``bn.running_mean``): tensors.
_LAYER_TENSORS = frozenset({"weight", "bias", "running_mean", "running_var", "in_proj_weight", "in_proj_bias",
                            "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"})
_DICT_DEPTH = 20
_LIST_TYPES = frozenset({"typing.List", "typing.MutableSequence"})
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict"})
_CONTAINERS = frozenset({"torch.nn.Module", "torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict",
                         "torch.nn.ParameterList", "torch.nn.ParameterDict"})
# Kinds whose class may be a project class with its own methods and attributes.
CLASSED = K.CLASSED


PYTHON_SCALARS = frozenset({"int", "float", "bool", "str", "bytes", "complex"})


class Declared:
    """Annotations and class members (mixed into the Resolver)."""

    def imported_alias(self, node: ast.AST, scope: Optional[Scope] = None) -> Optional[str]:
        """The import ``self.x`` stands for when every assignment of it is an imported name (``self._wandb =
        wandb``): a module or function of another library, not a value (None otherwise)."""
        scope = scope or self.current
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and self.scopes is not None
                and node.value.id == self.scopes.self_name(scope)):
            return None
        found = set()
        for binding in self.scopes.attribute(scope, node.attr):
            if binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.Name):
                return None
            target = self.binding(binding.value, binding.scope)
            if target is None or target.tag != IMPORT:
                return None
            found.add(target.value)
        return found.pop() if len(found) == 1 else None

    def annotation_value(self: "Resolver", annotation: ast.AST, scope: Scope) -> Optional[K.Value]:
        """``torch.Tensor``, ``Optional[Tensor]``, ``Tensor | None``, ``nn.Module``, ``np.ndarray``, a project class
        (its kind, or an instance of it: ``object``) ..."""
        annotation = self._read_annotation(annotation)
        if isinstance(annotation, ast.Subscript):
            head = self.qualname(annotation.value, scope) or ""
            last = head.rpartition(".")[2]
            if last in ("Optional", "Union"):   # the arms that are not None agree on a kind
                inner = annotation.slice
                arms = inner.elts if isinstance(inner, ast.Tuple) else [inner]
                arms = [arm for arm in arms if not _is_none(arm)]
                return K.join([self.annotation_value(arm, scope) for arm in arms]) if arms else None
            if head.startswith("torch.") and last[:1].isupper():
                annotation = annotation.value   # a generic torch class: ``DataLoader[int]``, ``Dataset[Tensor]``
            elif head in _LIST_TYPES or (head in ("list", "List") and self.binding(annotation.value, scope) is None):
                return K.LIST, None   # ``tokens: List[MToken]``: a Python list (its elements: ``sequence_element``)
            else:
                return None
        elif isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            arms = [arm for arm in (annotation.left, annotation.right) if not _is_none(arm)]
            return K.join([self.annotation_value(arm, scope) for arm in arms]) if arms else None
        if isinstance(annotation, ast.Name) and annotation.id in PYTHON_SCALARS \
                and self.binding(annotation, scope) is None:
            return K.OBJECT, annotation.id   # ``n: int``: no tensor, whatever a caller passes
        name = self.qualname(annotation, scope)
        if name is None:
            local = self.definition(annotation, scope) if isinstance(annotation, ast.Name) else None
            return self.class_value(local) if isinstance(local, ast.ClassDef) else None
        if name in ("numpy.ndarray", "pandas.DataFrame", "pandas.Series"):
            return K.HOST, None
        value = K.of_class(name)
        if value is None and self.project is not None:
            value = self.project.class_value(name, self.module_name)
        if value is None and name.rpartition(".")[2][:1].isupper() and not name.startswith(_NOT_INSTANCES):
            return K.OBJECT, name   # a class of another library or module: no tensor, its own methods
        return value

    def _read_annotation(self, annotation: ast.AST) -> ast.AST:
        """A string annotation parsed (read late: every binding of the module is visible)."""
        if not (isinstance(annotation, ast.Constant) and isinstance(annotation.value, str)):
            return annotation
        try:
            parsed = ast.parse(annotation.value, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return annotation
        for node in walk(parsed):
            node.lineno, node.col_offset = 10 ** 9, 0
        self._kept.append(parsed)   # alive as long as the model: ids in the memo stay unique
        return parsed

    def element_annotations(self, annotation: Optional[ast.AST], scope: Scope) -> Optional[list[ast.AST]]:
        """The element annotations of ``tuple[A, B]`` / ``Tuple[A, B]`` (``[A, Ellipsis]`` for ``tuple[A, ...]``),
        ``List[A]`` / ``Sequence[A]`` / ``Iterable[A]`` (``[A, Ellipsis]``); None for anything else."""
        generic = self._generic(annotation, scope) if annotation is not None else None
        if generic is None:
            return None
        head, arms = generic
        if head in ("tuple", "Tuple"):
            return arms
        if head in ("list", "List", "Sequence", "Iterable", "Iterator", "MutableSequence", "Generator") and arms:
            return [arms[0], ast.Constant(value=...)]
        return None

    def mapping_value(self, source: ast.AST, scope: Scope, depth: int = 0) -> Optional[K.Value]:
        """What ``source[key]`` holds when ``source`` is a name declared a mapping (``inputs: Dict[str, Tensor]``,
        ``Mapping[str, torch.Tensor]``, ``dict[str, Tensor]``, optional or not): its value type."""
        if not isinstance(source, ast.Name):
            return None
        binding = self.binding(source, scope)
        if binding is None or binding.path:
            return None
        if binding.tag == PARAM and binding.node is not None:
            annotation, where = binding.node.annotation, binding.scope.parent or binding.scope
        elif binding.tag == ANNOTATION:
            annotation, where = binding.value, binding.scope
        elif isinstance(binding.node, ast.AnnAssign):
            annotation, where = binding.node.annotation, binding.scope
        elif binding.tag == VALUE and isinstance(binding.value, ast.Dict):
            return self._filled_dict(binding, depth)
        else:
            return None
        value_type = self._mapped_type(annotation, where) if annotation is not None else None
        return self.annotation_value(value_type, where) if value_type is not None else None

    def _filled_dict(self, binding: Binding, depth: int) -> Optional[K.Value]:
        """What every value of a dict built in the function holds (``out = {}`` then ``out[k] = torch.cat(...)``):
        the literal's values and those stored into it where the binding reaches, when they all agree (once per
        binding; a value read from the dict itself, ``d[a] = d[b]``, is a cycle: unknown)."""
        key = ("dict values", id(binding))
        if key in self._summaries:
            return self._summaries[key]   # type: ignore[return-value]
        if depth > _DICT_DEPTH:
            return None
        self._summaries[key] = None
        value = self._summaries[key] = self._dict_values(binding, depth)
        return value

    def _dict_values(self, binding: Binding, depth: int) -> Optional[K.Value]:
        scope = binding.scope
        if _merged_into(binding.name, scope.node):
            return None   # ``d.update(...)``, ``d.setdefault(k, v)``, ``d |= other``: values the model does not see
        values = [value for key, value in zip(binding.value.keys, binding.value.values) if key is not None]
        for target, value in self._stored_items(scope).get(binding.name, ()):
            if binding in self.scopes.lookup_reaching(binding.name, scope, (target.lineno, target.col_offset)):
                values.append(value)
        if not values or len(values) > 32:
            return None
        return K.join([self.value_of(value, scope, depth + 1) for value in values])

    def _mapped_type(self, annotation: ast.AST, scope: Scope) -> Optional[ast.AST]:
        generic = self._generic(annotation, scope)
        if generic is not None and generic[0] in _MAPPINGS and len(generic[1]) == 2:
            return generic[1][1]
        return None

    def _generic(self, annotation: ast.AST, scope: Scope, depth: int = 0) -> Optional[tuple[str, list[ast.AST]]]:
        """``(head, arms)`` of a subscripted annotation (``Dict[str, Tensor]`` -> ``("Dict", [str, Tensor])``),
        through ``Optional[...]`` / a ``Union`` with ``None``; None for anything else."""
        annotation = self._read_annotation(annotation)
        if not isinstance(annotation, ast.Subscript) or depth > 8:
            return None
        head = (self.qualname(annotation.value, scope) or getattr(annotation.value, "id", "")).rpartition(".")[2]
        inner = annotation.slice
        arms = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        if head in ("Optional", "Union"):
            arms = [arm for arm in arms if not _is_none(arm)]
            return self._generic(arms[0], scope, depth + 1) if len(arms) == 1 else None
        return head, arms

    def element_annotation_value(self, annotation: Optional[ast.AST], scope: Scope, index: int) -> Optional[K.Value]:
        """What element ``index`` (-1: any element) of a value annotated ``tuple[...]`` / ``List[...]`` is."""
        arms = self.element_annotations(annotation, scope)
        if not arms:
            return None
        if len(arms) == 2 and isinstance(arms[1], ast.Constant) and arms[1].value is Ellipsis:
            return self.annotation_value(arms[0], scope)
        if index < 0:
            return K.join([self.annotation_value(arm, scope) for arm in arms])
        return self.annotation_value(arms[index], scope) if index < len(arms) else None

    def own_member(self: "Resolver", scope: Scope, attr: str, depth: int, skip: bool) -> Optional[K.Value]:
        """``self.attr`` in a method of a class: declared in the class body or set in a base class (of this file,
        or of another module through the project index)."""
        current: Optional[Scope] = scope
        while current is not None and current.cls is None:
            current = current.parent
        if current is None or not isinstance(current.cls.node, ast.ClassDef):
            return None
        cls = self.class_value(current.cls.node)
        value = self.member_value(cls[1], attr, depth, skip=skip) if cls and cls[1] else None
        if value is None and skip and cls and cls[1]:   # ``self.iouv = None`` here, a tensor in every subclass
            value = self._subclass_member(current.cls.node, cls[1], attr, depth)
        return value

    def _subclass_member(self: "Resolver", node: ast.ClassDef, cls: str, attr: str, depth: int) -> Optional[K.Value]:
        """What the subclasses (of this file, and through the project index of others) that assign ``attr`` agree
        it holds: a base class's method runs on an instance of one of them."""
        found: list[Optional[K.Value]] = []
        for other in self._local_class_nodes():
            body = self.scopes.scope_of(other) if self.scopes is not None else None
            bindings = [b for b in body.attrs.get(attr, ()) if b.tag == VALUE] if body is not None else []
            if other is not node and bindings and self._derives(other, node):
                found.append(K.join([self.binding_value(b, depth + 1) for b in bindings]))
        if self.project is not None and self.module_name:
            found.extend(self.project.subclass_attributes(cls, attr))
        return K.join(found) if found else None

    def member_value(self, cls: str, attr: str, depth: int = 0, skip: bool = False) -> Optional[K.Value]:
        """What ``attr`` of an instance of the project class ``cls`` holds: its class-level annotations and
        assignments, ``self.attr = ...`` / ``self.attr: T`` in its methods, then its bases' (in this file or, through
        the project index, in others). ``skip``: the class's own ``self.attr`` bindings were already asked."""
        if cls.startswith("torch.nn.") and attr in _LAYER_TENSORS and cls not in _CONTAINERS:
            return K.TENSOR, None   # ``nn.Linear(2, 2).weight``: a parameter of a torch layer
        seen: set[str] = set()
        pending = [cls]   # depth first, left to right (``class Lora(nn.Module, LoraLayer)``: both bases)
        while pending and len(seen) <= _DEPTH:
            cls = pending.pop(0)
            if not cls or cls in seen:
                continue
            seen.add(cls)
            node = self._local_classes.get(cls)
            if node is None:
                value = self.project.attribute_value(cls, attr) if self.project is not None else None
                if value == (K.TENSOR, None) and self.project.class_field_verdict(cls, attr) == K.MASK:
                    return K.MASK, None   # (fields25) every construction of the record passes a mask
                if value is not None:
                    return value
                continue
            body = self.scopes.scope_of(node) if self.scopes is not None else None
            if body is not None:
                bindings = [b for b in body.names.get(attr, ()) if b.tag in (VALUE, ANNOTATION) and not b.path]
                if not skip:
                    bindings += [b for b in body.attrs.get(attr, ()) if b.tag in (VALUE, ANNOTATION)]
                if bindings:
                    annotations = [b.node.annotation if isinstance(b.node, ast.AnnAssign) else b.value
                                   for b in bindings if b.tag == ANNOTATION or isinstance(b.node, ast.AnnAssign)]
                    declared = K.join([self.annotation_value(a, body) for a in annotations]) if annotations else None
                    values = [self.binding_value(b, depth + 1) for b in bindings if b.tag != ANNOTATION]
                    value = K.refine(declared, K.join(values) if values else None)   # declared, or more precise
                    if (value is None or value == (K.TENSOR, None)) and not values and self.source is not None:
                        value = K.refine(value, constructed_field(self, node, attr, depth))   # (fields25)
                        if value == (K.TENSOR, None) and self.project is not None \
                                and self.project.class_field_verdict(cls, attr) == K.MASK:
                            value = K.MASK, None   # built with a mask in another module too
                    return value
            skip = False
            pending[:0] = self._base_classes(node, body)
        return None

    def _base_classes(self: "Resolver", node: ast.ClassDef, body: Optional[Scope]) -> list[str]:
        """The bases of a class of this file that may set attributes: its classes by local name, the project's
        by absolute name (torch's and other libraries' left out)."""
        outer = body.parent if body is not None else None
        if outer is None:
            return []
        found = []
        for base in class_bases(node):
            local = self.definition(base, outer) if isinstance(base, ast.Name) else None
            if isinstance(local, ast.ClassDef):
                found.append(self._local_class_name(local))
                continue
            name = self.qualname(base, outer) if local is None else None
            if name is not None and self.project is not None and not rooted(name, ("torch",)):
                value = self.project.class_value(name, self.module_name)
                if value is not None and value[1]:
                    found.append(value[1])
        return found

    def _declared_element(self, source: ast.AST, scope: Scope, depth: int) -> Optional[K.Value]:
        """An element of ``source`` as the code declares it: a name annotated ``tuple[Tensor, ...]`` /
        ``List[Tensor]``, a function annotated to return one, or a literal tuple / list whose elements agree."""
        if isinstance(source, (ast.Tuple, ast.List)):
            if not source.elts or any(isinstance(e, ast.Starred) for e in source.elts):
                return None
            return K.join([self.value_of(e, scope, depth + 1) for e in source.elts])
        if isinstance(source, ast.Call):   # ``for samples in buffer.get(64)``: what the function yields
            func, asked = source.func, None
            definition = self.definition(func, scope) if isinstance(func, ast.Name) else None
            if definition is None and isinstance(func, ast.Attribute):
                receiver = self.value_of(func.value, scope, depth + 1)
                if receiver is not None and receiver[0] in CLASSED and receiver[1]:
                    definition, asked = self.class_method(receiver[1], func.attr)
            if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return self.yielded(definition)
            if self.project is None:
                return None
            if asked is not None:
                return self.project.element_of_method(asked, func.attr, -1)
            name = self.qualname(func, scope) if definition is None else None
            if name is not None and not rooted(name, ("torch", "numpy", "pandas")):
                return self.project.element_of_call(name, self.module_name, -1)
            return None
        if not isinstance(source, ast.Name):
            return None
        binding = self.binding(source, scope)
        if binding is None or binding.path:
            return None
        if binding.tag == PARAM and binding.node is not None and binding.node.annotation is not None:
            return self.element_annotation_value(binding.node.annotation, binding.scope.parent or binding.scope, -1)
        if binding.tag == ANNOTATION:
            return self.element_annotation_value(binding.value, binding.scope, -1)
        if isinstance(binding.node, ast.AnnAssign):
            return self.element_annotation_value(binding.node.annotation, binding.scope, -1)
        if binding.tag == VALUE and isinstance(binding.value, (ast.Tuple, ast.List, ast.Call)) and depth < _DEPTH:
            return self._declared_element(binding.value, binding.scope, depth + 1)   # ``outs = self.heads(x)``
        return None

    def class_method(self, cls: str, method: str) -> tuple[Optional[ast.AST], Optional[str]]:
        """Where ``method`` of an instance of the project class ``cls`` is defined: (its ``def`` in this file,
        None), (None, the class of another module to ask the project index about) or (None, None)."""
        seen: set[str] = set()
        while cls and cls not in seen:
            seen.add(cls)
            node = self._local_classes.get(cls)
            if node is None:
                return None, (cls if not cls.startswith(("torch.", "numpy.")) else None)
            found = method_def(node, method, 0)
            if found is not None:
                return found[0], None
            cls = self._parents.get(cls, "")
        return None, None


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None or isinstance(node, ast.Name) and node.id == "None"


def _merged_into(name: str, function: Optional[ast.AST]) -> bool:
    """``name.update(...)`` / ``name.setdefault(...)`` / ``name |= ...`` in the function's body."""
    if function is None:
        return False
    for node in of_type(function, ast.Call):   # each type's nodes listed once per function (a walk per name was
        # quadratic in a long module's names)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("update", "setdefault") \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            return True
    return any(isinstance(node.target, ast.Name) and node.target.id == name
               for node in of_type(function, ast.AugAssign))
