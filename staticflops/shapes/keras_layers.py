"""Output shapes of the op kinds only Keras layers produce (batch-first, channels_last by default).

Keras layers keep the batch dimension apart: ``Reshape((4, 8))`` means ``(batch, 4, 8)``,
``Permute((2, 1))`` counts axes from 1.  Costs are not here: they live in ``rules/*.yaml``.
"""

from __future__ import annotations

from staticflops.shapes.layers import (BATCH_MAJOR_RECURRENT, _conv, _expect, _expect_rank, channels_last,
                                       conv_output_size, same_output_size, shape_function)
from staticflops.shapes.shape import Shape, format_shape, numel
from staticflops.shapes.tensor_ops import ShapeError, broadcast, concatenate, normalize_dim, reshape


def _spatial(attrs, x: Shape) -> tuple:
    return tuple(x[1:-1]) if channels_last(attrs) else tuple(x[2:])


def _rebuild(attrs, x: Shape, spatial) -> Shape:
    return (x[0],) + tuple(spatial) + (x[-1],) if channels_last(attrs) else x[:2] + tuple(spatial)


@shape_function("reshape")
def _reshape(attrs, inputs):
    x = inputs[0]
    return [(x[0],) + reshape(x[1:], list(attrs["target_shape"]))], {}


@shape_function("permute")
def _permute(attrs, inputs):
    x = inputs[0]
    order = list(attrs["dims"])
    if sorted(order) != list(range(1, len(x))):
        raise ShapeError(f"Permute{tuple(order)} does not fit an input of shape {format_shape(x)}")
    return [(x[0],) + tuple(x[d] for d in order)], {}


@shape_function("repeat_vector")
def _repeat_vector(attrs, inputs):
    x = inputs[0]
    _expect_rank(x, (2,), "RepeatVector")
    return [(x[0], attrs["n"], x[1])], {}


@shape_function("pad", "crop")
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
    spatial = _spatial(attrs, x)
    if len(spatial) != len(attrs["padding"]):
        raise ShapeError(f"{attrs.get('type', attrs['kind'])} expects {len(attrs['padding'])} spatial dimensions, "
                         f"got shape {format_shape(x)}")
    out = [size + sign * (before + after) for size, (before, after) in zip(spatial, attrs["padding"])]
    return [_rebuild(attrs, x, out)], {}


@shape_function("upsample")
def _upsample(attrs, inputs):
    x = inputs[0]
    return [_rebuild(attrs, x, [size * f for size, f in zip(_spatial(attrs, x), attrs["size"])])], {}


@shape_function("resize", "crop_to")
def _resize(attrs, inputs):
    """Resizing, and CenterCrop/RandomCrop: the image becomes height x width."""
    x = inputs[0]
    return [_rebuild(attrs, x, [attrs["height"], attrs["width"]])], {}


@shape_function("rescale", "average")
def _same_or_broadcast(attrs, inputs):
    return [broadcast(*inputs)], {}


@shape_function("global_avg_pool", "global_max_pool")
def _global_pool(attrs, inputs):
    x = inputs[0]
    spatial = _spatial(attrs, x)
    channels = x[-1] if channels_last(attrs) else x[1]
    if attrs.get("keepdims"):
        return [_rebuild(attrs, x, [1] * len(spatial))], {}
    return [(x[0], channels)], {}


@shape_function("concat")
def _concat(attrs, inputs):
    return [concatenate(list(inputs), attrs["axis"])], {}


@shape_function("dot")
def _dot(attrs, inputs):
    a, b = inputs[0], inputs[1]
    axes = attrs["axes"]
    axes = (axes, axes) if isinstance(axes, int) else tuple(axes)
    ia, ib = normalize_dim(axes[0], len(a)), normalize_dim(axes[1], len(b))
    _expect(b[ib], a[ia], "Dot: the contracted axes differ ({wanted} vs {actual})")
    out = a[:ia] + a[ia + 1:] + b[1:ib] + b[ib + 1:]
    if len(out) == 1:
        out = out + (1,)
    return [out], {"inner": a[ia]}


@shape_function("separable_conv")
def _separable_conv(attrs, inputs):
    outputs, _ = _conv(attrs, inputs)
    y = outputs[0]
    depthwise = numel(y) // attrs["out_channels"] * attrs["in_channels"] * attrs["depth_multiplier"]
    return outputs, {"depthwise_outputs": depthwise}


@shape_function("multi_head_attention")
def _multi_head_attention(attrs, inputs):
    query, value = inputs[0], inputs[1]
    key = inputs[2] if len(inputs) > 2 else value
    for what, shape, wanted in (("query", query, attrs["query_dim"]), ("value", value, attrs["value_in_dim"]),
                                ("key", key, attrs["key_in_dim"])):
        _expect_rank(shape, (3,), "MultiHeadAttention " + what)
        _expect(shape[-1], wanted, "MultiHeadAttention expects " + what + " features {wanted}, got {actual}")
    output_dim = attrs["output_dim"] or attrs["query_dim"]
    out = query[:-1] + (output_dim,)
    scores = (query[0], attrs["num_heads"], query[1], key[1])
    return [out, scores], {"batch": query[0], "target_len": query[1], "source_len": key[1]}


def keras_recurrent(attrs, x: Shape) -> tuple[list, dict]:
    """Keras RNN layers: batch-major (B, T, F); output (B, T, H) or (B, H), then the states."""
    name = attrs.get("type", "RNN")
    _expect_rank(x, (3,), name)
    _expect(x[-1], attrs["input_size"], name + " expects {wanted} input features, got {actual}")
    batch, steps, units = x[0], x[1], attrs["hidden_size"]
    directions = 2 if attrs["bidirectional"] else 1
    output: Shape = (batch, steps, directions * units) if attrs["return_sequences"] else (batch, directions * units)
    outputs = [output]
    if attrs.get("return_state"):
        outputs += [(batch, units)] * (2 if attrs["kind"] == "lstm" else 1) * directions
    return outputs, {"seq_len": steps, "batch": batch}



@shape_function("conv_lstm")
def _conv_lstm(attrs, inputs):
    """ConvLSTM1D/2D/3D (channels_last): (B, T, *spatial, C) -> each step's gates are convolutions
    of the step's input (the layer's kernel, strides, padding) and of the state (the same kernel
    size, stride 1, 'same'), so the state and output have the input conv's spatial size:
    (B, T, *out, filters) with return_sequences, else (B, *out, filters); return_state adds h and c."""
    x = inputs[0]
    name = attrs.get("type", "ConvLSTM")
    _expect_rank(x, (attrs["dims"] + 3,), name)
    _expect(x[-1], attrs["in_channels"], name + " expects {wanted} input channels, got {actual}")
    step, _ = _conv(attrs, [(x[0],) + tuple(x[2:])])
    state = step[0]
    output = (x[0], x[1]) + tuple(state[1:]) if attrs["return_sequences"] else state
    outputs = [output] + ([state, state] if attrs["return_state"] else [])
    return outputs, {"seq_len": x[1], "batch": x[0], "positions": numel(tuple(state[1:-1]))}


@shape_function("category_encoding")
def _category_encoding(attrs, inputs):
    """CategoryEncoding: (B, n) token ids -> (B, num_tokens) counts or multi-hot flags; one_hot
    gives each id its own row, (B, 1) or (B,) -> (B, num_tokens), (B, n) -> (B, n, num_tokens)."""
    x, tokens = inputs[0], attrs["num_tokens"]
    if attrs["output_mode"] == "one_hot":
        _expect_rank(x, (1, 2), "CategoryEncoding")
        return [(x[0], tokens) if len(x) == 1 or x[-1] == 1 else tuple(x) + (tokens,)], {}
    _expect_rank(x, (2,), "CategoryEncoding")
    return [(x[0], tokens)], {}


@shape_function("stft_spectrogram")
def _stft_spectrogram(attrs, inputs):
    """STFTSpectrogram (channels_last): (B, T, C) -> frames of `frame_length` every `frame_step`
    ('valid' or 'same', as a strided conv), `bins` = fft_length // 2 + 1 per frame and channel
    (twice that for mode='stft': real and imaginary parts): (B, frames, C * bins), or
    (B, frames, bins, C) with expand_dims."""
    x = inputs[0]
    _expect_rank(x, (3,), "STFTSpectrogram")
    length, step, window = x[1], attrs["frame_step"], attrs["frame_length"]
    if attrs["padding"] == "same":
        frames = same_output_size(length, step)
    else:
        frames = conv_output_size(length, window, step, 0, 1)
        if isinstance(frames, int) and frames <= 0:
            raise ShapeError(f"STFTSpectrogram: input length {length} is shorter than frame_length {window}")
    bins = attrs["bins"] * (2 if attrs["mode"] == "stft" else 1)
    out = (x[0], frames, bins, x[2]) if attrs["expand_dims"] else (x[0], frames, x[2] * bins)
    # `spectra`: the values each DFT kernel computes (one per frame, bin and channel)
    return [out], {"frames": frames, "spectra": x[0] * x[2] * frames * attrs["bins"]}


@shape_function("softsign", "normalization", "augment", "auto_contrast")
def _unary(attrs, inputs):
    return [inputs[0]], {}


@shape_function("repeat")
def _repeat(attrs, inputs):
    """numpy's repeat (keras.ops.repeat): each element ``repeats`` times along ``dim``, or along
    the flattened input when ``dim`` is None."""
    x, repeats = inputs[0], attrs["repeats"]
    if attrs["dim"] is None:
        return [(numel(x) * repeats,)], {}
    axis = normalize_dim(attrs["dim"], len(x))
    return [x[:axis] + (x[axis] * repeats,) + x[axis + 1:]], {}


@shape_function("take")
def _take(attrs, inputs):
    """numpy's take (keras.ops.take): the indices' shape in place of axis ``dim`` of the input,
    or alone when ``dim`` is None (the flattened input)."""
    x, indices = inputs[0], inputs[1]
    if attrs["dim"] is None:
        return [tuple(indices)], {}
    axis = normalize_dim(attrs["dim"], len(x))
    return [x[:axis] + tuple(indices) + x[axis + 1:]], {}


@shape_function("pointwise", "lookup")
def _pointwise(attrs, inputs):
    # keras.ops elementwise math (frontend/keras/op_table.py) and the preprocessing lookups
    # (Hashing, HashedCrossing...): the inputs broadcast, as numpy's.
    return [broadcast(*inputs)], {}


@shape_function("fft")
def _fft(attrs, inputs):
    """keras.ops.fft / fft2 / rfft / irfft: discrete Fourier transforms along the last axis
    (fft2: the last two) of a (real, imaginary) pair or of a real signal (rfft).  fft / fft2 give
    a pair of the input's shape; rfft the pair with n // 2 + 1 frequencies (n = fft_length or
    the length); irfft of a pair the real signal of fft_length (default 2 * (length - 1))."""
    op, x = attrs["op"], inputs[0]
    if len(x) < (2 if op == "fft2" else 1) or any(tuple(shape) != tuple(x) for shape in inputs[1:]):
        raise ShapeError(f"{op} expects real and imaginary parts of one shape, of rank at least "
                         f"{2 if op == 'fft2' else 1}, got {', '.join(format_shape(s) for s in inputs)}")
    n = attrs.get("fft_length")
    if op == "rfft":
        n = x[-1] if n is None else n
        outputs = [x[:-1] + (n // 2 + 1,)] * 2
    elif op == "irfft":
        n = 2 * (x[-1] - 1) if n is None else n
        outputs = [x[:-1] + (n,)]
    else:
        n = x[-1] * x[-2] if op == "fft2" else x[-1]
        outputs = [tuple(x), tuple(x)]
    whole = x[:-2] if op == "fft2" else x[:-1]
    return outputs, {"transforms": numel(tuple(whole)), "points": n,
                     "log2n": max(n - 1, 0).bit_length() if isinstance(n, int) else 1}


BATCH_MAJOR_RECURRENT["keras"] = keras_recurrent
