"""Text a pull request controls, made safe to show: in a terminal or CI log, and in Markdown.

Layer names (``self.add_module(any_string, ...)``), model names and rule names from the
config, file paths, a rule file's ``convention`` and messages quoting any of these are chosen
by whoever wrote the analysed files.  Shown as they are, they could draw a fake line in a
CI log (ESC sequences, carriage returns), break or fake rich markup (``oops[/bold]``,
``[link=...]``), or inject images, links, headings, a fake "All budgets met" or our own
comment marker into a pull-request comment.  Every renderer passes such text through here:

- ``visible``: characters that are not printable (controls, ESC, CR/LF, tabs, bidi and
  zero-width format characters, line separators, unusual spaces) are written as escapes
  (``\\n``, ``\\x1b``, ``\\u202e``), and the text is cut at ``MAX_SHOWN`` characters (a
  message, or a rule set's convention and description: ``MAX_MESSAGE``) with an ellipsis.
  Terminal renderers print the result as rich ``Text``: never as markup.
- ``md_code``: a Markdown code span (GitHub shows code spans literally: no HTML, links,
  emphasis, mentions or autolinks inside), fenced with a backtick run longer than any in
  the text, so the text cannot close it.
- ``html_text``: ``visible`` text for inside our own HTML tags (``<summary>``).
"""

from __future__ import annotations

import html
import re

MAX_SHOWN = 300  # characters of one name, path, shape or value; past it: the first 299 and "…"
MAX_MESSAGE = 2_000  # characters of one message or prose (an error line, an unknown, a convention)
ELLIPSIS = "…"
_BACKTICKS = re.compile(r"`+")


def visible(text: object, limit: int = MAX_SHOWN) -> str:
    """``text`` with every non-printable character as an escape, at most ``limit`` characters."""
    text = str(text)
    cut = len(text) > limit
    text = text[:limit]  # escapes only lengthen it: no need to look past the limit
    if not text.isprintable():
        text = "".join(char if char.isprintable() else _escape(char) for char in text)
        cut = cut or len(text) > limit
    return text[:limit - 1] + ELLIPSIS if cut else text


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def md_code(text: object, table: bool = False, limit: int = MAX_SHOWN) -> str:
    """An inline code span showing ``text`` literally.  ``table``: the span sits in a table
    cell, where GitHub splits the row at every ``|`` (even inside code) unless escaped."""
    shown = visible(text, limit)
    if table:
        shown = shown.replace("|", "\\|")  # GFM removes this backslash before the cell is parsed
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(shown)), default=0) + 1)
    # CommonMark strips one space from each side when both are there: pad when the text
    # starts or ends with a backtick (it would join the fence) or a space (it would be lost).
    pad = " " if not shown or shown[0] in "` " or shown[-1] in "` " else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def html_text(text: object, limit: int = MAX_SHOWN) -> str:
    """``visible`` text with ``<``, ``>``, ``&`` and quotes as entities, for inside our HTML."""
    return html.escape(visible(text, limit))
