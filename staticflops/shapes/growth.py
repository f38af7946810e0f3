"""How large an arithmetic result would be, estimated from its operands before Python computes it.

``2 ** 10**9`` or ``(B + S) ** 200`` would take minutes and gigabytes.  The interpreter (model
code, bounded by ``--max-int-bits`` and ``--max-expr-terms``) and rule formulas (fixed bounds)
both refuse such an operation from these estimates.  Operators are named as libcst names them.
"""

from __future__ import annotations

import math
import re
import string
from fractions import Fraction


def result_bits(op: str, left, right) -> int:
    """About how many bits an exact (integer or fraction) result of ``left op right`` needs;
    0 for operations that cannot grow a number much, or operands that are not exact numbers."""
    if not (_exact(left) and _exact(right)):
        return 0
    if op == "Power" and type(right) is int and right > 1 and _bits(left) > 1:
        return (_bits(left) - 1) * right + 1
    if op == "LeftShift" and type(left) is int and type(right) is int and left:
        return _bits(left) + right
    if op == "Multiply":
        return _bits(left) + _bits(right)
    return 0


def result_length(op: str, left, right) -> int:
    """Items of a repeated sequence (``[0] * 10**10``); 0 when ``left op right`` repeats none."""
    if op == "Multiply":
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, (list, tuple, str)) and isinstance(count, int):
                return len(sequence) * count
    return 0


# ---- strings and containers the interpreted code grows (--max-container, --max-value-bytes) ----

HUGE = 2 ** 62  # "too large to say": every bound refuses it


def built_length(op: str, left, right) -> int:
    """Items (characters for strings) of the sequence ``left op right`` builds: repetition,
    concatenation and ``%`` formatting; 0 when it builds none."""
    if op == "Add" and type(left) is type(right) and isinstance(left, (list, tuple, str)):
        return len(left) + len(right)
    if op == "Modulo" and isinstance(left, str):
        return percent_length(left, right)
    return max(0, result_length(op, left, right))


# The methods ``method_length`` measures; any other gives 0 (callers may skip it for them).
GROWING_METHODS = frozenset({"join", "replace", "format", "extend", "update", "union", "append", "insert",
                             "zfill", "ljust", "rjust", "center"})


def method_length(value, name: str, args: list, kwargs: dict) -> int:
    """Items (characters) of what ``value.name(*args)`` builds or grows ``value`` to, for the
    methods that can grow: ``''.join``, ``str.replace``, ``str.format``, ``list.extend`` and the like.
    Arguments of the wrong kind give 0: the call itself then fails as Python's would."""
    if name not in GROWING_METHODS:
        return 0
    try:
        if isinstance(value, str):
            if name == "join" and args and isinstance(args[0], (list, tuple, dict, set, str)):
                items = args[0]
                return sum(len(i) for i in items if isinstance(i, str)) + len(value) * max(0, len(items) - 1)
            if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
                count = value.count(args[0]) if args[0] else len(value) + 1
                if len(args) > 2 and type(args[2]) is int and args[2] >= 0:
                    count = min(count, args[2])
                return len(value) + count * max(0, len(args[1]) - len(args[0]))
            if name == "format":
                return format_length(value, args, kwargs)
            if name in ("zfill", "ljust", "rjust", "center") and args and type(args[0]) is int:
                return max(len(value), args[0])  # padded to the width
        elif isinstance(value, (list, dict, set)) and name in ("extend", "update", "union") and args:
            return len(value) + sum(len(a) for a in args if isinstance(a, (list, tuple, dict, set, str, range)))
        elif isinstance(value, list) and name in ("append", "insert"):
            return len(value) + 1
    except (OverflowError, TypeError):  # len() of a range past 2**63
        return HUGE
    return 0


def text_length(value, cap: int) -> int:
    """About how many characters ``str(value)`` has, counted until it passes ``cap`` (a list
    holding one long string a million times is short to count and huge to print)."""
    total, pending = 0, [value]
    while pending and total <= cap:
        item = pending.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif type(item) is int:
            total += item.bit_length() * 3 // 10 + 2
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2 + 2 * len(item)
            pending.extend(item)
        elif isinstance(item, dict):
            total += 2 + 4 * len(item)
            pending.extend(item.keys())
            pending.extend(item.values())
        else:
            total += 30  # a float, None, or a value printed by its kind
    return total


# `%[(key)][flags][width][.precision][length]type`: the widths and precisions that pad
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?.", re.S)
# `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`
_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(\d*)[,_]?(?:\.(\d+))?", re.S)


def percent_length(template: str, args) -> int:
    """About how long ``template % args`` is: its text, the arguments' text, and every width
    and precision (``'%0999999999d' % 1`` is a gigabyte)."""
    values = list(args.values()) if isinstance(args, dict) else list(args) if isinstance(args, tuple) else [args]
    star = max((abs(v) for v in values if type(v) is int), default=0)  # `%*d` takes its width from them
    total = len(template) + sum(text_length(v, HUGE) for v in values)
    for match in _PERCENT.finditer(template):
        for size in match.groups():
            total += star if size == "*" else _number(size)
    return total


def spec_length(value, spec: str) -> int:
    """About how long ``format(value, spec)`` is: the value's text plus the spec's width and
    precision (an f-string's ``{x:>1000000000}`` would build a gigabyte)."""
    match = _SPEC.match(spec)
    if match is None or len(spec) > 200:
        return HUGE
    return text_length(value, HUGE) + _number(match.group(1)) + _number(match.group(2))


def format_length(template: str, args: list, kwargs: dict) -> int:
    """About how long ``template.format(*args, **kwargs)`` is: literal text, each field's value
    and every width and precision, including those a nested field supplies (``'{:{}}'``)."""
    fields = _fields(template)
    if fields is None:
        return 0  # a malformed template: .format raises too
    total, automatic = 0, 0
    for literal, field, spec in fields:
        total += len(literal)
        if field is None:
            continue
        value, automatic = _argument(field, args, kwargs, automatic)
        total += text_length(value, HUGE)
        if "{" in spec:  # `{:{}}`: the width is the next argument, at most one level deep
            pieces = []
            for inner_literal, inner_field, inner_spec in _fields(spec) or ():
                pieces.append(inner_literal)
                if inner_field is not None:
                    inner, automatic = _argument(inner_field, args, kwargs, automatic)
                    padding = _SPEC.match(inner_spec)
                    if text_length(inner, 100) + _number(padding.group(1)) + _number(padding.group(2)) > 100:
                        return HUGE  # a width spelt by a field is short; this one is not
                    pieces.append(str(inner))
            spec = "".join(pieces)
        match = _SPEC.match(spec)
        total += _number(match.group(1)) + _number(match.group(2))
    return total


def _fields(template: str) -> list | None:
    try:
        return [(literal, field, spec or "") for literal, field, spec, _ in string.Formatter().parse(template)]
    except ValueError:
        return None


def _argument(field: str, args: list, kwargs: dict, automatic: int) -> tuple:
    """The argument a field names (its first part: `0.attr` and `x[1]` are not followed), and the
    next automatic number."""
    key = re.split(r"[.\[]", field, maxsplit=1)[0]
    if key == "":
        key, automatic = str(automatic), automatic + 1
    if key.isdigit():
        return (args[int(key)] if int(key) < len(args) else None), automatic
    return kwargs.get(key), automatic


def _number(digits: str | None) -> int:
    if not digits:
        return 0
    return int(digits) if len(digits) < 19 else HUGE


def result_terms(op: str, left, right, cap: int) -> float:
    """How many terms a symbolic polynomial result of ``left op right`` would have (0 when it
    cannot grow); ``math.inf`` for a power over ``cap``, whose count alone is costly to compute."""
    size = _terms(left), _terms(right)
    if op == "Power" and isinstance(right, int) and size[0] > 1:
        return math.comb(size[0] + right - 1, right) if right <= cap else math.inf
    if op == "Multiply" and min(size) > 1:
        return size[0] * size[1]
    return 0


def _exact(value) -> bool:
    return type(value) is int or isinstance(value, Fraction)  # bools stay small


def _bits(value) -> int:
    if isinstance(value, Fraction):
        return max(value.numerator.bit_length(), value.denominator.bit_length())
    return abs(value).bit_length()


def _terms(value) -> int:
    terms = getattr(value, "terms", None)
    return len(terms) if isinstance(terms, dict) else 1
