"""A lazy package's names as type checkers see them: its ``if TYPE_CHECKING:`` imports.

A lazy-import package (transformers', diffusers' ``_LazyModule``) builds the table of its names
at import time, often by listing its folders and scanning every file's text
(``os.scandir``, ``open``): a file-system walk our interpreter does not do, so the statement
that would install the lazy module is skipped and ``from pkg import Name`` finds nothing.  The
same package states its names for static type checkers in an ``if TYPE_CHECKING:`` block
(``from .auto import *``, ``from .cache_utils import Cache``), and that block is what mypy and
pyright follow.  So a name neither bound by the package's code nor a submodule is looked up
there: an explicit import binding it is followed; a star import is followed only into a module
whose text defines the name at its top level (or a package whose own such block leads to one),
so one name costs reading a few files' text, not running the hundreds a star import lists.
"""

from __future__ import annotations

import re
from pathlib import Path

from staticflops.diagnostics import AnalysisError
from staticflops.files import RefusedRead, read_file, read_limit
from staticflops.frontend import syntax as cst
from staticflops.frontend.bindings import names_type_checking
from staticflops.frontend.scope import MISSING
from staticflops.frontend.source import load_source


def type_checking_imports(imports, init_file: Path, files) -> list[cst.ImportFrom]:
    """The ``from ... import ...`` statements of ``init_file``'s top-level ``if TYPE_CHECKING:``."""
    budget = imports.interp.budget
    try:
        source = load_source(init_file, str(init_file), reader=files.reader, max_bytes=budget.max_file_bytes,
                             roots=files.roots, parse_limits=budget.parse_limits,
                             library=files is imports.libraries)
    except AnalysisError:  # unreadable here means: nothing declared (the import itself reports it)
        return []
    found = []
    for statement in source.module.body:
        if isinstance(statement, cst.If) and names_type_checking(statement.test):
            for line in getattr(statement.body, "body", ()):
                if isinstance(line, cst.SimpleStatementLine):  # nested blocks: not followed
                    found += [s for s in line.body if isinstance(s, cst.ImportFrom)]
    return found


def type_checking_export(imports, init_file: Path, name: str, files):
    """``name`` as the package ``init_file`` declares it for type checkers, else MISSING."""
    for statement in type_checking_imports(imports, init_file, files):
        level = len(statement.relative)
        dotted = "." * level + (_dotted(statement.module) if statement.module is not None else "")
        if isinstance(statement.names, cst.ImportStar):
            path = _target_file(init_file, level, dotted[level:], files)
            if path is None or not _may_define(imports, path, name, files, set()):
                continue
            target = imports.find(dotted, init_file) if level else imports.find_library(dotted)
            value = _member(target, name)
            if value is not MISSING:
                return value
            continue
        for alias in statement.names:
            bound = alias.asname.name.value if alias.asname is not None else _dotted(alias.name)
            if bound == name:
                target = imports.find(dotted, init_file) if level else (
                    imports.find(dotted, None) or imports.find_library(dotted))
                return _member(target, _dotted(alias.name))
    return MISSING


def _member(target, name: str):
    if target is None or not hasattr(target, "members"):
        return MISSING
    value = target.members.get(name, MISSING)
    if value is MISSING and target.loader is not None:
        value = target.loader(name)  # a package: runs its __init__.py, then looks further
    return value


def _may_define(imports, path: Path, name: str, files, seen: set) -> bool:
    """Whether the module ``path`` defines ``name`` at its top level (its text says so), or is a
    package whose type-checking star imports lead to one that does."""
    if path in seen:
        return False
    seen.add(path)
    text = _text(path, files, imports.interp.budget.max_file_bytes)
    if re.search(rf"^(?:class|def)\s+{re.escape(name)}\b|^{re.escape(name)}\s*[:=]", text, re.M):
        return True
    if path.name != "__init__.py":
        return False
    for statement in type_checking_imports(imports, path, files):
        level = len(statement.relative)
        if isinstance(statement.names, cst.ImportStar) and level and statement.module is not None:
            inner = _target_file(path, level, _dotted(statement.module), files)
            if inner is not None and _may_define(imports, inner, name, files, seen):
                return True
    return False


def _target_file(importer: Path, level: int, dotted: str, files) -> Path | None:
    if not level:
        return None  # an absolute star import: left to the lazy machinery
    base = importer.parent
    for _ in range(level - 1):
        base = base.parent
    parts = [p for p in dotted.split(".") if p]
    target = base.joinpath(*parts)
    for candidate in ([target.parent / f"{parts[-1]}.py"] if parts else []) + [target / "__init__.py"]:
        if files.is_file(candidate):
            return candidate
    return None


def _text(path: Path, files, max_bytes: int) -> str:
    try:
        with read_limit(max_bytes):
            raw = read_file(path, files.roots) if files.reader is None else files.reader(str(path))
    except (RefusedRead, OSError):
        return ""
    return raw.decode("utf-8", "replace")


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    return f"{_dotted(node.value)}.{node.attr.value}"
