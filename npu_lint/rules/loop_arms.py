"""Arms of a test inside a loop that a run takes every iteration: the test reads nothing the loop changes (no name
or attribute it assigns, no random draw). NPU408 reads growth in such an arm as growth. Nothing here is a rule."""
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
