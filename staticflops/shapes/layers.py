"""The registry of op kinds' shape functions, and ``infer``, which runs one and checks what it
gives.

A shape function maps a kind's normalised attributes and input shapes to ``(outputs, facts)``:
the output shapes and derived quantities that rule formulas use (sequence length, batch size,
einsum index sizes).  The functions themselves live with their kinds, in the catalogue
(``staticflops/kinds/``, entered here by ``kinds/catalogue.py``).  Costs are *not* here: they
live in ``rules/*.yaml``.
"""

from __future__ import annotations

from staticflops.diagnostics import reason
from staticflops.shapes.expr import Expr
from staticflops.shapes.shape import format_shape
from staticflops.shapes.tensor_ops import ShapeError

SHAPE_FUNCTIONS: dict = {}


def infer(kind: str, attrs: dict, inputs: list) -> tuple[list, dict]:
    fn = SHAPE_FUNCTIONS.get(kind)
    if fn is None:
        raise KeyError(kind)
    try:
        outputs, facts = fn(attrs, inputs)
    except (TypeError, ValueError, ArithmeticError) as error:
        # the attributes are the model's own arguments: a string or 0 where PyTorch wants a size
        raise ShapeError(f"cannot compute the output shape from these arguments ({reason(error)})") from None
    for shape in outputs:
        for dim in shape or ():
            if isinstance(dim, bool) or not isinstance(dim, (int, Expr)):
                raise ShapeError(f"a size must be an integer, got {dim!r}")
            if isinstance(dim, int) and dim < 0:
                raise ShapeError(f"negative size {dim} in the output shape {format_shape(shape)}")
    return outputs, facts

