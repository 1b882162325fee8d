"""``[tool.npu-lint]`` in the nearest ``pyproject.toml``, and code selection."""
from __future__ import annotations

import difflib
import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional

from npu_lint.rules import all_rules

CODE_PATTERN = re.compile(r"^NPU[0-9]{0,3}$")
KEYS = ("torch-npu-version", "torch-version", "select", "extend-select", "ignore", "per-file-ignores", "exclude",
        "extend-exclude", "api-files", "third-party")
# Codes that are not rules of the walk: a file that does not parse (flake8's E999, ruff's syntax errors).
SYNTAX_ERROR = "NPU001"
SPECIAL_CODES = {SYNTAX_ERROR: ("syntax-error", "A file that does not parse: nothing else in it can be checked.")}
DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".eggs", "*.egg", "__pycache__",
                   ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "node_modules", "site-packages")
BUILD_OUTPUTS = ("build", "dist")   # default excludes naming build output: a Python package so named is kept


class ConfigError(ValueError):
    """A configuration problem, worded as one line that names the key."""


@dataclass(frozen=True)
class Config:
    """Settings for the files below ``root``."""

    root: Path
    source: Optional[Path] = None
    torch_version: Optional[str] = None
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE   # ``exclude`` replaces the defaults, ``extend-exclude`` adds (ruff)
    extend_exclude: tuple[str, ...] = field(default=())
    api_files: tuple[Path, ...] = ()
    third_party_packages: tuple[str, ...] = ()

    def third_party(self, build: bool = True) -> frozenset[str]:
        """Third-party APIs the ``api-files`` and the ``third-party`` packages mark unsupported (read once);
        ``build``: analyse a ``third-party`` package whose results are not cached yet."""
        from npu_lint.third_party import load
        from npu_lint.third_party_config import package_api_files
        return load(self.api_files + package_api_files(self.third_party_packages, self.torch_version, build))

    def ignored_for(self, path: Path) -> tuple[str, ...]:
        """Codes that per-file-ignores drops for ``path``."""
        if not self.per_file_ignores:
            return ()
        relative = _relative(path, self.root)
        codes: list[str] = []
        for pattern, pattern_codes in self.per_file_ignores:
            if _matches(relative, pattern):
                codes.extend(pattern_codes)
        return tuple(codes)

    def excludes(self, path: Path) -> bool:
        """Whether an exclude pattern matches ``path`` (as :func:`_matches` says); what depends on the folder alone
        is answered once per folder (flake8 asks for every file)."""
        relative = _relative(path, self.root)
        folder, slash, name = relative.rpartition("/")
        patterns = self.exclude + self.extend_exclude
        if not _pattern_excluded(folder + slash, relative, name, patterns):
            return False
        # ``build`` / ``dist`` of the defaults name build output; a folder so named that is a Python package
        # (``mmengine/dist/__init__.py``: the distributed helpers) is source, and stays in unless asked out
        outputs = tuple(p for p in BUILD_OUTPUTS if p in self.exclude and p not in self.extend_exclude)
        rest = tuple(p for p in patterns if p not in outputs)
        if not outputs or _pattern_excluded(folder + slash, relative, name, rest):
            return True
        return not _packages(os.path.abspath(path), relative.count("/") + 1, outputs)


@lru_cache(maxsize=4096)
def _packages(path: str, depth: int, names: tuple[str, ...]) -> bool:
    """Every folder named in ``names`` among ``path`` and its ``depth - 1`` nearest ancestors is a Python package
    (holds ``__init__.py``): a package named ``dist`` is source, a ``dist/`` of wheels or a ``build/lib`` copy is
    not."""
    current = Path(path)
    for _ in range(depth):
        if current.name in names and not (current / "__init__.py").is_file():
            return False
        current = current.parent
    return True


def _pattern_excluded(prefix: str, relative: str, name: str, patterns: tuple[str, ...]) -> bool:
    """:func:`_matches` of any of ``patterns``: the folder's part answered once per folder, the file's part by one
    expression of all the patterns."""
    if _folder_excluded(prefix, patterns):
        return True
    whole, last = _name_patterns(patterns)
    return (whole is not None and whole.match(os.path.normcase(relative)) is not None) or (
        last is not None and last.match(os.path.normcase(name)) is not None)


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root``, lexically: links are never followed (a link loop is just a name)."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return path.as_posix()


def _matches(relative: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    if fnmatch.fnmatch(relative, pattern) or relative.startswith(pattern + "/"):
        return True
    return "/" not in pattern and any(_part_matches(part, pattern) for part in relative.split("/"))


@lru_cache(maxsize=1024)
def _folder_excluded(prefix: str, patterns: tuple[str, ...]) -> bool:
    """The parts of :func:`_matches` that look at the folder only: ``prefix`` is the relative path up to and with
    its last ``/`` (empty for a name without one). ``relative.startswith(pattern + "/")`` holds exactly when the
    prefix starts so (the name holds no ``/``), and the folder parts are all parts but the name."""
    parts = prefix[:-1].split("/") if prefix else ()
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if prefix.startswith(pattern + "/") or ("/" not in pattern and any(_part_matches(p, pattern) for p in parts)):
            return True
    return False


@lru_cache(maxsize=64)
def _name_patterns(patterns: tuple[str, ...]) -> tuple[Optional[re.Pattern], Optional[re.Pattern]]:
    """The parts of :func:`_matches` that depend on the file (the whole path, and its last part), for every pattern at
    once: one expression of all the patterns (``fnmatch``'s own translation, each whole) for the relative path, one
    of those without ``/`` for the file's name (None: none)."""
    def joined(chosen: list[str]) -> Optional[re.Pattern]:
        return re.compile("|".join(f"(?:{fnmatch.translate(os.path.normcase(p))})" for p in chosen)) if chosen else None
    stripped = [pattern.rstrip("/") for pattern in patterns]
    return joined(stripped), joined([pattern for pattern in stripped if "/" not in pattern])


@lru_cache(maxsize=4096)
def _part_matches(part: str, pattern: str) -> bool:
    """One folder or file name against one pattern: the same few names recur in every path of a tree."""
    return fnmatch.fnmatch(part, pattern)


def _toml_load(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11
        import tomli as tomllib
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None


def known_codes() -> tuple[str, ...]:
    """Every code a selector can name: the rules and the special codes (``NPU001``)."""
    return tuple(sorted(set(SPECIAL_CODES) | {rule.code for rule in all_rules()}))


def selector(text: str) -> str:
    """A validated selector: ``ALL``, a code or a prefix of at least one known code (ruff's rule selectors).

    Raises :class:`ValueError` with the nearest known code suggested, worded as ruff words it.
    """
    value = text.strip().upper()
    if value == "ALL":
        return value
    codes = known_codes()
    if CODE_PATTERN.match(value) and any(code.startswith(value) for code in codes):
        return value
    prefixes = sorted({code[:n] for code in codes for n in range(3, 7)})
    digits = value[:3] + value[3:].translate(str.maketrans("OIL", "011"))   # NPU2O5 -> NPU205
    near = [digits] if digits in prefixes else \
        difflib.get_close_matches(value, codes, n=1, cutoff=0.5) or \
        difflib.get_close_matches(value, prefixes, n=1, cutoff=0.5)
    hint = f" (did you mean {near[0]}?)" if near else " (see 'npu-lint rules')"
    raise ValueError(f"unknown rule selector: {text.strip()!r}{hint}")


def _codes(value: Any, key: str, where: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: [tool.npu-lint] {key} must be a list of codes such as [\"NPU2\"]")
    try:
        return tuple(selector(item) for item in value)
    except ValueError as error:
        raise ConfigError(f"{where}: [tool.npu-lint] {key}: {error}") from None


def _globs(table: dict[str, Any], key: str, where: Path) -> Optional[tuple[str, ...]]:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: [tool.npu-lint] {key} must be a list of glob patterns")
    return tuple(value)


def parse_table(table: dict[str, Any], where: Path) -> Config:
    """Validate a ``[tool.npu-lint]`` table."""
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} in [tool.npu-lint] (known: {', '.join(KEYS)})")
    if "torch-npu-version" in table and "torch-version" in table:
        raise ConfigError(f"{where}: [tool.npu-lint] torch-npu-version and torch-version (its old name) both set")
    key = "torch-version" if "torch-version" in table else "torch-npu-version"
    version = table.get(key)
    if version is not None and not isinstance(version, str):
        raise ConfigError(f"{where}: [tool.npu-lint] {key} must be a string such as \"2.6.0\"")
    if version is not None:
        from npu_lint.versions import UnknownVersion, parse_target
        try:
            parse_target(version)
        except UnknownVersion as error:
            raise ConfigError(f"{where}: [tool.npu-lint] {key}: {error}") from None
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: [tool.npu-lint] per-file-ignores must be a table of glob = [codes]")
    exclude = _globs(table, "exclude", where)
    extend_exclude = _globs(table, "extend-exclude", where) or ()
    api_files = table.get("api-files", [])
    if not isinstance(api_files, list) or not all(isinstance(item, str) for item in api_files):
        raise ConfigError(f"{where}: [tool.npu-lint] api-files must be a list of CSV paths")
    api_paths = tuple((where.parent / item).resolve() for item in api_files)
    from npu_lint.third_party import ApiFileError, load
    try:
        load(api_paths)
    except ApiFileError as error:
        raise ConfigError(f"{where}: [tool.npu-lint] api-files: {error}") from None
    from npu_lint.third_party_config import parse_packages
    packages = parse_packages(table.get("third-party", []), where, ConfigError)
    return Config(
        root=where.parent, source=where, torch_version=version, third_party_packages=packages,
        select=_codes(table.get("select", []), "select", where),
        extend_select=_codes(table.get("extend-select", []), "extend-select", where),
        ignore=_codes(table.get("ignore", []), "ignore", where),
        per_file_ignores=tuple((glob, _codes(codes, f"per-file-ignores {glob!r}", where))
                               for glob, codes in sorted(per_file.items())),
        exclude=DEFAULT_EXCLUDE if exclude is None else exclude, extend_exclude=extend_exclude, api_files=api_paths)


def load(path: Path) -> Config:
    """Read the ``[tool.npu-lint]`` table of one pyproject.toml (an empty config when it has none)."""
    return _from_data(_toml_load(path), path)


def _from_data(data: dict[str, Any], path: Path) -> Config:
    table = data.get("tool", {}).get("npu-lint")
    if table is None:
        return Config(root=path.parent, source=path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.npu-lint] must be a table")
    return parse_table(table, path)


@lru_cache(maxsize=1024)
def find(directory: Path) -> Config:
    """The config of the nearest pyproject.toml with a ``[tool.npu-lint]`` table, upwards from ``directory``."""
    directory = directory.resolve()
    for folder in (directory, *directory.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = _toml_read_once(candidate)
            except ConfigError:
                if _mentions_npu_lint(candidate):
                    raise
                continue   # a broken pyproject.toml (a template) that is not ours: look further up
            if "npu-lint" in data.get("tool", {}):
                return _from_data(data, candidate)
    return Config(root=Path.cwd())


def _toml_read_once(path: Path) -> dict[str, Any]:
    """:func:`_toml_load` of a pyproject.toml met by :func:`find`, parsed once while it is unchanged (its size and
    modification time): flake8 asks ``find`` for each folder, and every folder of a project reaches the same file
    (timm+mmdet: 176 parses of timm's pyproject.toml for every 4th file, ~4 % of the plugin's floor). Read only."""
    stat = path.stat()
    return remembered(_PARSED, (str(path), stat.st_mtime_ns, stat.st_size), lambda: _toml_load(path), 64)


_PARSED: dict[tuple[str, int, int], Any] = {}


def remembered(cache: dict, key: Any, compute: Any, cap: int, errors: tuple = (ConfigError,)) -> Any:
    """``compute()`` once per ``key`` in ``cache`` (emptied when it holds ``cap`` entries); an error of ``errors``
    it raised is remembered too and raised again at every later ask, as the first time."""
    found = cache.get(key)
    if found is None:
        try:
            found = compute()
        except errors as error:
            found = error
        if len(cache) >= cap:
            cache.clear()
        cache[key] = found
    if isinstance(found, BaseException):
        raise found
    return found


def _mentions_npu_lint(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return b"npu-lint" in handle.read(1024 * 1024)
    except OSError:
        return False


def enabled_codes(select: Iterable[str] = (), ignore: Iterable[str] = ()) -> frozenset[str]:
    """The rule codes on for a select/ignore pair: the most specific matching entry decides.

    An empty ``select`` means every rule that is on by default; a rule that is off by default is
    on only when a select entry names it at least as precisely as its full code, or with ``ALL``
    (which, as in ruff, is less specific than any prefix). ``NPU001`` (syntax errors) is on unless ignored.
    """
    select, ignore = tuple(select) or ("NPU",), tuple(ignore)
    chosen = set()

    def specificity(entries: tuple[str, ...], code: str) -> int:
        return max((len(e) if e != "ALL" else 1 for e in entries if e == "ALL" or code.startswith(e)), default=0)

    for code, default_enabled in [(rule.code, rule.default_enabled) for rule in all_rules()] + \
            [(code, True) for code in SPECIAL_CODES]:
        selected, ignored = specificity(select, code), specificity(ignore, code)
        if selected and selected > ignored and (default_enabled or selected >= len(code) or "ALL" in select):
            chosen.add(code)
    return frozenset(chosen)
