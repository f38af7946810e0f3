"""On-disk results, valid while every file the analysis read, or looked for and did not
find, is as it was.

An entry is keyed by the request (file, model, inputs, kwargs, rules, options) and this
staticflops build; it records the hash of each file read and, as None, each path an import
probed and found missing (a file appearing there changes the result).  A lookup re-reads
those paths (hashing, never parsing), so a repeated ``check`` with nothing changed parses
nothing.

A pull request controls the checkout, the cache folder included, so nothing in that folder
is trusted by where it is:

* Each file is signed (HMAC-SHA256) with a secret of this user on this machine, kept outside
  the project in staticflops' user cache folder (``STATICFLOPS_CACHE_DIR``, default
  ``~/.cache/staticflops``): a committed or restored entry cannot carry a valid signature,
  whatever its key.  Unlike "refuse cache folders with tracked files" this also holds for
  checkouts that are not git clones and for caches restored by CI from another run.  No
  secret (that folder unusable) means no results cache: slower, never wrong.
* Each entry must validate on its own: every field present with the right type and the
  analysed file itself among its sources; anything else is a miss.
* The folder must be a real folder under the project root: every component is opened with
  ``O_NOFOLLOW``, files are created with ``O_EXCL``, and a cache folder that is (or lies
  under) a symbolic link is not used at all, with a warning: the cache only saves time, so
  switching it off costs a pull request nothing it could want, and a user who linked it
  somewhere on purpose learns why runs got slower.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import sys
from functools import lru_cache
from pathlib import Path, PurePosixPath

from staticflops.files import read_file
from staticflops.project.sources import content_hash
from staticflops.rulesets.loader import MAX_RULE_FILE_BYTES

ENTRIES_PER_KEY = 4  # e.g. the working tree and a few base revisions of the same model
MAX_CACHE_FILE_BYTES = 64 * 1024 * 1024  # reports of a few thousand layers are ~1 MB each
_DIGEST = re.compile(r"[0-9a-f]{64}")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Opening relative to a folder's descriptor is what makes "no component is a symlink" hold.
SUPPORTED = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd


def cache_folder_problem(relative: str) -> str | None:
    """Why ``relative`` cannot be a cache folder under the project root, or None: it must name
    a folder strictly inside the root (not absolute, no ``..``, not the root itself)."""
    if "\0" in relative:
        return "must not contain a NUL character"
    path = PurePosixPath(relative.replace("\\", "/"))
    if path.is_absolute() or re.match(r"^[A-Za-z]:", relative):
        return f"must be a folder inside the project root, not an absolute path ({relative!r})"
    if ".." in path.parts:
        return f"must stay inside the project root: {relative!r} climbs out with '..'"
    if not [part for part in path.parts if part != "."]:
        return "must name a folder inside the project root, not the root itself (it would git-ignore everything)"
    return None


class ResultCache:
    def __init__(self, root: Path | None, relative: str = ".staticflops_cache"):
        """The cache folder ``root/relative``; ``root`` None: caching off."""
        self.root = root
        self.parts = [p for p in PurePosixPath(relative.replace("\\", "/")).parts if p != "."]
        if root is not None and (not SUPPORTED or cache_folder_problem(relative) or _secret() is None):
            self.root = None

    @property
    def directory(self) -> Path | None:
        return None if self.root is None else self.root.joinpath(*self.parts)

    def key(self, request: dict) -> str:
        text = json.dumps({"request": request, "engine": engine_fingerprint()}, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def lookup(self, key: str, reader, analysed: str) -> dict | None:
        """A valid entry for ``key`` whose recorded files (``analysed`` among them) are unchanged."""
        for entry in self._entries(key, analysed):
            if self._still_valid(entry, reader):
                return entry
        return None

    def recorded_sources(self, key: str, analysed: str) -> set:
        """Every path an earlier analysis under ``key`` read or probed (no content check):
        which files a model depends on, a missing import included."""
        return {path for entry in self._entries(key, analysed) for path in entry["sources"]}

    def store(self, key: str, analysed: str, sources: dict, disk_files: dict, report: dict) -> None:
        entry = {"sources": sources, "disk": disk_files, "report": report}
        if self.root is None or not _well_formed(entry, analysed):
            return
        entries = [entry] + [e for e in self._entries(key, analysed) if (e["sources"], e["disk"]) != (sources, disk_files)]
        payload = json.dumps(entries[:ENTRIES_PER_KEY]).encode()
        folder = self._open_folder(create=True)
        if folder is None:
            return
        try:
            _create_file(folder, ".gitignore", b"# created by staticflops: results cache, safe to delete\n*\n")
            temporary = f"{key}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
            _create_file(folder, temporary, _sign(key, payload) + b"\n" + payload)
            try:  # atomic: parallel runs never see half a file; a symlink in the way is replaced, not followed
                os.replace(temporary, f"{key}.json", src_dir_fd=folder, dst_dir_fd=folder)
            except OSError:
                os.unlink(temporary, dir_fd=folder)
        except OSError:
            pass  # a read-only checkout still works, only slower
        finally:
            os.close(folder)

    def _entries(self, key: str, analysed: str) -> list:
        """The well-formed entries of a correctly signed file for ``key``."""
        data = self._read(f"{key}.json")
        if data is None:
            return []
        signature, _, payload = data.partition(b"\n")
        if not hmac.compare_digest(signature, _sign(key, payload)):
            return []
        try:
            entries = json.loads(payload)
        except (ValueError, RecursionError):
            return []
        return [e for e in entries if _well_formed(e, analysed)] if isinstance(entries, list) else []

    def _read(self, name: str) -> bytes | None:
        folder = self._open_folder(create=False)
        if folder is None:
            return None
        try:  # non-blocking: a FIFO planted under the entry's name must not hang the run
            handle = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=folder)
        except OSError:
            return None
        finally:
            os.close(folder)
        with os.fdopen(handle, "rb") as file:
            status = os.fstat(file.fileno())
            if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_CACHE_FILE_BYTES:
                return None
            return file.read(MAX_CACHE_FILE_BYTES + 1)

    def _open_folder(self, create: bool) -> int | None:
        """A descriptor of the cache folder, reached from the root one component at a time
        without following a symbolic link; None when it is missing, a link or unusable."""
        if self.root is None:
            return None
        try:
            folder = os.open(self.root, os.O_RDONLY | _DIRECTORY)
        except OSError:
            return None
        for index, part in enumerate(self.parts):
            try:
                if create:
                    try:
                        os.mkdir(part, 0o777, dir_fd=folder)
                    except FileExistsError:
                        pass
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=folder)
            except OSError as error:
                os.close(folder)
                if error.errno in (errno.ELOOP, errno.ENOTDIR):  # a symlink, or a file, in the way
                    self._refuse(self.root.joinpath(*self.parts[:index + 1]))
                return None
            os.close(folder)
            folder = inner
        return folder

    def _refuse(self, path: Path) -> None:
        _warn_once(f"staticflops: warning: {path} is a symbolic link or not a folder: the results cache is off "
                   "(a cache folder is never followed out of the project)")
        self.root = None

    @staticmethod
    def _still_valid(entry: dict, reader) -> bool:
        try:
            for path, digest in entry["sources"].items():
                try:
                    found = content_hash(reader(path))
                except OSError:
                    found = None  # looked for and missing then: still valid only while still missing
                if found != digest:
                    return False
            for path, digest in entry["disk"].items():
                if content_hash(read_file(path, max_bytes=MAX_RULE_FILE_BYTES)) != digest:  # regular, bounded
                    return False
        except OSError:
            return False
        return True


def _well_formed(entry, analysed: str) -> bool:
    """Self-validating: every field there with its type, and the analysed file among the
    sources with its content hash (an entry without sources would be valid for any content)."""
    if not isinstance(entry, dict) or set(entry) != {"sources", "disk", "report"}:
        return False
    sources, disk = entry["sources"], entry["disk"]
    if not isinstance(sources, dict) or not isinstance(disk, dict) or not isinstance(entry["report"], dict):
        return False
    if not all(isinstance(p, str) and (d is None or isinstance(d, str) and _DIGEST.fullmatch(d))
               for p, d in sources.items()):
        return False
    if not all(isinstance(p, str) and isinstance(d, str) and _DIGEST.fullmatch(d) for p, d in disk.items()):
        return False
    return isinstance(sources.get(analysed), str)


def _create_file(folder: int, name: str, data: bytes) -> None:
    """Write a new file ``name``; an existing one (a link, even a dangling one) is left alone."""
    try:
        handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666, dir_fd=folder)
    except FileExistsError:
        return
    with os.fdopen(handle, "wb") as file:
        file.write(data)


def _sign(key: str, payload: bytes) -> bytes:
    secret = _secret()
    if secret is None:
        return b""
    return hmac.new(secret, key.encode() + b"\n" + payload, hashlib.sha256).hexdigest().encode()


@lru_cache(maxsize=1)
def _secret() -> bytes | None:
    """This user's signing secret (32 random bytes, hex), made once: None when the user cache
    folder cannot hold it (caching is then off)."""
    from staticflops.rulesets.stored import cache_dir

    folder = cache_dir()
    if folder is None or not folder.is_absolute():  # relative: it could be a folder of the checkout
        return None
    path = folder / "results-key"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(handle, "w") as file:
                file.write(secrets.token_hex(32))
        with open(os.open(path, os.O_RDONLY | _NOFOLLOW), "rb") as file:
            text = file.read(65)
    except OSError:
        return None
    # a concurrent first run may still be writing it: no cache this once rather than a wrong key
    return text if _DIGEST.fullmatch(text.decode("ascii", "replace")) else None


_WARNED: set = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        print(message, file=sys.stderr)


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """Our version plus the content of every module and rule file of the package: an upgrade
    or an edited checkout invalidates every entry (hashing ~1 MB costs ~2 ms)."""
    import staticflops

    package = Path(staticflops.__file__).resolve().parent
    digest = hashlib.sha256(staticflops.__version__.encode())
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".pyi", ".yaml")):
        digest.update(b"\0" + path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
