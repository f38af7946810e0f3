"""``keras.ops`` functions whose math is a kind the PyTorch tables already record (linear
algebra, binary search, sliding windows, segment reductions): one line per function naming
the kind, Keras's signature and a configure step of the bound arguments that returns the
kind's attributes and its operands in the kind's order.  frontend/keras/op_table.py binds
them with its other tables; the costs come from ``rules/*.yaml`` under the kind's name.
"""

from __future__ import annotations

from staticflops.frontend.values import Tensor
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError


class NotModelled(Exception):
    """An argument value this binding does not model (a located unknown, never a guess)."""


def _linalg(op, operands=("x",)):
    """The kind ``linalg`` (frontend/torch/tensor_table.py's det, inverse, qr...): a solve's
    matrix comes second among the operands, as torch's cholesky_solve(B, L)."""
    def configure(b):
        return {"op": op}, [b[name] for name in operands]
    return configure


def _qr(b):
    if b["mode"] != "reduced":  # 'complete' gives Q (m, m), R (m, n): not the kind's reduced shapes
        raise NotModelled("qr with mode other than 'reduced' is not modelled")
    return {"op": "qr"}, [b["x"]]


def _svd(b):
    """svd(x, full_matrices=True, compute_uv=True): u (m, m), s (k), vh (n, n) of each (m, n)
    matrix, k = min(m, n) (reduced: u (m, k), vh (k, n)); s alone without compute_uv.  The
    shapes are Keras's, the facts the kind's (n columns per matrix)."""
    x = b["x"]
    if not isinstance(x, Tensor) or x.shape is None or len(x.shape) < 2:
        raise NotModelled("svd of a tensor of unknown shape or of rank below 2")
    batch, (m, n) = tuple(x.shape[:-2]), x.shape[-2:]
    if not (isinstance(m, int) and isinstance(n, int)):
        raise NotModelled("svd of matrices of unknown size")
    k = min(m, n)
    u, vh = ((m, m), (n, n)) if b["full_matrices"] else ((m, k), (k, n))
    outputs = [batch + u, batch + (k,), batch + vh] if b["compute_uv"] else [batch + (k,)]
    matrices = 1
    for d in batch:
        matrices = matrices * d
    return {"op": "svd"}, [x], outputs, {"n": n, "rhs": 0, "matrices": matrices}


def _searchsorted(b):
    return {"op": "searchsorted", "right": b["side"] == "right"}, [b["values"], b["sorted_sequence"]]


def _pair(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value, value)


def _unfold(b):
    """im2col of a channels-first (N, C, H, W) input, as torch.nn.functional.unfold."""
    attrs = {key: _pair(b[key]) for key in ("kernel_size", "dilation", "padding", "stride")}
    return attrs, [b["x"]]


def _segment(reduce):
    """segment_sum / segment_max(data, segment_ids, num_segments): kind scatter_add, one
    operation per data element into (num_segments, *data.shape[1:])."""
    def configure(b):
        count = b["num_segments"]
        if isinstance(count, bool) or not isinstance(count, int):
            raise NotModelled(f"segment_{reduce} without a number num_segments "
                              "(the size depends on the segment ids' values)")
        data = b["data"]
        out = Tensor((count,) + tuple(data.shape[1:]), data.dtype)
        return {"op": f"segment_{reduce}", "dim": 0, "reduce": reduce}, [out, data], [out.shape]
    return configure


def _complex_pair(x):
    if not (isinstance(x, (list, tuple)) and len(x) == 2 and all(isinstance(t, Tensor) for t in x)):
        raise NotModelled("expects a (real, imaginary) pair of tensors")
    return list(x)


def _fourier(op):
    """fft / fft2 / irfft of a (real, imaginary) pair, rfft of a real tensor (kind fft)."""
    def configure(b):
        operands = [b["x"]] if op == "rfft" else _complex_pair(b["x"])
        return {"op": op, "fft_length": b.get("fft_length")}, operands
    return configure


def _eigen(op):
    """eig / eigh(x): eigenvalues (..., n) and eigenvectors (..., n, n) of each square matrix
    (kind linalg; eig's are complex)."""
    def configure(b):
        x = b["x"]
        if not isinstance(x, Tensor) or x.shape is None or len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
            raise NotModelled(f"{op} of a tensor that is not known square matrices")
        batch, n = tuple(x.shape[:-2]), x.shape[-1]
        return {"op": op}, [x], [batch + (n,), batch + (n, n)], {"n": n, "rhs": 0, "matrices": numel(batch)}
    return configure


def _in_top_k(b):
    """in_top_k(targets (batch,), predictions (batch, classes), k): whether each target's
    prediction is among the k largest of its row (kind sort with k; one bool per row)."""
    predictions, k = b["predictions"], b["k"]
    if not isinstance(predictions, Tensor) or predictions.shape is None or len(predictions.shape) != 2:
        raise NotModelled("in_top_k of predictions that are not (batch, classes)")
    if isinstance(k, bool) or not isinstance(k, int):
        raise NotModelled("in_top_k with a k that is not a number")
    rows, n = predictions.shape
    # the kind's facts (a heap of k over each row: n * ceil(log2 k) comparisons), as its shape function gives them
    return ({"op": "in_top_k", "dim": 1, "k": k}, [predictions], [predictions.shape[:1]],
            {"comparisons": rows * n * (k - 1).bit_length() if k > 1 else 0})


# name -> (signature, kind, configure, output dtype: None keeps the first operand's, output picked:
# None for every output, else the index of the one Keras returns)
KIND_OPS = {
    "det": ("x", "linalg", _linalg("det"), None, None),
    "inv": ("x", "linalg", _linalg("inverse"), None, None),
    "qr": ("x, mode='reduced'", "linalg", _qr, None, None),
    "svd": ("x, full_matrices=True, compute_uv=True", "linalg", _svd, None, None),
    "solve": ("a, b", "linalg", _linalg("solve", ("b", "a")), None, None),
    # torch's triangular_solve also returns A's copy; Keras returns the solution only
    "solve_triangular": ("a, b, lower=False", "linalg", _linalg("triangular_solve", ("b", "a")), None, 0),
    "searchsorted": ("sorted_sequence, values, side='left'", "search", _searchsorted, "int32", None),
    "unfold": ("x, kernel_size, dilation=1, padding=0, stride=1", "unfold", _unfold, None, None),
    "segment_sum": ("data, segment_ids, num_segments=None, sorted=False", "scatter_add", _segment("sum"), None, None),
    "fft": ("x", "fft", _fourier("fft"), None, None), "fft2": ("x", "fft", _fourier("fft2"), None, None),
    "rfft": ("x, fft_length=None", "fft", _fourier("rfft"), None, None),
    "irfft": ("x, fft_length=None", "fft", _fourier("irfft"), None, None),
    "segment_max": ("data, segment_ids, num_segments=None, sorted=False", "scatter_add", _segment("max"), None, None),
    "segment_min": ("data, segment_ids, num_segments=None, sorted=False", "scatter_add", _segment("min"), None, None),
    "segment_prod": ("data, segment_ids, num_segments=None, sorted=False", "scatter_add", _segment("prod"), None, None),
    # upper=True factors x = U^T U: the same factorization, the other triangle
    "cholesky": ("x, upper=False", "linalg", _linalg("cholesky"), None, None),
    "slogdet": ("x", "linalg", _linalg("slogdet"), None, None),
    # (LU factors, pivots): tf.linalg.lu, then invert_permutation of the pivots (no arithmetic)
    "lu_factor": ("x", "linalg", _linalg("lu"), None, None),
    "eig": ("x", "linalg", _eigen("eig"), "complex64", None), "eigh": ("x", "linalg", _eigen("eigh"), None, None),
    "in_top_k": ("targets, predictions, k", "sort", _in_top_k, "bool", None),
}


def kind_op(framework, name, signature, kind, configure, dtype, pick):
    """fn(interp, args, kwargs, node) recording ``kind`` for ``keras.ops.<name>``."""
    def fn(interp, args, kwargs, node):
        bound = interp.bind_signature(signature, f"keras.ops.{name}", list(args), dict(kwargs), node)
        try:
            configured = configure(bound)
        except NotModelled as reason:
            return interp.unknown(f"keras.ops.{name}: {reason}", node)
        except (ShapeError, TypeError, ValueError) as error:
            return interp.unknown(f"keras.ops.{name}: {error}", node)
        attrs, operands = configured[0], configured[1]
        outputs = configured[2] if len(configured) > 2 else None  # the shapes, when not the kind's
        facts = configured[3] if len(configured) > 3 else None
        shapes = [framework.ops.shape_of(interp, v, node) for v in operands]
        # the call's own tensors (a segment reduction's output stand-in is none of them)
        given = [v for value in bound.values() for v in (value if isinstance(value, (list, tuple)) else [value])]
        tensors = [v for v in operands if isinstance(v, Tensor) and any(v is w for w in given)]
        first = tensors[0] if tensors else None
        with framework.ops.arguments(tensors):
            result = framework.ops.record(interp, kind, f"ops.{name}", attrs, shapes, node, outputs=outputs, facts=facts,
                                          dtype=dtype or (first.dtype if first is not None else "float32"))
        return result[pick] if pick is not None and isinstance(result, tuple) else result
    return fn
