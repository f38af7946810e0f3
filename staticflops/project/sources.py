"""Where a model's files are read from: the working tree, or a git revision read with
``git cat-file blob REV:path`` (no checkout: the working tree is never touched; git always
pinned to the user's repository, see ``repository.py``).  Readers take the
path as the config names it (relative to the project root) and raise OSError when absent."""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from staticflops.diagnostics import UsageError
from staticflops.files import read_file
from staticflops.project.repository import Repository, repository_of


@dataclass(frozen=True)
class DiskReader:
    root: Path

    def __call__(self, path: str) -> bytes:
        return read_file(self.root / path, (self.root,))  # confined, regular, bounded (files.py)

    def describe(self) -> str:
        return "working tree"


@dataclass(frozen=True)
class GitReader:
    """Files of a commit, read with ``git cat-file blob`` (no filter, no textconv: the bytes
    committed).  ``prefix``: the project root's path inside the repository."""

    repository: Repository
    prefix: str
    revision: str

    def __call__(self, path: str) -> bytes:
        inside = posixpath.normpath(posixpath.join(self.prefix, path))
        if inside == ".." or inside.startswith(("../", "/")):
            raise FileNotFoundError(2, "outside the repository", path)
        result = self.repository.run("cat-file", "blob", f"{self.revision}:{inside}", check=False)
        if result.returncode != 0:
            raise FileNotFoundError(2, f"not in revision {self.revision}", path)
        return result.stdout

    def describe(self) -> str:
        return self.revision


def git_reader(root: Path, commit: str) -> GitReader:
    """A reader of ``commit`` for the project whose root is ``root``."""
    repository = repository_of(root, f"revision {commit!r}")
    prefix = repository.relative(root)
    return GitReader(repository, "" if prefix == "." else prefix, commit)


@dataclass
class RecordingReader:
    """Reads through ``inner`` and remembers each file's content hash (for the cache), and
    each path it was asked for and could not read as None: an import that found no file is
    a result too, and a file appearing there later changes the analysis."""

    inner: object
    hashes: dict = field(default_factory=dict)

    def __call__(self, path: str) -> bytes:
        try:
            data = self.inner(path)
        except OSError:
            self.hashes.setdefault(path, None)
            raise
        self.hashes[path] = content_hash(data)
        return data


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def resolve_revision(root: Path, revision: str) -> str:
    """The commit ``revision`` names, or a clear error (not a repository, unknown revision)."""
    if revision.startswith("-"):
        raise UsageError(f"{revision!r} is not a git revision")
    repository = repository_of(root, f"revision {revision!r}")
    result = repository.run("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}", check=False)
    if result.returncode != 0:
        raise UsageError(f"unknown git revision {revision!r} (fetch it first, e.g. git fetch origin main)")
    return result.stdout.decode().strip()


def last_commit_of_line(root: Path, file: Path, line: int) -> str | None:
    """The commit that last changed ``file``'s line, or None when that line is not committed
    as it is (or there is no repository).  Blames the committed file (``HEAD``), never the
    working tree: git would run the clean filter and textconv the checkout's
    ``.gitattributes`` pick for the working-tree file."""
    try:
        repository = repository_of(root, "blame")
        current = read_file(file, (root,)).splitlines()[line - 1].rstrip(b"\r")  # confined, regular, bounded
    except (UsageError, OSError, IndexError):
        return None
    path = repository.relative(file)
    if path is None:
        return None
    result = repository.run("blame", "--no-textconv", "--porcelain", "-L", f"{line},{line}", "HEAD", "--", path,
                            check=False)
    if result.returncode != 0 or not result.stdout:
        return None
    committed = next((row[1:] for row in result.stdout.splitlines() if row.startswith(b"\t")), None)
    if committed is None or committed.rstrip(b"\r") != current:
        return None  # changed since HEAD: the budget line is not committed yet
    return result.stdout.split()[0].decode()
