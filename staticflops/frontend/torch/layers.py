"""The ``torch.nn`` layers we model: constructor signatures and how their arguments become
the normalised attributes that shape functions and rule formulas read.

This is a description of PyTorch's API (facts), not of any cost convention.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from staticflops.kinds.catalogue import KINDS
from staticflops.shapes.shape import MAX_SIZE

_CONV = "in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros', device=None, dtype=None"
_CONVT = "in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None"
_BN = "num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None"
_IN = "num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False, device=None, dtype=None"
_MAXPOOL = "kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False"
_AVGPOOL = "kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None"
_RNN = "input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, nonlinearity='tanh', device=None, dtype=None"
_ACT = "inplace=False"


@dataclass(frozen=True)
class LayerSpec:
    kind: str
    signature: str
    dims: int | None = None  # spatial dimensions of conv/pool/norm layers
    extra: dict = field(default_factory=dict)  # constant attributes, e.g. activation name
    lazy: str | None = None  # Lazy* modules: the size PyTorch reads from the first input


LAYERS: dict[str, LayerSpec] = {
    "Linear": LayerSpec("linear", "in_features, out_features, bias=True, device=None, dtype=None"),
    "LazyLinear": LayerSpec("linear", "out_features, bias=True, device=None, dtype=None"),
    "Bilinear": LayerSpec("bilinear", "in1_features, in2_features, out_features, bias=True, device=None, dtype=None"),
    "Identity": LayerSpec("identity", "*args, **kwargs"),
    "Flatten": LayerSpec("flatten", "start_dim=1, end_dim=-1"),
    "Unflatten": LayerSpec("unflatten", "dim, unflattened_size"),
    "Embedding": LayerSpec("embedding", "num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None"),
    "LayerNorm": LayerSpec("layer_norm", "normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None, dtype=None"),
    "RMSNorm": LayerSpec("rms_norm", "normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None"),
    "GroupNorm": LayerSpec("group_norm", "num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None"),
    "RNN": LayerSpec("rnn", _RNN),
    "GRU": LayerSpec("gru", _RNN),
    "LSTM": LayerSpec("lstm", _RNN),
    "MultiheadAttention": LayerSpec("multihead_attention", "embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None, dtype=None"),
    "Upsample": LayerSpec("interpolate", "size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None"),
    "UpsamplingNearest2d": LayerSpec("interpolate", "size=None, scale_factor=None", extra={"mode": "nearest"}),
    "UpsamplingBilinear2d": LayerSpec("interpolate", "size=None, scale_factor=None", extra={"mode": "bilinear"}),
    "PixelShuffle": LayerSpec("pixel_shuffle", "upscale_factor"),
    "Softmax": LayerSpec("softmax", "dim=None"),
    "LogSoftmax": LayerSpec("log_softmax", "dim=None"),
    "Softmax2d": LayerSpec("softmax", "", extra={"dim": -3}),
}

for _n in (1, 2, 3):
    LAYERS[f"Conv{_n}d"] = LayerSpec("conv", _CONV, _n)
    LAYERS[f"ConvTranspose{_n}d"] = LayerSpec("conv_transpose", _CONVT, _n)
    LAYERS[f"BatchNorm{_n}d"] = LayerSpec("batch_norm", _BN, _n)
    LAYERS[f"InstanceNorm{_n}d"] = LayerSpec("instance_norm", _IN, _n)
    LAYERS[f"MaxPool{_n}d"] = LayerSpec("max_pool", _MAXPOOL, _n)
    LAYERS[f"AvgPool{_n}d"] = LayerSpec("avg_pool", _AVGPOOL if _n > 1 else "kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True", _n)
    LAYERS[f"AdaptiveAvgPool{_n}d"] = LayerSpec("adaptive_avg_pool", "output_size", _n)
    LAYERS[f"AdaptiveMaxPool{_n}d"] = LayerSpec("adaptive_max_pool", "output_size, return_indices=False", _n)
    LAYERS[f"Dropout{_n}d"] = LayerSpec("dropout", "p=0.5, inplace=False")

for _n in (1, 2, 3):  # padding layers: sizes given last dimension first, as F.pad takes them
    for _prefix in ("Reflection", "Replication", "Zero", "Circular"):
        LAYERS[f"{_prefix}Pad{_n}d"] = LayerSpec("pad", "padding", _n)
    LAYERS[f"ConstantPad{_n}d"] = LayerSpec("pad", "padding, value", _n)
LAYERS["PixelUnshuffle"] = LayerSpec("pixel_unshuffle", "downscale_factor")
_CELL = "input_size, hidden_size, bias=True, device=None, dtype=None"
LAYERS["RNNCell"] = LayerSpec("rnn_cell", "input_size, hidden_size, bias=True, nonlinearity='tanh', device=None, dtype=None")
LAYERS["GRUCell"] = LayerSpec("rnn_cell", _CELL, extra={"gates": 3})
LAYERS["LSTMCell"] = LayerSpec("rnn_cell", _CELL, extra={"gates": 4})

# Losses inside forward: `op` names the loss (the F.* function of the same math).
_REDUCTION = "size_average=None, reduce=None, reduction='mean'"
_LOSSES = {
    "CrossEntropyLoss": ("cross_entropy", f"weight=None, {_REDUCTION}, ignore_index=-100, label_smoothing=0.0"),
    "NLLLoss": ("nll_loss", f"weight=None, {_REDUCTION}, ignore_index=-100"),
    "MSELoss": ("mse_loss", _REDUCTION), "L1Loss": ("l1_loss", _REDUCTION),
    "BCELoss": ("binary_cross_entropy", f"weight=None, {_REDUCTION}"),
    "BCEWithLogitsLoss": ("binary_cross_entropy_with_logits", f"weight=None, {_REDUCTION}, pos_weight=None"),
    "SmoothL1Loss": ("smooth_l1_loss", f"{_REDUCTION}, beta=1.0"),
    "HuberLoss": ("huber_loss", "reduction='mean', delta=1.0"),
    "KLDivLoss": ("kl_div", f"{_REDUCTION}, log_target=False"),
}
for _name, (_op, _sig) in _LOSSES.items():
    LAYERS[_name] = LayerSpec("loss", _sig, extra={"op": _op})
LAYERS["GLU"] = LayerSpec("glu", "dim=-1")

for _name in ("Dropout", "AlphaDropout", "FeatureAlphaDropout"):
    LAYERS[_name] = LayerSpec("dropout", "p=0.5, inplace=False")

# ---- issue 20: the rest of the torch.nn surface (one kind per op; the functional forms of the
# same kinds are in functional_table.py and share ``configure`` below) ----------------------
_SHRINK = {"Hardshrink": ("hardshrink", "lambd=0.5"), "Softshrink": ("softshrink", "lambd=0.5"),
           "Tanhshrink": ("tanhshrink", "*args, **kwargs"), "LogSigmoid": ("logsigmoid", "*args, **kwargs"),
           "Softsign": ("softsign", "*args, **kwargs"),
           "RReLU": ("rrelu", "lower=0.125, upper=0.3333333333333333, inplace=False"),
           "Threshold": ("threshold", "threshold, value, inplace=False"), "Softmin": ("softmin", "dim=None"),
           "ChannelShuffle": ("channel_shuffle", "groups"),
           "LocalResponseNorm": ("local_response_norm", "size, alpha=0.0001, beta=0.75, k=1.0"),
           "CrossMapLRN2d": ("local_response_norm", "size, alpha=0.0001, beta=0.75, k=1"),
           "CosineSimilarity": ("cosine_similarity", "dim=1, eps=1e-08"),
           "PairwiseDistance": ("pairwise_distance", "p=2.0, eps=1e-06, keepdim=False"),
           "Unfold": ("unfold", "kernel_size, dilation=1, padding=0, stride=1"),
           "Fold": ("fold", "output_size, kernel_size, dilation=1, padding=0, stride=1"),
           "EmbeddingBag": ("embedding_bag", "num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, mode='mean', sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None, dtype=None"),
           "LinearCrossEntropyLoss": ("linear_cross_entropy", "in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None, reduction='mean', weight=None, ignore_index=None, label_smoothing=0.0, options=None"),
           "SyncBatchNorm": ("batch_norm", "num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, process_group=None, device=None, dtype=None, *, bias=True")}
for _name, (_kind, _sig) in _SHRINK.items():
    LAYERS[_name] = LayerSpec(_kind, _sig)
for _n in (1, 2, 3):
    LAYERS[f"LPPool{_n}d"] = LayerSpec("lp_pool", "norm_type, kernel_size, stride=None, ceil_mode=False", _n)
    LAYERS[f"MaxUnpool{_n}d"] = LayerSpec("max_unpool", "kernel_size, stride=None, padding=0", _n)
    LAYERS[f"LazyConv{_n}d"] = LayerSpec("conv", _CONV.partition(", ")[2], _n, lazy="in_channels")
    LAYERS[f"LazyConvTranspose{_n}d"] = LayerSpec("conv_transpose", _CONVT.partition(", ")[2], _n, lazy="in_channels")
    _LAZY_NORM = "eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *, bias=True"
    LAYERS[f"LazyBatchNorm{_n}d"] = LayerSpec("batch_norm", _LAZY_NORM, _n, lazy="num_features")
    LAYERS[f"LazyInstanceNorm{_n}d"] = LayerSpec("instance_norm", _LAZY_NORM, _n, lazy="num_features")
for _n in (2, 3):
    LAYERS[f"FractionalMaxPool{_n}d"] = LayerSpec("fractional_max_pool", "kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None", _n)
LAYERS["LazyLinear"] = LayerSpec("linear", "out_features, bias=True, device=None, dtype=None", lazy="in_features")
_MORE_LOSSES = {
    "NLLLoss2d": ("nll_loss", f"weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'"),
    "CosineEmbeddingLoss": ("cosine_embedding_loss", f"margin=0.0, {_REDUCTION}"),
    "HingeEmbeddingLoss": ("hinge_embedding_loss", f"margin=1.0, {_REDUCTION}"),
    "MarginRankingLoss": ("margin_ranking_loss", f"margin=0.0, {_REDUCTION}"),
    "SoftMarginLoss": ("soft_margin_loss", _REDUCTION),
    "MultiLabelMarginLoss": ("multilabel_margin_loss", _REDUCTION),
    "MultiLabelSoftMarginLoss": ("multilabel_soft_margin_loss", f"weight=None, {_REDUCTION}"),
    "MultiMarginLoss": ("multi_margin_loss", f"p=1, margin=1.0, weight=None, {_REDUCTION}"),
    "PoissonNLLLoss": ("poisson_nll_loss", "log_input=True, full=False, size_average=None, eps=1e-08, reduce=None, reduction='mean'"),
    "GaussianNLLLoss": ("gaussian_nll_loss", "*, full=False, eps=1e-06, reduction='mean'"),
    "TripletMarginLoss": ("triplet_margin_loss", f"margin=1.0, p=2.0, eps=1e-06, swap=False, {_REDUCTION}"),
    "TripletMarginWithDistanceLoss": ("triplet_margin_with_distance_loss", "*, distance_function=None, margin=1.0, swap=False, reduction='mean'"),
    "CTCLoss": ("ctc_loss", "blank=0, reduction='mean', zero_infinity=False"),
}
for _name, (_op, _sig) in _MORE_LOSSES.items():
    LAYERS[_name] = LayerSpec("loss", _sig, extra={"op": _op})

# torch.nn classes left out on purpose, with the reason the located unknown gives.
NOT_MODELLED = {
    "AdaptiveLogSoftmaxWithLoss": "its cost depends on the target values (only the rows whose class falls in a "
                                  "tail cluster run that cluster's projections)",
}

_ACTIVATIONS = {
    "ReLU": ("relu", _ACT), "ReLU6": ("relu6", _ACT), "GELU": ("gelu", "approximate='none'"),
    "SiLU": ("silu", _ACT), "Tanh": ("tanh", ""), "Sigmoid": ("sigmoid", ""),
    "LeakyReLU": ("leaky_relu", "negative_slope=0.01, inplace=False"), "ELU": ("elu", "alpha=1.0, inplace=False"),
    "SELU": ("selu", _ACT), "CELU": ("celu", "alpha=1.0, inplace=False"), "Softplus": ("softplus", "beta=1.0, threshold=20.0"),
    "Mish": ("mish", _ACT), "Hardswish": ("hardswish", _ACT), "Hardsigmoid": ("hardsigmoid", _ACT),
    "Hardtanh": ("hardtanh", "min_val=-1.0, max_val=1.0, inplace=False"), "PReLU": ("prelu", "num_parameters=1, init=0.25, device=None, dtype=None"),
}
for _name, (_kind, _sig) in _ACTIVATIONS.items():
    LAYERS[_name] = LayerSpec(_kind, _sig)


# Keyword arguments of a layer's forward and their defaults, so rules can read them.
CALL_DEFAULTS: dict[str, dict] = {
    "multihead_attention": {"need_weights": True, "average_attn_weights": True, "is_causal": False},
}


def ntuple(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value) if len(value) == n else tuple(value[:1]) * n if len(value) == 1 else tuple(value)
    return (value,) * n


def normalise(name: str, spec: LayerSpec, args: dict) -> dict:
    """Constructor arguments -> attributes the shape functions and rules read."""
    attrs = {k: v for k, v in args.items() if k not in ("device", "dtype", "inplace")}
    attrs.update(spec.extra)
    attrs["kind"] = spec.kind
    attrs["type"] = name
    n = spec.dims
    if spec.kind in ("conv", "conv_transpose"):
        attrs["dims"] = n
        for key in ("kernel_size", "stride", "dilation"):
            attrs[key] = ntuple(attrs[key], n)
        if not isinstance(attrs["padding"], str):
            attrs["padding"] = ntuple(attrs["padding"], n)
        if spec.kind == "conv_transpose":
            attrs["output_padding"] = ntuple(attrs["output_padding"], n)
        attrs["bias"] = bool(attrs["bias"])
    elif spec.kind in ("max_pool", "avg_pool"):
        attrs["dims"] = n
        attrs["kernel_size"] = ntuple(attrs["kernel_size"], n)
        attrs["stride"] = ntuple(attrs["stride"] if attrs["stride"] is not None else attrs["kernel_size"], n)
        attrs["padding"] = ntuple(attrs["padding"], n)
        attrs["dilation"] = ntuple(attrs.get("dilation", 1), n)
    elif spec.kind in ("adaptive_avg_pool", "adaptive_max_pool"):
        attrs["dims"] = n
        attrs["output_size"] = ntuple(attrs["output_size"], n)
    elif spec.kind in ("batch_norm", "instance_norm"):
        attrs["dims"] = n
    elif spec.kind in ("layer_norm", "rms_norm"):
        shape = attrs["normalized_shape"]
        attrs["normalized_shape"] = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    elif spec.kind in ("rnn", "gru", "lstm"):
        attrs["bias"] = bool(attrs["bias"])
        attrs["gates"] = {"rnn": 1, "gru": 3, "lstm": 4}[spec.kind]
        attrs["bias_vectors"] = 2  # b_ih and b_hh
    elif spec.kind == "multihead_attention":
        attrs["kdim"] = attrs["kdim"] if attrs["kdim"] is not None else attrs["embed_dim"]
        attrs["vdim"] = attrs["vdim"] if attrs["vdim"] is not None else attrs["embed_dim"]
        attrs["bias"] = bool(attrs["bias"])
    elif spec.kind in ("linear", "bilinear"):
        attrs["bias"] = bool(attrs["bias"])
    elif spec.kind == "rnn_cell":
        attrs["bias"] = bool(attrs["bias"])
        attrs.setdefault("gates", 1)
    elif spec.kind == "loss":
        attrs["reduction"] = legacy_reduction(attrs)
        if "distance_function" in attrs:  # the function itself stays on the module (it is called, not priced)
            attrs["custom_distance"] = attrs.pop("distance_function") is not None
    elif spec.kind == "pad":
        attrs["padding"] = torch_padding(attrs["padding"], n)
        attrs["dims"] = n
        attrs["trailing"] = True  # pads the last n dimensions, batched or not
    elif spec.kind in CONFIGURE:
        attrs = CONFIGURE[spec.kind](attrs, n)
    return attrs


# ---- issue 20: argument conventions of the kinds added for the rest of torch.nn, shared by the
# module (constructor arguments) and its functional form (call arguments) ----------------------

def _pooling_window(attrs: dict, dims: int) -> dict:
    """kernel_size / stride (default: the kernel) / padding as per-dimension tuples."""
    kernel = ntuple(attrs["kernel_size"], dims)
    stride = attrs.get("stride")
    attrs.update(dims=dims, kernel_size=kernel, stride=ntuple(stride if stride not in (None, []) else kernel, dims),
                 padding=ntuple(attrs.get("padding", 0), dims), dilation=ntuple(attrs.get("dilation", 1), dims))
    return attrs


def _fractional(attrs: dict, dims: int) -> dict:
    attrs.update(dims=dims, kernel_size=ntuple(attrs["kernel_size"], dims))
    for key in ("output_size", "output_ratio"):
        if attrs.get(key) is not None:
            attrs[key] = ntuple(attrs[key], dims)
    return attrs


def _sliding_blocks(attrs: dict, dims: int) -> dict:
    """Unfold/Fold: 2-D windows (the only ones PyTorch implements)."""
    for key in ("kernel_size", "dilation", "padding", "stride", "output_size"):
        if key in attrs:
            attrs[key] = ntuple(attrs[key], 2)
    return attrs


def _linear_cross_entropy(attrs: dict, dims) -> dict:
    attrs["bias"] = bool(attrs.get("bias"))
    return attrs


CONFIGURE = {"lp_pool": _pooling_window, "max_unpool": _pooling_window, "fractional_max_pool": _fractional,
             "unfold": _sliding_blocks, "fold": _sliding_blocks, "linear_cross_entropy": _linear_cross_entropy}


def legacy_reduction(attrs: dict) -> str:
    """``size_average``/``reduce`` (deprecated) override ``reduction`` as PyTorch does."""
    size_average, reduce = attrs.pop("size_average", None), attrs.pop("reduce", None)
    if size_average is None and reduce is None:
        return attrs.get("reduction", "mean")
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def torch_padding(padding, dims: int) -> tuple:
    """``(left, right, top, bottom, ...)`` (last dimension first) or one int -> per-dimension
    ``(before, after)`` pairs in dimension order."""
    sizes = ntuple(padding, 2 * dims) if not isinstance(padding, (tuple, list)) else tuple(padding)
    pairs = [(sizes[2 * i], sizes[2 * i + 1]) for i in range(len(sizes) // 2)]
    return tuple(reversed(pairs))


def _number(value) -> bool:
    """A known Python number (symbolic sizes and unknowns are never judged here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _not_positive_integer(attrs: dict, key: str) -> str | None:
    value = attrs.get(key)
    if isinstance(value, bool) or (_number(value) and (not isinstance(value, int) or value <= 0)):
        return f"{key} must be a positive integer, got {_shown(value)}"
    return None


def _negative(attrs: dict, *keys: str) -> str | None:
    """Sizes of a weight: 0 is allowed (an empty weight), negative is not."""
    for key in keys:
        value = attrs.get(key)
        if isinstance(value, bool) or (_number(value) and (not isinstance(value, int) or value < 0)):
            return f"{key} must be a non-negative integer, got {_shown(value)}"
    return None


def _shown(value) -> str:
    """``repr``, except for an integer too long to print (over 4,300 digits)."""
    if type(value) is int and abs(value) > MAX_SIZE:
        return f"{'-' if value < 0 else ''}2**{abs(value).bit_length() - 1} or so"
    return repr(value)


def _oversized(attrs: dict) -> str | None:
    """PyTorch passes every integer argument to C++ as an int64 and refuses a larger one
    (such a number may also be too long to print)."""
    for key, value in attrs.items():
        for item in value if isinstance(value, tuple) else (value,):
            if type(item) is int and item > MAX_SIZE:
                return f"{key} of about 2**{item.bit_length() - 1} is over the int64 size limit (2**63 - 1)"
    return None


def _not_divisible(attrs: dict, key: str, by: str) -> str | None:
    value, divisor = attrs.get(key), attrs.get(by)
    if isinstance(value, int) and isinstance(divisor, int) and divisor > 0 and value % divisor:
        return f"{key} ({value}) must be divisible by {by} ({divisor})"
    return None


def _first(*problems) -> str | None:
    return next((p for p in problems if p), None)


def argument_error(kind: str, attrs: dict) -> str | None:
    """What PyTorch's constructor rejects among the normalised attributes (None: accepted).
    Only known numbers are checked; weight shapes and rule formulas divide by these values,
    so accepting them would give a silently wrong shape or count."""
    oversized = _oversized(attrs)
    if oversized:
        return oversized
    if kind in ("conv", "conv_transpose"):
        return _first(_negative(attrs, "in_channels", "out_channels"), _not_positive_integer(attrs, "groups"),
                      _not_divisible(attrs, "in_channels", "groups"),
                      _not_divisible(attrs, "out_channels", "groups"), _padding_string(kind, attrs))
    if kind == "group_norm":
        return _first(_not_positive_integer(attrs, "num_groups"),
                      _not_divisible(attrs, "num_channels", "num_groups"))
    if kind == "multihead_attention":
        return _first(_not_positive_integer(attrs, "embed_dim"), _not_positive_integer(attrs, "num_heads"),
                      _not_divisible(attrs, "embed_dim", "num_heads"))
    if kind == "rnn_cell":
        return _first(*(_not_positive_integer(attrs, key) for key in ("input_size", "hidden_size")))
    if kind == "loss" and attrs.get("reduction") not in ("none", "mean", "sum", "batchmean"):
        return f"{attrs.get('reduction')!r} is not a valid value for reduction"
    if kind in ("rnn", "gru", "lstm"):
        return _first(*(_not_positive_integer(attrs, key) for key in ("input_size", "hidden_size", "num_layers")),
                      _projection(kind, attrs), _probability(attrs.get("dropout"), "dropout"))
    if kind == "linear":
        return _negative(attrs, "in_features", "out_features")
    if kind == "embedding":
        index, count = attrs.get("padding_idx"), attrs.get("num_embeddings")
        if isinstance(index, int) and isinstance(count, int) and count >= 0 and not -count <= index < count:
            return f"padding_idx {index} must be within num_embeddings ({count})"
        return _negative(attrs, "num_embeddings", "embedding_dim")
    if kind in ("batch_norm", "instance_norm"):
        return _negative(attrs, "num_features")
    if kind in ("layer_norm", "rms_norm"):
        shape = attrs.get("normalized_shape")
        return _first(*(_negative({"normalized_shape": size}, "normalized_shape")
                        for size in (shape if isinstance(shape, tuple) else ())))
    if kind == "dropout":
        return _probability(attrs.get("p"), "dropout probability")
    if kind == "embedding_bag":
        mode = attrs.get("mode", "mean")
        return _first(None if mode in ("sum", "mean", "max") else f"mode has to be one of sum, mean or max, got {mode!r}",
                      _negative(attrs, "num_embeddings", "embedding_dim"))
    if kind == "linear_cross_entropy":
        return _negative(attrs, "in_features", "num_classes")
    if kind in ("channel_shuffle", "local_response_norm"):
        return _not_positive_integer(attrs, "groups" if kind == "channel_shuffle" else "size")
    if kind == "pad" and attrs.get("trailing") and len(attrs["padding"]) != (attrs.get("dims") or len(attrs["padding"])):
        return f"padding must be an int or a {2 * attrs['dims']}-tuple"
    return None


def _probability(p, what: str) -> str | None:
    if _number(p) and not 0 <= p <= 1:
        return f"{what} has to be between 0 and 1, got {p!r}"
    return None


def _padding_string(kind: str, attrs: dict) -> str | None:
    """PyTorch convs take 'valid' or 'same' (not strided); transposed convs take no string."""
    padding, strides = attrs.get("padding"), attrs.get("stride") or ()
    if not isinstance(padding, str):
        return None
    if kind == "conv_transpose":
        return f"invalid padding string {padding!r} (transposed convolutions take numbers)"
    if padding not in ("valid", "same"):
        return f"invalid padding string {padding!r}, should be 'valid' or 'same'"
    if padding == "same" and any(isinstance(s, int) and s != 1 for s in strides):
        return "padding='same' is not supported for strided convolutions"
    return None


def _projection(kind: str, attrs: dict) -> str | None:
    """LSTM's proj_size: 0 (none) or a positive integer below hidden_size; LSTM only."""
    size, hidden = attrs.get("proj_size"), attrs.get("hidden_size")
    if size is None or size == 0 or not _number(size):
        return None
    if not isinstance(size, int) or size < 0:
        return f"proj_size should be a positive integer or zero to disable projections, got {size!r}"
    if kind != "lstm":
        return "proj_size argument is only supported for LSTM, not RNN or GRU"
    if isinstance(hidden, int) and size >= hidden:
        return f"proj_size ({size}) has to be smaller than hidden_size ({hidden})"
    return None


_AFFINE_FLAG = {"batch_norm": "affine", "instance_norm": "affine", "group_norm": "affine",
                "layer_norm": "elementwise_affine", "rms_norm": "elementwise_affine"}
_WEIGHTED = {"linear", "bilinear", "conv", "conv_transpose", "embedding", "rnn", "gru", "lstm", "rnn_cell",
             "multihead_attention", "prelu", "embedding_bag", "linear_cross_entropy", *_AFFINE_FLAG}


def has_parameters(kind: str, attrs: dict) -> bool:
    """Whether a layer of this kind holds weights (a fact of the framework, not a cost)."""
    if kind not in _WEIGHTED:
        return False
    flag = _AFFINE_FLAG.get(kind)
    return bool(attrs.get(flag, True)) if flag else True


def parameter_shapes(kind: str, attrs: dict) -> tuple:
    """Shapes of a layer's ``weight`` and ``bias`` as PyTorch allocates them (None: not modelled):
    the kind's record says (``weights`` in kinds/).  Model code reads them
    (``F.linear(x, self.qkv.weight)``) and ties them between layers."""
    record = KINDS.get(kind)
    if record is None or record.weights is None:
        return None, None
    return record.weights(attrs)

