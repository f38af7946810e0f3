"""Sliding-window size arithmetic: how long a dimension is after a convolution, a pooling
window, a transposed convolution or a block extraction.  Pure algebra on sizes (ints or
symbolic dims); which framework argument means what is the kinds' business (``kinds/``)."""

from __future__ import annotations

from staticflops.shapes.expr import Dim, format_dim
from staticflops.shapes.tensor_ops import ShapeError


def positive(values, what: str) -> None:
    """Strides, dilations and windows divide or scale sizes: a non-positive one is refused."""
    for value in values:
        if isinstance(value, int) and value <= 0:
            raise ShapeError(f"non-positive {what} {value} is not supported")


def non_negative(values, what: str) -> None:
    for value in values:
        if isinstance(value, int) and value < 0:
            raise ShapeError(f"negative {what} {value} is not supported")


def same_output_size(size, stride) -> Dim:
    """'same' padding: ceil(size / stride) (TensorFlow/Keras; stride 1 keeps the size)."""
    return size if stride == 1 else (size + stride - 1) // stride


def conv_output_size(size, kernel, stride, padding, dilation) -> Dim:
    """floor((size + 2 padding - dilation (kernel - 1) - 1) / stride) + 1."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def pool_output_size(size, kernel, stride, padding, dilation, ceil_mode) -> Dim:
    """As a convolution's, rounding up in ceil mode, where the last window must still start
    inside the input or its left padding."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    if not ceil_mode:
        return span // stride + 1
    length = -((-span) // stride) + 1
    if isinstance(length, int) and isinstance(size, int) and (length - 1) * stride >= size + padding:
        length -= 1
    return length


def transposed_output_size(size, kernel, stride, padding, dilation, output_padding) -> Dim:
    """The inverse of ``conv_output_size``: (size - 1) stride - 2 padding + dilation (kernel - 1)
    + output_padding + 1."""
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


def window_positions(spatial, kernel, dilation, padding, stride) -> list:
    """Per dimension, the number of places a window fits (a convolution's output size); an
    input too small for the window is refused."""
    sizes = []
    for size, k, d, p, s in zip(spatial, kernel, dilation, padding, stride):
        length = conv_output_size(size, k, s, p, d)
        if isinstance(length, int) and length <= 0:
            raise ShapeError(f"input size {format_dim(size)} is too small for kernel {k} (dilation {d})")
        sizes.append(length)
    return sizes
