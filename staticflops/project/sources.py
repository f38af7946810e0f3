"""Where a model's files are read from: the working tree, or a git revision read with
``git show REV:./path`` (no checkout: the working tree is never touched).  Readers take the
path as the config names it (relative to the project root) and raise OSError when absent."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from staticflops.diagnostics import UsageError
from staticflops.files import read_file

GIT_TIMEOUT_SECONDS = 60


@dataclass(frozen=True)
class DiskReader:
    root: Path

    def __call__(self, path: str) -> bytes:
        return read_file(self.root / path, (self.root,))  # confined, regular, bounded (files.py)

    def describe(self) -> str:
        return "working tree"


@dataclass(frozen=True)
class GitReader:
    root: Path  # inside the repository; paths are relative to it
    revision: str

    def __call__(self, path: str) -> bytes:
        result = git(self.root, "show", f"{self.revision}:./{path}", check=False)
        if result.returncode != 0:
            raise FileNotFoundError(2, f"not in revision {self.revision}", path)
        return result.stdout

    def describe(self) -> str:
        return self.revision


@dataclass
class RecordingReader:
    """Reads through ``inner`` and remembers each file's content hash (for the cache)."""

    inner: object
    hashes: dict = field(default_factory=dict)

    def __call__(self, path: str) -> bytes:
        data = self.inner(path)
        self.hashes[path] = content_hash(data)
        return data


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT_SECONDS)
    except FileNotFoundError:
        raise UsageError("git is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"git {' '.join(args)} took over {GIT_TIMEOUT_SECONDS} s") from None
    if check and result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return result


def resolve_revision(root: Path, revision: str) -> str:
    """The commit ``revision`` names, or a clear error (not a repository, unknown revision)."""
    if revision.startswith("-"):
        raise UsageError(f"{revision!r} is not a git revision")
    result = git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}", check=False)
    if result.returncode != 0:
        inside = git(root, "rev-parse", "--is-inside-work-tree", check=False).returncode == 0
        if not inside:
            raise UsageError(f"{root} is not inside a git repository, so there is no revision {revision!r}")
        raise UsageError(f"unknown git revision {revision!r} (fetch it first, e.g. git fetch origin main)")
    return result.stdout.decode().strip()


def last_commit_of_line(root: Path, file: Path, line: int) -> str | None:
    """The commit that last changed ``file``'s line (git blame), or None when it is not committed."""
    result = git(root, "blame", "--porcelain", "-L", f"{line},{line}", "--", str(file), check=False)
    if result.returncode != 0 or not result.stdout:
        return None
    commit = result.stdout.split()[0].decode()
    return None if set(commit) == {"0"} else commit
