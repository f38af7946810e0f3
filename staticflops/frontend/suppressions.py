"""``# staticflops: ignore[SF400]`` comments: the lines where the user accepts a report.

A comment suppresses the codes it names on its own line, and only those (a comment naming no
code suppresses nothing: a blanket ignore would hide reports nobody has read).  Only comments
count: the same text inside a string is not a suppression, so the file is tokenized (only
when the marker occurs in it at all)."""

from __future__ import annotations

import io
import re
import tokenize

MARKER = "staticflops:"
_COMMENT = re.compile(r"#\s*staticflops:\s*ignore\[([A-Za-z0-9_,\s]*)\]")
_CODE = re.compile(r"SF\d{3}")


def ignore_comments(text: str) -> dict[int, frozenset[str]]:
    """Line number (1-based) -> the codes its ignore comment names."""
    if MARKER not in text:
        return {}
    found: dict[int, frozenset[str]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                _add(found, token.start[0], token.string)
    except (tokenize.TokenError, SyntaxError):  # libcst parsed it; tokenize may still refuse
        for number, line in enumerate(text.splitlines(), 1):  # then every `#` on a line counts
            if "#" in line:
                _add(found, number, line[line.index("#"):])
    return found


def _add(found: dict, line: int, comment: str) -> None:
    codes = {code for match in _COMMENT.finditer(comment) for code in _CODE.findall(match.group(1).upper())}
    if codes:
        found[line] = frozenset(codes)
