"""Folder mode: ``staticflops analyze DIR`` (or several files) analyses every model file.

Files are analysed in parallel processes (one per core by default) with the same options
(``--model``, ``--input``, ``--kwargs``, ``--rules``); each result is cached by the content
hash of every file it read, so a repeat with nothing changed parses nothing.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from staticflops.api import parse_input_spec
from staticflops.diagnostics import UsageError
from staticflops.files import ConfinedReader, RefusedRead, project_root, read_file
from staticflops.project.cache import ResultCache
from staticflops.project.run import PARALLEL_FROM, _analyse_one

CACHE_DIR = ".staticflops_cache"
# Directories that never hold the user's models.
_SKIPPED_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", "node_modules",
                 "site-packages", "build", "dist", CACHE_DIR}
# A file is a model file when its text imports one of these (a byte search: nothing parsed).
_FRAMEWORK_IMPORTS = (b"import torch", b"from torch", b"import keras", b"from keras", b"import tensorflow",
                      b"from tensorflow", b"import tf_keras", b"from tf_keras")


# A file that imports a framework but holds no model to analyse on its own (a helper module:
# blocks.py with layers that need constructor arguments, utils.py) is skipped, not failed: a
# real repository has more of them than models.  Its analysis ended with one of these codes:
NO_MODEL = "SF104"  # no nn.Module class or builder function at all
NOT_A_MODEL = "SF101"  # the one function found returns something else
NEEDS_ARGUMENTS = "SF114"  # ... missing required argument; a helper when it is the file's own top-level definition
# `# staticflops: input=1x3x224x224` (repeatable, one per forward argument) and `model=Name`:
# a file's own inputs and model in folder mode, where one --input rarely fits every file.
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*staticflops:[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_SETTING = re.compile(r"(input|model)=(\S+)")


@dataclass
class FileResult:
    path: str
    report: dict | None = None  # the JSON report of `staticflops analyze PATH --format json`
    error: str | None = None  # `path:line:col: error: message`
    cached: bool = False
    skipped: str | None = None  # why the file holds no model to analyse (`path:line:col: message`)


@dataclass
class FolderRun:
    results: list = field(default_factory=list)  # FileResult, in path order
    seconds: float = 0.0
    jobs: int = 1

    @property
    def files_per_second(self) -> float:
        return len(self.results) / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict:
        return {
            "schema_version": 1,
            "files": [self._entry(r) for r in self.results],
            "summary": {"files": len(self.results),
                        "analysed": sum(r.report is not None and r.error is None for r in self.results),
                        "errors": sum(r.error is not None for r in self.results),
                        "skipped": sum(r.skipped is not None for r in self.results),
                        "cached": sum(r.cached for r in self.results), "seconds": round(self.seconds, 3),
                        "files_per_second": round(self.files_per_second, 1), "jobs": self.jobs},
        }


    @staticmethod
    def _entry(result: FileResult) -> dict:
        """A file's row: its report, or its error, or both when a budget stopped the analysis
        (``partial``: the report is a lower bound and the file counts as failed)."""
        entry = {"path": result.path, "cached": result.cached}
        if result.skipped is not None:
            return {**entry, "skipped": result.skipped}
        if result.report and result.error:
            return {**entry, "partial": True, "report": result.report, "error": result.error}
        return {**entry, **({"report": result.report} if result.report else {"error": result.error})}


def _analyse_guarded(request: dict, reader) -> tuple:
    """One file's analysis; a fault of ours in one file becomes that file's error row
    instead of ending the whole folder run with a traceback."""
    try:
        return _analyse_one(request, reader)
    except (Exception, RecursionError) as error:  # noqa: BLE001  (reported, with the file's name)
        return None, f"{request['path']}: internal error: {type(error).__name__}: {error}", {}, {}, None


def file_settings(path: str, text: bytes) -> tuple[dict, str | None]:
    """The ``# staticflops: input=... model=...`` settings written in a file (a byte search:
    nothing is parsed or run), or an error ``path:line:col: error: ...`` for a bad one."""
    settings: dict = {}
    for match in _DIRECTIVE.finditer(text):
        line = text.count(b"\n", 0, match.start()) + 1
        body = match.group(1).decode("utf-8", "replace")
        for setting in _SETTING.finditer(body):
            key, value = setting.groups()
            if key == "model":
                settings["model"] = value
                continue
            try:
                parse_input_spec(value)
            except UsageError as error:
                column = match.start(1) - match.start() + setting.start() + 1
                return {}, f"{path}:{line}:{column}: error: # staticflops: input={value}: {error}"
            settings.setdefault("inputs", []).append(value)
    return settings, None


def _natural(path: Path) -> list:
    """``block2.py`` before ``block10.py``: digit runs compare as numbers."""
    return [(int(part),) if part.isdigit() else (part.casefold(), part) for part in re.split(r"(\d+)", str(path))]


def model_files(paths: list[str]) -> list[str]:
    """The files to analyse: each named file, and every ``.py`` file under each named folder
    that imports torch, keras or tensorflow (sorted; hidden and tool folders skipped; a
    symlinked folder is not entered).  A file that may not be read (a FIFO, a device, a
    symlink out of the project) is kept: its analysis reports why, as that file's error."""
    found: list[str] = []
    roots = _ProjectRoots()
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(str(p) for p in sorted(_python_files(path), key=_natural) if _imports_a_framework(p, roots))
        elif os.path.lexists(path):
            found.append(name)
        else:
            raise UsageError(f"{name}: no such file or folder")
    return list(dict.fromkeys(found))


def _python_files(folder: Path):
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith(".")]
        yield from (Path(root) / f for f in files if f.endswith(".py"))


def _imports_a_framework(path: Path, roots: _ProjectRoots) -> bool:
    try:
        text = read_file(path, (roots(path),))
    except OSError:
        return True  # reported as unreadable (or refused) by the analysis itself
    return any(marker in text for marker in _FRAMEWORK_IMPORTS)


class _ProjectRoots:
    """``files.project_root`` of each file, looked up once per folder (it reads each
    ancestor's pyproject.toml): a file's reads stay inside the root ``analyze FILE`` gives it."""

    def __init__(self):
        self._by_folder: dict = {}

    def __call__(self, path) -> Path:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._by_folder:
            self._by_folder[folder] = project_root(path)
        return self._by_folder[folder]


def _holds_no_model(request: dict, error: str | None, code: str | None) -> bool:
    """Whether a failed analysis means "a helper module" (skipped) rather than a broken model.
    Only when staticflops chose the model itself (no --model, no --kwargs): a missing argument
    counts only when the error points at a top-level ``class``/``def`` line of the file (the
    chosen candidate needs constructor arguments), not at a call inside a model."""
    if error is None or request.get("model") is not None or request.get("kwargs"):
        return False
    if code in (NO_MODEL, NOT_A_MODEL):
        return True
    if code != NEEDS_ARGUMENTS:
        return False
    match = re.match(r"(.*):(\d+):(\d+): error: ", error)
    if match is None or match.group(1) != request["path"]:
        return False
    try:
        lines = read_file(request["path"], (project_root(request["path"]),)).splitlines()
    except OSError:
        return False
    line = int(match.group(2))
    return 0 < line <= len(lines) and lines[line - 1].startswith((b"class ", b"def ", b"async def "))


def _settings_of(path: str, roots) -> tuple[dict, str | None]:
    try:
        text = read_file(path, (roots(path),))
    except OSError:
        return {}, None  # the analysis reports why it cannot read the file
    return file_settings(path, text)


def analyse_files(files: list[str], options: dict, jobs: int | None = None, use_cache: bool = True,
                  cache_dir: str | None = None, progress: Callable[[str], None] | None = None) -> FolderRun:
    """Analyse ``files`` with ``options`` (``model``, ``inputs``, ``kwargs``, ``rules``); a
    file's own ``# staticflops: input=...`` / ``model=...`` lines replace those two for it.
    ``cache_dir``: the results cache's folder, relative to the working directory.
    ``progress``: called with each file's path once it is done (cached ones first)."""
    start = time.perf_counter()
    done = progress or (lambda path: None)
    roots = _ProjectRoots()
    cache = ResultCache(Path.cwd() if use_cache else None, cache_dir or CACHE_DIR)
    results: dict[str, FileResult] = {}
    missing = []
    for path in files:
        try:
            reader = ConfinedReader((roots(path),))
        except OSError as error:  # a pyproject.toml on the way that may not be read
            why = error.reason if isinstance(error, RefusedRead) else f"cannot be read: {error.strerror or error}"
            results[path] = FileResult(path, error=f"{error.filename}:1:1: error: {error.filename} {why}")
            done(path)
            continue
        settings, bad = _settings_of(path, roots)
        if bad is not None:
            results[path] = FileResult(path, error=bad)
            done(path)
            continue
        request = {"path": path, **options, **settings}
        key = cache.key(request)
        entry = cache.lookup(key, reader, path)
        if entry is not None:
            results[path] = FileResult(path, entry["report"], cached=True)
            done(path)
        else:
            missing.append((path, key, request, reader))
    workers = max(1, min(jobs or os.cpu_count() or 1, len(missing)))
    if len(missing) >= PARALLEL_FROM and workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            chunk = max(1, len(missing) // (workers * 4))  # few round trips, still balanced
            outcomes = pool.map(_analyse_guarded, [r for _, _, r, _ in missing], [d for *_, d in missing],
                                chunksize=chunk)
            _collect(missing, outcomes, cache, results, done)  # in order, as each result arrives
    else:
        workers = 1
        outcomes = (_analyse_guarded(request, reader) for _, _, request, reader in missing)
        _collect(missing, outcomes, cache, results, done)
    return FolderRun([results[path] for path in files], time.perf_counter() - start, workers)


def _collect(missing: list, outcomes, cache: ResultCache, results: dict, done: Callable[[str], None]) -> None:
    for (path, key, request, _reader), (report, error, sources, disk, code) in zip(missing, outcomes):
        if report is not None and error is None:  # a partial report is analysed again next time
            cache.store(key, path, sources, disk, report)
        if _holds_no_model(request, error, code):
            results[path] = FileResult(path, skipped=error.replace(": error: ", ": ", 1))
        else:
            results[path] = FileResult(path, report, error)
        done(path)
