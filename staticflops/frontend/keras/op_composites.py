"""``keras.ops`` functions composed of existing kinds (``outer`` is a ``mul``, ``moments`` a
``reduce``, ``depthwise_conv`` a ``conv``...): one function each, of (framework, the PyTorch-model
functions, interpreter, bound arguments, call node), listed in ``COMPOSITES`` with Keras's
signature.  frontend/keras/op_table.py binds them with its other tables.
"""

from __future__ import annotations

from staticflops.frontend.keras.graph import tensors_in
from staticflops.frontend.values import Tensor
from staticflops.shapes import tensor_ops as shape_ops
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError

_X1_X2 = "x1, x2"


def _axis(axis, rank):
    return shape_ops.normalize_dim(axis, rank)


def _take_along_axis(b):
    x, indices, axis = b["x"].shape, b["indices"].shape, b["axis"]
    if axis is None:
        return indices
    axis = _axis(axis, len(x))
    if len(indices) != len(x):
        raise ShapeError("indices and x differ in rank")
    left = shape_ops.broadcast(x[:axis] + (1,) + x[axis + 1:], indices[:axis] + (1,) + indices[axis + 1:])
    return left[:axis] + (indices[axis],) + left[axis + 1:]


# ---- composites: functions of (framework, f, interp, bound arguments, node) ---------------------
def _tensor(interp, value, what, node):
    if not isinstance(value, Tensor) or value.shape is None:
        return interp.unknown(f"keras.ops.{what} of a tensor of unknown shape", node)
    return value


def _record(framework, interp, kind, label, attrs, inputs, shapes, node, dtype="float32"):
    with framework.ops.arguments(inputs):
        return framework.ops.record(interp, kind, label, attrs, shapes, node, dtype=dtype)


def _scalars(f, interp, node, *names):
    """One scalar op per name (the backend's size and constant arithmetic)."""
    for name in names:
        f[name](interp, [Tensor((), "float32"), Tensor((), "float32")] if name not in ("log", "neg") else
                [Tensor((), "float32")], {}, node)


def _unknown_first(*values):
    """The first of the values that is not a tensor (an unknown to return)."""
    return next(v for v in values if not isinstance(v, Tensor))


def _outer(framework, f, interp, b, node):
    """outer(x1, x2): both flattened, x1[:, None] * x2[None, :]: one Mul per output."""
    a, c = _tensor(interp, b["x1"], "outer", node), _tensor(interp, b["x2"], "outer", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return a if not isinstance(a, Tensor) else c
    column, row = Tensor((numel(a.shape), 1), a.dtype), Tensor((1, numel(c.shape)), c.dtype)
    return f["mul"](interp, [column, row], {}, node)


def _glu(framework, f, interp, b, node):
    """glu(x, axis=-1): a * sigmoid(b) of the two halves (kind glu)."""
    x = _tensor(interp, b["x"], "glu", node)
    if not isinstance(x, Tensor):
        return x
    return _record(framework, interp, "glu", "ops.glu", {"dim": b["axis"]}, [x], [x.shape], node, x.dtype)


def _diff(framework, f, interp, b, node):
    """diff(a, n=1, axis=-1): n rounds of a[1:] - a[:-1] along the axis (a Sub per output)."""
    x = _tensor(interp, b["a"], "diff", node)
    if not isinstance(x, Tensor):
        return x
    axis = _axis(b["axis"], len(x.shape))
    for _ in range(b["n"]):
        if not isinstance(x.shape[axis], int) or x.shape[axis] < 1:
            return interp.unknown("keras.ops.diff along a dimension of unknown or zero size", node)
        smaller = Tensor(x.shape[:axis] + (x.shape[axis] - 1,) + x.shape[axis + 1:], x.dtype)
        x = f["sub"](interp, [smaller, smaller], {}, node)
    return x


def _norm(framework, f, interp, b, node):
    """norm(x, ord=None, axis=None): the 2-norm (Frobenius for a matrix): a reduction."""
    if b["ord"] is not None:
        return interp.unknown("keras.ops.norm with an ord= is not modelled", node)
    x = _tensor(interp, b["x"], "norm", node)
    if not isinstance(x, Tensor):
        return x
    axis = tuple(b["axis"]) if isinstance(b["axis"], list) else b["axis"]
    return _record(framework, interp, "reduce", "norm", {"op": "norm", "dim": axis, "keepdim": bool(b["keepdims"])},
                   [x], [x.shape], node, x.dtype)


def _rms_normalization(framework, f, interp, b, node):
    """rms_normalization(x, scale=None, axis=-1): kind rms_norm over the last axis, no weights."""
    x = _tensor(interp, b["x"], "rms_normalization", node)
    if not isinstance(x, Tensor):
        return x
    if b["scale"] is not None or b["axis"] not in (-1, len(x.shape) - 1):
        return interp.unknown("keras.ops.rms_normalization with a scale or another axis than the last is not modelled",
                              node)
    attrs = {"normalized_shape": (x.shape[-1],), "elementwise_affine": False, "type": "ops.rms_normalization"}
    return _record(framework, interp, "rms_norm", "ops.rms_normalization", attrs, [x], [x.shape], node)


def _normalize(framework, f, interp, b, node):
    """normalize(x, axis=-1, order=2): x / max(||x||, eps) along the axis (kind normalize)."""
    x = _tensor(interp, b["x"], "normalize", node)
    if not isinstance(x, Tensor):
        return x
    dim = _axis(b["axis"], len(x.shape))
    return _record(framework, interp, "normalize", "ops.normalize", {"p": b["order"], "dim": dim}, [x], [x.shape], node)


def _pool(kind):
    def fn(framework, f, interp, b, node):
        """max_pool / average_pool(inputs, pool_size, strides=None, padding='valid'): as the layers."""
        x = _tensor(interp, b["inputs"], kind, node)
        if not isinstance(x, Tensor):
            return x
        n = len(x.shape) - 2
        size = tuple(b["pool_size"]) if isinstance(b["pool_size"], (list, tuple)) else (b["pool_size"],) * n
        stride = b["strides"] if b["strides"] is not None else size
        stride = tuple(stride) if isinstance(stride, (list, tuple)) else (stride,) * n
        attrs = {"dims": n, "kernel_size": size, "stride": stride, "padding": str(b["padding"]).lower(),
                 "data_format": b["data_format"] or "channels_last"}
        return _record(framework, interp, kind, f"ops.{'max_pool' if kind == 'max_pool' else 'average_pool'}", attrs,
                       [x], [x.shape], node, x.dtype)
    return fn


def _adaptive_pool(kind):
    def fn(framework, f, interp, b, node):
        """adaptive_average_pool / adaptive_max_pool(inputs, output_size, data_format=None): as the
        AdaptivePooling layers (channels_last only)."""
        x = _tensor(interp, b["inputs"], kind, node)
        if not isinstance(x, Tensor):
            return x
        if (b["data_format"] or "channels_last") != "channels_last":
            return interp.unknown(f"keras.ops.{kind} with data_format='channels_first' is not modelled", node)
        n = len(x.shape) - 2
        size = tuple(b["output_size"]) if isinstance(b["output_size"], (list, tuple)) else (b["output_size"],) * n
        attrs = {"dims": n, "output_size": size, "data_format": "channels_last"}
        recorded = "adaptive_avg_pool" if kind == "adaptive_average_pool" else "adaptive_max_pool"
        return _record(framework, interp, recorded, f"ops.{kind}", attrs, [x], [x.shape], node, x.dtype)
    return fn


def _sorting(name):
    def fn(framework, f, interp, b, node):
        """sort / argsort(x, axis=-1): kind sort (TensorFlow negates and runs top_k)."""
        x = _tensor(interp, b["x"], name, node)
        if not isinstance(x, Tensor):
            return x
        if b["axis"] is None:
            x = Tensor((numel(x.shape),), x.dtype)
        dim = _axis(-1 if b["axis"] is None else b["axis"], max(len(x.shape), 1))
        result = _record(framework, interp, "sort", f"ops.{name}", {"op": name, "dim": dim, "k": None}, [x], [x.shape],
                         node, x.dtype)
        return Tensor(result.shape, "int32") if name == "argsort" and isinstance(result, Tensor) else result
    return fn


def _conv_family(kind):
    """conv_transpose / depthwise_conv / separable_conv on a kernel tensor, with the attributes
    the Keras layers of the same kind record (no bias; a kernel argument is no parameter)."""
    def fn(framework, f, interp, b, node):
        x = _tensor(interp, b["inputs"], kind, node)
        kernel = _tensor(interp, b.get("kernel", b.get("depthwise_kernel")), kind, node)
        if not isinstance(x, Tensor) or not isinstance(kernel, Tensor):
            return x if not isinstance(x, Tensor) else kernel
        n = len(x.shape) - 2
        if len(kernel.shape) != n + 2 or n not in (1, 2, 3):
            raise ShapeError(f"a rank-{len(kernel.shape)} kernel does not fit a rank-{len(x.shape)} input")
        data_format = b["data_format"] or "channels_last"
        channels = x.shape[-1] if data_format == "channels_last" else x.shape[1]

        def spread(v):
            return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n
        attrs = {"dims": n, "kernel_size": tuple(kernel.shape[:n]), "stride": spread(b["strides"]),
                 "padding": str(b["padding"]).lower(), "dilation": spread(b["dilation_rate"]), "bias": False,
                 "data_format": data_format, "depthwise": kind == "depthwise_conv", "type": f"ops.{kind}"}
        inputs = [x, kernel]
        if kind == "conv_transpose":  # kernel (*window, out, in)
            attrs.update(out_channels=kernel.shape[-2], in_channels=channels, groups=1,
                         output_padding=None if b["output_padding"] is None else spread(b["output_padding"]))
        elif kind == "depthwise_conv":  # kernel (*window, in, multiplier)
            attrs.update(out_channels=channels * kernel.shape[-1], in_channels=channels, groups=channels)
        else:  # separable: depthwise (*window, in, multiplier), pointwise (1.., in * multiplier, out)
            pointwise = _tensor(interp, b["pointwise_kernel"], kind, node)
            if not isinstance(pointwise, Tensor):
                return pointwise
            inputs.append(pointwise)
            attrs.update(out_channels=pointwise.shape[-1], in_channels=channels, groups=1,
                         depth_multiplier=kernel.shape[-1])
        recorded = {"conv_transpose": "conv_transpose", "depthwise_conv": "conv"}.get(kind, "separable_conv")
        return _record(framework, interp, recorded, f"ops.{kind}", attrs, inputs, [x.shape], node)
    return fn


def _take_along_axis_op(framework, f, interp, b, node):
    """take_along_axis(x, indices, axis): a gather recorded as kind take (TensorFlow wraps negative
    indices first: Less and AddV2 per index, as for ops.take)."""
    x, indices = _tensor(interp, b["x"], "take_along_axis", node), _tensor(interp, b["indices"], "take_along_axis", node)
    if not isinstance(x, Tensor) or not isinstance(indices, Tensor):
        return x if not isinstance(x, Tensor) else indices
    out = _take_along_axis(b)
    with framework.ops.arguments([x]):
        return framework.ops.record(interp, "take", "take_along_axis", {"dim": b["axis"]}, [x.shape, indices.shape],
                                    node, outputs=[out], dtype=x.dtype)


def _saturate_cast(framework, f, interp, b, node):
    """saturate_cast(x, dtype): clipped to the dtype's range (Minimum + Maximum), then cast."""
    if not isinstance(b["dtype"], str):
        return interp.unknown("keras.ops.saturate_cast to a dtype that is not a name", node)
    result = f["clamp"](interp, [b["x"]], {}, node)
    return Tensor(result.shape, b["dtype"]) if isinstance(result, Tensor) else result


def _batch_normalization(framework, f, interp, b, node):
    """batch_normalization(x, mean, variance, axis, offset=None, scale=None): kind batch_norm on
    given statistics (no weights of its own)."""
    x = _tensor(interp, b["x"], "batch_normalization", node)
    if not isinstance(x, Tensor):
        return x
    axis = _axis(b["axis"], len(x.shape))
    attrs = {"num_features": x.shape[axis], "axis": axis, "affine": False, "scale": b["scale"] is not None,
             "center": b["offset"] is not None, "type": "ops.batch_normalization"}
    tensors = tensors_in([x, b["mean"], b["variance"], b["offset"], b["scale"]])
    return _record(framework, interp, "batch_norm", "ops.batch_normalization", attrs, tensors, [x.shape], node)


def _moments(framework, f, interp, b, node):
    """moments(x, axes, keepdims=False): (mean, variance); the variance's Mean, SquaredDifference
    and Mean include the mean (kind reduce, op var)."""
    x = _tensor(interp, b["x"], "moments", node)
    if not isinstance(x, Tensor):
        return x
    axes = tuple(b["axes"]) if isinstance(b["axes"], (list, tuple)) else b["axes"]
    variance = _record(framework, interp, "reduce", "moments", {"op": "var", "dim": axes, "keepdim": bool(b["keepdims"])},
                       [x], [x.shape], node, x.dtype)
    return (Tensor(variance.shape, x.dtype), variance) if isinstance(variance, Tensor) else variance


def _meshgrid(framework, f, interp, b, node):
    """meshgrid(x, y, indexing='xy'): each flattened input broadcast to (len(y), len(x)) by a
    multiply with ones (one Mul per output element each)."""
    xs = b["x"]
    if len(xs) != 2 or not all(isinstance(t, Tensor) and t.shape is not None for t in xs):
        return interp.unknown("keras.ops.meshgrid of other than two tensors of known shape", node)
    nx, ny = numel(xs[0].shape), numel(xs[1].shape)
    rows, cols = (ny, nx) if b["indexing"] == "xy" else (nx, ny)
    return [f["mul"](interp, [Tensor((1, cols) if b["indexing"] == "xy" else (rows, 1), t.dtype), Tensor((rows, cols), t.dtype)],
                     {}, node) for t in xs]


def _vdot(framework, f, interp, b, node):
    """vdot(x1, x2): both flattened, one dot product (a MatMul)."""
    a, c = _tensor(interp, b["x1"], "vdot", node), _tensor(interp, b["x2"], "vdot", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return a if not isinstance(a, Tensor) else c
    return f["matmul"](interp, [Tensor((numel(a.shape),), a.dtype), Tensor((numel(c.shape),), c.dtype)], {}, node)


def _vander(framework, f, interp, b, node):
    """vander(x, N=None): x[:, None] ** powers (one Pow per output element)."""
    x = _tensor(interp, b["x"], "vander", node)
    if not isinstance(x, Tensor):
        return x
    if len(x.shape) != 1:
        raise ShapeError(f"vander expects a 1-D tensor, got rank {len(x.shape)}")
    n = x.shape[0] if b["N"] is None else b["N"]
    return f["pow"](interp, [Tensor((x.shape[0], 1), x.dtype), Tensor((1, n), x.dtype)], {}, node)


def _nan_cumulative(target):
    def fn(framework, f, interp, b, node):
        """nancumsum / nancumprod(x, axis=None): Keras's TensorFlow backend runs nan_to_num
        (kind pointwise, label nan_to_num) then cumsum / cumprod, flattened when axis is None."""
        x = _tensor(interp, b["x"], f"nan{target}", node)
        if not isinstance(x, Tensor):
            return x
        x = _record(framework, interp, "pointwise", "nan_to_num", {}, [x], [x.shape], node, x.dtype)
        if b["axis"] is None:
            x = Tensor((numel(x.shape),), x.dtype)
        return f[target](interp, [x], {"dim": 0 if b["axis"] is None else b["axis"]}, node)
    return fn


def _multi_hot(framework, f, interp, b, node):
    """multi_hot(inputs, num_classes, axis=-1): one_hot, then the maximum over axis 1 (axis 0 for
    a 1-D input): keras/src/backend/tensorflow/nn.py, keras 3.15.1."""
    x = _tensor(interp, b["inputs"], "multi_hot", node)
    if not isinstance(x, Tensor):
        return x
    count = b["num_classes"] if b["num_classes"] is not None else b["kwargs"].get("num_tokens")
    if b["axis"] != -1 or b["sparse"] or isinstance(count, bool) or not isinstance(count, int):
        return interp.unknown("keras.ops.multi_hot with an axis other than -1, sparse output or a num_classes "
                              "that is not a number is not modelled", node)
    hot = f["one_hot"](interp, [Tensor(x.shape, "int32"), count], {}, node)
    if not isinstance(hot, Tensor):
        return hot
    axis = 1 if len(x.shape) > 1 else 0
    dtype = b["dtype"] if isinstance(b["dtype"], str) else "float32"
    return _record(framework, interp, "reduce", "multi_hot", {"op": "amax", "dim": axis, "keepdim": False},
                   [hot], [hot.shape], node, dtype)


def _trapezoid(framework, f, interp, b, node):
    """trapezoid(y, x=None, dx=1.0, axis=-1): 0.5 * (y[1:] + y[:-1]) * dx summed along the axis
    (an Add, two Muls per interval and a Sum: keras/src/backend/tensorflow/numpy.py, keras 3.15.1)."""
    y = _tensor(interp, b["y"], "trapezoid", node)
    if not isinstance(y, Tensor):
        return y
    if b["x"] is not None:
        return interp.unknown("keras.ops.trapezoid with sample points x is not modelled", node)
    axis = _axis(b["axis"], len(y.shape))
    if not isinstance(y.shape[axis], int) or y.shape[axis] < 1:
        return interp.unknown("keras.ops.trapezoid along a dimension of unknown or zero size", node)
    intervals = Tensor(y.shape[:axis] + (y.shape[axis] - 1,) + y.shape[axis + 1:], y.dtype)
    heights = f["mul"](interp, [Tensor((), y.dtype), f["add"](interp, [intervals, intervals], {}, node)], {}, node)
    areas = f["mul"](interp, [heights, Tensor((), y.dtype)], {}, node)
    return _record(framework, interp, "reduce", "trapezoid", {"op": "sum", "dim": axis, "keepdim": False},
                   [areas], [areas.shape], node, y.dtype)


def _logdet(framework, f, interp, b, node):
    """logdet(x): TensorFlow's tf.linalg.logdet, 2 * sum(log(diag(cholesky(x)))): a Cholesky
    factorization (kind linalg), a Log per diagonal element, a Sum and a Mul per matrix."""
    x = _tensor(interp, b["x"], "logdet", node)
    if not isinstance(x, Tensor):
        return x
    factor = _record(framework, interp, "linalg", "ops.logdet", {"op": "cholesky"}, [x], [x.shape], node, x.dtype)
    if not isinstance(factor, Tensor):
        return factor
    logs = f["log"](interp, [Tensor(factor.shape[:-1], x.dtype)], {}, node)
    total = _record(framework, interp, "reduce", "logdet", {"op": "sum", "dim": -1, "keepdim": False}, [logs],
                    [logs.shape], node, x.dtype)
    return f["mul"](interp, [Tensor((), x.dtype), total], {}, node)


def _allclose(framework, f, interp, b, node):
    """allclose(x1, x2, ...): Keras's TensorFlow backend tests |x1 - x2| <= atol + rtol * |x2|
    per element (isclose: kind pointwise, label isclose), ORs in x1 == x2 (an Equal per
    element), then reduce_all to one bool."""
    a, c = _tensor(interp, b["x1"], "allclose", node), _tensor(interp, b["x2"], "allclose", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return a if not isinstance(a, Tensor) else c
    if b["equal_nan"]:
        return interp.unknown("keras.ops.allclose with equal_nan=True is not modelled", node)
    close = _record(framework, interp, "pointwise", "isclose", {}, [a, c], [a.shape, c.shape], node, "bool")
    equal = f["eq"](interp, [a, c], {}, node)
    if not isinstance(close, Tensor) or not isinstance(equal, Tensor):
        return close if not isinstance(close, Tensor) else equal
    return _record(framework, interp, "reduce", "allclose", {"op": "all", "dim": None, "keepdim": False}, [equal],
                   [equal.shape], node, "bool")


def _cdist(framework, f, interp, b, node):
    """cdist(x (..., P, M), y (..., R, M)): sqrt(sum((x[..., :, None, :] - y[..., None, :, :])
    ** 2, -1)): a Sub and a Square per (P, R, M) element, a Sum and a Sqrt per distance
    (keras/src/backend/tensorflow/math.py, keras 3.15.1)."""
    a, c = _tensor(interp, b["x"], "cdist", node), _tensor(interp, b["y"], "cdist", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return a if not isinstance(a, Tensor) else c
    if len(a.shape) < 2 or len(c.shape) < 2:
        raise ShapeError("cdist expects inputs of rank at least 2")
    rows = Tensor(a.shape[:-1] + (1,) + a.shape[-1:], a.dtype)
    columns = Tensor(c.shape[:-2] + (1,) + c.shape[-2:], c.dtype)
    squares = f["square"](interp, [f["sub"](interp, [rows, columns], {}, node)], {}, node)
    if not isinstance(squares, Tensor):
        return squares
    total = _record(framework, interp, "reduce", "cdist", {"op": "sum", "dim": -1, "keepdim": False}, [squares],
                    [squares.shape], node, a.dtype)
    return f["sqrt"](interp, [total], {}, node)


_CONV_TAIL = "strides=1, padding='valid', data_format=None, dilation_rate=1"

# name -> (signature, composite)
COMPOSITES = {
    "outer": (_X1_X2, _outer), "glu": ("x, axis=-1", _glu), "diff": ("a, n=1, axis=-1", _diff),
    "norm": ("x, ord=None, axis=None, keepdims=False", _norm),
    "rms_normalization": ("x, scale=None, axis=-1, epsilon=None", _rms_normalization),
    "normalize": ("x, axis=-1, order=2, epsilon=None", _normalize),
    "max_pool": ("inputs, pool_size, strides=None, padding='valid', data_format=None", _pool("max_pool")),
    "average_pool": ("inputs, pool_size, strides=None, padding='valid', data_format=None", _pool("avg_pool")),
    "adaptive_average_pool": ("inputs, output_size, data_format=None", _adaptive_pool("adaptive_average_pool")),
    "adaptive_max_pool": ("inputs, output_size, data_format=None", _adaptive_pool("adaptive_max_pool")),
    "sort": ("x, axis=-1", _sorting("sort")), "argsort": ("x, axis=-1", _sorting("argsort")),
    "take_along_axis": ("x, indices, axis=None", _take_along_axis_op),
    "moments": ("x, axes, keepdims=False, synchronized=False", _moments),
    "meshgrid": ("*x, indexing='xy'", _meshgrid), "vdot": (_X1_X2, _vdot), "vander": ("x, N=None", _vander),
    "saturate_cast": ("x, dtype", _saturate_cast),
    "logdet": ("x", _logdet), "cdist": ("x, y", _cdist),
    "allclose": ("x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False", _allclose), "trapezoid": ("y, x=None, dx=1.0, axis=-1", _trapezoid),
    "nancumsum": ("x, axis=None, dtype=None", _nan_cumulative("cumsum")),
    "nancumprod": ("x, axis=None, dtype=None", _nan_cumulative("cumprod")),
    "multi_hot": ("inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs", _multi_hot),
    "batch_normalization": ("x, mean, variance, axis, offset=None, scale=None, epsilon=0.001", _batch_normalization),
    "depthwise_conv": (f"inputs, kernel, {_CONV_TAIL}", _conv_family("depthwise_conv")),
    "separable_conv": (f"inputs, depthwise_kernel, pointwise_kernel, {_CONV_TAIL}", _conv_family("separable_conv")),
    "conv_transpose": ("inputs, kernel, strides=1, padding='valid', output_padding=None, data_format=None, dilation_rate=1",
                       _conv_family("conv_transpose")),
}
