"""Shapes stage: symbolic dimension algebra and shape inference for every op kind."""

from staticflops.shapes.expr import Dim, Expr, Undecidable, evaluate, format_dim, is_symbolic, symbol
from staticflops.shapes.shape import InputSpec, Shape, format_shape, numel, parse_input_spec

# Every kind's shape rule is registered once the stage is imported: the framework-neutral ones,
# then the Keras-only ones (which build on them).
from staticflops.shapes import layers, keras_layers  # noqa: E402,F401

__all__ = [
    "Dim", "Expr", "InputSpec", "Shape", "Undecidable", "evaluate", "format_dim", "format_shape",
    "is_symbolic", "numel", "parse_input_spec", "symbol",
]
