"""libcst's tree, lowered to the interpreter's plain nodes (``syntax.py``): same classes by
name, same fields, without whitespace, comments and punctuation.  Only a fresh parse runs this
(it needs libcst); a tree loaded from the parsed-module cache is already lowered."""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache

import libcst as cst

from staticflops.frontend.identifiers import nfkc
from staticflops.frontend.syntax import node_class

# Fields that hold only layout: whitespace, comments, blank lines and punctuation tokens.
# Everything the interpreter reads is elsewhere (tests/test_syntax.py checks each of these
# holds nothing but layout in every libcst node class).
LAYOUT_FIELDS = frozenset({
    "lpar", "rpar", "comma", "colon", "first_colon", "second_colon", "semicolon", "equal", "dot",
    "lbracket", "rbracket", "lbrace", "rbrace", "leading_lines", "lines_after_decorators", "header",
    "footer", "empty_lines", "newline", "trailing_whitespace", "first_line", "last_line", "comment",
    "trailing_comma", "leading_whitespace", "separator",
})
# Literal values computed once here, so that nothing needs libcst's ``evaluated_value``.
_EVALUATED = ("SimpleString", "Integer", "Float", "ConcatenatedString")


@lru_cache(maxsize=None)
def _kept_fields(node_type: type) -> tuple:
    kept = tuple(f.name for f in fields(node_type)
                 if f.name not in LAYOUT_FIELDS and not f.name.startswith("whitespace"))
    return kept + ("evaluated_value",) if node_type.__name__ in _EVALUATED else kept


@lru_cache(maxsize=None)
def _lowered_class(node_type: type) -> type:
    cls = node_class(node_type.__name__)
    cls._fields = _kept_fields(node_type)
    return cls


def lower(module: cst.Module, starts: dict, normalise: bool = False) -> tuple:
    """(lowered module, {lowered node: (line, zero-based column)}); ``starts`` maps
    ``id(libcst node)`` to its start, as ``positions.StartPositions.by_id`` does.
    ``normalise``: every ``Name`` gets its identifier as Python binds it (``identifiers.py``):
    done here, on the lowered copy, rather than by rebuilding libcst's tree, which cost more
    than the parse for a file with one non-NFKC character anywhere (a comment)."""
    positions: dict = {}
    node_type, sentinel = cst.CSTNode, cst.MaybeSentinel
    name_type = cst.Name

    def value_of(value):
        kind = type(value)
        if kind in (list, tuple):
            return tuple(value_of(item) for item in value)
        if node_type in kind.__mro__:
            return node(value)
        if kind is sentinel:  # "absent" in libcst's optional tokens and stars
            return None
        return value

    def node(original):
        kind = type(original)
        lowered = _lowered_class(kind).__new__(_lowered_class(kind))
        attributes = lowered.__dict__
        for name in _kept_fields(kind):
            if name == "evaluated_value":
                attributes[name] = _evaluated(original)
            else:
                attributes[name] = value_of(getattr(original, name))
        if normalise and kind is name_type:
            attributes["value"] = nfkc(attributes["value"])
        start = starts.get(id(original))
        if start is not None:
            positions[lowered] = start
        return lowered

    return node(module), positions


def _evaluated(node):
    try:
        value = node.evaluated_value
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (str, bytes, int, float)) else None
