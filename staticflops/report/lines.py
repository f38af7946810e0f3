"""An output stream that ends no line in spaces.  rich pads table cells and leaves the space
where it wrapped a long line at the line's end; trailing spaces make copied output and
diffs of it noisy, so every renderer's console writes through this."""

from __future__ import annotations

import re

# spaces at the end of a line, before any closing style codes a terminal gets
_TRAILING = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$")


class TrimmedLines:
    def __init__(self, stream):
        self._stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        if lines:
            self._stream.write("".join(_TRAILING.sub(r"\1", line) + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(_TRAILING.sub(r"\1", self._pending))
            self._pending = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self):
        return getattr(self._stream, "encoding", "utf-8")
