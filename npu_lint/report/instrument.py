"""Rewrite one Python file with libcst so that calls that can reach torch go through the dynamic-shape detector.

``f(a, k=b)`` becomes ``DETECTOR.hook_func(f, 'f', 0, a, k=b)``, and ``f(a)`` (no keyword or starred
argument) ``DETECTOR.hook_args(f, 'f', 0, a)``: the callable is evaluated first, then the arguments, as in the
original call; formatting and comments outside the rewritten calls are kept byte for byte, and so are line numbers
(the detector's import shares a line with the docstring, a ``__future__`` import or the first statement). See
:func:`instrument` for which calls are wrapped.
"""
from __future__ import annotations

import ast
import builtins
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

import libcst as cst
from libcst.metadata import CodePosition, MetadataWrapper, PositionProvider

from npu_lint.analysis.scopes import CLASS, DEF, IMPORT, Binding
from npu_lint.resolver import Resolver

DETECTOR = "DETECTOR"
# Bound by assignment, not by ``from ... import DETECTOR``: CPython (3.11) compiles ``DETECTOR.hook_args(...)`` on a
# name bound by an import as an attribute load that makes a bound method on every call (no LOAD_METHOD).
IMPORT_LINE = 'DETECTOR = __import__("msft_dynamic_analysis.hook", fromlist=["DETECTOR"]).DETECTOR'
TORCH_ROOTS = frozenset({"torch", "torchvision", "torch_npu"})
BUILTINS = frozenset(dir(builtins))
# Decorators whose functions and classes are compiled or inspected by torch: left exactly as written.
_KEEP_DECORATED = ("torch.jit.", "torch.compile", "torch._dynamo.")
# torch.jit.* looks names up in its caller's frame; a frame in between would break it.
_NEVER_WRAPPED = ("torch.jit.",)
# Methods that are neither Tensor nor nn.Module methods; logging calls would report the hook as their caller.
NOT_TORCH_METHODS = frozenset({"append", "extend", "format", "join", "items", "keys", "startswith", "endswith",
                               "strip", "lower", "upper", "debug", "info", "warning", "warn", "error",
                               "exception", "critical"})
# The vendor's list of calls the detector never records: not worth a wrapper either.
NEVER_RECORDED = frozenset({"cpu", "cuda", "long", "float", "int", "detach", "to", "contiguous", "type",
                            "requires_grad_", "clone", "numpy", "item", "tolist", "size", "dim"})
_UNWRAPPED_METHODS = NOT_TORCH_METHODS | NEVER_RECORDED
_NAME_LIMIT = 80
# Per-file budget: libcst needs about 8 s and 350 MB per MB of source here, so larger files are copied unchanged
# and a file that takes more than TIME_BUDGET seconds of CPU to rewrite is given up.
MAX_BYTES = 1024 * 1024
TIME_BUDGET = 10.0


class InstrumentError(Exception):
    """The file cannot be instrumented (it does not parse, it is over budget, or a bug of ours): it is copied
    unchanged."""


@dataclass
class Instrumented:
    code: str
    wrapped: int                                    # call sites rewritten
    loops: list[int] = field(default_factory=list)  # --wrap-loop lines whose ``for`` was found

    @property
    def changed(self) -> bool:
        return bool(self.wrapped or self.loops)


def _dotted(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _base(node: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node


_FUNCTION_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_CST_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class _Names:
    """What a name of the file refers to where it stands, asked of the analysis core's semantic model (the
    :class:`Resolver` over the file's ``ast``): the libcst walk enters and leaves the model's scopes with its own
    (functions, classes, lambdas, comprehensions), and each name is looked up at its position in its scope."""

    def __init__(self, tree: ast.Module, lines: Sequence[str]) -> None:
        self.model = Resolver()
        self.model.attach(tree)
        self.lines = lines
        self.names: dict[tuple[int, int], ast.Name] = {}
        self.scopes: dict[tuple[int, int], ast.AST] = {}    # by the position of the def, class or lambda keyword
        for node in ast.walk(tree):
            kind = type(node)
            if kind is ast.Name:
                self.names[(node.lineno, node.col_offset)] = node
            elif kind in _FUNCTION_SCOPES:
                self.scopes[(node.lineno, node.col_offset)] = node
            elif kind in _COMPREHENSIONS:           # by its first target: libcst and ast agree on where that is
                target = node.generators[0].target
                self.scopes[(target.lineno, target.col_offset)] = node
        self.entered: list[bool] = []

    def _key(self, position: CodePosition) -> tuple[int, int]:
        """libcst's (line, column in characters) as ``ast``'s (line, column in UTF-8 bytes)."""
        line, column = position.line, position.column
        text = self.lines[line - 1] if line <= len(self.lines) else ""
        if column and not text.isascii():
            column = len(text[:column].encode("utf-8", "surrogatepass"))
        return line, column

    def enter(self, position: CodePosition) -> None:
        """The walk enters a function, class, lambda or comprehension (its keyword or first target at
        ``position``)."""
        node = self.scopes.get(self._key(position))
        if node is None:
            self.entered.append(False)
            return
        if isinstance(node, ast.ClassDef):
            self.model.enter_class(node)
        else:
            self.model.enter_function(node)
        self.entered.append(True)

    def leave(self) -> None:
        if self.entered.pop():
            self.model.leave_scope()

    def binding(self, name: str, position: CodePosition) -> tuple[Optional[Binding], Optional[str]]:
        """The binding of the name at ``position`` where the walk stands, and the qualified name it is imported as
        (``torch`` itself when it is not bound: a star import). A value, even one copied from a module
        (``r = np.random``), stands for nothing: its calls are wrapped, and the detector decides at runtime."""
        node = self.names.get(self._key(position))
        if node is None or node.id != name:     # not where ``ast`` has it: looked up without a position
            imported = self.model.imported(name)
            return None, imported or ("torch" if name == "torch" else None)
        binding = self.model.binding(node)
        if binding is None:
            return None, "torch" if name == "torch" else None    # a builtin, a star import or unbound
        return binding, binding.value if binding.tag == IMPORT else None


class _Wrapper(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, names: _Names, loop_lines: Sequence[int], lines: Sequence[str] = ()) -> None:
        super().__init__()
        self.lines = lines              # the source lines: is a call glued to the keyword before it?
        self.names = names
        self.loop_lines, self.loops_found = set(loop_lines), []
        self.scopes = ["code"]          # "code", "class" (a class body: skipped) or "keep" (skipped with all inside)
        self.quiet = 0                  # inside decorators, parameters, annotations, f-strings
        self.per_line: Counter[int] = Counter()
        self.wrap: dict[cst.Call, tuple[str, int]] = {}
        self.glued: set[cst.Call] = set()   # ``return(n).f()``: the rewritten call needs parentheses
        self.deadline = time.process_time() + TIME_BUDGET   # CPU time: a busy machine does not count
        self._visited = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._visited += 1
        if not self._visited % 512 and time.process_time() > self.deadline:
            raise InstrumentError(f"over the instrumentation budget ({TIME_BUDGET:.0f} s of CPU)")
        return super().on_visit(node)

    # -- what is left alone ---------------------------------------------------------------------------
    def _position(self, node: cst.CSTNode) -> CodePosition:
        return self.get_metadata(PositionProvider, node).start

    def _base_name(self, func: cst.BaseExpression) -> tuple[Optional[Binding], Optional[str]]:
        """The binding of the name ``func`` starts with, where it stands, and the qualified name that name stands
        for (an import, a namespace alias; None for the file's own names, values and builtins)."""
        base = _base(func)
        if not isinstance(base, cst.Name):
            return None, None
        return self.names.binding(base.value, self._position(base))

    @staticmethod
    def _qualified(func: cst.BaseExpression, root: Optional[str]) -> Optional[str]:
        """``torch.nn.functional.relu`` for ``F.relu`` when ``F`` stands for ``torch.nn.functional``."""
        dotted = _dotted(func)
        if root is None or dotted is None:
            return None
        rest = dotted.partition(".")[2]
        return f"{root}.{rest}" if rest else root

    def _kept_by_decorators(self, decorators: Sequence[cst.Decorator]) -> bool:
        for decorator in decorators:
            target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            full = self._qualified(target, self._base_name(target)[1]) or ""
            if full.startswith(_KEEP_DECORATED):
                return True
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        keep = self.scopes[-1] == "keep" or node.name.value == "__init__" or self._kept_by_decorators(node.decorators)
        self.scopes.append("keep" if keep else "code")
        self.names.enter(self._position(node))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.scopes.pop()
        self.names.leave()
        return updated

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        keep = self.scopes[-1] == "keep" or self._kept_by_decorators(node.decorators)
        self.scopes.append("keep" if keep else "class")
        self.names.enter(self._position(node))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.scopes.pop()
        self.names.leave()
        return updated

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.names.enter(self._position(node))

    def leave_Lambda(self, original: cst.Lambda, updated: cst.Lambda) -> cst.BaseExpression:
        self.names.leave()
        return updated

    def _enter_comprehension(self, node: Union[cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp]) -> None:
        self.names.enter(self._position(node.for_in.target))

    def _leave_comprehension(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        self.names.leave()
        return updated

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_comprehension
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

    def _enter_quiet(self, node: cst.CSTNode) -> None:
        self.quiet += 1

    def _leave_quiet(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        self.quiet -= 1
        return updated

    visit_Decorator = visit_Parameters = visit_Annotation = visit_FormattedString = _enter_quiet
    leave_Decorator = leave_Parameters = leave_Annotation = leave_FormattedString = _leave_quiet

    def _name_for(self, func: cst.BaseExpression) -> Optional[str]:
        """The name to record, or None when the call cannot reach torch (or must not be wrapped)."""
        base = _base(func)
        if isinstance(base, cst.Call) and _dotted(base.func) == "super":
            return None
        if isinstance(base, cst.Name) and base.value == DETECTOR:
            return None
        binding, root = self._base_name(func)
        if root is not None and root.split(".", 1)[0] not in TORCH_ROOTS:
            return None         # another library's name (os.path.join, np.mean, tqdm)
        if isinstance(func, cst.Attribute) and func.attr.value in _UNWRAPPED_METHODS:
            return None
        dotted = _dotted(func)
        if dotted is None:
            text = _short(func)
            return text if len(text) <= _NAME_LIMIT else text[:_NAME_LIMIT - 3] + "..."
        full = self._qualified(func, root)
        if full is not None:      # torch, torchvision or torch_npu
            return None if full.startswith(_NEVER_WRAPPED) else full
        if "." not in dotted and (binding.tag in (DEF, CLASS) if binding is not None else dotted in BUILTINS):
            return None         # the file's own function or class, or a builtin
        return dotted

    # -- the rewrite ----------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.quiet or self.scopes[-1] != "code":
            return
        name = self._name_for(node.func)
        if name is None:
            return
        start = self.get_metadata(PositionProvider, node).start
        line = start.line
        self.wrap[node] = (name, self.per_line[line])
        text = self.lines[line - 1] if line <= len(self.lines) else ""
        before = text[start.column - 1:start.column] if start.column else ""
        if before.isalnum() or before == "_":
            self.glued.add(node)
        self.per_line[line] += 1

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        site = self.wrap.get(original)
        if site is None:
            return updated
        name, index = site
        args = [_bare_generator_in_parens(arg) for arg in updated.args]
        space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        before_args = updated.whitespace_before_args
        if isinstance(before_args, cst.SimpleWhitespace) and not before_args.value:
            before_args = cst.SimpleWhitespace(" ")
        head = [cst.Arg(updated.func, comma=space), cst.Arg(cst.SimpleString(repr(name)), comma=space)]
        if args:
            head.append(cst.Arg(cst.Integer(str(index)), comma=cst.Comma(whitespace_after=before_args)))
        else:
            head.append(cst.Arg(cst.Integer(str(index)), whitespace_after_arg=updated.whitespace_before_args))
        # ``hook_args`` takes positional arguments only: no keyword dictionary to build on every call
        entry = "hook_func" if any(arg.keyword is not None or arg.star for arg in args) else "hook_args"
        wrapped = updated.with_changes(func=cst.Attribute(cst.Name(DETECTOR), cst.Name(entry)),
                                       whitespace_before_args=cst.SimpleWhitespace(""), args=head + args)
        if original in self.glued and not updated.lpar:
            # ``return(n).f()``, ``not(n).f()``, ``a if"s".join(x) else b``: the keyword before the call had no space
            wrapped = wrapped.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return wrapped

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        line = self.get_metadata(PositionProvider, original).start.line
        if line not in self.loop_lines:
            return updated
        self.loops_found.append(line)
        iterable = updated.iter
        if isinstance(iterable, cst.Tuple) and not iterable.lpar:
            iterable = iterable.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        start = cst.Call(cst.Attribute(cst.Name(DETECTOR), cst.Name("start")), [cst.Arg(iterable)])
        return updated.with_changes(iter=start)


def _short(node: cst.BaseExpression) -> str:
    """A readable name for a callable expression: ``x.view(...).sum``, ``self.blocks[...]``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_short(node.value)}.{node.attr.value}"
    if isinstance(node, cst.Call):
        return f"{_short(node.func)}(...)"
    if isinstance(node, cst.Subscript):
        return f"{_short(node.value)}[...]"
    return "<expression>"


def _bare_generator_in_parens(arg: cst.Arg) -> cst.Arg:
    """``f(x for x in y)`` is only valid as a sole argument: give the generator its own parentheses."""
    if isinstance(arg.value, cst.GeneratorExp) and not arg.value.lpar:
        return arg.with_changes(value=arg.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
    return arg


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _is_future(statement: cst.BaseStatement) -> bool:
    return (isinstance(statement, cst.SimpleStatementLine) and bool(statement.body)
            and all(isinstance(small, cst.ImportFrom) and _dotted(small.module or cst.Name("_")) == "__future__"
                    and not small.relative for small in statement.body))


def _with_import(module: cst.Module) -> cst.Module:
    """Insert the detector's import after the docstring and ``__future__`` imports, keeping line numbers."""
    detector = cst.parse_statement(IMPORT_LINE + "\n")
    assert isinstance(detector, cst.SimpleStatementLine)
    statement = detector.body[0]
    body = list(module.body)
    header = 1 if body and _is_docstring(body[0]) else 0
    while header < len(body) and _is_future(body[header]):
        header += 1
    joined = cst.Semicolon(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(" "))
    if header:
        line = body[header - 1]
        small = list(line.body)
        small[-1] = small[-1].with_changes(semicolon=joined)
        body[header - 1] = line.with_changes(body=small + [statement.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
    elif body and isinstance(body[0], cst.SimpleStatementLine):
        body[0] = body[0].with_changes(body=[statement.with_changes(semicolon=joined), *body[0].body])
    else:
        # A compound first statement: reuse a blank line of the file's header if there is one.
        lines = list(module.header)
        blanks = [i for i, line in enumerate(lines) if line.comment is None and not line.whitespace.value]
        if blanks:
            del lines[blanks[-1]]
            module = module.with_changes(header=lines)
        body.insert(0, detector)
    return module.with_changes(body=body)


def instrument(source: str, loop_lines: Sequence[int] = ()) -> Instrumented:
    """Wrap the calls of ``source`` that can reach torch, and the ``for`` loops that start at ``loop_lines``.

    Wrapped: calls of names that resolve through the file's imports to torch, torchvision or torch_npu; calls
    of any other attribute (``x.view(...)``, ``self.fc(x)``), subscript (``self.blocks[i](x)``) or expression;
    calls of plain names that are not builtins, not defined by ``def``/``class`` in the file and not imported
    from another library (``model(x)``, ``criterion(out, y)``). Left alone: ``__init__`` bodies, code decorated
    with ``torch.jit.*`` or ``torch.compile``, ``super()`` calls, ``torch.jit.*`` calls, decorators, parameter
    defaults, annotations, f-strings, class bodies, attribute calls through another library's import
    (``os.path.join``, ``np.mean``), a few str/list/logging methods (:data:`NOT_TORCH_METHODS`) and the methods
    the detector never records (:data:`NEVER_RECORDED`: ``.to()``, ``.item()``, ``.size()`` ...).
    """
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise InstrumentError(f"larger than the instrumentation budget ({size / 2 ** 20:.1f} MB > "
                              f"{MAX_BYTES / 2 ** 20:.0f} MB)")
    from npu_lint.isolation import TOO_DEEP, internal_error, with_deep_stack
    try:
        return with_deep_stack(_instrument, source, loop_lines)
    except InstrumentError:
        raise
    except RecursionError:
        raise InstrumentError(TOO_DEEP) from None
    except Exception as error:   # isolation (a validation error, a bug of ours): the file is kept as it is
        raise InstrumentError(internal_error(error)) from None


def _instrument(source: str, loop_lines: Sequence[int]) -> Instrumented:
    try:
        tree = ast.parse(source)
        module = cst.parse_module(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, cst.ParserSyntaxError) as error:
        raise InstrumentError(_describe(error)) from None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")   # libcst's line breaks only
    names = _Names(tree, lines)
    transformer = _Wrapper(names, loop_lines, lines)
    try:
        rewritten = wrapper.visit(transformer)
    finally:
        names.model.close()     # its scopes hold reference cycles
    changed = Instrumented("", len(transformer.wrap), sorted(transformer.loops_found))
    if not changed.changed:
        changed.code = source
        return changed
    changed.code = _with_import(rewritten).code
    try:
        compile(changed.code, "<instrumented>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError as error:   # a rewrite libcst accepted but Python does not: keep the file as it was
        raise InstrumentError(f"the rewritten file does not parse ({error.msg} at line {error.lineno})") from None
    return changed


def _describe(error: Union[SyntaxError, Exception]) -> str:
    if isinstance(error, SyntaxError):
        return f"syntax error at line {error.lineno}: {error.msg}" if error.lineno else f"syntax error: {error.msg}"
    if isinstance(error, cst.ParserSyntaxError):
        return f"libcst cannot parse it (line {error.raw_line})"
    return f"cannot parse: {type(error).__name__}"
