"""Shapes stage: symbolic dimension algebra and shape inference for every op kind."""

from staticflops.shapes.expr import Dim, Expr, Undecidable, evaluate, format_dim, is_symbolic, symbol
from staticflops.shapes.shape import (
    InputSpec, Shape, assume_ranges, format_shape, numel, parse_input_spec, parse_keyword_input,
)

# The registry of shape rules (layers); the rules themselves live in the catalogue, kinds/, which
# enters them.
from staticflops.shapes import layers  # noqa: E402,F401

__all__ = [
    "Dim", "Expr", "InputSpec", "Shape", "Undecidable", "assume_ranges", "evaluate", "format_dim", "format_shape",
    "is_symbolic", "numel", "parse_input_spec", "parse_keyword_input", "symbol",
]
