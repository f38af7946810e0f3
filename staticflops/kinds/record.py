"""The record type of the kind catalogue, and the registry every family module fills."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from staticflops.shapes.tensor_ops import ShapeError, same


@dataclass(frozen=True)
class Example:
    """A worked case: a call on named inputs, and what the kind must give (derived by hand,
    the arithmetic in ``why``).  ``flops`` is the forward count under `standard`.  A layer's
    case builds it first: ``init`` is the body of ``__init__`` (``self.m = nn.Conv2d(3, 4, 3)``)
    and ``params`` the parameter count it must have.  A Keras case (``framework="keras"``) is
    the output expression of a functional model whose inputs are ``keras.Input``s named as in
    ``inputs`` (the first size of each, the batch, is the analysis's batch), such as
    ``layers.Reshape((4, 2))(x)``: the kinds only Keras layers and keras.ops produce."""

    call: str
    inputs: tuple  # "x:2x8", "i:int64:2x8" (the coverage probe's spec)
    shapes: tuple  # expected output shapes
    flops: int
    why: str
    init: str = ""
    params: int | None = None
    framework: str = "torch"


@dataclass(frozen=True)
class Kind:
    """``shape(attrs, input_shapes) -> (output_shapes, facts)``.  ``computes``: the op is
    recorded and priced by every rule set (each decides it explicitly); otherwise it only moves
    or creates data, changes shapes and records nothing (no convention counts data movement).
    ``weights(attrs) -> (weight shape, bias shape)``: the tensors a layer of the kind holds, in
    PyTorch's layout (out before in), which model code reads (``F.linear(x, self.qkv.weight)``);
    whether the bias exists is the layer's ``bias`` flag.  None: no weights modelled."""

    name: str
    shape: Callable
    computes: bool
    doc: str
    examples: tuple = field(default=())
    weights: Callable | None = None


def catalogue(*kinds: Kind) -> dict:
    """name -> Kind; a name given twice is a mistake, refused (as FlopCounterMode's registry)."""
    table: dict = {}
    for kind in kinds:
        if kind.name in table:
            raise ValueError(f"op kind {kind.name!r} is catalogued twice")
        table[kind.name] = kind
    return table


class Unresolved(Exception):
    """The output shape needs a comparison of symbolic sizes (min(B, 8)): not known statically."""


def smaller(a, b):
    """min(a, b) of two sizes; equal symbolic sizes are their own minimum, others unresolved."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    if same(a, b):
        return a
    raise Unresolved(f"min({a}, {b}) of sizes that are not known numbers")


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise ShapeError(message)
