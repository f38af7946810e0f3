"""Convolutions and the window extractions that share their arithmetic (torch.nn Conv*d,
ConvTranspose*d, Unfold/Fold, F.conv_tbc; Keras Conv*D uses the same kinds, channels last).

A convolution's output length per spatial dimension is ``shapes/windows.py``'s algebra; here
is what the arguments mean: batched or not, where the channels are, which paddings exist.
"""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.expr import Dim, format_dim
from staticflops.shapes.layout import channels_last, expect_rank, expect_size
from staticflops.shapes.shape import Shape, format_shape, numel
from staticflops.shapes.tensor_ops import ShapeError, same
from staticflops.shapes.windows import (conv_output_size, non_negative, positive, same_output_size,
                                        transposed_output_size, window_positions)


def _conv_input(attrs, x: Shape, what: str) -> tuple:
    dims = attrs["dims"]
    expect_rank(x, (dims + 1, dims + 2), what)
    batched = len(x) == dims + 2
    if channels_last(attrs):
        channels, spatial = x[-1], tuple(x[-dims - 1:-1])
    else:
        channels, spatial = (x[1] if batched else x[0]), tuple(x[-dims:])
    expect_size(channels, attrs["in_channels"], what + " expects {wanted} input channels, got {actual}")
    return batched, spatial


def _with_channels(attrs, x: Shape, batched: bool, channels: Dim, spatial: tuple) -> Shape:
    lead = (x[0],) if batched else ()
    if channels_last(attrs):
        return lead + tuple(spatial) + (channels,)
    return lead + (channels,) + tuple(spatial)


def _windows_valid(attrs) -> None:
    positive(attrs["stride"], "stride")
    positive(attrs["dilation"], "dilation")
    positive(attrs["kernel_size"], "kernel size")
    if not isinstance(attrs["padding"], str):
        non_negative(attrs["padding"], "padding")


def _conv(attrs, inputs):
    x = inputs[0]
    batched, spatial = _conv_input(attrs, x, attrs.get("type", "Conv"))
    _windows_valid(attrs)
    padding = attrs["padding"]
    out = []
    for i, size in enumerate(spatial):
        k, s, d = attrs["kernel_size"][i], attrs["stride"][i], attrs["dilation"][i]
        if padding == "same":
            out.append(same_output_size(size, s))
        elif padding == "causal":  # Keras Conv1D: left padding of dilation * (kernel - 1)
            out.append((size - 1) // s + 1)
        else:
            p = 0 if padding == "valid" else padding[i]
            length = conv_output_size(size, k, s, p, d)
            if isinstance(length, int) and length <= 0:
                raise ShapeError(f"input size {format_dim(size)} is too small for kernel {k} (dilation {d})")
            out.append(length)
    return [_with_channels(attrs, x, batched, attrs["out_channels"], out)], {}


def _conv_transpose(attrs, inputs):
    x = inputs[0]
    batched, spatial = _conv_input(attrs, x, attrs.get("type", "ConvTranspose"))
    _windows_valid(attrs)
    for extra, s, d in zip(attrs["output_padding"] or (), attrs["stride"], attrs["dilation"]):
        # PyTorch: the extra rows must be fewer than the stride or the dilation
        if all(isinstance(v, int) for v in (extra, s, d)) and not 0 <= extra < max(s, d):
            raise ShapeError(f"output padding {extra} must be smaller than either stride {s} or dilation {d}")
    out = []
    for i, size in enumerate(spatial):
        k, s, d = attrs["kernel_size"][i], attrs["stride"][i], attrs["dilation"][i]
        out.append(_transposed_size(size, k, s, d, attrs["padding"], attrs["output_padding"], i))
    if attrs.get("output_size") is not None:
        out = _requested_transposed_size(attrs, out)
    return [_with_channels(attrs, x, batched, attrs["out_channels"], out)], {}


def _requested_transposed_size(attrs, smallest: list) -> list:
    """PyTorch's ``forward(x, output_size=...)``: the trailing sizes must lie between the size
    without output padding and ``stride - 1`` more (it picks the output padding that fits)."""
    dims = attrs["dims"]
    wanted = list(attrs["output_size"])
    if len(wanted) in (dims + 1, dims + 2):
        wanted = wanted[-dims:]
    if len(wanted) != dims:
        raise ShapeError(f"output_size must have {dims} or {dims + 2} elements, got {len(wanted)}")
    out = []
    for i, (size, request) in enumerate(zip(smallest, wanted)):
        low = size - attrs["output_padding"][i]  # output_padding is replaced, not added
        high = low + attrs["stride"][i] - 1
        if all(isinstance(v, int) for v in (low, request)) and not low <= request <= high:
            raise ShapeError(f"requested an output size of {request}, but valid sizes range from {low} to {high}")
        out.append(request)
    return out


def _transposed_size(size, k, s, d, padding, output_padding, i) -> Dim:
    if isinstance(padding, str):  # Keras: 'valid' / 'same', output_padding None or per axis
        span = d * (k - 1) + 1
        if output_padding is None:
            return size * s if padding == "same" else size * s + max(span - s, 0)
        pad = span // 2 if padding == "same" else 0
        return (size - 1) * s + span - 2 * pad + output_padding[i]
    return transposed_output_size(size, k, s, padding[i], d, output_padding[i])


def _positions(spatial, attrs) -> list:
    return window_positions(spatial, attrs["kernel_size"], attrs["dilation"], attrs["padding"], attrs["stride"])


def _unfold(attrs, inputs):
    """(N, C, H, W) -> (N, C * kh * kw, L), L = the number of window positions."""
    x = inputs[0]
    if len(x) not in (3, 4):
        raise ShapeError(f"Unfold expects a 3-D or 4-D input, got {format_shape(x)}")
    lead, channels = x[:-3], x[-3]
    return [lead + (channels * numel(tuple(attrs["kernel_size"])), numel(tuple(_positions(x[-2:], attrs))))], {}


def _fold(attrs, inputs):
    """(N, C * kh * kw, L) -> (N, C, *output_size); L must be the number of window positions."""
    x = inputs[0]
    if len(x) not in (2, 3):
        raise ShapeError(f"Fold expects a 2-D or 3-D input, got {format_shape(x)}")
    window = numel(tuple(attrs["kernel_size"]))
    if isinstance(x[-2], int) and isinstance(window, int) and x[-2] % window:
        raise ShapeError(f"Fold: {x[-2]} input channels are not divisible by the kernel size {window}")
    blocks = numel(tuple(_positions(attrs["output_size"], attrs)))
    if not same(blocks, x[-1]):
        raise ShapeError(f"Fold expects {format_dim(blocks)} blocks, got {format_dim(x[-1])}")
    return [x[:-2] + (x[-2] // window,) + tuple(attrs["output_size"])], {}


def _conv_tbc(attrs, inputs):
    """x (time, batch, in), weight (kernel, in, out): (time + 2 * pad - kernel + 1, batch, out)."""
    x, weight = inputs[0], inputs[1]
    if len(x) != 3 or len(weight) != 3 or not same(x[2], weight[1]):
        raise ShapeError(f"conv_tbc: weight {format_shape(weight)} does not fit input {format_shape(x)}")
    return [(x[0] + 2 * attrs.get("pad", 0) - weight[0] + 1, x[1], weight[2])], {"kernel": weight[0]}


def _separable_conv(attrs, inputs):
    """Keras SeparableConv*D: the conv's output shape; the depthwise stage's outputs are the
    output positions x in_channels x depth_multiplier."""
    outputs, _ = _conv(attrs, inputs)
    y = outputs[0]
    depthwise = numel(y) // attrs["out_channels"] * attrs["in_channels"] * attrs["depth_multiplier"]
    return outputs, {"depthwise_outputs": depthwise}


def _conv_lstm(attrs, inputs):
    """ConvLSTM1D/2D/3D (channels_last): (B, T, *spatial, C) -> each step's gates are convolutions
    of the step's input (the layer's kernel, strides, padding) and of the state (the same kernel
    size, stride 1, 'same'), so the state and output have the input conv's spatial size:
    (B, T, *out, filters) with return_sequences, else (B, *out, filters); return_state adds h and c."""
    x = inputs[0]
    name = attrs.get("type", "ConvLSTM")
    expect_rank(x, (attrs["dims"] + 3,), name)
    expect_size(x[-1], attrs["in_channels"], name + " expects {wanted} input channels, got {actual}")
    step, _ = _conv(attrs, [(x[0],) + tuple(x[2:])])
    state = step[0]
    output = (x[0], x[1]) + tuple(state[1:]) if attrs["return_sequences"] else state
    outputs = [output] + ([state, state] if attrs["return_state"] else [])
    return outputs, {"seq_len": x[1], "batch": x[0], "positions": numel(tuple(state[1:-1]))}


KINDS = catalogue(
    Kind("conv", _conv, True,
         "a convolution (Conv1d/2d/3d, F.conv*d, Keras Conv*D): each output sums in_channels / groups "
         "x prod(kernel) products",
         (Example("self.m(x)", ("x:1x3x8x8",), ((1, 4, 6, 6),), 7776,
                  "(8 - 3) // 1 + 1 = 6 per side; 1*4*6*6 = 144 outputs x 3*3*3 = 27 MACs = 3,888 MACs = "
                  "7,776 FLOPs (the bias add is not counted); params 4*3*3*3 + 4 = 112",
                  init="self.m = nn.Conv2d(3, 4, 3)", params=112),),
         weights=lambda a: ((a["out_channels"], a["in_channels"] // a["groups"], *a["kernel_size"]),
                            (a["out_channels"],))),
    Kind("conv_transpose", _conv_transpose, True,
         "a transposed convolution: each input element scatters out_channels / groups x prod(kernel) products",
         (Example("self.m(x)", ("x:1x4x5x5",), ((1, 2, 11, 11),), 3600,
                  "(5 - 1) * 2 + (3 - 1) + 1 = 11 per side; 1*4*5*5 = 100 inputs x 2 * 3*3 = 18 MACs = 1,800 "
                  "MACs = 3,600 FLOPs; params 4*2*3*3 + 2 = 74",
                  init="self.m = nn.ConvTranspose2d(4, 2, 3, stride=2)", params=74),),
         # transposed: in_channels first (the weight of the conv it is the gradient of)
         weights=lambda a: ((a["in_channels"], a["out_channels"] // a["groups"], *a["kernel_size"]),
                            (a["out_channels"],))),
    Kind("conv_tbc", _conv_tbc, True,
         "F.conv_tbc: a 1-D convolution over (time, batch, in) with a (kernel, in, out) weight",
         (Example("F.conv_tbc(x, w, b)", ("x:8x2x3", "w:3x3x4", "b:4"), ((6, 2, 4),), 864,
                  "8 - 3 + 1 = 6 steps; 6*2*4 = 48 outputs x (3 taps x 3 inputs) = 432 MACs = 864 FLOPs "
                  "(FlopCounterMode has no formula for aten.conv_tbc: `standard` counts the products)"),)),
    # F.unfold / nn.Unfold: im2col.  Tensor.unfold is the movement kind `sliding_windows`
    # (kinds/movement.py); the name `unfold` is this one's, a rule key every rule set decides.
    Kind("unfold", _unfold, True,
         "im2col (F.unfold, nn.Unfold): every kh x kw window of every channel as a column, one per position",
         (Example("self.m(x)", ("x:2x3x8x8",), ((2, 27, 16),), 0,
                  "(8 + 2*1 - (3 - 1) - 1) // 2 + 1 = 4 positions per side = 16 columns of 3*3*3 = 27 values; "
                  "copies: 0", init="self.m = nn.Unfold(3, padding=1, stride=2)", params=0),)),
    Kind("fold", _fold, True,
         "col2im (F.fold, nn.Fold): columns summed back into their windows' places",
         (Example("self.m(x)", ("x:2x12x9",), ((2, 3, 4, 4),), 0,
                  "12 / (2*2) = 3 channels; (4 - 2) + 1 = 3 positions per side = 9 columns, as given; "
                  "adds only: 0", init="self.m = nn.Fold((4, 4), 2)", params=0),)),

    # Keras layers of convolutions with no PyTorch module of their own
    Kind("separable_conv", _separable_conv, True, "Keras SeparableConv*D: a depthwise conv, then a 1x1 conv",
         (Example("layers.SeparableConv2D(4, 3)(x)", ("x:1x8x8x3",), ((1, 6, 6, 4),), 2808,
                  "8 - 3 + 1 = 6 per side; depthwise 6*6*3 = 108 outputs x 3*3 = 972 MACs, pointwise 6*6*4 = "
                  "144 outputs x 3 = 432 MACs: 1,404 MACs = 2,808 FLOPs; params 3*(3*3 + 4) + 4 = 43",
                  params=43, framework="keras"),)),
    Kind("conv_lstm", _conv_lstm, True, "Keras ConvLSTM*D: an LSTM whose gates are convolutions",
         (Example("layers.ConvLSTM1D(4, 3)(x)", ("x:1x4x8x3",), ((1, 6, 4),), 16128,
                  "the last state: 8 - 3 + 1 = 6 positions x 4 filters; per step 6 positions x 4 gates x 4 "
                  "filters x 3 taps x (3 + 4 channels) = 2,016 MACs x 4 steps = 8,064 MACs = 16,128 FLOPs; "
                  "params: kernel 3*3*16 = 144 + recurrent kernel 3*4*16 = 192 + bias 16 = 352",
                  params=352, framework="keras"),)),
)
