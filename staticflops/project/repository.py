"""The git repository the user runs in, and the one way staticflops runs git: pinned.

A pull request controls every file of the checkout, so nothing of it may decide which
repository git opens, which configuration it reads or which program it starts.  Left to
itself git *discovers* its repository from its working directory, and a folder that holds
``HEAD``, ``objects/``, ``refs/`` and ``config`` as plain committed files is a repository
to it (one whose ``core.fsmonitor`` is a shell command).  So:

* the repository is found here, once, by walking up from the directory the user runs in
  to the nearest ``.git`` folder or gitfile (see :func:`find_repository` for why no PR can
  plant one), and every git command names it with ``--git-dir``/``--work-tree``;
* every command gets ``-c`` settings that switch off what could start a program
  (fsmonitor, hooks, pager, external diff, textconv, transports) and an environment without
  the caller's ``GIT_*`` variables and without the system and global configuration;
* the ``git`` binary is looked up once on the absolute entries of ``PATH``, never in the
  repository under review.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from staticflops.diagnostics import UsageError

GIT_TIMEOUT_SECONDS = 60

# Settings on every command line: the command line outranks every configuration file.  The
# commands run are `rev-parse`, `cat-file blob` (no filter, no textconv) and `blame
# --no-textconv HEAD` (the committed file, so no clean filter either); none produces a diff,
# so no external diff program is ever consulted.
_PINNED_SETTINGS = (
    "core.fsmonitor=false",  # a repository config's fsmonitor is a shell command run on index reads
    f"core.hooksPath={os.devnull}",  # no hook runs, whatever the repository configures
    "safe.bareRepository=explicit",  # never treat a committed folder as a bare repository
    "core.pager=cat",
    "protocol.allow=never",  # no fetch, no transport helper, no ssh command
    "credential.helper=",
    "gc.auto=0",  # read-only commands: no background maintenance either
    "maintenance.auto=false",
    "blame.ignoreRevsFile=",  # a committed ignore-revs file must not move the budget's commit
)


@dataclass(frozen=True)
class Repository:
    top: Path  # the work tree: the folder that holds ``.git``
    dot_git: Path  # ``top/.git``: a folder, or a gitfile (linked worktrees, submodules)

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [pinned_git(self.top), "--no-pager", "--no-replace-objects", "--git-dir", str(self.dot_git),
                   "--work-tree", str(self.top)]
        for setting in _PINNED_SETTINGS:
            command += ["-c", setting]
        return _run(command, args, self.top, _pinned_environment(), check)

    def relative(self, path: Path) -> str | None:
        """``path`` as a path inside the work tree (``a/b.py``), None when outside it."""
        try:
            return Path(path).resolve().relative_to(self.top).as_posix()
        except ValueError:
            return None


@lru_cache(maxsize=4)
def find_repository(start: Path) -> Repository | None:
    """The repository the user runs in: the nearest ``start`` or parent of it with a ``.git``
    folder or gitfile.  ``start`` is the working directory, never the config's folder: that
    folder and everything under the project root belong to the pull request.  A ``.git``
    entry cannot come from a pull request, because git refuses to check out any path with a
    ``.git`` component (in any letter case), so walking up from where the user runs finds the
    user's own clone (or its worktree/submodule gitfile) first.  A bare-looking folder is
    never taken for a repository here.  git's own check that the repository belongs to this
    user (``safe.directory``) is kept: see :func:`_owned_by_user`."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir() or dot_git.is_file():
            repository = Repository(folder, dot_git)
            return repository if _owned_by_user(repository) else None
    return None


def repository_of(root: Path, what: str) -> Repository:
    """The repository the user runs in, which must hold ``root``; else a clear usage error
    (``what``: what the repository is needed for)."""
    here = Path.cwd()
    repository = find_repository(here)
    if repository is None:
        raise UsageError(f"{here} is not inside a git repository, or not one git trusts for this user "
                         f"(safe.directory), so there is no {what}")
    if repository.relative(root) is None:
        raise UsageError(f"{root} is outside the git repository {repository.top} found from the working "
                         f"directory, so there is no {what}: run staticflops inside that repository")
    return repository


def _owned_by_user(repository: Repository) -> bool:
    """Naming the repository with ``--git-dir`` skips git's ownership check, which protects a
    user from a ``.git`` another account planted above their folder (``/tmp/.git``).  Ask
    git for it the way it would discover the repository itself, from the work tree with the
    user's own (global and system) configuration, where ``safe.directory`` is set."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    environment["GIT_TERMINAL_PROMPT"] = "0"
    command = [pinned_git(repository.top), "--no-pager"]
    for setting in _PINNED_SETTINGS:
        command += ["-c", setting]
    try:
        result = _run(command, ("rev-parse", "--show-toplevel"), repository.top, environment, check=False)
    except UsageError:
        return False
    found = result.stdout.decode("utf-8", "replace").strip()
    return result.returncode == 0 and bool(found) and Path(found).resolve() == repository.top


def pinned_git(top: Path | None = None) -> str:
    """The absolute path of ``git``; never one inside the repository under review."""
    git = _git_on_path()
    if git is None:
        raise UsageError("git is not installed or not on PATH")
    if top is not None and Path(git).is_relative_to(top):
        raise UsageError(f"refusing to run {git}: a git inside the repository under review")
    return git


@lru_cache(maxsize=1)
def _git_on_path() -> str | None:
    # Only absolute PATH entries: an empty or "." entry would find a `git` the pull request
    # committed (with its executable bit) in the working directory.
    folders = [folder for folder in os.get_exec_path() if os.path.isabs(folder)]
    found = shutil.which("git", path=os.pathsep.join(folders))
    return os.path.realpath(found) if found else None


def _pinned_environment() -> dict:
    """The caller's environment without any ``GIT_*`` variable (``GIT_DIR``, ``GIT_CONFIG_*``,
    ``GIT_EXTERNAL_DIFF``, ``GIT_SSH_COMMAND``, ``GIT_PAGER``... none reaches git) and with
    neither the system nor the global configuration: only the repository's own
    ``.git/config``, which a commit cannot change, plus the settings above.  HOME stays: with
    GIT_CONFIG_GLOBAL set git reads no configuration from it, only the user's own attribute
    and ignore files, which no commit can change either."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    environment.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_ATTR_NOSYSTEM="1",
                       GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_REPLACE_OBJECTS="1",
                       LC_ALL="C")
    return environment


def _run(command: list, args: tuple, cwd: Path, environment: dict, check: bool) -> subprocess.CompletedProcess:
    shown = " ".join(args)
    try:
        result = subprocess.run([*command, *args], cwd=cwd, env=environment, stdin=subprocess.DEVNULL, capture_output=True,
                                timeout=GIT_TIMEOUT_SECONDS)
    except FileNotFoundError:
        raise UsageError("git is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"git {shown} took over {GIT_TIMEOUT_SECONDS} s") from None
    if check and result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"git {shown}: {message[-1] if message else 'failed'}")
    return result
