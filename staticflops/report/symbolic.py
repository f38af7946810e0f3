"""Symbolic counts and shapes shortened for the terminal: ``((((H - 1)//2))//2) + 1`` reads
``H/4`` and a 7-term FLOPs polynomial its leading term, ``≈ 4.70 K·B·H·W``.  Display only:
the JSON report keeps the exact formulas.

The text is a formula printed by ``shapes/expr.py`` (integers, names, ``+ - * // **`` and
parentheses).  It is parsed with ``ast.parse`` and walked here, never evaluated by Python.
A floor division by a constant becomes an exact division (the rounding that makes
``(H - 1)//2 + 1`` differ from ``H/2`` is what is dropped), then only the terms of the
highest total degree are kept: the size the formula tends to as the dimensions grow.  Only
formulas with a floor division are shortened: their lower terms come from that rounding
(``18816*B*((H - 1)//2)`` beside ``18816*B*((H - 1)//2)*((W - 1)//2)``), while in a formula
without one (``512*B*T**2 + 196608*B*T``) a lower term can be the larger at real sizes."""

from __future__ import annotations

from staticflops import pyast
import ast
from fractions import Fraction

# A monomial: sorted ((symbol, power), ...); a polynomial: monomial -> coefficient.
Poly = dict

APPROXIMATE = "≈"
_LONGEST_EXACT = 20  # a formula at most this long is short enough to show as it is (`T + 1`, `2*B*T`)


def _poly(node) -> Poly | None:
    if isinstance(node, ast.Expression):
        return _poly(node.body)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return {(): Fraction(node.value)}
    if isinstance(node, ast.Name):
        return {((node.id, 1),): Fraction(1)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _poly(node.operand)
        return None if inner is None else {m: -c for m, c in inner.items()}
    if not isinstance(node, ast.BinOp):
        return None
    left, right = _poly(node.left), _poly(node.right)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Add):
        return _add(left, right, 1)
    if isinstance(node.op, ast.Sub):
        return _add(left, right, -1)
    if isinstance(node.op, ast.Mult):
        return _mul(left, right)
    if isinstance(node.op, ast.FloorDiv) and set(right) == {()} and right[()] > 0:
        return {m: c / right[()] for m, c in left.items()}  # the rounding is dropped (see the docstring)
    if isinstance(node.op, ast.Pow) and set(right) == {()} and right[()].denominator == 1 and 0 <= right[()] <= 8:
        result: Poly = {(): Fraction(1)}
        for _ in range(int(right[()])):
            result = _mul(result, left)
        return result
    return None


def _add(left: Poly, right: Poly, sign: int) -> Poly:
    total = dict(left)
    for monomial, coefficient in right.items():
        total[monomial] = total.get(monomial, 0) + sign * coefficient
    return {m: c for m, c in total.items() if c}


def _mul(left: Poly, right: Poly) -> Poly:
    total: Poly = {}
    for m1, c1 in left.items():
        for m2, c2 in right.items():
            powers = dict(m1)
            for symbol, power in m2:
                powers[symbol] = powers.get(symbol, 0) + power
            monomial = tuple(sorted(powers.items()))
            total[monomial] = total.get(monomial, 0) + c1 * c2
    return {m: c for m, c in total.items() if c}


def leading(text: str) -> Poly | None:
    """The highest-degree terms of the formula ``text``; None when it is not a polynomial
    this module reads (then it is shown as written)."""
    if len(text) > 10_000:  # a display nicety: never worth parsing a huge formula
        return None
    try:
        poly = _poly(pyast.parse(text, mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not poly:
        return None
    degree = max(sum(p for _, p in m) for m in poly)
    return {m: c for m, c in poly.items() if sum(p for _, p in m) == degree}


def _symbols(monomial) -> list[str]:
    return [symbol if power == 1 else f"{symbol}^{power}" for symbol, power in monomial]


def short_dim(text: str) -> str:
    """A shape dimension for the table: ``H/4`` for ``((((H - 1)//2))//2) + 1``."""
    if "//" not in text and len(text) <= _LONGEST_EXACT:
        return text
    poly = leading(text)
    if poly is None or len(poly) != 1:
        return text
    (monomial, coefficient), = poly.items()
    if coefficient <= 0 or not monomial:
        return text
    names = "".join(_symbols(monomial)) if all(len(s) == 1 for s, _ in monomial) else "·".join(_symbols(monomial))
    numerator = "" if coefficient.numerator == 1 else str(coefficient.numerator)
    return numerator + names + ("" if coefficient.denominator == 1 else f"/{coefficient.denominator}")


def short_count(text: str, scaled) -> str | None:
    """A symbolic count's leading term(s) as ``≈ 4.70 K·B·H·W`` (``scaled`` writes the
    coefficient: ``units.human``); None to show the formula as written."""
    if "//" not in text:
        return None  # an exact polynomial (2*B*T**2 + ...): every term matters at realistic sizes
    return written_terms(leading(text), scaled)


def written_terms(poly: Poly | None, scaled) -> str | None:
    """``≈ 4.70 K·B·H·W`` for at most two leading terms; None otherwise."""
    if poly is None or len(poly) > 2:
        return None
    terms = []
    for monomial, coefficient in sorted(poly.items(), key=lambda item: -abs(item[1])):
        number = round(coefficient) if abs(coefficient) >= 10 or coefficient.denominator == 1 else float(coefficient)
        coefficient_text = scaled(number) if isinstance(number, int) else f"{number:.2g}"
        terms.append("·".join([coefficient_text, *_symbols(monomial)]) if monomial else coefficient_text)
    return f"{APPROXIMATE} " + " + ".join(terms)


_MAX_POWER = 64  # formulas print `T**2`, `B**3`: a larger exponent is not one of ours


def count_at(count, sizes: dict[str, int]):
    """A count of the report (an int, or a formula string such as ``8178368512*B``) with
    ``sizes`` substituted: an exact int.  The formula is parsed with ``ast.parse`` and walked
    with exact integer/rational arithmetic, never given to Python's ``eval``; ``//`` floors as
    ``shapes/expr.py`` does.  Raises ``ValueError`` naming the symbols without a value, or for
    a string that is not such a formula."""
    if count is None or (isinstance(count, int) and not isinstance(count, bool)):
        return count
    if not isinstance(count, str):
        raise ValueError(f"not a count: {count!r}")
    try:
        tree = pyast.parse(count, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueError(f"not a formula: {count!r}") from None
    missing = sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} - set(sizes))
    if missing:
        raise ValueError(f"{count!r} needs a value for {', '.join(missing)}")
    try:
        value = _exact(tree.body, sizes)
    except RecursionError:
        raise ValueError(f"not a formula: {count!r}") from None
    if value.denominator != 1:
        raise ValueError(f"{count!r} is not a whole number at {sizes}")
    return int(value)


def _exact(node, sizes: dict[str, int]) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Fraction(node.value)
    if isinstance(node, ast.Name):
        return Fraction(sizes[node.id])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _exact(node.operand, sizes)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        left, right = _exact(node.left, sizes), _exact(node.right, sizes)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, (ast.Div, ast.FloorDiv)) and right == 0:
            raise ValueError("division by zero in a formula")
        if isinstance(node.op, ast.Div):  # a rational coefficient, printed `1/2*B`
            return left / right
        if isinstance(node.op, ast.FloorDiv):
            return Fraction(left // right)
        if isinstance(node.op, ast.Pow) and right.denominator == 1 and 0 <= right <= _MAX_POWER:
            return left ** int(right)
    raise ValueError(f"not a formula: unexpected {ast.dump(node)[:60]}")
