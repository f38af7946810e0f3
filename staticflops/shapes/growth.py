"""How large an arithmetic result would be, estimated from its operands before Python computes it.

``2 ** 10**9`` or ``(B + S) ** 200`` would take minutes and gigabytes.  The interpreter (model
code, bounded by ``--max-int-bits`` and ``--max-expr-terms``) and rule formulas (fixed bounds)
both refuse such an operation from these estimates.  Operators are named as libcst names them.
"""

from __future__ import annotations

import math
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
