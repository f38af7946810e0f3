"""libcst's parse of an analysed file, lowered (``lowering.py``): the analysed project's own files,
and a library file's block or annotation that Python's parser route (``ast_lowering.py``) cannot
model.  libcst is imported only when a text is parsed here."""

from __future__ import annotations

import io
import re
import threading
import tokenize
import warnings

from staticflops import pyast
from staticflops.diagnostics import AnalysisError, Location


def parse_with_libcst(text: str, name: str, internal: bool = False) -> tuple:
    """(lowered tree, positions) of libcst's parse of a text that passed the parse limits."""
    import libcst as cst

    from staticflops.frontend.identifiers import needs_normalising
    from staticflops.frontend.lowering import lower
    from staticflops.frontend.positions import start_positions

    try:
        module = cst.parse_module(text)
        if internal:  # our stub code reports the user's call site, so it needs no positions
            return lower(module, {})
        positions = start_positions(module)
        # `ｗｉｄｔｈ` is `width` to Python
        return lower(module, positions.by_id, normalise=needs_normalising(text))
    except cst.ParserSyntaxError as error:
        raise _syntax_error(text, name, error) from None
    except cst.CSTValidationError as error:  # parsed, but not a valid node (`return*x`): no position
        raise _syntax_error(text, name, error) from None
    except RecursionError:
        raise AnalysisError("the file nests too deeply to parse", Location(name, 1, 1), code="SF005") from None
    except MemoryError:  # past the guard's estimate: still one located line, never a crash
        raise AnalysisError("the file needs too much memory to parse (lower --max-expr-depth or --max-tokens)",
                            Location(name, 1, 1), code="SF005") from None


def fields_from_libcst(text: str, name: str, class_name: str, at: tuple, positions: dict) -> tuple:
    """The field values of the node of class ``class_name`` starting at ``at`` (line, column) in
    libcst's lowered tree of ``text``, its nodes' positions added to ``positions``.  For a
    library file's function body or annotation that Python's parser route lowers on first read
    (``ast_lowering.py``) but cannot model (a ``match`` statement): the file's other nodes
    came from that route, and libcst's tree is the same node for node (tests/test_ast_lowering.py).
    ``ValueError`` when no such node starts there."""
    with _LIBCST_LOCK:
        found = _LIBCST_TREES.pop(text, None)
        if found is None:
            module, tree_positions = parse_with_libcst(text, name)
            found = {(position, type(node).__name__): node for node, position in tree_positions.items()}, \
                tree_positions
            while len(_LIBCST_TREES) >= 2:
                _LIBCST_TREES.pop(next(iter(_LIBCST_TREES)))
        _LIBCST_TREES[text] = found
    nodes, tree_positions = found
    node = nodes.get((tuple(at), class_name))
    if node is None:
        raise ValueError(f"no {class_name} starts at {at[0]}:{at[1] + 1} in libcst's tree")
    inside = [node]
    while inside:  # the positions of the nodes it holds
        item = inside.pop()
        if item in tree_positions:
            positions[item] = tree_positions[item]
        inside.extend(item.children)
    return tuple(getattr(node, field) for field in type(node)._fields)


# The last texts whose libcst tree gave a lazily lowered node (text -> ({(position, class name):
# node}, positions)); each fallback parse costs what libcst costs.
_LIBCST_TREES: dict = {}
_LIBCST_LOCK = threading.Lock()


def _keyword_without_space(text: str, name: str, message: str) -> Location:
    """libcst's validation errors carry no position; they name a keyword written straight
    against an operator (`return*x`, `for x in*y`): find the first such place."""
    keyword = re.search(r"after '(\w+)'", message)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    for token, following in zip(tokens, tokens[1:]):
        if (keyword and token.type == tokenize.NAME and token.string == keyword.group(1)
                and following.start == token.end and following.type == tokenize.OP
                and following.string not in "()[]{}:;,"):
            return Location(name, token.start[0], token.start[1] + 1)
    return Location(name, 1, 1)


def _syntax_error(text: str, name: str, error) -> AnalysisError:
    """libcst's positions point past the fault; Python's own parser (parse only,
    nothing is run) names the exact place and a message users know."""
    try:
        with warnings.catch_warnings():  # its SyntaxWarnings would print around our one-line message
            warnings.simplefilter("ignore")
            pyast.parse(text, filename=name)
    except SyntaxError as precise:
        where = Location(name, precise.lineno or 1, precise.offset or 1)
        return AnalysisError(f"syntax error: {precise.msg}", where, code="SF004")
    except (ValueError, RecursionError, MemoryError):
        pass
    import libcst as cst

    if isinstance(error, cst.CSTValidationError):
        return AnalysisError(f"syntax error: {error}", _keyword_without_space(text, name, str(error)), code="SF004")
    where = Location(name, error.raw_line, error.raw_column + 1)
    return AnalysisError(f"syntax error: {error.message}", where, code="SF004")
