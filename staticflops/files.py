"""Reading a file of the project safely: the one place file bytes come from disk.

A pull request controls every file, name and symlink of the checkout, so a read is allowed
only when the path, with every symlink resolved, lies inside one of the allowed roots (the
project root; later also configured environments, read-only), names a regular file (a FIFO
would block forever, ``/dev/zero`` never ends) and is no bigger than the limit, checked with
``fstat`` before a byte is read and again by reading at most ``limit + 1`` bytes (the file may
grow meanwhile).  A refusal is a :class:`RefusedRead`, an ``OSError``, so every caller that
already handled an unreadable file handles it too.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import time
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from staticflops.limits import DEFAULT_LIMITS

CONFIG_NAMES = ("staticflops.yaml", "staticflops.yml")  # besides pyproject.toml with [tool.staticflops]
MAX_CONFIG_BYTES = 1_000_000
_CONFIG_TABLE = re.compile(r"^\s*\[+\s*tool\.staticflops\b", re.MULTILINE)

# The size limit of reads that name none: the analysed file's (`--max-file-bytes`), set for
# the duration of one file's read by ``read_limit`` (readers are plain ``path -> bytes``
# callables, so the limit cannot travel as an argument through them).
_LIMIT: ContextVar[int] = ContextVar("staticflops_read_limit", default=DEFAULT_LIMITS["max_file_bytes"])

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


class RefusedRead(OSError):
    """A read refused before it started; ``reason`` completes "PATH ..." in a message and
    ``kind`` is "outside", "special" or "size"."""

    def __init__(self, path, reason: str, kind: str):
        code = {"outside": errno.EACCES, "special": errno.EINVAL, "size": errno.EFBIG}[kind]
        super().__init__(code, reason, str(path))
        self.reason, self.kind = reason, kind


@contextlib.contextmanager
def read_limit(max_bytes: int):
    """Reads in this block that name no limit allow ``max_bytes``."""
    token = _LIMIT.set(max_bytes)
    try:
        yield
    finally:
        _LIMIT.reset(token)


def resolve_inside(path, roots: Iterable[Path] | None) -> Path:
    """``path`` with every symlink resolved; RefusedRead when ``roots`` is given and it lies
    in none of them.  Nothing is opened, so a missing file passes (its read fails later)."""
    resolved = Path(os.path.realpath(path))
    if roots is not None and not any(resolved.is_relative_to(os.path.realpath(root)) for root in roots):
        raise RefusedRead(path, "is outside the project (symlinks and `..` resolved)", "outside")
    return resolved


def check_regular(path, roots: Iterable[Path] | None = None) -> Path:
    """The resolved path of an existing regular file inside ``roots`` (None: anywhere);
    FileNotFoundError when absent, RefusedRead when outside or not a regular file."""
    if _log is None:
        return _check_regular(path, roots)
    try:
        resolved = _check_regular(path, roots)
    except OSError as error:
        _log.note(path, roots, None, failure(error))
        raise
    _log.note(path, roots, None, "file")
    return resolved


def _check_regular(path, roots) -> Path:
    resolved = resolve_inside(path, roots)
    _refuse_special(path, os.stat(resolved).st_mode)
    return resolved


def read_file(path, roots: Iterable[Path] | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, which must resolve inside one of ``roots``
    (None: a path the user named, read wherever it is) and hold at most ``max_bytes``
    (None: the current ``read_limit``).  Raises OSError: RefusedRead or the system's own."""
    limit = _LIMIT.get() if max_bytes is None else max_bytes
    if _log is None:
        return _read_file(path, roots, limit)
    before = stamp(path)
    try:
        data = _read_file(path, roots, limit)
    except OSError as error:
        _log.note(path, roots, limit, failure(error))
        raise
    _log.note(path, roots, limit, hashlib.sha256(data).hexdigest(), before if before == stamp(path) else None)
    return data


def _read_file(path, roots, limit: int) -> bytes:
    resolved = _check_regular(path, roots)
    # O_NOFOLLOW: if the checked file was swapped for a symlink since, the open fails; O_NONBLOCK:
    # if it was swapped for a FIFO, the open returns at once and fstat below refuses it.
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(resolved, flags)
    try:
        status = os.fstat(descriptor)
        _refuse_special(path, status.st_mode)
        if status.st_size > limit:
            raise _too_big(path, status.st_size, limit)
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(descriptor)
    if total > limit:
        raise _too_big(path, total, limit, grown=True)
    return b"".join(chunks)


def _refuse_special(path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise RefusedRead(path, f"is {kind}, not a regular file", "special")


def _too_big(path, size: int, limit: int, grown: bool = False) -> RefusedRead:
    if grown:
        return RefusedRead(path, f"grew past the {limit:,}-byte limit while it was read", "size")
    return RefusedRead(path, f"is {size:,} bytes, over the {limit:,}-byte limit", "size")


# --- what an analysis found on disk (the results cache of ``analyze FILE``: answers.py) --------

class ReadLog:
    """Every read and regular-file check made while ``logging_reads`` is active, with its
    outcome: the SHA-256 of the bytes read, ``"file"`` for a check that passed, or why it
    failed (``failure``).  Keyed by the path as named and the roots as given, so that doing
    the same call again (``outcome_now``) — symlinks followed afresh — says whether the
    analysis would see the same thing.  ``paths`` is filled by the analysis' own questions
    about paths (``os.path.exists`` in the analysed code: absolute path -> (real path, kind));
    ``unrecordable`` by a question this log cannot replay (a ``glob``)."""

    def __init__(self):
        self.outcomes: dict = {}  # (path, roots or None, limit or None: a check) -> outcome
        self.paths: dict = {}
        self.unrecordable = False
        self.stamps: dict = {}  # path -> its stamp while it was read, when settled

    def note(self, path, roots, limit, outcome: str, unchanged: list | None = None) -> None:
        shown = None if roots is None else tuple(str(root) for root in roots)
        self.outcomes[(str(path), shown, limit)] = outcome
        if settled(unchanged):
            self.stamps[str(path)] = unchanged  # a later lookup may trust an equal stamp (``stamp``)


_log: ReadLog | None = None  # process-wide, as libraries.recording_reads: an analysis runs in a thread


@contextlib.contextmanager
def logging_reads():
    """Log the reads and checks made within the block (one analysis at a time)."""
    global _log
    _log = log = ReadLog()
    try:
        yield log
    finally:
        _log = None


def note_path_kind(path, kind) -> None:
    """The analysed code learnt ``path``'s kind (``"file"``, ``"dir"``, None or a refusal)."""
    if _log is not None:
        _log.paths[os.path.abspath(path)] = [os.path.realpath(path), kind]


def exists(path) -> bool:
    """``os.path.exists``, its answer noted (as the path's kind) while reads are logged."""
    found = kind(path)
    note_path_kind(path, found)
    return found is not None


def kind(path) -> str | None:
    """``"file"``, ``"dir"``, ``"other"`` (a FIFO, a device...) or None (absent), links followed."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


def note_unrecordable() -> None:
    """The analysis asked something a ReadLog cannot replay: its result must not be stored."""
    if _log is not None:
        _log.unrecordable = True


# A stamp older than this (ctime before the moment it was taken) cannot be matched by a later
# write: file timestamps tick coarsely (a jiffy), so a younger one could repeat after a rewrite.
SETTLED_NS = 2_000_000_000


def stamp(path) -> list | None:
    """[inode, size, mtime_ns, ctime_ns] of a file (symlinks followed), None when absent.  The
    kernel sets ctime to the current time on every write, and no program can set it back, so an
    equal stamp means the bytes were not rewritten since, for a stamp taken SETTLED_NS after
    the file's last change (see ``settled``)."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return [status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns]


def settled(taken: list | None) -> bool:
    return taken is not None and time.time_ns() - taken[3] > SETTLED_NS


def failure(error: OSError) -> str:
    """A failed read or check as an outcome: a refusal with its reason (it is printed), else
    the system's error number (a missing file, a folder on the way that is a file...)."""
    if isinstance(error, RefusedRead):
        return f"refused {error.kind}: {error.reason}"
    return f"error {error.errno}"


def outcome_now(path: str, roots, limit: int | None) -> str:
    """The outcome the logged call would have now."""
    confined = None if roots is None else tuple(Path(root) for root in roots)
    try:
        if limit is None:
            _check_regular(path, confined)
            return "file"
        return hashlib.sha256(_read_file(path, confined, limit)).hexdigest()
    except OSError as error:
        return failure(error)
    except ValueError:  # a NUL in the path: as when it was logged, where it raised the same
        return "invalid"


@dataclass(frozen=True)
class ConfinedReader:
    """A ``path -> bytes`` reader for the analysis (see frontend/source.py) whose reads must
    stay inside ``roots``; paths are as the user gave them (relative to the working folder)."""

    roots: tuple

    def __call__(self, path: str) -> bytes:
        return read_file(path, self.roots)


def config_in(directory: Path) -> Path | None:
    """The staticflops config ``directory`` holds, or None: ``staticflops.yaml``, or a
    ``pyproject.toml`` with a ``[tool.staticflops]`` table (read, confined and bounded)."""
    for name in CONFIG_NAMES:  # present even if unreadable: loading it then says why
        if os.path.lexists(directory / name) and not (directory / name).is_dir():
            return directory / name
    pyproject = directory / "pyproject.toml"
    if os.path.lexists(pyproject):
        raw = read_file(pyproject, (directory,), MAX_CONFIG_BYTES)
        if _CONFIG_TABLE.search(raw.decode("utf-8", "replace")):
            return pyproject
    return None


def project_root(file) -> Path:
    """The folder a file's reads are confined to when no config names one (``analyze`` of a
    file or folder): where ``check`` would find its config (the nearest folder at or above the
    file holding one), else the git work tree holding the file, else the folder above its
    outermost package.  The file's path is taken as named, before resolving a symlink, so a
    link to elsewhere does not move the root there.  Raises RefusedRead for a refused
    ``pyproject.toml`` on the way (as ``check`` would)."""
    folder = Path(os.path.abspath(file)).parent
    ancestors = (folder, *folder.parents)
    for directory in ancestors:
        if config_in(directory) is not None:
            return directory
    for directory in ancestors:
        if os.path.lexists(directory / ".git"):
            return directory
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder
