"""Resampling on a grid: interpolation to a size or by a scale (nn.Upsample, F.interpolate),
affine sampling grids and sampling at grid points (F.affine_grid, F.grid_sample)."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.expr import Expr
from staticflops.shapes.shape import format_shape
from staticflops.shapes.tensor_ops import ShapeError, same
from staticflops.shapes.windows import positive


def _interpolate(attrs, inputs):
    x = inputs[0]
    spatial = len(x) - 2
    size, scale = attrs.get("size"), attrs.get("scale_factor")
    if size is not None and scale is not None:
        raise ShapeError("only one of size or scale_factor should be defined")
    if size is not None:
        out = tuple(size) if isinstance(size, (tuple, list)) else (size,) * spatial
        positive(out, "output size")
    elif scale is not None:
        scales = tuple(scale) if isinstance(scale, (tuple, list)) else (scale,) * spatial
        for factor in scales:  # 0 or less gives an empty or negative output in PyTorch's formula
            if isinstance(factor, (int, float)) and not isinstance(factor, bool) and factor <= 0:
                raise ShapeError(f"scale_factor must be positive, got {factor!r}")
        out = tuple(_scaled(d, s) for d, s in zip(x[2:], scales))
    else:
        raise ShapeError("interpolation needs either size or scale_factor")
    return [x[:2] + out], {}


def _scaled(size, scale):
    product = size * scale
    if isinstance(product, float):
        return int(product)
    if isinstance(product, Expr):
        return product
    return int(product)


def _affine_grid(attrs, inputs):
    """theta (N, 2, 3) with size (N, C, H, W) -> (N, H, W, 2); (N, 3, 4) with 5 sizes -> (N, D, H, W, 3)."""
    theta, size = inputs[0], tuple(attrs["size"])
    if len(size) not in (4, 5):
        raise ShapeError(f"affine_grid supports 4-D and 5-D sizes only, got {len(size)} sizes")
    spatial = len(size) - 2
    if len(theta) != 3 or not same(theta[1], spatial) or not same(theta[2], spatial + 1):
        raise ShapeError(f"affine_grid expects theta of shape (N, {spatial}, {spatial + 1}) for size "
                         f"{format_shape(size)}, got {format_shape(theta)}")
    return [(size[0],) + size[2:] + (spatial,)], {}


def _grid_sample(attrs, inputs):
    """input (N, C, H, W), grid (N, Ho, Wo, 2) -> (N, C, Ho, Wo) (and the 5-D analogue)."""
    x, grid = inputs[0], inputs[1]
    if len(x) not in (4, 5) or len(grid) != len(x) or not same(grid[-1], len(x) - 2):
        raise ShapeError(f"grid_sample: grid {format_shape(grid)} does not fit input {format_shape(x)}")
    return [x[:2] + tuple(grid[1:-1])], {}


KINDS = catalogue(
    Kind("interpolate", _interpolate, True, "nearest / linear / cubic / area resampling of the spatial dims",
         (Example("self.m(x)", ("x:1x3x4x4",), ((1, 3, 8, 8),), 0,
                  "scale 2: 4*2 = 8 per side; FlopCounterMode has no formula for the upsampling kernels: 0",
                  init="self.m = nn.Upsample(scale_factor=2)", params=0),)),
    Kind("affine_grid", _affine_grid, True, "the sampling grid of a batch of affine transforms",
         (Example("F.affine_grid(t, [2, 3, 4, 5])", ("t:2x2x3",), ((2, 4, 5, 2),), 0,
                  "size (N=2, C=3, H=4, W=5): one (x, y) per output pixel; 0"),)),
    Kind("grid_sample", _grid_sample, True, "the input sampled at each point of a grid",
         (Example("F.grid_sample(x, g)", ("x:2x3x8x8", "g:2x4x5x2"), ((2, 3, 4, 5),), 0,
                  "the grid's 4x5 points for each of the 3 channels; 0"),)),
)
