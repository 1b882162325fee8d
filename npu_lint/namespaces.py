"""Which qualified names are namespaces (modules, classes) rather than values, read from the tables.

``cuda = torch.cuda`` makes ``cuda`` an alias (its uses resolve to ``torch.cuda.*``), while
``home = CUDA_HOME`` or ``sync = torch.cuda.synchronize`` copies a value: the assignment itself is the
reference, and the name is not followed further (each use would otherwise be reported twice).
"""
from __future__ import annotations

from functools import lru_cache

from npu_lint.tables import read_tsv


@lru_cache(maxsize=None)
def namespaces() -> frozenset[str]:
    """Every dotted prefix of an API named in the CUDA table or the newest support table."""
    from npu_lint.support_facts import support_table
    from npu_lint.versions import default_release
    names = [row["api"] for row in read_tsv("cuda_apis.tsv")] + list(support_table(default_release()))
    found = {"torch"}
    for name in names:
        parts = name.split(".")
        found.update(".".join(parts[:end]) for end in range(1, len(parts)))
    return frozenset(found)


def is_namespace(qualname: str) -> bool:
    return qualname in namespaces() or not qualname.startswith("torch")
