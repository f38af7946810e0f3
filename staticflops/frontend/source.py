"""Reading and parsing an analysed file: the only place its text becomes a syntax tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import re

from staticflops.diagnostics import AnalysisError, Location
from staticflops.files import RefusedRead, project_root, read_file, read_limit
from staticflops.frontend import parsed_cache
from staticflops.frontend.budget import MAX_FILE_BYTES, PARSE_LIMITS
from staticflops.frontend.libcst_route import parse_with_libcst
from staticflops.frontend.suppressions import ignore_comments

# libcst (and the modules built on it) is imported only when a text is really parsed
# (libcst_route.py): a tree found in the parsed-module cache (parsed_cache.py) needs neither, and
# importing libcst costs more than most analyses.


@dataclass(eq=False)
class SourceFile:
    path: str  # as the user named it, for messages
    module: object  # syntax.Module: the lowered tree (syntax.py)
    positions: dict = field(repr=False)  # node -> (line, zero-based column) where it starts
    internal: bool = False  # our own stub source: report the user's call site instead
    origin: Path | None = None  # the file on disk, for following its imports
    text: str = field(default="", repr=False)  # what was parsed
    roots: tuple = ()  # read from disk: the folders its imports may be read from (files.project_root)
    ignores: dict = field(default_factory=dict, repr=False)  # line -> codes its `# staticflops: ignore[...]` names

    def location(self, node) -> Location:
        position = self.positions.get(node) if node is not None else None
        if position is None:
            return Location(self.path, 1, 1)
        return Location(self.path, position[0], position[1] + 1)


# Reads a file's bytes by the path the user named: the filesystem by default; a git
# revision (``git show REV:path``) or a recording reader for caches.  Raises OSError
# (files.RefusedRead for a file outside the project, not a regular file or too big).
FileReader = Callable[[str], bytes]


def load_source(path: str | Path, display: str | None = None, reader: FileReader | None = None,
                max_bytes: int = MAX_FILE_BYTES, roots: tuple | None = None,
                parse_limits: tuple[int, int] = PARSE_LIMITS, cache_root: Path | None = None,
                library: bool = False) -> SourceFile:
    """``roots``: without a reader, the folders the file must lie in (default: its project root).
    ``cache_root``: with a reader that still reads the disk (a config.json's stand-in module,
    hf_config.py), the project whose cache folder keeps parsed trees; a reader alone has none.
    ``library``: third-party source read from site-packages or ``--source-path`` (parse_source)."""
    name = display or str(path)
    try:
        if reader is None and not roots:
            roots = (project_root(path),)
            parsed_cache.use_project(roots[0])  # the analysed file: its project holds the cache
        elif not roots:
            parsed_cache.use_project(cache_root)  # None: a git revision, text given to the API: no cache
    except RefusedRead as refused:  # a pyproject.toml on the way up, which `check` would refuse too
        raise AnalysisError(f"{refused.filename} {refused.reason}", Location(refused.filename, 1, 1),
                            code="SF001") from None
    except OSError as error:
        raise AnalysisError(f"cannot read {error.filename}: {error.strerror or error}", code="SF001") from None
    try:
        with read_limit(max_bytes):  # a reader's disk reads stop at the limit too (files.py)
            raw = read_file(path, roots) if reader is None else reader(str(path))
    except RefusedRead as refused:
        hint = " (--max-file-bytes)" if refused.kind == "size" else ""
        raise AnalysisError(f"{name} {refused.reason}{hint}", Location(name, 1, 1),
                            code="SF002" if refused.kind == "size" else "SF001") from None
    except OSError as error:
        raise AnalysisError(f"cannot read {name}: {error.strerror or error}", code="SF001") from None
    if len(raw) > max_bytes:
        raise AnalysisError(f"{name} is {len(raw):,} bytes, over the {max_bytes:,}-byte limit (--max-file-bytes)",
                            Location(name, 1, 1), code="SF002")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise AnalysisError(f"not UTF-8 text: {error.reason} (byte 0x{raw[error.start]:02x})",
                            _byte_location(name, raw, error.start), code="SF003") from None
    if "\x00" in text:
        raise AnalysisError("NUL byte in the source: not a Python text file", _byte_location(name, raw, raw.index(b"\0")),
                            code="SF003")
    source = parse_source(text, name, parse_limits=parse_limits, library=library)
    # Imports are followed in the same file space: the filesystem, or the reader's keys.
    source.origin = Path(path) if reader is not None else Path(path).resolve()
    source.roots = tuple(roots or ())
    return source


def _byte_location(name: str, raw: bytes, offset: int) -> Location:
    """line:col of a byte offset, counting characters that decode before it on its line."""
    start = raw.rfind(b"\n", 0, offset) + 1
    column = len(raw[start:offset].decode("utf-8", errors="replace")) + 1
    return Location(name, raw.count(b"\n", 0, offset) + 1, column)


MAX_NESTING = 1_000  # brackets or unary operators inside each other; real code stays under ~20
_BRACKET = re.compile(r"[()\[\]{}]")
_UNARY_RUN = re.compile(r"(?:(?:[-+~]|\bnot\b)\s*){%d,}" % MAX_NESTING)


def _refuse_deep_nesting(text: str, name: str) -> None:
    """libcst's parser needs memory and time out of all proportion to nesting (30,000 nested
    parentheses exhaust gigabytes): refuse such text before parsing, at the place it gets too deep.
    Strings and comments are not skipped, so this over-counts only for text full of brackets."""
    if sum(map(text.count, "([{")) < MAX_NESTING:  # cannot nest that deep: skip the walk
        return _refuse_unary_runs(text, name)
    depth = 1
    for bracket in _BRACKET.finditer(text):  # only the brackets: a walk over every character cost ~10x
        if bracket.group() in "([{":
            depth += 1
            if depth > MAX_NESTING:
                index = bracket.start()
                where = Location(name, text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index))
                raise AnalysisError(f"brackets nest over {MAX_NESTING} deep", where, code="SF005")
        else:
            depth = max(1, depth - 1)
    _refuse_unary_runs(text, name)


def _refuse_unary_runs(text: str, name: str) -> None:
    # Each operator of a run is one `-`, `+`, `~` or `not`: a text with fewer in all has no run
    # (C counts; the search tries every position: ~1.6 ms for 100 kB, most library files pass here)
    if sum(map(text.count, ("-", "+", "~", "not"))) < MAX_NESTING:
        return
    run = _UNARY_RUN.search(text)
    if run:
        where = Location(name, text.count("\n", 0, run.start()) + 1, run.start() - text.rfind("\n", 0, run.start()))
        raise AnalysisError(f"over {MAX_NESTING} unary operators nest inside each other", where, code="SF005")


def parse_source(text: str, name: str, internal: bool = False,
                 parse_limits: tuple[int, int] = PARSE_LIMITS, library: bool = False) -> SourceFile:
    """``parse_limits``: (--max-tokens, --max-expr-depth), checked before libcst sees the text.
    The tree comes from the parsed-module cache when this text was parsed before under the
    same limits (it passed these checks then: they depend on nothing else).
    ``library``: read-only third-party source, lowered from Python's own parser
    (``ast_lowering.py``: the same tree and positions, a fraction of the time), and so are
    our own stub sources, a config.json's generated stand-in and the ``--model`` expression;
    text that route does not model, and the analysed project's own files, go to libcst."""
    key = parsed_cache.entry_key(text, internal, parse_limits)
    cached = parsed_cache.kept(key) or parsed_cache.load(key, text, name)
    if cached is not None:
        return SourceFile(name, cached[0], cached[1], internal, text=text, ignores=ignore_comments(text))
    if library:
        parsed_cache.claim(key)  # parsed here: the process parsing ahead (prefetch.py) skips it
    module, positions = _parse(text, name, internal, parse_limits, library)
    # library source: stored when the analysis ends, with the blocks it lowered by then
    (parsed_cache.store_later if library else parsed_cache.store)(key, module, positions)
    return SourceFile(name, module, positions, internal, text=text, ignores=ignore_comments(text))


def _parse(text: str, name: str, internal: bool, parse_limits: tuple[int, int], library: bool = False) -> tuple:
    """(lowered tree, positions) of a fresh parse: libcst's, or Python's for library source."""
    from staticflops.frontend.parse_guard import check_parse_cost

    if internal or library:  # our own stub code is read by Python's parser too: no libcst import
        from staticflops.frontend.ast_lowering import Unsupported, lower_library_source

        if not internal:
            _refuse_deep_nesting(text, name)
        try:  # the parse limits are checked there (the same refusals, cheaper when surely met)
            if internal:  # no positions (as below), every body at once: nothing to lower later
                return lower_library_source(text, name, lazy_bodies=False)[0], {}
            return lower_library_source(text, name, parse_limits)
        except Unsupported:
            pass  # libcst reads it (and reports a syntax error with its place)
    if not internal:
        if not library:
            _refuse_deep_nesting(text, name)
        check_parse_cost(text, name, *parse_limits)
    return parse_with_libcst(text, name, internal)
