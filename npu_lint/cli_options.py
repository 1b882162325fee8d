"""Command-line values shared by the ``npu-lint`` subcommands: the usage error and selector/glob lists."""
from __future__ import annotations

from typing import Optional

from npu_lint import config as configuration


class UsageError(Exception):
    """Bad input: printed as one line, exit status 2."""


def split_codes(text: Optional[str]) -> Optional[list[str]]:
    """A comma-separated selector list from the command line (``None`` when the option is absent)."""
    if text is None:
        return None
    try:
        return [configuration.selector(c) for c in text.split(",") if c.strip()]
    except ValueError as error:
        raise UsageError(str(error)) from None


def split_globs(text: Optional[str]) -> Optional[tuple[str, ...]]:
    return None if text is None else tuple(g.strip() for g in text.split(",") if g.strip())
