"""``third-party = ["timm", ...]`` in ``[tool.npu-lint]``: the installed packages whose cached third_party results
NPU103 uses (see :mod:`npu_lint.third_party_cache`)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Optional


def parse_packages(value: Any, where: Path, error: type[Exception]) -> tuple[str, ...]:
    valid = isinstance(value, list) and all(
        isinstance(item, str) and item and all(part.isidentifier() for part in item.split(".")) for item in value)
    if not valid:
        raise error(f"{where}: [tool.npu-lint] third-party must be a list of package names such as [\"timm\"]")
    return tuple(value)


@lru_cache(maxsize=64)
def package_api_files(packages: tuple[str, ...], torch_version: Optional[str], build: bool = True) -> tuple[Path, ...]:
    """The cached results file of each package (built on first use when ``build``); a package that is not
    installed is skipped with one warning line on stderr."""
    if not packages:
        return ()
    import sys
    from npu_lint.project import NoPackage
    from npu_lint.third_party_cache import results_for
    from npu_lint.versions import default_release, parse_target
    release = parse_target(torch_version or default_release()).release
    found = []
    for package in packages:
        try:
            path = results_for(package, release, build=build)
        except NoPackage as error:
            print(f"npu-lint: warning: third-party: {error}", file=sys.stderr)
            continue
        if path is not None:
            found.append(path)
    return tuple(found)
