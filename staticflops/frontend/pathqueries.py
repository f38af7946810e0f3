"""Questions the analysed code asks about files without reading them: ``os.path.exists``,
``isfile``, ``isdir``, ``Path.exists``/``is_file``/``is_dir``, ``glob.glob`` and ``os.listdir``.

Libraries look for their own data files before reading them (ultralytics searches its
package folder for ``yolov8.yaml``).  These are answered from the file system only where the
analysis already looks: the analysed project's folders, the folders of installed packages it
has read, and the folders third-party imports are resolved in (import resolution lists those
anyway).  Elsewhere — ``/etc``, the home folder — the answer is a located unknown, so a probe
of the machine never decides what the model is.  Relative paths are taken from the project
root (the folder above the outermost package), as if the program ran from there: the same
answer on every machine, whatever folder staticflops is started in.

``glob`` walks without following symlinks, leaves out matches whose real path leaves those
folders, visits at most MAX_GLOB_ENTRIES entries and returns its matches sorted (Python's order
is the directory's, which no analysis can reproduce).
"""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path, PurePath

from staticflops.files import note_path_kind, note_unrecordable
from staticflops.frontend.libraries import Refused
from staticflops.frontend.values import Builtin, Namespace, Unknown

MAX_GLOB_ENTRIES = 100_000  # directory entries one glob may visit
_MAGIC = set("*?[")


def _builtin(name, fn):
    return Builtin(name, fn, bind_self=False)


def _path_argument(interp, args, kwargs, node, name):
    path = args[0] if args else next(iter(kwargs.values()), None)
    if isinstance(path, Unknown):
        return None, path
    if not isinstance(path, (str, PurePath)):
        return None, interp.unknown(f"{name}() of a value that is not a path", node)
    return os.fspath(path), None


def kind_of(interp, path, node, name: str):
    """``"file"``, ``"dir"`` or None (absent) for ``path``, or a located unknown when the
    path lies outside the folders the analysis may look in."""
    if interp.project is None:
        return interp.unknown(f"{name}() of `{path}`: no project to look in", node)
    absolute = interp.project.absolute(Path(path))
    try:
        kind = interp.project.path_kind(Path(path))
    except Refused as why:
        note_path_kind(absolute, f"refused: {why}")  # for the results cache (files.ReadLog)
        return interp.unknown(f"{name}() of `{path}`: {why}", node)
    note_path_kind(absolute, kind)
    return kind


def probe(name: str, wanted: tuple):
    """``os.path.exists``-like builtins: True when the path's kind is one of ``wanted``."""
    def call(interp, args, kwargs, node):
        path, unknown = _path_argument(interp, args, kwargs, node, name)
        if unknown is not None:
            return unknown
        kind = kind_of(interp, path, node, name)
        return kind if isinstance(kind, Unknown) else kind in wanted
    return _builtin(name, call)


PROBES = {"exists": ("file", "dir"), "isfile": ("file",), "isdir": ("dir",)}
PATH_PROBES = {"exists": ("file", "dir"), "is_file": ("file",), "is_dir": ("dir",)}


def _glob(interp, args, kwargs, node):
    pattern, unknown = _path_argument(interp, args, kwargs, node, "glob.glob")
    if unknown is not None:
        return unknown
    recursive = kwargs.get("recursive", False)
    if isinstance(recursive, Unknown):
        return recursive
    if interp.project is None:
        return interp.unknown("glob.glob(): no project to look in", node)
    try:
        return [str(p) for p in glob_paths(interp.project, pattern, bool(recursive))]
    except Refused as why:
        return interp.unknown(f"glob.glob({pattern!r}): {why}", node)


def _listdir(interp, args, kwargs, node):
    """``os.listdir(path)``: the names in a folder the analysis may look in, sorted (the
    directory's own order is the machine's); a folder elsewhere, or too large, is an unknown."""
    path, unknown = _path_argument(interp, args or ["."], kwargs, node, "os.listdir")
    if unknown is not None:
        return unknown
    if interp.project is None:
        return interp.unknown("os.listdir(): no project to look in", node)
    folder = interp.project.absolute(Path(path))
    if not interp.project.may_look(folder):
        return interp.unknown(f"os.listdir({path!r}): outside the analysed project and the installed packages' "
                              "folders", node)
    note_unrecordable()  # a folder's listing: not replayed by the results cache's log
    if not _lstat_dir(Path(os.path.realpath(folder))):
        raise interp.fail(f"[Errno 2] No such file or directory: {path!r}", node, python="FileNotFoundError")
    try:
        names = sorted(entry.name for entry in _entries(folder, [0]))
    except Refused as why:
        return interp.unknown(f"os.listdir({path!r}): {why}", node)
    return names


def glob_paths(project, pattern: str, recursive: bool) -> list[str]:
    """The paths matching ``pattern``, sorted; Refused if it would look outside the folders
    ``project.may_look`` allows or visit more than MAX_GLOB_ENTRIES entries."""
    note_unrecordable()  # a walk of folders: an analysis that globs is not kept in the results cache
    absolute = project.absolute(Path(pattern))
    parts = absolute.parts
    literal = next((i for i, part in enumerate(parts) if set(part) & _MAGIC), len(parts))
    base = Path(*parts[:literal]) if literal else Path(parts[0])
    if literal == len(parts):  # no wildcard: the path itself, if it exists
        kind = project.path_kind(absolute)
        return [str(absolute)] if kind is not None else []
    if not project.may_look(base):
        raise Refused("outside the analysed project and the installed packages' folders")
    visited = [0]
    found = [base] if _lstat_dir(base) else []
    for part in parts[literal:]:
        following = []
        for folder in found:
            following.extend(_step(folder, part, recursive, visited))
        found = following
    return sorted(str(p) for p in found if project.may_look(p))


def _lstat_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def _entries(folder: Path, visited: list):
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                visited[0] += 1
                if visited[0] > MAX_GLOB_ENTRIES:
                    raise Refused(f"visits over {MAX_GLOB_ENTRIES:,} entries")
                yield entry
    except OSError:
        return


def _step(folder: Path, part: str, recursive: bool, visited: list) -> list[Path]:
    if part == "**" and recursive:  # this folder and every folder below it, hidden ones excepted
        folders, pending = [], [folder]
        while pending:
            current = pending.pop()
            folders.append(current)
            pending.extend(Path(e.path) for e in _entries(current, visited)
                           if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        return folders
    if not set(part) & _MAGIC:
        candidate = folder / part
        return [candidate] if os.path.lexists(candidate) else []
    hidden = part.startswith(".")
    return [Path(e.path) for e in _entries(folder, visited)
            if fnmatch.fnmatchcase(e.name, part) and (hidden or not e.name.startswith("."))]


LISTDIR = _builtin("os.listdir", _listdir)


def expand_user(path: str, environ: dict) -> str | None:
    """``posixpath.expanduser`` over the analysed program's environment; None when it would ask
    the machine (``~user``, or ``~`` without ``HOME``: the password database)."""
    if not path.startswith("~"):
        return path
    end = path.find("/", 1) if "/" in path[1:] else len(path)
    if end != 1 or not isinstance(environ.get("HOME"), str):
        return None
    return (environ["HOME"].rstrip("/") + path[end:]) or "/"


def namespaces() -> dict:
    glob = _builtin("glob.glob", _glob)
    return {"glob": Namespace("glob", {"glob": glob})}
