"""``keras.ops``, ``keras.activations``, ``tf.*``/``tf.nn.*``/``tf.math.*`` on symbolic tensors.

Each is the PyTorch-model function with the same math (torch/functions.py) under Keras's
argument names (``axis`` for ``dim``, ``keepdims`` for ``keepdim``).  Results on KerasTensors
become graph nodes, so Functional models can use raw ops between layers.
"""

from __future__ import annotations

from staticflops.frontend.keras.graph import KerasTensor, adopt, tensors_in, unknown_shape
from staticflops.frontend.keras.layers import ACTIVATIONS
from staticflops.frontend.values import Builtin, Tensor, Unknown
from staticflops.shapes.expr import Expr


def graph_op(name: str, fn) -> Builtin:
    """A function whose results on KerasTensors are recorded as graph nodes."""
    builtin = None

    def call(interp, args, kwargs, node):
        tensors = tensors_in([args, kwargs])
        if any(unknown_shape(t) for t in tensors):  # after an unmodelled op: reported there
            return adopt(Tensor(None), builtin, args, kwargs, node)
        result = fn(interp, args, kwargs, node)
        if any(isinstance(t, KerasTensor) for t in tensors):
            return adopt(result, builtin, args, kwargs, node)
        return result
    builtin = Builtin(name, call, bind_self=False)
    return builtin


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

    table = {
        "add": f["add"], "subtract": f["sub"], "multiply": f["mul"], "divide": f["div"], "true_divide": f["div"],
        "maximum": f["maximum"], "minimum": f["minimum"], "power": f["pow"], "pow": f["pow"],
        "matmul": f["matmul"], "einsum": f["einsum"], "reshape": reshape, "transpose": transpose,
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
