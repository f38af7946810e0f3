"""Checks of a shape against what an op expects (rank, one size), and where the channels are
(first after the batch, or last): shared by the kinds' shape functions."""

from __future__ import annotations

from staticflops.shapes.expr import Dim, format_dim
from staticflops.shapes.shape import Shape, format_shape
from staticflops.shapes.tensor_ops import ShapeError, same


def expect_rank(x: Shape, ranks, what: str) -> None:
    if len(x) not in ranks:
        wanted = " or ".join(str(r) for r in ranks)
        raise ShapeError(f"{what} expects a {wanted}-D input, got shape {format_shape(x)}")


def expect_size(actual: Dim, wanted: Dim, message: str) -> None:
    """``message`` names ``{wanted}`` and ``{actual}``; sizes not provably equal are refused."""
    if not same(actual, wanted):
        raise ShapeError(message.format(wanted=format_dim(wanted), actual=format_dim(actual)))


def channels_last(attrs) -> bool:
    """(batch, *spatial, channels) rather than (batch, channels, *spatial): Keras layers say so
    with ``data_format`` (their default); PyTorch layers carry none."""
    return attrs.get("data_format") == "channels_last"


def spatial_sizes(attrs, x: Shape) -> tuple:
    """The spatial sizes of a batched (batch, channels, *spatial) or (batch, *spatial, channels) shape."""
    return tuple(x[1:-1]) if channels_last(attrs) else tuple(x[2:])


def with_spatial_sizes(attrs, x: Shape, sizes) -> Shape:
    """``x`` with its spatial sizes replaced by ``sizes`` (batch and channels where they were)."""
    return (x[0],) + tuple(sizes) + (x[-1],) if channels_last(attrs) else x[:2] + tuple(sizes)
