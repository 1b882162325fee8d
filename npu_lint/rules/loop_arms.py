"""Arms of a test inside a loop that a run takes every iteration: the test reads nothing the loop changes (no name
or attribute it assigns, no random draw). NPU408 reads growth in such an arm as growth; which loops carry a value
from one iteration to the next (`carried`). Nothing here is a rule."""
from __future__ import annotations

import ast

from npu_lint.analysis.nodes import walk


def other_arms(loop: ast.AST, statement: ast.AST) -> set[int]:
    """The nodes in the other arm of each ``if`` around ``statement`` inside the loop whose test reads nothing the
    loop assigns (``if incremental: x = cat([x, y]) else: x = y``: a run takes the same arm every iteration)."""
    assigned = {n.id for n in walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    stored = {ast.unparse(n) for n in walk(loop) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    found: set[int] = set()
    for node in walk(loop):
        if not isinstance(node, ast.If) or {n.id for n in walk(node.test) if isinstance(n, ast.Name)} & assigned \
                or any(_drawing(n) or (isinstance(n, ast.Attribute) and ast.unparse(n) in stored)
                       for n in walk(node.test)):
            continue   # a draw (``random.random() < p``) or a value the loop changes: the arm may change
        for arm, other in ((node.body, node.orelse), (node.orelse, node.body)):
            if any(statement is n for s in arm for n in walk(s)):
                found.update(id(n) for s in other for n in walk(s))
    return found


def _drawing(node: ast.AST) -> bool:
    """A call that may answer differently each time: a random draw, or a function of unknown kind called by a
    bare name (``kwargs.get("x")`` and ``self.cfg.flag()`` read what the loop does not change)."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return True
    text = ast.unparse(node.func)
    return text.startswith(("random.", "np.random.", "numpy.random.", "torch.rand", "torch.bernoulli",
                            "torch.multinomial"))


def steps(iterated: ast.AST) -> bool:
    """``range(...)``, ``count()``, ``trange(...)``, ``tqdm(range(...))``: a loop over steps."""
    if not isinstance(iterated, ast.Call):
        return False
    func = iterated.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name.lower().rsplit("_", 1)[-1] in ("range", "count", "trange", "tqdm")


def carried(loop: ast.AST, statement: ast.stmt, text: str) -> bool:
    """``statement`` is the only assignment to ``text`` in the loop (a ``while`` loop or a ``for`` loop over steps
    that does not bind it): the value grows from one iteration to the next (not ``x = f(x)`` after it, nor a fresh
    ``x`` each iteration); assignments in the other arm of a test the loop does not change are left out."""
    if isinstance(loop, ast.For):
        if not steps(loop.iter):
            return False    # a loop over a list of items (conditions, layers): the same shapes every call
        if text in {ast.unparse(n) for n in walk(loop.target)}:
            return False
    exclusive = other_arms(loop, statement)
    for child in walk(loop):
        if child is statement or id(child) in exclusive:
            continue
        if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            if any(ast.unparse(n) == text for target in targets for n in walk(target)):
                return False
    return True
