"""The compiled extension modules a project's ``setup.py`` declares (``CUDAExtension(name="pkg._C", ...)``,
``extension("DCNv4.ext", sources)`` with ``extension = CUDAExtension``): the modules its Python imports that no
Python file defines. Read as text and parsed, never run; kept in the facts cache beside the operators of the
C++/CUDA sources, as ``(EXTENSION, module)`` pairs."""
from __future__ import annotations

import ast
import re

EXTENSION = "<extension>"   # the pair's first item: a declared module, not a TORCH_LIBRARY namespace
_MODULE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_CUDA = ("CUDAExtension", ".cu'", '.cu"', "*.cu", "CUDA_HOME")


def declared_extensions(text: str) -> list[tuple[str, str]]:
    """``(EXTENSION, "pkg._C")`` for each extension a setup.py that builds CUDA code declares: the ``name=`` (or
    first positional) string of a call of a name with ``extension`` in it, ``CppExtension`` excepted (a C++-only
    build beside the CUDA one, ``points_cpu``)."""
    if not any(word in text for word in _CUDA):
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if "extension" not in called.lower() or called in ("CppExtension", "BuildExtension") \
                or called.startswith("Build"):
            continue
        value = next((k.value for k in node.keywords if k.arg == "name"), node.args[0] if node.args else None)
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and _MODULE.match(value.value):
            pair = (EXTENSION, value.value)
            if pair not in found:
                found.append(pair)
    return found
