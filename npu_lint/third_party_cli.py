"""Command-line glue for the third-party features: ``--package NAME`` and the ``-api`` file check."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence


def analyse_input(args: argparse.Namespace, usage_error: type[Exception]) -> str:
    """The folder ``analyse`` reads: ``-i``, or the installed package of ``--package`` (``-m third_party``)."""
    package = getattr(args, "package", None)
    if package and args.input:
        raise usage_error("give either -i or --package, not both")
    if package:
        if args.mode != "third_party":
            raise usage_error("--package only applies to -m third_party")
        from npu_lint.project import NoPackage, find_package
        try:
            found = find_package(package)
        except NoPackage as error:
            raise usage_error(str(error)) from None
        if not found.is_dir():
            raise usage_error(f"package {package} is a single module ({found}): pass it with -i")
        return str(found)
    if not args.input:
        raise usage_error("the following arguments are required: -i/--input (or --package NAME)")
    return args.input


def check_api_files(paths: Sequence[str], usage_error: type[Exception]) -> None:
    """A malformed ``-api`` file is an argument error: one line naming the file and what is wrong."""
    from npu_lint.third_party import ApiFileError, load
    try:
        load(Path(path) for path in paths)
    except ApiFileError as error:
        raise usage_error(f"-api file {error}") from None
