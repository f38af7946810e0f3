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

from staticflops.shapes import Expr, Undecidable, numel


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


class Formula:
    """A parsed, checked formula; ``evaluate(env)`` computes it over known variables."""

    __slots__ = ("text", "tree", "names")

    def __init__(self, text: str | int | float):
        self.text = str(text)
        self.tree, self.names = _checked(self.text)

    def evaluate(self, env: dict):
        return _evaluate(self.tree.body, env)

    def __repr__(self) -> str:
        return f"Formula({self.text!r})"


@lru_cache(maxsize=4096)
def _checked(text: str) -> tuple:
    """Parse and whitelist-check a formula once per distinct text (rule sets repeat many,
    e.g. ``0`` and ``2 * macs``); trees are never mutated, so they are shared."""
    tree, names = _parse_checked(text)
    return tree, frozenset(names)


def _parse_checked(text: str):
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"formula is {len(text)} characters, over the {MAX_LENGTH} limit")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise FormulaError(f"not a valid formula: {error.msg}", (error.offset or 1) - 1) from None
    names = set()
    for node in ast.walk(tree):
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
    return tree, names


def _evaluate(node, env):
    kind = type(node)
    if kind is ast.Constant:
        return node.value
    if kind is ast.Name:
        if node.id in env:
            return env[node.id]
        if node.id in FUNCTIONS:
            return FUNCTIONS[node.id]
        raise FormulaError(f"unknown variable `{node.id}`", node.col_offset)
    if kind is ast.BinOp:
        left, right = _evaluate(node.left, env), _evaluate(node.right, env)
        if type(node.op) is ast.Pow and isinstance(right, int) and right > MAX_POWER:
            raise FormulaError(f"exponent {right} is over the limit of {MAX_POWER}", node.col_offset)
        try:
            return _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise FormulaError("division by zero", node.col_offset) from None
        except TypeError:
            raise FormulaError(f"cannot combine {left!r} and {right!r}", node.col_offset) from None
    if kind is ast.UnaryOp:
        value = _evaluate(node.operand, env)
        if type(node.op) is ast.Not:
            return not _truth(value, node)
        return -value if type(node.op) is ast.USub else value
    if kind is ast.BoolOp:
        is_and = type(node.op) is ast.And
        value = None
        for operand in node.values:
            value = _evaluate(operand, env)
            if _truth(value, node) != is_and:
                return value
        return value
    if kind is ast.Compare:
        left = _evaluate(node.left, env)
        for op, comparator in zip(node.ops, node.comparators):
            right = _evaluate(comparator, env)
            try:
                if not _COMPARE[type(op)](left, right):
                    return False
            except Undecidable as error:
                raise FormulaError(str(error), node.col_offset) from None
            left = right
        return True
    if kind is ast.IfExp:
        return _evaluate(node.body if _truth(_evaluate(node.test, env), node) else node.orelse, env)
    if kind is ast.Subscript:
        container = _evaluate(node.value, env)
        index = node.slice
        if isinstance(index, ast.Slice):
            parts = [None if p is None else _evaluate(p, env) for p in (index.lower, index.upper, index.step)]
            return container[slice(*parts)]
        try:
            return container[_evaluate(index, env)]
        except (IndexError, KeyError, TypeError):
            raise FormulaError("index out of range", node.col_offset) from None
    if kind in (ast.Tuple, ast.List):
        return tuple(_evaluate(e, env) for e in node.elts)
    if kind is ast.Call:
        args = [_evaluate(a, env) for a in node.args]
        try:
            return FUNCTIONS[node.func.id](*args)
        except (TypeError, ValueError, Undecidable) as error:
            raise FormulaError(f"{node.func.id}(): {error}", node.col_offset) from None
    raise FormulaError(f"`{kind.__name__}` is not allowed in a formula", getattr(node, "col_offset", 0))


def _truth(value, node) -> bool:
    try:
        return bool(value)
    except Undecidable as error:
        raise FormulaError(str(error), node.col_offset) from None
