"""``keras.ops`` functions as tables: one line per function, naming its op kind and Keras's
signature.  The shapes come from the kind's shape function, the costs from ``rules/*.yaml``
(the `tf-profiler` rules read the op's label, the Keras function name, where TensorFlow's
lowering of it is priced per function).

* ``POINTWISE``: elementwise math over broadcast inputs, recorded as kind ``pointwise`` (no
  multiply-accumulate; costs per label in the rule sets);
* ``SAME_KIND``: functions whose math is an existing kind's (``fabs`` is ``abs``);
* ``REDUCTIONS``: kind ``reduce``, ``op`` = the reduction's name;
* ``MOVEMENT``: data movement (flip, swapaxes, hstack, split, diag...): a new shape, no op;
* ``CONSTANTS``: new tensors built from Python numbers (windows, ``tri``, ``kron`` of
  constants): a shape, no op (TensorFlow folds them into constants, the profiler counts 0);
* ``COMPOSITES`` (frontend/keras/op_composites.py): functions made of existing kinds;
* ``KIND_OPS`` (frontend/keras/op_kinds.py): functions that are one existing kind (det is
  ``linalg``, searchsorted ``search``...);
* ``LOWERINGS``, ``LOSSES``, ``SIGNALS`` (frontend/keras/op_lowerings.py, op_losses.py,
  op_signals.py): quantiles, SVD-based linear algebra, linspace..., the losses, stft/istft/fold...
  built from existing kinds as the TensorFlow backend builds them.

Only ``keras.ops`` uses these (numpy semantics); TensorFlow namesakes differ.
"""

from __future__ import annotations

from staticflops.frontend.keras.graph import tensors_in
from staticflops.frontend.keras.op_composites import COMPOSITES, _axis
from staticflops.frontend.keras.op_kinds import KIND_OPS, kind_op
from staticflops.frontend.keras.op_losses import LOSSES
from staticflops.frontend.keras.op_lowerings import LOWERINGS
from staticflops.frontend.keras.op_signals import SIGNALS
from staticflops.frontend.values import Tensor, Unknown
from staticflops.shapes import tensor_ops as shape_ops
from staticflops.shapes.einops_patterns import transform as einops_transform
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError

_X = "x"
_X1_X2 = "x1, x2"

# name -> (signature, output dtype: None keeps the first input's, else the dtype)
POINTWISE = {
    **{name: (_X, "float32") for name in (
        "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cosh", "sinh", "tan", "angle", "cbrt",
        "deg2rad", "rad2deg", "erfc", "erfinv", "exp2", "expm1", "log10", "log1p", "log2", "log_sigmoid", "i0",
        "sinc", "reciprocal", "sparse_plus", "sparse_sigmoid", "squareplus", "tanh_shrink")},
    "hard_shrink": ("x, threshold=0.5", None), "soft_shrink": ("x, threshold=0.5", None),
    "trunc": (_X, None), "nan_to_num": ("x, nan=0.0, posinf=None, neginf=None", None),
    "threshold": ("x, threshold, default_value", None),
    **{name: (_X, "bool") for name in ("isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "signbit")},
    **{name: (_X, None) for name in ("bitwise_invert", "bitwise_not")},
    **{name: (_X1_X2, None) for name in (
        "arctan2", "divide_no_nan", "floor_divide", "fmod", "mod", "heaviside", "hypot", "logaddexp", "logaddexp2",
        "nextafter", "gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
        "bitwise_right_shift", "left_shift", "right_shift")},
    # cross of 3-vectors: products and differences, which TensorFlow's Cross op does without a profiler formula
    "cross": ("x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None", None),
    "ldexp": (_X1_X2, "float32"), "isclose": ("x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False", "bool"),
}

# name -> (the PyTorch-model function with the same math, signature, its attributes)
SAME_KIND = {
    "absolute": ("abs", _X), "fabs": ("abs", _X), "square": ("square", _X), "fmax": ("maximum", _X1_X2),
    "fmin": ("minimum", _X1_X2), "polar": ("polar", "abs_, angle"), "celu": ("celu", "x, alpha=1.0"), "hard_tanh": ("hardtanh", _X),
    **{name: (name, _X) for name in ("sin", "cos", "ceil", "floor", "sign")}, "round": ("round", "x, decimals=0"),
}

# name -> (reduce op, signature, output dtype: None keeps the input's)
REDUCTIONS = {
    "all": ("all", "x, axis=None, keepdims=False", "bool"), "any": ("any", "x, axis=None, keepdims=False", "bool"),
    "amax": ("amax", "x, axis=None, keepdims=False", None), "amin": ("amin", "x, axis=None, keepdims=False", None),
    "nanmax": ("amax", "x, axis=None, keepdims=False", None), "nanmin": ("amin", "x, axis=None, keepdims=False", None),
    "prod": ("prod", "x, axis=None, keepdims=False, dtype=None", None),
    "nanprod": ("prod", "x, axis=None, keepdims=False", None),
    "nansum": ("sum", "x, axis=None, keepdims=False", None),
    "average": ("mean", "x, axis=None, weights=None", None),
    "nanmean": ("nanmean", "x, axis=None, keepdims=False", None),
    "count_nonzero": ("count_nonzero", "x, axis=None", "int32"),
    "std": ("std", "x, axis=None, keepdims=False", None), "var": ("var", "x, axis=None, keepdims=False", None),
    "nanstd": ("nanstd", "x, axis=None, keepdims=False", None), "nanvar": ("nanvar", "x, axis=None, keepdims=False", None),
    "logsumexp": ("logsumexp", "x, axis=None, keepdims=False", None),
    "argmax": ("argmax", "x, axis=None, keepdims=False", "int32"),
    "argmin": ("argmin", "x, axis=None, keepdims=False", "int32"),
    "nanargmax": ("argmax", "x, axis=None, keepdims=False", "int32"),
    "nanargmin": ("argmin", "x, axis=None, keepdims=False", "int32"),
    "ptp": ("ptp", "x, axis=None, keepdims=False", None),
}


def _shape(value):
    """The shape of a tensor, a Python number or a nested list/tuple of numbers; None if unknown."""
    if isinstance(value, Tensor):
        return value.shape
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return ()
    if isinstance(value, (list, tuple)):
        inner = {_shape(v) for v in value}
        if len(inner) == 1 and None not in inner:
            return (len(value),) + inner.pop()
        return (0,) if not value else None
    return None


# ---- data movement: (bound arguments) -> output shape(s); ShapeError on a bad argument ----------
def _flip(b):
    return b["x"].shape


def _swapaxes(b):
    shape = list(b["x"].shape)
    i, j = _axis(b["axis1"], len(shape)), _axis(b["axis2"], len(shape))
    shape[i], shape[j] = shape[j], shape[i]
    return tuple(shape)


def _moveaxis(b):
    shape = list(b["x"].shape)
    sources = b["source"] if isinstance(b["source"], (list, tuple)) else [b["source"]]
    targets = b["destination"] if isinstance(b["destination"], (list, tuple)) else [b["destination"]]
    sources = [_axis(s, len(shape)) for s in sources]
    targets = [_axis(t, len(shape)) for t in targets]
    order = [d for d in range(len(shape)) if d not in sources]
    for target, source in sorted(zip(targets, sources)):
        order.insert(target, source)
    return tuple(shape[d] for d in order)


def _rot90(b):
    shape = list(b["x"].shape)
    i, j = (_axis(a, len(shape)) for a in b["axes"])
    if b["k"] % 2:
        shape[i], shape[j] = shape[j], shape[i]
    return tuple(shape)


def _append(b):
    if b["axis"] is None:
        return (numel(b["x1"].shape) + numel(b["x2"].shape),)
    return shape_ops.concatenate([b["x1"].shape, b["x2"].shape], b["axis"])


def _stacked(axis_for, promote):
    """hstack / vstack / dstack: each input promoted to a rank, joined along an axis."""
    def shape(b):
        shapes = [promote(t.shape) for t in b["xs"]]
        return shape_ops.concatenate(shapes, axis_for(shapes[0]))
    return shape


def _at_least_2d(s):
    return s if len(s) >= 2 else (1,) * (2 - len(s)) + tuple(s)


def _at_least_3d(s):
    """numpy.atleast_3d: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return tuple(s) if len(s) >= 3 else (1, 1, 1) if not s else (1, s[0], 1) if len(s) == 1 else tuple(s) + (1,)


def _split(axis_of):
    """array_split / hsplit / vsplit / dsplit: sections or indices along an axis."""
    def shape(b):
        x = b["x"].shape
        axis = _axis(axis_of(b, x), len(x))
        cut = b["indices_or_sections"]
        size = x[axis]
        if isinstance(cut, int) and not isinstance(cut, bool):
            if cut <= 0 or not isinstance(size, int):
                raise ShapeError(f"cannot split a size of {size} into {cut} sections")
            base, extra = divmod(size, cut)
            sizes = [base + 1] * extra + [base] * (cut - extra)
        elif isinstance(cut, (list, tuple)) and all(isinstance(i, int) for i in cut) and isinstance(size, int):
            bounds = [0] + [min(max(i, 0), size) for i in cut] + [size]
            sizes = [max(0, b2 - b1) for b1, b2 in zip(bounds, bounds[1:])]
        else:
            raise ShapeError("split sections that are not numbers")
        return [tuple(size if d != axis else n for d, size in enumerate(x)) for n in sizes]
    return shape


def _unstack(b):
    x = b["x"].shape
    axis = _axis(b["axis"], len(x))
    count = x[axis]
    if not isinstance(count, int):
        raise ShapeError("unstack along a dimension of unknown size")
    return [x[:axis] + x[axis + 1:]] * count


def _diag(b):
    x, k = b["x"].shape, b["k"]
    if len(x) == 1:
        n = x[0] + abs(k)
        return (n, n)
    if len(x) == 2 and isinstance(x[0], int) and isinstance(x[1], int):
        rows, cols = (x[0], x[1] - k) if k >= 0 else (x[0] + k, x[1])
        return (max(0, min(rows, cols)),)
    raise ShapeError(f"diag expects a 1-D or 2-D input, got rank {len(x)}")


def _diagflat(b):
    n = numel(b["x"].shape) + abs(b["k"])
    return (n, n)


def _diagonal(b):
    x = b["x"].shape
    i, j = _axis(b["axis1"], len(x)), _axis(b["axis2"], len(x))
    offset = b["offset"]
    if not (isinstance(x[i], int) and isinstance(x[j], int)):
        raise ShapeError("diagonal of dimensions of unknown size")
    rows, cols = (x[i], x[j] - offset) if offset >= 0 else (x[i] + offset, x[j])
    return tuple(d for n, d in enumerate(x) if n not in (i, j)) + (max(0, min(rows, cols)),)


def _pad(b):
    x, width = b["x"].shape, b["pad_width"]
    if isinstance(width, int):
        pairs = [(width, width)] * len(x)
    elif len(width) == 2 and all(isinstance(v, int) for v in width):
        pairs = [tuple(width)] * len(x)
    elif len(width) == 1:
        pairs = [tuple(width[0])] * len(x)
    else:
        pairs = [tuple(pair) for pair in width]
    if len(pairs) != len(x) or any(len(pair) != 2 for pair in pairs):
        raise ShapeError(f"pad widths {width!r} do not fit a rank-{len(x)} tensor")
    return tuple(d + before + after for d, (before, after) in zip(x, pairs))


def _space(to_depth):
    """depth_to_space / space_to_depth(x, block_size, data_format='channels_last') on 4-D tensors."""
    def shape(b):
        x, k = b["x"].shape, b["block_size"]
        if len(x) != 4:
            raise ShapeError(f"expects a 4-D tensor, got rank {len(x)}")
        last = (b["data_format"] or "channels_last") == "channels_last"
        n, h, w, c = (x[0], x[1], x[2], x[3]) if last else (x[0], x[2], x[3], x[1])
        if to_depth:
            h, w, c = h // k, w // k, c * k * k
        else:
            if isinstance(c, int) and c % (k * k):
                raise ShapeError(f"{c} channels are not a multiple of block_size squared ({k * k})")
            h, w, c = h * k, w * k, c // (k * k)
        return (n, h, w, c) if last else (n, c, h, w)
    return shape


def _get_item(b):
    x, key = b["x"].shape, b["key"]
    if isinstance(key, bool) or not isinstance(key, int) or not x:
        raise ShapeError("keras.ops.get_item with a key other than an int is not modelled")
    return x[1:]


def _select(b):
    shapes = [t.shape for t in tensors_in([b["condlist"], b["choicelist"], b["default"]])]
    return shape_ops.broadcast(*shapes)


def _scatter_update(b):
    if b["reduction"] is not None:  # a scatter that adds or multiplies: arithmetic, not measured
        raise ShapeError("scatter_update with a reduction is not modelled")
    return b["inputs"].shape


def _rearrange(b):
    """einops' rearrange pattern (shapes/einops_patterns.py): a reshape and a transpose."""
    if not isinstance(b["pattern"], str):
        raise ShapeError("rearrange with a pattern that is not a string")
    # a bad pattern raises PatternError, a ShapeError: a located unknown
    return einops_transform(b["tensor"].shape, b["pattern"], "rearrange", dict(b["axes_lengths"])).output


# name -> (signature, shape function of the bound arguments).  The first tensor's dtype is kept.
MOVEMENT = {
    "flip": ("x, axis=None", _flip), "fliplr": (_X, _flip), "flipud": (_X, _flip), "roll": ("x, shift, axis=None", _flip),
    "swapaxes": ("x, axis1, axis2", _swapaxes), "moveaxis": ("x, source, destination", _moveaxis),
    "rot90": ("array, k=1, axes=(0, 1)", lambda b: _rot90({**b, "x": b["array"]})),
    "ravel": (_X, lambda b: (numel(b["x"].shape),)), "append": ("x1, x2, axis=None", _append),
    "hstack": ("xs", _stacked(lambda s: 0 if len(s) == 1 else 1, tuple)),
    "vstack": ("xs", _stacked(lambda s: 0, _at_least_2d)),
    "dstack": ("xs", _stacked(lambda s: 2, _at_least_3d)),
    "array_split": ("x, indices_or_sections, axis=0", _split(lambda b, x: b["axis"])),
    "hsplit": ("x, indices_or_sections", _split(lambda b, x: 0 if len(x) == 1 else 1)),
    "vsplit": ("x, indices_or_sections", _split(lambda b, x: 0)),
    "dsplit": ("x, indices_or_sections", _split(lambda b, x: 2)),
    "unstack": ("x, num=None, axis=0", _unstack),
    "diag": ("x, k=0", _diag), "diagflat": ("x, k=0", _diagflat),
    "diagonal": ("x, offset=0, axis1=0, axis2=1", _diagonal),
    "view_as_real": (_X, lambda b: tuple(b["x"].shape) + (2,)), "imag": (_X, _flip),  # of a real tensor: 0s
    "unravel_index": ("indices, shape", lambda b: [b["indices"].shape] * len(b["shape"])),
    "broadcast_to": ("x, shape", lambda b: shape_ops.broadcast(b["x"].shape, tuple(b["shape"]))),
    "pad": ("x, pad_width, mode='constant', constant_values=None", _pad),
    "slice": ("inputs, start_indices, shape", lambda b: tuple(b["shape"])),
    "depth_to_space": ("x, block_size, data_format='channels_last'", _space(False)),
    "space_to_depth": ("x, block_size, data_format='channels_last'", _space(True)),
    "get_item": ("x, key", _get_item), "slice_update": ("inputs, start_indices, updates", lambda b: b["inputs"].shape),
    # the updated copy: TensorScatterUpdate, which the profiler does not count
    "scatter_update": ("inputs, indices, updates, reduction=None", _scatter_update),
    "rearrange": ("tensor, pattern, **axes_lengths", _rearrange),
    # the choice per element is a Select, which the profiler does not count (the conditions are ops of their own)
    "select": ("condlist, choicelist, default=0", _select),
}
# Functions whose output size depends on the tensor's values: their own message.
DATA_DEPENDENT = ("nonzero", "unique", "bincount", "argwhere")
# Returns its argument (a copy or a view of a real tensor): no op.
PASSTHROUGH = {"copy": _X, "array": "x, dtype=None", "conj": _X, "conjugate": _X, "real": _X, "view": "x, dtype=None"}


# ---- constants: (bound arguments) -> shape --------------------------------------------------
def _window(b):
    size = b["x"]
    # Keras converts M to a tensor: a one-element sequence is that number (``bartlett((8,))``).
    if isinstance(size, (list, tuple)) and len(size) == 1:
        size = size[0]
    return (size,)


def _tri(b):
    return (b["N"], b["N"] if b["M"] is None else b["M"])


def _kron(b):
    a, c = _shape(b["x1"]), _shape(b["x2"])
    if a is None or c is None:
        raise ShapeError("kron of operands of unknown shape")
    rank = max(len(a), len(c))
    a, c = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(c)) + tuple(c)
    return tuple(p * q for p, q in zip(a, c))


def _isin(b):
    shape = _shape(b["x1"])
    if shape is None:
        raise ShapeError("isin of an operand of unknown shape")
    return shape


# name -> (signature, shape function, dtype)
CONSTANTS = {
    **{name: (_X, _window, "float32") for name in ("bartlett", "blackman", "hamming", "hanning")},
    "kaiser": ("x, beta", _window, "float32"),
    "tri": ("N, M=None, k=0, dtype=None", _tri, "float32"),
    "kron": (_X1_X2, _kron, "float32"),
    "isin": ("x1, x2, assume_unique=False, invert=False", _isin, "bool"),
    "scatter": ("indices, values, shape", lambda b: tuple(b["shape"]), "float32"),
}


def build_table_ops(framework, f: dict) -> dict:
    """name -> fn(interp, args, kwargs, node) for every function of the tables above."""
    out = {}
    for name, (signature, dtype) in POINTWISE.items():
        out[name] = _pointwise(framework, name, signature, dtype)
    for name, (target, signature) in SAME_KIND.items():
        out[name] = _same_kind(f, name, target, signature)
    for name, (op, signature, dtype) in REDUCTIONS.items():
        out[name] = _reduction(framework, name, op, signature, dtype)
    for name, (signature, shape) in MOVEMENT.items():
        out[name] = _movement(name, signature, shape)
    for name, signature in PASSTHROUGH.items():
        out[name] = _passthrough(name, signature)
    for name, (signature, shape, dtype) in CONSTANTS.items():
        out[name] = _constant(name, signature, shape, dtype)
    for name in DATA_DEPENDENT:
        out[name] = _data_dependent(name)
    for name, (signature, composite) in {**COMPOSITES, **LOWERINGS, **LOSSES, **SIGNALS}.items():
        out[name] = _composite(framework, f, name, signature, composite)
    for name, (signature, kind, configure, dtype, pick) in KIND_OPS.items():
        out[name] = kind_op(framework, name, signature, kind, configure, dtype, pick)
    out["gelu"] = _gelu(f)
    return out


def _bind(interp, name, signature, args, kwargs, node):
    return interp.bind_signature(signature, f"keras.ops.{name}", list(args), dict(kwargs), node)


def _tensor_args(bound: dict, names) -> list:
    return [bound[n] for n in names if isinstance(bound.get(n), Tensor)]


def _pointwise(framework, name, signature, dtype):
    operands = [p.strip() for p in signature.split(",")[:2] if "=" not in p and p.strip() in ("x", "x1", "x2")]

    def fn(interp, args, kwargs, node):
        bound = _bind(interp, name, signature, args, kwargs, node)
        values = [bound[n] for n in operands]
        if any(isinstance(v, Unknown) for v in values):
            return next(v for v in values if isinstance(v, Unknown))
        shapes = [framework.ops.shape_of(interp, v, node) for v in values]
        first = next((v for v in values if isinstance(v, Tensor)), None)
        with framework.ops.arguments(_tensor_args(bound, operands)):
            return framework.ops.record(interp, "pointwise", name, {}, shapes, node,
                                        dtype=dtype or (first.dtype if first is not None else "float32"))
    return fn


def _same_kind(f, name, target, signature):
    def fn(interp, args, kwargs, node):
        bound = _bind(interp, name, signature, args, kwargs, node)
        tensors = [bound[n] for n in ("x", "x1", "x2", "abs_", "angle") if n in bound]
        return f[target](interp, tensors, {}, node)
    return fn


def _reduction(framework, name, op, signature, dtype):
    def fn(interp, args, kwargs, node):
        bound = _bind(interp, name, signature, args, kwargs, node)
        x = bound["x"]
        if bound.get("weights") is not None:
            return interp.unknown(f"keras.ops.{name} with weights is not modelled", node)
        axis = bound["axis"]
        axis = tuple(axis) if isinstance(axis, list) else axis
        attrs = {"op": op, "dim": axis, "keepdim": bool(bound.get("keepdims", False))}
        shape = framework.ops.shape_of(interp, x, node)
        with framework.ops.arguments([x] if isinstance(x, Tensor) else []):
            return framework.ops.record(interp, "reduce", name, attrs, [shape], node,
                                        dtype=dtype or (x.dtype if isinstance(x, Tensor) else "float32"))
    return fn


def _movement(name, signature, shape_fn):
    def fn(interp, args, kwargs, node):
        bound = _bind(interp, name, signature, args, kwargs, node)
        tensors = tensors_in(list(bound.values()))
        if "xs" in bound:
            tensors = [v for v in bound["xs"] if isinstance(v, Tensor)] if isinstance(bound["xs"], (list, tuple)) else []
            if not tensors or len(tensors) != len(bound["xs"]):
                return interp.unknown(f"keras.ops.{name} of a sequence that is not all tensors", node)
        if not tensors or any(t.shape is None for t in tensors):
            return interp.unknown(f"keras.ops.{name} of a tensor of unknown shape", node)
        try:
            shape = shape_fn(bound)
        except (ShapeError, TypeError, ValueError, IndexError) as error:
            return interp.unknown(f"keras.ops.{name}: {error}", node)
        dtype = tensors[0].dtype
        if isinstance(shape, list):
            return [Tensor(s, dtype) for s in shape]
        return Tensor(shape, dtype)
    return fn


def _passthrough(name, signature):
    def fn(interp, args, kwargs, node):
        bound = _bind(interp, name, signature, args, kwargs, node)
        x = bound["x"]
        if bound.get("dtype") is not None and isinstance(x, Tensor):
            dtype = bound["dtype"]
            if not isinstance(dtype, str):
                return interp.unknown(f"keras.ops.{name} to a dtype that is not a name", node)
            return Tensor(x.shape, dtype)
        return x
    return fn


def _constant(name, signature, shape_fn, dtype):
    def fn(interp, args, kwargs, node):
        bound = _bind(interp, name, signature, args, kwargs, node)
        if any(isinstance(v, Unknown) for v in bound.values()):
            return next(v for v in bound.values() if isinstance(v, Unknown))
        try:
            shape = tuple(shape_fn(bound))
        except (ShapeError, TypeError, ValueError) as error:
            return interp.unknown(f"keras.ops.{name}: {error}", node)
        if any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in shape):
            return interp.unknown(f"keras.ops.{name}: the size is not a known non-negative number", node)
        wanted = bound.get("dtype")
        return Tensor(shape, wanted if isinstance(wanted, str) else dtype)
    return fn


def _composite(framework, f, name, signature, composite):
    def fn(interp, args, kwargs, node):
        bound = _bind(interp, name, signature, args, kwargs, node)
        unknown = next((v for v in bound.values() if isinstance(v, Unknown)), None)
        if unknown is not None:
            return unknown
        try:
            return composite(framework, f, interp, bound, node)
        except (ShapeError, TypeError) as error:
            return interp.unknown(f"keras.ops.{name}: {error}", node)
    return fn


def _data_dependent(name):
    def fn(interp, args, kwargs, node):
        return interp.unknown(f"keras.ops.{name}: the output shape depends on the tensor's values", node)
    return fn


def _gelu(f):
    """``keras.ops.gelu(x, approximate=True)``: unlike keras.activations.gelu and tf.nn.gelu, the
    tanh approximation by default (keras/src/ops/nn.py, keras 3.15.1)."""
    def fn(interp, args, kwargs, node):
        bound = {"approximate": True, **dict(zip(("x", "approximate"), args)), **kwargs}
        if not isinstance(bound["approximate"], bool):
            return interp.unknown("keras.ops.gelu with an approximate= that is not True or False", node)
        return f["gelu"](interp, [bound["x"]], {"approximate": "tanh" if bound["approximate"] else "none"}, node)
    return fn
