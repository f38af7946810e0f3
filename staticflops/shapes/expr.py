"""Exact symbolic arithmetic for tensor dimensions.

A dimension is either a plain ``int`` or an :class:`Expr`: a polynomial with rational
coefficients over *atoms* (named symbols such as ``B`` and opaque floor divisions such
as ``(H - 1)//2``).  Every operation returns a plain ``int`` as soon as the result is
constant, so concrete models never see an ``Expr`` at all.

We keep our own small type instead of sympy: sympy costs ~0.6 s to import (paid on
every pre-commit run) and its ``sympify`` evaluates strings, which we never allow.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Union

Monomial = tuple  # sorted tuple of (atom, power)


class Undecidable(Exception):
    """A comparison whose answer depends on the value of a symbol."""


class Atom:
    """Base of the indivisible pieces a polynomial is built from."""

    key: tuple

    def __lt__(self, other: "Atom") -> bool:
        return self.key < other.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Atom) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


class Symbol(Atom):
    """A size named by the user.  Every size is at least 1; ``--assume`` may narrow that to
    ``low <= name <= high`` (``high`` None: unbounded), which decides more comparisons.  The
    range is not part of the key: one analysis has one range per name."""

    def __init__(self, name: str, low: int = 1, high: int | None = None):
        self.name = name
        self.key = (0, name)
        self.low = low
        self.high = high

    def __str__(self) -> str:
        return self.name


class FloorDiv(Atom):
    """``numerator // denominator`` that does not simplify (numerator is symbolic)."""

    def __init__(self, numerator: "Expr", denominator: int):
        self.numerator = numerator
        self.denominator = denominator
        self.key = (1, str(numerator), denominator)

    def __str__(self) -> str:
        return f"(({self.numerator})//{self.denominator})"


class Expr:
    """An immutable polynomial; build one with :func:`symbol` and arithmetic."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict):
        self.terms = {m: c for m, c in terms.items() if c != 0}

    # ---- construction helpers -------------------------------------------------
    @staticmethod
    def lift(value: "Dim") -> "Expr":
        if isinstance(value, Expr):
            return value
        if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
            raise TypeError(f"not a dimension: {value!r}")
        return Expr({(): Fraction(value)})

    def simplify(self) -> "Dim":
        """Return a plain number when the polynomial is constant."""
        if not self.terms:
            return 0
        if list(self.terms) == [()]:
            c = self.terms[()]
            return int(c) if c.denominator == 1 else c
        return self

    # ---- arithmetic ----------------------------------------------------------
    def __add__(self, other):
        other = _lift_or_none(other)
        if other is None:
            return NotImplemented
        terms = dict(self.terms)
        for m, c in other.terms.items():
            terms[m] = terms.get(m, 0) + c
        return Expr(terms).simplify()

    __radd__ = __add__

    def __neg__(self):
        return Expr({m: -c for m, c in self.terms.items()}).simplify()

    def __sub__(self, other):
        other = _lift_or_none(other)
        return NotImplemented if other is None else self + (-other)

    def __rsub__(self, other):
        other = _lift_or_none(other)
        return NotImplemented if other is None else other + (-self)

    def __mul__(self, other):
        other = _lift_or_none(other)
        if other is None:
            return NotImplemented
        terms: dict = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = _mul_monomials(m1, m2)
                terms[m] = terms.get(m, 0) + c1 * c2
        return Expr(terms).simplify()

    __rmul__ = __mul__

    def __pow__(self, exponent):
        if not isinstance(exponent, int) or exponent < 0:
            return NotImplemented
        result: Dim = 1
        for _ in range(exponent):
            result = result * self
        return result

    def __truediv__(self, other):
        if isinstance(other, Expr):
            quotient = _exact_quotient(self, other)
            if quotient is None:
                return NotImplemented
            return quotient
        if not isinstance(other, (int, Fraction)) or other == 0:
            return NotImplemented
        return Expr({m: c / other for m, c in self.terms.items()}).simplify()

    def __rtruediv__(self, other):
        quotient = _exact_quotient(Expr.lift(other), self)
        return NotImplemented if quotient is None else quotient

    def __floordiv__(self, other):
        if isinstance(other, Expr):
            quotient = _exact_quotient(self, other)
            return NotImplemented if quotient is None else quotient
        if not isinstance(other, int) or other == 0:
            return NotImplemented
        if all(c.denominator == 1 and c % other == 0 for c in self.terms.values()):
            return Expr({m: c / other for m, c in self.terms.items()}).simplify()
        # Split off the constant remainder only when every symbolic term divides.
        return Expr({((FloorDiv(self, other), 1),): Fraction(1)})

    def __mod__(self, other):
        quotient = self // other
        return self - quotient * other

    # ---- comparisons ---------------------------------------------------------
    def __eq__(self, other) -> bool:
        other = _lift_or_none(other)
        return other is not None and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.terms.items(), key=lambda kv: str(kv[0]))))

    def _bounds(self, other) -> tuple:
        """(lower, upper) bounds of ``self - other``; None where unbounded or unknown."""
        difference = self - other
        if not isinstance(difference, Expr):
            return difference, difference
        # A monomial over symbols (each at least its ``low``, at most its ``high``, and >= 1)
        # grows with every symbol in it, so it lies between its values at the lows and at the
        # highs; a term with a positive coefficient adds those in order, a negative one swapped.
        lower = upper = difference.terms.get((), 0)
        for monomial, coefficient in difference.terms.items():
            if monomial == ():
                continue
            least, most = 1, 1
            for atom, power in monomial:
                if not isinstance(atom, Symbol):
                    return None, None
                least *= atom.low ** power
                most = None if most is None or atom.high is None else most * atom.high ** power
            if coefficient > 0:
                lower = None if lower is None else lower + coefficient * least
                upper = None if upper is None or most is None else upper + coefficient * most
            else:
                upper = None if upper is None else upper + coefficient * least
                lower = None if lower is None or most is None else lower + coefficient * most
        return lower, upper

    def _decide(self, other, test) -> bool:
        lower, upper = self._bounds(other)
        for verdict in (True, False):
            if test(lower, upper, verdict):
                return verdict
        raise Undecidable(f"cannot compare {self} with {other}")

    def __lt__(self, other):
        return self._decide(other, lambda lo, up, v: (up is not None and up < 0) if v else (lo is not None and lo >= 0))

    def __le__(self, other):
        return self._decide(other, lambda lo, up, v: (up is not None and up <= 0) if v else (lo is not None and lo > 0))

    def __gt__(self, other):
        return self._decide(other, lambda lo, up, v: (lo is not None and lo > 0) if v else (up is not None and up <= 0))

    def __ge__(self, other):
        return self._decide(other, lambda lo, up, v: (lo is not None and lo >= 0) if v else (up is not None and up < 0))

    def __bool__(self) -> bool:
        raise Undecidable(f"truth value of {self} depends on its symbols")

    # ---- inspection ----------------------------------------------------------
    def symbols(self) -> set[str]:
        names: set[str] = set()
        for monomial in self.terms:
            for atom, _ in monomial:
                if isinstance(atom, Symbol):
                    names.add(atom.name)
                else:
                    names |= atom.numerator.symbols()
        return names

    def __str__(self) -> str:
        return format_dim(self)

    def __repr__(self) -> str:
        return f"Expr({self})"


Dim = Union[int, Fraction, Expr]


def symbol(name: str, low: int = 1, high: int | None = None) -> Expr:
    return Expr({((Symbol(name, low, high), 1),): Fraction(1)})


def symbol_range(dim: Dim) -> tuple | None:
    """(name, low, high) of a dimension that is one symbol, else None."""
    if isinstance(dim, Expr) and len(dim.terms) == 1:
        (monomial, coefficient), = dim.terms.items()
        if coefficient == 1 and len(monomial) == 1 and monomial[0][1] == 1 and isinstance(monomial[0][0], Symbol):
            atom = monomial[0][0]
            return atom.name, atom.low, atom.high
    return None


def is_symbolic(value: object) -> bool:
    return isinstance(value, Expr)


def _lift_or_none(value) -> Expr | None:
    if isinstance(value, Expr):
        return value
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return Expr.lift(value)
    return None


def _mul_monomials(a: Monomial, b: Monomial) -> Monomial:
    powers: dict = dict(a)
    for atom, power in b:
        powers[atom] = powers.get(atom, 0) + power
    return tuple(sorted(powers.items()))


def _exact_quotient(numerator: Expr, denominator: Expr) -> "Dim | None":
    """Divide by a single-term polynomial when it divides every term exactly."""
    if len(denominator.terms) != 1:
        return None
    (dm, dc), = denominator.terms.items()
    dpowers = dict(dm)
    terms = {}
    for m, c in numerator.terms.items():
        powers = dict(m)
        for atom, power in dpowers.items():
            if powers.get(atom, 0) < power:
                return None
            powers[atom] -= power
        terms[tuple(sorted((a, p) for a, p in powers.items() if p))] = c / dc
    return Expr(terms).simplify()


def evaluate(value: Dim, bindings: dict[str, int]) -> Dim:
    """Substitute numbers for symbols (those missing stay symbolic)."""
    if not isinstance(value, Expr):
        return value
    total: Dim = 0
    for monomial, coefficient in value.terms.items():
        term: Dim = coefficient
        for atom, power in monomial:
            if isinstance(atom, Symbol):
                base = bindings.get(atom.name, Expr({((atom, 1),): Fraction(1)}))
            else:
                base = evaluate(atom.numerator, bindings) // atom.denominator
            term = term * base**power
        total = total + term
    return total if not isinstance(total, Fraction) or total.denominator != 1 else int(total)


def format_dim(value: Dim) -> str:
    """Python-syntax text, highest degree first: ``8178368512*B``, ``B*T**2 + 3*T``."""
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else str(value.numerator)
    if not isinstance(value, Expr):
        return str(value)

    def degree(monomial):
        return sum(p for _, p in monomial)

    parts = []
    ordered = sorted(value.terms.items(), key=lambda kv: (-degree(kv[0]), [str(a) for a, _ in kv[0]]))
    for monomial, coefficient in ordered:
        factors = [str(a) if p == 1 else f"{a}**{p}" for a, p in monomial]
        magnitude = abs(coefficient)
        if magnitude != 1 or not factors:
            factors.insert(0, str(magnitude))
        text = "*".join(factors)
        sign = "-" if coefficient < 0 else "+"
        parts.append((sign, text))
    first_sign, first = parts[0]
    out = ("-" if first_sign == "-" else "") + first
    for sign, text in parts[1:]:
        out += f" {sign} {text}"
    return out
