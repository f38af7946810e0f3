"""``keras.ops`` functions built, as Keras 3.15.1's TensorFlow backend builds them, from existing
kinds (helper kops, issue 20): quantiles and medians, SVD-based linear algebra, ``trace``,
``inner``, ``cholesky_inverse``, ``linspace`` and its kin, ``sparsemax``, ``argpartition`` (the
losses are in op_losses.py, the signal functions in op_signals.py).  Each records the
elementwise, reduction, sort and matmul kinds its lowering runs (keras/src/backend/tensorflow/
*.py), so every rule set prices the parts it counts; the small scalar ops are the backend's size
and constant arithmetic, which the TF profiler counts one each (the `tf-profiler` ground truth of
tools/record_coverage_keras.py's probe).  frontend/keras/op_table.py binds ``LOWERINGS`` with its
other tables.
"""

from __future__ import annotations

from staticflops.frontend.keras.op_composites import _axis, _record, _scalars, _tensor, _unknown_first
from staticflops.frontend.values import Tensor
from staticflops.shapes import tensor_ops as shape_ops
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError


# ---- linear algebra ------------------------------------------------------------------------------
def _svd(framework, interp, x, label, node, with_vectors):
    """The reduced SVD of the matrices in x's last two dimensions (kind linalg, op svd)."""
    if len(x.shape) < 2:
        raise ShapeError(f"expects a matrix or a batch of matrices, got rank {len(x.shape)}")
    batch, (m, n) = tuple(x.shape[:-2]), x.shape[-2:]
    if not (isinstance(m, int) and isinstance(n, int)):
        raise ShapeError("an SVD of matrices of unknown size")
    k = min(m, n)
    outputs = [batch + (m, k), batch + (k,), batch + (n, k)] if with_vectors else [batch + (k,)]
    with framework.ops.arguments([x]):
        result = framework.ops.record(interp, "linalg", label, {"op": "svd"}, [x.shape], node, outputs=outputs,
                                      facts={"n": n, "rhs": 0, "matrices": numel(batch)}, dtype=x.dtype)
    return result if with_vectors else (None, result, None)


def _trace(framework, f, interp, b, node):
    """trace(x, offset=0, axis1=0, axis2=1): the diagonal mask (tf.eye: one Minimum of its two
    sizes) and a Sum over the two axes (the masked elements summed)."""
    x = _tensor(interp, b["x"], "trace", node)
    if not isinstance(x, Tensor):
        return x
    if b["offset"] != 0:
        return interp.unknown("keras.ops.trace with an offset is not modelled", node)
    dims = (_axis(b["axis1"], len(x.shape)), _axis(b["axis2"], len(x.shape)))
    _scalars(f, interp, node, "minimum")
    return _record(framework, interp, "reduce", "trace", {"op": "sum", "dim": dims, "keepdim": False}, [x], [x.shape],
                   node, x.dtype)


def _inner(framework, f, interp, b, node):
    """inner(x1, x2): a tf.cond on the ranks (two Equals) between x1 * x2 (for a scalar) and a
    tensordot over the last axes (a MatMul); the profiler sizes both branches."""
    a, c = _tensor(interp, b["x1"], "inner", node), _tensor(interp, b["x2"], "inner", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return _unknown_first(a, c)
    if not a.shape or not c.shape:
        return interp.unknown("keras.ops.inner of a scalar is not modelled", node)
    f["eq"](interp, [Tensor(()), Tensor(())], {}, node)
    f["eq"](interp, [Tensor(()), Tensor(())], {}, node)
    try:
        shape_ops.broadcast(a.shape, c.shape)
        f["mul"](interp, [a, c], {}, node)
    except ShapeError:  # the scalar branch's product has no known shape: not sized
        pass
    rows = Tensor((numel(a.shape[:-1]), a.shape[-1]), a.dtype)
    columns = Tensor((c.shape[-1], numel(c.shape[:-1])), c.dtype)
    product = f["matmul"](interp, [rows, columns], {}, node)
    return Tensor(a.shape[:-1] + c.shape[:-1], a.dtype) if isinstance(product, Tensor) else product


def _matrix_rank(framework, f, interp, b, node):
    """matrix_rank(x): singular values (SVD), tol = max(s) * max(m, n) * eps (a scalar Mul and
    a Mul per matrix), s > tol per value, and a Sum per matrix."""
    x = _tensor(interp, b["x"], "matrix_rank", node)
    if not isinstance(x, Tensor):
        return x
    if b["tol"] is not None:
        return interp.unknown("keras.ops.matrix_rank with a tol is not modelled", node)
    _, s, _ = _svd(framework, interp, x, "ops.matrix_rank", node, with_vectors=False)
    largest = _record(framework, interp, "reduce", "matrix_rank", {"op": "amax", "dim": -1, "keepdim": True}, [s],
                      [s.shape], node, x.dtype)
    _scalars(f, interp, node, "mul")
    tol = f["mul"](interp, [largest, Tensor((), x.dtype)], {}, node)
    above = f["gt"](interp, [s, tol], {}, node)
    return _record(framework, interp, "reduce", "matrix_rank", {"op": "sum", "dim": -1, "keepdim": False}, [above],
                   [above.shape], node, "int32")


def _pinv(framework, f, interp, b, node):
    """pinv(x, rcond=1e-15): SVD, cutoff rcond * max(s) per matrix (a Mul), s > cutoff per
    value, v / s per element of v, and (v / s) @ u^T (a BatchMatMul)."""
    x = _tensor(interp, b["x"], "pinv", node)
    if not isinstance(x, Tensor):
        return x
    u, s, v = _svd(framework, interp, x, "ops.pinv", node, with_vectors=True)
    largest = _record(framework, interp, "reduce", "pinv", {"op": "amax", "dim": -1, "keepdim": False}, [s],
                      [s.shape], node, x.dtype)
    cutoff = f["mul"](interp, [largest, Tensor((), x.dtype)], {}, node)
    f["gt"](interp, [s, Tensor(cutoff.shape + (1,), x.dtype)], {}, node)
    scaled = f["div"](interp, [v, Tensor(s.shape[:-1] + (1,) + s.shape[-1:], x.dtype)], {}, node)
    return f["matmul"](interp, [scaled, Tensor(u.shape[:-2] + (u.shape[-1], u.shape[-2]), x.dtype)], {}, node)


def _lstsq(framework, f, interp, b, node):
    """lstsq(a (m, n), b (m, k), rcond=None): SVD of a (u (m, r), s (r), v (n, r)); cutoff
    rcond * max(s) (a scalar Mul), s >= cutoff and 1 / s per value, u^T b (a MatMul), the rows
    scaled (a Mul per element) and v @ that (a MatMul): the (n, k) solution."""
    a, c = _tensor(interp, b["a"], "lstsq", node), _tensor(interp, b["b"], "lstsq", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return _unknown_first(a, c)
    if len(a.shape) != 2 or len(c.shape) != 2 or b["rcond"] is not None:
        return interp.unknown("keras.ops.lstsq other than of a matrix by a matrix, without rcond, is not modelled",
                              node)
    u, s, v = _svd(framework, interp, a, "ops.lstsq", node, with_vectors=True)
    _record(framework, interp, "reduce", "lstsq", {"op": "amax", "dim": -1, "keepdim": False}, [s], [s.shape], node,
            a.dtype)
    _scalars(f, interp, node, "mul")
    f["ge"](interp, [s, Tensor((), a.dtype)], {}, node)
    inverse = f["div"](interp, [Tensor((), a.dtype), s], {}, node)
    projected = f["matmul"](interp, [Tensor((u.shape[1], u.shape[0]), a.dtype), c], {}, node)
    scaled = f["mul"](interp, [Tensor(inverse.shape + (1,), a.dtype), projected], {}, node)
    return f["matmul"](interp, [v, scaled], {}, node)


def _cholesky_inverse(framework, f, interp, b, node):
    """cholesky_inverse(x, upper=False): the identity (tf.eye: one Minimum of its sizes), the
    factor's inverse by a triangular solve against it (kind linalg), and inv^T @ inv (a MatMul)."""
    x = _tensor(interp, b["x"], "cholesky_inverse", node)
    if not isinstance(x, Tensor):
        return x
    _scalars(f, interp, node, "minimum")
    identity = Tensor(x.shape[-1:] * 2, x.dtype) if x.shape else Tensor((), x.dtype)
    solved = _record(framework, interp, "linalg", "ops.cholesky_inverse", {"op": "triangular_solve"}, [identity, x],
                     [identity.shape, x.shape], node, x.dtype)
    inverse = solved[0] if isinstance(solved, tuple) else solved
    if not isinstance(inverse, Tensor):
        return inverse
    return f["matmul"](interp, [inverse, inverse], {}, node)


# ---- quantiles -------------------------------------------------------------------------------------
def _quantile(name):
    """quantile / percentile / median and their nan forms over the flattened tensor (axis=None):
    the values sorted (tf.sort: Neg, TopKV2, Neg; inside a tf.cond for the nan forms, where the
    profiler cannot size it), four scalar Subs of the size arithmetic, and per quantile the
    linear interpolation: a Mul, a clip, a Sub, a Maximum, an Add, a Minimum, a Mul, two Subs,
    two Muls and an Add (13 counted ops); percentile divides q by 100 first, the nan forms
    compare the count of numbers with 0 (a Greater)."""
    def fn(framework, f, interp, b, node):
        x = _tensor(interp, b["x"], name, node)
        if not isinstance(x, Tensor):
            return x
        if b["axis"] is not None or b.get("method", "linear") != "linear" or b["keepdims"]:
            return interp.unknown(f"keras.ops.{name} along an axis, with keepdims or another method than 'linear' "
                                  "is not modelled", node)
        q = b.get("q", 0.5)
        q_shape = q.shape if isinstance(q, Tensor) else () if isinstance(q, (int, float)) else None
        if isinstance(q, (list, tuple)) and all(isinstance(v, (int, float)) for v in q):
            q_shape = (len(q),)
        if q_shape is None:
            return interp.unknown(f"keras.ops.{name} with a q that is not a tensor or numbers", node)
        flat = Tensor((numel(x.shape),), x.dtype)
        nan = name.startswith("nan")
        # the nan forms sort inside a tf.cond, unsized by the profiler: labelled apart (rules/tf-profiler.yaml sort)
        _record(framework, interp, "sort", f"ops.{name}" if nan else "ops.sort", {"op": "sort", "dim": 0, "k": None},
                [flat], [flat.shape], node, x.dtype)
        if nan:
            f["gt"](interp, [Tensor(()), Tensor(())], {}, node)
        q_tensor = Tensor(q_shape, "float32")
        if "percentile" in name:
            q_tensor = f["div"](interp, [q_tensor, Tensor(())], {}, node)
        _scalars(f, interp, node, "sub", "sub", "sub", "sub")
        position = f["clamp"](interp, [f["mul"](interp, [q_tensor, Tensor(())], {}, node)], {}, node)
        below = f["maximum"](interp, [f["sub"](interp, [position, Tensor(())], {}, node), Tensor(())], {}, node)
        above = f["minimum"](interp, [f["add"](interp, [below, Tensor(())], {}, node), Tensor(())], {}, node)
        weight = f["mul"](interp, [f["sub"](interp, [position, below], {}, node), Tensor(())], {}, node)
        rest = f["sub"](interp, [Tensor(()), weight], {}, node)
        low = f["mul"](interp, [above, rest], {}, node)
        high = f["mul"](interp, [above, weight], {}, node)
        return f["add"](interp, [low, high], {}, node)
    return fn


# ---- sequences ---------------------------------------------------------------------------------------
def _linspace_of(framework, f, interp, start, stop, num, node):
    """tf.linspace of broadcast tensor ends: (stop - start) / (num - 1) per element, num - 2
    inner points (a Mul and an Add each), an Equal per output dimension (the shape check) and
    seven scalar ops of the size arithmetic; the output (num,) + ends' shape."""
    ends = shape_ops.broadcast(start.shape, stop.shape)
    if isinstance(num, bool) or not isinstance(num, int) or num < 2:
        raise ShapeError("linspace with num below 2 or not a number is not modelled")
    span = f["sub"](interp, [Tensor((1,) + ends), Tensor((1,) + ends)], {}, node)
    f["div"](interp, [span, Tensor(())], {}, node)
    _scalars(f, interp, node, "sub", "maximum", "ge", "add", "sub", "maximum", "add")
    f["eq"](interp, [Tensor((len(ends) + 1,)), Tensor((len(ends) + 1,))], {}, node)
    inner = Tensor((num - 2,) + ends)
    f["add"](interp, [f["mul"](interp, [inner, Tensor((1,) + ends)], {}, node), Tensor((1,) + ends)], {}, node)
    return Tensor((num,) + ends, "float32")


def _spaced(name):
    """linspace / logspace / geomspace(start, stop, num=50, endpoint=True, ..., axis=0) of
    tensor ends; logspace raises base to each point (a Pow per output), geomspace takes log10 of
    the ends first (Log of each, Log of 10, a RealDiv per element) and multiplies the powers by
    the sign (a Mul per output).  Of two Python numbers: a constant of num points."""
    def fn(framework, f, interp, b, node):
        start, stop = b["start"], b["stop"]
        num = b["num"]
        if not isinstance(start, Tensor) and not isinstance(stop, Tensor):
            # of Python numbers, Keras computes it when the model is built: a constant, no op in the graph
            numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (start, stop, num))
            if numbers and isinstance(num, int) and num >= 0:
                return Tensor((num,), "float32")
            return interp.unknown(f"keras.ops.{name} of ends that are neither tensors nor numbers", node)
        start = start if isinstance(start, Tensor) else Tensor(())
        stop = stop if isinstance(stop, Tensor) else Tensor(())
        if start.shape is None or stop.shape is None:
            return interp.unknown(f"keras.ops.{name} of a tensor of unknown shape", node)
        if not b["endpoint"] or b["axis"] != 0 or b.get("retstep"):
            return interp.unknown(f"keras.ops.{name} with endpoint=False, retstep or another axis than 0 "
                                  "is not modelled", node)
        if name == "geomspace":
            f["log"](interp, [start], {}, node)
            f["log"](interp, [stop], {}, node)
            _scalars(f, interp, node, "log")
            f["div"](interp, [start, Tensor(())], {}, node)
            f["div"](interp, [stop, Tensor(())], {}, node)
        out = _linspace_of(framework, f, interp, start, stop, b["num"], node)
        if name in ("logspace", "geomspace"):
            out = f["pow"](interp, [Tensor(()), out], {}, node)
        if name == "geomspace":
            out = f["mul"](interp, [out, Tensor(())], {}, node)
        return out
    return fn


def _sparsemax(framework, f, interp, b, node):
    """sparsemax(x, axis=-1): sorted descending (TopKV2, no Neg), cumsum, r = 1..n (a scalar
    Add), support = sorted - (cumsum - 1) / r > 0 (Sub, RealDiv, Sub, Greater per element), its
    size k and the support's cumsum summed (two Sums), tau = (sum - 1) / k (Sub, RealDiv per
    row), max(x - tau, 0) (Sub, Maximum per element)."""
    x = _tensor(interp, b["x"], "sparsemax", node)
    if not isinstance(x, Tensor):
        return x
    dim = _axis(b["axis"], len(x.shape))
    ordered = _record(framework, interp, "sort", "ops.sparsemax", {"op": "sort", "dim": dim, "k": None}, [x], [x.shape],
                      node, x.dtype)
    running = f["cumsum"](interp, [ordered], {"dim": dim}, node)
    _scalars(f, interp, node, "add")
    shifted = f["div"](interp, [f["sub"](interp, [running, Tensor(())], {}, node), Tensor(())], {}, node)
    support = f["gt"](interp, [f["sub"](interp, [ordered, shifted], {}, node), Tensor(())], {}, node)
    k = _record(framework, interp, "reduce", "sparsemax", {"op": "sum", "dim": dim, "keepdim": True}, [support],
                [support.shape], node, x.dtype)
    total = _record(framework, interp, "reduce", "sparsemax", {"op": "sum", "dim": dim, "keepdim": True}, [running],
                    [running.shape], node, x.dtype)
    tau = f["div"](interp, [f["sub"](interp, [total, Tensor(())], {}, node), k], {}, node)
    return f["maximum"](interp, [f["sub"](interp, [x, tau], {}, node), Tensor(())], {}, node)


def _argpartition(framework, f, interp, b, node):
    """argpartition(x, kth, axis=-1) of Python numbers runs when the model is built (a constant
    int32 tensor of x's shape: no op in the graph); of a tensor, the TensorFlow backend's
    tensor_scatter_nd_update fails inside a model (the op-surface probe's recipe)."""
    x = b["x"]
    if isinstance(x, Tensor):
        return interp.unknown("keras.ops.argpartition of a tensor is not modelled (it fails in a TensorFlow graph)",
                              node)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return Tensor((), "int32")
    if isinstance(x, (list, tuple)) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in x):
        return Tensor((len(x),), "int32")
    return interp.unknown("keras.ops.argpartition of a value that is not numbers", node)


_QUANTILE = "x, q, axis=None, method='linear', keepdims=False"
_SPACE_TAIL = "num=50, endpoint=True"

# name -> (signature, lowering)
LOWERINGS = {
    "trace": ("x, offset=0, axis1=0, axis2=1", _trace), "inner": ("x1, x2", _inner),
    "matrix_rank": ("x, tol=None", _matrix_rank), "pinv": ("x, rcond=1e-15", _pinv),
    "lstsq": ("a, b, rcond=None", _lstsq), "cholesky_inverse": ("x, upper=False", _cholesky_inverse),
    "quantile": (_QUANTILE, _quantile("quantile")), "nanquantile": (_QUANTILE, _quantile("nanquantile")),
    "percentile": (_QUANTILE, _quantile("percentile")), "nanpercentile": (_QUANTILE, _quantile("nanpercentile")),
    "median": ("x, axis=None, keepdims=False", _quantile("median")),
    "nanmedian": ("x, axis=None, keepdims=False", _quantile("nanmedian")),
    "linspace": (f"start, stop, {_SPACE_TAIL}, retstep=False, dtype=None, axis=0", _spaced("linspace")),
    "logspace": (f"start, stop, {_SPACE_TAIL}, base=10, dtype=None, axis=0", _spaced("logspace")),
    "geomspace": (f"start, stop, {_SPACE_TAIL}, dtype=None, axis=0", _spaced("geomspace")),
    "sparsemax": ("x, axis=-1", _sparsemax), "argpartition": ("x, kth, axis=-1", _argpartition),
}
