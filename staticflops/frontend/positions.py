"""Start positions of every node of a libcst tree, from one code-generation pass.

libcst's ``MetadataWrapper(...).resolve(PositionProvider)`` gives the same syntactic start
positions but builds full ranges through its metadata machinery, which costs several times
the parse itself.  Here one ``Module._codegen`` pass counts lines and columns as tokens are
emitted and keeps only where each node starts (libcst's own rule: the syntactic start a node
records, else where its code begins).  ``Module._codegen`` and ``CodegenState`` are libcst
internals, so ``tests/test_positions.py`` compares against ``PositionProvider``.
"""

from __future__ import annotations

from contextlib import contextmanager

import libcst as cst
from libcst._nodes.internal import CodegenState


class _StartRecorder(CodegenState):
    def __init__(self, module: cst.Module):
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.starts: dict = {}
        self.line, self.column = 1, 0  # one-based line, zero-based column
        self._stack: list = []

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self._advance(token)

    def add_token(self, value: str) -> None:
        self._advance(value)

    def pop_trailing_newline(self) -> None:
        pass  # only the end of the file moves: no node starts after it

    def _advance(self, value: str) -> None:
        newlines = value.count("\n") + value.count("\r") - value.count("\r\n")
        if newlines:
            self.line += newlines
            self.column = len(value) - max(value.rfind("\n"), value.rfind("\r")) - 1
        else:
            self.column += len(value)

    def before_codegen(self, node) -> None:
        self._stack.append((self.line, self.column))

    def after_codegen(self, node) -> None:
        start = self._stack.pop()
        if node not in self.starts:  # a syntactic start recorded inside wins
            self.starts[node] = start

    @contextmanager
    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        start = (self.line, self.column)
        try:
            yield
        finally:
            self.starts[node] = self.starts[start_node] if start_node is not None else start


def start_positions(module: cst.Module) -> dict:
    """``{node: (line, column)}``, line one-based and column zero-based, as libcst counts."""
    recorder = _StartRecorder(module)
    module._codegen(recorder)
    return recorder.starts
