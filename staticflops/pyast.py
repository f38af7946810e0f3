"""Python's own parser (``ast.parse``), one parse at a time in a process.

CPython 3.11 keeps the AST constructor's recursion counter in the interpreter's state, not the
thread's: two threads parsing at once (two analyses started from threads, each reading its
rule formulas and source) can fail with ``SystemError: AST constructor recursion depth
mismatch``.  Every stage parses through here; the lock costs nothing when one thread runs."""

from __future__ import annotations

import ast
import threading

_ONE_AT_A_TIME = threading.RLock()  # re-entrant: a collector callback in the same thread may parse


def parse(text, *args, **kwargs) -> ast.AST:
    with _ONE_AT_A_TIME:
        return ast.parse(text, *args, **kwargs)
