"""numpy's scalar maths on known numbers: model configs size layers with it (EnCodec's
``hop_length = int(np.prod(upsampling_ratios))``, Mask2Former's ``int(np.log2(stride))``, CTRL's
``np.sqrt(d_model)``).  Results are Python numbers with numpy's types' behaviour where it shows:
``prod``/``sum`` of integers stay integers, the transcendental ones and floor/ceil give floats.
Anything but plain numbers (an array of unknown values, a tensor) is not known."""

from __future__ import annotations

import math

from staticflops.frontend.values import Builtin, CannotKnow


def _numbers(value) -> list:
    """The numbers of a (nested) list/tuple or a number; else not known."""
    if isinstance(value, bool):
        return [int(value)]
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, (list, tuple)):
        return [n for item in value for n in _numbers(item)]
    raise CannotKnow(f"numpy maths on {type(value).__name__} (only plain numbers are known)")


def _reduce(name, start, step):
    def fn(interp, args, kwargs, node):
        if len(args) != 1 or kwargs:
            raise CannotKnow(f"numpy.{name} with an axis or options")
        numbers = _numbers(args[0])
        if not numbers:  # numpy.prod([]) is 1.0, numpy.sum([]) 0.0 (float64)
            return float(start)
        total = start
        for n in numbers:
            total = step(total, n)
        return total
    return fn


def _unary(name, op):
    def fn(interp, args, kwargs, node):
        if len(args) != 1 or kwargs or not isinstance(args[0], (int, float)) or isinstance(args[0], bool):
            raise CannotKnow(f"numpy.{name} of something other than one number")
        try:
            return float(op(args[0]))
        except (ValueError, OverflowError):
            raise CannotKnow(f"numpy.{name}({args[0]!r}) is not a finite number") from None
    return fn


def _power(interp, args, kwargs, node):
    if len(args) != 2 or not all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args):
        raise CannotKnow("numpy.power of something other than two numbers")
    base, exponent = args
    if isinstance(base, int) and isinstance(exponent, int):
        if exponent < 0:  # numpy refuses negative integer powers of integers
            raise CannotKnow("numpy.power: integers to negative integer powers are not allowed")
        return base ** exponent
    return float(base) ** exponent


def members() -> dict:
    table = {
        "prod": _reduce("prod", 1, lambda a, b: a * b), "sum": _reduce("sum", 0, lambda a, b: a + b),
        "sqrt": _unary("sqrt", math.sqrt), "log": _unary("log", math.log), "log2": _unary("log2", math.log2),
        "log10": _unary("log10", math.log10), "exp": _unary("exp", math.exp), "floor": _unary("floor", math.floor),
        "ceil": _unary("ceil", math.ceil), "power": _power,
    }
    found = {name: Builtin(f"numpy.{name}", fn, bind_self=False) for name, fn in table.items()}
    return {**found, "pi": math.pi, "e": math.e}
