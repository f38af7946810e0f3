"""The registry of op kinds' shape functions, and ``infer``, which runs one and checks what it
gives.

A shape function maps a kind's normalised attributes and input shapes to ``(outputs, facts)``:
the output shapes and derived quantities that rule formulas use (sequence length, batch size,
einsum index sizes).  The functions themselves live with their kinds, in the catalogue
(``staticflops/kinds/``, entered here by ``kinds/catalogue.py``), except the Keras-only kinds
of ``shapes/keras_layers.py``, which registers them with ``shape_function``.  Costs are *not*
here: they live in ``rules/*.yaml``.
"""

from __future__ import annotations

from staticflops.diagnostics import reason
from staticflops.shapes.expr import Expr
from staticflops.shapes.layout import channels_last, expect_rank, expect_size  # noqa: F401  (keras_layers.py)
from staticflops.shapes.shape import format_shape
from staticflops.shapes.tensor_ops import ShapeError
from staticflops.shapes.windows import (conv_output_size, non_negative, pool_output_size, positive,  # noqa: F401
                                        same_output_size)

SHAPE_FUNCTIONS: dict = {}


def shape_function(*kinds: str):
    def register(fn):
        for kind in kinds:
            SHAPE_FUNCTIONS[kind] = fn
        return fn
    return register


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


# Old names, which shapes/keras_layers.py (and branches written before the catalogue) import from
# here: the checks of shapes/layout.py, the window algebra of shapes/windows.py.
_expect_rank, _expect = expect_rank, expect_size
_positive, _non_negative = positive, non_negative


def _conv(attrs, inputs):
    """The `conv` kind's shape (kinds/conv.py), for shapes/keras_layers.py's separable_conv,
    which imports it from here: looked up in the registry, as this stage never imports kinds/."""
    return SHAPE_FUNCTIONS["conv"](attrs, inputs)


# Keras' recurrent layers share the rnn/gru/lstm kinds (kinds/recurrent.py) but are batch-major:
# keras_layers.py puts its shape rule here (as it registers its own kinds), where the kind reads it.
BATCH_MAJOR_RECURRENT: dict = {}
