"""The report folder is built aside and swapped into place, so a killed run never leaves half a report.

``OUTPUT/.<name>_analysis.staging.<pid>.<random>`` is filled first. Then the previous report (if any) is renamed
aside to ``.<name>_analysis.old.<pid>.<random>``, the staging folder renamed to ``<name>_analysis`` and the old
report deleted last (Ctrl-C and SIGTERM are held during the two renames). The next run deletes the folders that
killed runs left behind (their process is gone) and, if a run was killed between the two renames, puts the
previous report back first.
"""
from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import stat
import threading
from pathlib import Path
from typing import Iterator

from npu_lint.report.safety import ReportError

_STAGING, _OLD = "staging", "old"


def _name(final: Path, kind: str) -> Path:
    return final.parent / f".{final.name}.{kind}.{os.getpid()}.{os.urandom(4).hex()}"


def _leftovers(final: Path, kind: str) -> list[Path]:
    """Folders of ``kind`` that runs no longer alive left beside ``final``."""
    prefix = f".{final.name}.{kind}."
    found = []
    try:
        names = sorted(os.listdir(final.parent))
    except OSError:
        return []
    for name in names:
        if not name.startswith(prefix):
            continue
        pid = name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            found.append(final.parent / name)
    return found


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False   # a folder named after us is from an earlier process that had our pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True    # another user's process
    return True


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        with contextlib.suppress(OSError):
            path.unlink()
    else:
        shutil.rmtree(path, ignore_errors=True)


def recover(final: Path) -> None:
    """Put back a report moved aside by a run killed mid-swap, then delete what killed runs left behind."""
    old = _leftovers(final, _OLD)
    if old and not os.path.lexists(final):
        with contextlib.suppress(OSError):
            os.rename(old[-1], final)
    for path in _leftovers(final, _OLD) + _leftovers(final, _STAGING):
        _remove(path)


def check_final(final: Path, force: bool) -> None:
    """One line, before any work: something other than a report folder at ``final``, or a report without --force."""
    try:
        info = os.lstat(final)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise ReportError(f"{final} is a symbolic link: remove it or choose another output")
    if not stat.S_ISDIR(info.st_mode):
        raise ReportError(f"{final} exists and is not a folder: remove it or choose another output")
    if not force:
        raise ReportError(f"{final} already exists (use --force to replace it)")


@contextlib.contextmanager
def staging_folder(final: Path) -> Iterator[Path]:
    """A new private folder beside ``final``; removed on the way out unless it was swapped in."""
    staging = _name(final, _STAGING)
    try:
        os.mkdir(staging, 0o700)
    except OSError as error:
        raise ReportError(f"cannot create a folder in {final.parent}: {error.strerror}") from None
    try:
        yield staging
    finally:
        if os.path.lexists(staging):
            _remove(staging)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    held = {signal.SIGINT, signal.SIGTERM}
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def swap_in(staging: Path, final: Path) -> None:
    """``staging`` becomes ``final``; a previous report is moved aside first and deleted last. A concurrent run
    that swaps its own report in between is moved aside as well (the last run to finish wins)."""
    asides: list[Path] = []
    with _signals_held():
        for attempt in range(10):
            if os.path.lexists(final):
                check_final(final, force=True)   # appeared while we worked: still never follow a link
                aside = _name(final, _OLD)
                try:
                    os.rename(final, aside)
                    asides.append(aside)
                except FileNotFoundError:
                    pass   # another run moved it meanwhile
                except OSError as error:
                    raise ReportError(f"cannot move the previous report {final} aside: {error.strerror}") from None
            try:
                os.rename(staging, final)
                break
            except OSError as error:
                if error.errno in (errno.ENOTEMPTY, errno.EEXIST) and attempt < 9:
                    continue   # another run put its report there between our two renames
                if asides and not os.path.lexists(final):
                    with contextlib.suppress(OSError):
                        os.rename(asides.pop(), final)
                raise ReportError(f"cannot move the report into {final}: {error.strerror}") from None
    for aside in asides:
        _remove(aside)


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C: exit status 130."""


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` (a KeyboardInterrupt) while the report is built, in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
