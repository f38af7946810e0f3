"""Known values through ``F.interpolate(..., mode="nearest")``: each output element copies one
input element, so a mask of known values (ViLT resizes its pixel mask to the patch grid, then
sums it for each image's height and width in patches) keeps its values.  The source index is
torch 2.13's ``nearest_idx`` (aten/native/UpSample.h), in float32 as torch computes it: the same
index when the size is unchanged, ``i >> 1`` when it doubles, else ``min(floor(i * scale),
in - 1)`` with ``scale = 1 / scale_factor`` when a factor was given, else ``in / out``."""

from __future__ import annotations

import math
import struct

from staticflops.frontend.torch.constants import MAX_VALUES


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _source(index: int, size_in: int, size_out: int, factor) -> int:
    if size_out == size_in:
        return index
    if size_out == 2 * size_in:
        return index >> 1
    scale = _f32(1.0 / factor) if factor else _f32(size_in / size_out)
    return min(int(math.floor(_f32(index * scale))), size_in - 1)


def nearest_values(values: list | None, shape_in: tuple, shape_out: tuple, factors) -> list | None:
    """The row-major values of the output, or None when they are not known (or too many)."""
    if values is None or not all(type(d) is int for d in (*shape_in, *shape_out)):
        return None
    count = math.prod(shape_out)
    if count > MAX_VALUES or len(values) != math.prod(shape_in) or len(shape_in) != len(shape_out):
        return None
    spatial = len(shape_in) - 2
    if not isinstance(factors, (tuple, list)):
        factors = (factors,) * spatial
    if len(factors) != spatial or any(f is not None and type(f) not in (int, float) for f in factors):
        return None
    # each output axis' source indices, then the row-major offsets of the input they read
    axes = [range(d) for d in shape_out[:2]]
    axes += [[_source(i, n_in, n_out, f) for i in range(n_out)]
             for n_in, n_out, f in zip(shape_in[2:], shape_out[2:], factors)]
    strides = [math.prod(shape_in[k + 1:]) for k in range(len(shape_in))]
    offsets = [0]
    for axis, stride in zip(axes, strides):
        offsets = [o + i * stride for o in offsets for i in axis]
    return [values[o] for o in offsets]
