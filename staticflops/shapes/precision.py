"""Number formats by name: the one vocabulary of ``--dtype`` (bytes per element for the memory
figures) and ``--precision`` (which peak of ``rules/hardware.yaml`` a training budget uses).

Each format has a short name (``bf16``: the hardware table's key), the dtype name the report
writes (``bfloat16``: PyTorch's spelling) and the aliases people type.  Both flags accept all
of them, so ``--dtype bf16`` and ``--precision bfloat16`` mean what they say."""

from __future__ import annotations

from dataclasses import dataclass

from staticflops.diagnostics import UsageError


@dataclass(frozen=True)
class Precision:
    short: str  # fp32: rules/hardware.yaml's key
    dtype: str  # float32: the report's `totals.dtype`
    bytes: int  # per element, for the memory figures
    aliases: tuple[str, ...] = ()


PRECISIONS = (
    Precision("fp64", "float64", 8, ("double", "f64")),
    Precision("fp32", "float32", 4, ("float", "f32")),
    # TensorFloat-32 is a matmul mode on float32 storage: its tensors take float32's 4 bytes,
    # and the name float32 stays fp32's (below: the first format to claim a name keeps it)
    Precision("tf32", "float32", 4, ("tensorfloat32",)),
    Precision("bf16", "bfloat16", 2, ()),
    Precision("fp16", "float16", 2, ("half", "f16")),
    Precision("fp8", "float8", 1, ("float8_e4m3fn", "float8_e5m2", "e4m3", "e5m2")),
    Precision("int8", "int8", 1, ()),
)

_BY_NAME: dict[str, Precision] = {}
for _format in PRECISIONS:
    for _name in (_format.short, _format.dtype, *_format.aliases):
        _BY_NAME.setdefault(_name, _format)


def precision(name: str, flag: str) -> Precision:
    """The format called ``name`` (case-insensitive); a usage error listing the valid names
    (``flag`` says which option was given it)."""
    found = _BY_NAME.get(name.strip().lower()) if isinstance(name, str) else None
    if found is None:
        raise UsageError(f"{flag} must be one of {valid_names()}; got {name!r}")
    return found


def valid_names() -> str:
    """``fp64 (float64, double, f64), fp32 (float32, float, f32), ...``"""
    parts = []
    for item in PRECISIONS:
        others = [n for n in (item.dtype, *item.aliases) if n != item.short and _BY_NAME[n] is item]
        parts.append(item.short + (f" ({', '.join(others)})" if others else ""))
    return ", ".join(parts)
