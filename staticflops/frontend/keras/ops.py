"""``keras.ops``, ``keras.activations``, ``tf.*``/``tf.nn.*``/``tf.math.*`` on symbolic tensors.

Each is the PyTorch-model function with the same math (torch/functions.py) under Keras's
argument names (``axis`` for ``dim``, ``keepdims`` for ``keepdim``).  Results on KerasTensors
become graph nodes, so Functional models can use raw ops between layers.
"""

from __future__ import annotations

import math

from staticflops.frontend.keras.graph import KerasTensor, adopt, keep_in_graph, tensors_in, unknown_shape
from staticflops.frontend.keras.layers import ACTIVATIONS
from staticflops.frontend.values import Builtin, Tensor, Unknown
from staticflops.shapes.expr import Expr


def graph_op(name: str, fn) -> Builtin:
    """A function whose results on KerasTensors are recorded as graph nodes."""
    builtin = None

    def call(interp, args, kwargs, node):
        tensors = tensors_in([args, kwargs])
        if name != "shape" and any(unknown_shape(t) for t in tensors):  # after an unmodelled op: reported there
            return adopt(Tensor(None), builtin, args, kwargs, node)
        result = keep_in_graph(interp, fn(interp, args, kwargs, node), tensors)
        if any(isinstance(t, KerasTensor) for t in tensors):
            return adopt(result, builtin, args, kwargs, node)
        return result
    builtin = Builtin(name, call, bind_self=False)
    return builtin


# Keras's TensorFlow backend runs these einsums (letters renamed in order of appearance) as
# matmuls, which TensorFlow's profiler counts; any other (an ellipsis included) as an Einsum
# op, which it does not.  Read from keras/src/backend/tensorflow/numpy.py (keras 3.15.1).
TF_MATMUL_EINSUMS = frozenset({
    "a,b->ab", "ab,b->a", "ab,bc->ac", "ab,cb->ac", "abc,cd->abd", "abc,dc->abd", "abcd,abde->abce",
    "abcd,abed->abce", "abcd,acbe->adbe", "abcd,adbe->acbe", "abcd,aecd->acbe", "abcd,aecd->aceb",
    "abc,cde->abde", "abc,dce->abde", "abc,dec->abde", "abcd,cde->abe", "abcd,ced->abe", "abcd,ecd->abe",
    "abcde,aebf->adbcf", "abcde,afce->acdbf"})


def _normalized(equation: str) -> str:
    letters: dict = {}
    for c in equation:
        if c.isascii() and c.isalpha() and c not in letters:
            letters[c] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[len(letters)]
    return "".join(letters.get(c, c) for c in equation.replace(" ", ""))


def keras_einsum(interp, framework, equation, operands: list, node, explicit=None, tf_matmul=None):
    """``ops.einsum`` as Keras runs it: one einsum op, labelled ``tf.einsum`` when TensorFlow
    would not run it as a matmul (the `tf-profiler` rule set reads the label).  ``explicit``:
    the same equation with its ellipsis spelled out, for our einsum; ``tf_matmul``: whether
    TensorFlow runs it as a matmul, when that is not Keras's einsum deciding (tf.einsum direct)."""
    tracer = framework.tracer
    before = len(tracer.ops)
    result = framework.functions["einsum"](interp, [explicit or equation, *operands], {}, node)
    if tf_matmul is None:
        tf_matmul = isinstance(equation, str) and _normalized(equation) in TF_MATMUL_EINSUMS
    if len(tracer.ops) == before + 1 and not tf_matmul:
        tracer.ops[-1].label = "tf.einsum"
    return result


def repeat(interp, framework, x, repeats, axis, node):
    """``keras.ops.repeat(x, repeats, axis=None)``: a copy, recorded as kind ``repeat`` (its
    TensorFlow lowering, tf.repeat, does one scalar multiply the profiler counts)."""
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 0:
        return interp.unknown("keras.ops.repeat with repeats that are not a non-negative int "
                              "(the size depends on the values)", node)
    shape = framework.ops.shape_of(interp, x, node)
    with framework.ops.arguments([x]):
        return framework.ops.record(interp, "repeat", "repeat", {"repeats": repeats, "dim": axis}, [shape], node,
                                    dtype=x.dtype)


def dot_product_attention(interp, framework, query, key, value, node, bias=None, mask=None, scale=None,
                          is_causal=False):
    """``keras.ops.dot_product_attention`` on (B, T, N, H) query and (B, S, K, H) key/value, as
    Keras's TensorFlow backend computes it: key/value heads repeated to N, logits by tf.einsum,
    times the scale (1/sqrt(H) by default), + bias, masked, softmax, tf.einsum with the values."""
    f = framework.functions
    shapes = [t.shape if isinstance(t, Tensor) else None for t in (query, key, value)]
    if any(s is None or len(s) != 4 for s in shapes):
        return interp.unknown("dot_product_attention expects 4-D query, key and value of known shape", node)
    heads, kv_heads = shapes[0][2], shapes[1][2]
    if isinstance(heads, int) and isinstance(kv_heads, int) and heads > kv_heads > 1:
        key = repeat(interp, framework, key, heads // kv_heads, 2, node)
        value = repeat(interp, framework, value, heads // kv_heads, 2, node)
    logits = keras_einsum(interp, framework, "btnh,bsnh->bnts", [query, key], node, tf_matmul=False)
    if scale is None:  # 1 / sqrt(H), computed in the graph: a square root and a division
        scale = f["div"](interp, [Tensor((), "float32"), f["sqrt"](interp, [Tensor((), "float32")], {}, node)], {}, node)
    logits = f["mul"](interp, [logits, scale], {}, node)
    if bias is not None:
        logits = f["add"](interp, [logits, bias], {}, node)
    if is_causal or mask is not None:
        logits = f["where"](interp, [Tensor(logits.shape, "bool"), logits, logits], {}, node)
    probs = f["softmax"](interp, [logits], {"dim": -1}, node)
    return keras_einsum(interp, framework, "bnts,bsnh->btnh", [probs, value], node, tf_matmul=False)


def unmodelled_op(qualified: str) -> Builtin:
    """A stand-in for a function we do not model (``keras.ops.cumsum``): each call is reported
    where it is written; on symbolic tensors its result is a tensor of unknown shape that stays
    in the model's graph, so the layers around it are still analysed."""
    builtin = None

    def call(interp, args, kwargs, node):
        unknown = interp.unknown(f"`{qualified}` is not modelled: its output and cost are unknown", node)
        if any(isinstance(t, KerasTensor) for t in tensors_in([args, kwargs])):
            return adopt(Tensor(None), builtin, args, kwargs, node)
        return unknown
    builtin = Builtin(qualified, call, bind_self=False)
    return builtin


def build_ops(torch_functions: dict, framework) -> dict:
    """name -> Builtin for keras.ops (also used for tf.* / tf.math.* / tf.nn.*)."""
    f = torch_functions
    ops: dict = {}

    def renamed(target, **names):
        def fn(interp, args, kwargs, node):
            return f[target](interp, list(args), {names.get(k, k): v for k, v in kwargs.items()}, node)
        return fn

    def axis_call(target, keep="keepdim"):
        def fn(interp, args, kwargs, node):
            kwargs = dict(kwargs)
            axis = kwargs.pop("axis", args[1] if len(args) > 1 else None)
            if isinstance(axis, list):
                axis = tuple(axis)
            keepdims = kwargs.pop("keepdims", args[2] if len(args) > 2 else False)
            return f[target](interp, [args[0]], {"dim": axis, keep: keepdims}, node)
        return fn

    def concatenate(interp, args, kwargs, node):
        axis = kwargs.get("axis", args[1] if len(args) > 1 else 0)
        return f["cat"](interp, [list(args[0])], {"dim": axis}, node)

    def stack(interp, args, kwargs, node):
        return f["stack"](interp, [list(args[0])], {"dim": kwargs.get("axis", args[1] if len(args) > 1 else 0)}, node)

    def transpose(interp, args, kwargs, node):
        x = args[0]
        axes = kwargs.get("axes", kwargs.get("perm", args[1] if len(args) > 1 else None))
        if axes is None:
            axes = list(reversed(range(len(x.shape))))
        return f["permute"](interp, [x, list(axes)], {}, node)

    def expand_dims(interp, args, kwargs, node):
        return f["unsqueeze"](interp, [args[0], kwargs.get("axis", args[1] if len(args) > 1 else None)], {}, node)

    def squeeze(interp, args, kwargs, node):
        return f["squeeze"](interp, [args[0]], {"dim": kwargs.get("axis", args[1] if len(args) > 1 else None)}, node)

    def reshape(interp, args, kwargs, node):
        shape = kwargs.get("newshape", kwargs.get("shape", args[1] if len(args) > 1 else None))
        shape = [-1 if d is None else d for d in shape] if isinstance(shape, (list, tuple)) else shape
        return f["reshape"](interp, [args[0], shape], {}, node)

    def shape(interp, args, kwargs, node):
        x = args[0]
        return tuple(x.shape) if isinstance(x, Tensor) and x.shape is not None else interp.unknown("shape of an unknown tensor", node)

    def passthrough(interp, args, kwargs, node):
        return args[0] if args else kwargs.get("x")

    def softmax(interp, args, kwargs, node):
        axis = kwargs.get("axis", args[1] if len(args) > 1 else -1)
        return f["softmax"](interp, [args[0]], {"dim": axis}, node)

    def positional(target, names, rename=None):
        """Keras's argument names bound in order, then passed under PyTorch's names."""
        rename = rename or {}

        def fn(interp, args, kwargs, node):
            bound = {**dict(zip(names, args)), **kwargs}
            first = bound.pop(names[0])
            return f[target](interp, [first], {rename.get(k, k): v for k, v in bound.items() if k in rename}, node)
        return fn

    def cumulative(target):
        def fn(interp, args, kwargs, node):
            bound = {"axis": None, **dict(zip(("x", "axis", "dtype"), args)), **kwargs}
            x = bound["x"]
            if bound["axis"] is None:  # numpy's default: along the flattened input
                x = f["flatten"](interp, [x], {}, node)
                if not isinstance(x, Tensor):
                    return x
            return f[target](interp, [x], {"dim": 0 if bound["axis"] is None else bound["axis"]}, node)
        return fn

    def comparison(target):
        def fn(interp, args, kwargs, node):
            bound = {**dict(zip(("x1", "x2"), args)), **kwargs}
            return f[target](interp, [bound["x1"], bound["x2"]], {}, node)
        return fn

    def where(interp, args, kwargs, node):
        bound = {"x1": None, "x2": None, **dict(zip(("condition", "x1", "x2"), args)), **kwargs}
        if bound["x1"] is None or bound["x2"] is None:  # the indices of the true elements
            return interp.unknown("keras.ops.where(condition) without x1 and x2: the size depends on the values",
                                  node)
        return f["where"](interp, [bound["condition"], bound["x1"], bound["x2"]], {}, node)

    def split(interp, args, kwargs, node):
        bound = {"indices_or_sections": 2, "axis": 0, **dict(zip(("x", "indices_or_sections", "axis"), args)), **kwargs}
        cut = bound["indices_or_sections"]
        return list(f["tensor_split"](interp, [bound["x"], list(cut) if isinstance(cut, (list, tuple)) else cut],
                                      {"dim": bound["axis"]}, node))

    def one_hot(interp, args, kwargs, node):
        bound = {"axis": -1, "dtype": None, **dict(zip(("x", "num_classes", "axis", "dtype"), args)), **kwargs}
        if bound["axis"] != -1:
            return interp.unknown("keras.ops.one_hot with an axis other than -1 is not modelled", node)
        result = f["one_hot"](interp, [bound["x"], bound["num_classes"]], {}, node)
        dtype = bound["dtype"] if isinstance(bound["dtype"], str) else "float32"  # Keras's floatx
        return Tensor(result.shape, dtype) if isinstance(result, Tensor) else result

    def top_k(interp, args, kwargs, node):
        bound = {**dict(zip(("x", "k", "sorted"), args)), **kwargs}
        return tuple(f["topk"](interp, [bound["x"], bound["k"]], {}, node))

    def dot(interp, args, kwargs, node):
        bound = {**dict(zip(("x1", "x2"), args)), **kwargs}
        a, b = bound["x1"], bound["x2"]
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a.shape is not None and b.shape is not None \
                and len(a.shape) <= 2 and len(b.shape) <= 2 and a.shape and b.shape:
            return f["matmul"](interp, [a, b], {}, node)  # numpy's dot is matmul up to rank 2
        if any(isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, Tensor) and v.shape == ()
               for v in (a, b)):
            return f["mul"](interp, [a, b], {}, node)  # numpy: a dot with a scalar is a multiply
        return interp.unknown("keras.ops.dot of tensors of rank above 2 is not modelled", node)

    def tensordot(interp, args, kwargs, node):
        """A contraction over the given axes, written as the einsum it is."""
        bound = {"axes": 2, **dict(zip(("x1", "x2", "axes"), args)), **kwargs}
        a, b, axes = bound["x1"], bound["x2"], bound["axes"]
        if not (isinstance(a, Tensor) and isinstance(b, Tensor) and a.shape is not None and b.shape is not None):
            return interp.unknown("keras.ops.tensordot of tensors of unknown shape", node)
        ra, rb = len(a.shape), len(b.shape)
        if isinstance(axes, int):
            pairs = list(zip(range(ra - axes, ra), range(axes)))
        elif isinstance(axes, (list, tuple)) and len(axes) == 2:
            left, right = ([v] if isinstance(v, int) else list(v) for v in axes)
            pairs = [(i % ra, j % rb) for i, j in zip(left, right)]
        else:
            return interp.unknown(f"keras.ops.tensordot axes={axes!r} is not modelled", node)
        letters = iter("abcdefghijklmnopqrstuvwxyz")
        left = [next(letters) for _ in range(ra)]
        right = [next(letters) for _ in range(rb)]
        for i, j in pairs:
            right[j] = left[i]
        contracted = {left[i] for i, _ in pairs}
        out = [c for c in left if c not in contracted] + [c for j, c in enumerate(right) if j not in {j for _, j in pairs}]
        return f["einsum"](interp, [f"{''.join(left)},{''.join(right)}->{''.join(out)}", a, b], {}, node)

    def constant(interp, args, kwargs, node):
        """zeros / ones / empty(shape, dtype): a new tensor, no arithmetic."""
        bound = {"dtype": None, **dict(zip(("shape", "dtype"), args)), **kwargs}
        return _new_tensor(interp, bound["shape"], bound["dtype"], node)

    def full(interp, args, kwargs, node):
        bound = {"dtype": None, **dict(zip(("shape", "fill_value", "dtype"), args)), **kwargs}
        return _new_tensor(interp, bound["shape"], bound["dtype"], node)

    def like(interp, args, kwargs, node):
        """zeros_like / ones_like / full_like / empty_like: the argument's shape."""
        x = args[0] if args else kwargs.get("x")
        if not isinstance(x, Tensor) or x.shape is None:
            return interp.unknown("the shape of this *_like argument is unknown", node)
        dtype = kwargs.get("dtype")
        return Tensor(x.shape, dtype if isinstance(dtype, str) else x.dtype)

    def arange(interp, args, kwargs, node):
        bound = {"stop": None, "step": 1, "dtype": None, **dict(zip(("start", "stop", "step", "dtype"), args)),
                 **kwargs}
        start, stop, step = bound["start"], bound["stop"], bound["step"]
        if stop is None:
            start, stop = 0, start
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (start, stop, step)) or step == 0:
            return interp.unknown("keras.ops.arange of bounds that are not numbers", node)
        count = max(0, math.ceil((stop - start) / step))
        floating = any(isinstance(v, float) for v in (start, stop, step))
        dtype = bound["dtype"] if isinstance(bound["dtype"], str) else "float32" if floating else "int32"
        return Tensor((count,), dtype)

    def eye(interp, args, kwargs, node):
        bound = {"M": None, "k": 0, "dtype": None, **dict(zip(("N", "M", "k", "dtype"), args)), **kwargs}
        n, m = bound["N"], bound["M"] if bound["M"] is not None else bound["N"]
        return _new_tensor(interp, (n, m), bound["dtype"], node)

    def einsum(interp, args, kwargs, node):
        operands = list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple)) else list(args[1:])
        return keras_einsum(interp, framework, args[0] if args else kwargs.get("subscripts"), operands, node)

    def attention(interp, args, kwargs, node):
        names = ("query", "key", "value", "bias", "mask", "scale", "is_causal", "flash_attention",
                 "attn_logits_soft_cap")
        bound = {"bias": None, "mask": None, "scale": None, "is_causal": False, **dict(zip(names, args)), **kwargs}
        if bound.get("attn_logits_soft_cap") is not None:
            return interp.unknown("dot_product_attention with attn_logits_soft_cap is not modelled", node)
        return dot_product_attention(interp, framework, bound["query"], bound["key"], bound["value"], node,
                                     bias=bound["bias"], mask=bound["mask"], scale=bound["scale"],
                                     is_causal=bound["is_causal"])

    def layer_normalization(interp, args, kwargs, node):
        """ops.layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None): the last axis."""
        bound = {"gamma": None, "beta": None, "axis": -1, **dict(zip(("x", "gamma", "beta", "axis", "epsilon"), args)),
                 **kwargs}
        x = bound["x"]
        if not isinstance(x, Tensor) or x.shape is None or bound["axis"] not in (-1, len(x.shape) - 1):
            return interp.unknown("ops.layer_normalization over an axis other than the last is not modelled", node)
        gamma, beta = bound["gamma"] is not None, bound["beta"] is not None
        attrs = {"normalized_shape": (x.shape[-1],), "elementwise_affine": gamma, "bias": beta, "scale": gamma,
                 "center": beta, "type": "ops.layer_normalization"}
        with framework.ops.arguments(tensors_in([x, bound["gamma"], bound["beta"]])):
            return framework.ops.record(interp, "layer_norm", "ops.layer_normalization", attrs, [x.shape], node)

    def take(interp, args, kwargs, node):
        """take(x, indices, axis=None): a gather, kind ``take`` (Keras's TensorFlow backend
        first wraps negative indices: a compare and an add per index, which the profiler counts)."""
        x, indices, axis = _bound(args, kwargs, ("x", "indices", "axis"), {"axis": None})
        if isinstance(indices, int) and not isinstance(indices, bool):
            index_shape = ()
        elif isinstance(indices, (list, tuple)) and all(isinstance(i, int) and not isinstance(i, bool) for i in indices):
            index_shape = (len(indices),)
        elif isinstance(indices, Tensor) and indices.shape is not None:
            index_shape = indices.shape
        else:
            return interp.unknown("keras.ops.take with indices of unknown shape", node)
        shape = framework.ops.shape_of(interp, x, node)
        with framework.ops.arguments([x]):
            return framework.ops.record(interp, "take", "take", {"dim": axis}, [shape, index_shape], node,
                                        dtype=x.dtype)

    def conv(interp, args, kwargs, node):
        """ops.conv(inputs, kernel, strides=1, padding='valid', data_format=None, dilation_rate=1):
        the kernel is (*window, in_channels / groups, filters), as a Conv layer's."""
        x, kernel, strides, padding, data_format, dilation = _bound(
            args, kwargs, ("inputs", "kernel", "strides", "padding", "data_format", "dilation_rate"),
            {"strides": 1, "padding": "valid", "data_format": None, "dilation_rate": 1})
        if not all(isinstance(t, Tensor) and t.shape is not None for t in (x, kernel)) or len(x.shape) != len(kernel.shape) \
                or len(x.shape) not in (3, 4, 5):
            return interp.unknown("ops.conv expects inputs and kernel of the same rank 3-5, of known shape", node)
        n, data_format = len(x.shape) - 2, data_format or "channels_last"
        channels = x.shape[-1] if data_format == "channels_last" else x.shape[1]
        per_group = kernel.shape[-2]
        if not isinstance(channels, int) or not isinstance(per_group, int) or per_group <= 0 or channels % per_group:
            return interp.unknown("ops.conv: the input's channels are not a multiple of the kernel's", node)
        spread = (lambda v: tuple(v) if isinstance(v, (list, tuple)) else (v,) * n)
        attrs = {"dims": n, "out_channels": kernel.shape[-1], "in_channels": channels, "kernel_size": tuple(kernel.shape[:-2]),
                 "stride": spread(strides), "padding": str(padding).lower(), "dilation": spread(dilation),
                 "groups": channels // per_group, "bias": False, "data_format": data_format, "depthwise": False,
                 "type": "ops.conv"}
        with framework.ops.arguments([x, kernel]):
            return framework.ops.record(interp, "conv", "ops.conv", attrs, [x.shape], node)

    table = {
        "conv": conv, "take": take, "dot_product_attention": attention, "layer_normalization": layer_normalization,
        "cumsum": cumulative("cumsum"), "cumprod": cumulative("cumprod"),
        **{name: comparison(target) for name, target in (
            ("equal", "eq"), ("not_equal", "ne"), ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
            ("less_equal", "le"), ("logical_and", "logical_and"), ("logical_or", "logical_or"),
            ("logical_xor", "logical_xor"))},
        "logical_not": positional("logical_not", ("x",)), "where": where,
        "tril": positional("tril", ("x", "k")), "triu": positional("triu", ("x", "k")),
        "tile": lambda i, a, k, n: f["tile"](i, [*_bound(a, k, ("x", "repeats"), {})[:1], _repeats(_bound(a, k, ("x", "repeats"), {})[1])], {}, n),
        "repeat": lambda i, a, k, n: repeat(i, framework, *_bound(a, k, ("x", "repeats", "axis"), {"axis": None}), n),
        "split": split, "one_hot": one_hot, "top_k": top_k, "dot": dot, "tensordot": tensordot,
        "zeros": constant, "ones": constant, "empty": constant, "full": full, "zeros_like": like,
        "ones_like": like, "full_like": like, "empty_like": like, "arange": arange, "eye": eye,
        "add": f["add"], "subtract": f["sub"], "multiply": f["mul"], "divide": f["div"], "true_divide": f["div"],
        "maximum": f["maximum"], "minimum": f["minimum"], "power": f["pow"], "pow": f["pow"],
        "matmul": f["matmul"], "einsum": einsum, "reshape": reshape, "transpose": transpose,
        "concatenate": concatenate, "concat": concatenate, "stack": stack, "expand_dims": expand_dims,
        "squeeze": squeeze, "mean": axis_call("mean"), "reduce_mean": axis_call("mean"), "sum": axis_call("sum"),
        "reduce_sum": axis_call("sum"), "max": axis_call("amax"), "reduce_max": axis_call("amax"),
        "min": axis_call("amin"), "reduce_min": axis_call("amin"), "shape": shape, "cast": passthrough,
        "convert_to_tensor": passthrough, "identity": passthrough, "stop_gradient": passthrough,
        "exp": f["exp"], "log": f["log"], "sqrt": f["sqrt"], "rsqrt": f["rsqrt"], "abs": f["abs"],
        "negative": f["neg"], "erf": f["erf"], "clip": renamed("clamp", x_min="min", x_max="max"),
        "softmax": softmax, "flatten": f["flatten"],
    }
    for name, fn in table.items():
        ops[name] = graph_op(name, fn)
    ops.update(activation_functions(f))
    return ops


def _repeats(repeats):
    """tile's repeats: an int means (repeats,) (numpy)."""
    return [repeats] if isinstance(repeats, int) and not isinstance(repeats, bool) else list(repeats)


def _bound(args, kwargs, names, defaults) -> list:
    bound = {**defaults, **dict(zip(names, args)), **kwargs}
    return [bound[name] for name in names]


def _new_tensor(interp, shape, dtype, node):
    shape = (shape,) if isinstance(shape, int) else shape
    if not isinstance(shape, (tuple, list)) or any(isinstance(d, bool) or not isinstance(d, (int, Expr)) for d in shape):
        return interp.unknown("the shape of this new tensor is unknown", node)
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise interp.fail(f"negative size in shape {tuple(shape)}", node, code="SF301")
    return Tensor(tuple(shape), dtype if isinstance(dtype, str) else "float32")


def identity_matrix(interp, args, kwargs, node):
    """``keras.ops.identity(n, dtype=None)``: an n x n identity matrix (``tf.identity(x)``, by
    contrast, returns its argument)."""
    n = args[0] if args else kwargs.get("n")
    if isinstance(n, Unknown):
        return n
    if isinstance(n, bool) or not isinstance(n, (int, Expr)):
        return interp.unknown(f"keras.ops.identity(n) builds an n x n matrix; n is {type(n).__name__}, "
                              "not a size", node)
    if isinstance(n, int) and n < 0:
        raise interp.fail(f"keras.ops.identity: negative size {n}", node, code="SF301")
    dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
    return Tensor((n, n), dtype if isinstance(dtype, str) else "float32")


def activation_functions(f: dict) -> dict:
    """keras.activations.* / tf.nn.*: callables usable as activation= and on tensors."""
    result = {}
    for name, kind in ACTIVATIONS.items():
        if kind is None:
            fn = _identity
        elif kind == "softsign":
            fn = _record("softsign")
        elif kind == "softmax":
            fn = _axis_softmax(f)
        else:
            fn = f[kind] if kind in f else _record(kind)
        builtin = graph_op(name, fn)
        builtin.activation_name = name
        result[name] = builtin
    return result


def _identity(interp, args, kwargs, node):
    return args[0]


def _record(kind):
    def fn(interp, args, kwargs, node):
        framework = interp.framework
        return framework.ops.record(interp, kind, kind, {}, [framework.ops.shape_of(interp, args[0], node)], node)
    return fn


def _axis_softmax(f):
    def fn(interp, args, kwargs, node):
        return f["softmax"](interp, [args[0]], {"dim": kwargs.get("axis", args[1] if len(args) > 1 else -1)}, node)
    return fn
