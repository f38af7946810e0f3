"""Start positions of every node of a libcst tree, from one code-generation pass.

libcst's ``MetadataWrapper(...).resolve(PositionProvider)`` gives the same syntactic start
positions but builds full ranges through its metadata machinery, which costs several times
the parse itself.  Here one ``Module._codegen`` pass counts lines and columns as tokens are
emitted and keeps only where each node starts (libcst's own rule: the syntactic start a node
records, else where its code begins).  ``Module._codegen`` and ``CodegenState`` are libcst
internals, so ``tests/test_positions.py`` compares against ``PositionProvider``.
"""

from __future__ import annotations

import libcst as cst
from libcst._nodes.internal import CodegenState


class _Syntactic:
    """``record_syntactic_position``'s context: a plain class, as libcst enters one for most
    nodes and a ``@contextmanager`` generator costs several times more per use."""

    __slots__ = ("recorder", "key", "start_key", "start")

    def __init__(self, recorder, key, start_key):
        self.recorder, self.key, self.start_key = recorder, key, start_key

    def __enter__(self):
        self.start = (self.recorder.line, self.recorder.column)

    def __exit__(self, *error):
        starts = self.recorder.starts
        starts[self.key] = starts[self.start_key] if self.start_key is not None else self.start


class _StartRecorder(CodegenState):
    """Keys are ``id(node)``: libcst's ``CSTNode.__hash__`` is Python code, and the pass
    would call it about three times per node (the tree, alive as long as the result, keeps
    the ids unique)."""

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
        if "\n" in value or "\r" in value:
            self.line += value.count("\n") + value.count("\r") - value.count("\r\n")
            self.column = len(value) - max(value.rfind("\n"), value.rfind("\r")) - 1
        else:
            self.column += len(value)

    def before_codegen(self, node) -> None:
        self._stack.append((self.line, self.column))

    def after_codegen(self, node) -> None:
        # a syntactic start recorded inside wins
        self.starts.setdefault(id(node), self._stack.pop())

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _Syntactic(self, id(node), None if start_node is None else id(start_node))


class StartPositions:
    """Where each node of one tree starts: ``get(node)`` -> ``(line, column)`` or None."""

    __slots__ = ("_by_id", "_tree")

    def __init__(self, by_id: dict, tree):
        self._by_id, self._tree = by_id, tree  # the tree is kept so that no id is reused

    def get(self, node, default=None):
        return self._by_id.get(id(node), default)

    @property
    def by_id(self) -> dict:
        """``id(node)`` -> start, for a rewrite of the tree to carry over (``identifiers.py``)."""
        return self._by_id

    def __len__(self) -> int:
        return len(self._by_id)


def start_positions(module: cst.Module) -> StartPositions:
    """Line one-based and column zero-based, as libcst counts."""
    recorder = _StartRecorder(module)
    module._codegen(recorder)
    return StartPositions(recorder.starts, module)
