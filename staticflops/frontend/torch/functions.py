"""``torch.*``, ``torch.nn.functional.*`` and tensor methods, on symbolic tensors.

Pure data movement (view, permute, cat, indexing, ...) changes shapes and records nothing:
no convention counts it.  Everything that computes records an op whose cost the rules give.
"""

from __future__ import annotations

import math

from contextlib import contextmanager

from staticflops.diagnostics import AnalysisError
from staticflops.frontend.tracer import TracedOp
from staticflops.frontend.scope import MISSING
from staticflops.frontend.values import CannotKnow, Class, Parameter, Record, Tensor, Unknown
from staticflops.frontend.torch import constants, routing
from staticflops.frontend.torch.draws import UnitDraw
from staticflops.frontend.torch.nearest_values import nearest_values
from staticflops.frontend.torch.layers import argument_error, legacy_reduction, ntuple
from staticflops.shapes import format_shape
from staticflops.shapes import tensor_ops as ops
from staticflops.shapes.expr import Expr
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
        if isinstance(value, (int, float, bool, Expr)):  # a Python scalar; Expr: a symbolic size (`x + T`)
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
        recording = self.framework.blocks.recording_grad()  # inside torch.no_grad(): no backward at all
        activations = [t for t in self.call_tensors if not isinstance(t, Parameter)]
        weights = [t for t in self.call_tensors if isinstance(t, Parameter) and t.trainable and recording]
        needs_grad = [t.requires_grad and recording for t in activations]
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


def _refuse_non_int_sizes(interp, name, sizes, node) -> None:
    """torch's TypeError for a size left None (``torch.empty(config.n_experts, d)`` with the count
    not set): raised where the tensor is made, as torch does, which a ``try`` may catch."""
    for position, size in enumerate(sizes):
        if size is None:
            raise interp.fail(f"{name}(): argument 'size' must be tuple of ints, but found element of type "
                              f"{type(size).__name__} at pos {position}", node, python="TypeError")


def _tensor_int(value):
    """A size given as a one-element integer tensor (torch reads its value, as Mimi's
    ``F.pad(x, (left, extra))`` with ``extra`` computed from tensor buffers): its known value;
    a tensor of unknown value is not known; anything but a tensor is returned as it is."""
    if not isinstance(value, Tensor):
        return value
    if value.dtype.startswith(("int", "uint")) and value.shape in ((), (1,)) and value.values is not None \
            and len(value.values) == 1 and type(value.values[0]) is int:
        return value.values[0]
    raise CannotKnow("a size held in a tensor whose value is not known while the model is built")


def _dim_arg(args, kwargs, position, default=None, name="dim"):
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else default


# torch.return_types.sort / topk / max / min ...: tuples whose items are also named.
_VALUES_INDICES = Class("torch.return_types", (), {})


def values_and_indices(values, indices) -> Record:
    return Record.make(_VALUES_INDICES, ("values", "indices"), (values, indices))


def _indices_int64(result):
    """``(values, indices)`` of a max pool asked for its indices: the indices are int64."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], Tensor):
        result[1].dtype, result[1].requires_grad = "int64", False
    return result


# Bytes per element of the dtypes a tensor can be viewed as (``x.view(torch.int8)``).
DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2, "float64": 8, "double": 8,
               "int64": 8, "long": 8, "int32": 4, "int": 4, "int16": 2, "short": 2, "int8": 1, "uint8": 1,
               "bool": 1}


# torch.zeros/ones (and their _like forms): every element known (a mask of ones decides an `if`).
_FILLS = {"zeros": 0, "ones": 1, "zeros_like": 0, "ones_like": 1}


def filled(tensor: Tensor, value) -> Tensor:
    """``tensor`` with every element ``value`` when that is known and the tensor small enough."""
    if value is not None and tensor.shape is not None and all(type(d) is int for d in tensor.shape):
        count = math.prod(tensor.shape)
        if count <= constants.MAX_VALUES:
            tensor.values = constants.repeated(value, count, tensor.dtype)
    return tensor


# Reductions over every element whose one value is computed from known values (`mask.sum()`).
_FULL_REDUCTIONS = {"sum": lambda v: sum(v), "mean": lambda v: sum(v) / len(v), "prod": math.prod,
                    "amax": max, "amin": min}


def build_functions(t: TorchOps) -> dict:
    """name -> fn(interp, args, kwargs, node); ``args[0]`` is the tensor for methods."""
    f: dict = {}

    def shape(interp, value, node):
        return t.shape_of(interp, value, node)

    # ---- data movement: shapes only ---------------------------------------------------
    def view(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        wanted = args[1] if len(args) == 2 else kwargs.get("dtype")
        if isinstance(wanted, str):  # x.view(torch.int32): the same bytes read as another dtype
            return view_dtype(interp, args[0], x, wanted, node)
        new = _sizes(args[1:]) or list(kwargs.get("shape", kwargs.get("size", ())))
        # a size may be a one-element integer tensor (torch reads it: Longformer's chunk count
        # `torch.div(seq_len, 2 * w, rounding_mode="trunc")`)
        new = [_tensor_int(s) for s in new]
        result = t.reshape_like(interp, x, new, node, "view/reshape")
        result.dtype = args[0].dtype  # a view is the same elements (an int64 view stays int64)
        result.values = constants.reshaped(args[0].values, result.shape)
        return constants.settle(result, constants.kept_progression(args[0], result.shape))
    f["view"] = f["reshape"] = view

    def view_dtype(interp, tensor, x, wanted, node):
        exact = getattr(wanted, "exact", wanted)  # torch.int32 evaluates to "int64" with .exact "int32"
        source, target = DTYPE_BYTES.get(tensor.dtype), DTYPE_BYTES.get(exact)
        if source is None or target is None:
            raise CannotKnow(f"a view as dtype {exact!r}")
        if source != target:  # the last dimension holds the same bytes in more or fewer elements
            if not x or (isinstance(x[-1], int) and (x[-1] * source) % target):
                raise AnalysisError(f"view as {exact}: the last dimension's {x[-1] if x else 0} elements of "
                                    f"{source} bytes do not divide into elements of {target} bytes",
                                    interp.location(node), "SF301")
            x = x[:-1] + (x[-1] * source // target,)
        return Tensor(x, str(wanted))

    def flatten(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        start = _dim_arg(args, kwargs, 1, 0, "start_dim")
        end = _dim_arg(args, kwargs, 2, -1, "end_dim")
        new = t.moved(interp, ops.flatten, "flatten", node, x, start, end)
        return Tensor(new, args[0].dtype, values=constants.reshaped(args[0].values, new))  # row-major order kept
    f["flatten"] = flatten

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
                 "uniform_", "erfinv_", "__deepcopy__", "flip", "roll", "tril", "triu", "numpy", "pin_memory"):
        f[name] = identity

    def flip(interp, args, kwargs, node):
        result = identity(interp, args, kwargs, node)
        dims = _sizes(args[1:]) or kwargs.get("dims", ())
        if isinstance(result, Tensor) and isinstance(args[0], Tensor):
            result.values = constants.flipped(args[0].values, tuple(result.shape), dims)
        return result
    f["flip"] = flip

    def in_place(interp, args, kwargs, node, name):
        x = args[0]
        if isinstance(x, Tensor):
            # x.zero_(), x.fill_(v), x.copy_(y) with v, y known: the values written; otherwise
            # (and x.normal_()...) the values it had are gone
            source = 0 if name == "zero_" else args[1] if len(args) > 1 else \
                kwargs.get("value" if name == "fill_" else "src")
            if name == "fill_" and isinstance(source, Tensor) and source.values is not None and len(source.values) == 1:
                source = source.values[0]
            written = constants.overwritten(tuple(x.shape), x.dtype, source) \
                if name in ("zero_", "fill_", "copy_") and x.shape is not None and x.dtype != "bool" else None
            x.values, x.progression = written, None
        result = identity(interp, args, kwargs, node)
        if isinstance(x, Tensor) and isinstance(result, Tensor):
            result.values = x.values  # what the tensor holds now (framework._writing_back keeps it)
        return result
    for name in ("masked_fill_", "fill_", "zero_", "copy_", "normal_", "uniform_", "erfinv_"):
        f[name] = lambda interp, args, kwargs, node, name=name: in_place(interp, args, kwargs, node, name)

    def masked(in_place_):
        """``x.masked_fill(mask, v)``: the mask broadcasts with x (out of place the result takes the
        broadcast shape; in place it must be x's), as torch checks it."""
        def fn(interp, args, kwargs, node):
            mask = args[1] if len(args) > 1 else kwargs.get("mask")
            if isinstance(args[0], Tensor) and isinstance(mask, Tensor):
                x, m = shape(interp, args[0], node), shape(interp, mask, node)
                out = t.moved(interp, ops.broadcast, "masked_fill", node, x, m)
                if in_place_ and tuple(out) != tuple(x):
                    raise AnalysisError(f"masked_fill_: output with shape {format_shape(x)} doesn't match the "
                                        f"broadcast shape {format_shape(out)}", interp.location(node), "SF301")
                if not in_place_ and tuple(out) != tuple(x):
                    return Tensor(out, args[0].dtype)
            if in_place_:
                return in_place(interp, args, kwargs, node, "masked_fill_")
            return identity(interp, args, kwargs, node)
        return fn
    f["masked_fill"], f["masked_fill_"] = masked(False), masked(True)

    def cast(dtype):
        def fn(interp, args, kwargs, node):
            values = args[0].values if isinstance(args[0], Tensor) else None
            return constants.settle(Tensor(shape(interp, args[0], node), dtype,
                                           values=constants.fit(values, dtype) if values is not None else None),
                                    constants.cast_progression(args[0], dtype))
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
        """diff(input, n=1, dim=-1, prepend=None, append=None): ``n`` fewer along ``dim`` (after
        prepend/append are joined); the values of a known 1-D first difference."""
        bound = {"n": 1, "dim": -1, "prepend": None, "append": None,
                 **dict(zip(["input", "n", "dim", "prepend", "append"], args)), **kwargs}
        x = shape(interp, bound["input"], node)
        axis = t.moved(interp, ops.normalize_dim, "diff", node, bound["dim"], len(x))
        size = x[axis] - bound["n"]
        for extra in (bound["prepend"], bound["append"]):
            if extra is not None:
                added = shape(interp, extra, node)
                size = size + (added[axis] if len(added) == len(x) else 1)
        out = x[:axis] + (max(size, 0) if isinstance(size, int) else size,) + x[axis + 1:]
        result = Tensor(out, args[0].dtype, values=_diff_values(bound, x, axis, out))
        return result if result.values is not None else constants.settle(result, constants.diff_progression(bound, x, axis))

    def _diff_values(bound, x, axis, out):
        """A first difference along the last dimension, prepend/append of the same rank joined."""
        if bound["n"] != 1 or axis != len(x) - 1:
            return None
        pieces = [bound["prepend"], bound["input"], bound["append"]]
        if any(p is not None and (not isinstance(p, Tensor) or p.values is None or p.shape is None or
                                  len(p.shape) != len(x)) for p in pieces):
            return None
        rows = [constants.along_last(p.values, p.shape, lambda row: [row]) for p in pieces if p is not None]
        if any(r is None for r in rows) or len({len(r) for r in rows}) != 1:
            return None
        joined = [sum((r[i] for r in rows), []) for i in range(len(rows[0]))]
        return constants.known(out, [b - a for row in joined for a, b in zip(row, row[1:])])
    f["diff"] = diff

    def pad(interp, args, kwargs, node):
        x = list(shape(interp, args[0], node))
        amounts = args[1] if len(args) > 1 else kwargs["pad"]
        if isinstance(amounts, Unknown):
            return amounts
        if unknown := next((a for a in amounts if isinstance(a, Unknown)), None):
            return unknown  # an unresolved padding size: the padded size is unknown, and says why
        amounts = [_tensor_int(a) for a in amounts]
        if len(amounts) % 2 or len(amounts) // 2 > len(x):
            raise CannotKnow(f"F.pad with {len(amounts)} padding sizes for a {len(x)}-dimensional tensor")
        before = tuple(x)
        for i in range(len(amounts) // 2):
            x[-1 - i] = x[-1 - i] + amounts[2 * i] + amounts[2 * i + 1]
        mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
        fill = args[3] if len(args) > 3 else kwargs.get("value", 0)
        fill = 0 if fill is None else fill
        if args[0].dtype.startswith(("int", "uint")) and type(fill) is float:
            fill = int(fill)  # torch casts the fill to the tensor's dtype: toward zero
        values = constants.padded(args[0].values, before, list(amounts), fill) \
            if mode == "constant" and args[0].dtype != "bool" else None
        return Tensor(tuple(x), args[0].dtype, values=values)
    f["pad"] = pad

    def new_tensor(interp, args, kwargs, node, label="new_tensor"):
        wanted = _sizes(args[1:]) or list(kwargs.get("size", ()))
        if unknown := next((s for s in wanted if isinstance(s, Unknown)), None):
            return unknown
        sizes = t.moved(interp, ops.new_shape, label, node, [_tensor_int(s) for s in wanted])
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
        kind = dtype or args[0].dtype
        values = args[0].values
        # a move keeps the values; a cast converts them (`mask.to(dtype=torch.bool)`)
        return constants.settle(Tensor(shape(interp, args[0], node), kind,
                                       values=constants.fit(values, str(kind)) if values is not None else None),
                                constants.cast_progression(args[0], str(kind)))
    f["to"] = to

    def is_floating_point(interp, args, kwargs, node):
        """From the dtype: transformers' ``PreTrainedModel.dtype`` picks the first floating parameter."""
        if not isinstance(args[0], Tensor):
            raise CannotKnow("is_floating_point of a value that is not a tensor")
        return args[0].dtype in ("float32", "float", "float16", "half", "bfloat16", "float64", "double")
    f["is_floating_point"] = is_floating_point

    def type_(interp, args, kwargs, node):
        """``x.type(torch.float32)`` casts like ``x.to(dtype)``; ``x.type()`` is the type's name."""
        dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        if not isinstance(dtype, str) or dtype not in DTYPES:
            raise CannotKnow("Tensor.type() without a torch dtype (the tensor type's name, or a type string)")
        return Tensor(shape(interp, args[0], node), dtype)
    f["type"] = type_

    def squeeze(interp, args, kwargs, node):
        new = ops.squeeze(shape(interp, args[0], node), _dim_arg(args, kwargs, 1))
        return constants.settle(Tensor(new, args[0].dtype, values=constants.reshaped(args[0].values, new)),
                                constants.kept_progression(args[0], new))
    f["squeeze"] = squeeze

    def unsqueeze(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        new = t.moved(interp, ops.unsqueeze, "unsqueeze", node, x, _dim_arg(args, kwargs, 1))
        return constants.settle(Tensor(new, args[0].dtype, values=constants.reshaped(args[0].values, new)),
                                constants.kept_progression(args[0], new))
    f["unsqueeze"] = unsqueeze

    def expand(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        out = t.moved(interp, ops.expand, "expand", node, x, _sizes(args[1:]))
        return Tensor(out, args[0].dtype, values=constants.expanded(args[0].values, x, out))
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
        # a count held in a one-element integer tensor is read (V-JEPA 2: `mask.max() + 1`)
        repeats = [_tensor_int(r) for r in _sizes(args[1:])]
        out = t.moved(interp, ops.repeat, "repeat", node, x, repeats)
        return Tensor(out, args[0].dtype, values=constants.tiled(args[0].values, x, list(repeats), out))
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
        tensors = list(args[0] if args else kwargs.get("tensors", ()))
        axis = _dim_arg(args, kwargs, 1, 0)
        shapes = [shape(interp, x, node) for x in tensors]
        # PyTorch skips 1-D empty tensors, shape (0,), whatever the others' rank: a cache that
        # starts as torch.tensor([]) and grows by cat(..., dim=-2) (transformers' DynamicLayer)
        kept = [(x, s) for x, s in zip(tensors, shapes) if tuple(s) != (0,)]
        if kept and len(kept) < len(tensors):
            tensors, shapes = [x for x, _ in kept], [s for _, s in kept]
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
        pieces = tuple(Tensor(x[:axis] + (s,) + x[axis + 1:], args[0].dtype) for s in sizes)
        if args[0].values is not None and axis == 0 and all(isinstance(s, int) for s in sizes):
            # pieces along the first axis are consecutive runs of the row-major values
            row = len(args[0].values) // x[0] if x[0] else 0
            offset = 0
            for piece, size in zip(pieces, sizes):
                piece.values = args[0].values[offset * row:(offset + size) * row]
                offset += size
        return pieces
    f["split"] = split
    f["chunk"] = lambda interp, args, kwargs, node: split(interp, args, kwargs, node, chunks=True)

    def unbind(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        axis = t.moved(interp, ops.normalize_dim, "unbind", node, _dim_arg(args, kwargs, 1, 0), len(x))
        if not isinstance(x[axis], int):
            raise CannotKnow("unbind over a symbolic dimension")
        return tuple(Tensor(x[:axis] + x[axis + 1:], args[0].dtype) for _ in range(x[axis]))
    f["unbind"] = unbind

    def unflatten(interp, args, kwargs, node):
        bound = {**dict(zip(["input", "dim", "sizes"], args)), **kwargs}
        attrs = {"dim": bound["dim"], "unflattened_size": tuple(bound["sizes"]), "type": "unflatten"}
        return t.record(interp, "unflatten", "unflatten", attrs, [shape(interp, bound["input"], node)], node,
                        dtype=args[0].dtype)
    f["unflatten"] = unflatten

    def with_dim(x, dim, size, label, interp, node):
        axis = t.moved(interp, ops.normalize_dim, label, node, dim, len(x))
        return x[:axis] + (size,) + x[axis + 1:]

    def narrow(interp, args, kwargs, node):
        bound = {**dict(zip(["input", "dim", "start", "length"], args)), **kwargs}
        x = shape(interp, bound["input"], node)
        return Tensor(with_dim(x, bound["dim"], bound["length"], "narrow", interp, node), args[0].dtype)
    f["narrow"] = narrow

    def tile(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        times = _sizes(args[1:]) or list(kwargs.get("dims", ()))
        times = [1] * (len(x) - len(times)) + times  # fewer counts than dimensions: leading 1s
        return Tensor(t.moved(interp, ops.repeat, "tile", node, x, times), args[0].dtype)
    f["tile"] = tile

    def movedim(interp, args, kwargs, node):
        bound = {**dict(zip(["input", "source", "destination"], args)), **kwargs}
        x = shape(interp, bound["input"], node)
        source, target = bound["source"], bound["destination"]
        source = list(source) if isinstance(source, (list, tuple)) else [source]
        target = list(target) if isinstance(target, (list, tuple)) else [target]
        source = [t.moved(interp, ops.normalize_dim, "movedim", node, d, len(x)) for d in source]
        target = [t.moved(interp, ops.normalize_dim, "movedim", node, d, len(x)) for d in target]
        if len(source) != len(target) or len(set(source)) != len(source) or len(set(target)) != len(target):
            raise AnalysisError("movedim: source and destination must be distinct dimensions of equal count",
                                interp.location(node), "SF301")
        order = [None] * len(x)
        for s, d in zip(source, target):
            order[d] = s
        rest = iter(i for i in range(len(x)) if i not in source)
        order = [next(rest) if o is None else o for o in order]
        return Tensor(tuple(x[i] for i in order), args[0].dtype)
    f["movedim"] = f["moveaxis"] = movedim

    def broadcast_to(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        sizes = list(args[1] if len(args) > 1 else kwargs["size"])
        return Tensor(t.moved(interp, ops.expand, "broadcast_to", node, x, sizes), args[0].dtype)
    f["broadcast_to"] = broadcast_to

    def split_with_sizes(interp, args, kwargs, node):
        bound = {"dim": 0, **dict(zip(["input", "split_sizes", "dim"], args)), **kwargs}
        return split(interp, [bound["input"], list(bound["split_sizes"]), bound["dim"]], {}, node)
    f["split_with_sizes"] = split_with_sizes

    def tensor_split(interp, args, kwargs, node):
        bound = {"dim": 0, **dict(zip(["input", "indices_or_sections", "dim"], args)), **kwargs}
        for key in ("sections", "indices", "tensor_indices_or_sections"):
            bound.setdefault("indices_or_sections", bound.get(key))
        x = shape(interp, bound["input"], node)
        axis = t.moved(interp, ops.normalize_dim, "tensor_split", node, bound["dim"], len(x))
        size, cut = x[axis], bound["indices_or_sections"]
        if not isinstance(size, int) or isinstance(cut, (Tensor, Unknown)):
            raise CannotKnow("tensor_split of a symbolic dimension or at tensor indices")
        if isinstance(cut, int):  # n sections: the first size % n are one longer
            if cut <= 0:
                raise AnalysisError(f"tensor_split: number of sections must be positive, got {cut}",
                                    interp.location(node), "SF301")
            sizes = [size // cut + (1 if i < size % cut else 0) for i in range(cut)]
        else:  # split before each index, clamped to the dimension as Python slices are
            bounds = [0, *[min(max(i if i >= 0 else size + i, 0), size) for i in cut], size]
            sizes = [max(b - a, 0) for a, b in zip(bounds, bounds[1:])]
        return tuple(Tensor(x[:axis] + (s,) + x[axis + 1:], args[0].dtype) for s in sizes)
    f["tensor_split"] = tensor_split

    def view_as_complex(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        if not x or x[-1] != 2:
            raise AnalysisError("view_as_complex: the last dimension must have size 2", interp.location(node), "SF301")
        return Tensor(x[:-1], args[0].dtype)  # (real, imaginary) pairs become one element
    f["view_as_complex"] = view_as_complex

    def polar(interp, args, kwargs, node):
        """``polar(abs, angle)``: abs * (cos(angle) + i sin(angle)), broadcast (RoPE's cis)."""
        shapes = [shape(interp, args[0] if args else kwargs["abs"], node),
                  shape(interp, args[1] if len(args) > 1 else kwargs["angle"], node)]
        return t.record(interp, "polar", "polar", {}, shapes, node)
    f["polar"] = polar

    def complex_pair(interp, args, kwargs, node):
        """``complex(real, imag)``: pairs two tensors into one complex tensor, no arithmetic."""
        shapes = [shape(interp, args[0] if args else kwargs["real"], node),
                  shape(interp, args[1] if len(args) > 1 else kwargs["imag"], node)]
        return Tensor(t.moved(interp, ops.broadcast, "complex", node, *shapes), "float32")
    f["complex"] = complex_pair

    def view_as_real(interp, args, kwargs, node):
        return Tensor(shape(interp, args[0], node) + (2,), args[0].dtype)
    f["view_as_real"] = view_as_real

    def repeat_interleave(interp, args, kwargs, node):
        bound = {"dim": None, **dict(zip(["input", "repeats", "dim"], args)), **kwargs}
        x, repeats = shape(interp, bound["input"], node), bound["repeats"]
        if isinstance(repeats, Tensor):
            raise CannotKnow("repeat_interleave with a tensor of repeats (the size depends on its values)")
        if isinstance(repeats, int) and repeats < 0:
            raise AnalysisError(f"repeat_interleave: repeats must be non-negative, got {repeats}",
                                interp.location(node), "SF301")
        if bound["dim"] is None:  # the flattened input
            from staticflops.shapes import numel as count
            return Tensor((count(x) * repeats,), args[0].dtype)
        axis = t.moved(interp, ops.normalize_dim, "repeat_interleave", node, bound["dim"], len(x))
        return Tensor(x[:axis] + (x[axis] * repeats,) + x[axis + 1:], args[0].dtype)
    f["repeat_interleave"] = repeat_interleave

    # ---- indexing: the result takes the index's shape; data movement, no arithmetic --------
    def gather(interp, args, kwargs, node):
        bound = {**dict(zip(["input", "dim", "index"], args)), **kwargs}
        x, index = shape(interp, bound["input"], node), shape(interp, bound["index"], node)
        if len(index) != len(x):
            raise AnalysisError(f"gather: index has {len(index)} dimensions, input {len(x)}", interp.location(node), "SF301")
        return Tensor(index, bound["input"].dtype)
    f["gather"] = gather

    def grid_sample(interp, args, kwargs, node):
        # input (N, C, *spatial_in), grid (N, *spatial_out, k) with k = len(spatial_in):
        # output (N, C, *spatial_out).  Like gather, shape only: FlopCounterMode counts no FLOPs
        # for grid_sampler (deformable DETR attention, SAM's point sampling)
        bound = {**dict(zip(["input", "grid"], args)), **kwargs}
        x, grid = shape(interp, bound["input"], node), shape(interp, bound["grid"], node)
        if len(x) not in (4, 5) or len(grid) != len(x) or (isinstance(grid[-1], int) and grid[-1] != len(x) - 2):
            raise AnalysisError(f"grid_sample: input {format_shape(x)} and grid {format_shape(grid)} do not match "
                                "((N, C, H, W) with (N, H_out, W_out, 2), or 5-D with 3)", interp.location(node), "SF301")
        return Tensor((x[0], x[1], *grid[1:-1]), bound["input"].dtype)
    f["grid_sample"] = grid_sample

    def scatter(name):
        """scatter / scatter_add / index_add: the input's shape; the adds are recorded."""
        names = ["input", "dim", "index", "src"] if name != "index_add" else ["input", "dim", "index", "source"]

        def fn(interp, args, kwargs, node):
            bound = {**dict(zip(names, args)), **kwargs}
            x = shape(interp, bound["input"], node)
            source = bound.get("src", bound.get("source", bound.get("value")))
            index = shape(interp, bound["index"], node)
            if name == "scatter" and bound.get("reduce") is None:  # plain writes: data movement
                return Tensor(x, bound["input"].dtype)
            added = index if name != "index_add" else shape(interp, source, node)
            attrs = {"op": name, "dim": bound["dim"]}
            return t.record(interp, "scatter_add", name, attrs, [x, added], node, outputs=[x],
                            dtype=bound["input"].dtype)
        return fn
    for name in ("scatter", "scatter_add", "index_add"):
        f[name] = f[name + "_"] = scatter(name)

    def loss(op, names):
        def fn(interp, args, kwargs, node):
            bound = {**dict(zip(names, args)), **kwargs}
            attrs = {"op": op, "reduction": bound.get("reduction", "mean"),
                     "size_average": bound.get("size_average"), "reduce": bound.get("reduce")}
            attrs["reduction"] = legacy_reduction(attrs)
            if problem := argument_error("loss", attrs):
                raise AnalysisError(f"F.{op}: {problem}", interp.location(node), "SF301")
            shapes = [shape(interp, bound[k], node) for k in names[:2]]
            return t.record(interp, "loss", f"F.{op}", attrs, shapes, node)
        return fn
    for op in ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
               "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss", "kl_div"):
        f[op] = loss(op, ["input", "target"])

    def normalize(interp, args, kwargs, node):
        """F.normalize: x / max(||x||_p, eps) along ``dim`` (default 1)."""
        bound = {"p": 2.0, "dim": 1, **dict(zip(["input", "p", "dim", "eps"], args)), **kwargs}
        x = shape(interp, bound["input"], node)
        dim = t.moved(interp, ops.normalize_dim, "F.normalize", node, bound["dim"], max(len(x), 1))
        return t.record(interp, "normalize", "F.normalize", {"p": bound["p"], "dim": dim}, [x], node)
    f["normalize"] = normalize

    def index_select(interp, args, kwargs, node):
        bound = {**dict(zip(["input", "dim", "index"], args)), **kwargs}
        x, index = shape(interp, bound["input"], node), shape(interp, bound["index"], node)
        if len(index) > 1:
            raise AnalysisError("index_select: the index must be 1-D", interp.location(node), "SF301")
        return Tensor(with_dim(x, bound["dim"], index[0] if index else 1, "index_select", interp, node), bound["input"].dtype)
    f["index_select"] = index_select

    def take_along_dim(interp, args, kwargs, node):
        bound = {"dim": None, **dict(zip(["input", "indices", "dim"], args)), **kwargs}
        x, index = shape(interp, bound["input"], node), shape(interp, bound["indices"], node)
        if bound["dim"] is None:  # indices into the flattened input
            from staticflops.shapes import numel as count
            return Tensor((count(index),), bound["input"].dtype)
        axis = t.moved(interp, ops.normalize_dim, "take_along_dim", node, bound["dim"], len(x))
        others = t.moved(interp, ops.broadcast, "take_along_dim", node,
                         x[:axis] + (1,) + x[axis + 1:], index[:axis] + (1,) + index[axis + 1:])
        return Tensor(others[:axis] + (index[axis],) + others[axis + 1:], bound["input"].dtype)
    f["take_along_dim"] = take_along_dim

    # ---- computing ops ------------------------------------------------------------------
    def matmul(label):
        def fn(interp, args, kwargs, node):
            a, b = args[0], args[1]
            return t.record(interp, "matmul", label, {}, [shape(interp, a, node), shape(interp, b, node)], node)
        return fn
    f["matmul"], f["mm"], f["bmm"] = matmul("matmul"), matmul("mm"), matmul("bmm")

    def grouped_mm(interp, args, kwargs, node):
        """F.grouped_mm / torch._grouped_mm(a, b, offs=...): mixture-of-experts' grouped GEMM.
        2-D ``a`` (rows sorted by group) with 3-D ``b`` (one K x N matrix per group): each row is
        multiplied by its group's matrix, so it costs what ``a @ b[g]`` costs, S x K x N MACs,
        whatever the (data-dependent) group sizes in ``offs`` are -- exact when ``offs`` ends at
        S, i.e. every row is routed (rows past ``offs[-1]`` are skipped by the kernel).  3-D with
        3-D is a batched matmul; the other layouts (grouping over K) are left unknown."""
        bound = {**dict(zip(["a", "b"], args)), **{{"mat_a": "a", "mat_b": "b"}.get(k, k): v for k, v in kwargs.items()}}
        a, b = shape(interp, bound["a"], node), shape(interp, bound["b"], node)
        if len(a) == 2 and len(b) == 3:
            return t.record(interp, "matmul", "grouped_mm", {}, [a, b[1:]], node)
        if len(a) == 3 and len(b) == 3:
            return t.record(interp, "matmul", "grouped_mm", {}, [a, b], node)
        raise CannotKnow(f"grouped_mm of a {len(a)}-D and a {len(b)}-D tensor (grouping over K) is not modelled")
    f["grouped_mm"] = f["_grouped_mm"] = grouped_mm

    def histc(interp, args, kwargs, node):
        """torch.histc(x, bins=100): the ``bins`` counts (a float tensor); counting is not arithmetic."""
        bins = _dim_arg(args, kwargs, 1, 100, "bins")
        if not isinstance(bins, int) or isinstance(bins, bool):
            raise CannotKnow("torch.histc with an unresolved number of bins")
        shape(interp, args[0], node)
        return Tensor((bins,), args[0].dtype)
    f["histc"] = histc
    f["__matmul__"] = matmul("@")  # the operator: some counters patch torch.matmul but not `@`

    def add_product(name):
        """addmm / baddbmm / addbmm / addmv: ``beta * input + alpha * (a @ b)`` (addbmm also sums
        the batch of products).  GPT-2's Conv1D and Bloom/NeoX attention scores use them."""
        def fn(interp, args, kwargs, node):
            bound = {"beta": 1, "alpha": 1, **dict(zip(["input", "a", "b"], args))}
            bound.update({{"mat1": "a", "mat2": "b", "batch1": "a", "batch2": "b", "mat": "a", "vec": "b"}.get(k, k): v
                          for k, v in kwargs.items()})
            attrs = {"op": name, "beta": bound["beta"], "alpha": bound["alpha"]}
            shapes = [shape(interp, bound[k], node) for k in ("input", "a", "b")]
            return t.record(interp, "add_product", name, attrs, shapes, node)
        return fn
    for name in ("addmm", "baddbmm", "addbmm", "addmv"):
        f[name] = add_product(name)

    def outer(interp, args, kwargs, node):
        """``outer(a, b)``: a[:, None] * b[None, :], one multiply per output (RoPE frequencies)."""
        a, b = shape(interp, args[0], node), shape(interp, args[1] if len(args) > 1 else kwargs["vec2"], node)
        if len(a) != 1 or len(b) != 1:
            raise AnalysisError("outer: both operands must be 1-D", interp.location(node), "SF301")
        left, right = args[0], args[1] if len(args) > 1 else kwargs["vec2"]
        return t.framework.binary(interp, "mul", Tensor(a + (1,), left.dtype, requires_grad=left.requires_grad),
                                  Tensor((1,) + b, right.dtype, requires_grad=right.requires_grad), node, label="outer")
    f["outer"] = f["ger"] = outer

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
        names = ["query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa"]
        bound = {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "enable_gqa": False,
                 **dict(zip(names, args)), **kwargs}
        shapes = [shape(interp, bound[k], node) for k in ("query", "key", "value")]
        attrs = {"is_causal": bound["is_causal"] is True, "has_mask": bound["attn_mask"] is not None,
                 "enable_gqa": bound["enable_gqa"] is True}
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
        training = _dim_arg(args, kwargs, 2, True, "training")  # F.dropout's default: training=True
        # p and the mode tell whether it keeps a mask for backward (cost/recompute.py)
        known_p = p if isinstance(p, (int, float)) and not isinstance(p, bool) else None  # never an unknown argument
        return t.record(interp, "dropout", "dropout", {"p": known_p, "training": training is not False},
                        [shape(interp, args[0], node)], node)
    f["dropout"] = f["dropout1d"] = f["dropout2d"] = f["dropout3d"] = dropout

    def binary(kind, name):
        def fn(interp, args, kwargs, node):
            other = args[1] if len(args) > 1 else kwargs.get("other", kwargs.get("exponent"))
            # x.div(y, rounding_mode="floor"): priced as a division, valued as it rounds
            valued_as = {"floor": "floordiv", "trunc": "truncdiv"}.get(kwargs.get("rounding_mode")) if kind == "div" else None
            result = t.framework.binary(interp, kind, args[0], other, node, label=name, valued_as=valued_as)
            if name.endswith("_") and isinstance(args[0], Tensor):  # x.add_(y): x now holds the result
                args[0].values = result.values if isinstance(result, Tensor) else None
                args[0].progression = result.progression if isinstance(result, Tensor) else None
            return result
        return fn
    for kind, names in {"add": ("add", "add_"), "sub": ("sub", "sub_", "subtract"), "mul": ("mul", "mul_", "multiply"),
                        "div": ("div", "div_", "divide", "true_divide"), "pow": ("pow", "pow_"),
                        "maximum": ("maximum",), "minimum": ("minimum",)}.items():
        for name in names:
            f[name] = binary(kind, name)

    def square(interp, args, kwargs, node):
        """torch.square(x): x * x, one multiply per element (priced as that product)."""
        return t.framework.binary(interp, "mul", args[0], args[0], node, label="square")
    f["square"] = f["square_"] = square

    def comparison(name):
        def fn(interp, args, kwargs, node):
            other = args[1] if len(args) > 1 else kwargs.get("other")
            return t.framework.binary(interp, "compare", args[0], other, node, label=name)
        return fn
    for name in ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
                 "not_equal", "logical_and", "logical_or", "logical_xor"):
        f[name] = comparison(name)

    def logical_not(interp, args, kwargs, node):
        result = t.record(interp, "compare", "logical_not", {}, [shape(interp, args[0], node)], node, dtype="bool")
        if isinstance(result, Tensor):
            result.requires_grad = False
        return result
    f["logical_not"] = logical_not

    def truth_reduction(name):
        """``all`` / ``any``: a reduction to bool (over all elements, or a dim)."""
        def fn(interp, args, kwargs, node):
            attrs = {"op": name, "dim": _dim_arg(args, kwargs, 1), "keepdim": _dim_arg(args, kwargs, 2, False, "keepdim")}
            result = t.record(interp, "reduce", name, attrs, [shape(interp, args[0], node)], node, dtype="bool")
            if isinstance(result, Tensor):
                result.requires_grad = False
                if attrs["dim"] is None and args[0].values is not None:  # over every element: one known bool
                    result.values = [(all if name == "all" else any)(bool(v) for v in args[0].values)]
                elif attrs["dim"] is None and (found := constants.progression(args[0])) is not None and not found[1]:
                    result.values = [bool(found[0])]  # one value everywhere (sizes are at least 1)
            return result
        return fn
    f["all"], f["any"] = truth_reduction("all"), truth_reduction("any")

    def reduction(name):
        def fn(interp, args, kwargs, node):
            x = shape(interp, args[0], node)
            axis = _dim_arg(args, kwargs, 1)
            keepdim = _dim_arg(args, kwargs, 2, False, "keepdim")
            attrs = {"op": name, "dim": axis, "keepdim": keepdim}
            result = t.record(interp, "reduce", name, attrs, [x], node)
            if isinstance(result, Tensor) and axis is None and name in _FULL_REDUCTIONS:
                values = args[0].values  # over every element of known values: one known number
                if values is not None and values:
                    if name != "mean":  # an integer tensor's sum stays integer; booleans sum as int64
                        result.dtype = "int64" if args[0].dtype == "bool" else args[0].dtype
                    result.values = constants.known(result.shape, constants.fit(
                        [_FULL_REDUCTIONS[name](values)], result.dtype))
            elif isinstance(result, Tensor) and name in _FULL_REDUCTIONS and args[0].values is not None:
                # along one dim (`mask.sum(-1)`: per-row lengths), each row's number
                if name != "mean":
                    result.dtype = "int64" if args[0].dtype == "bool" else args[0].dtype
                rows = constants.reduced_along(args[0].values, tuple(args[0].shape), axis, _FULL_REDUCTIONS[name])
                result.values = constants.known(result.shape, constants.fit(rows, result.dtype)) if rows else None
            return result
        return fn
    for name in REDUCTIONS:
        f[name] = reduction(name)

    def linalg_norm(interp, args, kwargs, node):
        """torch.linalg.norm / vector_norm(x, ord, dim, keepdim): ``ord`` comes before ``dim``."""
        attrs = {"op": "norm", "dim": _dim_arg(args, kwargs, 2), "keepdim": _dim_arg(args, kwargs, 3, False, "keepdim")}
        return t.record(interp, "reduce", "torch.linalg.norm", attrs, [shape(interp, args[0], node)], node)
    # reached as torch.linalg.norm / torch.linalg.vector_norm (framework.py's torch.linalg namespace)
    f["linalg_norm"] = linalg_norm

    def max_or_min(name):
        def fn(interp, args, kwargs, node):
            other = args[1] if len(args) > 1 else kwargs.get("dim")
            if isinstance(other, (Tensor, Unknown)):
                return t.framework.binary(interp, "maximum" if name == "max" else "minimum", args[0], other, node)
            x = shape(interp, args[0], node)
            keepdim = _dim_arg(args, kwargs, 2, False, "keepdim")
            values = t.record(interp, "reduce", name, {"op": name, "dim": other, "keepdim": keepdim}, [x], node)
            if other is None and isinstance(values, Tensor) and args[0].values \
                    and not any(v != v for v in args[0].values):  # (torch propagates a NaN; Python's max does not)
                # over every element of known values: the largest (smallest), in the input's dtype
                values.dtype = args[0].dtype
                values.values = constants.known(values.shape, [(max if name == "max" else min)(args[0].values)])
            if other is None or not isinstance(values, Tensor):
                return values
            return values_and_indices(values, Tensor(values.shape, "int64"))
        return fn
    f["max"], f["min"] = max_or_min("max"), max_or_min("min")

    def cumulative(name):
        """cumsum / cumprod: a running sum or product along ``dim``, the input's shape."""
        def fn(interp, args, kwargs, node):
            x = shape(interp, args[0], node)
            dim = t.moved(interp, ops.normalize_dim, name, node, _dim_arg(args, kwargs, 1), max(len(x), 1))
            dtype = "int64" if args[0].dtype == "bool" else args[0].dtype  # torch sums booleans as int64
            result = t.record(interp, "cumulative", name, {"op": name, "dim": dim}, [x], node, dtype=dtype)
            if isinstance(result, Tensor) and name == "cumsum" and dim == len(x) - 1:
                result.values = constants.known(x, constants.along_last(args[0].values, x, constants.running_total))
                if result.values is None:
                    constants.settle(result, constants.running_progression(args[0]))
            return result
        return fn
    for name in ("cumsum", "cumprod", "cumsum_", "cumprod_"):
        f[name] = cumulative(name.rstrip("_"))

    def sorting(name):
        """sort / topk: (values, indices); argsort: the indices; msort: the values (a plain tensor)."""
        def fn(interp, args, kwargs, node):
            x = shape(interp, args[0], node)
            if name == "topk":
                k = _dim_arg(args, kwargs, 1, None, "k")
                dim = _dim_arg(args, kwargs, 2, -1)
            else:
                k, dim = None, 0 if name == "msort" else _dim_arg(args, kwargs, 1, -1)
            if isinstance(dim, bool):  # sort(x, descending) written positionally is an error in torch
                raise AnalysisError(f"{name}: dim must be an integer", interp.location(node), "SF301")
            dim = t.moved(interp, ops.normalize_dim, name, node, dim, max(len(x), 1))
            result = t.record(interp, "sort", name, {"op": name, "dim": dim, "k": k}, [x], node,
                              dtype=args[0].dtype)
            if not isinstance(result, Tensor):
                return result
            # positions along `dim`: every index is below its size (a one-hot mask of them is exact)
            indices = routing.IndexBound(result.shape, "int64", bound=x[dim] if x else None)
            if name == "argsort":
                return indices
            if name == "msort":  # torch.msort returns the sorted tensor, no indices
                return result
            return values_and_indices(result, indices)
        return fn
    for name in ("sort", "argsort", "msort", "topk"):
        f[name] = sorting(name)

    def argmax(interp, args, kwargs, node):
        x = shape(interp, args[0], node)
        return Tensor(ops.reduce(x, _dim_arg(args, kwargs, 1), _dim_arg(args, kwargs, 2, False, "keepdim")), "int64")
    f["argmax"] = f["argmin"] = argmax

    def interpolate(interp, args, kwargs, node):
        names = ["input", "size", "scale_factor", "mode", "align_corners"]
        bound = {"size": None, "scale_factor": None, "mode": "nearest", **dict(zip(names, args)), **kwargs}
        size = bound["size"]
        # a size read from one-element integer tensors (ViLT: each image's patch-grid height)
        size = [_tensor_int(s) for s in size] if isinstance(size, (tuple, list)) else _tensor_int(size)
        attrs = {"size": size, "scale_factor": bound["scale_factor"], "mode": bound["mode"]}
        x = bound["input"]
        out = t.record(interp, "interpolate", "F.interpolate", attrs, [shape(interp, x, node)], node)
        if bound["mode"] == "nearest" and isinstance(out, Tensor) and isinstance(x, Tensor) and x.values is not None:
            out.values = nearest_values(x.values, x.shape, out.shape, None if size is not None else bound["scale_factor"])
        return out
    f["interpolate"] = f["upsample"] = interpolate

    def pool(kind, dims):
        def fn(interp, args, kwargs, node):
            names = ["input", "kernel_size", "stride", "padding"] + (["dilation", "ceil_mode", "return_indices"]
                                                                     if kind == "max_pool" else ["ceil_mode"])
            bound = {"stride": None, "padding": 0, "dilation": 1, "ceil_mode": False, **dict(zip(names, args)), **kwargs}
            kernel = ntuple(bound["kernel_size"], dims)
            attrs = {"dims": dims, "kernel_size": kernel,
                     "stride": ntuple(bound["stride"] if bound["stride"] not in (None, []) else kernel, dims),
                     "padding": ntuple(bound["padding"], dims), "dilation": ntuple(bound["dilation"], dims),
                     "ceil_mode": bound["ceil_mode"], "type": f"F.{kind}{dims}d"}
            if bound.get("return_indices") is True:
                attrs["return_indices"] = True
            return _indices_int64(t.record(interp, kind, attrs["type"], attrs, [shape(interp, bound["input"], node)], node))
        return fn

    def adaptive(kind, dims):
        def fn(interp, args, kwargs, node):
            size = args[1] if len(args) > 1 else kwargs["output_size"]
            attrs = {"dims": dims, "output_size": ntuple(size, dims), "type": f"F.{kind}{dims}d"}
            if _dim_arg(args, kwargs, 2, False, "return_indices") is True:
                attrs["return_indices"] = True
            return _indices_int64(t.record(interp, kind, attrs["type"], attrs, [shape(interp, args[0], node)], node))
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

    def rms_norm(interp, args, kwargs, node):
        bound = {"weight": None, **dict(zip(["input", "normalized_shape", "weight", "eps"], args)), **kwargs}
        normalized = bound["normalized_shape"]
        normalized = tuple(normalized) if isinstance(normalized, (list, tuple)) else (normalized,)
        attrs = {"normalized_shape": normalized, "elementwise_affine": bound["weight"] is not None, "type": "F.rms_norm"}
        return t.record(interp, "rms_norm", "F.rms_norm", attrs, [shape(interp, bound["input"], node)], node)
    f["rms_norm"] = rms_norm

    def glu(interp, args, kwargs, node):
        attrs = {"dim": _dim_arg(args, kwargs, 1, -1)}
        return t.record(interp, "glu", "F.glu", attrs, [shape(interp, args[0], node)], node)
    f["glu"] = glu

    def one_hot(interp, args, kwargs, node):
        classes = _dim_arg(args, kwargs, 1, -1, "num_classes")
        if classes == -1:
            raise CannotKnow("F.one_hot without num_classes (the size is the largest index + 1)")
        return Tensor(shape(interp, args[0], node) + (classes,), "int64")
    f["one_hot"] = one_hot

    def channel_norm(kind, names):
        """F.batch_norm / F.instance_norm / F.group_norm: the layer's kind, from the tensors."""
        def fn(interp, args, kwargs, node):
            bound = {"weight": None, **dict(zip(names, args)), **kwargs}
            x = shape(interp, bound["input"], node)
            if len(x) < 2:
                raise AnalysisError(f"F.{kind}: expects an input of rank at least 2, got rank {len(x)}",
                                    interp.location(node), "SF301")
            affine = bound["weight"] is not None
            attrs = {"affine": affine, "type": f"F.{kind}", "dims": len(x) - 2}
            if kind == "group_norm":
                attrs.update(num_groups=bound["num_groups"], num_channels=x[1])
                if problem := argument_error("group_norm", attrs):
                    raise AnalysisError(f"F.group_norm: {problem}", interp.location(node), "SF301")
            else:
                attrs["num_features"] = x[1]
            return t.record(interp, kind, f"F.{kind}", attrs, [x], node)
        return fn
    f["batch_norm"] = channel_norm("batch_norm", ["input", "running_mean", "running_var", "weight", "bias"])
    f["instance_norm"] = channel_norm("instance_norm", ["input", "running_mean", "running_var", "weight", "bias"])
    f["group_norm"] = channel_norm("group_norm", ["input", "num_groups", "weight", "bias"])

    def embedding(interp, args, kwargs, node):
        ids, weight = shape(interp, args[0], node), shape(interp, args[1], node)
        attrs = {"num_embeddings": weight[0], "embedding_dim": weight[1], "type": "F.embedding"}
        return t.record(interp, "embedding", "F.embedding", attrs, [ids], node)
    f["embedding"] = embedding

    def pixel_shuffling(kind, factor):
        """F.pixel_shuffle / F.pixel_unshuffle(x, factor): the kind's shape function moves the data."""
        def fn(interp, args, kwargs, node):
            attrs = {factor: args[1] if len(args) > 1 else kwargs[factor]}
            return t.record(interp, kind, f"F.{kind}", attrs, [shape(interp, args[0], node)], node)
        return fn
    f["pixel_shuffle"] = pixel_shuffling("pixel_shuffle", "upscale_factor")
    f["pixel_unshuffle"] = pixel_shuffling("pixel_unshuffle", "downscale_factor")

    def where(interp, args, kwargs, node):
        shapes = [shape(interp, v, node) for v in args[:3]]
        return t.record(interp, "where", "where", {}, shapes, node)
    f["where"] = where

    return f


# ---- tensor constructors --------------------------------------------------------------

DTYPES = {"float32", "float", "float16", "half", "bfloat16", "float64", "double", "int64", "long",
          "int32", "int", "int16", "short", "int8", "uint8", "bool"}
_INT_DTYPES = {"int64", "long", "int32", "int", "int16", "short", "int8", "uint8"}


class DTypeName(str):
    """``torch.int32`` and friends: the dtype class the analysis tracks ("int64", "float32",
    "bool"), remembering the exact name for the places the width matters (a dtype view, finfo).

    The program compares them as torch does, by exact dtype: ``torch.float16 == torch.half``,
    ``torch.float16 != torch.float32``.  A tensor's ``.dtype`` is the default dtype of its class
    (float32, int64, bool: what the ground truth runs in), so ``x.dtype == torch.float16`` is
    False, as in a float32 model.  Against a plain string (the analysis' own tracked names) a
    DTypeName compares as its class, as before."""

    def __new__(cls, name: str):
        tracked = "int64" if name in _INT_DTYPES else "bool" if name == "bool" else "float32"
        value = super().__new__(cls, tracked)
        value.exact = name
        return value

    def __eq__(self, other):
        if isinstance(other, DTypeName):
            return _CANONICAL.get(self.exact, self.exact) == _CANONICAL.get(other.exact, other.exact)
        return str.__eq__(self, other)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = str.__hash__  # equal dtypes have equal classes, so equal hashes


    def attribute(self, name: str):
        """torch.dtype's own attributes (``target.dtype.is_floating_point``), else MISSING."""
        exact = _CANONICAL.get(self.exact, self.exact)
        if name == "is_floating_point":
            return exact in _ITEMSIZE and exact.startswith(("float", "bfloat"))
        if name == "is_complex":
            return False  # the tracked dtypes are real
        if name == "is_signed":
            return exact not in ("uint8", "bool")
        if name == "itemsize":
            return _ITEMSIZE.get(exact, MISSING)
        return MISSING


# bytes per element of each dtype torch names (torch.dtype.itemsize)
_ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int64": 8, "int32": 4, "int16": 2, "int8": 1,
             "uint8": 1, "bool": 1}

_CANONICAL = {"half": "float16", "float": "float32", "double": "float64", "long": "int64", "int": "int32",
              "short": "int16"}


def dtype_objects() -> dict:
    """``torch.<dtype>`` by name; an alias is the same object as the dtype it names
    (``torch.float is torch.float32``), as in torch."""
    objects = {name: DTypeName(name) for name in DTYPES if name not in _CANONICAL}
    objects.update({alias: objects[name] for alias, name in _CANONICAL.items() if name in objects})
    return objects


# The legacy typed constructors: torch.LongTensor(data) or torch.LongTensor(*sizes), of this dtype
_TYPED_TENSORS = {"Tensor": "float32", "FloatTensor": "float32", "LongTensor": "int64", "IntTensor": "int64",
                  "BoolTensor": "bool"}


def build_constructors(t: TorchOps) -> dict:
    c: dict = {}

    def dtype_of(kwargs, default="float32"):
        dtype = kwargs.get("dtype", default)
        if not isinstance(dtype, str):
            return default
        return "int64" if dtype in _INT_DTYPES else ("bool" if dtype == "bool" else "float32")

    def creator(name):
        def create(interp, args, kwargs, node):
            typed = _TYPED_TENSORS.get(name)
            if typed and len(args) == 1 and isinstance(args[0], (list, Tensor)):
                # torch.Tensor(data): a float32 copy of a list or an array (BiT's per-block drop
                # rates are torch.Tensor(np.linspace(...))), not a size; LongTensor(data) an int64 one
                return tensor(interp, args, {"dtype": typed}, node)
            sizes = _sizes(args) or list(kwargs.get("size", ()))
            for s in sizes:
                if isinstance(s, Unknown):
                    return s
            _refuse_non_int_sizes(interp, f"torch.{name}", sizes, node)
            made = (UnitDraw if name == "rand" else Tensor)(  # rand: values in [0, 1) (torch/draws.py)
                t.moved(interp, ops.new_shape, f"torch.{name}", node, [_tensor_int(s) for s in sizes]),
                typed or dtype_of(kwargs))
            return filled(made, _FILLS.get(name))
        return create
    for name in ("zeros", "ones", "randn", "rand", "empty", *_TYPED_TENSORS):
        c[name] = creator(name)

    def full(interp, args, kwargs, node):
        value = args[1] if len(args) > 1 else kwargs.get("fill_value")
        _refuse_non_int_sizes(interp, "torch.full", _sizes(args[:1]), node)
        made = Tensor(t.moved(interp, ops.new_shape, "torch.full", node,
                              [_tensor_int(s) for s in _sizes(args[:1])]),
                      dtype_of(kwargs, "float32" if isinstance(value, float) else "int64" if type(value) is int
                               else "bool" if type(value) is bool else "float32"))
        return filled(made, value if type(value) in (int, float, bool) else None)
    c["full"] = full

    def normal(interp, args, kwargs, node):
        """torch.normal(mean, std, size): the given size; with tensor mean/std: their broadcast shape."""
        size = kwargs.get("size", args[2] if len(args) > 2 else None)
        if size is not None:
            return creator("normal")(interp, [size], {}, node)
        tensors = [a for a in list(args[:2]) + [kwargs.get("mean"), kwargs.get("std")] if isinstance(a, Tensor)]
        if not tensors:
            raise CannotKnow("torch.normal of two numbers without a size")
        result = tensors[0].shape
        for other in tensors[1:]:
            result = t.moved(interp, ops.broadcast, "torch.normal", node, result, other.shape)
        return Tensor(result, "float32")
    c["normal"] = normal

    def randint(interp, args, kwargs, node):
        size = kwargs.get("size", args[-1] if args else ())
        return Tensor(tuple(size), "int64")
    c["randint"] = randint

    def like_of(name):
        def like(interp, args, kwargs, node):
            source = args[0]
            if isinstance(source, Unknown):
                return source
            if not isinstance(source, Tensor):  # torch.ones_like(None): torch's own TypeError
                kind = "NoneType" if source is None else getattr(getattr(source, "cls", None), "name", None) \
                    or type(source).__name__
                raise interp.fail(f"{name}(): argument 'input' (position 1) must be Tensor, not {kind}", node,
                                  python="TypeError")
            made = (UnitDraw if name == "rand_like" else Tensor)(source.shape, dtype_of(kwargs, source.dtype))
            value = _FILLS.get(name) if name != "full_like" else (args[1] if len(args) > 1 else kwargs.get("fill_value"))
            return filled(made, value if type(value) in (int, float, bool) else None)
        return like
    for name in ("zeros_like", "ones_like", "randn_like", "rand_like", "empty_like", "full_like"):
        c[name] = like_of(name)

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
        elif isinstance(start, int) and isinstance(step, int) and dtype == "int64":  # arange(T): start, start + step, ...
            return constants.settle(Tensor((length,), dtype), (start, step))
        return Tensor((length,), dtype, values=values)
    c["arange"] = arange

    def linspace(interp, args, kwargs, node):
        """``torch.linspace(start, end, steps)``: drop-path schedules take ``.item()``/``.tolist()``
        of it.  Values in float32 as PyTorch's scalar CPU kernel computes them: ``start + i * step``
        for the first half, ``end - (steps - 1 - i) * step`` for the rest (its vectorised loop
        can differ in the last bit for long ranges; models compare these rates with 0)."""
        bound = dict(zip(("start", "end", "steps"), [a for a in args]), **kwargs)
        start, end, steps = bound.get("start"), bound.get("end"), bound.get("steps")
        if isinstance(steps, Unknown):
            return steps
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
            raise AnalysisError(f"torch.linspace: steps must be a non-negative integer, got {steps!r}",
                                interp.location(node), "SF301")
        dtype = dtype_of(kwargs, "float32")
        if not all(type(v) in (int, float) for v in (start, end)):  # the shape is known, the values are not
            return Tensor((steps,), dtype)
        if steps > constants.MAX_VALUES or dtype != "float32":
            return Tensor((steps,), dtype)
        f32 = constants.float32
        first, last = f32(float(start)), f32(float(end))
        step = f32(f32(last - first) / (steps - 1)) if steps > 1 else 0.0
        half = steps // 2
        values = [f32(first + f32(step * i)) if i < half else f32(last - f32(step * (steps - 1 - i)))
                  for i in range(steps)]
        return Tensor((steps,), dtype, values=values)
    c["linspace"] = linspace

    def logspace(interp, args, kwargs, node):
        """``torch.logspace(start, end, steps)``: the shape only."""
        steps = args[2] if len(args) > 2 else kwargs.get("steps")
        if isinstance(steps, Unknown):
            return steps
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
            raise AnalysisError(f"torch.linspace: steps must be a non-negative integer, got {steps!r}",
                                interp.location(node), "SF301")
        return Tensor((steps,), dtype_of(kwargs))
    c["logspace"] = logspace

    def eye(interp, args, kwargs, node):
        rows = args[0] if args else kwargs.get("n")
        columns = args[1] if len(args) > 1 and not isinstance(args[1], str) else kwargs.get("m", rows)
        return Tensor(t.moved(interp, ops.new_shape, "torch.eye", node, [rows, columns]), dtype_of(kwargs))
    c["eye"] = eye

    def tensor(interp, args, kwargs, node):
        data = args[0] if args else kwargs.get("data")
        if isinstance(data, Tensor):  # torch.tensor(array): a copy, its values with it
            dtype = dtype_of(kwargs, data.dtype if data.dtype in ("int64", "bool") else "float32")
            values = constants.fit(data.values, dtype) if data.values is not None else None
            return Tensor(data.shape, dtype, values=values)
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
