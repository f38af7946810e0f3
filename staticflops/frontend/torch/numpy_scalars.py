"""numpy's scalar maths on known numbers: model configs size layers with it (EnCodec's
``hop_length = int(np.prod(upsampling_ratios))``, Mask2Former's ``int(np.log2(stride))``, CTRL's
``np.sqrt(d_model)``).  Results are Python numbers with numpy's types' behaviour where it shows:
``prod``/``sum`` of integers stay integers, the transcendental ones and floor/ceil give floats.
The one-argument functions of an array (a tensor here: ``numpy.array``, ``linspace``) give a
float64 array of its shape whose values are not computed; anything else is not known."""

from __future__ import annotations

import math

from staticflops.frontend.values import Builtin, CannotKnow, Tensor, Unknown


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
        if len(args) == 1 and not kwargs and isinstance(args[0], Tensor) and args[0].shape is not None:
            # elementwise on an array (a tensor here): its shape, float64, values not computed
            return Tensor(args[0].shape, "float64")
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


def _integer_pair(name, op):
    """numpy.gcd / numpy.lcm of two known integers (Reformer's chunk length: ``np.lcm(a, b)``)."""
    def fn(interp, args, kwargs, node):
        if len(args) != 2 or kwargs or not all(type(a) is int for a in args):
            raise CannotKnow(f"numpy.{name} of something other than two integers")
        return op(*args)
    return fn


def _argsort(interp, args, kwargs, node):
    """``numpy.argsort(numbers)`` of a flat list of distinct known numbers: the positions that
    sort it, an int64 array (a tensor of known values).  With ties the order depends on the sort
    kind, so it is not known."""
    axis = kwargs.pop("axis", args[1] if len(args) > 1 else -1)
    if not args or len(args) > 2 or kwargs or axis not in (0, -1) or not isinstance(args[0], (list, tuple)):
        raise CannotKnow("numpy.argsort of something other than a flat list of numbers")
    numbers = _numbers(args[0])
    if len(numbers) != len(args[0]) or len(set(numbers)) != len(numbers):
        raise CannotKnow("numpy.argsort of a nested list or one with equal values")
    order = sorted(range(len(numbers)), key=numbers.__getitem__)
    return Tensor((len(order),), "int64", values=order)


def _cumsum(interp, args, kwargs, node):
    """``numpy.cumsum(numbers)`` of a flat list of known numbers: the running totals, an array
    (a tensor of known values) of int64 for integers, else float64 (SAM 2's stage ends:
    ``(np.cumsum(blocks_per_stage) - 1).tolist()``).  An axis or dtype is not modelled."""
    if len(args) != 1 or kwargs or not isinstance(args[0], (list, tuple)):
        raise CannotKnow("numpy.cumsum of something other than a flat list of numbers")
    numbers = _numbers(args[0])
    if len(numbers) != len(args[0]):
        raise CannotKnow("numpy.cumsum of a nested list (numpy flattens it) is not modelled")
    totals, total = [], 0
    for n in numbers:
        total += n
        totals.append(total)
    dtype = "int64" if all(type(n) is int for n in numbers) else "float64"
    return Tensor((len(totals),), dtype, values=[float(t) for t in totals] if dtype == "float64" else totals)


def _unknown_through(fn):
    """An unknown argument gives that unknown back, reported only where the model needs it (a
    table numpy builds that is too large to compute, passed on to ``np.sin``)."""
    def call(interp, args, kwargs, node):
        for value in (*args, *kwargs.values()):
            if isinstance(value, Unknown):
                return value
        return fn(interp, args, kwargs, node)
    return call


def members() -> dict:
    table = {
        "prod": _reduce("prod", 1, lambda a, b: a * b), "sum": _reduce("sum", 0, lambda a, b: a + b),
        "sqrt": _unary("sqrt", math.sqrt), "log": _unary("log", math.log), "log2": _unary("log2", math.log2),
        "log10": _unary("log10", math.log10), "exp": _unary("exp", math.exp), "floor": _unary("floor", math.floor),
        "ceil": _unary("ceil", math.ceil), "sin": _unary("sin", math.sin), "cos": _unary("cos", math.cos),
        "power": _power,
        "gcd": _integer_pair("gcd", math.gcd), "lcm": _integer_pair("lcm", math.lcm), "argsort": _argsort,
        "cumsum": _cumsum,
    }
    found = {name: Builtin(f"numpy.{name}", _unknown_through(fn), bind_self=False, pure=True)
             for name, fn in table.items()}
    # numpy.newaxis is None: `t[:, np.newaxis]` inserts a dimension, on a tensor too
    return {**found, "pi": math.pi, "e": math.e, "newaxis": None}
