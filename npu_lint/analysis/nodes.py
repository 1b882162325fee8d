"""A cheaper ``ast.iter_child_nodes`` for the model's and the rules' own walks of a function body, and a
function's own lines of text (a cheap substring test before walking it)."""
from __future__ import annotations

import ast
from itertools import chain as _chain
from typing import Iterator, Optional

_LEAVES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)   # ``Load``, ``Add``, ``Eq``, ...
_FIELDS: dict[type, tuple[str, ...]] = {}   # node type -> its fields that may hold a child that is no leaf
_LINES = -1   # the key of the file's lines in a memo keyed by ``id`` (an ``id`` is never negative)


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """The children ``ast.iter_child_nodes`` gives, in its order, without the context and operator leaves (which have
    no children and which no walk looks at)."""
    node_type = type(node)
    fields = _FIELDS.get(node_type)
    if fields is None:
        fields = _FIELDS[node_type] = tuple(f for f in node_type._fields if f not in ("ctx", "op", "ops"))
    found: list[ast.AST] = []
    for field in fields:
        value = getattr(node, field, None)
        if type(value) is list:
            found.extend([item for item in value if isinstance(item, ast.AST) and not isinstance(item, _LEAVES)])
        elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
            found.append(value)
    return found


# Nodes whose bodies are other scopes: a walk of one function's own code stops at them.
OTHER_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def class_bases(node: ast.ClassDef) -> list[ast.expr]:
    """A class's bases as classes: a generic base is its class (``BaseTemplate[T]``: ``BaseTemplate``;
    ``Generic[T]``: ``Generic``), so attributes, methods and kinds inherit through it."""
    return [base.value if isinstance(base, ast.Subscript) else base for base in node.bases]


def own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function (or module) body, without descending into nested functions and classes."""
    stack = children(scope)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, OTHER_SCOPES):
            stack.extend(children(node))


def body_of(function: ast.AST) -> list[ast.AST]:
    """The statements of a function's (or module's, class's) body; a lambda's body is its one expression."""
    body = getattr(function, "body", None)
    if isinstance(body, list):
        return body
    return [body] if isinstance(body, ast.AST) else []


# Fields that never hold a node or a list (names, numbers, flags; a constant's value), whatever the node type.
_NO_CHILD = frozenset({"id", "attr", "arg", "module", "level", "kind", "conversion", "is_async", "type_comment",
                       "simple"})
_WALKED: dict[type, tuple[str, ...]] = {}   # node type -> the fields ``walk`` reads
# The list fields that may hold something other than a node (``None`` keys of ``{**d}``, ``None`` defaults of
# keyword-only parameters, identifiers), by field name and node type: every other list of the grammar holds nodes.
_MIXED = {"keys": frozenset({"Dict"}), "kw_defaults": frozenset({"arguments"}),
          "names": frozenset({"Global", "Nonlocal"}), "kwd_attrs": frozenset({"MatchClass"})}


# The roots whose whole walk is kept on the node once made (``_KEPT``): the model and the rules walk the same
# function again and again (1,745 walks of 756 distinct functions for every 8th file of timm+mmdet, 442,000 nodes
# yielded), each walk expanding every node's fields anew. Kept on the node itself, the list lives as long as the tree
# (no ``id`` of a freed node can be met again; the list holds only descendants: no cycle keeps a tree alive); the tree is
# never changed once parsed.
_KEEP = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.For, ast.AsyncFor, ast.While,
                   ast.Module})
_KEPT = "_npu_lint_walk"


def children(node: ast.AST) -> list[ast.AST]:
    """Exactly what ``ast.iter_child_nodes`` gives (context and operator leaves included), in its order, as a list:
    the fields that can hold a child are read directly (:data:`_WALKED`), not through two nested generators."""
    node_type = type(node)
    fields = _WALKED.get(node_type)
    if fields is None:
        fields = _WALKED[node_type] = tuple(f for f in node_type._fields if f not in _NO_CHILD and not (
            node_type is ast.Constant and f == "value"))
    found: list[ast.AST] = []
    node_ast = ast.AST
    for field in fields:
        value = getattr(node, field, None)
        if isinstance(value, node_ast):
            found.append(value)
        elif type(value) is list:
            found.extend([item for item in value if isinstance(item, node_ast)])
    return found


def parents_of(tree: ast.AST) -> dict[int, ast.AST]:
    """``id`` of every node below ``tree`` -> its parent, set in the order of ``ast.walk`` and
    ``ast.iter_child_nodes`` (a shared context or operator leaf keeps the last parent met, as there)."""
    found: dict[int, ast.AST] = {}
    todo = [tree]
    append = todo.append
    index = 0
    while index < len(todo):
        node = todo[index]
        index += 1
        for child in children(node):
            found[id(child)] = node
            append(child)
    return found


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes ``ast.walk`` gives, in its order (breadth first, context and operator leaves included), for less: the
    fields that can hold a child are read directly, not through two nested generators. The walk of a function, class,
    loop or module (:data:`_KEEP`) is made whole on its first question, kept on the node and given again as it is,
    through C iterators (no generator frame resumed per node: 1.5 M resumptions for every 6th corpus file)."""
    if type(node) in _KEEP:
        kept = node.__dict__.get(_KEPT)
        if kept is None:
            kept = _kept_walk(node)
        return _chain((node,), kept)
    return _walk(node)


def _kept_walk(root: ast.AST) -> list[ast.AST]:
    """``root``'s descendants in :func:`walk`'s order, kept on ``root``: without the root itself, so the node and its
    list make no reference cycle (a tree must stay freed by reference counts: with the cycle, ``check`` on
    transformers held 1.6 GB of dead trees, not 0.26)."""
    todo = [root]
    append, extend = todo.append, todo.extend
    node_ast, walked, mixed = ast.AST, _WALKED, _MIXED
    index = 0
    while index < len(todo):
        node = todo[index]
        index += 1
        node_type = type(node)
        fields = walked.get(node_type)
        if fields is None:
            fields = walked[node_type] = tuple(f for f in node_type._fields if f not in _NO_CHILD and not (
                node_type is ast.Constant and f == "value"))
        for field in fields:
            value = getattr(node, field, None)
            if isinstance(value, node_ast):
                append(value)
            elif type(value) is list:
                if field in mixed and node_type.__name__ in mixed[field]:
                    extend([item for item in value if isinstance(item, node_ast)])
                else:   # the grammar's other lists hold nodes only
                    extend(value)
    del todo[0]
    setattr(root, _KEPT, todo)
    return todo


_TYPED = "_npu_lint_types"


def of_type(root: ast.AST, node_type: type) -> list[ast.AST]:
    """The nodes of ``walk(root)`` whose type is ``node_type`` (``isinstance`` of a parsed node: the grammar's
    classes have no subclasses in a tree), in the walk's order. For a root whose walk is kept (:data:`_KEEP`) each
    type's list is made once from the kept walk and kept beside it (descendants only, as the walk: no cycle): a
    function asked for its loops, calls or tests by several rules is not scanned node by node again."""
    if type(root) not in _KEEP:
        return [node for node in _walk(root) if type(node) is node_type]
    index = root.__dict__.get(_TYPED)
    if index is None:
        index = {}
        setattr(root, _TYPED, index)
    found = index.get(node_type)
    if found is None:
        kept = root.__dict__.get(_KEPT)
        found = index[node_type] = [node for node in (kept if kept is not None else _kept_walk(root))
                                    if type(node) is node_type]
    return [root, *found] if type(root) is node_type else found


_METHODS = "_npu_lint_methods"


def own_method(cls: ast.ClassDef, name: str) -> Optional[ast.AST]:
    """The first ``def name`` (or ``async def``) among the statements of a class's own body, else None: the body is
    indexed once (name -> its first definition), kept on the class node as :func:`walk`'s list is (descendants only:
    no cycle), not scanned per question (a 40,000-line module's classes were scanned for each method called)."""
    index = cls.__dict__.get(_METHODS)
    if index is None:
        index = {}
        for statement in cls.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name not in index:
                index[statement.name] = statement
        setattr(cls, _METHODS, index)
    return index.get(name)


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """:func:`walk` of a node whose walk is not kept (an expression, a statement): lazily, a caller may stop early."""
    todo = [node]
    append, extend = todo.append, todo.extend
    node_ast, walked = ast.AST, _WALKED
    index = 0
    while index < len(todo):
        node = todo[index]
        index += 1
        node_type = type(node)
        fields = walked.get(node_type)
        if fields is None:
            fields = walked[node_type] = tuple(f for f in node_type._fields if f not in _NO_CHILD and not (
                node_type is ast.Constant and f == "value"))
        for field in fields:
            value = getattr(node, field, None)
            if isinstance(value, node_ast):
                append(value)
            elif type(value) is list:
                if field in _MIXED and node_type.__name__ in _MIXED[field]:
                    extend([item for item in value if isinstance(item, node_ast)])
                else:   # the grammar's other lists hold nodes only
                    extend(value)
        yield node


def function_text(function: ast.AST, source: str, store: dict) -> Optional[str]:
    """``function``'s lines of ``source`` (the file split once, and each function's text joined once, kept in
    ``store``); None when the text has carriage returns (a line break of their own for Python, so the lines split
    at newlines are not the parser's)."""
    key = (_LINES, id(function))
    text = store.get(key, 0)
    if text != 0:
        return text
    lines = store.get(_LINES, 0)
    if lines == 0:
        lines = store[_LINES] = None if "\r" in source else source.split("\n")
    if lines is None or function.lineno > len(lines):
        text = None
    else:
        text = "\n".join(lines[function.lineno - 1:getattr(function, "end_lineno", None) or len(lines)])
    store[key] = text
    return text


def locate(root: ast.AST, target: ast.AST, found: dict[int, ast.AST]) -> bool:
    """Look for ``target`` below ``root`` by its position: only the children whose span may hold it (or that have no
    position: ``arguments``, ``comprehension``, ``withitem``) are entered, and each node entered, and ``target``
    when met, gets its parent in ``found`` (``id`` -> parent, as :func:`parents_of`). True when ``target`` was met;
    False when its position led nowhere (no position, a leaf, a node of another tree): the caller then maps the
    whole tree. Every parent set is the real one, whatever the positions say: they only choose where to look."""
    if isinstance(target, _LEAVES):
        return False
    line = getattr(target, "lineno", None)
    if line is None:
        return False
    column = target.col_offset
    end_line = target.end_lineno or line
    end_column = target.end_col_offset if target.end_col_offset is not None else 1 << 30
    todo = [root]
    leaves = _LEAVES
    while todo:
        node = todo.pop()
        for child in children(node):
            if child is target:
                found[id(child)] = node
                return True
            if isinstance(child, leaves):
                continue
            first = getattr(child, "lineno", None)
            if first is not None:
                first_column = child.col_offset
                decorators = getattr(child, "decorator_list", None)
                if decorators:   # a definition's decorators stand above its ``def`` / ``class`` line
                    first, first_column = min((first, first_column), *((d.lineno, d.col_offset) for d in decorators))
                if first > line or (first == line and first_column > column):
                    continue
                last = child.end_lineno or first
                if last < end_line or (last == end_line and child.end_col_offset is not None
                                       and child.end_col_offset < end_column):
                    continue
            found[id(child)] = node
            todo.append(child)
    return False
