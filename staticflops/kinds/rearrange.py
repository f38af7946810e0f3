"""Layers that rearrange elements without arithmetic: flatten a run of dims, split one
(nn.Flatten, nn.Unflatten), move channels into space and back (PixelShuffle,
PixelUnshuffle), interleave channel groups (ChannelShuffle); their F.* forms share the kinds."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.expr import format_dim
from staticflops.shapes.layout import expect_rank, expect_size
from staticflops.shapes.shape import format_shape, numel
from staticflops.shapes.tensor_ops import ShapeError, concatenate, flatten, normalize_dim, reshape
from staticflops.shapes.windows import positive


def _flatten(attrs, inputs):
    return [flatten(inputs[0], attrs.get("start_dim", 1), attrs.get("end_dim", -1))], {}


def _unflatten(attrs, inputs):
    x = inputs[0]
    dim = normalize_dim(attrs["dim"], len(x))
    sizes = list(attrs["unflattened_size"])
    if -1 in sizes:
        known = numel(tuple(s for s in sizes if s != -1))
        sizes[sizes.index(-1)] = x[dim] // known
    expect_size(numel(tuple(sizes)), x[dim], "Unflatten into sizes totalling {actual} does not fit dimension of size {wanted}")
    return [x[:dim] + tuple(sizes) + x[dim + 1:]], {}


def _pixel_shuffle(attrs, inputs):
    x = inputs[0]
    r = attrs["upscale_factor"]
    positive((r,), "upscale factor")
    if isinstance(x[-3], int) and isinstance(r, int) and x[-3] % (r * r):
        raise ShapeError(f"input channels {x[-3]} are not divisible by the square of the upscale factor {r}")
    channels = x[-3] // (r * r)
    return [x[:-3] + (channels, x[-2] * r, x[-1] * r)], {}


def _pixel_unshuffle(attrs, inputs):
    x = inputs[0]
    expect_rank(x, (3, 4, 5, 6), "PixelUnshuffle")
    r = attrs["downscale_factor"]
    positive((r,), "downscale factor")
    for size in x[-2:]:
        if isinstance(size, int) and isinstance(r, int) and size % r:
            raise ShapeError(f"spatial size {size} is not divisible by the downscale factor {r}")
    return [x[:-3] + (x[-3] * r * r, x[-2] // r, x[-1] // r)], {}


def _channel_shuffle(attrs, inputs):
    x, groups = inputs[0], attrs["groups"]
    if len(x) < 3:
        raise ShapeError(f"channel_shuffle expects an input of rank at least 3, got {format_shape(x)}")
    if isinstance(groups, int) and (groups <= 0 or (isinstance(x[1], int) and x[1] % groups)):
        raise ShapeError(f"{format_dim(x[1])} channels cannot be shuffled in {groups} groups")
    return [x], {}


def _example(module, x, shape, why):
    return (Example("self.m(x)", (x,), (shape,), 0, why, init=f"self.m = nn.{module}", params=0),)


def _batch_reshape(attrs, inputs):
    """Keras Reshape: the batch dimension kept apart, target_shape the rest."""
    x = inputs[0]
    return [(x[0],) + reshape(x[1:], list(attrs["target_shape"]))], {}


def _batch_permute(attrs, inputs):
    """Keras Permute: the axes after the batch reordered, counted from 1."""
    x = inputs[0]
    order = list(attrs["dims"])
    if sorted(order) != list(range(1, len(x))):
        raise ShapeError(f"Permute{tuple(order)} does not fit an input of shape {format_shape(x)}")
    return [(x[0],) + tuple(x[d] for d in order)], {}


def _repeat_vector(attrs, inputs):
    x = inputs[0]
    expect_rank(x, (2,), "RepeatVector")
    return [(x[0], attrs["n"], x[1])], {}


def _concat(attrs, inputs):
    return [concatenate(list(inputs), attrs["axis"])], {}


def _repeat(attrs, inputs):
    """numpy's repeat (keras.ops.repeat): each element ``repeats`` times along ``dim``, or along
    the flattened input when ``dim`` is None."""
    x, repeats = inputs[0], attrs["repeats"]
    if attrs["dim"] is None:
        return [(numel(x) * repeats,)], {}
    axis = normalize_dim(attrs["dim"], len(x))
    return [x[:axis] + (x[axis] * repeats,) + x[axis + 1:]], {}


def _take(attrs, inputs):
    """numpy's take (keras.ops.take): the indices' shape in place of axis ``dim`` of the input,
    or alone when ``dim`` is None (the flattened input)."""
    x, indices = inputs[0], inputs[1]
    if attrs["dim"] is None:
        return [tuple(indices)], {}
    axis = normalize_dim(attrs["dim"], len(x))
    return [x[:axis] + tuple(indices) + x[axis + 1:]], {}


def _keras(call, inputs, shape, why):
    return (Example(call, inputs, (shape,), 0, why, params=0, framework="keras"),)


KINDS = catalogue(
    Kind("flatten", _flatten, True, "dims start_dim..end_dim (1..-1 for nn.Flatten) merged into one",
         _example("Flatten()", "x:2x3x4", (2, 12), "3*4 = 12 after the batch; a view: 0")),
    Kind("unflatten", _unflatten, True, "one dim split into unflattened_size",
         _example("Unflatten(1, (2, 4))", "x:2x8", (2, 2, 4), "8 = 2*4; a view: 0")),
    Kind("pixel_shuffle", _pixel_shuffle, True, "(C r^2, H, W) -> (C, H r, W r)",
         _example("PixelShuffle(2)", "x:1x8x4x4", (1, 2, 8, 8), "8 / 2^2 = 2 channels, 4*2 = 8 per side: 0")),
    Kind("pixel_unshuffle", _pixel_unshuffle, True, "(C, H r, W r) -> (C r^2, H, W)",
         _example("PixelUnshuffle(2)", "x:1x2x4x4", (1, 8, 2, 2), "2 * 2^2 = 8 channels, 4 / 2 = 2 per side: 0")),
    Kind("channel_shuffle", _channel_shuffle, True, "the channels of each group interleaved (ShuffleNet)",
         _example("ChannelShuffle(2)", "x:1x4x4x4", (1, 4, 4, 4), "4 channels in 2 groups, reordered: 0")),

    # Keras layers (the batch kept apart) and keras.ops (numpy's semantics): copies, no arithmetic
    Kind("reshape", _batch_reshape, True, "Keras Reshape: the dims after the batch become target_shape",
         _keras("layers.Reshape((4, 2))(x)", ("x:2x8",), (2, 4, 2), "8 = 4*2 after the batch of 2; a copy: 0")),
    Kind("permute", _batch_permute, True, "Keras Permute: the dims after the batch reordered (counted from 1)",
         _keras("layers.Permute((2, 1))(x)", ("x:2x3x4",), (2, 4, 3), "axes 1 and 2 swapped: (3, 4) -> (4, 3); 0")),
    Kind("repeat_vector", _repeat_vector, True, "Keras RepeatVector: (B, F) -> (B, n, F)",
         _keras("layers.RepeatVector(3)(x)", ("x:2x4",), (2, 3, 4), "each row of 4 repeated n = 3 times: 0")),
    Kind("concat", _concat, True, "Keras Concatenate: the inputs joined along axis (default -1)",
         _keras("layers.Concatenate()([x, y])", ("x:2x3", "y:2x5"), (2, 8), "3 + 5 = 8 on the last axis: 0")),
    Kind("repeat", _repeat, True, "keras.ops.repeat: each element repeated along an axis, or the flattened input",
         _keras("keras.ops.repeat(x, 2, axis=1)", ("x:2x3",), (2, 6), "3 x 2 repeats = 6 on axis 1; a copy: 0")),
    Kind("take", _take, True, "keras.ops.take: the indices' shape in place of the axis, or of the flattened input",
         _keras("keras.ops.take(x, i, axis=1)", ("x:2x8", "i:int32:2x3"), (2, 2, 3),
                "axis 1 of (2, 8) replaced by the indices' (2, 3): (2, 2, 3); a gather: 0")),
)
