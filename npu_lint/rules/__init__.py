"""Rule declarations. Each family module in this package declares small :class:`Rule` classes;
they are discovered here, never listed by hand.

A rule carries its own documentation (the class docstring, in fixed sections), a one-line
message, and examples that must and must not fire; the test-suite runs those examples.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar, Optional

from npu_lint.bounded import unparse

if TYPE_CHECKING:
    from npu_lint.context import FileContext

DOC_SECTIONS = ("What it does", "Why it matters on NPU", "Example", "Use instead", "Fix safety")


class ApiRef:
    """Synthetic event: a maximal dotted name (``torch.cuda.amp.GradScaler``) resolved through imports."""

    __slots__ = ("node", "qualname")

    def __init__(self, node: ast.expr, qualname: str) -> None:
        self.node = node
        self.qualname = qualname


class Rule:
    """Base class. Subclasses set the class attributes and implement :meth:`check`."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""          # kebab-case, says what is flagged
    message: ClassVar[str] = ""       # one line, ``str.format`` fields filled by check()
    family: ClassVar[str] = ""
    node_types: ClassVar[tuple[type, ...]] = ()
    default_enabled: ClassVar[bool] = True
    fix_safety: ClassVar[str] = "no fix"   # "safe", "unsafe" or "no fix"
    must_fire: ClassVar[tuple[str, ...]] = ()
    must_not_fire: ClassVar[tuple[str, ...]] = ()
    # Per-name dispatch (optional): the core runs the rule on an ``ast.Call`` only when the call's name (the
    # callee's qualified name, else ``torch.Tensor.<attr>`` for a method of an unknown receiver) is in
    # ``callees``, or its callee is an attribute ``<receiver>.<m>`` with ``m`` in ``methods``; both None: on every
    # call. A declaration must hold every name the rule can fire on.
    callees: ClassVar[Optional[frozenset[str]]] = None
    methods: ClassVar[Optional[frozenset[str]]] = None
    # The rule runs on an ``ast.Constant`` only when its value is of one of these types (None: any).
    constant_types: ClassVar[Optional[tuple[type, ...]]] = None

    @classmethod
    def wants_call(cls, name: Optional[str], method: Optional[str]) -> bool:
        """Whether the rule may fire on an ``ast.Call`` with call name ``name`` (see ``callees``) whose callee is
        ``<receiver>.<method>`` (``method`` None for other callees). Asked once per pair and run: it may depend on
        them only. By default: as ``callees`` and ``methods`` say."""
        if cls.callees is None and cls.methods is None:
            return True
        return (cls.callees is not None and name in cls.callees) or (cls.methods is not None and method in cls.methods)

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        """Whether the rule may fire on an :class:`ApiRef` to ``qualname`` (asked once per name and run, so it
        may depend on the name only): a rule whose API references are judged by the name alone overrides it."""
        return True

    def check(self, node: object, ctx: "FileContext") -> None:
        raise NotImplementedError

    @classmethod
    def summary(cls) -> str:
        """The first line of the rule's documentation."""
        return (cls.__doc__ or "").strip().splitlines()[0]


FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def short_source(node: ast.AST, limit: int = 40) -> str:
    """``node``'s source text for a message, cut to ``limit`` characters."""
    return unparse(node, limit)   # bounded and non-recursive: the depth is the user's


def method_position(call: ast.Call) -> Optional[tuple[int, int]]:
    """Where the method name of ``x.method(...)`` starts (line, column) when the receiver spans lines: the line to
    change (``decode(\n    codes,\n).cuda()`` is on the last line, not where ``decode(`` starts). None when the
    call starts on the method's line (reported at the call's start, as every call is) or the callee is no
    attribute."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.end_lineno is None or func.end_col_offset is None \
            or func.end_lineno == call.lineno:
        return None
    return func.end_lineno, max(func.end_col_offset - len(func.attr), 0)


@lru_cache(maxsize=None)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class in this package, sorted by code."""
    found: dict[str, type[Rule]] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value.code and value.__module__ == module.__name__:
                if value.code in found:
                    raise RuntimeError(f"rule code {value.code} is declared twice")
                found[value.code] = value
    return tuple(found[code] for code in sorted(found))


def rules_by_code() -> dict[str, type[Rule]]:
    return {rule.code: rule for rule in all_rules()}
