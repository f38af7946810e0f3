"""``torch.finfo(dtype)`` / ``torch.iinfo(dtype)``: the limits of a number type.

Attention code masks with ``torch.finfo(x.dtype).min`` (over a hundred transformers modeling
files do), so the value must be a number, not an unknown.  The figures are IEEE 754's (binary16,
binary32, binary64, and bfloat16: binary32's exponent with a 7-bit mantissa), written as the
arithmetic that defines them.  A tensor's dtype is tracked as "float32" for every float kind
(``DTypeName``), so ``finfo(x.dtype)`` answers for float32, the dtype the ground truth runs in.
"""

from __future__ import annotations

from staticflops.frontend import pyclasses
from staticflops.frontend.values import Builtin, CannotKnow, Record

# mantissa bits (without the implicit one), largest exponent, decimal digits of resolution
_FLOATS = {"float16": (10, 15, 3), "bfloat16": (7, 127, 2), "float32": (23, 127, 6), "float64": (52, 1023, 15)}
_FLOAT_ALIASES = {"half": "float16", "float": "float32", "double": "float64"}
_INTS = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "int32": (32, True), "int64": (64, True)}
_INT_ALIASES = {"short": "int16", "int": "int32", "long": "int64"}
_FINFO_FIELDS = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
_IINFO_FIELDS = ("bits", "max", "min", "dtype")


def _finfo_values(name: str) -> tuple:
    mantissa, exponent, digits = _FLOATS[name]
    largest = (2 - 2.0 ** -mantissa) * 2.0 ** exponent
    tiny = 2.0 ** (1 - exponent)  # smallest normal number
    bits = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}[name]
    return bits, 2.0 ** -mantissa, largest, -largest, tiny, tiny, 10.0 ** -digits, name


def _iinfo_values(name: str) -> tuple:
    bits, signed = _INTS[name]
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return bits, high, low, name


def _dtype_name(args, kwargs, default):
    """The exact dtype name of ``torch.float16`` (a DTypeName), of a tensor's dtype, or the default."""
    dtype = args[0] if args else kwargs.get("type", default)
    return getattr(dtype, "exact", dtype)


def limits_functions(object_class) -> dict:
    """``finfo`` and ``iinfo`` for the torch namespace."""
    finfo_class = pyclasses.make_record_class("finfo", list(_FINFO_FIELDS), {}, (object_class,))
    iinfo_class = pyclasses.make_record_class("iinfo", list(_IINFO_FIELDS), {}, (object_class,))

    def finfo(interp, args, kwargs, node):
        name = _dtype_name(args, kwargs, "float32")  # no argument: the default dtype
        name = _FLOAT_ALIASES.get(name, name)
        if name not in _FLOATS:
            raise CannotKnow(f"torch.finfo of {name!r}")
        return Record.make(finfo_class, _FINFO_FIELDS, _finfo_values(name))

    def iinfo(interp, args, kwargs, node):
        name = _dtype_name(args, kwargs, None)
        name = _INT_ALIASES.get(name, name)
        if name not in _INTS:
            raise CannotKnow(f"torch.iinfo of {name!r}")
        return Record.make(iinfo_class, _IINFO_FIELDS, _iinfo_values(name))

    return {"finfo": Builtin("torch.finfo", finfo, bind_self=False),
            "iinfo": Builtin("torch.iinfo", iinfo, bind_self=False)}
