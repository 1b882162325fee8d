"""Qualified names: re-exported paths mapped to the public name users write, and the names a target binds."""
from __future__ import annotations

import ast

# Re-exports: the public name a user reaches through another module path.
CANONICAL = {
    "torch.nn.parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
    "torch.distributed.distributed_c10d": "torch.distributed",
    "torch.amp.autocast_mode.autocast": "torch.amp.autocast",
    "torch.cuda.amp.autocast_mode.autocast": "torch.cuda.amp.autocast",
    "torch.cuda.amp.grad_scaler.GradScaler": "torch.cuda.amp.GradScaler",
    "torch.amp.grad_scaler.GradScaler": "torch.amp.GradScaler",
    "torch.utils.data.dataloader.DataLoader": "torch.utils.data.DataLoader",
    "torch._C._nn": "torch.nn.functional",
}

# Instances torch exposes as module attributes: their methods are the class's (``torch.default_generator.manual_seed``
# is ``torch.Generator.manual_seed``).
INSTANCES = {"torch.default_generator": "torch.Generator"}


def rooted(name: str, roots: tuple[str, ...]) -> bool:
    """``name`` is one of ``roots`` or inside one: ``torch.nn`` is under ``torch``, ``torchvision.ops`` is not."""
    return name.split(".", 1)[0] in roots


_CANONICAL_MEMO: dict[str, str] = {}   # name -> canonical(name): the same names recur in every file (bounded)


def canonical(name: str) -> str:
    """Memoised :func:`_canonical` (a pure function of the name; the memo is emptied past 65,536 names)."""
    found = _CANONICAL_MEMO.get(name)
    if found is None:
        if len(_CANONICAL_MEMO) >= 65536:
            _CANONICAL_MEMO.clear()
        found = _CANONICAL_MEMO[name] = _canonical(name)
    return found


def _canonical(name: str) -> str:
    """Map a re-exported path to its public name (``torch.nn.parallel.DataParallel`` -> ``torch.nn.DataParallel``).

    ``torch.nn`` re-exports every module class of ``torch.nn.modules`` and ``torch.optim`` every optimizer
    of its submodules: ``torch.nn.modules.normalization.GroupNorm`` is ``torch.nn.GroupNorm``,
    ``torch.optim.optimizer.Optimizer`` is ``torch.optim.Optimizer``."""
    if name.startswith(("torch.nn.modules.", "torch.optim.")):
        parts = name.split(".")
        cls = next((i for i, part in enumerate(parts) if part[:1].isupper()), None)
        if cls is not None and cls > 2 and not (parts[1] == "optim" and parts[2] == "lr_scheduler"):
            return ".".join(["torch", parts[1], *parts[cls:]])
    head, rest = name, ""
    while True:
        public = CANONICAL.get(head) or (INSTANCES.get(head) if rest else None)
        if public is not None:
            return public + rest
        if "." not in head:
            return name
        head, _, last = head.rpartition(".")
        rest = "." + last + rest


def names_in(target: ast.AST) -> list[str]:
    """The names an assignment or ``for`` target binds (``a, (b, *c)`` -> a, b, c)."""
    found: list[str] = []
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            found.append(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(reversed(node.elts))
        elif isinstance(node, ast.Starred):
            stack.append(node.value)
    return found
