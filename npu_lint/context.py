"""Per-file state shared by the rules during the single walk."""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

from npu_lint.analysis.dispatch import handled_on_npu
from npu_lint.analysis.nodes import locate, parents_of
from npu_lint.analysis.setup_time import asserts_host
from npu_lint.finding import Finding
from npu_lint.resolver import Resolver
from npu_lint.versions import Target

if TYPE_CHECKING:
    from npu_lint.analysis.project import ProjectView
    from npu_lint.rules import Rule

# A file "uses torch" when it imports torch or a library built on it.
TORCH_LIBRARIES = (
    "torch", "torchvision", "torchaudio", "torchtext", "torch_npu", "timm", "mmcv", "mmdet", "mmengine",
    "mmseg", "mmpretrain", "mmocr", "transformers", "accelerate", "deepspeed", "lightning", "pytorch_lightning",
    "apex", "fairseq", "detectron2", "peft", "trl", "diffusers", "ultralytics", "megatron", "torchmetrics",
    "kornia", "xformers", "flash_attn", "bitsandbytes", "fairscale", "colossalai", "torchrec",
)
_TORCH_IMPORT = re.compile(  # ``import torch``, ``from torch.nn import x``, ``import os, torch``
    r"^[ \t]*(?:from|import)[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*(?:%s)\b" % "|".join(TORCH_LIBRARIES), re.MULTILINE)


# ``torch = try_import("torch")``, ``torch = importlib.import_module('torch')``: a module bound by an import helper
_TORCH_IMPORTED = re.compile(
    r"^[ \t]*\w+[ \t]*=[ \t]*[\w.]+\([ \t]*['\"](?:%s)(?:\.\w+)*['\"][ \t]*\)" % "|".join(TORCH_LIBRARIES), re.MULTILINE)
_STAR_IMPORT = re.compile(r"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+\*", re.MULTILINE)
_TORCH_REFERENCE = re.compile(r"^[^#\n]*\btorch\.\w", re.MULTILINE)   # before any comment on its line


def uses_torch(source: str) -> bool:
    """The file imports torch (or a library built on it), or gets ``torch`` through a star import and uses it
    (fastai's ``from .data.all import *`` then ``torch.device('cuda', i)``)."""
    return _TORCH_IMPORT.search(source) is not None or _TORCH_IMPORTED.search(source) is not None or (
        _STAR_IMPORT.search(source) is not None and _TORCH_REFERENCE.search(source) is not None)


T = TypeVar("T")
_MISSING = object()


class FileContext:
    """What a rule may ask while checking one file, and where it reports."""

    def __init__(self, source: str, target: Target) -> None:
        self.source = source
        self.target = target
        self.uses_torch = uses_torch(source)
        self.resolver = Resolver()
        self.resolver.source = source
        self.parents: dict[ast.AST, ast.AST] = {}   # child node -> parent node (keyed by the node: see core._walk)
        self.findings: list[Finding] = []
        self.noqa_spans: dict[Finding, tuple[int, int]] = {}
        self.repeats: list[tuple[Finding, tuple[int, int], frozenset[str], str]] = []   # see report_repeat
        self.custom_ops: frozenset[str] = frozenset()   # operators the project's C++/CUDA code exports
        self.third_party: frozenset[str] = frozenset()  # third-party APIs marked unsupported (-api / api-files)
        self.collected: list[tuple[ast.AST, str, str]] = []   # (node, api, status) gathered by observers
        self.scratch: dict[str, Any] = {}   # facts a rule keeps between nodes of one file (names bound so far)
        self.project: Optional["ProjectView"] = None   # the project index, when the front end built or found one
        self.module = ""                               # this file's module name in that index
        self.path: Optional[str] = None                # the file on disk, where the front end knows it (configs'
                                                       # ``_base_`` files are read beside it)
        self._mentions: dict[str, bool] = {}
        self._code: str = ""
        self._family: str = ""

    def close(self) -> None:
        """Free the file's model once its findings are out: the model's scopes and the rules' per-file facts hold
        reference cycles (some through this context: a fact that keeps ``ctx``), freed now by reference counts
        instead of waiting for the collector's full pass (which scanned them first)."""
        self.resolver.close()
        self.scratch.clear()

    def per_node(self, key: str, node: ast.AST, build: Callable[[ast.AST], T]) -> T:
        """``build(node)``, computed once per file for each ``key`` and node: the index of a function or a loop
        that a rule asks at every call inside it (asked per call, a walk of the function each time is quadratic)."""
        memo = self.scratch.setdefault(key, {})
        found = memo.get(node, _MISSING)   # keyed by the node itself (no ``id`` int per entry)
        if found is _MISSING:
            found = memo[node] = build(node)
        return found   # type: ignore[no-any-return]

    def use_project(self, project: Optional["ProjectView"], relative: str) -> None:
        """Let the model and the rules ask ``project`` about names this file imports from the project."""
        if project is None:
            return
        self.project, self.module = project, project.module_of(relative)
        self.resolver.project, self.resolver.module_name = project, self.module
        self.custom_ops = self.custom_ops or project.custom_ops

    def mentions(self, word: str) -> bool:
        """``word`` occurs in the file's source (searched once per file, whichever rule asks)."""
        found = self._mentions.get(word)
        if found is None:
            found = self._mentions[word] = word in self.source
        return found

    def run(self, rule: "Rule", node: object) -> None:
        self._code, self._family = rule.code, rule.family
        rule.check(node, self)

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self.parents.get(node)

    def in_annotation(self, node: ast.AST) -> bool:
        """``node`` is (in) a type annotation (``x: Tensor``, ``-> List[Tensor]``, ``y: nn.DataParallel = m``):
        it names a type, it is no use of the API."""
        child, parent = node, self.parent(node)
        while isinstance(parent, (ast.Subscript, ast.Tuple, ast.List, ast.BinOp, ast.Attribute)):
            child, parent = parent, self.parent(parent)
        if isinstance(parent, ast.arg):
            return parent.annotation is child
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return parent.returns is child
        return isinstance(parent, ast.AnnAssign) and parent.annotation is child

    def enclosing(self, node: ast.AST, types: tuple[type, ...]) -> Optional[ast.AST]:
        """The nearest ancestor of ``node`` of one of ``types`` (a function, a class), else None."""
        get = self.parents.get
        parent = get(node)
        while parent is not None and not isinstance(parent, types):
            parent = get(parent)
        return parent

    def enclosing_any(self, node: ast.AST, types: tuple[type, ...]) -> Optional[ast.AST]:
        """As :meth:`enclosing`, for a node the walk may not have reached yet (an arm of the ``if`` being judged)."""
        parent = self.parents.get(node) or self._later_parent(node)
        while parent is not None and not isinstance(parent, types):
            parent = self.parents.get(parent) or self._later_parent(parent)
        return parent

    def call_of(self, node: ast.AST) -> Optional[ast.Call]:
        """The call whose callee is ``node`` (``torch.matmul`` in ``torch.matmul(a, b)``), else None."""
        parent = self.parents.get(node)
        return parent if isinstance(parent, ast.Call) and parent.func is node else None

    def statement_of(self, node: ast.AST) -> Optional[ast.stmt]:
        """The statement holding ``node``, walked or not yet (a read in a function defined further down the file,
        which a finding at a call above names: its parents are not recorded yet)."""
        start = node
        while node is not None and not isinstance(node, ast.stmt):
            node = self.parents.get(node)
        if node is None and start is not None:
            node = start
            while node is not None and not isinstance(node, ast.stmt):
                node = self.parents.get(node) or self._later_parent(node)
        return node

    def parent_anywhere(self, node: ast.AST) -> Optional[ast.AST]:
        """``node``'s parent, walked or not yet (a statement further down the loop being checked)."""
        return self.parents.get(node) or self._later_parent(node)

    def _later_parent(self, node: ast.AST) -> Optional[ast.AST]:
        """``node``'s parent in the whole module, for a node the walk has not reached yet. Found by a descent that
        follows positions (:func:`~npu_lint.analysis.nodes.locate`: the nodes passed on the way get their parents),
        kept; a node the descent does not meet makes the whole module's map, once (as every such question did)."""
        found = self.scratch.get("later_parents")
        if found is None:
            found = self.scratch["later_parents"] = {}
        parent = found.get(id(node))
        if parent is not None or self.scratch.get("later_parents_whole"):
            return parent
        scopes = self.resolver.scopes
        tree = scopes.module.node if scopes is not None else None
        if tree is None or node is tree:
            return None
        inner = self.resolver.current.node   # the scope being walked (the model is attached): looked in first
        if (inner is not None and inner is not tree and inner in self.parents and locate(inner, node, found)) \
                or locate(tree, node, found):
            return found[id(node)]
        self.scratch["later_parents_whole"] = True
        found.update(parents_of(tree))
        return found.get(id(node))

    def on_error_path(self, node: ast.AST) -> bool:
        """``node`` runs only on the way to a ``raise``: it sits (within its function) in an ``if`` arm that ends
        in one (``if bad.any(): i = bad.nonzero()[0]; raise ValueError(i)``): once, for the message."""
        statement = self.statement_of(node)
        while statement is not None and not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                   ast.ClassDef, ast.Lambda)):
            parent = self.parents.get(statement)
            if isinstance(parent, ast.If) and statement is not parent.test:
                arm = parent.body if any(s is statement for s in parent.body) else parent.orelse
                if arm and isinstance(arm[-1], ast.Raise):
                    return True
            statement = parent
        return False

    def report(self, node: ast.AST, message: str, api: str = "",
               at: Optional[tuple[int, int]] = None) -> Optional[Finding]:
        """Record a finding for the rule being run, at ``node``'s start (or at ``at``, a line and column inside
        ``node``: the method name of a chained call); return it (None when not recorded)."""
        if self._family == "cuda" and handled_on_npu(node, self.parent, self.scratch.setdefault("npu_arms", {})):
            return None   # ``if cuda: ... elif npu: ...``: the code already has its NPU branch
        if self._family == "dynamic-shape" and self._on_host(node):
            return None   # in a function that asserts its tensors are on the CPU: no shape of it reaches the NPU
        line, col = at or (getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
        finding = Finding(code=self._code, message=message, line=line, col=col,
                          end_line=max(getattr(node, "end_lineno", None) or line, line), api=api, family=self._family)
        self.findings.append(finding)
        self.noqa_spans[finding] = self._statement_span(node, line)
        return finding

    def _on_host(self, node: ast.AST) -> bool:
        """``node`` is in a function (or a function nested in one) that asserts its tensors are on the CPU
        (``analysis.setup_time.asserts_host``): host work, whatever shape it makes."""
        memo = self.scratch.setdefault("asserts_host", {})
        function = self.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        while function is not None:
            found = memo.get(id(function))
            if found is None:
                found = memo[id(function)] = asserts_host(function)
            if found:
                return True
            function = self.enclosing(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        return False

    def report_repeat(self, node: ast.AST, message: str, api: str, site: Optional[ast.AST],
                      codes: frozenset[str], naming: str = "") -> Optional[Finding]:
        """Report at a call of one of the file's helpers what the op or selection at ``site`` (inside the helper,
        in this file) makes: kept only if no finding of ``codes`` stands at ``site`` once the file is walked
        (``drop_repeats``). Where the site is reported, a call repeats it: one data-dependent shape, one finding
        (a reviewer reads the helper once, not once per caller). ``naming``: only a finding at the site whose message
        holds it (``line 213``: the same read the call passes) counts."""
        finding = self.report(node, message, api)
        if finding is not None and site is not None:
            first = getattr(site, "lineno", 0)
            self.repeats.append((finding, (first, max(getattr(site, "end_lineno", None) or first, first)), codes,
                                 naming))
        return finding

    def drop_repeats(self) -> None:
        """Drop the findings ``report_repeat`` made whose site got a finding of its own (any rule of ``codes``)."""
        if not self.repeats:
            return
        placed: dict[tuple[str, int], list[str]] = {}
        for finding in self.findings:
            placed.setdefault((finding.code, finding.line), []).append(finding.message)
        dropped = {id(finding) for finding, (first, last), codes, naming in self.repeats
                   if any(naming in message for code in codes for line in range(first, last + 1)
                          for message in placed.get((code, line), ()))}
        if dropped:
            self.findings = [finding for finding in self.findings if id(finding) not in dropped]
            for finding, _, _, _ in self.repeats:
                if id(finding) in dropped:
                    self.noqa_spans.pop(finding, None)
        self.repeats = []

    def amend(self, finding: Finding, message: str) -> Finding:
        """Replace the message of a finding this file already holds (a finding that names one more line it
        covers, e.g. NPU405's batch maximum and every line it sizes); its place and noqa span stay."""
        amended = replace(finding, message=message)
        for index in range(len(self.findings) - 1, -1, -1):
            if self.findings[index] is finding:
                self.findings[index] = amended
                self.noqa_spans[amended] = self.noqa_spans.pop(finding, (finding.line, finding.end_line))
                break
        return amended

    def relocate(self, finding: Finding, node: ast.AST, message: str) -> Finding:
        """Move a finding this file already holds to ``node``, with a new message (NPU405: a batch maximum first
        reported at the one tensor it sized, moved to the maximum once it sizes a second); its noqa span follows."""
        line = getattr(node, "lineno", 1)
        moved = replace(finding, message=message, line=line, col=getattr(node, "col_offset", 0),
                        end_line=max(getattr(node, "end_lineno", None) or line, line))
        for index in range(len(self.findings) - 1, -1, -1):
            if self.findings[index] is finding:
                self.findings[index] = moved
                self.noqa_spans.pop(finding, None)
                self.noqa_spans[moved] = self._statement_span(node, line)
                break
        return moved

    def _statement_span(self, node: ast.AST, line: int) -> tuple[int, int]:
        """The physical lines of the statement (or compound-statement header) holding ``node``."""
        statement = self.statement_of(node)
        if statement is None:
            return line, line
        first, last = statement.lineno, getattr(statement, "end_lineno", None) or statement.lineno
        body = getattr(statement, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(first, body[0].lineno - 1)
        return min(first, line), max(last, line)
