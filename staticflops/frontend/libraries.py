"""Where third-party source comes from: the folders of a Python environment, read as files.

``import timm`` in a model resolves to timm's *source files* — found by looking at the file
system the way Python's path finder would (a module ``name.py``, a package ``name/__init__.py``,
else a namespace package ``name/`` spread over the folders), never by importing anything and
never by running an interpreter.  The folders searched, in order:

1. ``--source-path DIR`` (repeatable, ``source_path`` in the config): folders searched first;
2. the environment's ``site-packages``: by default the one staticflops runs in (our own
   process's ``site``/``sysconfig`` answers); with ``--python PATH`` another environment's,
   found from ``pyvenv.cfg`` next to or above that interpreter and the ``lib/pythonX.Y/
   site-packages`` (``Lib/site-packages`` on Windows) layout — the interpreter is never run.

``.pth`` files are never processed (their ``import`` lines are code).  Every read of a library
file goes through :func:`read_regular_file`: a regular file whose real path (symlinks resolved)
lies inside one of these folders, at most ``max_bytes`` long.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import site
import stat
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from staticflops.cachefolder import file_stamp, settled
from staticflops.diagnostics import UsageError
from staticflops.files import RefusedRead, read_file

# Python's own modules are never looked for in site-packages (Python finds the stdlib first).
_STANDARD_LIBRARY = frozenset(getattr(sys, "stdlib_module_names", ()))
# Array and image libraries whose Python layer only wraps compiled code: interpreting their
# __init__ gives nothing but noise from deep inside them, so they stay opaque (unknowns at the
# import, as before).  A library we model joins the framework's list instead (framework.py).
NOT_FOLLOWED = frozenset({"numpy", "scipy", "pandas", "PIL", "cv2", "matplotlib", "sklearn"})
_PYVENV_CFG_BYTES = 64 * 1024


class LibraryReads:
    """What an analysis took from outside the project, for the results cache: each library
    file read (real path -> SHA-256 of its bytes) and each folder searched (a package
    installed or removed there changes what an import finds, even one that found nothing)."""

    def __init__(self):
        self.files: dict = {}
        self.folders: set = set()
        # real path -> its stamp (cachefolder.file_stamp) when unchanged while read and settled:
        # a later lookup may trust an equal stamp instead of hashing the file again
        self.stamps: dict = {}


# The analysis in progress records here (``recording_reads``).  Process-wide, not a context
# variable: an analysis runs in a thread with a big stack (api._with_deep_stack); project
# mode analyses one model at a time per process.
_recording: LibraryReads | None = None


@contextlib.contextmanager
def recording_reads():
    """Record the library files read and the folders searched within the block."""
    global _recording
    _recording = reads = LibraryReads()
    try:
        yield reads
    finally:
        _recording = None


class Refused(Exception):
    """A file that may not be read (outside the roots, not a regular file, too large)."""


def read_regular_file(path: Path, roots, max_bytes: int) -> bytes:
    """The bytes of ``path`` if its real path is a regular file inside one of ``roots`` and at
    most ``max_bytes`` long; else Refused (with the reason).  The one place third-party and
    data files are read from disk; the checks themselves are ``staticflops.files``'."""
    before = file_stamp(path) if _recording is not None else None
    try:
        data = read_file(path, roots, max_bytes)
    except RefusedRead as refused:
        if refused.kind == "outside":
            raise Refused("outside the analysed project and the installed packages' folders") from None
        hint = " (--max-file-bytes)" if refused.kind == "size" else ""
        raise Refused(f"{refused.reason}{hint}") from None
    except (OSError, ValueError) as error:
        raise Refused(getattr(error, "strerror", None) or str(error)) from None
    if _recording is not None:
        real = os.path.realpath(path)
        _recording.files[real] = hashlib.sha256(data).hexdigest()
        if before is not None and before == file_stamp(real) and settled(before):
            _recording.stamps[real] = before
    return data


_MAX_LISTED = 100_000  # entries read from one root's listing (a site-packages has a few thousand)


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _dist_info_versions(root: Path) -> dict:
    """{normalised distribution name: version} of the ``*.dist-info`` folders directly in ``root``."""
    found: dict = {}
    try:
        with os.scandir(root) as entries:
            for count, entry in enumerate(entries):
                if count >= _MAX_LISTED:
                    break
                stem = entry.name[:-len(".dist-info")] if entry.name.endswith(".dist-info") else ""
                name, dash, version = stem.rpartition("-")
                if dash and name and version and entry.is_dir(follow_symlinks=False):
                    found.setdefault(_normalised(name), version)
    except OSError:
        pass
    return found


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except (OSError, ValueError):
        return False


@dataclass
class LibraryFiles:
    """The folders third-party source is read from, and reads confined to them."""

    roots: tuple[Path, ...]  # searched in order
    max_bytes: int = 5_000_000
    _real_roots: tuple = field(default=(), repr=False)
    # path -> holds(path), for one analysis: import resolution asks about the same files and
    # folders thousands of times (a realpath each).  Reads are confined again when they happen
    # (read_regular_file), so a file swapped meanwhile is still refused.
    _held: dict = field(default_factory=dict, repr=False)
    _listings: dict = field(default_factory=dict, repr=False)  # root -> {normalised name: version}

    def __post_init__(self):
        self._real_roots = tuple(Path(os.path.realpath(r)) for r in self.roots)
        if _recording is not None:
            _recording.folders.update(str(root) for root in self._real_roots)

    def holds(self, path: Path | None) -> bool:
        if path is None:
            return False
        held = self._held.get(path)
        if held is None:
            real = Path(os.path.realpath(path))
            held = self._held[path] = any(_inside(real, root) for root in self._real_roots)
        return held

    def is_file(self, path: Path) -> bool:
        if _recording is not None:  # a module appearing in (or leaving) a folder an import looked in changes the answer
            _recording.folders.add(str(path.parent))
        return self.holds(path) and _is_file(path)

    def reader(self, path: str) -> bytes:
        """A FileReader (see source.py): refusals surface as OSError."""
        try:
            return read_regular_file(Path(path), self._real_roots, self.max_bytes)
        except Refused as why:
            raise PermissionError(1, str(why), path) from None

    def locate(self, dotted: str):
        """Where the absolute module ``dotted`` lives: a file (``.py`` or ``__init__.py``), a
        list of folders (a namespace package), or None.  Follows Python's path finder: in each
        folder a package beats a module beats a namespace portion, and portions count only
        when no folder has a package or module of that name."""
        parts = dotted.split(".")
        if not dotted or parts[0] in _STANDARD_LIBRARY or parts[0] in NOT_FOLLOWED \
                or not all(p.isidentifier() for p in parts):
            return None
        search = list(self.roots)
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            found, portions = None, []
            for base in search:
                if self.is_file(base / part / "__init__.py"):
                    found = base / part / "__init__.py"
                    break
                if self.is_file(base / f"{part}.py"):
                    found = base / f"{part}.py"
                    break
                if _is_dir(base / part) and self.holds(base / part):
                    portions.append(base / part)
            if found is not None:
                if last:
                    return found
                if found.name != "__init__.py":
                    return None  # a module has no submodules
                search = [found.parent]
            elif portions:
                if last:
                    return portions
                search = portions
            else:
                return None
        return None

    def distribution_version(self, name: str) -> str | None:
        """The version of the distribution ``name`` installed in the first root that has one,
        from the name of its ``<name>-<version>.dist-info`` folder (what pip writes, names
        compared normalised as PEP 503 does); None when no root has it.  A root's listing is
        already recorded as searched (a package installed or removed there changes results)."""
        wanted = _normalised(name)
        for root in self.roots:
            listing = self._listings.get(root)
            if listing is None:
                listing = self._listings[root] = _dist_info_versions(root)
            if wanted in listing:
                return listing[wanted]
        return None

    def module_name(self, path: Path) -> str | None:
        """``pkg.sub.mod`` for ``<root>/pkg/sub/mod.py`` (``pkg.sub`` for its ``__init__.py``):
        the name Python would give it, whichever import reached it."""
        for root in self.roots:
            try:
                parts = list(path.relative_to(root).with_suffix("").parts)
            except ValueError:
                continue
            if parts and parts[-1] == "__init__":
                parts.pop()
            return ".".join(parts) or None
        return None

    def package_folder(self, path: Path) -> Path | None:
        """The top-level package folder holding library file ``path`` (its data files may be read)."""
        for root in self.roots:
            try:
                relative = path.relative_to(root)
            except ValueError:
                continue
            if len(relative.parts) > 1:
                return root / relative.parts[0]
        return None


def library_roots(python: str | None = None, source_path=(), inside: str | None = None) -> tuple[Path, ...]:
    """The folders searched for third-party packages: ``source_path`` first, then the
    site-packages of the environment of ``python`` (default: the one running staticflops).
    ``inside``: every folder named through ``python``/``source_path`` must really (symlinks
    resolved) lie in it — for settings from a project's config, which a pull request controls."""
    folders = []
    for entry in source_path or ():
        folder = Path(entry).expanduser().absolute()
        if not _is_dir(folder):
            raise UsageError(f"--source-path {entry}: not a folder")
        folders.append(folder)
    folders += _environment_site_packages(Path(python).expanduser()) if python else []
    if inside is not None:
        limit = Path(os.path.realpath(inside))
        for folder in folders:
            if not _inside(Path(os.path.realpath(folder)), limit):
                raise UsageError(f"{folder}: outside the project ({inside}); an environment named in the config must be "
                                 "inside the project (run staticflops from an environment elsewhere instead)")
    if not python:
        folders += _own_site_packages()
    unique, seen = [], set()
    for folder in folders:  # lib64 is often a symlink to lib: one folder, searched once
        real = os.path.realpath(folder)
        if real not in seen:
            seen.add(real)
            unique.append(folder)
    return tuple(unique)


def _own_site_packages() -> list[Path]:
    """Our own process's site folders (what site/sysconfig already computed: no .pth is read)."""
    candidates = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE and site.USER_SITE:
        candidates.append(site.USER_SITE)
    paths = sysconfig.get_paths()
    candidates += [paths.get("purelib"), paths.get("platlib")]
    candidates += [p for p in sys.path if p and Path(p).name in ("site-packages", "dist-packages")]
    return [Path(c) for c in candidates if c and _is_dir(Path(c))]


def _environment_site_packages(python: Path) -> list[Path]:
    """site-packages of the environment whose interpreter is ``python`` (or whose folder it
    is), from ``pyvenv.cfg`` and the folder layout alone."""
    if _is_dir(python):
        prefix = python
    elif python.exists() or python.is_symlink():
        # bin/python (or Scripts\\python.exe) sits one level below the environment's folder;
        # the symlink to the base interpreter is deliberately not followed.
        folder = python.absolute().parent
        prefix = folder.parent if folder.name in ("bin", "Scripts") else folder
    else:
        raise UsageError(f"--python {python}: no such file")
    config = _pyvenv_cfg(prefix)
    # the version from pyvenv.cfg, else from the interpreter's name (a symlink's target named
    # python3.11 counts: the link is read, the interpreter is not run)
    name = python.name if not python.is_symlink() else f"{python.name} {Path(os.path.realpath(python)).name}"
    version = _version(config.get("version_info") or config.get("version") or "", name)
    found = _site_folders(prefix, version)
    if config.get("include-system-site-packages", "").strip().lower() == "true" and config.get("home"):
        home = Path(config["home"])
        base = home.parent if home.name in ("bin", "Scripts") else home
        found += [f for f in _site_folders(base, version) if f not in found]
    if not found:
        raise UsageError(f"--python {python}: no site-packages folder found under {prefix}")
    return found


def _pyvenv_cfg(prefix: Path) -> dict:
    path = prefix / "pyvenv.cfg"
    if not _is_file(path):
        return {}
    try:
        text = read_regular_file(path, (Path(os.path.realpath(prefix)),), _PYVENV_CFG_BYTES).decode("utf-8", "replace")
    except Refused:
        return {}
    config = {}
    for line in text.splitlines():
        key, equals, value = line.partition("=")
        if equals:
            config[key.strip().lower()] = value.strip()
    return config


def _version(text: str, interpreter_name: str) -> str | None:
    """"3.11" from pyvenv.cfg's ``version`` (``3.11.7``) or the interpreter's name (``python3.11``)."""
    found = re.match(r"(\d+)\.(\d+)", text) or re.search(r"(\d+)\.(\d+)", interpreter_name)
    return f"{found.group(1)}.{found.group(2)}" if found else None


def _site_folders(prefix: Path, version: str | None) -> list[Path]:
    found = []
    windows = prefix / "Lib" / "site-packages"
    if _is_dir(windows):
        found.append(windows)
    # Debian's system Python keeps packages in lib/python3/dist-packages and, for pip, under local/
    patterns = [f"python{version}", "python3"] if version else ["python3*"]
    for base in (prefix, prefix / "local"):
        for lib in ("lib", "lib64"):
            folders = [f for pattern in patterns for f in sorted((base / lib).glob(pattern))] if _is_dir(base / lib) else []
            for folder in folders:
                for name in ("site-packages", "dist-packages"):
                    if _is_dir(folder / name) and folder / name not in found:
                        found.append(folder / name)
    return found
