"""Shapes stage: symbolic dimension algebra and shape inference for every op kind."""

from staticflops.shapes.expr import Dim, Expr, Undecidable, evaluate, format_dim, is_symbolic, symbol
from staticflops.shapes.shape import InputSpec, Shape, format_shape, numel, parse_input_spec

__all__ = [
    "Dim", "Expr", "InputSpec", "Shape", "Undecidable", "evaluate", "format_dim", "format_shape",
    "is_symbolic", "numel", "parse_input_spec", "symbol",
]
