"""The analysis core: one walk over Python's ``ast`` per file, every selected rule in that walk.

flake8 hands plugins the tree it already parsed; ``npu-lint check`` and the reports parse
once here. Names are resolved once (:mod:`npu_lint.resolver`) while walking; maximal
dotted names are dispatched to rules as :class:`~npu_lint.rules.ApiRef` events.
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import Optional, Sequence

from npu_lint.context import FileContext
from npu_lint.finding import Finding
from npu_lint.noqa import without_noqa
from npu_lint.resolver import Resolver
from npu_lint.analysis.name_lookup import API_BUILTINS
from npu_lint.analysis.scopes import VALUE, literal_getattr
from npu_lint.rules import ApiRef, Rule, all_rules
from npu_lint.versions import Target, default_release

_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                     ast.GeneratorExp})


class _Later:
    """Pushed on the walk stack below a node's children: runs once the subtree has been walked."""

    __slots__ = ("action", "node")

    def __init__(self, action, node=None) -> None:
        self.action, self.node = action, node


class Dispatch:
    """Node type -> rule instances, built once per set of enabled codes."""

    def __init__(self, rules: Sequence[type[Rule]], observers: Sequence[Rule] = ()) -> None:
        self._build([rule_class() for rule_class in rules] + list(observers))
        self.codes = frozenset(rule.code for rule in rules)
        self._narrowed: dict[tuple[int, ...], Dispatch] = {}
        self._whole: Optional[Dispatch] = None   # a narrowed dispatch: the one it was narrowed from

    def _build(self, instances: list[Rule]) -> None:
        self.instances = instances
        self.by_type: dict[type, list[Rule]] = {}
        self.triggers: Optional[tuple[str, ...]] = ()
        for rule in instances:
            rule_class = type(rule)
            for node_type in rule_class.node_types:
                self.by_type.setdefault(node_type, []).append(rule)
            triggers = getattr(rule_class, "triggers", None)
            if self.triggers is not None:
                self.triggers = None if not triggers else self.triggers + tuple(triggers)
        self.api_rules = tuple(self.by_type.pop(ApiRef, ()))
        # What the walk runs: (code, family, rule) per node type (``check`` looked up at the call: a patched
        # method counts).
        self.calls = {node_type: tuple((rule.code, rule.family, rule) for rule in rules)
                      for node_type, rules in self.by_type.items()}
        self.api_calls = tuple((rule.code, rule.family, rule) for rule in self.api_rules)
        # Per-name dispatch: the entries of ``api_calls`` that may fire on a qualified name (rules declare
        # ``wants_api``), and of the ``ast.Call`` entries on a call name (rules declare ``callees``); each list is
        # made once per name and kept, in the rules' order.
        self._api_filtered = any(type(rule).wants_api is not Rule.wants_api for rule in self.api_rules)
        self._api_entries: dict[str, tuple] = {}
        # The per-name lists are few distinct ones (10 and 18 over timm+mmdet's 6,779 names): each kept once, so the
        # memos hold no object of their own the collector would scan (flake8's full passes scan the whole heap).
        self._shared: dict[tuple, tuple] = {}
        self._last: tuple[Optional[str], tuple[int, ...]] = (None, ())   # _active's last source and answer
        self.gated_calls = any(type(rule).callees is not None or type(rule).methods is not None
                               or type(rule).wants_call.__func__ is not _WANTS_CALL
                               for rule in self.by_type.get(ast.Call, ()))
        self._call_entries: dict[tuple[Optional[str], Optional[str]], tuple] = {}
        constants = self.calls.get(ast.Constant, ())
        self.constants = {value_type: tuple(entry for entry in constants if type(entry[2]).constant_types is None
                                            or issubclass(value_type, type(entry[2]).constant_types))
                          for value_type in _CONSTANT_TYPES} \
            if any(type(entry[2]).constant_types is not None for entry in constants) else None
        self.project_rules = tuple(type(rule) for rule in instances if hasattr(rule, "project_triggers"))
        self._plan: Optional[tuple] = None   # what ``_active`` reads: made on its first question (``_make_plan``;
        # never for a narrowed dispatch, which is not asked)

    def _make_plan(self) -> tuple:
        instances = self.instances
        self._words = tuple(dict.fromkeys(word for rule in instances for word in (getattr(rule, "triggers", None) or ())))
        # Trigger words made of identifier characters occur in a source only inside one of its identifier-like
        # runs: they are looked for in the distinct runs (a far shorter text); the others in the source itself.
        self._word_runs = tuple(word for word in self._words if _RUN.fullmatch(word))
        self._word_other = tuple(word for word in self._words if not _RUN.fullmatch(word))
        self._run_bytes = {word: word.encode("ascii") for word in self._word_runs}
        # What ``_active`` reads per rule, made once: its index and its words, each with its bytes when it is looked
        # for in the runs (None: in the source) and, for a word looked for in the source, the bytes of its longest
        # identifier part (``count_nonzero`` of ``.count_nonzero(``): a source holding the word holds that part in
        # one of its runs, so a part not in the runs spares the scan of the whole source; ``()``: no trigger words.
        in_runs = self._run_bytes if len(self._word_runs) >= 8 else {}
        self._plan = tuple((index, tuple((word, in_runs.get(word), _part(word) if in_runs else None)
                                         for word in (getattr(rule, "triggers", None) or ())))
                           for index, rule in enumerate(instances))
        return self._plan

    def api_entries(self, qualname: str) -> tuple:
        """The (code, family, rule) entries of the rules that may fire on an API reference to ``qualname``."""
        entries = self._api_entries.get(qualname)
        if entries is None:
            if not self._api_filtered:
                entries = self.api_calls
            elif self._whole is not None:   # the whole dispatch's entries (asked once per name in a run), kept
                entries = self._kept_of(self._whole.api_entries(qualname))
            else:
                entries = tuple(entry for entry in self.api_calls if type(entry[2]).wants_api(qualname))
            self._api_entries[qualname] = entries = self._shared.setdefault(entries, entries)
        return entries

    def call_entries(self, name: Optional[str], method: Optional[str]) -> tuple:
        """The entries for an ``ast.Call`` whose call name (the callee's qualified name, else ``torch.Tensor.<attr>`` for a method of an unknown receiver) is ``name`` and whose callee is
        an attribute ``method`` (else None)."""
        key = (name, method)
        entries = self._call_entries.get(key)
        if entries is None:
            entries = self._kept_of(self._whole.call_entries(name, method)) \
                if self._whole is not None and self._whole.gated_calls else tuple(
                entry for entry in self.calls.get(ast.Call, ()) if type(entry[2]).wants_call(name, method))
            self._call_entries[key] = entries = self._shared.setdefault(entries, entries)
        return entries

    def _kept_of(self, entries: tuple) -> tuple:
        """The entries of the whole dispatch's list ``entries`` whose rules this narrowed one keeps: once per distinct
        list (the whole's lists are few and shared, each alive as long as the whole dispatch: their ids stay unique),
        not once per name."""
        kept = self._kept_lists.get(id(entries))
        if kept is None:
            kept = self._kept_lists[id(entries)] = tuple(entry for entry in entries if id(entry[2]) in self._kept)
        return kept

    def wanted(self, source: str) -> bool:
        """The cheap substring pre-filter: a file none of the rules could fire on is skipped."""
        if not self.codes:
            return False
        if self.triggers is None:
            return True
        return bool(self._active(source))   # every rule has trigger words: one of them is in ``source``

    def for_source(self, source: str) -> "Dispatch":
        """The same pre-filter per rule: only the rules whose trigger words occur in ``source`` are run."""
        active = self._active(source)
        if len(active) == len(self.instances):
            return self
        narrowed = self._narrowed.pop(active, None)
        if narrowed is None:
            if len(self._narrowed) >= _NARROWED_KEPT:   # the oldest used set goes (see _NARROWED_KEPT)
                del self._narrowed[next(iter(self._narrowed))]
            narrowed = Dispatch.__new__(Dispatch)
            narrowed._build([self.instances[index] for index in active])
            narrowed.codes, narrowed._narrowed = self.codes, {}
            # the per-name entries: the whole dispatch's (each name judged once per run, not once per rule set),
            # restricted to the rules kept, in the same order
            narrowed._whole, narrowed._kept = self, frozenset(id(rule) for rule in narrowed.instances)
            narrowed._kept_lists = {}
        self._narrowed[active] = narrowed   # last in the order: the most recently used
        return narrowed

    def _active(self, source: str) -> tuple[int, ...]:
        """The indices of the rules with no trigger words or one of them in ``source``. A rule's words are looked
        for until one is found (each distinct word at most once): a rule already kept needs none of its others.
        The last source's answer is kept (the same text object: ``wanted`` and ``for_source`` ask it in turn)."""
        if source is self._last[0]:
            return self._last[1]
        plan = self._plan if self._plan is not None else self._make_plan()
        found: dict[str, bool] = {}
        get = found.get
        runs: Optional[bytes] = None
        long_runs: list[tuple[bytes, frozenset[int]]] = []
        active = []
        for index, words in plan:
            if not words:
                active.append(index)
                continue
            for word, encoded, part in words:
                hit = get(word)
                if hit is None:
                    if encoded is None:
                        if part is not None:
                            if runs is None:
                                runs, long_runs = _runs(source)
                            hit = (part in runs or (bool(long_runs) and any(
                                part in run for run, letters in long_runs if letters.issuperset(part)))) \
                                and word in source
                        else:
                            hit = word in source
                    else:
                        if runs is None:
                            runs, long_runs = _runs(source)
                        hit = encoded in runs
                        if not hit and long_runs:
                            hit = any(encoded in run for run, letters in long_runs if letters.issuperset(encoded))
                    found[word] = hit
                if hit:
                    active.append(index)
                    break
        self._last = (source, tuple(active))
        return self._last[1]


def _part(word: str) -> Optional[bytes]:
    """The longest run of identifier characters in ``word`` (bytes), None when it has none of 3 or more."""
    part = max(_RUN.findall(word), key=len, default="")
    return part.encode("ascii") if len(part) >= 3 else None


def _runs(source: str) -> tuple[bytes, list[tuple[bytes, frozenset[int]]]]:
    """The distinct identifier-like runs of ``source`` (bytes: ASCII letters, digits, ``_`` and any non-ASCII
    character's bytes) joined by newlines: a trigger word made of identifier characters occurs in ``source`` exactly
    when its bytes occur in this far shorter text. Runs longer than :data:`_LONG_RUN` come apart, each with the set
    of its bytes: a word with a byte the run lacks is not looked for in it (a 10 MB string of one letter was
    searched for every trigger word with that letter: 2 s)."""
    runs = set(source.encode("utf-8", "surrogatepass").translate(_RUN_BYTES).split())
    long_runs = [run for run in runs if len(run) > _LONG_RUN]
    if not long_runs:
        return b"\n".join(runs), []
    runs.difference_update(long_runs)
    return b"\n".join(runs), [(run, frozenset(run)) for run in long_runs]


_LONG_RUN = 4096


_RUN = re.compile(r"[A-Za-z0-9_]+")
_RUN_BYTES = bytes(byte if byte >= 128 or _RUN.fullmatch(chr(byte)) else 32 for byte in range(256))   # others: " "
_CONSTANT_TYPES = (str, bytes, bool, int, float, complex, type(None), type(...))   # what ast.Constant holds
_WANTS_CALL = Rule.wants_call.__func__
# Narrowed dispatches kept per run (least recently used dropped): most rule sets occur in one file only (917 sets for
# timm+mmdet's 1,692 files, 758 once), and each kept one holds ~100 objects the collector scans on every full pass of
# the host process (flake8's, over its whole heap): all of them kept cost more collector time than they saved.
_NARROWED_KEPT = 32


@lru_cache(maxsize=64)
def dispatch_for(codes: Optional[frozenset[str]]) -> Dispatch:
    rules = [rule for rule in all_rules() if (rule.default_enabled if codes is None else rule.code in codes)]
    return Dispatch(rules)


def analyse_tree(tree: ast.AST, source: str, target: Optional[Target] = None,
                 codes: Optional[frozenset[str]] = None, noqa: bool = False,
                 ctx: Optional[FileContext] = None, observers: Sequence[Rule] = (),
                 third_party: frozenset[str] = frozenset()) -> list[Finding]:
    """Run the rules for ``codes`` (default: the rules on by default) over a parsed module.

    The report passes its own ``ctx`` (with per-run facts such as the project's custom CUDA operators)
    and ``observers``: rule-like objects that collect facts (the API inventory) without reporting.
    """
    dispatch = dispatch_for(codes)
    if not observers and not dispatch.wanted(source) and not (
            ctx is not None and ctx.project is not None and calls_project_wrapper(dispatch, ctx.project, source)):
        return []   # observers see every file; a file calling a project wrapper of a torch op is analysed
    own = ctx is None   # a context made here is closed here: its model's cycles freed by reference counts
    ctx = ctx or FileContext(source, target or Target(default_release()))
    ctx.third_party = ctx.third_party or third_party
    if not ctx.uses_torch and ctx.project is not None and isinstance(tree, ast.Module):
        ctx.uses_torch = ctx.project.imports_torch_values(_imported_names(tree), ctx.module)
    narrowed = dispatch.for_source(source)
    if narrowed is not dispatch and ctx.project is not None and calls_project_wrapper(dispatch, ctx.project, source):
        narrowed = dispatch   # the file calls a project function a rule follows (a wrapper of a torch op)
    from npu_lint.collector import walking
    with walking():
        try:
            _walk(tree, ctx, narrowed, observers)
        finally:
            if own:
                ctx.close()
    ctx.drop_repeats()
    findings = ctx.findings
    if noqa and findings:
        findings = without_noqa(findings, ctx.noqa_spans, source.splitlines())
    return sorted(set(findings), key=lambda f: (f.line, f.col, f.code, f.message, f.api, f.end_line, f.family))


def analyse_source(source: str, target: Optional[Target] = None, codes: Optional[frozenset[str]] = None,
                   noqa: bool = True, filename: str = "<source>",
                   third_party: frozenset[str] = frozenset()) -> list[Finding]:
    """Parse ``source`` and analyse it. Raises SyntaxError/ValueError for unparseable input."""
    dispatch = dispatch_for(codes)
    if not dispatch.wanted(source):
        return []
    from npu_lint import collector
    return analyse_tree(collector.parse(source, filename), source, target, codes, noqa, third_party=third_party)


def _imported_names(tree: ast.Module) -> list[str]:
    """The names the module's top-level ``from ... import`` statements bind, as written (``.base.BaseMiner``)."""
    names: list[str] = []
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            prefix = "." * node.level + (node.module or "")
            names.extend(f"{prefix}.{alias.name}" if node.module else f"{prefix}{alias.name}"
                         for alias in node.names if alias.name != "*")
        elif isinstance(node, (ast.If, ast.Try)):   # ``try: from .x import y`` / ``if TYPE_CHECKING:``
            statements.extend(node.body)
            statements.extend(node.orelse)
            statements.extend(getattr(node, "finalbody", ()))
            for handler in getattr(node, "handlers", ()):
                statements.extend(handler.body)
    return names


_PROJECT_WORDS: dict[tuple[tuple[type, ...], int], tuple[object, frozenset[str]]] = {}


def calls_project_wrapper(dispatch: Dispatch, project: object, source: str) -> bool:
    """Some rule's trigger words for this project (``project_triggers``: the names of project wrappers of
    torch ops) occur in ``source``: the file must be analysed even if no other trigger word is in it."""
    key = (dispatch.project_rules, id(project))   # the same for every file of a run, whatever its Dispatch
    entry = _PROJECT_WORDS.get(key)
    if entry is None:
        words = frozenset().union(*(rule.project_triggers(project) for rule in dispatch.instances
                                    if hasattr(rule, "project_triggers")))
        _PROJECT_WORDS.clear()   # one project per run: keep only the current one (alive, so ids stay unique)
        entry = _PROJECT_WORDS[key] = (project, words)
    return any(word in source for word in entry[1])


# Fields that hold no child node in any node type (``name`` is a node in 3.12's ``TypeAlias``: not listed), or only
# a leaf no rule looks at and with nothing below (``ctx``: Load/Store/Del; ``op``/``ops``: operators).
_SKIPPED_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "module", "level", "kind", "conversion",
                             "is_async", "type_comment", "simple", "lineno"})
_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}   # node type -> the fields that can hold child nodes, each
# with whether it is a list that may hold something other than a node (:data:`_MIXED_LISTS`)
_MIXED_LISTS = {"keys": frozenset({"Dict"}), "kw_defaults": frozenset({"arguments"}),
                "names": frozenset({"Global", "Nonlocal"}), "kwd_attrs": frozenset({"MatchClass"})}


def _walk(tree: ast.AST, ctx: FileContext, dispatch: Dispatch, observers: Sequence[Rule] = ()) -> None:
    resolver = ctx.resolver
    parents = ctx.parents
    calls = dispatch.calls
    api_calls = dispatch.api_calls
    api_memo = dispatch._api_entries if dispatch._api_filtered else None   # qualname -> entries, made once
    call_memo = dispatch._call_entries if dispatch.gated_calls else None   # call name -> entries, made once
    constants = dispatch.constants   # value type -> the entries for an ast.Constant (None: not gated)
    watched: dict[type, tuple] = {}   # observers run after the rules on each node
    api_watched: tuple = ()
    for observer in observers:
        entry = (observer.code, observer.family, observer)
        for node_type in type(observer).node_types:
            if node_type is ApiRef:
                api_watched += (entry,)
            else:
                watched[node_type] = watched.get(node_type, ()) + (entry,)
    if watched:
        calls = dict(calls)
        for node_type in watched:
            calls.setdefault(node_type, ())
    name_type, attribute_type, load_type, assign_type, class_type, call_type, constant_type = \
        ast.Name, ast.Attribute, ast.Load, ast.Assign, ast.ClassDef, ast.Call, ast.Constant
    scopes, ast_type, fields_of = _SCOPES, ast.AST, _FIELDS
    if resolver.scopes is None or resolver.scopes.module.node is not tree:
        resolver.attach(tree)   # unless the caller attached the scopes the project index build bound
    leave = _Later(resolver.leave_scope)
    roots = resolver.scopes.api_roots() | API_BUILTINS   # the root names that may stand for an API in this file
    if resolver.scopes.star_imports:   # names a star-imported module of the project binds (``nn`` -> ``torch.nn``)
        roots = roots | resolver.star_roots(tree, roots)
    roots = roots | resolver.holder_roots()   # ``TabR.faiss = faiss``: a module kept on a class
    aliases: set[int] = set()
    plans: dict[type, tuple] = {}   # node type -> (its rule entries or None, its child fields): one look-up per node
    stack: list[object] = [tree]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        node_type = type(node)
        if node_type is _Later:
            node.action(node.node) if node.node is not None else node.action()
            continue
        if node_type is assign_type:
            if resolver.alias_target(node) is not None:
                aliases.add(id(node.value))   # ``cuda = torch.cuda``: the uses are the references
        elif node_type in scopes:
            resolver.enter_function(node)
            push(leave)
        elif node_type is class_type:
            resolver.enter_class(node)
            push(leave)
        plan = plans.get(node_type)
        if plan is None:
            fields = fields_of.get(node_type)
            if fields is None:   # last field first: the children are pushed so that they pop in source order
                fields = fields_of[node_type] = tuple(
                    (f, f in _MIXED_LISTS and node_type.__name__ in _MIXED_LISTS[f]) for f in reversed(node_type._fields)
                    if f not in _SKIPPED_FIELDS and not (node_type is constant_type and f == "value"))
            plan = plans[node_type] = (calls.get(node_type), fields)
        checks, fields = plan
        if checks is not None:
            if node_type is constant_type and constants is not None:
                checks = constants.get(type(node.value), checks)
            elif node_type is call_type and call_memo is not None:
                func = node.func
                name = resolver.qualname(func)   # the call name: qualified, else torch.Tensor.<attr>
                method = func.attr if type(func) is attribute_type else None
                if name is None and method is not None:
                    name = "torch.Tensor." + method
                checks = call_memo.get((name, method))
                if checks is None:
                    checks = dispatch.call_entries(name, method)
            for code, family, rule in checks:
                ctx._code, ctx._family = code, family
                rule.check(node, ctx)
            if watched:
                for code, family, rule in watched.get(node_type, ()):
                    ctx._code, ctx._family = code, family
                    rule.check(node, ctx)
        if (api_calls or api_watched) and (node_type is attribute_type
                                           or (node_type is name_type and type(node.ctx) is load_type)):
            root = node
            while type(root) is attribute_type:
                root = root.value
            if type(root) is call_type and node is not root and (found := literal_getattr(root)) is not None:
                root = found[0]   # ``getattr(torch, "cuda").synchronize``: the namespace read by a literal name
                while type(root) is attribute_type:
                    root = root.value
            if type(root) is name_type and root.id in roots and type(parents.get(node)) is not attribute_type \
                    and id(node) not in aliases and not _probed(node, parents.get(node), resolver):
                for qualname in resolver.qualnames(node):
                    ref = ApiRef(node, qualname)
                    entries = api_calls if api_memo is None else api_memo.get(qualname)
                    if entries is None:
                        entries = dispatch.api_entries(qualname)
                    for code, family, rule in entries:
                        ctx._code, ctx._family = code, family
                        rule.check(ref, ctx)
                    for code, family, rule in api_watched:
                        ctx._code, ctx._family = code, family
                        rule.check(ref, ctx)
        for field, mixed in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                if mixed:   # ``None`` keys of ``{**d}``, defaults of keyword-only parameters, identifiers
                    for item in reversed(value):
                        if isinstance(item, ast_type):
                            parents[item] = node
                            push(item)
                else:   # the grammar's other lists hold nodes only
                    for item in reversed(value):
                        parents[item] = node
                        push(item)
            elif value is not None and isinstance(value, ast_type):
                parents[value] = node
                push(value)


_PROBES = frozenset({"hasattr", "getattr"})


def _probed(node: ast.AST, parent: Optional[ast.AST], resolver: Resolver) -> bool:
    """``if cudnn is not None:``, ``hasattr(cudnn, "allow_tf32")``, ``getattr(cudnn, "matmul", None)`` for a name
    assigned a namespace (``cudnn = getattr(torch.backends, "cudnn", None)``): the code asks whether the namespace
    exists, or reads a name of it that :func:`literal_getattr` resolves (the uses of what it reads are the
    references), and uses nothing of it. An imported name tested so (``if CUDA_HOME is None:``) is a use."""
    if type(node) is not ast.Name:
        return False
    if type(parent) is ast.Compare:
        probe = all(type(op) in (ast.Is, ast.IsNot) for op in parent.ops) and any(
            type(side) is ast.Constant and side.value is None for side in (parent.left, *parent.comparators))
    else:
        probe = type(parent) is ast.Call and isinstance(parent.func, ast.Name) and parent.func.id in _PROBES \
            and bool(parent.args) and parent.args[0] is node
    if not probe:
        return False
    binding = resolver.binding(node)
    return binding is not None and binding.tag == VALUE
