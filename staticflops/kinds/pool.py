"""Pooling: a reduction over each window (max, average, p-norm), adaptive windows that give a
requested size, random fractional windows, and max-unpooling (torch.nn *Pool*d, F.*pool*d;
Keras MaxPooling*D / AveragePooling*D use the same kinds, channels last)."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.layout import channels_last, expect_rank, spatial_sizes, with_spatial_sizes
from staticflops.shapes.shape import Shape, format_shape
from staticflops.shapes.tensor_ops import ShapeError, same
from staticflops.shapes.windows import pool_output_size, positive, same_output_size


def _pool_window(attrs, x: Shape):
    """(leading dims, spatial dims) of the input."""
    dims = attrs["dims"]
    expect_rank(x, (dims + 1, dims + 2), attrs.get("type", "pooling"))
    if channels_last(attrs):
        return x[:1], x[1:-1]
    return x[:-dims], x[-dims:]


def _values_and_indices(attrs, shape) -> list:
    """``return_indices=True``: (values, indices) of one shape."""
    return [shape] * (2 if attrs.get("return_indices") else 1)


def _pool(attrs, inputs):
    lead, spatial = _pool_window(attrs, inputs[0])
    positive(attrs["kernel_size"], "kernel size")
    positive(attrs["stride"], "stride")
    if isinstance(attrs["padding"], str):  # Keras: 'valid' / 'same'
        out = tuple(same_output_size(size, s) if attrs["padding"] == "same" else (size - k) // s + 1
                    for size, k, s in zip(spatial, attrs["kernel_size"], attrs["stride"]))
        return [lead + out + inputs[0][-1:] if channels_last(attrs) else lead + out], {}
    dilation = attrs.get("dilation", (1,) * len(spatial))
    for pad, k, d in zip(attrs["padding"], attrs["kernel_size"], dilation):
        if all(isinstance(v, int) for v in (pad, k, d)) and not 0 <= pad <= (d * (k - 1) + 1) // 2:
            raise ShapeError(f"padding {pad} must be between 0 and half the effective kernel size "
                             f"{d * (k - 1) + 1}")
    out = tuple(
        pool_output_size(size, attrs["kernel_size"][i], attrs["stride"][i], attrs["padding"][i],
                         dilation[i], attrs.get("ceil_mode", False))
        for i, size in enumerate(spatial)
    )
    for size, length in zip(spatial, out):
        if isinstance(length, int) and length <= 0:  # PyTorch: "Output size is too small"
            raise ShapeError(f"output size is too small: input {format_shape(tuple(spatial))} gives "
                             f"{format_shape(out)} with kernel {format_shape(tuple(attrs['kernel_size']))}")
    return _values_and_indices(attrs, lead + out), {}


def _adaptive_pool(attrs, inputs):
    lead, spatial = _pool_window(attrs, inputs[0])
    out = tuple(size if wanted is None else wanted for size, wanted in zip(spatial, attrs["output_size"]))
    if channels_last(attrs):  # Keras AdaptiveAveragePooling*D: (batch, *spatial, channels)
        out = out + inputs[0][-1:]
    return _values_and_indices(attrs, lead + out), {}


def _spatial_rank(x: Shape, dims: int, what: str) -> None:
    if len(x) not in (dims + 1, dims + 2):
        raise ShapeError(f"{what} expects a {dims + 1}-D or {dims + 2}-D input, got {format_shape(x)}")


def _fractional_max_pool(attrs, inputs):
    """Output ``output_size``, or ``floor(size * output_ratio)``; the window positions are random,
    the sizes are not."""
    x, dims = inputs[0], attrs["dims"]
    _spatial_rank(x, dims, attrs.get("type", "FractionalMaxPool"))
    if attrs.get("output_size") is not None:
        out = tuple(attrs["output_size"])
    elif attrs.get("output_ratio") is not None:
        out = tuple(int(size * ratio) for size, ratio in zip(x[-dims:], attrs["output_ratio"]))
    else:
        raise ShapeError("FractionalMaxPool requires specifying either an output size, or a pooling ratio")
    for size, wanted, k in zip(x[-dims:], out, attrs["kernel_size"]):
        if isinstance(size, int) and isinstance(wanted, int) and wanted + k - 1 > size:
            raise ShapeError(f"output size {wanted} + kernel {k} - 1 is larger than the input size {size}")
    return _values_and_indices(attrs, x[:-dims] + out), {}


def _max_unpool(attrs, inputs):
    """(size - 1) * stride - 2 * padding + kernel per spatial dimension, or ``output_size``."""
    x, dims = inputs[0], attrs["dims"]
    _spatial_rank(x, dims, attrs.get("type", "MaxUnpool"))
    if len(inputs) > 1 and tuple(inputs[1]) != tuple(x) and not all(same(a, b) for a, b in zip(inputs[1], x)):
        raise ShapeError(f"indices {format_shape(inputs[1])} do not fit the input {format_shape(x)}")
    out = tuple((size - 1) * s - 2 * p + k for size, k, s, p in
                zip(x[-dims:], attrs["kernel_size"], attrs["stride"], attrs["padding"]))
    if attrs.get("output_size") is not None:
        wanted = tuple(attrs["output_size"])[-dims:]
        for default, size, s in zip(out, wanted, attrs["stride"]):
            # PyTorch accepts a size strictly within one stride of the default
            if all(isinstance(v, int) for v in (default, size, s)) and not default - s < size < default + s:
                raise ShapeError(f"invalid output_size {format_shape(wanted)}: each size must lie strictly "
                                 f"between {default - s} and {default + s}")
        out = wanted
    return [x[:-dims] + out], {}


def _example(init, inputs, shapes, why, call="self.m(x)"):
    return (Example(call, inputs, shapes, 0, why, init=init, params=0),)


def _global_pool(attrs, inputs):
    """Keras Global*Pooling*D: over every spatial position; (B, C), or keepdims (B, 1.., C)."""
    x = inputs[0]
    spatial = spatial_sizes(attrs, x)
    channels = x[-1] if channels_last(attrs) else x[1]
    if attrs.get("keepdims"):
        return [with_spatial_sizes(attrs, x, [1] * len(spatial))], {}
    return [(x[0], channels)], {}


KINDS = catalogue(
    Kind("max_pool", _pool, True, "the largest value of each window (and, asked for, its index)",
         _example("self.m = nn.MaxPool2d(2)", ("x:1x3x8x8",), ((1, 3, 4, 4),),
                  "stride = kernel = 2: (8 - 1 - 1) // 2 + 1 = 4 per side; comparisons only: 0")),
    Kind("avg_pool", _pool, True, "the mean of each window",
         _example("self.m = nn.AvgPool2d(3, stride=2, padding=1)", ("x:1x3x8x8",), ((1, 3, 4, 4),),
                  "(8 + 2*1 - (3 - 1) - 1) // 2 + 1 = 4 per side; no multiply-accumulate: 0")),
    Kind("lp_pool", _pool, True, "the p-norm of each window",
         _example("self.m = nn.LPPool2d(2, 2)", ("x:1x3x8x8",), ((1, 3, 4, 4),),
                  "kernel 2, stride 2: 4 per side; FlopCounterMode counts none of its ops: 0")),
    Kind("adaptive_avg_pool", _adaptive_pool, True, "the mean over windows chosen to give output_size",
         _example("self.m = nn.AdaptiveAvgPool2d((2, 3))", ("x:1x3x8x8",), ((1, 3, 2, 3),),
                  "the requested 2x3, the batch and channels kept: 0")),
    Kind("adaptive_max_pool", _adaptive_pool, True, "the maximum over windows chosen to give output_size",
         _example("self.m = nn.AdaptiveMaxPool2d(2, return_indices=True)", ("x:1x3x8x8",),
                  ((1, 3, 2, 2), (1, 3, 2, 2)), "return_indices: values and indices, both 1x3x2x2: 0")),
    Kind("fractional_max_pool", _fractional_max_pool, True,
         "max over pseudo-random windows: output_size, or floor(size x output_ratio)",
         _example("self.m = nn.FractionalMaxPool2d(3, output_size=4)", ("x:1x3x8x8",), ((1, 3, 4, 4),),
                  "the requested 4x4 (4 + 3 - 1 = 6 <= 8 fits): 0")),
    Kind("max_unpool", _max_unpool, True, "max-pooled values scattered back to their indices, zeros elsewhere",
         _example("self.p = nn.MaxPool2d(2, return_indices=True)\nself.m = nn.MaxUnpool2d(2)",
                  ("x:1x3x8x8",), ((1, 3, 8, 8),),
                  "pooled to 4x4, then (4 - 1)*2 - 2*0 + 2 = 8 per side; copies: 0", call="self.m(*self.p(x))")),

    Kind("global_avg_pool", _global_pool, True, "Keras GlobalAveragePooling*D: the mean over all positions",
         (Example("layers.GlobalAveragePooling2D()(x)", ("x:2x8x8x3",), ((2, 3),), 0,
                  "the 8x8 positions averaged per channel: (2, 3); no multiply-accumulate: 0", params=0,
                  framework="keras"),)),
    Kind("global_max_pool", _global_pool, True, "Keras GlobalMaxPooling*D: the maximum over all positions",
         (Example("layers.GlobalMaxPooling1D(keepdims=True)(x)", ("x:2x8x3",), ((2, 1, 3),), 0,
                  "the 8 steps reduced per channel, kept as a size-1 dim: (2, 1, 3); comparisons: 0", params=0,
                  framework="keras"),)),
)
