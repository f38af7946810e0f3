"""Reading and parsing an analysed file: the only place its text becomes a syntax tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import ast

import libcst as cst

from staticflops.diagnostics import AnalysisError, Location
from staticflops.frontend.budget import MAX_FILE_BYTES
from staticflops.frontend.positions import start_positions


@dataclass(eq=False)
class SourceFile:
    path: str  # as the user named it, for messages
    module: cst.Module
    positions: dict = field(repr=False)  # node -> (line, zero-based column) where it starts
    internal: bool = False  # our own stub source: report the user's call site instead
    origin: Path | None = None  # the file on disk, for following its imports

    def location(self, node: cst.CSTNode | None) -> Location:
        position = self.positions.get(node) if node is not None else None
        if position is None:
            return Location(self.path, 1, 1)
        return Location(self.path, position[0], position[1] + 1)


# Reads a file's bytes by the path the user named: the filesystem by default; a git
# revision (``git show REV:path``) or a recording reader for caches.  Raises OSError.
FileReader = Callable[[str], bytes]


def read_from_disk(path: str) -> bytes:
    return Path(path).read_bytes()


def load_source(path: str | Path, display: str | None = None, reader: FileReader | None = None,
                max_bytes: int = MAX_FILE_BYTES) -> SourceFile:
    name = display or str(path)
    try:
        raw = (reader or read_from_disk)(str(path))
    except OSError as error:
        raise AnalysisError(f"cannot read {name}: {error.strerror or error}", code="SF001") from None
    if len(raw) > max_bytes:
        raise AnalysisError(f"{name} is {len(raw):,} bytes, over the {max_bytes:,}-byte limit (--max-file-bytes)",
                            Location(name, 1, 1), code="SF002")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise AnalysisError(f"{name} is not UTF-8 text ({error.reason} at byte {error.start})", code="SF003") from None
    source = parse_source(text, name)
    # Imports are followed in the same file space: the filesystem, or the reader's keys.
    source.origin = Path(path) if reader is not None else Path(path).resolve()
    return source


def parse_source(text: str, name: str, internal: bool = False) -> SourceFile:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        raise _syntax_error(text, name, error) from None
    except RecursionError:
        raise AnalysisError(f"{name} is nested too deeply to parse", code="SF005") from None
    if internal:  # our stub code reports the user's call site, so it needs no positions
        return SourceFile(name, module, {}, internal)
    return SourceFile(name, module, start_positions(module), internal)


def _syntax_error(text: str, name: str, error: cst.ParserSyntaxError) -> AnalysisError:
    """libcst's positions point past the fault; Python's own parser (parse only,
    nothing is run) names the exact place and a message users know."""
    try:
        ast.parse(text, filename=name)
    except SyntaxError as precise:
        where = Location(name, precise.lineno or 1, precise.offset or 1)
        return AnalysisError(f"syntax error: {precise.msg}", where, code="SF004")
    except (ValueError, RecursionError, MemoryError):
        pass
    where = Location(name, error.raw_line, error.raw_column + 1)
    return AnalysisError(f"syntax error: {error.message}", where, code="SF004")
