"""Custom operators a project's C++/CUDA sources export to Python (the report's ``cuda_op_list.csv``).

Like the vendor tool: ``m.def("name", ...)`` and ``py::class_<...>(m, "Name")`` inside
``PYBIND11_MODULE(...)``, and ``m.def`` / ``m.impl`` / ``m.class_`` inside ``TORCH_LIBRARY``,
``TORCH_LIBRARY_FRAGMENT`` and ``TORCH_LIBRARY_IMPL`` blocks. Sources are read as text, never built.
"""
from __future__ import annotations

import re

SUFFIXES = (".cpp", ".cc", ".cxx", ".cu", ".cuh")
_BLOCK = re.compile(r"\b(PYBIND11_MODULE|TORCH_LIBRARY(?:_FRAGMENT|_IMPL)?)\s*\(\s*(\w+)\s*,\s*(\w+)(?:\s*,\s*(\w+))?")
_PYBIND = r'\b{m}\s*\.\s*def\s*\(\s*"([A-Za-z_]\w*)"|py::class_\s*<[^>]*>\s*\(\s*{m}\s*,\s*"([A-Za-z_]\w*)"'
_TORCH = r'\b{m}\s*\.\s*(?:def|impl|class_)\s*\(\s*(?:TORCH_SELECTIVE_SCHEMA\s*\()?\s*"([A-Za-z_]\w*)'


def exported_ops(text: str) -> list[str]:
    """Operator names defined in one C++/CUDA source, in order, without duplicates."""
    found: list[str] = []
    for _, name in registered_ops(text):
        if name not in found:
            found.append(name)
    return found


def registered_ops(text: str) -> list[tuple[str, str]]:
    """(namespace, operator) pairs in source order: the namespace of a ``TORCH_LIBRARY*`` block (reached from
    Python as ``torch.ops.<namespace>.<operator>``), "" for ``PYBIND11_MODULE``."""
    found: list[tuple[str, str]] = []
    for match in _BLOCK.finditer(text):
        kind, first, second, third = match.groups()
        var = third if kind == "TORCH_LIBRARY_IMPL" and third else second
        namespace = "" if kind == "PYBIND11_MODULE" else first
        body = _block_body(text, match.end())
        pattern = (_PYBIND if kind == "PYBIND11_MODULE" else _TORCH).format(m=re.escape(var))
        for op in re.finditer(pattern, body):
            pair = (namespace, next(group for group in op.groups() if group))
            if pair not in found:
                found.append(pair)
    return found


def operator_names(pairs: list[tuple[str, str]]) -> frozenset[str]:
    """What calls into the project's operators look like from Python: the bare names (``_C.nms``) and, for
    ``TORCH_LIBRARY`` namespaces, ``torch.ops.<namespace>`` and ``torch.ops.<namespace>.<operator>``."""
    names = {op for _, op in pairs}
    names.update(f"torch.ops.{ns}" for ns, _ in pairs if ns)
    names.update(f"torch.ops.{ns}.{op}" for ns, op in pairs if ns)
    return frozenset(names)


def _block_body(text: str, start: int) -> str:
    """The brace-balanced body following a macro header."""
    open_brace = text.find("{", start)
    if open_brace < 0:
        return ""
    depth = 0
    for index in range(open_brace, len(text)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[open_brace + 1:index]
    return text[open_brace + 1:]
