"""The formula language of rule files.

A formula is a Python *expression* parsed with ``ast.parse`` (parsing never runs anything)
and evaluated by our own walker over a whitelist: numbers, strings, names of shape and
argument variables, ``+ - * / // % **``, comparisons, ``and/or/not``, ``a if c else b``,
subscripts, tuples, and calls of the functions in ``FUNCTIONS``.  Anything else is refused
when the rule file is loaded, with its position.  ``/`` is exact (rational) division.
"""

from __future__ import annotations

import ast
import math
import operator
from fractions import Fraction
from functools import lru_cache

from staticflops import pyast
from staticflops.shapes import Expr, Undecidable, numel
from staticflops.shapes.growth import result_bits, result_length, result_terms


class FormulaError(Exception):
    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.offset = offset  # column inside the formula text


def _exact_div(a, b):
    if isinstance(a, Expr) or isinstance(b, Expr):
        return a / b
    result = Fraction(a) / Fraction(b)
    return int(result) if result.denominator == 1 else result


def _ceil(value):
    if isinstance(value, Expr):
        return -((-value) // 1)
    return math.ceil(value)


def _floor(value):
    if isinstance(value, Expr):
        return value // 1
    return math.floor(value)


def _prod(values):
    return numel(tuple(values))


def _sum(values):
    total = 0
    for v in values:
        total = total + v
    return total


def _round_sig(value, digits):
    """``value`` rounded to ``digits`` significant digits, as ``%.{digits-1}e`` prints it
    (some tools parse their counts back from such text)."""
    if isinstance(value, Expr):
        raise Undecidable("round_sig() needs a concrete number")
    if not 1 <= int(digits) <= 17:  # a float holds 17 significant digits; more only costs time
        raise ValueError(f"digits must be from 1 to 17, got {digits}")
    return Fraction(f"{float(value):.{int(digits) - 1}e}")


FUNCTIONS = {
    "round_sig": _round_sig,
    "prod": _prod, "numel": _prod, "sum": _sum, "len": len, "min": min, "max": max,
    "ceil": _ceil, "floor": _floor, "abs": abs, "int": lambda v: v if isinstance(v, Expr) else int(v),
}
_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: _exact_div,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_ALLOWED = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp, ast.USub, ast.UAdd,
            ast.Not, ast.BoolOp, ast.And, ast.Or, ast.Compare, ast.IfExp, ast.Subscript, ast.Slice,
            ast.Tuple, ast.List, ast.Call, *_BINARY, *_COMPARE)
MAX_LENGTH = 2000
MAX_POWER = 64
# Operations inside each other (a sum of n terms nests n deep; the shipped rules stay under 20):
# compiling and evaluating recurse once per level, so a deeper formula would exhaust the stack.
MAX_NESTING = 200
MAX_BITS = 1_000  # ~10**301: past any count, and within what a float (the table's units) can hold
MAX_TERMS = 10_000  # of a symbolic result, as --max-expr-terms bounds the interpreter's
MAX_ITEMS = 10_000  # of a repeated string or tuple (`'a' * 10**10`)


class Formula:
    """A parsed, checked formula; ``evaluate(env)`` computes it over known variables (the
    compiled closure, shared by every formula with the same text)."""

    __slots__ = ("text", "tree", "names", "evaluate")

    def __init__(self, text: str | int | float):
        self.text = str(text)
        self.tree, self.names, self.evaluate = _checked(self.text)

    @classmethod
    def checked_on_first_use(cls, text: str) -> "Formula":
        """A formula of the wheel's compiled rule sets (prebuilt.py): parsed and checked when it is
        first read, not when the set is loaded.  Still checked before it is ever evaluated, as
        every formula is; a run prices a few kinds of the ~140, and checking all ~360 formulas at
        load was ~15 ms of a warm Llama-3-8B run."""
        formula = cls.__new__(cls)
        formula.text = str(text)
        return formula

    def __getattr__(self, name: str):  # only for a slot not set yet: checked_on_first_use
        if name not in ("tree", "names", "evaluate"):
            raise AttributeError(name)
        self.tree, self.names, self.evaluate = _checked(self.text)
        return getattr(self, name)

    def __repr__(self) -> str:
        return f"Formula({self.text!r})"

    def count(self, env: dict):
        """``evaluate`` for a rule's formulas, which are all counts: the result must be a number."""
        value = self.evaluate(env)
        if not isinstance(value, (int, float, Fraction, Expr)):
            kind = "a function" if callable(value) else f"a {type(value).__name__}"
            raise FormulaError(f"the result is {kind}, not a number")
        return value

    def __reduce__(self):  # closures do not pickle: rebuild from the text
        return Formula, (self.text,)


@lru_cache(maxsize=4096)
def _checked(text: str) -> tuple:
    """Parse and whitelist-check a formula once per distinct text (rule sets repeat many,
    e.g. ``0`` and ``2 * macs``); trees and closures are never mutated, so they are shared."""
    tree, names = _parse_checked(text)
    return tree, frozenset(names), _bounded(_compile(tree.body))


def _bounded(compiled):
    """The result checked once more: float arithmetic overflows to infinity (or NaN) without an
    error, and a long literal needs no operation to be huge; no count is either."""
    def evaluate(env):
        value = compiled(env)
        if type(value) is float and not math.isfinite(value):
            raise FormulaError(f"the result is {value}, not a finite number")
        if type(value) is int and value.bit_length() > MAX_BITS:  # a long literal, say
            raise FormulaError(f"the result has about {value.bit_length():,} bits, over the limit of {MAX_BITS:,}")
        return value
    return evaluate


def _parse_checked(text: str):
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"formula is {len(text)} characters, over the {MAX_LENGTH} limit")
    try:
        tree = pyast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise FormulaError(f"not a valid formula: {error.msg}", (error.offset or 1) - 1) from None
    except (RecursionError, MemoryError):  # Python's own parser gives up on very deep nesting
        raise FormulaError(f"formula nests over {MAX_NESTING} deep") from None
    names = set()
    pending = [(tree, 0)]
    while pending:
        node, depth = pending.pop()
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
        if depth > MAX_NESTING:
            raise FormulaError(f"formula nests over {MAX_NESTING} deep", getattr(node, "col_offset", 0))
        if not isinstance(node, _ALLOWED):
            raise FormulaError(f"`{type(node).__name__}` is not allowed in a formula", getattr(node, "col_offset", 0))
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                raise FormulaError(
                    f"only these functions may be called: {', '.join(sorted(FUNCTIONS))}", node.col_offset)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str, bool, type(None))):
            raise FormulaError("only numbers, strings, True/False/None are allowed as constants", node.col_offset)
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant)
              and isinstance(node.left.value, str)):
            raise FormulaError(_NO_FORMATTING, node.col_offset)
    return tree, names


# `'%0999999999d' % 1` builds a gigabyte string per evaluation; no count needs formatting
_NO_FORMATTING = "`%` string formatting is not allowed in a formula"


def _compile(node):
    """The formula as a tree of closures, built once per distinct text: evaluating it is then
    one call per node, with each node's kind, operator and function looked up in advance
    instead of on every evaluation.  Only the whitelisted node kinds exist here."""
    kind = type(node)
    where = getattr(node, "col_offset", 0)
    if kind is ast.Constant:
        value = node.value
        return lambda env: value
    if kind is ast.Name:
        return _compile_name(node.id, where)
    if kind is ast.BinOp:
        return _compile_binary(_compile(node.left), _compile(node.right), type(node.op), where)
    if kind is ast.UnaryOp:
        operand, op = _compile(node.operand), type(node.op)
        if op is ast.Not:
            return lambda env: not _truth_at(operand(env), where)
        return (lambda env: -operand(env)) if op is ast.USub else operand
    if kind is ast.BoolOp:
        return _compile_boolean([_compile(v) for v in node.values], type(node.op) is ast.And, where)
    if kind is ast.Compare:
        return _compile_compare(_compile(node.left), [(_COMPARE[type(op)], _compile(c))
                                                      for op, c in zip(node.ops, node.comparators)], where)
    if kind is ast.IfExp:
        test, body, orelse = _compile(node.test), _compile(node.body), _compile(node.orelse)
        return lambda env: body(env) if _truth_at(test(env), where) else orelse(env)
    if kind is ast.Subscript:
        return _compile_subscript(_compile(node.value), node.slice, where)
    if kind in (ast.Tuple, ast.List):
        elements = [_compile(e) for e in node.elts]
        return lambda env: tuple(e(env) for e in elements)
    if kind is ast.Call:
        return _compile_call(node.func.id, [_compile(a) for a in node.args], where)
    raise FormulaError(f"`{kind.__name__}` is not allowed in a formula", where)


def _compile_name(name: str, where: int):
    function = FUNCTIONS.get(name)

    def lookup(env):
        if name in env:
            return env[name]
        if function is not None:
            return function
        raise FormulaError(f"unknown variable `{name}`", where)
    return lookup


def _compile_binary(left, right, op, where: int):
    apply = _BINARY[op]
    growing = _GROWING.get(op)

    def binary(env):
        a, b = left(env), right(env)
        if op is ast.Mod and isinstance(a, str):  # a string variable: refused as the constant is
            raise FormulaError(_NO_FORMATTING, where)
        if growing is not None:
            _check_growth(growing, a, b, where)
        try:
            return apply(a, b)
        except ZeroDivisionError:
            raise FormulaError("division by zero", where) from None
        except TypeError:
            raise FormulaError(f"cannot combine {a!r} and {b!r}", where) from None
        except OverflowError:  # a float power past ~1.8e308
            raise FormulaError(f"{a!r} and {b!r} give a number too large for a float", where) from None
    return binary


_GROWING = {ast.Pow: "Power", ast.Mult: "Multiply"}  # the operators that can make a number huge


def _check_growth(op: str, a, b, where: int) -> None:
    """Refuse, before Python computes it, a result no count could be: ``((2**64)**64)**64``
    would take gigabytes, and a number over ~1,000 bits cannot even be printed as a float."""
    if op == "Power" and isinstance(b, int) and b > MAX_POWER:
        raise FormulaError(f"exponent {b} is over the limit of {MAX_POWER}", where)
    if result_length(op, a, b) > MAX_ITEMS:
        raise FormulaError(f"the repetition would have over {MAX_ITEMS:,} items", where)
    bits = result_bits(op, a, b)
    if bits > MAX_BITS:
        raise FormulaError(f"the result would have about {bits:,} bits, over the limit of {MAX_BITS:,}", where)
    if result_terms(op, a, b, MAX_TERMS) > MAX_TERMS:
        raise FormulaError(f"the symbolic result would have over {MAX_TERMS:,} terms", where)


def _compile_boolean(operands: list, is_and: bool, where: int):
    def boolean(env):
        value = None
        for operand in operands:
            value = operand(env)
            if _truth_at(value, where) != is_and:
                return value
        return value
    return boolean


def _compile_compare(first, steps: list, where: int):
    def compare(env):
        left = first(env)
        for test, comparator in steps:
            right = comparator(env)
            try:
                if not test(left, right):
                    return False
            except Undecidable as error:
                raise FormulaError(str(error), where) from None
            except TypeError:
                raise FormulaError(f"cannot compare {type(left).__name__} with {type(right).__name__}",
                                   where) from None
            left = right
        return True
    return compare


def _compile_subscript(container, index, where: int):
    if isinstance(index, ast.Slice):
        parts = [None if p is None else _compile(p) for p in (index.lower, index.upper, index.step)]

        def sliced(env):
            value = container(env)
            try:
                return value[slice(*[None if p is None else p(env) for p in parts])]
            except (TypeError, ValueError) as error:  # `x[::0]`, `x['a':]`, a number sliced
                raise FormulaError(f"cannot slice: {error}", where) from None
        return sliced
    key = _compile(index)

    def subscript(env):
        value = container(env)
        try:
            return value[key(env)]
        except (IndexError, KeyError, TypeError):
            raise FormulaError("index out of range", where) from None
    return subscript


def _compile_call(name: str, arguments: list, where: int):
    function = FUNCTIONS[name]

    def call(env):
        args = [a(env) for a in arguments]
        try:
            return function(*args)
        except (TypeError, ValueError, ArithmeticError, Undecidable) as error:  # floor(inf): OverflowError
            raise FormulaError(f"{name}(): {error}", where) from None
    return call


def _truth_at(value, where: int) -> bool:
    try:
        return bool(value)
    except Undecidable as error:
        raise FormulaError(str(error), where) from None
