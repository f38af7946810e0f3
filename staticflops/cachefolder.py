"""The on-disk side of staticflops' own caches (results: ``project/cache.py``; parsed modules:
``frontend/parsed_cache.py``), in a folder of the project that a pull request controls.

So nothing in such a folder is trusted by where it is: every entry is signed with a secret of
this user, kept outside the project in the user cache folder (``STATICFLOPS_CACHE_DIR``,
default ``$XDG_CACHE_HOME/staticflops`` or ``~/.cache/staticflops``) where no commit can put
one; the folder is reached from the project root one component at a time with ``O_NOFOLLOW``
(a symbolic link on the way: no cache); entries are read non-blocking (a FIFO cannot hang the
run), regular and bounded, and written to a fresh ``O_EXCL`` file renamed into place (a link
planted under the entry's name is replaced, never written through).
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import re
import stat
from functools import lru_cache
from pathlib import Path

# A file's stamp and when an equal one proves its bytes unchanged (libraries.py, verdicts.py):
# files.py, where analyze's own reads are stamped too.
from staticflops.files import SETTLED_NS, settled, stamp as file_stamp  # noqa: F401  (shared from here)

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Opening relative to a folder's descriptor is what makes "no component is a symlink" hold.
SUPPORTED = bool(NOFOLLOW and DIRECTORY) and os.open in os.supports_dir_fd
DIGEST = re.compile(r"[0-9a-f]{64}")


class LinkInTheWay(Exception):
    """A component of a cache folder is a symbolic link or a file: the cache must not be used."""

    def __init__(self, path: Path):
        super().__init__(str(path))
        self.path = path


def user_cache_dir() -> Path | None:
    """staticflops' folder of this user (None: ``STATICFLOPS_CACHE_DIR`` set empty)."""
    chosen = os.environ.get("STATICFLOPS_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "staticflops"


@lru_cache(maxsize=1)
def user_secret() -> bytes | None:
    """This user's signing secret (32 random bytes, hex), made once: None when the user cache
    folder cannot hold it (the caches are then off)."""
    folder = user_cache_dir()
    if folder is None or not folder.is_absolute():  # relative: it could be a folder of the checkout
        return None
    path = folder / "results-key"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            import secrets  # not at the top: check's fast path (verdicts.py) only reads

            with os.fdopen(handle, "w") as file:
                file.write(secrets.token_hex(32))
        with open(os.open(path, os.O_RDONLY | NOFOLLOW), "rb") as file:
            text = file.read(65)
    except OSError:
        return None
    # a concurrent first run may still be writing it: no cache this once rather than a wrong key
    return text if DIGEST.fullmatch(text.decode("ascii", "replace")) else None


def sign(domain: bytes, key: str, payload: bytes) -> bytes:
    """The hex HMAC of ``payload`` filed under ``key`` (``domain`` keeps the caches apart);
    empty without a secret, which no entry matches."""
    secret = user_secret()
    if secret is None:
        return b""
    return hmac.new(secret, domain + key.encode() + b"\n" + payload, hashlib.sha256).hexdigest().encode()


def signed_payload(domain: bytes, key: str, data: bytes | None) -> bytes | None:
    """The payload of ``signature\\npayload`` when the signature is this user's, else None."""
    if data is None:
        return None
    signature, _, payload = data.partition(b"\n")
    expected = sign(domain, key, payload)
    return payload if expected and hmac.compare_digest(signature, expected) else None


def open_folder(root: Path, parts: tuple, create: bool) -> int | None:
    """A descriptor of ``root/parts...``, reached without following a symbolic link; None when
    missing or unusable; LinkInTheWay when a component is a link or a file."""
    try:
        folder = os.open(root, os.O_RDONLY | DIRECTORY)
    except OSError:
        return None
    for index, part in enumerate(parts):
        try:
            if create:
                try:
                    os.mkdir(part, 0o777, dir_fd=folder)
                except FileExistsError:
                    pass
            inner = os.open(part, os.O_RDONLY | DIRECTORY | NOFOLLOW, dir_fd=folder)
        except OSError as error:
            os.close(folder)
            if error.errno in (errno.ELOOP, errno.ENOTDIR):
                raise LinkInTheWay(root.joinpath(*parts[:index + 1])) from None
            return None
        os.close(folder)
        folder = inner
    return folder


def read_entry(folder: int, name: str, max_bytes: int) -> bytes | None:
    """The bytes of the regular file ``name`` in ``folder`` (closed here), at most ``max_bytes``."""
    try:
        handle = os.open(name, os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=folder)
    except OSError:
        return None
    finally:
        os.close(folder)
    with os.fdopen(handle, "rb") as file:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_size > max_bytes:
            return None
        # read the size it has (one byte over: a file still growing is read whole or refused by
        # its reader's checks); asking for max_bytes would make a 64 MiB buffer per entry
        data = file.read(status.st_size + 1)
        return data if len(data) <= max_bytes else None


def write_entry(folder: int, name: str, data: bytes, what: str) -> None:
    """Write ``name`` in ``folder`` (closed here) atomically, and a ``*`` .gitignore beside it;
    a read-only checkout still works, only slower."""
    import secrets

    try:
        create_new(folder, ".gitignore", f"# created by staticflops: {what}, safe to delete\n*\n".encode())
        temporary = f"{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        create_new(folder, temporary, data)
        try:  # atomic: parallel runs never see half a file; a symlink in the way is replaced, not followed
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except OSError:
            os.unlink(temporary, dir_fd=folder)
    except OSError:
        pass
    finally:
        os.close(folder)


def create_new(folder: int, name: str, data: bytes) -> None:
    """Write a new file ``name``; an existing one (a link, even a dangling one) is left alone."""
    try:
        handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o666, dir_fd=folder)
    except FileExistsError:
        return
    with os.fdopen(handle, "wb") as file:
        file.write(data)


def folder_listing(path) -> str | None:
    """SHA-256 of a folder's sorted entry names (None: not a readable folder): a package
    installed into, or removed from, a folder that imports search changes it."""
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return None
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """Our version plus the content of every module and rule file of the package: an upgrade
    or an edited checkout invalidates every entry (hashing ~1 MB costs ~2 ms)."""
    from staticflops.version import __version__

    package = os.path.dirname(os.path.realpath(__file__))
    names = []  # relative, with "/": plain strings (pathlib's walk took most of a fast path's 10 ms here)
    for folder, _, files in os.walk(package):
        inside = os.path.relpath(folder, package).replace(os.sep, "/")
        names += [name if inside == "." else f"{inside}/{name}" for name in files
                  if name.endswith((".py", ".pyi", ".yaml"))]
    digest = hashlib.sha256(__version__.encode())
    for name in sorted(names):
        digest.update(b"\0" + name.encode() + b"\0")
        with open(os.path.join(package, name), "rb") as file:
            digest.update(file.read())
    return digest.hexdigest()[:16]
