"""What a function's own code shows of a parameter: a name whose methods only a torch tensor has is a tensor.

``def sequence_mask(lengths, max_len=None): ... lengths.unsqueeze(1)``: no caller in the file, no annotation, but
``unsqueeze`` is a method of torch tensors only (numpy, pandas, Python's types and ``nn.Module`` have none), so
``lengths`` is a tensor and ``lengths.max()`` is a 0-d tensor. The evidence is a *call* of such a method on the
name itself, in the function's own body (nested functions and classes are other scopes); a name only read, passed
on or used with methods other types share (``max``, ``sum``, ``to``, ``view``) stays unknown.
"""
from __future__ import annotations

import ast
import re
import unicodedata
from typing import Callable, Iterator, Optional

from npu_lint.analysis.kinds import TENSOR_ONLY_MASK_METHODS, TENSOR_ONLY_METHODS
from npu_lint.analysis.nodes import OTHER_SCOPES, body_of, child_nodes, children, function_text

EVIDENCE = TENSOR_ONLY_METHODS | TENSOR_ONLY_MASK_METHODS
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# A dot, then what may stand between it and the method (spaces, continuations, comments), then an evidence method as
# a whole word: each hit's receiver is read backwards from its dot (see candidate_names).
# a comment runs to its line's end (``#[^\n]*\n``): with ``#[^\n#]*`` the spaces of a comment could be matched by
# either branch, and a block of comment lines after a dot backtracked exponentially (joeynmt's search.py: 21 s)
_DOT_METHOD = re.compile(r"\.(?:[\s\\]|#[^\n]*\n)*(?:" + "|".join(sorted(EVIDENCE, key=len, reverse=True)) + r")\b")
_BETWEEN = frozenset(" \t\r\n\f\v)\\")   # what may stand between a receiver name and its dot (``(x).unsqueeze``)


def own_calls(function: ast.AST) -> Iterator[tuple[ast.Call, frozenset[str]]]:
    """The calls of ``function``'s own body (nested functions and classes are other scopes), each with the names a
    comprehension around it binds (``[n.unsqueeze(0) for n in items]``: its own ``n``, not the function's)."""
    stack: list[tuple[ast.AST, frozenset[str]]] = [(node, frozenset()) for node in body_of(function)]
    while stack:
        node, hidden = stack.pop()
        if isinstance(node, OTHER_SCOPES):
            continue
        if isinstance(node, _COMPREHENSIONS):
            hidden = hidden | {t.id for g in node.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Call):
            yield node, hidden
        stack.extend((child, hidden) for child in children(node))


def tensor_method_receivers(function: ast.AST) -> dict[str, list[ast.Name]]:
    """The names of ``function``'s body called with a tensor-only method (``x.unsqueeze(1)``), by name."""
    found: dict[str, list[ast.Name]] = {}
    for call, hidden in own_calls(function):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in EVIDENCE and isinstance(func.value, ast.Name) \
                and func.value.id not in hidden:
            found.setdefault(func.value.id, []).append(func.value)
    return found


def candidate_names(function: ast.AST, source: str, store: dict) -> Optional[frozenset[str]]:
    """The names that may be receivers of an evidence method in ``function``'s lines of ``source``, found in its
    text (most functions asked have none, and their bodies are not walked): for each dot followed by an evidence
    method, the identifier before it, past spaces, line breaks and closing parentheses. A superset of what the walk
    finds (strings and comments may add names); None (walk) when a comment may stand between a name and its dot or
    the text has carriage returns.
    Identifiers are compared as Python reads them (NFKC), so a text with other characters is normalised first."""
    text = function_text(function, source, store)
    if text is None:
        return None
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    names = set()
    for hit in _DOT_METHOD.finditer(text):
        end = hit.start()
        while end > 0 and text[end - 1] in _BETWEEN:
            end -= 1
        if "\n" in text[end:hit.start()] and "#" in text[text.rfind("\n", 0, end) + 1:end]:
            return None   # ``(x  # note`` then ``.unsqueeze(1))`` on the next line: walk
        start = end
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        if start < end:
            names.add(text[start:end])
    return frozenset(names)


def used_as_tensor(function: ast.AST, name: str, store: dict, refers: Callable[[ast.Name], bool],
                   source: Optional[str] = None) -> bool:
    """Whether ``function``'s body calls a tensor-only method on ``name`` where ``refers`` says the name is the
    binding asked about. ``store``: the per-file memo of :func:`tensor_method_receivers` (and, with the file's
    ``source``, of :func:`candidate_names`, asked first)."""
    receivers: Optional[object] = store.get(id(function))
    if receivers is None and source is not None:
        receivers = candidate_names(function, source, store)
        if receivers is not None:
            store[id(function)] = receivers
    if isinstance(receivers, frozenset):
        if name not in receivers:
            return False
        receivers = None
    if receivers is None:
        receivers = store[id(function)] = tensor_method_receivers(function)
    assert isinstance(receivers, dict)
    return any(refers(node) for node in receivers.get(name, ()))


# Where a function's own code treats a name as a boolean mask: the mask of ``x.masked_fill(m, v)`` (and of
# ``masked_fill_`` / ``masked_scatter`` / ``masked_select``: torch requires a bool tensor there), the condition of
# ``torch.where(m, a, b)`` (also inverted there: ``masked_fill(~m, 0)``; ``~i`` alone is as often an integer's
# reverse index), the index a subscript inverts (``y[~m]``: the selection the rules report already, so ``x[m]`` is
# its complement), a side of ``m & (x > 0)`` / ``m | (x > 0)`` (the other side a comparison), each name of a ``&`` /
# ``|`` combination that selects (``x[a & b]``, ``torch.where(a & b)``, ``(a | b).nonzero()``).
_MASKED_METHODS = frozenset({"masked_fill", "masked_fill_", "masked_scatter", "masked_scatter_", "masked_select"})
_MASKED_FUNCTIONS = frozenset({"torch.masked_fill", "torch.masked_select", "torch.masked_scatter"})
_MASKED_LAST = frozenset({"masked_fill", "masked_select", "masked_scatter", "where"})   # the callee's last name
# ``torch.logical_and(m, x > 0)`` (``logical_or``, ``logical_xor``): a side beside a comparison, as with ``&`` / ``|``.
_LOGICAL = frozenset({"logical_and", "logical_or", "logical_xor"})
# Selections by a condition: one-argument ``torch.where``, ``nonzero``, ``argwhere``.
_SELECTING = frozenset({"where", "nonzero", "argwhere"})
_SELECTING_FUNCTIONS = frozenset({"torch.where", "torch.nonzero", "torch.argwhere"})
_LOGICAL_FUNCTIONS = frozenset("torch." + name for name in _LOGICAL)
# Counting the elements a mask holds: ``m.sum()``, ``torch.sum(m)``, ``m.count_nonzero()``.
_COUNTING = frozenset({"sum", "count_nonzero"})
_COUNTING_FUNCTIONS = frozenset({"torch.sum", "torch.count_nonzero"})


def _bool_dtype_test(test: ast.AST, qualname: Callable[[ast.AST], Optional[str]]) -> bool:
    """``m.dtype == torch.bool`` (``is``)."""
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)) \
        and isinstance(test.left, ast.Attribute) and test.left.attr == "dtype" \
        and isinstance(test.left.value, ast.Name) and qualname(test.comparators[0]) == "torch.bool"


def _indexes_with(statements: list[ast.stmt], name: str) -> bool:
    """``x[name] = v`` / ``x[name]`` somewhere in ``statements``."""
    return any(isinstance(node, ast.Subscript) and any(
        isinstance(index, ast.Name) and index.id == name
        for index in (node.slice.elts if isinstance(node.slice, ast.Tuple) else (node.slice,)))
        for statement in statements for node in ast.walk(statement))


def mask_uses(function: ast.AST, qualname: Callable[[ast.AST], Optional[str]]) -> dict[str, list[ast.Name]]:
    """The names ``function``'s own body uses as a boolean mask (see above), by name; ``qualname`` names a callee
    (``torch.where``, ``torch.masked_fill``)."""
    found: dict[str, list[ast.Name]] = {}

    def add(node: Optional[ast.AST]) -> None:
        while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            node = node.operand   # ``masked_fill(~keep, 0)``: where a mask stands, ``~keep`` is one, so is ``keep``
        if isinstance(node, ast.Name):
            found.setdefault(node.id, []).append(node)

    def sides(node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            return sides(node.left) + sides(node.right)
        return [node]

    def combined(node: ast.AST) -> None:   # ``torch.where(keep_a & keep_b)``: selecting by a combination of names,
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):   # each a mask (not
            found = sides(node)                                                              # ``x[i & 1]``: bits)
            if not any(isinstance(side, ast.Constant) for side in found):
                for side in found:
                    add(side)

    counted: set[str] = set()   # ``m.sum()``, ``torch.count_nonzero(m)``: how many it selects
    indexes: list[ast.Name] = []   # ``x[m]``, ``x[m, :]``: the names that stand as an index

    stack: list[ast.AST] = list(body_of(function))
    while stack:
        node = stack.pop()
        if isinstance(node, OTHER_SCOPES):
            continue
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _COUNTING and isinstance(func.value, ast.Name):
                counted.add(func.value.id)
            elif isinstance(func, ast.Attribute) and func.attr in _COUNTING and isinstance(func.value, ast.UnaryOp) \
                    and isinstance(func.value.op, ast.Invert):
                negated = func.value.operand   # ``(~keep).sum()``, ``(~keep[0]).sum()``: counting what it leaves out
                while isinstance(negated, ast.Subscript):
                    negated = negated.value
                add(negated)
            elif isinstance(func, ast.Attribute) and func.attr in _COUNTING and node.args \
                    and isinstance(node.args[0], ast.Name) and qualname(func) in _COUNTING_FUNCTIONS:
                counted.add(node.args[0].id)
            keyword = next((kw.value for kw in node.keywords if kw.arg in ("mask", "condition")), None)
            if isinstance(func, ast.Attribute) and func.attr in _SELECTING and not node.args:
                combined(func.value)   # ``(a & b).nonzero()``
            elif len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.BinOp) \
                    and (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in _SELECTING \
                    and qualname(func) in _SELECTING_FUNCTIONS:
                combined(node.args[0])   # ``torch.where(a & b)``, ``torch.nonzero(a | b)``
            if isinstance(func, ast.Attribute) and func.attr in _MASKED_METHODS:
                add(node.args[0] if node.args else keyword)
            elif (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in _MASKED_LAST \
                    and (node.args or keyword is not None):
                name = qualname(func)
                if name in _MASKED_FUNCTIONS:
                    add(node.args[1] if len(node.args) > 1 else keyword)
                elif name == "torch.where" and len(node.args) + len(node.keywords) == 3:
                    add(node.args[0] if node.args else keyword)
            elif (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in _LOGICAL \
                    and len(node.args) == 2 and qualname(func) in _LOGICAL_FUNCTIONS:
                left, right = node.args   # ``torch.logical_and(targets >= 0, valid)``: as ``(targets >= 0) & valid``
                if isinstance(right, ast.Compare):
                    add(left)
                if isinstance(left, ast.Compare):
                    add(right)
        elif isinstance(node, ast.Subscript):   # ``x[~keep]`` (a mask's selection) beside ``y[keep]``
            for index in (node.slice.elts if isinstance(node.slice, ast.Tuple) else (node.slice,)):
                if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert):
                    add(index)
                elif isinstance(index, ast.Name):
                    indexes.append(index)
                combined(index)   # ``x[a & b]``
        elif isinstance(node, (ast.If, ast.Assert)):
            for test in (node.test.values if isinstance(node.test, ast.BoolOp) else (node.test,)):
                if _bool_dtype_test(test, qualname) \
                        and not _indexes_with(getattr(node, "orelse", ()), test.left.value.id):
                    add(test.left.value)   # ``assert keep.dtype == torch.bool``, ``if keep.dtype == torch.bool:``
                    #                        (not when its other arm indexes with it: an integer index there)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            if isinstance(node.right, ast.Compare):
                add(node.left)
            if isinstance(node.left, ast.Compare):
                add(node.right)
        stack.extend(child_nodes(node))
    for index in indexes:   # an index the function also counts (``n = mask.sum()``; ``x[mask] = v / n``) selects
        if index.id in counted:   # by a mask: an integer index has nothing to count
            found.setdefault(index.id, []).append(index)
    return found


# Where a mask use may put a name, in the function's text: after ``~``, beside ``&`` / ``|``, first in
# ``masked_fill(`` / ``where(`` (and after the first comma of ``masked_fill(``: ``torch.masked_fill(x, m, v)``), after
# ``mask=`` / ``condition=``. The names found there are a superset of the walk's (up to a comment inside a call).
_MASK_OPERATORS = re.compile(r"[~&|]|masked_(?:fill_?|select|scatter_?)\(|where\(|logical_(?:and|or|xor)\(|"
                             r"(?:mask|condition)\s*=|sum\(|count_nonzero\(|\.dtype\s*(?:==|is)\s*torch\.bool")   # no ``\b``: 6x faster
_SKIPPED = frozenset(" \t\r\n\f\v()\\")


def _word_after(text: str, start: int) -> str:
    while start < len(text) and text[start] in _SKIPPED:
        start += 1
    end = start
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[start:end]


def _word_before(text: str, end: int) -> str:
    while end > 0 and text[end - 1] in _SKIPPED:
        end -= 1
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start:end]


def mask_candidates(text: str) -> frozenset[str]:
    """The names that may stand where a mask use puts them in ``text`` (see above)."""
    names = set()
    for hit in _MASK_OPERATORS.finditer(text):
        operator = hit.group()
        if len(operator) > 1 and operator[0] != "." and hit.start() > 0 and (text[hit.start() - 1].isalnum() or text[hit.start() - 1] == "_"):
            continue   # ``attn_mask =``, ``_where(``: the word starts earlier
        names.add(_word_after(text, hit.end()))
        if operator in ("sum(", "count_nonzero(") and hit.start() > 0 and text[hit.start() - 1] == ".":
            names.add(_word_before(text, hit.start() - 1))   # ``m.sum()``
        elif operator.startswith(".dtype"):
            names.add(_word_before(text, hit.start()))   # ``keep.dtype == torch.bool``
        if operator in ("&", "|"):
            names.add(_word_before(text, hit.start()))
        elif operator.startswith(("masked_", "logical_")):   # the second argument
            comma = text.find(",", hit.end())
            if comma > 0:
                names.add(_word_after(text, comma + 1))
    return frozenset(names)


def used_as_mask(function: ast.AST, name: str, store: dict, refers: Callable[[ast.Name], bool],
                 qualname: Callable[[ast.AST], Optional[str]], source: Optional[str] = None) -> bool:
    """Whether ``function``'s own body uses ``name`` as a boolean mask where ``refers`` says the name is the binding
    asked about. ``store``: the per-file memo of the names its text may use so (a function is walked, by
    :func:`mask_uses`, only for a name among them) and of the walk."""
    key = id(function)
    names = store.get(key)
    if names is None:
        text = function_text(function, source, store) if source is not None else None
        names = store[key] = None if text is None else mask_candidates(text)
    if names is not None and name not in names:
        return False
    uses = store.get((key, "walk"))
    if uses is None:
        uses = store[(key, "walk")] = mask_uses(function, qualname)
    return any(refers(node) for node in uses.get(name, ()))


# ``= name`` closing a line or before ``#``, ``;``, ``)``: where ``copies_of`` looks for a plain copy of a name.
_COPIED = re.compile(r"=\s*(\w+)\s*(?:$|[\n#;)])", re.M)
_WORD = re.compile(r"\w+")


def _copied(function: ast.AST, name: str, text: str, store: dict) -> bool:
    """``= name`` stands in the function's ``text`` (a search for that name's own pattern): the names that stand
    so, found in one pass per function and kept in ``store`` (a pattern compiled per name asked cost more than
    the searches)."""
    if not _WORD.fullmatch(name):
        return re.search(r"=\s*" + re.escape(name) + r"\s*(?:$|[\n#;)])", text, re.M) is not None
    key = (id(function), "copied")
    names = store.get(key)
    if names is None:
        names = store[key] = frozenset(hit.group(1) for hit in _COPIED.finditer(text))
    return name in names


def copies_of(function: ast.AST, name: str, store: dict, source: Optional[str] = None) -> tuple[str, ...]:
    """The locals ``function``'s own body binds to ``name`` itself (``ce_mask = mask``): names that hold the same
    value where that binding reaches. Read from the text first (``= name`` must stand in it), then from the
    function's plain copies (one walk of it for every name asked), memoised in ``store``."""
    key = (id(function), "copies", name)
    found = store.get(key)
    if found is not None:
        return found
    text = function_text(function, source, store) if source is not None else None
    if text is not None and not _copied(function, name, text, store):
        found = ()
    else:
        plain = store.get((id(function), "plain copies"))
        if plain is None:   # every ``a = b`` of the body, found in one walk (in the walk's order) for all names asked
            plain = store[(id(function), "plain copies")] = {}
            stack: list[ast.AST] = list(body_of(function))
            while stack:
                node = stack.pop()
                if isinstance(node, OTHER_SCOPES):
                    continue
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                        and isinstance(node.value, ast.Name) and node.targets[0].id != node.value.id:
                    plain.setdefault(node.value.id, []).append(node.targets[0].id)
                stack.extend(child_nodes(node))
        copies = plain.get(name, ())
        found = tuple(dict.fromkeys(copies))
    store[key] = found
    return found
