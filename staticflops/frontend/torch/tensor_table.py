"""Tensor methods and ``torch.*`` functions bound to op kinds: one literal table, one binder.

Each entry names a kind of the catalogue (``staticflops/kinds/``, such as ``reduce``), the
function's signature (bound by the interpreter's signature binder, so a wrong
call is a located error) and, where the default does not fit, a ``configure`` step.  The
default: the bound tensors (lists of tensors flattened) are the operands in signature order,
every bound plain value is an attribute, ``op`` is the function's name.  Costs are in
``rules/*.yaml``; a kind that only moves data records nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from staticflops.diagnostics import AnalysisError, reason
from staticflops.frontend.values import CannotKnow, Class, Record, Tensor, Unknown
from staticflops.kinds.catalogue import KINDS, TENSOR_KINDS
from staticflops.kinds.record import Unresolved, smaller
from staticflops.shapes.layers import infer
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError, normalize_dim


@dataclass(frozen=True)
class Op:
    """``returns``: the field names of a ``torch.return_types`` result, ``("*",)`` for a plain
    tuple (one item per output), empty for one tensor.  ``dtypes``: per output, ``same`` (the
    first operand's), ``float32``, ``int64`` or ``bool``; the last repeats.  ``returns_with_dim``:
    the fields when a ``dim`` is given (``median(x)`` is a tensor, ``median(x, 1)`` values and
    indices)."""

    kind: str
    signature: str
    returns: tuple = ()
    dtypes: tuple = ("same",)
    configure: Callable | None = None
    returns_with_dim: tuple = ()


@dataclass(frozen=True)
class Alias:
    """The same function under another name (``absolute`` is ``abs``); ``target`` is a name
    of ``functions.build_functions``."""

    target: str


@dataclass(frozen=True)
class Product:
    """An op torch computes as one or more matrix products (``matmul`` ops, as it runs them)."""

    signature: str


@dataclass(frozen=True)
class DataDependent:
    """An op whose output shape depends on the tensor's values: a located unknown saying so."""


_PLAIN = (int, float, str, bool, type(None))


def _plain(value) -> bool:
    return isinstance(value, _PLAIN) or (isinstance(value, tuple) and all(isinstance(v, _PLAIN) for v in value))


def _tensors(value) -> list:
    if isinstance(value, (Tensor, Unknown)):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return []


def default(name: str, bound: dict) -> tuple:
    attrs = {"op": name}
    operands: list = []
    for key, value in bound.items():
        found = _tensors(value)
        if found:
            operands.extend(found)
        elif _plain(value):
            attrs[key] = tuple(value) if isinstance(value, list) else value
        elif isinstance(value, list) and all(isinstance(v, _PLAIN) for v in value):
            attrs[key] = tuple(value)
    return attrs, operands


# ---- configure steps (bound arguments -> attrs, operands) -----------------------------------

def _along_dim(name, bound):
    """cumulative kinds: ``dim`` normalised (the `full` rules index ``x[dim]``)."""
    attrs, operands = default(name, bound)
    x = operands[0]
    if isinstance(x, Tensor) and x.shape is not None and isinstance(attrs.get("dim"), int):
        attrs["dim"] = normalize_dim(attrs["dim"], max(len(x.shape), 1))
    return attrs, operands


def _reduce_all_but(name, bound):
    """norm_except_dim(v, pow, dim): a norm over every other dim, kept as size 1."""
    attrs, operands = default(name, bound)
    rank = len(operands[0].shape) if isinstance(operands[0], Tensor) and operands[0].shape else 0
    keep = normalize_dim(bound["dim"], max(rank, 1)) if rank else 0
    attrs.update(op="norm", dim=tuple(i for i in range(rank) if i != keep) or None, keepdim=True)
    return attrs, operands


def _hash(name, bound):
    attrs, operands = default(name, bound)
    if attrs.get("dim") == ():  # dim=() hashes every element
        attrs["dim"] = None
    return attrs, operands


def _diagonal_of(name, bound):
    """trace: the sum of the matrix's diagonal (min(rows, columns) elements)."""
    attrs, operands = default(name, bound)
    x = operands[0]
    if isinstance(x, Tensor) and x.shape is not None and len(x.shape) == 2:
        try:
            size = smaller(*x.shape)
        except Unresolved as why:
            raise CannotKnow(str(why)) from None
        operands = [Tensor((size,), x.dtype)]
    attrs.update(op="sum", dim=None, keepdim=False)
    return attrs, operands


def _search(name, bound):
    """searchsorted(sorted_sequence, input) and bucketize(input, boundaries): (values, sorted)."""
    attrs, operands = default(name, bound)
    return attrs, operands[::-1] if name == "searchsorted" else operands


def _reduction(op):
    def configure(name, bound):
        attrs, operands = default(name, bound)
        attrs["op"] = op
        attrs.setdefault("dim", None)
        attrs.setdefault("keepdim", False)
        return attrs, operands
    return configure


def _shaped_like_src(name, bound):
    """slice_inverse(input, src, ...): the result is shaped like ``src`` (the base sliced)."""
    attrs, operands = default(name, bound)
    return attrs, operands[1:2]


def _scatter_reduce(name, bound):
    """As scatter_add: the input's shape, one operation per index (src) element."""
    attrs, operands = default(name, bound)
    x, index = operands[0], operands[1]
    return {"op": name, "dim": bound["dim"], "reduce": bound["reduce"]}, [x, index]


def _atleast(rank):
    def configure(name, bound):
        attrs, operands = default(name, bound)
        attrs["rank"] = rank
        return attrs, operands
    return configure


def _created(size_of):
    def configure(name, bound):
        return {"op": name, "size": size_of(bound)}, []
    return configure


def _range_length(bound):
    start, end, step = bound["start"], bound["end"], bound["step"]
    if not all(isinstance(v, (int, float)) for v in (start, end, step)) or step == 0:
        raise CannotKnow("torch.range with bounds that are not known numbers")
    return int((end - start) // step) + 1


def _quantile(name, bound):
    attrs, operands = default(name, bound)
    q = bound["q"]
    if isinstance(q, Tensor):  # a 1-D q adds a leading dimension of its length
        raise CannotKnow(f"{name} with a tensor of quantiles")
    attrs.update(op=name, dim=bound.get("dim"), keepdim=bound.get("keepdim", False))
    return attrs, operands[:1]


# ---- the table -------------------------------------------------------------------------

# Transcendental and special functions: a float result, one operation per element (`full`).
_FLOAT_UNARY = ("acos", "acosh", "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "asin",
                "asinh", "atan", "atanh", "cosh", "sinh", "tan", "deg2rad", "rad2deg", "digamma", "lgamma", "erfc",
                "erfinv", "exp2", "expm1", "log10", "log1p", "log2", "i0", "sinc", "reciprocal")
# Rounding, sign, bitwise not, conjugation: the input's dtype.
_KEEP_UNARY = ("sgn", "frac", "trunc", "fix", "bitwise_not", "conj_physical")
_BINARY = ("atan2", "arctan2", "copysign", "fmod", "remainder", "hypot", "igamma", "igammac", "ldexp", "logaddexp",
           "logaddexp2", "nextafter", "xlogy", "floor_divide", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm")
_TESTS = ("isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "signbit")
_SAME_SHAPE = ("fliplr", "flipud", "conj", "resolve_conj", "resolve_neg", "positive", "real", "imag")
_WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window")
_DATA_DEPENDENT = ("nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "bincount",
                   "histogram", "histogramdd", "combinations")

TABLE: dict = {
    **{name: Op("unary_math", "input", dtypes=("float32",)) for name in _FLOAT_UNARY},
    **{name: Op("unary_math", "input") for name in _KEEP_UNARY},
    "logit": Op("unary_math", "input, eps=None", dtypes=("float32",)),
    "nan_to_num": Op("unary_math", "input, nan=0.0, posinf=None, neginf=None"),
    "hardshrink": Op("unary_math", "input, lambd=0.5"),
    "mvlgamma": Op("unary_math", "input, p", dtypes=("float32",)),
    "polygamma": Op("unary_math", "first, second", dtypes=("float32",)),  # torch.polygamma(n, x), x.polygamma(n)
    "renorm": Op("unary_math", "input, p, dim, maxnorm"),
    "frexp": Op("unary_math", "input", returns=("mantissa", "exponent"), dtypes=("same", "int64")),
    **{name: Op("binary_math", "input, other") for name in _BINARY},
    "float_power": Op("binary_math", "input, exponent", dtypes=("float32",)),
    "heaviside": Op("binary_math", "input, values"),
    "rsub": Op("binary_math", "input, other, *, alpha=1"),
    "cross": Op("binary_math", "input, other, dim=None"),
    **{name: Op("compare", "input", dtypes=("bool",)) for name in _TESTS},
    "isclose": Op("compare", "input, other, rtol=1e-05, atol=1e-08, equal_nan=False", dtypes=("bool",)),
    "isin": Op("compare", "elements, test_elements, *, assume_unique=False, invert=False", dtypes=("bool",),
               configure=lambda name, bound: ({"op": name}, _tensors(bound["elements"]))),
    "addcmul": Op("ternary_math", "input, *tensors, value=1"),  # x.addcmul(value, t1, t2): the old order too
    "addcdiv": Op("ternary_math", "input, *tensors, value=1"),
    "lerp": Op("ternary_math", "input, end, weight"),
    "addr": Op("ternary_math", "input, vec1, vec2, *, beta=1, alpha=1"),
    "kron": Op("kron", "input, other"),
    # reductions (kinds/reduction.py's `reduce`: op, dim, keepdim)
    "nansum": Op("reduce", "input, dim=None, keepdim=False, *, dtype=None", configure=_reduction("sum")),
    "nanmean": Op("reduce", "input, dim=None, keepdim=False, *, dtype=None", configure=_reduction("mean")),
    "count_nonzero": Op("reduce", "input, dim=None", dtypes=("int64",), configure=_reduction("count_nonzero")),
    "aminmax": Op("reduce", "input, *, dim=None, keepdim=False", returns=("min", "max"),
                  configure=_reduction("aminmax")),
    "std_mean": Op("reduce", "input, dim=None, *, correction=1, keepdim=False, unbiased=None", returns=("*", "*"),
                   configure=_reduction("std_mean")),
    "var_mean": Op("reduce", "input, dim=None, *, correction=1, keepdim=False, unbiased=None", returns=("*", "*"),
                   configure=_reduction("var_mean")),
    **{name: Op("reduce", "input, dim=None, keepdim=False", configure=_reduction("median"), dtypes=("same", "int64"),
                returns_with_dim=("values", "indices")) for name in ("median", "nanmedian")},
    "mode": Op("reduce", "input, dim=-1, keepdim=False", returns=("values", "indices"), dtypes=("same", "int64"),
               configure=_reduction("mode")),
    "kthvalue": Op("reduce", "input, k, dim=-1, keepdim=False", returns=("values", "indices"),
                   dtypes=("same", "int64"), configure=_reduction("kthvalue")),
    "quantile": Op("reduce", "input, q, dim=None, keepdim=False, *, interpolation='linear'", configure=_quantile),
    "nanquantile": Op("reduce", "input, q, dim=None, keepdim=False, *, interpolation='linear'", configure=_quantile),
    "hash_tensor": Op("reduce", "input, dim=(), *, keepdim=False, mode=0", dtypes=("int64",), configure=_hash),
    "frobenius_norm": Op("reduce", "input, dim=None, keepdim=False", configure=_reduction("norm")),
    "norm_except_dim": Op("reduce", "v, pow=2, dim=0", configure=_reduce_all_but),
    "dist": Op("reduce", "input, other, p=2", configure=_reduction("dist")),
    "trace": Op("reduce", "input", configure=_diagonal_of),
    "trapezoid": Op("reduce", "y, x=None, *, dx=None, dim=-1", configure=_reduction("trapezoid")),
    "trapz": Op("reduce", "y, x=None, *, dx=None, dim=-1", configure=_reduction("trapezoid")),
    # running reductions along dim (kinds/reduction.py's `cumulative`)
    "logcumsumexp": Op("cumulative", "input, dim", configure=_along_dim),
    "cummax": Op("cumulative", "input, dim", returns=("values", "indices"), dtypes=("same", "int64"),
                 configure=_along_dim),
    "cummin": Op("cumulative", "input, dim", returns=("values", "indices"), dtypes=("same", "int64"),
                 configure=_along_dim),
    "index_reduce": Op("scatter_add", "input, dim, index, source, reduce, *, include_self=True",
                       configure=lambda name, bound: ({"op": name, "dim": bound["dim"], "reduce": bound["reduce"]},
                                                      _tensors([bound["input"], bound["source"]]))),
    "scatter_reduce": Op("scatter_add", "input, dim, index, src, reduce, *, include_self=True",
                         configure=_scatter_reduce),
    "searchsorted": Op("search", "sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None",
                       dtypes=("int64",), configure=_search),
    "bucketize": Op("search", "input, boundaries, *, out_int32=False, right=False", dtypes=("int64",),
                    configure=_search),
    # linear algebra
    **{name: Op("matmul", "input, other") for name in ("dot", "vdot")},
    "mv": Op("matmul", "input, vec"),
    **{name: Op("matmul", "input, mat2") for name in ("dsmm", "spmm")},
    "cov": Op("covariance", "input, *, correction=1, fweights=None, aweights=None"),
    "corrcoef": Op("covariance", "input"),
    "cdist": Op("distance", "x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'"),
    **{name: Op("linalg", "input") for name in ("det", "logdet", "inverse", "matrix_exp")},
    "geqrf": Op("linalg", "input", returns=("a", "tau")),
    "slogdet": Op("linalg", "input", returns=("sign", "logabsdet")),
    "pinverse": Op("linalg", "input, rcond=1e-15, hermitian=False"),
    "lu": Op("linalg", "A, pivot=True, get_infos=False", returns=("*", "*"), dtypes=("same", "int64")),
    "qr": Op("linalg", "input, some=True", returns=("Q", "R")),
    "svd": Op("linalg", "input, some=True, compute_uv=True", returns=("U", "S", "V")),
    "cholesky": Op("linalg", "input, upper=False"),
    "orgqr": Op("linalg", "input, tau"),
    "ormqr": Op("linalg", "input, tau, other, left=True, transpose=False"),
    "cholesky_inverse": Op("linalg", "input, upper=False"),
    "cholesky_solve": Op("linalg", "input, input2, upper=False"),
    "triangular_solve": Op("linalg", "input, A, upper=True, transpose=False, unitriangular=False",
                           returns=("solution", "cloned_coefficient")),
    "nuclear_norm": Op("linalg", "input, dim=None, keepdim=False"),
    "gradient": Op("sequence_math", "input, *, spacing=1, dim=None, edge_order=1", returns=("*",)),
    "cumulative_trapezoid": Op("sequence_math", "y, x=None, *, dx=None, dim=-1"),
    "vander": Op("sequence_math", "x, N=None, increasing=False"),
    "istft": Op("stft", "input, n_fft, hop_length=None, win_length=None, window=None, center=True, "
                        "normalized=False, onesided=None, length=None, return_complex=False",
                configure=lambda name, bound: (default(name, bound)[0], _tensors(bound["input"]))),
    "stft": Op("stft", "input, n_fft, hop_length=None, win_length=None, window=None, center=True, "
                       "pad_mode='reflect', normalized=False, onesided=None, return_complex=None, "
                       "align_to_window=None", configure=lambda name, bound: (default(name, bound)[0],
                                                                            _tensors(bound["input"]))),
    # products torch runs as a sequence of aten.mm / aten.dot (see _PRODUCTS below)
    "inner": Product("input, other"),
    "tensordot": Product("a, b, dims=2, out=None"),
    "matrix_power": Product("input, n"),
    "chain_matmul": Product("*matrices"),
    # data movement and creation: shapes only
    **{name: Op("same_shape", "input") for name in _SAME_SHAPE},
    "fill": Op("same_shape", "input, value"),
    "index_fill": Op("same_shape", "input, dim, index, value"),
    "masked_scatter": Op("same_shape", "input, mask, source"),
    "diagonal_scatter": Op("same_shape", "input, src, offset=0, dim1=0, dim2=1"),
    "select_scatter": Op("same_shape", "input, src, dim, index"),
    "slice_scatter": Op("same_shape", "input, src, dim=0, start=None, end=None, step=1"),
    "slice_inverse": Op("same_shape", "input, src, dim=0, start=None, end=None, step=1",
                        configure=_shaped_like_src),
    "bernoulli": Op("same_shape", "input, p=None, *, generator=None"),
    "poisson": Op("same_shape", "input, generator=None"),
    "binomial": Op("same_shape", "count, prob, generator=None"),
    "rot90": Op("rot90", "input, k=1, dims=(0, 1)"),
    "diag": Op("diag", "input, diagonal=0"),
    "diagonal": Op("diagonal", "input, offset=0, dim1=0, dim2=1"),
    "diag_embed": Op("diag_embed", "input, offset=0, dim1=-2, dim2=-1"),
    "diagflat": Op("diagflat", "input, offset=0"),
    **{name: Op("axis_split", "input, sections", returns=("*",)) for name in ("hsplit", "vsplit", "dsplit")},
    "atleast_1d": Op("atleast", "*tensors", configure=_atleast(1)),
    "atleast_2d": Op("atleast", "*tensors", configure=_atleast(2)),
    "atleast_3d": Op("atleast", "*tensors", configure=_atleast(3)),
    **{name: Op("stack_axis", "tensors") for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack")},
    "block_diag": Op("block_diag", "*tensors"),
    "broadcast_tensors": Op("broadcast_tensors", "*tensors", returns=("*",)),
    "cartesian_prod": Op("cartesian_prod", "*tensors"),
    "select": Op("select", "input, dim, index"),
    "adjoint": Op("adjoint", "input"),
    "unfold": Op("sliding_windows", "input, dimension, size, step"),
    "take": Op("flat_take", "input, index"),
    "nonzero_static": Op("nonzero_static", "input, *, size, fill_value=-1", dtypes=("int64",)),
    "lu_unpack": Op("lu_unpack", "LU_data, LU_pivots, unpack_data=True, unpack_pivots=True", returns=("P", "L", "U")),
    "unravel_index": Op("unravel_index", "indices, shape", returns=("*",), dtypes=("int64",)),
    "put": Op("same_shape", "input, index, source, accumulate=False"),
    "index_put": Op("same_shape", "input, indices, values, accumulate=False"),
    "new_empty_strided": Op("created", "input, size, stride, **options", dtypes=("same",),
                            configure=lambda name, bound: ({"op": name, "size": tuple(bound["size"])},
                                                           _tensors(bound["input"]))),
    "multinomial": Op("multinomial", "input, num_samples, replacement=False, *, generator=None", dtypes=("int64",)),
    **{name: Op("created", "window_length, *args, **options", dtypes=("float32",),
                configure=_created(lambda bound: bound["window_length"])) for name in _WINDOWS},
    "randperm": Op("created", "n, *, generator=None, **options", dtypes=("int64",),
                   configure=_created(lambda bound: bound["n"])),
    "range": Op("created", "start, end, step=1, **options", dtypes=("float32",), configure=_created(_range_length)),
    "scalar_tensor": Op("created", "s, **options", dtypes=("float32",), configure=_created(lambda bound: ())),
    # the same function under another name
    "absolute": Alias("abs"), "negative": Alias("neg"), "swapdims": Alias("transpose"), "ravel": Alias("flatten"),
    "clamp_min": Alias("maximum"), "clamp_max": Alias("minimum"), "fmax": Alias("maximum"), "fmin": Alias("minimum"),
    "unsafe_chunk": Alias("chunk"), "unsafe_split": Alias("split"),
    "unsafe_split_with_sizes": Alias("split_with_sizes"),
    **{name: DataDependent() for name in _DATA_DEPENDENT},
}


# Ops with an in-place variant ``x.name_(...)`` (torch 2.13's Tensor methods): it follows its
# out-of-place kind (the result is written into x, of x's shape, at the same cost).
IN_PLACE = frozenset({
    "absolute", "acos", "acosh", "addcdiv", "addcmul", "addr", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "bernoulli", "bitwise_and", "bitwise_left_shift",
    "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "clamp_max", "clamp_min", "conj_physical",
    "copysign", "cosh", "deg2rad", "digamma", "erfc", "erfinv", "exp2", "expm1", "fill", "fix", "float_power",
    "floor_divide", "fmod", "frac", "gcd", "heaviside", "hypot", "i0", "igamma", "igammac", "index_fill",
    "index_put", "index_reduce", "lcm", "ldexp", "lerp", "lgamma", "log10", "log1p", "log2", "logit",
    "masked_scatter", "mvlgamma", "nan_to_num", "negative", "nextafter", "polygamma", "put", "rad2deg",
    "reciprocal", "remainder", "renorm", "scatter_reduce", "sgn", "sinc", "sinh", "swapdims", "tan", "trunc",
    "xlogy",
})

# Functions of ``torch`` that are no tensor method: ``x.real`` / ``x.imag`` are attributes.
TORCH_ONLY = frozenset({"real", "imag", "range", "randperm", "scalar_tensor", *_WINDOWS})


# ---- the binder -------------------------------------------------------------------------

def _unknown_attribute(attrs: dict):
    for value in attrs.values():
        if isinstance(value, Unknown):
            return value
    return None


def _dtype(rule: str, operands: list) -> str:
    if rule == "same":
        first = next((v for v in operands if isinstance(v, Tensor)), None)
        return first.dtype if first is not None else "float32"
    return rule


def _result(name: str, op: Op, tensors: list):
    if op.returns == ("*",) or (op.returns and op.returns[0] == "*"):
        return tuple(tensors)
    if op.returns:
        return Record.make(Class(f"torch.return_types.{name}", (), {}), op.returns, tuple(tensors))
    return tensors[0] if len(tensors) == 1 else tuple(tensors)


def _shapes(kind: str, attrs: dict, shapes: list) -> tuple:
    entry = TENSOR_KINDS.get(kind)
    if entry is None:  # a layer kind (matmul, reduce, ...): the registry's checks of the output
        return infer(kind, attrs, shapes)
    try:
        return entry.shape(attrs, shapes)
    except Unresolved as why:
        raise CannotKnow(str(why)) from None
    except (TypeError, ValueError, ArithmeticError, IndexError) as error:
        raise ShapeError(f"cannot compute the output shape from these arguments ({reason(error)})") from None


def bind(t, name: str, op: Op) -> Callable:
    """The function ``fn(interp, args, kwargs, node)`` for one table entry."""
    computes = KINDS[op.kind].computes if op.kind in KINDS else True

    def call(interp, args, kwargs, node):
        bound = interp.bind_signature(op.signature, name, list(args), dict(kwargs), node)
        attrs, operands = (op.configure or default)(name, bound)
        entry = op
        if op.returns_with_dim and attrs.get("dim") is not None:  # median(x, 1): values and indices
            entry = replace(op, returns=op.returns_with_dim)
        unknown = next((v for v in operands if isinstance(v, Unknown)), None) or _unknown_attribute(attrs)
        if unknown is not None:
            return unknown
        shapes = [t.shape_of(interp, v, node) for v in operands]
        try:
            outputs, facts = _shapes(op.kind, attrs, shapes)
        except ShapeError as error:
            raise AnalysisError(f"{name}: {error}", interp.location(node), "SF301") from None
        outputs = list(outputs)
        wanted = len(entry.returns) if entry.returns and entry.returns != ("*",) else len(outputs)
        outputs += [outputs[0]] * (wanted - len(outputs))  # (values, indices) of one shape
        dtypes = [_dtype(entry.dtypes[min(i, len(entry.dtypes) - 1)], operands) for i in range(len(outputs))]
        if computes:
            result = t.record(interp, op.kind, name, attrs, shapes, node, outputs=outputs, facts=facts,
                              dtype=dtypes[0])
            tensors = list(result) if isinstance(result, tuple) else [result]
            for tensor, dtype in zip(tensors, dtypes):
                tensor.dtype = dtype
                tensor.requires_grad = tensor.requires_grad and dtype not in ("int64", "bool")
        else:
            tensors = [Tensor(s, d) for s, d in zip(outputs, dtypes)]
        return _result(name, entry, tensors)
    return call


def build_table(t, existing: dict) -> dict:
    """name -> fn for every entry; an alias takes its target's function from ``existing``;
    a name ``existing`` already defines is a mistake (one binding per name)."""
    functions: dict = {}
    for name, entry in TABLE.items():
        if name in existing:
            raise ValueError(f"{name!r} is bound twice (functions.py and tensor_table.py)")
        if isinstance(entry, Alias):
            functions[name] = existing[entry.target]
        elif isinstance(entry, Product):
            functions[name] = _product(t, name, entry.signature)
        elif isinstance(entry, DataDependent):
            functions[name] = _data_dependent(name)
        else:
            functions[name] = bind(t, name, entry)
    for name in IN_PLACE:  # functions.py's own in-place bindings (erfinv_, fill_, ...) stay
        if name + "_" not in existing:
            functions[name + "_"] = functions[name]
    return functions


def _data_dependent(name: str) -> Callable:
    def call(interp, args, kwargs, node):
        return interp.unknown(f"`{name}`: the output's shape depends on the tensor's values "
                              "(data-dependent), not only on the input shapes", node)
    return call


# ---- products: the matmul ops torch runs for them ------------------------------------------

def _inner(a, b, bound):
    """inner(a, b): a dot product over the last dims; torch runs a (M, K) x (K, N) aten.mm
    (aten.dot for two vectors) and gives the shape a[:-1] + b[:-1]."""
    if not a or not b:  # a scalar operand: a multiply, no product
        return [], a or b
    k = a[-1]
    if len(a) == 1 and len(b) == 1:
        return [((k,), (k,))], ()
    return [((numel(a[:-1]), k), (k, numel(b[:-1])))], a[:-1] + b[:-1]


def _tensordot(a, b, bound):
    """tensordot(a, b, dims): the contracted dims flattened into one K; torch reshapes to
    (M, K) x (K, N) for aten.mm, or aten.dot when nothing is left free."""
    dims = bound["dims"]
    if isinstance(dims, int):
        left, right = list(range(len(a) - dims, len(a))), list(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        left = [dims[0]] if isinstance(dims[0], int) else list(dims[0])
        right = [dims[1]] if isinstance(dims[1], int) else list(dims[1])
        left, right = [normalize_dim(d, len(a)) for d in left], [normalize_dim(d, len(b)) for d in right]
    else:
        raise CannotKnow("tensordot with dims that are not known numbers")
    if len(left) != len(right):
        raise ShapeError(f"tensordot contracts {len(left)} dims of the first operand and {len(right)} of the second")
    for i, j in zip(left, right):
        if a[i] != b[j]:
            raise ShapeError(f"tensordot: contracted sizes {a[i]} and {b[j]} differ")
    free_a = tuple(d for i, d in enumerate(a) if i not in left)
    free_b = tuple(d for i, d in enumerate(b) if i not in right)
    k = numel(tuple(a[i] for i in left))
    if not free_a and not free_b:
        return [((k,), (k,))], ()
    return [((numel(free_a), k), (k, numel(free_b)))], free_a + free_b


def _matrix_power(a, _, bound):
    """matrix_power(x, n): torch squares repeatedly, multiplying in the set bits of n:
    (bit_length(n) - 1) squarings and (popcount(n) - 1) products; n = 0 or 1 is a copy."""
    n = bound["n"]
    if not isinstance(n, int) or isinstance(n, bool):
        raise CannotKnow("matrix_power with a power that is not a known integer")
    if n < 0:
        raise CannotKnow("matrix_power with a negative power (an inverse first)")
    if len(a) < 2 or a[-1] != a[-2]:
        raise ShapeError(f"matrix_power expects square matrices, got {a}")
    count = max(n.bit_length() - 1, 0) + max(bin(n).count("1") - 1, 0)
    return [(a, a)] * count, a


def _chain(shapes):
    """The matrix-chain order torch.linalg.multi_dot takes (the fewest multiplications)."""
    sizes = [s[0] for s in shapes] + [shapes[-1][1]]
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    products = []

    def build(i, j):
        if i == j:
            return shapes[i]
        left, right = build(i, split[i][j]), build(split[i][j] + 1, j)
        products.append((left, right))
        return (left[0], right[1])
    return products, build(0, n - 1)


def _chain_matmul(a, _, bound):
    matrices = [m.shape for m in bound["matrices"] if isinstance(m, Tensor)]
    if len(matrices) != len(bound["matrices"]) or any(s is None or len(s) != 2 for s in matrices):
        raise CannotKnow("chain_matmul of operands that are not known matrices")
    if len(matrices) == 1:
        return [], matrices[0]
    for left, right in zip(matrices, matrices[1:]):
        if left[1] != right[0]:
            raise ShapeError(f"chain_matmul: {left} and {right} do not multiply")
    if not all(isinstance(d, int) for s in matrices for d in s):
        return [(x, y) for x, y in zip(matrices, matrices[1:])], (matrices[0][0], matrices[-1][1])
    return _chain(matrices)


_PRODUCTS = {"inner": _inner, "tensordot": _tensordot, "matrix_power": _matrix_power, "chain_matmul": _chain_matmul}


def _product(t, name: str, signature: str) -> Callable:
    plan = _PRODUCTS[name]

    def call(interp, args, kwargs, node):
        bound = interp.bind_signature(signature, name, list(args), dict(kwargs), node)
        operands = _tensors(list(bound.values()))
        if unknown := next((v for v in operands if isinstance(v, Unknown)), None):
            return unknown
        shapes = [t.shape_of(interp, v, node) for v in operands]
        try:
            products, result = plan(shapes[0], shapes[1] if len(shapes) > 1 else None, bound)
        except ShapeError as error:
            raise AnalysisError(f"{name}: {error}", interp.location(node), "SF301") from None
        dtype = operands[0].dtype if operands else "float32"
        for a, b in products:  # each is an aten.mm (or aten.dot) in torch's own run
            t.record(interp, "matmul", name, {}, [tuple(a), tuple(b)], node)
        requires_grad = any(v.requires_grad for v in operands)
        return Tensor(tuple(result), dtype, requires_grad=requires_grad and dtype not in ("int64", "bool"))
    return call
