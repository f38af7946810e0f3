"""Resampling on a grid: interpolation to a size or by a scale (nn.Upsample, F.interpolate),
affine sampling grids and sampling at grid points (F.affine_grid, F.grid_sample)."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.expr import Expr
from staticflops.shapes.layout import spatial_sizes, with_spatial_sizes
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


def _pad_or_crop(attrs, inputs):
    x = inputs[0]
    sign = 1 if attrs["kind"] == "pad" else -1
    if attrs.get("trailing"):  # PyTorch's padding layers: the last dimensions, batched or not
        count = len(attrs["padding"])
        if len(x) < count + 1:
            raise ShapeError(f"{attrs.get('type', 'pad')} expects at least {count + 1} dimensions, got {format_shape(x)}")
        out = [size + before + after for size, (before, after) in zip(x[-count:], attrs["padding"])]
        for size in out:
            if isinstance(size, int) and size <= 0:
                raise ShapeError(f"{attrs.get('type', 'pad')}: padding gives an empty output {format_shape(tuple(out))}")
        return [tuple(x[:-count]) + tuple(out)], {}
    spatial = spatial_sizes(attrs, x)
    if len(spatial) != len(attrs["padding"]):
        raise ShapeError(f"{attrs.get('type', attrs['kind'])} expects {len(attrs['padding'])} spatial dimensions, "
                         f"got shape {format_shape(x)}")
    out = [size + sign * (before + after) for size, (before, after) in zip(spatial, attrs["padding"])]
    return [with_spatial_sizes(attrs, x, out)], {}


def _upsample(attrs, inputs):
    x = inputs[0]
    return [with_spatial_sizes(attrs, x, [size * f for size, f in zip(spatial_sizes(attrs, x), attrs["size"])])], {}


def _resize(attrs, inputs):
    """Resizing, and CenterCrop/RandomCrop: the image becomes height x width."""
    x = inputs[0]
    return [with_spatial_sizes(attrs, x, [attrs["height"], attrs["width"]])], {}


def _keras(call, inputs, shape, why):
    return Example(call, inputs, (shape,), 0, why, params=0, framework="keras")


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

    # the border and size changes of Keras layers (channels last), and PyTorch's padding layers
    Kind("pad", _pad_or_crop, True, "constant, reflected, replicated or circular borders added to the spatial dims",
         (Example("self.m(x)", ("x:1x3x8x8",), ((1, 3, 10, 10),), 0, "1 on each side: 8 + 2*1 = 10; a copy: 0",
                  init="self.m = nn.ZeroPad2d(1)", params=0),
          _keras("layers.ZeroPadding2D(1)(x)", ("x:2x8x8x3",), (2, 10, 10, 3), "8 + 2*1 = 10 per side: 0"))),
    Kind("crop", _pad_or_crop, True, "Keras Cropping*D: borders removed from the spatial dims",
         (_keras("layers.Cropping2D(1)(x)", ("x:2x8x8x3",), (2, 6, 6, 3), "8 - 2*1 = 6 per side: 0"),)),
    Kind("upsample", _upsample, True, "Keras UpSampling*D: each spatial dim times its factor",
         (_keras("layers.UpSampling2D(2)(x)", ("x:2x4x4x3",), (2, 8, 8, 3), "4*2 = 8 per side: 0"),)),
    Kind("resize", _resize, True, "Keras Resizing: the image resampled to height x width",
         (_keras("layers.Resizing(4, 6)(x)", ("x:2x8x8x3",), (2, 4, 6, 3), "height 4, width 6: 0"),)),
    Kind("crop_to", _resize, True, "Keras CenterCrop / RandomCrop: the image cut to height x width",
         (_keras("layers.CenterCrop(4, 6)(x)", ("x:2x8x8x3",), (2, 4, 6, 3), "height 4, width 6: 0"),)),
)
