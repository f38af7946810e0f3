"""The Keras layers we model: constructor signatures, the attributes their arguments become,
and what ``build`` learns from the first input (Keras creates weights only then).

This describes Keras's API (facts), not any cost convention: costs are in ``rules/*.yaml``.
Weights whose count a rule formula gives are not listed here; the ones Keras keeps as plain
variables (norm statistics, PReLU's alpha) are declared as parameters with their shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from staticflops.shapes import numel
from staticflops.shapes.tensor_ops import ShapeError, normalize_dim

_BASE = "**kwargs"  # name=, trainable=, dtype=, input_shape= ... are read from kwargs
_CONV = "filters, kernel_size, strides=1, padding='valid', data_format=None, dilation_rate=1, groups=1, activation=None, use_bias=True, **kwargs"
_CONVT = "filters, kernel_size, strides=1, padding='valid', output_padding=None, data_format=None, dilation_rate=1, activation=None, use_bias=True, **kwargs"
_DEPTHWISE = "kernel_size, strides=1, padding='valid', depth_multiplier=1, data_format=None, dilation_rate=1, activation=None, use_bias=True, **kwargs"
_SEPARABLE = "filters, kernel_size, strides=1, padding='valid', data_format=None, dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True, **kwargs"
_CONV_LSTM = "filters, kernel_size, strides=1, padding='valid', data_format=None, dilation_rate=1, activation='tanh', recurrent_activation='sigmoid', use_bias=True, **kwargs"
_POOL = "pool_size=2, strides=None, padding='valid', data_format=None, **kwargs"
_GLOBAL_POOL = "data_format=None, keepdims=False, **kwargs"
_RNN = "units, activation='tanh', use_bias=True, **kwargs"
_GATED = "units, activation='tanh', recurrent_activation='sigmoid', use_bias=True, **kwargs"

# Keras activation names -> our op kinds (None: identity, no op recorded).
ACTIVATIONS = {
    "relu": "relu", "relu6": "relu6", "sigmoid": "sigmoid", "tanh": "tanh", "softmax": "softmax",
    "gelu": "gelu", "swish": "silu", "silu": "silu", "elu": "elu", "selu": "selu", "softplus": "softplus",
    "softsign": "softsign", "hard_sigmoid": "hardsigmoid", "hard_swish": "hardswish", "hard_silu": "hardswish",
    "leaky_relu": "leaky_relu", "mish": "mish", "exponential": "exp", "log_softmax": "log_softmax",
    "linear": None,
}


def ntuple(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value) if len(value) == n else tuple(value[:1]) * n if len(value) == 1 else tuple(value)
    return (value,) * n


@dataclass(frozen=True)
class KerasLayerSpec:
    kind: str
    signature: str
    configure: Callable = lambda a, d: {}  # (bound arguments, dims) -> attributes known at construction
    build: Callable = lambda attrs, shapes: {}  # (attributes, input shapes) -> attributes from the input
    weights: Callable = lambda attrs: []  # attributes -> [(name, shape, trainable)] declared parameters
    dims: int | None = None
    extra: dict = field(default_factory=dict)


def _int_output(args) -> dict:
    return {} if args["output_mode"] == "int" else _refuse(f"output_mode={args['output_mode']!r}")


def _refuse(what: str):
    raise ValueError(f"{what} is not modelled")


def _channel_axis(attrs) -> int:
    return -1 if attrs["data_format"] == "channels_last" else 1


def _data_format(value) -> str:
    return value or "channels_last"


def _conv(args, n):
    return {"dims": n, "out_channels": args["filters"], "kernel_size": ntuple(args["kernel_size"], n),
            "stride": ntuple(args["strides"], n), "padding": str(args["padding"]).lower(),
            "dilation": ntuple(args["dilation_rate"], n), "groups": args["groups"], "bias": bool(args["use_bias"]),
            "data_format": _data_format(args["data_format"]), "depthwise": False}


def _conv_build(attrs, shapes):
    return {"in_channels": shapes[0][_channel_axis(attrs)]}


def _conv_transpose(args, n):
    padding = args["output_padding"]
    return {**_conv({**args, "groups": 1}, n), "output_padding": None if padding is None else ntuple(padding, n)}


def _depthwise(args, n):
    return {**_conv({**args, "filters": None, "groups": None}, n), "depth_multiplier": args["depth_multiplier"],
            "depthwise": True}


def _depthwise_build(attrs, shapes):
    channels = shapes[0][_channel_axis(attrs)]
    return {"in_channels": channels, "groups": channels, "out_channels": channels * attrs["depth_multiplier"]}


def _separable(args, n):
    return {**_conv({**args, "groups": 1}, n), "depth_multiplier": args["depth_multiplier"]}


def _pool(args, n):
    size = ntuple(args["pool_size"], n)
    return {"dims": n, "kernel_size": size, "stride": ntuple(args["strides"], n) if args["strides"] is not None else size,
            "padding": str(args["padding"]).lower(), "data_format": _data_format(args["data_format"])}


def _global_pool(args, n):
    return {"dims": n, "data_format": _data_format(args["data_format"]), "keepdims": bool(args["keepdims"])}


def _pairs(value, n):
    """ZeroPadding/Cropping: int, (a, b) per axis or ((before, after), ...) -> ((before, after), ...)."""
    if isinstance(value, int):
        return ((value, value),) * n
    items = tuple(value)
    if n == 1 and len(items) == 2 and all(isinstance(v, int) for v in items):
        return (items,)
    return tuple((v, v) if isinstance(v, int) else tuple(v) for v in items)


def _norm_axis(attrs, shapes):
    axis = attrs["axis"]
    if isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            raise ShapeError("normalisation over several axes is not modelled")
        axis = axis[0]
    return normalize_dim(axis, len(shapes[0]))


def _batch_norm_build(attrs, shapes):
    axis = _norm_axis(attrs, shapes)
    return {"axis": axis, "num_features": shapes[0][axis]}


def _norm_weights(attrs, statistics: bool):
    size = attrs.get("num_features") or numel(attrs["normalized_shape"])
    weights = [("gamma", (size,), True)] if attrs["scale"] else []
    weights += [("beta", (size,), True)] if attrs["center"] else []
    if statistics:
        weights += [("moving_mean", (size,), False), ("moving_variance", (size,), False)]
    return weights


def _layer_norm_build(attrs, shapes):
    axis = _norm_axis(attrs, shapes)
    if axis != len(shapes[0]) - 1:
        raise ShapeError("LayerNormalization over an axis other than the last is not modelled")
    return {"normalized_shape": (shapes[0][axis],)}


def _prelu_build(attrs, shapes):
    shape = list(shapes[0][1:])
    for axis in attrs["shared_axes"] or ():
        shape[axis - 1] = 1
    return {"alpha_shape": tuple(shape), "num_parameters": numel(tuple(shape))}


def _recurrent(kind, gates):
    def configure(args, n):
        options = args.get("kwargs", {})
        bias_vectors = 2 if kind == "gru" and options.get("reset_after", True) else 1
        return {"hidden_size": args["units"], "num_layers": 1, "bias": bool(args["use_bias"]),
                "bidirectional": False, "proj_size": 0, "batch_first": True, "gates": gates,
                "bias_vectors": bias_vectors, "return_sequences": bool(options.get("return_sequences", False)),
                "return_state": bool(options.get("return_state", False)),
                "go_backwards": bool(options.get("go_backwards", False)),
                "reset_after": bias_vectors == 2, "unroll": bool(options.get("unroll", False))}
    return configure


def _mha(args, n):
    output = args["output_shape"]
    if isinstance(output, (tuple, list)):
        output = output[0] if len(output) == 1 else None
        if output is None:
            raise ShapeError("MultiHeadAttention with a multi-axis output_shape is not modelled")
    return {"num_heads": args["num_heads"], "key_dim": args["key_dim"],
            "value_dim": args["value_dim"] or args["key_dim"], "bias": bool(args["use_bias"]), "output_dim": output}


def _mha_build(attrs, shapes):
    query, value = shapes[0], shapes[1] if len(shapes) > 1 else shapes[0]
    key = shapes[2] if len(shapes) > 2 else value
    return {"query_dim": query[-1], "value_in_dim": value[-1], "key_in_dim": key[-1]}


LAYERS: dict[str, KerasLayerSpec] = {
    "Dense": KerasLayerSpec("linear", "units, activation=None, use_bias=True, **kwargs",
                            lambda a, n: {"out_features": a["units"], "bias": bool(a["use_bias"])},
                            lambda attrs, shapes: {"in_features": shapes[0][-1]}),
    "BatchNormalization": KerasLayerSpec(
        "batch_norm", "axis=-1, momentum=0.99, epsilon=0.001, center=True, scale=True, **kwargs",
        lambda a, n: {"axis": a["axis"], "center": bool(a["center"]), "scale": bool(a["scale"]), "affine": False},
        _batch_norm_build, lambda attrs: _norm_weights(attrs, statistics=True)),
    "LayerNormalization": KerasLayerSpec(
        "layer_norm", "axis=-1, epsilon=0.001, center=True, scale=True, **kwargs",
        lambda a, n: {"axis": a["axis"], "center": bool(a["center"]), "scale": bool(a["scale"]),
                      "elementwise_affine": False, "bias": False},
        _layer_norm_build, lambda attrs: _norm_weights(attrs, statistics=False)),
    "Activation": KerasLayerSpec("activation", "activation, **kwargs"),
    "ReLU": KerasLayerSpec("relu", "max_value=None, negative_slope=0.0, threshold=0.0, **kwargs"),
    "LeakyReLU": KerasLayerSpec("leaky_relu", "negative_slope=0.3, **kwargs"),
    "ELU": KerasLayerSpec("elu", "alpha=1.0, **kwargs"),
    "Softmax": KerasLayerSpec("softmax", "axis=-1, **kwargs"),
    "PReLU": KerasLayerSpec("prelu", "alpha_initializer='zeros', alpha_regularizer=None, alpha_constraint=None, shared_axes=None, **kwargs",
                            lambda a, n: {"shared_axes": a["shared_axes"]}, _prelu_build),
    "Flatten": KerasLayerSpec("flatten", "data_format=None, **kwargs", lambda a, n: {"start_dim": 1, "end_dim": -1}),
    "Reshape": KerasLayerSpec("reshape", "target_shape, **kwargs", lambda a, n: {"target_shape": tuple(a["target_shape"])}),
    "Permute": KerasLayerSpec("permute", "dims, **kwargs", lambda a, n: {"dims": tuple(a["dims"])}),
    "RepeatVector": KerasLayerSpec("repeat_vector", "n, **kwargs", lambda a, n: {"n": a["n"]}),
    "Resizing": KerasLayerSpec("resize", "height, width, interpolation='bilinear', crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, fill_mode='constant', fill_value=0.0, data_format=None, **kwargs",
                               lambda a, n: {"height": a["height"], "width": a["width"], "interpolation": a["interpolation"],
                                             "data_format": _data_format(a["data_format"])}),
    "Rescaling": KerasLayerSpec("rescale", "scale, offset=0.0, **kwargs", lambda a, n: {"offset": a["offset"]}),
    "Embedding": KerasLayerSpec("embedding", "input_dim, output_dim, **kwargs",
                                lambda a, n: {"num_embeddings": a["input_dim"], "embedding_dim": a["output_dim"]}),
    # Called forward it is an Embedding; tie_weights=False adds a second (reverse) table we do not model.
    "ReversibleEmbedding": KerasLayerSpec("embedding", "input_dim, output_dim, tie_weights=True, **kwargs",
                                          lambda a, n: {"num_embeddings": a["input_dim"], "embedding_dim": a["output_dim"]}
                                          if a["tie_weights"] is True else _refuse("tie_weights=False")),
    # Preprocessing lookups (output_mode='int'): each input element becomes an index of the same
    # shape (HashedCrossing: of the crossed inputs' broadcast shape); no weights, kind `lookup`.
    "Discretization": KerasLayerSpec("lookup", "bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode='int', **kwargs",
                                     lambda a, n: _int_output(a)),
    "Hashing": KerasLayerSpec("lookup", "num_bins, mask_value=None, salt=None, output_mode='int', **kwargs",
                              lambda a, n: _int_output(a)),
    "IntegerLookup": KerasLayerSpec("lookup", "max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None, vocabulary_dtype='int64', idf_weights=None, invert=False, output_mode='int', **kwargs",
                                    lambda a, n: _int_output(a)),
    "HashedCrossing": KerasLayerSpec("lookup", "num_bins, output_mode='int', sparse=False, **kwargs", lambda a, n: _int_output(a)),
    # mask = any(x != mask_value, axis=-1); x * mask: elementwise (kind `pointwise`, label Masking).
    "Masking": KerasLayerSpec("pointwise", "mask_value=0.0, **kwargs"),
    "SimpleRNN": KerasLayerSpec("rnn", _RNN, _recurrent("rnn", 1), lambda attrs, shapes: {"input_size": shapes[0][-1]}),
    "GRU": KerasLayerSpec("gru", _GATED, _recurrent("gru", 3), lambda attrs, shapes: {"input_size": shapes[0][-1]}),
    "LSTM": KerasLayerSpec("lstm", _GATED, _recurrent("lstm", 4), lambda attrs, shapes: {"input_size": shapes[0][-1]}),
    "MultiHeadAttention": KerasLayerSpec(
        "multi_head_attention", "num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None, attention_axes=None, **kwargs",
        _mha, _mha_build),
    "Normalization": KerasLayerSpec(
        "normalization", "axis=-1, mean=None, variance=None, invert=False, **kwargs",
        lambda a, n: {"axis": a["axis"], "adapted": a["mean"] is None, "invert": bool(a["invert"])},
        _batch_norm_build,
        lambda attrs: [("mean", (attrs["num_features"],), False), ("variance", (attrs["num_features"],), False),
                       ("count", (), False)] if attrs["adapted"] else []),
    "Add": KerasLayerSpec("add", _BASE), "Subtract": KerasLayerSpec("sub", _BASE),
    "Multiply": KerasLayerSpec("mul", _BASE), "Average": KerasLayerSpec("average", _BASE),
    "Maximum": KerasLayerSpec("maximum", _BASE), "Minimum": KerasLayerSpec("minimum", _BASE),
    "Concatenate": KerasLayerSpec("concat", "axis=-1, **kwargs", lambda a, n: {"axis": a["axis"]}),
    "Dot": KerasLayerSpec("dot", "axes, normalize=False, **kwargs", lambda a, n: {"axes": a["axes"], "normalize": bool(a["normalize"])}),
}

def _group_norm(args, n):
    # With both gamma and beta this is PyTorch's affine GroupNorm (the rules count 2 * channels
    # weights); with one of them, that one is declared as a weight and `affine` is off.
    center, scale = bool(args["center"]), bool(args["scale"])
    return {"num_groups": args["groups"], "axis": args["axis"], "center": center, "scale": scale,
            "affine": center and scale}


def _group_norm_build(attrs, shapes):
    axis = _norm_axis(attrs, shapes)
    if axis not in (1, len(shapes[0]) - 1):
        raise ShapeError("GroupNormalization over an axis other than 1 or the last is not modelled")
    channels = shapes[0][axis]
    return {"num_channels": channels, "num_features": channels,
            "data_format": "channels_last" if axis == len(shapes[0]) - 1 else "channels_first"}


def _last_axis_build(name):
    def build(attrs, shapes):
        axis = _norm_axis(attrs, shapes)
        if axis != len(shapes[0]) - 1:
            raise ShapeError(f"{name} over an axis other than the last is not modelled")
        return {"normalized_shape": (shapes[0][axis],), "dim": -1}
    return build


LAYERS.update({
    "GroupNormalization": KerasLayerSpec(
        "group_norm", "groups=32, axis=-1, epsilon=0.001, center=True, scale=True, **kwargs", _group_norm,
        _group_norm_build, lambda attrs: [] if attrs["affine"] else _norm_weights(attrs, statistics=False)),
    # ops.rms_normalization(x, scale): x / sqrt(mean(x^2) + eps) * scale, one scale per feature.
    "RMSNormalization": KerasLayerSpec(
        "rms_norm", "axis=-1, epsilon=1e-06, **kwargs", lambda a, n: {"axis": a["axis"], "elementwise_affine": True},
        _last_axis_build("RMSNormalization")),
    # ops.normalize(x, axis, order=2): x / max(||x||_2, eps) along the axis, no weights.
    "UnitNormalization": KerasLayerSpec(
        "normalize", "axis=-1, **kwargs", lambda a, n: {"axis": a["axis"], "p": 2}, _last_axis_build("UnitNormalization")),
    "Identity": KerasLayerSpec("identity", _BASE),
})

for _name in ("Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianDropout", "AlphaDropout"):
    LAYERS[_name] = KerasLayerSpec("dropout", "rate, **kwargs")
LAYERS["GaussianNoise"] = KerasLayerSpec("dropout", "stddev, **kwargs")
LAYERS["ActivityRegularization"] = KerasLayerSpec("identity", "l1=0.0, l2=0.0, **kwargs")

# Image augmentation inside a model.  The analysis is of inference (as for Dropout): there
# Keras passes these images through unchanged, and CenterCrop cuts (or resizes) to height x
# width.  model(x) without training=False does augment; that is input preparation we do not
# count.  RandomCrop too passes the image through at inference (transform_images does nothing
# unless training, keras/src/layers/preprocessing/image_preprocessing/random_crop.py, keras
# 3.15.1), although its symbolic output shape (compute_output_shape) says height x width.
_AUGMENT = {
    "RandomFlip": "mode='horizontal_and_vertical', seed=None, data_format=None, **kwargs",
    "RandomRotation": "factor, fill_mode='reflect', interpolation='bilinear', seed=None, fill_value=0.0, data_format=None, **kwargs",
    "RandomZoom": "height_factor, width_factor=None, fill_mode='reflect', interpolation='bilinear', seed=None, fill_value=0.0, data_format=None, **kwargs",
    "RandomTranslation": "height_factor, width_factor, fill_mode='reflect', interpolation='bilinear', seed=None, fill_value=0.0, data_format=None, **kwargs",
    "RandomContrast": "factor, value_range=(0, 255), seed=None, **kwargs",
    "RandomBrightness": "factor, value_range=(0, 255), seed=None, **kwargs",
    "RandomCrop": "height, width, seed=None, data_format=None, **kwargs",
    # Keras 3.15 augmentation layers whose arguments the analysis does not read: at inference they
    # pass the image through (the op-surface probe recorded the input shape and 0 FLOPs for each).
    **{name: "*args, **kwargs" for name in (
        "AugMix", "CutMix", "MaxNumBoundingBoxes", "RandAugment", "RandomColorJitter", "RandomElasticTransform",
        "RandomErasing", "RandomGaussianBlur", "RandomInvert", "RandomPerspective", "RandomShear", "Solarization")},
    # These draw their random transformation even at inference, then pass the image through
    # (transform_images does nothing unless training, keras 3.15.1); the draw is dead code whose
    # scalar ops the profiler counts 0 (probe recorded with a fixed stateless seed: 0 FLOPs each).
    **{name: "*args, **kwargs" for name in (
        "MixUp", "RandomColorDegeneration", "RandomGrayscale", "RandomHue", "RandomPosterization",
        "RandomSaturation", "RandomSharpness")},
}
for _name, _signature in _AUGMENT.items():
    LAYERS[_name] = KerasLayerSpec("augment", _signature)
for _name, _signature in (("CenterCrop", "height, width, data_format=None, **kwargs"),):
    LAYERS[_name] = KerasLayerSpec("crop_to", _signature, lambda a, n: {
        "height": a["height"], "width": a["width"], "data_format": _data_format(a["data_format"])})

def _conv_lstm(args, n):
    """ConvLSTM1D/2D/3D: an LSTM whose four gates are convolutions (keras/src/layers/rnn/
    conv_lstm.py, keras 3.15.1): of the step's input with the layer's kernel, strides and padding,
    and of the state with the same kernel size, stride 1 and 'same' padding."""
    options = args.get("kwargs", {})
    if max(ntuple(args["dilation_rate"], n)) != 1:
        _refuse("ConvLSTM with dilation_rate > 1")  # its TensorFlow lowering (SpaceToBatch) is not measured
    if _data_format(args["data_format"]) != "channels_last":
        _refuse("ConvLSTM with data_format='channels_first'")
    return {**_conv({**args, "groups": 1}, n), "return_sequences": bool(options.get("return_sequences", False)),
            "return_state": bool(options.get("return_state", False))}


def _category_encoding(args, n):
    mode = {"binary": "multi_hot"}.get(args["output_mode"], args["output_mode"])  # Keras's old name
    if mode not in ("multi_hot", "count", "one_hot") or args["num_tokens"] is None or args["sparse"]:
        _refuse(f"CategoryEncoding(num_tokens={args['num_tokens']!r}, output_mode={mode!r}, sparse={args['sparse']!r})")
    return {"num_tokens": args["num_tokens"], "output_mode": mode}


def _auto_contrast(args, n):
    low, high = sorted(args["value_range"])
    # Keras rescales the images to (0, 255) and back unless that is already their range.
    return {"rescaled": (low, high) != (0, 255)}


def _stft_spectrogram(args, n):
    """STFTSpectrogram convolves the signal with a real and an imaginary DFT kernel (frame_length
    x fft_length // 2 + 1 weights each; mode 'real' or 'imag' only the one), then takes the
    spectrum the mode asks for (keras/src/layers/preprocessing/stft_spectrogram.py, 3.15.1)."""
    if _data_format(args["data_format"]) != "channels_last":
        _refuse("STFTSpectrogram with data_format='channels_first'")
    if args["mode"] not in ("log", "magnitude", "psd", "real", "imag", "angle", "stft") or args["padding"] not in ("valid", "same"):
        _refuse(f"STFTSpectrogram(mode={args['mode']!r}, padding={args['padding']!r})")  # Keras refuses them too
    length = args["frame_length"]
    fft = args["fft_length"] or 2 ** (length - 1).bit_length()  # the next power of two
    return {"mode": args["mode"], "frame_length": length, "frame_step": args["frame_step"] or length // 2,
            "bins": fft // 2 + 1, "kernels": 1 if args["mode"] in ("real", "imag") else 2,
            "padding": args["padding"], "expand_dims": bool(args["expand_dims"])}


LAYERS["STFTSpectrogram"] = KerasLayerSpec(
    "stft_spectrogram", "mode='log', frame_length=256, frame_step=None, fft_length=None, window='hann', periodic=False, scaling='density', padding='valid', expand_dims=False, data_format=None, **kwargs",
    _stft_spectrogram)
LAYERS["CategoryEncoding"] = KerasLayerSpec("category_encoding", "num_tokens=None, output_mode='multi_hot', sparse=False, **kwargs",
                                            _category_encoding)
# Active at inference too: each image's channels are stretched to the whole value range.
LAYERS["AutoContrast"] = KerasLayerSpec("auto_contrast", "value_range=(0, 255), **kwargs", _auto_contrast)


def _adaptive_pool(args, n):
    if _data_format(args["data_format"]) != "channels_last":
        _refuse("adaptive pooling with data_format='channels_first'")
    return {"dims": n, "output_size": ntuple(args["output_size"], n), "data_format": "channels_last"}


# Keras's own defaults differ per rank: Cropping2D crops nothing, Cropping1D/3D one on each side.
_CROPPING_DEFAULT = {1: (1, 1), 2: ((0, 0), (0, 0)), 3: ((1, 1), (1, 1), (1, 1))}
for _n in (1, 2, 3):
    LAYERS[f"Conv{_n}D"] = KerasLayerSpec("conv", _CONV, _conv, _conv_build, dims=_n)
    LAYERS[f"ConvLSTM{_n}D"] = KerasLayerSpec("conv_lstm", _CONV_LSTM, _conv_lstm, _conv_build, dims=_n)
    LAYERS[f"Conv{_n}DTranspose"] = KerasLayerSpec("conv_transpose", _CONVT, _conv_transpose, _conv_build, dims=_n)
    LAYERS[f"MaxPooling{_n}D"] = KerasLayerSpec("max_pool", _POOL, _pool, dims=_n)
    LAYERS[f"AveragePooling{_n}D"] = KerasLayerSpec("avg_pool", _POOL, _pool, dims=_n)
    LAYERS[f"AdaptiveAveragePooling{_n}D"] = KerasLayerSpec("adaptive_avg_pool", "output_size, data_format=None, **kwargs",
                                                            _adaptive_pool, dims=_n)
    LAYERS[f"AdaptiveMaxPooling{_n}D"] = KerasLayerSpec("adaptive_max_pool", "output_size, data_format=None, **kwargs",
                                                        _adaptive_pool, dims=_n)
    LAYERS[f"GlobalAveragePooling{_n}D"] = KerasLayerSpec("global_avg_pool", _GLOBAL_POOL, _global_pool, dims=_n)
    LAYERS[f"GlobalMaxPooling{_n}D"] = KerasLayerSpec("global_max_pool", _GLOBAL_POOL, _global_pool, dims=_n)
    LAYERS[f"ZeroPadding{_n}D"] = KerasLayerSpec(
        "pad", f"padding={1 if _n == 1 else (1,) * _n}, data_format=None, **kwargs",
        lambda a, n: {"padding": _pairs(a["padding"], n), "data_format": _data_format(a["data_format"])}, dims=_n)
    LAYERS[f"Cropping{_n}D"] = KerasLayerSpec(
        "crop", f"cropping={_CROPPING_DEFAULT[_n]}, data_format=None, **kwargs",
        lambda a, n: {"padding": _pairs(a["cropping"], n), "data_format": _data_format(a["data_format"])}, dims=_n)
    LAYERS[f"UpSampling{_n}D"] = KerasLayerSpec(
        "upsample", f"size={2 if _n == 1 else (2,) * _n}, data_format=None, interpolation='nearest', **kwargs",
        lambda a, n: {"dims": n, "size": ntuple(a["size"], n), "data_format": _data_format(a["data_format"]),
                      "interpolation": a["interpolation"]}, dims=_n)
for _n in (1, 2):
    LAYERS[f"DepthwiseConv{_n}D"] = KerasLayerSpec("conv", _DEPTHWISE, _depthwise, _depthwise_build, dims=_n)
    LAYERS[f"SeparableConv{_n}D"] = KerasLayerSpec("separable_conv", _SEPARABLE, _separable, _conv_build, dims=_n)

# Spellings Keras also exports.
for _alias, _name in (("Convolution1D", "Conv1D"), ("Convolution2D", "Conv2D"), ("Convolution3D", "Conv3D"),
                      ("Convolution2DTranspose", "Conv2DTranspose"), ("MaxPool1D", "MaxPooling1D"),
                      ("MaxPool2D", "MaxPooling2D"), ("MaxPool3D", "MaxPooling3D"), ("AvgPool1D", "AveragePooling1D"),
                      ("AvgPool2D", "AveragePooling2D"), ("AvgPool3D", "AveragePooling3D"),
                      ("GlobalAvgPool1D", "GlobalAveragePooling1D"), ("GlobalAvgPool2D", "GlobalAveragePooling2D"),
                      ("GlobalAvgPool3D", "GlobalAveragePooling3D"), ("GlobalMaxPool1D", "GlobalMaxPooling1D"),
                      ("GlobalMaxPool2D", "GlobalMaxPooling2D"), ("GlobalMaxPool3D", "GlobalMaxPooling3D"),
                      ("SeparableConvolution2D", "SeparableConv2D"), ("SeparableConvolution1D", "SeparableConv1D"),
                      ("Convolution1DTranspose", "Conv1DTranspose"), ("Convolution3DTranspose", "Conv3DTranspose")):
    LAYERS[_alias] = LAYERS[_name]


def configure(name: str, spec: KerasLayerSpec, args: dict) -> dict:
    """Constructor arguments -> attributes the shape functions and rules read."""
    attrs = dict(spec.extra)
    attrs.update(spec.configure(args, spec.dims))
    attrs["kind"] = spec.kind
    attrs["type"] = name
    if spec.kind == "relu" and args.get("max_value") == 6 and not args.get("negative_slope"):
        attrs["kind"] = "relu6"
    return attrs


def activation_kind(value):
    """A Keras ``activation=`` argument -> op kind (None: identity); raises KeyError if unmodelled."""
    if value is None:
        return None
    name = value if isinstance(value, str) else getattr(value, "activation_name", None)
    if name is None:
        raise KeyError(repr(value))
    return ACTIVATIONS[name.lower()]
