"""Normalisation layers: statistics over some dimensions, an optional affine per channel or per
feature (torch.nn BatchNorm*d, InstanceNorm*d, GroupNorm, LayerNorm, RMSNorm,
LocalResponseNorm; their F.* forms; Keras BatchNormalization, GroupNormalization,
LayerNormalization share the kinds).  All keep the input's shape; the check is that the
channels or the normalised tail fit the layer."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.layout import channels_last, expect_size
from staticflops.shapes.shape import format_shape
from staticflops.shapes.tensor_ops import ShapeError, normalize_dim, same


def _channel_norm(attrs, inputs):
    x = inputs[0]
    if len(x) < 2:
        raise ShapeError(f"{attrs.get('type', 'BatchNorm')} expects an input of rank at least 2, got {format_shape(x)}")
    unbatched = attrs["kind"] == "instance_norm" and len(x) == attrs.get("dims", 0) + 1
    channel = x[0] if unbatched else x[1]
    if "axis" in attrs:  # Keras BatchNormalization normalises over any axis (default -1)
        channel = x[normalize_dim(attrs["axis"], len(x))]
    expect_size(channel, attrs["num_features"], attrs.get("type", "BatchNorm") + " expects {wanted} channels, got {actual}")
    return [x], {}


def _group_norm(attrs, inputs):
    x = inputs[0]
    expect_size(x[-1] if channels_last(attrs) else x[1], attrs["num_channels"],
            "GroupNorm expects {wanted} channels, got {actual}")  # Keras: channels last by default
    return [x], {}


def _layer_norm(attrs, inputs):
    x = inputs[0]
    normalized = tuple(attrs["normalized_shape"])
    tail = x[len(x) - len(normalized):]
    if len(x) < len(normalized) or not all(same(a, b) for a, b in zip(tail, normalized)):
        name = "RMSNorm" if attrs.get("kind") == "rms_norm" else "LayerNorm"
        raise ShapeError(f"{name} over {format_shape(normalized)} does not fit input {format_shape(x)}")
    return [x], {}


def _same(attrs, inputs):
    return [inputs[0]], {}


def _per_channel(key):
    """weight and bias: one value per channel (or feature)."""
    return lambda attrs: ((attrs[key],), (attrs[key],))


def _per_normalized(attrs):
    """LayerNorm: weight and bias over normalized_shape (no bias with ``bias=False``)."""
    shape = tuple(attrs["normalized_shape"])
    return shape, shape if attrs.get("bias", True) is not False else None


def _scale_only(attrs):
    """RMSNorm: a weight over normalized_shape and no bias (torch.nn.RMSNorm has none)."""
    return tuple(attrs["normalized_shape"]), None


def _example(init, inputs, params, why):
    return (Example("self.m(x)", inputs, (tuple(int(d) for d in inputs[0].split(":")[-1].split("x")),), 0, why,
                    init=init, params=params),)


KINDS = catalogue(
    Kind("batch_norm", _channel_norm, True, "per-channel statistics over the batch and the spatial dims",
         _example("self.m = nn.BatchNorm2d(3)", ("x:2x3x8x8",), 6,
                  "the input's shape; weight and bias of 3 channels = 6 params (running stats are buffers); 0"),
         weights=_per_channel("num_features")),
    Kind("instance_norm", _channel_norm, True, "per-sample, per-channel statistics over the spatial dims",
         _example("self.m = nn.InstanceNorm2d(3)", ("x:2x3x8x8",), 0,
                  "the input's shape; affine=False by default: no params; 0"),
         weights=_per_channel("num_features")),
    Kind("group_norm", _group_norm, True, "per-sample statistics over groups of channels",
         _example("self.m = nn.GroupNorm(2, 4)", ("x:2x4x8x8",), 8,
                  "the input's shape; weight and bias of 4 channels = 8 params; 0"),
         weights=_per_channel("num_channels")),
    Kind("layer_norm", _layer_norm, True, "statistics over the trailing normalized_shape",
         _example("self.m = nn.LayerNorm(8)", ("x:2x5x8",), 16,
                  "the input's shape; weight and bias of 8 = 16 params; 0"),
         weights=_per_normalized),
    Kind("rms_norm", _layer_norm, True, "root-mean-square scaling over the trailing normalized_shape (no mean)",
         _example("self.m = nn.RMSNorm(8)", ("x:2x5x8",), 8, "the input's shape; a weight of 8, no bias; 0"),
         weights=_scale_only),
    Kind("local_response_norm", _same, True, "each element scaled by the sum of squares of its neighbouring channels",
         _example("self.m = nn.LocalResponseNorm(2)", ("x:2x4x8x8",), 0, "the input's shape; no params; 0")),

    Kind("normalization", _same, True, "Keras Normalization: (x - mean) / sqrt(variance), fixed statistics",
         (Example("layers.Normalization(mean=0.0, variance=1.0)(x)", ("x:2x8",), ((2, 8),), 0,
                  "the input's shape; elementwise: 0", framework="keras"),)),
)
