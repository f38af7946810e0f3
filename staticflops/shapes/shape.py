"""Shapes as tuples of dimensions, and the ``--input`` spelling of them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from staticflops.diagnostics import UsageError
from staticflops.shapes.expr import Dim, format_dim, symbol, symbol_range

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


_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def parse_keyword_input(text: str) -> tuple[str, InputSpec]:
    """``attention_mask=1x32:int64=1`` -> (the forward's keyword, its InputSpec); a dotted name
    ``added_cond_kwargs.text_embeds=1x1280`` is a key of a dict given as that keyword."""
    name, equals, spec = text.strip().partition("=")
    if not equals or not _KEYWORD.fullmatch(name.strip()) or len(name) > 200:
        raise UsageError(f"--keyword-input {_shortened(text)}: expected NAME=SHAPE, such as "
                         "decoder_input_ids=1x8:int64 or added_cond_kwargs.time_ids=1x6")
    return name.strip(), parse_input_spec(spec)


_COMPARISON = re.compile(r"\s*(<=|>=|<|>)\s*")
_RANGE_HELP = "expected a range of one size named in --input, such as T>=2, T<=4096 or 2<=T<=4096"


def assume_ranges(specs: list, texts) -> list:
    """``specs`` with each size ``--assume`` names narrowed to its range (``T>=2``: a sequence of
    more than one token): ``T > 1`` is then decided where the code compares it.  Several ranges
    of one name intersect."""
    texts = list(texts or ())
    if not texts:
        return specs
    named = {found[0] for spec in specs for found in map(symbol_range, spec.shape) if found}
    ranges: dict = {}
    for text in texts:
        name, low, high = _parse_range(text)
        if name not in named:
            shown = ", ".join(sorted(named)) or "none"
            raise UsageError(f"--assume {_shortened(text)}: {name} is not a size named in --input (named: {shown})")
        was_low, was_high = ranges.get(name, (1, None))
        low, high = max(was_low, low), high if was_high is None else was_high if high is None else min(was_high, high)
        if high is not None and high < low:
            raise UsageError(f"--assume {_shortened(text)}: no size {name} satisfies every range given for it")
        ranges[name] = (low, high)
    return [InputSpec(tuple(_narrowed(dim, ranges) for dim in spec.shape), spec.dtype, spec.fill) for spec in specs]


def _narrowed(dim: Dim, ranges: dict) -> Dim:
    found = symbol_range(dim)
    return symbol(found[0], *ranges[found[0]]) if found and found[0] in ranges else dim


def _parse_range(text: str) -> tuple:
    """``T>=2``, ``T>1``, ``T<=4096``, ``2<=T``, ``2<=T<=4096`` -> (name, low, high or None)."""
    parts = _COMPARISON.split(text.strip()) if len(text) <= 200 else []
    if len(parts) not in (3, 5) or (len(parts) == 5 and {parts[1][0], parts[3][0]} != {parts[1][0]}):
        raise UsageError(f"--assume {_shortened(text)}: {_RANGE_HELP}")
    names = [part for part in parts[::2] if _IDENT.fullmatch(part)]
    numbers = [part for part in parts[::2] if part.isascii() and part.isdigit() and len(part) <= 19]
    if len(names) != 1 or len(names) + len(numbers) != len(parts[::2]) or (len(parts) == 5 and parts[2] != names[0]):
        raise UsageError(f"--assume {_shortened(text)}: {_RANGE_HELP}")
    low, high = 1, None
    for left, operator, right in ((parts[i], parts[i + 1], parts[i + 2]) for i in range(0, len(parts) - 1, 2)):
        if left == names[0]:  # T op k, read as k op' T
            left, right = right, left
            operator = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[operator]
        bound = int(left)  # k op T
        if operator in ("<", "<="):
            low = max(low, bound + (operator == "<"))
        else:
            limit = bound - (operator == ">")
            high = limit if high is None else min(high, limit)
    if high is not None and high < low:
        raise UsageError(f"--assume {_shortened(text)}: no size {names[0]} is in this range (sizes are at least 1)")
    return names[0], low, high


def range_text(name: str, low: int, high: int | None) -> str:
    """``2 <= T``, ``T <= 4096``, ``2 <= T <= 4096``."""
    return (f"{low} <= " if low > 1 else "") + name + (f" <= {high}" if high is not None else "")


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
