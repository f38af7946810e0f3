"""The record type of the kind catalogue, and the registry every family module fills."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from staticflops.shapes.tensor_ops import ShapeError


@dataclass(frozen=True)
class Example:
    """A worked case: a call on named inputs, and what the kind must give (derived by hand,
    the arithmetic in ``why``).  ``flops`` is the forward count under `standard`."""

    call: str
    inputs: tuple  # "x:2x8", "i:int64:2x8" (the coverage probe's spec)
    shapes: tuple  # expected output shapes
    flops: int
    why: str


@dataclass(frozen=True)
class Kind:
    """``shape(attrs, input_shapes) -> (output_shapes, facts)``.  ``computes``: the op is
    recorded and priced by every rule set (each decides it explicitly); otherwise it only moves
    or creates data, changes shapes and records nothing (no convention counts data movement)."""

    name: str
    shape: Callable
    computes: bool
    doc: str
    examples: tuple = field(default=())


def catalogue(*kinds: Kind) -> dict:
    """name -> Kind; a name given twice is a mistake, refused (as FlopCounterMode's registry)."""
    table: dict = {}
    for kind in kinds:
        if kind.name in table:
            raise ValueError(f"op kind {kind.name!r} is catalogued twice")
        table[kind.name] = kind
    return table


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise ShapeError(message)
