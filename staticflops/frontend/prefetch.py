"""Parsing library files ahead, in a second process, while the analysis runs (a cold
``analyze config.json``: issue 19, item 5).

A first analysis of a Hugging Face config parses ~100 files of transformers and its
dependencies, one after the other as the interpreter reaches them, on one core.  Once the
analysis knows its model file, a forked process parses, on the other core, the files that
define the names that model file imports (``from ...modeling_utils import PreTrainedModel``:
``modeling_utils.py``; a package's name is followed to the module its ``__init__.py`` imports it
from, ``TYPE_CHECKING`` imports included), largest first, and files each of them as a
parsed-module cache entry (``parsed_cache.py``).  When the analysis reaches such a file it finds
the entry and decodes it instead of parsing.

Why only those files: the interpreter reads a module when one of its names is *used*
(``imports.py``), so following every import statement from the model file reaches ~2,300 files
of which a Llama analysis reads 94; the names the model file imports are read by nearly every
analysis of it, and most are first used late (in ``__init__`` or ``forward``), which gives the
second process time to finish them first.

What the second process may do, and no more:

* It parses with the analysis's own code (``source._parse``: the same refusals and limits) and
  reads only library files, through the same confined reader (``LibraryFiles.reader``).
* Its entries are whole trees (every function body lowered: it cannot know which the analysis
  runs), signed and written like any entry (``cachefolder.write_entry``: a fresh file renamed
  into place), so the analysis and it writing the same entry is harmless, and a report never
  depends on which of them parsed a file: an entry holds the very tree a parse gives.
* The analysis announces each library text it parses itself (``parsed_cache.claim``, a pipe);
  the second process skips those.
* Bounded: at most ``MAX_FILES`` files, ``MAX_CPU_SECONDS`` of CPU (the kernel ends it past
  that), and it stops when the analysis has run (``Prefetch.stop``; reaped before ``analyze``
  returns, ``reap_stopped``) or its parent is gone.  It runs at the lowest priority: a core
  the analysis or anything else wants is not taken from them.
* Forked only from a process with one thread (forking a threaded process can copy a held
  lock); without ``os.fork``, or with ``STATICFLOPS_PREFETCH=0``, nothing is parsed ahead.
"""

from __future__ import annotations

import ast
import os
import signal
import sys
import threading
from pathlib import Path

from staticflops import pyast
from staticflops.frontend import parsed_cache

ENVIRONMENT = "STATICFLOPS_PREFETCH"  # "0": never parse ahead
MAX_FILES = 64
MAX_CPU_SECONDS = 20
_STACK_BYTES = 256 * 1024 * 1024  # lowering and encoding a deep tree recurse (api._with_deep_stack)
_RECURSION_LIMIT = 20_000
_INDIRECTIONS = 4  # package re-exports followed for one name (`from .utils import X` in `__init__.py`)


class Prefetch:
    """The second process, seen from the analysis."""

    def __init__(self, pid: int, claims: int):
        self.pid, self.claims = pid, claims

    def stop(self) -> None:
        """Tell the second process to end now (a write under way is finished first); it is
        reaped by ``reap_stopped`` once the analysis has stored its own trees, so that its
        exit (unmapping its memory, at a low priority) overlaps that work instead of delaying it."""
        parsed_cache.send_claims_to(None)
        try:
            os.close(self.claims)
        except OSError:
            pass
        try:
            os.kill(self.pid, signal.SIGTERM)
        except OSError:
            pass
        with _STOPPING:
            _STOPPED.append(self.pid)


_STOPPED: list = []  # pids told to end, not reaped yet
_STOPPING = threading.Lock()


def reap_stopped() -> None:
    """Wait for every second process told to end (``api.analyze`` calls this before returning)."""
    with _STOPPING:
        pids = list(_STOPPED)
        _STOPPED.clear()
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def start(model_file_source: str, libraries, parse_limits: tuple, max_bytes: int, cache_root: Path | None):
    """Fork the second process for the analysis whose entry module is ``model_file_source``
    (a config.json's stand-in, ``hf_config.py``); None when it cannot or should not run."""
    if os.environ.get(ENVIRONMENT) == "0" or not hasattr(os, "fork") or threading.active_count() != 1:
        return None
    parsed_cache.use_project(cache_root)
    if not parsed_cache.active():  # no cache folder or no secret: nowhere to leave the trees
        return None
    if _model_files_cached(model_file_source, libraries, parse_limits, max_bytes):
        return None  # analysed before: the trees it needs are in the cache (or were refused)
    try:
        reading, writing = os.pipe()
    except OSError:  # out of descriptors: the analysis parses everything itself
        return None
    os.set_blocking(writing, False)
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(reading)
        os.close(writing)
        return None
    if pid == 0:  # the second process: never returns into the analysis
        try:
            os.close(writing)
            _run(reading, parent, model_file_source, libraries, parse_limits, max_bytes)
        finally:
            os._exit(0)
    os.close(reading)
    parsed_cache.send_claims_to(writing)
    return Prefetch(pid, writing)


def _idle_priority() -> None:
    """A spare core's work: at the lowest niceness, on a busy machine it takes ~1.5% of a core
    that the analysis or anything else wants (at nice 10 it took ~10% of the analysis's and
    delivered nothing in time).  Not SCHED_IDLE: a process at that policy can wait for seconds
    to be scheduled even to exit, and the analysis waits for it to end."""
    try:
        os.nice(19)
    except OSError:
        pass


def _model_files_cached(source: str, libraries, parse_limits: tuple, max_bytes: int) -> bool:
    """Whether every model file ``source`` imports has a parsed-module cache entry already."""
    for module, _names in _imports(_tree(source), None, libraries):
        path = libraries.locate(module)
        if not isinstance(path, Path):
            continue
        try:
            raw = libraries.reader(str(path))
            key = parsed_cache.entry_key(raw.decode("utf-8"), False, parse_limits)
        except (OSError, UnicodeDecodeError):
            continue
        if len(raw) <= max_bytes and not parsed_cache.has_entry(key):
            return False
    return True


def _run(claims: int, parent: int, source: str, libraries, parse_limits: tuple, max_bytes: int) -> None:
    import resource

    try:  # the kernel ends it past this (SIGXCPU), whatever it is doing, and leaves no core file
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (MAX_CPU_SECONDS, MAX_CPU_SECONDS + 1))
    except (ValueError, OSError):
        pass
    _idle_priority()
    # SIGTERM (Prefetch.stop) ends the process at once, except while an entry is being written:
    # blocked here, in the thread that waits, and in the working thread around each write.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    os.set_blocking(claims, False)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), _RECURSION_LIMIT))
    threading.stack_size(_STACK_BYTES)
    worker = threading.Thread(target=_work, args=(claims, parent, source, libraries, parse_limits, max_bytes),
                              daemon=True)
    worker.start()
    worker.join()


def _work(claims: int, parent: int, source: str, libraries, parse_limits: tuple, max_bytes: int) -> None:
    from staticflops.diagnostics import AnalysisError
    from staticflops.frontend.source import _parse

    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    claimed: set = set()
    pending = b""
    queue = predicted_files(source, libraries)
    given = set(queue)
    done = 0
    while queue and done < MAX_FILES:
        path = queue.pop(0)
        if os.getppid() != parent:
            return
        try:
            received = os.read(claims, 1 << 16)
        except BlockingIOError:
            received = None
        except OSError:
            return
        if received == b"":  # the analysis closed the pipe: it is over
            return
        if received:
            *lines, pending = (pending + received).split(b"\n")
            claimed.update(line.decode("ascii", "replace") for line in lines)
        try:
            raw = libraries.reader(str(path))
        except OSError:
            continue
        if len(raw) > max_bytes:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        key = parsed_cache.entry_key(text, False, parse_limits)
        if "\x00" in text or key in claimed or parsed_cache.has_entry(key):
            continue
        try:
            module, positions = _parse(text, str(path), False, parse_limits, library=True)
            data = parsed_cache.entry_bytes(key, module, positions, whole=True)
            later = [p for p in imported_modules(module, path, libraries) if p not in given]
        except (AnalysisError, RecursionError, MemoryError, ValueError, SyntaxError):
            continue  # the analysis meets the same refusal, and reports it, if it reads this file
        given.update(later)
        queue += later
        if data is None:
            continue
        done += 1
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            parsed_cache.store_bytes(key, data)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


# --- which files: the modules that define the names the model file imports

def predicted_files(source: str, libraries) -> list:
    """Library files the analysis of ``source`` (the stand-in module: ``from <model module>
    import <class>``) will most likely parse, in the order to parse them ahead: the files
    defining the names its model modules import from their own package (torch and the like
    are the framework's, never read), largest first; names only signature annotations use are
    left out (those are not evaluated); then the packages those names were followed through.
    (The modules *these* import come next, found in their parsed trees: ``imported_modules``.)"""
    _TREES.clear()
    models = []
    for module, _names in _imports(_tree(source), None, libraries):
        found = libraries.locate(module)
        if isinstance(found, Path):
            models.append((module.split(".")[0], found))
    packages: list = []
    defining = []
    for top, model in models:
        tree = _read_tree(model, libraries)
        used = _runtime_names(tree)
        for module, names in _imports(tree, model, libraries):
            if module.split(".")[0] != top:
                continue
            for name in names:
                if name in used or name == "*":
                    defining += [p for p in _defining(module, name, libraries, _INDIRECTIONS, packages)
                                 if p not in defining]
    given = [path for _, path in models]
    wanted = sorted((p for p in defining if p not in given), key=_size, reverse=True)
    return wanted + [p for p in packages if p not in wanted and p not in given]


def imported_modules(module, path: Path, libraries) -> list:
    """The library files of the modules a parsed library file (its lowered tree, ``syntax.py``)
    imports at module level from its own top package: each plain module a `from X import ...`
    or `import X` names (a package's names would each need its ``__init__.py`` read: left out)."""
    name = libraries.module_name(path)
    if name is None:
        return []
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = name.split(".")[0]
    found = []
    for statement in _module_level(module):
        kind = type(statement).__name__
        if kind == "ImportFrom":
            dotted = _dotted(statement.module) if statement.module is not None else ""
            level = len(statement.relative)
            if level:
                parts = package.split(".")
                if level - 1 >= len(parts):
                    continue
                dotted = ".".join(parts[:len(parts) - (level - 1)] + ([dotted] if dotted else []))
            targets = [dotted]
        elif kind == "Import":
            targets = [_dotted(alias.name) for alias in statement.names]
        else:
            continue
        for dotted in targets:
            if dotted and dotted.split(".")[0] == top:
                located = libraries.locate(dotted)
                if isinstance(located, Path) and located.name != "__init__.py" and located not in found:
                    found.append(located)
    return found


def _module_level(module) -> list:
    """The statements of a lowered module run at import time: its top level and, inside it, the
    blocks of `if` (``TYPE_CHECKING`` ones too: a cheap guess), `try` and `with`."""
    found, blocks = [], [module.body]
    while blocks:
        for statement in blocks.pop(0):
            kind = type(statement).__name__
            if kind in ("SimpleStatementLine", "SimpleStatementSuite"):
                found.extend(statement.body)
            elif kind in ("If", "Try", "With", "Else", "Finally", "ExceptHandler"):
                body = statement.body
                blocks.append(body.body if type(body).__name__ == "IndentedBlock" else (body,))
                for field in ("orelse", "finalbody"):
                    branch = getattr(statement, field, None)
                    if branch is not None:
                        blocks.append((branch,))
                blocks.extend((handler,) for handler in getattr(statement, "handlers", ()))
    return found


def _dotted(node) -> str:
    kind = type(node).__name__
    if kind == "Name":
        return node.value
    if kind == "Attribute":
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _runtime_names(tree) -> set:
    """Names a module's code reads outside its functions' signature annotations
    (`**kwargs: Unpack[Kwargs]` reads none)."""
    used: set = set()
    if tree is None:
        return used
    nodes = [tree]
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.Name):
            used.add(node.id)
            continue
        for field, value in ast.iter_fields(node):
            if field == "returns" or field == "annotation" and isinstance(node, ast.arg):
                continue  # a signature's: not evaluated (a class body's `config: LlamaConfig` is)
            if isinstance(value, ast.AST):
                nodes.append(value)
            elif isinstance(value, list):
                nodes.extend(item for item in value if isinstance(item, ast.AST))
    return used


def _defining(module: str, name: str, libraries, indirections: int, packages: list) -> list:
    """The file(s) ``from module import name`` reads: a submodule ``module.name``, the module
    itself, or, for a package re-exporting the name, where its ``__init__.py`` imports it from
    (``TYPE_CHECKING`` imports included: transformers' lazy packages list their names there);
    each such ``__init__.py`` is added to ``packages``."""
    submodule = libraries.locate(f"{module}.{name}") if name != "*" else None
    if isinstance(submodule, Path):
        return [submodule]
    found = libraries.locate(module)
    if not isinstance(found, Path):
        return []
    if found.name != "__init__.py" or indirections == 0 or name == "*":
        return [found]
    if found not in packages:
        packages.append(found)
    for origin, names in _imports(_read_tree(found, libraries), found, libraries, type_checking=True):
        if name in names:
            return _defining(origin, name, libraries, indirections - 1, packages) or [found]
    return [found]


def _imports(tree, path: Path | None, libraries, type_checking: bool = False) -> list:
    """(absolute module, [names]) of each `from ... import` run at module level (in `if`, `try`
    and `with` blocks too; ``TYPE_CHECKING`` blocks only when ``type_checking``), and
    (module, []) of each `import`."""
    if tree is None:
        return []
    package = None
    if path is not None:
        name = libraries.module_name(path)
        if name is None:
            return []
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    blocks = [tree.body]
    while blocks:
        for statement in blocks.pop(0):
            if isinstance(statement, ast.ImportFrom):
                module = _absolute(statement, package)
                if module:
                    found.append((module, [alias.name for alias in statement.names]))
            elif isinstance(statement, ast.Import):
                found += [(alias.name, []) for alias in statement.names]
            elif isinstance(statement, ast.If):
                if type_checking or not _is_type_checking(statement.test):
                    blocks.append(statement.body)
                blocks.append(statement.orelse)
            elif isinstance(statement, ast.Try):
                blocks += [statement.body, *(handler.body for handler in statement.handlers), statement.orelse,
                           statement.finalbody]
            elif isinstance(statement, (ast.With, ast.ClassDef)):
                blocks.append(statement.body)
    return found


def _absolute(statement: ast.ImportFrom, package: str | None) -> str | None:
    if not statement.level:
        return statement.module
    if package is None:
        return None
    parts = package.split(".")
    if statement.level - 1 >= len(parts):
        return None
    base = parts[:len(parts) - (statement.level - 1)]
    return ".".join(base + ([statement.module] if statement.module else []))


def _is_type_checking(test) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _tree(text: str):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return pyast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def _read_tree(path: Path, libraries):
    """``ast`` tree of a library file (None: unreadable), parsed once per prediction: a
    package's ``__init__.py`` is asked about each name imported from it."""
    if path not in _TREES:
        try:
            _TREES[path] = _tree(libraries.reader(str(path)).decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            _TREES[path] = None
    return _TREES[path]


_TREES: dict = {}


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
