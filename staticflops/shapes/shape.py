"""Shapes as tuples of dimensions, and the ``--input`` spelling of them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from staticflops.diagnostics import UsageError
from staticflops.shapes.expr import Dim, format_dim, symbol

Shape = tuple  # tuple[Dim, ...]

_DTYPES = {"float32", "float16", "bfloat16", "float64", "int64", "int32", "long", "int", "float", "bool"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class InputSpec:
    shape: Shape
    dtype: str
    fill: int | float | None = None  # ``=1``: every element has this value (an attention mask of ones)

    def __str__(self) -> str:
        return (format_shape(self.shape) + ("" if self.dtype == "float32" else f":{self.dtype}")
                + ("" if self.fill is None else f"={self.fill!r}"))


MAX_SIZE = 2**63 - 1  # PyTorch and TensorFlow hold every size in an int64


def parse_input_spec(text: str) -> InputSpec:
    """``1x3x224x224``, ``B,3,224,224``, ``Bx1024:int64`` or ``1x32:int64=1`` (every element 1: the
    code may look at the values, e.g. whether an attention mask pads anything) -> InputSpec."""
    spec, equals, value = text.strip().partition("=")
    fill = _fill_value(text, value) if equals else None
    body, _, dtype = spec.strip().partition(":")
    dtype = {"long": "int64", "int": "int64", "float": "float32"}.get(dtype, dtype or "float32")
    if dtype not in _DTYPES:
        raise UsageError(f"--input {text!r}: unknown dtype {dtype!r} (use e.g. :int64 or :float32)")
    parts = re.split(r"[x,×]", body.replace(" ", "")) if body else []
    if not parts or any(p == "" for p in parts):
        raise UsageError(f"--input {text!r}: expected dimensions such as 1x3x224x224 or B,3,224,224")
    dims: list[Dim] = []
    for part in parts:
        if part.isascii() and part.isdigit():  # str.isdigit() alone also takes "²"
            if len(part) > 19 or int(part) > MAX_SIZE:  # 19 digits: an int64; longer ones int() may refuse
                raise UsageError(f"--input {_shortened(text)}: dimension {_shortened(part)} is over the int64 size "
                                 "limit (2**63 - 1)")
            dims.append(int(part))
        elif _IDENT.fullmatch(part):
            dims.append(symbol(part))
        else:
            raise UsageError(f"--input {text!r}: {part!r} is neither a number nor a symbol name")
    if fill is not None and dtype in ("int64", "int32", "bool") and not float(fill).is_integer():
        raise UsageError(f"--input {_shortened(text)}: {value.strip()!r} is not a value of dtype {dtype}")
    if fill is not None and dtype in ("int64", "int32", "bool"):
        fill = int(fill)
    return InputSpec(tuple(dims), dtype, fill)


_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _fill_value(text: str, value: str) -> int | float:
    value = value.strip()
    if not _NUMBER.fullmatch(value) or len(value) > 40:
        raise UsageError(f"--input {_shortened(text)}: the value after '=' must be a number, as in 1x32:int64=1")
    number = float(value) if any(c in value for c in ".eE") else int(value)
    if abs(number) > 2**63 - 1:
        raise UsageError(f"--input {_shortened(text)}: the value after '=' is out of range")
    return number


def _shortened(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(f"{text[:25]}...{text[-25:]}") + f" ({len(text):,} characters)"


def numel(shape: Shape) -> Dim:
    total: Dim = 1
    for d in shape:
        total = total * d
    return total


def format_shape(shape: Shape | None) -> str:
    if shape is None:
        return "?"
    return "x".join(format_dim(d) for d in shape) if shape else "scalar"
