"""``torch.*``, ``torch.nn.functional.*`` and tensor methods, on symbolic tensors.

Pure data movement (view, permute, cat, indexing, ...) changes shapes and records nothing:
no convention counts it.  Everything that computes records an op whose cost the rules give.
"""

from __future__ import annotations

from contextlib import contextmanager

from staticflops.diagnostics import AnalysisError
from staticflops.frontend.tracer import TracedOp
from staticflops.frontend.values import CannotKnow, Parameter, Tensor, Unknown
from staticflops.frontend.torch import constants
from staticflops.frontend.torch.layers import argument_error, ntuple
from staticflops.shapes import tensor_ops as ops
from staticflops.shapes.layers import infer
from staticflops.shapes.tensor_ops import ShapeError

ACTIVATIONS = ("relu", "relu6", "gelu", "silu", "tanh", "sigmoid", "leaky_relu", "elu", "selu", "celu",
               "softplus", "mish", "hardswish", "hardsigmoid", "hardtanh", "prelu")
UNARY_MATH = ("abs", "exp", "log", "sqrt", "rsqrt", "neg", "sin", "cos", "erf", "clamp", "round", "floor", "ceil",
              "sign")
REDUCTIONS = ("sum", "mean", "amax", "amin", "prod", "std", "var", "norm", "logsumexp")


def _unknown_argument(attrs: dict) -> str | None:
    """The first attribute that is, or holds, an Unknown value."""
    for name, value in attrs.items():
        if isinstance(value, Unknown) or (isinstance(value, (tuple, list))
                                          and any(isinstance(v, Unknown) for v in value)):
            return name
    return None


class TorchOps:
    """Implements each function once; ``namespace``/``method`` expose them under their names."""

    def __init__(self, framework):
        self.framework = framework
        self.call_tensors: list = []  # tensor arguments of the function being evaluated

    @contextmanager
    def arguments(self, tensors: list):
        """Make the tensors of the call being evaluated known to ``record`` (for gradients)."""
        previous, self.call_tensors = self.call_tensors, tensors
        try:
            yield
        finally:
            self.call_tensors = previous

    # ---- helpers ------------------------------------------------------------------------
    def shape_of(self, interp, value, node):
        if isinstance(value, Tensor):
            if value.shape is None:
                raise CannotKnow("a tensor of unknown shape")
            return value.shape
        if isinstance(value, Unknown):
            raise CannotKnow(value.reason)
        if isinstance(value, (int, float, bool)):
            return ()
        raise CannotKnow(f"{type(value).__name__} used as a tensor")

    def record(self, interp, kind, label, attrs, inputs, node, outputs=None, facts=None, dtype="float32"):
        """Infer the output shape of a computing op, record it, return the result tensor(s)."""
        attrs = dict(attrs, kind=kind)
        if outputs is None and (name := _unknown_argument(attrs)):
            # an unresolved argument (a scale factor, a size) leaves the output shape unknown
            reason = attrs[name].reason if isinstance(attrs[name], Unknown) else "not resolved"
            return interp.unknown(f"{label} argument `{name}` is unknown ({reason})", node)
        if outputs is None:
            try:
                outputs, facts = infer(kind, attrs, inputs)
            except ShapeError as error:
                raise AnalysisError(f"{label}: {error}", interp.location(node), "SF301") from None
        tracer = self.framework.tracer
        activations = [t for t in self.call_tensors if not isinstance(t, Parameter)]
        weights = [t for t in self.call_tensors if isinstance(t, Parameter) and t.trainable]
        needs_grad = [t.requires_grad for t in activations]
        tracer.record(TracedOp(kind, label, attrs, facts or {}, list(inputs), list(outputs),
                               tracer.current_module(), False, interp.location(node),
                               needs_grad=needs_grad, trainable_inputs=len(weights)))
        grad = (any(needs_grad) or bool(weights)) and dtype not in ("int64", "bool")
        tensors = [None if s is None else Tensor(s, dtype, requires_grad=grad) for s in outputs]
        return tensors[0] if len(tensors) == 1 else tuple(tensors)

    def reshape_like(self, interp, shape, new, node, label):
        try:
            return Tensor(ops.reshape(shape, new))
        except ShapeError as error:
            raise AnalysisError(f"{label}: {error}", interp.location(node), "SF301") from None

    def moved(self, interp, fn, label, node, *args):
        try:
            return fn(*args)
        except ShapeError as error:
            raise AnalysisError(f"{label}: {error}", interp.location(node), "SF301") from None


def _sizes(args) -> list:
    """``view(2, 3)``, ``view((2, 3))`` and ``view(torch.Size)`` all mean the same."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return list(args[0])
    return list(args)


def _dim_arg(args, kwargs, position, default=None, name="dim"):
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else default


def build_functions(t: TorchOps) -> dict:
    """name -> fn(interp, args, kwargs, node); ``args[0]`` is the tensor for methods."""
    f: dict = {}

    def shape(interp, value, node):
        return t.shape_of(interp, value, node)

    # ---- data movement: shapes only ---------------------------------------------------
    def view(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        new = _sizes(args[1:]) or list(kwargs.get("shape", kwargs.get("size", ())))
        return t.reshape_like(interp, x, new, node, "view/reshape")
    f["view"] = f["reshape"] = view

    def flatten(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        start = _dim_arg(args, kwargs, 1, 0, "start_dim")
        end = _dim_arg(args, kwargs, 2, -1, "end_dim")
        return Tensor(t.moved(interp, ops.flatten, "flatten", node, x, start, end), args[0].dtype)
    f["flatten"] = flatten

    def gather(interp, args, kwargs, node):
        # gather(input, dim, index): one element of `input` per element of `index` (data movement)
        index = args[2] if len(args) > 2 else kwargs.get("index")
        if not isinstance(index, Tensor):
            raise CannotKnow("gather with an index that is not a tensor")
        return Tensor(shape(interp, index, node), args[0].dtype)
    f["gather"] = gather

    def permute(interp, args, kwargs, node):
        order = _sizes(args[1:]) or list(kwargs.get("dims", ()))
        return Tensor(t.moved(interp, ops.permute, "permute", node, shape(interp, args[0], node), order), args[0].dtype)
    f["permute"] = permute

    def transpose(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        a, b = _dim_arg(args, kwargs, 1, 0, "dim0"), _dim_arg(args, kwargs, 2, 1, "dim1")
        return Tensor(t.moved(interp, ops.transpose, "transpose", node, x, a, b), args[0].dtype)
    f["transpose"] = f["swapaxes"] = transpose

    def transpose_2d(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        return Tensor(tuple(reversed(x)) if len(x) <= 2 else x, args[0].dtype)
    f["t"] = transpose_2d

    def identity(interp, args, kwargs, node):
        value = args[0]
        return Tensor(shape(interp, value, node), value.dtype) if isinstance(value, Tensor) else value
    def requires_grad_(interp, args, kwargs, node):
        flag = args[1] if len(args) > 1 else kwargs.get("requires_grad", True)
        if isinstance(args[0], Parameter):
            args[0].trainable = args[0].requires_grad = flag is not False
        elif isinstance(args[0], Tensor):
            args[0].requires_grad = flag is not False
        return args[0]
    f["requires_grad_"] = requires_grad_

    for name in ("contiguous", "clone", "detach", "cpu", "cuda", "half", "double",
                 "bfloat16", "type_as", "masked_fill", "masked_fill_", "fill_", "zero_", "copy_", "normal_",
                 "uniform_", "__deepcopy__", "flip", "roll", "tril", "triu", "numpy", "pin_memory"):
        f[name] = identity

    def cast(dtype):
        def fn(interp, args, kwargs, node):
            values = args[0].values if isinstance(args[0], Tensor) else None
            return Tensor(shape(interp, args[0], node), dtype,
                          values=constants.fit(values, dtype) if values is not None else None)
        return fn
    f["long"], f["int"], f["bool"] = cast("int64"), cast("int64"), cast("bool")
    f["float"] = cast("float32")

    def tolist(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        if args[0].values is None:
            raise CannotKnow("a tensor whose values are not known while the model is built")
        return constants.nested(args[0].values, x)
    f["tolist"] = tolist

    def item(interp, args, kwargs, node):
        if args[0].values is None or len(args[0].values) != 1:
            raise CannotKnow("a tensor whose value is not known while the model is built")
        return args[0].values[0]
    f["item"] = item

    def diff(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        if len(x) != 1:
            raise CannotKnow("torch.diff of a tensor with more than one dimension")
        values = args[0].values
        return Tensor((x[0] - 1,), args[0].dtype,
                      values=[b - a for a, b in zip(values, values[1:])] if values is not None else None)
    f["diff"] = diff

    def pad(interp, args, kwargs, node):
        x = list(shape(interp, args[0], node))
        amounts = args[1] if len(args) > 1 else kwargs["pad"]
        if len(amounts) % 2 or len(amounts) // 2 > len(x):
            raise CannotKnow(f"F.pad with {len(amounts)} padding sizes for a {len(x)}-dimensional tensor")
        for i in range(len(amounts) // 2):
            x[-1 - i] = x[-1 - i] + amounts[2 * i] + amounts[2 * i + 1]
        return Tensor(tuple(x), args[0].dtype)
    f["pad"] = pad

    def new_tensor(interp, args, kwargs, node, label="new_tensor"):
        sizes = t.moved(interp, ops.new_shape, label, node, _sizes(args[1:]) or list(kwargs.get("size", ())))
        return Tensor(sizes, kwargs.get("dtype", args[0].dtype) if isinstance(kwargs.get("dtype"), str) else args[0].dtype)
    for name in ("new_zeros", "new_ones", "new_empty"):
        f[name] = lambda interp, args, kwargs, node, label=name: new_tensor(interp, args, kwargs, node, label)

    def new_full(interp, args, kwargs, node):
        return new_tensor(interp, args[:2], kwargs, node, "new_full")
    f["new_full"] = new_full

    def meshgrid(interp, args, kwargs, node):
        tensors = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
        sizes = [shape(interp, v, node) for v in tensors]
        if any(len(s) != 1 for s in sizes):
            raise CannotKnow("meshgrid of tensors that are not one-dimensional")
        grid = [s[0] for s in sizes]
        if kwargs.get("indexing", "ij") == "xy" and len(grid) >= 2:
            grid[0], grid[1] = grid[1], grid[0]
        return tuple(Tensor(tuple(grid), v.dtype) for v in tensors)
    f["meshgrid"] = meshgrid

    def to(interp, args, kwargs, node):
        dtype = kwargs.get("dtype")
        for value in args[1:]:
            if isinstance(value, str) and value in DTYPES:
                dtype = value
        return Tensor(shape(interp, args[0], node), dtype or args[0].dtype)
    f["to"] = to

    def squeeze(interp, args, kwargs, node):
        return Tensor(ops.squeeze(shape(interp, args[0], node), _dim_arg(args, kwargs, 1)), args[0].dtype)
    f["squeeze"] = squeeze

    def unsqueeze(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        return Tensor(t.moved(interp, ops.unsqueeze, "unsqueeze", node, x, _dim_arg(args, kwargs, 1)), args[0].dtype)
    f["unsqueeze"] = unsqueeze

    def expand(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        return Tensor(t.moved(interp, ops.expand, "expand", node, x, _sizes(args[1:])), args[0].dtype)
    f["expand"] = expand

    def expand_as(interp, args, kwargs, node):
        x, other = shape(interp, args[0], node), shape(interp, args[1], node)
        return Tensor(t.moved(interp, ops.expand, "expand_as", node, x, list(other)), args[0].dtype)
    f["expand_as"] = expand_as

    def same_shape_as(interp, args, kwargs, node):
        return Tensor(shape(interp, args[1], node), args[0].dtype)
    f["view_as"] = f["reshape_as"] = same_shape_as

    def repeat(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        return Tensor(t.moved(interp, ops.repeat, "repeat", node, x, _sizes(args[1:])), args[0].dtype)
    f["repeat"] = repeat

    def size(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        dim = _dim_arg(args, kwargs, 1)
        if dim is None:
            return tuple(x)
        return x[t.moved(interp, ops.normalize_dim, "size", node, dim, len(x))]
    f["size"] = size

    def dim(interp, args, kwargs, node):
        return len(shape(interp, args[0], node))
    f["dim"] = f["ndimension"] = dim

    def numel(interp, args, kwargs, node):
        from staticflops.shapes import numel as count
        return count(shape(interp, args[0], node))
    f["numel"] = f["nelement"] = numel

    def cat(interp, args, kwargs, node):
        tensors = list(args[0])
        axis = _dim_arg(args, kwargs, 1, 0)
        shapes = [shape(interp, x, node) for x in tensors]
        return Tensor(t.moved(interp, ops.concatenate, "cat", node, shapes, axis), tensors[0].dtype)
    f["cat"] = f["concat"] = f["concatenate"] = cat

    def stack(interp, args, kwargs, node):
        tensors = list(args[0])
        axis = _dim_arg(args, kwargs, 1, 0)
        shapes = [shape(interp, x, node) for x in tensors]
        return Tensor(t.moved(interp, ops.stack, "stack", node, shapes, axis), tensors[0].dtype)
    f["stack"] = stack

    def split(interp, args, kwargs, node, chunks=False):
        x = shape(interp, args[0], node)
        amount = args[1] if len(args) > 1 else kwargs.get("split_size_or_sections", kwargs.get("chunks"))
        axis = t.moved(interp, ops.normalize_dim, "split", node, _dim_arg(args, kwargs, 2, 0), len(x))
        sizes = t.moved(interp, ops.split_sizes, "split", node, x[axis], amount, chunks)
        return tuple(Tensor(x[:axis] + (s,) + x[axis + 1:], args[0].dtype) for s in sizes)
    f["split"] = split
    f["chunk"] = lambda interp, args, kwargs, node: split(interp, args, kwargs, node, chunks=True)

    def unbind(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        axis = t.moved(interp, ops.normalize_dim, "unbind", node, _dim_arg(args, kwargs, 1, 0), len(x))
        if not isinstance(x[axis], int):
            raise CannotKnow("unbind over a symbolic dimension")
        return tuple(Tensor(x[:axis] + x[axis + 1:], args[0].dtype) for _ in range(x[axis]))
    f["unbind"] = unbind

    # ---- computing ops ------------------------------------------------------------------
    def matmul(label):
        def fn(interp, args, kwargs, node):
            a, b = args[0], args[1]
            return t.record(interp, "matmul", label, {}, [shape(interp, a, node), shape(interp, b, node)], node)
        return fn
    f["matmul"], f["mm"], f["bmm"] = matmul("matmul"), matmul("mm"), matmul("bmm")
    f["__matmul__"] = matmul("@")  # the operator: some counters patch torch.matmul but not `@`

    def add_matmul(label):
        # addmm(input, mat1, mat2) / baddbmm(input, batch1, batch2) = beta*input + alpha*(mat1 @ mat2):
        # the product is the matmul kind (FlopCounterMode counts 2*m*n*k for both); adding `input`
        # is the bias add the rules price like a Linear's bias (none under `standard`)
        def fn(interp, args, kwargs, node):
            a = args[1] if len(args) > 1 else kwargs.get("mat1", kwargs.get("batch1"))
            b = args[2] if len(args) > 2 else kwargs.get("mat2", kwargs.get("batch2"))
            return t.record(interp, "matmul", label, {}, [shape(interp, a, node), shape(interp, b, node)], node)
        return fn
    f["addmm"], f["baddbmm"] = add_matmul("addmm"), add_matmul("baddbmm")

    def einsum(interp, args, kwargs, node):
        equation = args[0]
        operands = list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple)) else list(args[1:])
        if not isinstance(equation, str):
            raise CannotKnow("einsum equation is not a known string")
        shapes = [shape(interp, x, node) for x in operands]
        return t.record(interp, "einsum", "einsum", {"equation": equation, "operands": len(shapes)}, shapes, node)
    f["einsum"] = einsum

    def linear(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        weight = shape(interp, args[1] if len(args) > 1 else kwargs["weight"], node)
        bias = args[2] if len(args) > 2 else kwargs.get("bias")
        attrs = {"in_features": weight[-1], "out_features": weight[0] if len(weight) == 2 else 1,
                 "bias": bias is not None, "type": "F.linear"}
        return t.record(interp, "linear", "F.linear", attrs, [x], node)
    f["linear"] = linear

    def conv(dims, transposed=False):
        names = ["input", "weight", "bias", "stride", "padding"] + (["output_padding", "groups", "dilation"] if transposed else ["dilation", "groups"])
        defaults = {"bias": None, "stride": 1, "padding": 0, "dilation": 1, "groups": 1, "output_padding": 0}

        def fn(interp, args, kwargs, node):
            bound = dict(defaults, **dict(zip(names, args)), **kwargs)
            x, w = shape(interp, bound["input"], node), shape(interp, bound["weight"], node)
            groups = bound["groups"]
            # the weight's first dimension is split into groups (out channels, or in for transposed)
            checked = {"groups": groups, ("in_channels" if transposed else "out_channels"): w[0]}
            if problem := argument_error("conv_transpose" if transposed else "conv", checked):
                label = f"F.conv{'_transpose' if transposed else ''}{dims}d"
                raise AnalysisError(f"{label}: {problem}", interp.location(node), "SF301")
            out_channels = w[0] if not transposed else w[1] * groups
            in_channels = w[1] * groups if not transposed else w[0]
            attrs = {"dims": dims, "in_channels": in_channels, "out_channels": out_channels,
                     "kernel_size": tuple(w[2:]), "stride": ntuple(bound["stride"], dims),
                     "padding": bound["padding"] if isinstance(bound["padding"], str) else ntuple(bound["padding"], dims),
                     "dilation": ntuple(bound["dilation"], dims), "groups": groups,
                     "bias": bound["bias"] is not None, "type": f"F.conv{'_transpose' if transposed else ''}{dims}d"}
            if transposed:
                attrs["output_padding"] = ntuple(bound["output_padding"], dims)
            kind = "conv_transpose" if transposed else "conv"
            return t.record(interp, kind, attrs["type"], attrs, [x], node)
        return fn
    for n in (1, 2, 3):
        f[f"conv{n}d"] = conv(n)
        f[f"conv_transpose{n}d"] = conv(n, transposed=True)

    def sdpa(interp, args, kwargs, node):
        names = ["query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale"]
        bound = {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, **dict(zip(names, args)), **kwargs}
        shapes = [shape(interp, bound[k], node) for k in ("query", "key", "value")]
        attrs = {"is_causal": bound["is_causal"] is True, "has_mask": bound["attn_mask"] is not None}
        if bound.get("enable_gqa") is True:  # grouped-query attention: key/value heads are shared
            attrs["enable_gqa"] = True
        return t.record(interp, "scaled_dot_product_attention", "F.scaled_dot_product_attention", attrs, shapes, node)
    f["scaled_dot_product_attention"] = sdpa

    def elementwise(kind):
        def fn(interp, args, kwargs, node):
            x = args[0]
            attrs = {k: v for k, v in kwargs.items() if isinstance(v, (int, float, str, bool))}
            if kind in ("softmax", "log_softmax"):
                attrs["dim"] = _dim_arg(args, kwargs, 1)
            if kind == "gelu":
                attrs.setdefault("approximate", "none")  # F.gelu's default, as nn.GELU records it
            dtype = x.dtype if isinstance(x, Tensor) else "float32"
            if kind in ("log", "exp", "sqrt", "rsqrt", "sigmoid", "tanh"):
                dtype = "float32"
            result = t.record(interp, kind, kind, attrs, [shape(interp, x, node)], node, dtype=dtype)
            if isinstance(result, Tensor):
                result.values = constants.unary_values(kind, x)
            return result
        return fn
    for name in ACTIVATIONS + UNARY_MATH + ("softmax", "log_softmax"):
        f[name] = elementwise(name)
        f[name + "_"] = elementwise(name)
    f["clip"] = f["clamp"]
    f["silu_"] = f["silu"]

    def dropout(interp, args, kwargs, node):
        p = _dim_arg(args, kwargs, 1, 0.5, "p")
        if isinstance(p, (int, float)) and not isinstance(p, bool) and not 0 <= p <= 1:
            raise AnalysisError(f"F.dropout: dropout probability has to be between 0 and 1, got {p!r}",
                                interp.location(node), "SF301")
        return t.record(interp, "dropout", "dropout", {}, [shape(interp, args[0], node)], node)
    f["dropout"] = f["dropout1d"] = f["dropout2d"] = f["dropout3d"] = dropout

    def binary(kind, name):
        def fn(interp, args, kwargs, node):
            other = args[1] if len(args) > 1 else kwargs.get("other", kwargs.get("exponent"))
            return t.framework.binary(interp, kind, args[0], other, node, label=name)
        return fn
    for kind, names in {"add": ("add", "add_"), "sub": ("sub", "sub_", "subtract"), "mul": ("mul", "mul_", "multiply"),
                        "div": ("div", "div_", "divide", "true_divide"), "pow": ("pow", "pow_"),
                        "maximum": ("maximum",), "minimum": ("minimum",)}.items():
        for name in names:
            f[name] = binary(kind, name)

    def reduction(name):
        def fn(interp, args, kwargs, node):
            x = shape(interp, args[0], node)
            axis = _dim_arg(args, kwargs, 1)
            keepdim = _dim_arg(args, kwargs, 2, False, "keepdim")
            attrs = {"op": name, "dim": axis, "keepdim": keepdim}
            result = t.record(interp, "reduce", name, attrs, [x], node)
            return result
        return fn
    for name in REDUCTIONS:
        f[name] = reduction(name)

    def max_or_min(name):
        def fn(interp, args, kwargs, node):
            other = args[1] if len(args) > 1 else kwargs.get("dim")
            if isinstance(other, (Tensor, Unknown)):
                return t.framework.binary(interp, "maximum" if name == "max" else "minimum", args[0], other, node)
            x = shape(interp, args[0], node)
            keepdim = _dim_arg(args, kwargs, 2, False, "keepdim")
            values = t.record(interp, "reduce", name, {"op": name, "dim": other, "keepdim": keepdim}, [x], node)
            if other is None:
                return values
            return (values, Tensor(values.shape, "int64"))
        return fn
    f["max"], f["min"] = max_or_min("max"), max_or_min("min")

    def argmax(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        return Tensor(ops.reduce(x, _dim_arg(args, kwargs, 1), _dim_arg(args, kwargs, 2, False, "keepdim")), "int64")
    f["argmax"] = f["argmin"] = argmax

    def interpolate(interp, args, kwargs, node):
        names = ["input", "size", "scale_factor", "mode", "align_corners"]
        bound = {"size": None, "scale_factor": None, "mode": "nearest", **dict(zip(names, args)), **kwargs}
        attrs = {"size": bound["size"], "scale_factor": bound["scale_factor"], "mode": bound["mode"]}
        return t.record(interp, "interpolate", "F.interpolate", attrs, [shape(interp, bound["input"], node)], node)
    f["interpolate"] = f["upsample"] = interpolate

    def pool(kind, dims):
        def fn(interp, args, kwargs, node):
            names = ["input", "kernel_size", "stride", "padding"] + (["dilation", "ceil_mode"] if kind == "max_pool" else ["ceil_mode"])
            bound = {"stride": None, "padding": 0, "dilation": 1, "ceil_mode": False, **dict(zip(names, args)), **kwargs}
            kernel = ntuple(bound["kernel_size"], dims)
            attrs = {"dims": dims, "kernel_size": kernel,
                     "stride": ntuple(bound["stride"] if bound["stride"] not in (None, []) else kernel, dims),
                     "padding": ntuple(bound["padding"], dims), "dilation": ntuple(bound["dilation"], dims),
                     "ceil_mode": bound["ceil_mode"], "type": f"F.{kind}{dims}d"}
            return t.record(interp, kind, attrs["type"], attrs, [shape(interp, bound["input"], node)], node)
        return fn

    def adaptive(kind, dims):
        def fn(interp, args, kwargs, node):
            size = args[1] if len(args) > 1 else kwargs["output_size"]
            attrs = {"dims": dims, "output_size": ntuple(size, dims), "type": f"F.{kind}{dims}d"}
            result = t.record(interp, kind, attrs["type"], attrs, [shape(interp, args[0], node)], node)
            return result
        return fn
    for n in (1, 2, 3):
        f[f"max_pool{n}d"] = pool("max_pool", n)
        f[f"avg_pool{n}d"] = pool("avg_pool", n)
        f[f"adaptive_avg_pool{n}d"] = adaptive("adaptive_avg_pool", n)
        f[f"adaptive_max_pool{n}d"] = adaptive("adaptive_max_pool", n)

    def layer_norm(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        normalized = args[1] if len(args) > 1 else kwargs["normalized_shape"]
        normalized = tuple(normalized) if isinstance(normalized, (list, tuple)) else (normalized,)
        weight = args[2] if len(args) > 2 else kwargs.get("weight")
        attrs = {"normalized_shape": normalized, "elementwise_affine": weight is not None, "type": "F.layer_norm"}
        return t.record(interp, "layer_norm", "F.layer_norm", attrs, [x], node)
    f["layer_norm"] = layer_norm

    def embedding(interp, args, kwargs, node):
        ids, weight = shape(interp, args[0], node), shape(interp, args[1], node)
        attrs = {"num_embeddings": weight[0], "embedding_dim": weight[1], "type": "F.embedding"}
        return t.record(interp, "embedding", "F.embedding", attrs, [ids], node)
    f["embedding"] = embedding

    def pixel_shuffle(interp, args, kwargs, node):
        attrs = {"upscale_factor": args[1] if len(args) > 1 else kwargs["upscale_factor"]}
        return t.record(interp, "pixel_shuffle", "F.pixel_shuffle", attrs, [shape(interp, args[0], node)], node)
    f["pixel_shuffle"] = pixel_shuffle

    def where(interp, args, kwargs, node):
        shapes = [shape(interp, v, node) for v in args[:3]]
        return t.record(interp, "where", "where", {}, shapes, node)
    f["where"] = where

    return f


# ---- tensor constructors --------------------------------------------------------------

DTYPES = {"float32", "float", "float16", "half", "bfloat16", "float64", "double", "int64", "long",
          "int32", "int", "int8", "uint8", "bool"}
_INT_DTYPES = {"int64", "long", "int32", "int", "int8", "uint8"}


def build_constructors(t: TorchOps) -> dict:
    c: dict = {}

    def dtype_of(kwargs, default="float32"):
        dtype = kwargs.get("dtype", default)
        if not isinstance(dtype, str):
            return default
        return "int64" if dtype in _INT_DTYPES else ("bool" if dtype == "bool" else "float32")

    def creator(name):
        def create(interp, args, kwargs, node):
            sizes = _sizes(args) or list(kwargs.get("size", ()))
            for s in sizes:
                if isinstance(s, Unknown):
                    return s
            return Tensor(t.moved(interp, ops.new_shape, f"torch.{name}", node, sizes), dtype_of(kwargs))
        return create
    for name in ("zeros", "ones", "randn", "rand", "empty", "Tensor", "FloatTensor"):
        c[name] = creator(name)

    def full(interp, args, kwargs, node):
        return Tensor(t.moved(interp, ops.new_shape, "torch.full", node, _sizes(args[:1])), dtype_of(kwargs))
    c["full"] = full

    def randint(interp, args, kwargs, node):
        size = kwargs.get("size", args[-1] if args else ())
        return Tensor(tuple(size), "int64")
    c["randint"] = randint

    def like(interp, args, kwargs, node):
        source = args[0]
        if not isinstance(source, Tensor):
            return source if isinstance(source, Unknown) else Tensor(())
        return Tensor(source.shape, dtype_of(kwargs, source.dtype))
    for name in ("zeros_like", "ones_like", "randn_like", "rand_like", "empty_like", "full_like"):
        c[name] = like

    def arange(interp, args, kwargs, node):
        bounds = [a for a in args if not isinstance(a, str)]
        # arange(end), arange(start, end[, step]), or keywords (diffusers: arange(start=0, end=n))
        start, end, step = kwargs.get("start", 0), kwargs.get("end"), kwargs.get("step", 1)
        if len(bounds) == 1:
            end = bounds[0]
        elif bounds:
            start, end, step = bounds[0], bounds[1], bounds[2] if len(bounds) > 2 else step
        if end is None:
            raise AnalysisError("torch.arange() needs an `end`", interp.location(node), "SF301")
        for v in (start, end, step):
            if isinstance(v, Unknown):
                return v
        if isinstance(step, (int, float)) and step == 0:
            raise AnalysisError("torch.arange: step must be nonzero", interp.location(node), "SF301")
        length = end - start if step == 1 else -((start - end) // step)
        if isinstance(length, float):
            length = int(length)  # ceil((end - start) / step) elements, as an integer size
        if isinstance(length, int) and length < 0:
            raise AnalysisError(f"torch.arange({start}, {end}, {step}): the bounds are inconsistent with the step",
                                interp.location(node), "SF301")
        has_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = dtype_of(kwargs, "float32" if has_float else "int64")
        values = None
        if all(isinstance(v, int) for v in (start, end, step)) and isinstance(length, int) and length <= constants.MAX_VALUES:
            values = constants.fit(list(range(start, end, step)), dtype)
        return Tensor((length,), dtype, values=values)
    c["arange"] = arange

    def tensor(interp, args, kwargs, node):
        data = args[0] if args else kwargs.get("data")
        dims = []
        while isinstance(data, (list, tuple)):
            dims.append(len(data))
            data = data[0] if data else None
        default = "int64" if isinstance(data, int) and not isinstance(data, bool) else "float32"
        dtype = dtype_of(kwargs, default)
        items = _flatten_numbers(args[0] if args else kwargs.get("data"))
        return Tensor(tuple(dims), dtype, values=constants.fit(items, dtype) if items is not None else None)
    c["tensor"] = c["as_tensor"] = tensor

    def parameter(interp, args, kwargs, node):
        data = args[0] if args else kwargs.get("data")
        trainable = (args[1] if len(args) > 1 else kwargs.get("requires_grad", True)) is not False
        shape = data.shape if isinstance(data, Tensor) else None
        if isinstance(data, Unknown):
            interp.unknown(f"shape of this parameter is unknown ({data.reason})", node)
        return Parameter(shape, "float32", requires_grad=trainable, trainable=trainable)
    c["Parameter"] = parameter
    return c


def _flatten_numbers(data):
    """Row-major numbers of a nested list literal, or None if any element is not a number."""
    if isinstance(data, (list, tuple)):
        items = []
        for element in data:
            inner = _flatten_numbers(element)
            if inner is None:
                return None
            items.extend(inner)
        return items
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return [data]
    return None
