"""``re`` on known strings, by Python's own ``re`` module.

Running a regular expression is not running the analysed program: the pattern is data and
``re`` only matches it.  But a PR controls both the pattern and the subject, and a pattern
with nested repeats can backtrack for hours (a denial of service), so both are bounded:
before anything runs, the pattern is parsed (``re._parser``, no matching) and refused when
it can backtrack exponentially — a repeat inside a repeat, an alternation inside a repeat, a
back-reference — and the worst case of what is left is bounded: a subject of n characters and
repeats of maxima m1..mk cost at most about n * (min(m1, n) + 1) * ... steps, which must stay
under ``MAX_STEPS`` (``a*a*c`` over 1,000 characters is 10^9 by this count and took 0.35 s in
CPython 3.11; ``a*a*a*c`` did not finish in a minute).  A possessive repeat (``a++``, ``(?:x)*+``,
Python 3.11+) never gives back what it matched, so it leaves no choice behind: it costs at most
(min(m, n) + 1) times its body, added to, not multiplied with, the other repeats' choices, and
a repeat or an alternation inside it is bounded the same way within one of its iterations
(packaging's version pattern is written so).  Patterns over ``MAX_PATTERN`` or
subjects over ``MAX_SUBJECT`` characters are refused outright.  A refusal is a located
unknown.  Callables as replacements (``re.sub(p, fn, s)``) are the analysed program's code,
so they are an unknown too.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

try:
    from re import _parser as _sre_parse  # CPython 3.11+
except ImportError:  # pragma: no cover - CPython 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

from staticflops.diagnostics import reason
from staticflops.frontend.values import Builtin, Unknown

MAX_PATTERN = 4_000  # parsing one is fast; its shape, not its length, bounds the matching
MAX_SUBJECT = 10_000
MAX_STEPS = 200_000_000


class _Refused(Exception):
    pass


def _repeats(items, inside_repeat: bool, found: list, atomic: list) -> list:
    """The maxima of the pattern's repeats that leave choices behind (``found``), and for each
    possessive repeat its maximum and the same of its body (``atomic``); _Refused for the
    shapes that backtrack exponentially."""
    for op, argument in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, inner = argument
            if high > 1 and inside_repeat:
                raise _Refused("a repeat inside a repeat")
            # nothing re-enters a possessive repeat: its body is bounded on its own (inside a
            # repeat that may give back, it runs again for each iteration: counted as any repeat)
            if name == "POSSESSIVE_REPEAT" and not inside_repeat:
                body: tuple = (high, [], [])
                _repeats(inner, False, body[1], body[2])
                atomic.append(body)
                continue
            if high > 1:
                found.append(high)
            _repeats(inner, inside_repeat or high > 1, found, atomic)
        elif name == "SUBPATTERN":
            _repeats(argument[-1], inside_repeat, found, atomic)
        elif name == "ATOMIC_GROUP":
            _repeats(argument, inside_repeat, found, atomic)
        elif name == "BRANCH":
            if inside_repeat:
                raise _Refused("an alternation inside a repeat")
            for branch in argument[1]:
                _repeats(branch, inside_repeat, found, atomic)
        elif name in ("ASSERT", "ASSERT_NOT"):
            _repeats(argument[1], inside_repeat, found, atomic)
        elif name in ("GROUPREF", "GROUPREF_EXISTS"):
            raise _Refused("a back-reference")
    return found


@lru_cache(maxsize=1024)
def _maxima(text: str, flags: int) -> tuple | str:
    """(the choice-leaving repeats' maxima, the possessive repeats') of the pattern, or why it is
    refused whatever the subject (parsed once per pattern: a library compiles the same few
    patterns over and over)."""
    try:
        found: list = []
        atomic: list = []
        _repeats(_sre_parse.parse(text, flags), False, found, atomic)
        return (found, atomic)
    except _Refused as why:
        return f"a regular expression with {why} (can backtrack exponentially) is not run"
    except (re.error, OverflowError, RecursionError) as error:
        return f"the regular expression does not compile ({reason(error)})"


def _steps(found: list, atomic: list, length: int) -> int:
    """Steps to try the pattern at one position: each combination of the choices left behind
    (repeats that may give back) runs the possessive parts once more."""
    choices = math.prod(min(m, length) + 1 for m in found)
    once = 1 + sum((min(high, length) + 1) * _steps(inner, nested, length) for high, inner, nested in atomic)
    return choices * once


def _refusal(pattern, subject_length: int) -> str | None:
    """Why this pattern may not run over a subject of this length, or None."""
    text = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
    if not isinstance(text, str):
        return "a pattern that is not a known string"
    if len(text) > MAX_PATTERN:
        return f"a regular expression of {len(text):,} characters (limit {MAX_PATTERN:,}) is not run"
    if subject_length > MAX_SUBJECT:
        return f"a regular expression over a string of {subject_length:,} characters (limit {MAX_SUBJECT:,}) is not run"
    maxima = _maxima(text, pattern.flags if isinstance(pattern, re.Pattern) else 0)
    if isinstance(maxima, str):
        return maxima
    steps = max(subject_length, 1) * _steps(maxima[0], maxima[1], subject_length)
    if steps > MAX_STEPS:
        return (f"a regular expression with {_count(maxima)} repeats over {subject_length:,} characters "
                f"(worst case ~{steps:.1e} steps, limit {MAX_STEPS:.0e}) is not run")
    return None


def _count(maxima) -> int:
    found, atomic = maxima
    return len(found) + sum(1 + _count((inner, nested)) for _, inner, nested in atomic)


_FUNCTIONS = ("match", "search", "fullmatch", "sub", "subn", "split", "findall", "escape", "compile")
_PATTERN_METHODS = ("match", "search", "fullmatch", "sub", "subn", "split", "findall")
_MATCH_METHODS = ("group", "groups", "groupdict", "start", "end", "span")
_FLAGS = ("IGNORECASE", "I", "MULTILINE", "M", "DOTALL", "S", "VERBOSE", "X", "ASCII", "A")


# The third-party ``regex`` package (a C extension: its Python files cannot match anything) in
# its default VERSION0 mode, which its documentation states is compatible with ``re``.  Where
# its syntax means something else (fuzzy constraints ``a{e<=1}`` and POSIX classes ``[[:alpha:]]``,
# which ``re`` reads as literal text) the pattern is refused, an unknown; its own escapes and
# inline flags (``\p{L}``, ``(?V1)``, ``(?|...)``) do not compile under ``re``, an unknown too,
# and so are the functions and flags it adds (not members below).
_QUANTIFIER = re.compile(r"\{(?:\d+(?:,\d*)?|,\d+)\}")
# A fuzzy constraint opens with an error kind or a count (``{e<=1}``, ``{1i+1d<3}``); any other
# `{` (``{(.*?)}``, a template's placeholders) is literal text in both modules.
_FUZZY_STARTS = frozenset("eisd0123456789")


def _regex_only(text: str) -> str | None:
    """Why ``re`` may read this ``regex`` pattern differently, or None."""
    if "[:" in text:
        return "a `regex` pattern with `[:` (a POSIX class in `regex`, literal text in `re`) is not run"
    index = 0
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == "{" and not _QUANTIFIER.match(text, index) and text[index + 1:index + 2] in _FUZZY_STARTS:
            return "a `regex` pattern with `{` outside a repeat count (a fuzzy match in `regex`) is not run"
        index += 1
    return None


def _call(interp, python_fn, name, pattern, args, kwargs, node, module: str = "re"):
    """Run ``python_fn`` (a function of ``re``, or a method of a compiled pattern/match) on
    known strings, after the pattern and subject pass the bounds above."""
    for value in [*args, *kwargs.values()]:
        if isinstance(value, Unknown):
            return value
        if not isinstance(value, (str, int, re.Pattern, re.Match)):
            return interp.unknown(f"{module}.{name}() with a {type(value).__name__} argument is not modelled", node)
    if module == "regex" and isinstance(pattern, str) and _regex_only(pattern) is not None:
        return interp.unknown(_regex_only(pattern), node)
    if pattern is not None:
        longest = max((len(v) for v in [*args, *kwargs.values()] if isinstance(v, str) and v is not pattern), default=0)
        why = _refusal(pattern, longest)
        if why is not None:
            return interp.unknown(why, node)
    try:
        return python_fn(*args, **kwargs)
    except (re.error, TypeError, ValueError, IndexError) as error:
        return interp.unknown(f"{module}.{name}() could not be evaluated ({reason(error)})", node)


def _function(name, module: str = "re"):
    python_fn = getattr(re, name)

    def call(interp, args, kwargs, node):
        pattern = args[0] if args else kwargs.get("pattern")
        if isinstance(pattern, Unknown):
            return pattern
        return _call(interp, python_fn, name, pattern if name != "escape" else None, args, kwargs, node, module)
    return Builtin(f"{module}.{name}", call, bind_self=False)


def attribute(interp, value, name: str, node):
    """Methods and fields of compiled patterns and match objects (both Python's own)."""
    if isinstance(value, re.Pattern):
        if name in _PATTERN_METHODS:
            method = getattr(value, name)
            return Builtin(f"Pattern.{name}", lambda i, a, k, n: _call(i, method, name, value, a, k, n),
                           bind_self=False)
        if name in ("pattern", "flags", "groups", "groupindex"):
            return getattr(value, name) if name != "groupindex" else dict(value.groupindex)
    elif isinstance(value, re.Match):
        if name in _MATCH_METHODS:
            method = getattr(value, name)
            return Builtin(f"Match.{name}", lambda i, a, k, n: _call(i, method, name, None, a, k, n), bind_self=False)
        if name in ("string", "pos", "endpos", "lastindex", "lastgroup"):
            return getattr(value, name)
    else:
        return None
    return interp.unknown(f"attribute `{name}` of a regular expression is not modelled", node)


def members() -> dict:
    found = {name: _function(name) for name in _FUNCTIONS}
    found.update({name: getattr(re, name) for name in _FLAGS})
    pattern = Builtin("re.Pattern", lambda i, a, k, n: i.unknown("re.Pattern() cannot be called", n), bind_self=False)
    pattern.pytype = re.Pattern
    match = Builtin("re.Match", lambda i, a, k, n: i.unknown("re.Match() cannot be called", n), bind_self=False)
    match.pytype = re.Match
    found.update({"Pattern": pattern, "Match": match, "error": Builtin("re.error", lambda i, a, k, n: None)})
    return found


def regex_members() -> dict:
    """The ``regex`` package's functions that ``re`` shares (``escape`` differs: not modelled)."""
    found = {name: _function(name, "regex") for name in _FUNCTIONS if name != "escape"}
    found.update({name: getattr(re, name) for name in _FLAGS})  # the same bits in both modules
    return found
