"""``keras.ops`` functions built, as Keras 3.15.1's TensorFlow backend builds them, from existing
kinds (helper kops, issue 20): losses, quantiles, SVD-based linear algebra, ``linspace`` and its
kin, ``sparsemax``.  Each function records the elementwise, reduction, sort and matmul kinds its
lowering runs (keras/src/backend/tensorflow/*.py), so every rule set prices the parts it counts;
the small scalar ops are the backend's size and constant arithmetic, which the TF profiler counts
one each (the `tf-profiler` ground truth of tools/record_coverage_keras.py's probe).  Listed in
``LOWERINGS`` with Keras's signature; frontend/keras/op_table.py binds them with ``COMPOSITES``.
"""

from __future__ import annotations

from staticflops.frontend.keras.op_composites import _axis, _numel, _record, _tensor
from staticflops.frontend.values import Tensor
from staticflops.shapes import tensor_ops as shape_ops
from staticflops.shapes.tensor_ops import ShapeError


def _scalars(f, interp, node, *names):
    """One scalar op per name (the backend's size and constant arithmetic)."""
    for name in names:
        f[name](interp, [Tensor((), "float32"), Tensor((), "float32")] if name not in ("log", "neg") else
                [Tensor((), "float32")], {}, node)


def _unknown_first(*values):
    return next(v for v in values if not isinstance(v, Tensor))


# ---- losses ---------------------------------------------------------------------------------------
def _binary_crossentropy(framework, f, interp, b, node):
    """binary_crossentropy(target, output): output clipped to [eps, 1 - eps], then
    -(t log(o) + (1 - t) log(1 - o)): Log, Mul, two Subs, Log, Mul, Add, Neg per element."""
    t, o = _tensor(interp, b["target"], "binary_crossentropy", node), _tensor(interp, b["output"], "binary_crossentropy", node)
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return _unknown_first(t, o)
    if b["from_logits"]:
        return interp.unknown("keras.ops.binary_crossentropy with from_logits=True is not modelled", node)
    one = Tensor((), "float32")
    o = f["clamp"](interp, [o], {}, node)
    positive = f["mul"](interp, [t, f["log"](interp, [o], {}, node)], {}, node)
    rest, complement = f["sub"](interp, [one, t], {}, node), f["sub"](interp, [one, o], {}, node)
    negative = f["mul"](interp, [rest, f["log"](interp, [complement], {}, node)], {}, node)
    return f["neg"](interp, [f["add"](interp, [positive, negative], {}, node)], {}, node)


def _categorical_crossentropy(framework, f, interp, b, node):
    """categorical_crossentropy(target, output, axis=-1): output / sum(output) along the axis,
    clipped, -sum(t log(o)) along the axis (Sum, RealDiv, clip, Log, Mul, Sum, Neg)."""
    t, o = _tensor(interp, b["target"], "categorical_crossentropy", node), _tensor(interp, b["output"], "categorical_crossentropy", node)
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return _unknown_first(t, o)
    if b["from_logits"]:
        return interp.unknown("keras.ops.categorical_crossentropy with from_logits=True is not modelled", node)
    axis = b["axis"]
    total = _record(framework, interp, "reduce", "categorical_crossentropy", {"op": "sum", "dim": axis, "keepdim": True},
                    [o], [o.shape], node, o.dtype)
    o = f["clamp"](interp, [f["div"](interp, [o, total], {}, node)], {}, node)
    terms = f["mul"](interp, [t, f["log"](interp, [o], {}, node)], {}, node)
    summed = _record(framework, interp, "reduce", "categorical_crossentropy", {"op": "sum", "dim": axis, "keepdim": False},
                     [terms], [terms.shape], node, o.dtype)
    return f["neg"](interp, [summed], {}, node)


def _sparse_categorical_crossentropy(framework, f, interp, b, node):
    """sparse_categorical_crossentropy(target (batch,), output (batch, classes)): output
    clipped, its Log, then each row's target class picked and negated (kind loss, nll_loss with
    reduction 'none': the pick has no arithmetic the profiler sizes)."""
    t = _tensor(interp, b["target"], "sparse_categorical_crossentropy", node)
    o = _tensor(interp, b["output"], "sparse_categorical_crossentropy", node)
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return _unknown_first(t, o)
    if b["from_logits"] or len(o.shape) != 2 or b["axis"] not in (-1, 1):
        return interp.unknown("keras.ops.sparse_categorical_crossentropy with from_logits=True or an output "
                              "other than (batch, classes) is not modelled", node)
    logs = f["log"](interp, [f["clamp"](interp, [o], {}, node)], {}, node)
    return _record(framework, interp, "loss", "sparse_categorical_crossentropy", {"op": "nll_loss", "reduction": "none"},
                   [logs, t], [logs.shape, t.shape], node, o.dtype)


def _ctc_loss(framework, f, interp, b, node):
    """ctc_loss(target (B, L), output (B, T, C), target_length, output_length): TensorFlow's
    ctc_loss_dense (tf.nn.ctc_loss, keras 3.15.1): the labels' one-hot probabilities (a Mul per
    (T, B, L, C) element, a Sum over the classes); the state transitions of the S = 2L + 2
    states (ctc_state_trans: an Add per label + 1, per S x S pair twice and a Log per pair, a
    Mul of 3 per sequence, an Add of 3 and an Equal and a Sub per label gap); nine scalar ops;
    the initial and final states (a Mul, a Sub and a Mul per (2, L + 1, B) element); the
    sequence mask (a Less per (B, T)); and the forward-backward recursion (kind loss, op
    ctc_loss: inside a tf.scan, which the profiler cannot size).  One loss per sequence.
    Measured by the op-surface probe at (L, T, C) = (3, 5, 4): 352; at (2, 6, 5) and (4, 7, 3)
    by tools/record_coverage_keras.py --one: 260 and 509 (tests/test_keras_op_lowerings.py)."""
    t, o = _tensor(interp, b["target"], "ctc_loss", node), _tensor(interp, b["output"], "ctc_loss", node)
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return _unknown_first(t, o)
    if len(t.shape) != 2 or len(o.shape) != 3 or not all(isinstance(d, int) for d in t.shape + o.shape):
        return interp.unknown("keras.ops.ctc_loss of other than a (batch, labels) target and a (batch, time, "
                              "classes) output of known sizes is not modelled", node)
    (batch, time, classes), labels = o.shape, t.shape[1]
    states = 2 * labels + 2
    hot = f["mul"](interp, [Tensor((time, batch, labels, classes)), Tensor((time, batch, labels, classes))], {}, node)
    _record(framework, interp, "reduce", "ctc_loss", {"op": "sum", "dim": -1, "keepdim": False}, [hot], [hot.shape], node)
    f["add"](interp, [Tensor((labels + 1,)), Tensor(())], {}, node)
    f["add"](interp, [Tensor((states, states)), Tensor(())], {}, node)
    f["mul"](interp, [Tensor((batch, 3)), Tensor(())], {}, node)
    gaps = Tensor((batch, labels - 1))
    f["add"](interp, [Tensor((batch, labels - 1, 3)), Tensor(())], {}, node)
    f["eq"](interp, [gaps, gaps], {}, node)
    f["sub"](interp, [gaps, gaps], {}, node)
    f["log"](interp, [f["add"](interp, [Tensor((batch, states, states)), Tensor(())], {}, node)], {}, node)
    _scalars(f, interp, node, "add", "add", "add", "add", "log", "log", "sub", "add", "add")
    ends = Tensor((2, labels + 1, batch))
    f["mul"](interp, [f["sub"](interp, [f["mul"](interp, [ends, ends], {}, node), ends], {}, node), ends], {}, node)
    f["lt"](interp, [Tensor((batch, time)), Tensor((batch, 1))], {}, node)
    return _record(framework, interp, "loss", "ctc_loss", {"op": "ctc_loss", "reduction": "none"},
                   [Tensor((time, batch, classes)), t], [(time, batch, classes), t.shape], node, o.dtype)


def _psnr(framework, f, interp, b, node):
    """psnr(x1, x2, max_val): 20 log10(max_val) - 10 log10(mse): Sub, Square and Mean per
    element, then per log10 two Logs (of the value and of 10), a RealDiv and a Mul, and a Sub."""
    a, c = _tensor(interp, b["x1"], "psnr", node), _tensor(interp, b["x2"], "psnr", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return _unknown_first(a, c)
    squares = f["square"](interp, [f["sub"](interp, [a, c], {}, node)], {}, node)
    _record(framework, interp, "reduce", "psnr", {"op": "mean", "dim": None, "keepdim": False}, [squares],
            [squares.shape], node, a.dtype)
    _scalars(f, interp, node, "log", "log", "div", "mul", "log", "log", "div", "mul")
    return f["sub"](interp, [Tensor((), a.dtype), Tensor((), a.dtype)], {}, node)


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
                                      facts={"n": n, "rhs": 0, "matrices": _numel(batch)}, dtype=x.dtype)
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
    rows, columns = Tensor((_numel(a.shape[:-1]), a.shape[-1]), a.dtype), Tensor((c.shape[-1], _numel(c.shape[:-1])), c.dtype)
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
        return interp.unknown("keras.ops.lstsq other than of a matrix by a matrix, without rcond, is not modelled", node)
    u, s, v = _svd(framework, interp, a, "ops.lstsq", node, with_vectors=True)
    _record(framework, interp, "reduce", "lstsq", {"op": "amax", "dim": -1, "keepdim": False}, [s], [s.shape], node, a.dtype)
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


def _correlate(framework, f, interp, b, node):
    """correlate(x1 (n,), x2 (m,), mode='valid'): tf.nn.conv1d of x1 (zero-padded by m - 1 on
    both sides for 'full' and 'same') with x2 as the filter: m products per output of the
    convolution (n - m + 1 outputs valid, n + m - 1 full), recorded as that many row-by-filter
    products (a matmul); 'same' slices the full result to max(n, m)."""
    a, c = _tensor(interp, b["x1"], "correlate", node), _tensor(interp, b["x2"], "correlate", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return _unknown_first(a, c)
    if len(a.shape) != 1 or len(c.shape) != 1 or not all(isinstance(d, int) for d in a.shape + c.shape):
        return interp.unknown("keras.ops.correlate of other than two 1-D tensors of known length", node)
    n, m, mode = a.shape[0], c.shape[0], b["mode"]
    if mode not in ("valid", "same", "full") or (mode == "valid" and n < m):
        return interp.unknown(f"keras.ops.correlate with mode {mode!r} of lengths {n} and {m} is not modelled", node)
    rows = n - m + 1 if mode == "valid" else n + m - 1
    out = f["matmul"](interp, [Tensor((rows, m), a.dtype), Tensor((m,), c.dtype)], {}, node)
    return Tensor((max(n, m),), a.dtype) if mode == "same" and isinstance(out, Tensor) else out


def _ifft2(framework, f, interp, b, node):
    """ifft2((real, imag)): the conjugate (a Neg of the imaginary part), fft2 (kind fft), and
    each part divided by h * w (a scalar Mul each, a RealDiv per element; the imaginary part
    negated back first)."""
    pair = b["x"]
    if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(t, Tensor) for t in pair)):
        return interp.unknown("keras.ops.ifft2 expects a (real, imaginary) pair of tensors", node)
    real, imag = pair
    f["neg"](interp, [imag], {}, node)
    transformed = _record(framework, interp, "fft", "ops.ifft2", {"op": "fft2", "fft_length": None}, [real, imag],
                          [real.shape, imag.shape], node, real.dtype)
    if not isinstance(transformed, tuple):
        return transformed
    _scalars(f, interp, node, "mul", "mul")
    out_real = f["div"](interp, [transformed[0], Tensor(())], {}, node)
    out_imag = f["div"](interp, [f["neg"](interp, [transformed[1]], {}, node), Tensor(())], {}, node)
    return out_real, out_imag


# ---- signals -----------------------------------------------------------------------------------
def _pair(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value, value)


def _fold(framework, f, interp, b, node):
    """fold(x (N, C*kh*kw, L), output_size, kernel_size, ...): col2im (kind fold).  The
    TensorFlow backend scatters each kernel position's patch with indices it builds per position:
    range(nH) * stride + offset and the same along W (a Mul and an Add per index) and two tf.repeat
    sizes (a scalar Mul each) (keras/src/backend/tensorflow/nn.py, keras 3.15.1)."""
    x = _tensor(interp, b["x"], "fold", node)
    if not isinstance(x, Tensor):
        return x
    attrs = {key: _pair(b[key]) for key in ("output_size", "kernel_size", "dilation", "padding", "stride")}
    out = _record(framework, interp, "fold", "ops.fold", attrs, [x], [x.shape], node, x.dtype)
    if not isinstance(out, Tensor):
        return out
    blocks = [(size + 2 * p - d * (k - 1) - 1) // s + 1 for size, k, d, p, s in
              zip(attrs["output_size"], attrs["kernel_size"], attrs["dilation"], attrs["padding"], attrs["stride"])]
    for _ in range(attrs["kernel_size"][0] * attrs["kernel_size"][1]):
        _scalars(f, interp, node, "mul", "mul")
        for count in blocks:
            f["add"](interp, [f["mul"](interp, [Tensor((count,), "int32"), Tensor(())], {}, node), Tensor(())], {}, node)
    return out


def _frames(f, interp, length, frame_length, step, node):
    """tf.signal.frame(pad_end=False) along the last axis: the frame count (a Sub, an Add and a
    Maximum of scalars), each frame's start (a Mul per frame) and the start of each of its
    frame_length / gcd(frame_length, step) sub-frames (an Add each); the gather is no arithmetic."""
    from math import gcd
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (length, frame_length, step)) or step <= 0:
        raise ShapeError("framing with a length, frame length or step that is not a known number")
    count = max(0, 1 + (length - frame_length) // step)
    _scalars(f, interp, node, "sub", "add", "maximum")
    starts = f["mul"](interp, [Tensor((count,), "int32"), Tensor(())], {}, node)
    pieces = frame_length // gcd(frame_length, step) if frame_length else 0
    f["add"](interp, [Tensor((count, 1), "int32"), Tensor((1, pieces), "int32")], {}, node)
    return count if isinstance(starts, Tensor) else starts


def _hann(f, interp, length, node):
    """tf.signal.hann_window(length, periodic=True): 0.5 - 0.5 cos(2 pi n / length): four scalar
    ops of the constants, a Mul, a RealDiv, the Cos, a Mul and a Sub per point."""
    _scalars(f, interp, node, "sub", "mul", "add", "sub")
    points = f["div"](interp, [f["mul"](interp, [Tensor((length,)), Tensor(())], {}, node), Tensor(())], {}, node)
    return f["sub"](interp, [Tensor(()), f["mul"](interp, [f["cos"](interp, [points], {}, node), Tensor(())], {}, node)],
                    {}, node)


def _extract_sequences(framework, f, interp, b, node):
    """extract_sequences(x, sequence_length, sequence_stride): tf.signal.frame of the last axis:
    (..., frames, sequence_length)."""
    x = _tensor(interp, b["x"], "extract_sequences", node)
    if not isinstance(x, Tensor):
        return x
    if not x.shape:
        return interp.unknown("keras.ops.extract_sequences of a scalar", node)
    count = _frames(f, interp, x.shape[-1], b["sequence_length"], b["sequence_stride"], node)
    if not isinstance(count, int):
        return count
    return Tensor(x.shape[:-1] + (count, b["sequence_length"]), x.dtype)


def _stft(framework, f, interp, b, node):
    """stft(x, sequence_length, sequence_stride, fft_length, window='hann', center=True), with
    the window as long as the FFT: x reflect-padded by fft_length // 2 on both sides (center),
    framed, the hann window built and multiplied into each frame, and a real FFT per frame (kind
    fft, rfft): the (real, imaginary) pair (..., frames, fft_length // 2 + 1)."""
    x = _tensor(interp, b["x"], "stft", node)
    if not isinstance(x, Tensor):
        return x
    length, n = b["sequence_length"], b["fft_length"]
    if b["window"] != "hann" or length != n or not x.shape:
        return interp.unknown("keras.ops.stft with a window other than 'hann' or a sequence_length other than "
                              "fft_length is not modelled", node)
    padded = x.shape[-1] + 2 * (n // 2) if b["center"] else x.shape[-1]
    count = _frames(f, interp, padded, n, b["sequence_stride"], node)
    if not isinstance(count, int):
        return count
    window = _hann(f, interp, n, node)
    framed = f["mul"](interp, [Tensor(x.shape[:-1] + (count, n), x.dtype), window], {}, node)
    return _record(framework, interp, "fft", "ops.stft", {"op": "rfft", "fft_length": n}, [framed], [framed.shape],
                   node, x.dtype)


def _istft(framework, f, interp, b, node):
    """istft((real, imag) (..., frames, fft_length // 2 + 1), sequence_length, sequence_stride,
    fft_length, length=None, window='hann', center=True), with the window as long as the FFT
    and a whole number of strides in it: the hann window; tf.signal.inverse_stft_window_fn
    divides it by the sum of its overlapping squares (a Square per point, four scalar ops of the
    overlap count, a Sum over the overlaps, a scalar Mul, an Equal and a RealDiv per point); an
    inverse real FFT per frame (kind fft, irfft), the window multiplied in, and overlap_and_add
    (a Sum over the overlapping sub-frames); center trims fft_length // 2 from both ends."""
    pair = b["x"]
    if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(t, Tensor) for t in pair)):
        return interp.unknown("keras.ops.istft expects a (real, imaginary) pair of tensors", node)
    real, imag = pair
    n, step = b["fft_length"], b["sequence_stride"]
    if (b["window"] != "hann" or b["sequence_length"] != n or not isinstance(step, int) or step <= 0 or n % step
            or len(real.shape) < 2):
        return interp.unknown("keras.ops.istft with a window other than 'hann', a sequence_length other than "
                              "fft_length or a stride that does not divide it is not modelled", node)
    window = _hann(f, interp, n, node)
    f["square"](interp, [window], {}, node)
    _scalars(f, interp, node, "neg", "neg", "mul", "sub")
    overlaps = n // step
    _record(framework, interp, "reduce", "istft", {"op": "sum", "dim": 0, "keepdim": True}, [Tensor((overlaps, step))],
            [(overlaps, step)], node)
    _scalars(f, interp, node, "mul")
    f["eq"](interp, [Tensor((n,)), Tensor(())], {}, node)
    window = f["div"](interp, [window, Tensor((n,))], {}, node)
    frames = _record(framework, interp, "fft", "ops.istft", {"op": "irfft", "fft_length": n}, [real, imag],
                     [real.shape, imag.shape], node, real.dtype)
    if not isinstance(frames, Tensor):
        return frames
    frames = f["mul"](interp, [frames, window], {}, node)
    batch, count = frames.shape[:-2], frames.shape[-2]
    pieces = Tensor(batch + (overlaps, count + overlaps - 1, step), real.dtype)
    _record(framework, interp, "reduce", "istft", {"op": "sum", "dim": len(batch), "keepdim": False}, [pieces],
            [pieces.shape], node, real.dtype)
    total = step * (count - 1) + n
    size = b["length"] if b["length"] is not None else total - 2 * (n // 2) if b["center"] else total
    return Tensor(batch + (size,), real.dtype)


def _ctc_decode(framework, f, interp, b, node):
    """ctc_decode(inputs (batch, time, classes), sequence_lengths, strategy='greedy'): the most
    likely class per time step (CTCGreedyDecoder: recorded as the argmax reduction over the
    classes, `ctc_greedy`), repeats merged and blanks dropped (no arithmetic): the decoded
    (top_paths, batch, time) int32 labels and the (batch, top_paths) log probabilities."""
    x = _tensor(interp, b["inputs"], "ctc_decode", node)
    if not isinstance(x, Tensor):
        return x
    if b["strategy"] != "greedy" or len(x.shape) != 3:
        return interp.unknown("keras.ops.ctc_decode other than greedy of (batch, time, classes) is not modelled", node)
    batch, time = x.shape[0], x.shape[1]
    with framework.ops.arguments([x]):
        decoded, log_probs = framework.ops.record(interp, "reduce", "ctc_decode",
                                                  {"op": "ctc_greedy", "dim": -1, "keepdim": False}, [x.shape], node,
                                                  outputs=[(1, batch, time), (batch, 1)], facts={}, dtype="float32")
    return Tensor(decoded.shape, "int32"), log_probs


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
        flat = Tensor((_numel(x.shape),), x.dtype)
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
    the sign (a Mul per output)."""
    def fn(framework, f, interp, b, node):
        start, stop = b["start"], b["stop"]
        if not isinstance(start, Tensor) and not isinstance(stop, Tensor):
            return interp.unknown(f"keras.ops.{name} of numbers runs outside the model (a constant): not modelled", node)
        start = start if isinstance(start, Tensor) else Tensor(())
        stop = stop if isinstance(stop, Tensor) else Tensor(())
        if start.shape is None or stop.shape is None:
            return interp.unknown(f"keras.ops.{name} of a tensor of unknown shape", node)
        if not b["endpoint"] or b["axis"] != 0 or b.get("retstep"):
            return interp.unknown(f"keras.ops.{name} with endpoint=False, retstep or another axis than 0 is not modelled",
                                  node)
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
        return interp.unknown("keras.ops.argpartition of a tensor is not modelled (it fails in a TensorFlow graph)", node)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return Tensor((), "int32")
    if isinstance(x, (list, tuple)) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in x):
        return Tensor((len(x),), "int32")
    return interp.unknown("keras.ops.argpartition of a value that is not numbers", node)


_QUANTILE = "x, q, axis=None, method='linear', keepdims=False"
_SPACE_TAIL = "num=50, endpoint=True"

# name -> (signature, lowering)
LOWERINGS = {
    "binary_crossentropy": ("target, output, from_logits=False", _binary_crossentropy),
    "categorical_crossentropy": ("target, output, from_logits=False, axis=-1", _categorical_crossentropy),
    "sparse_categorical_crossentropy": ("target, output, from_logits=False, axis=-1", _sparse_categorical_crossentropy),
    "psnr": ("x1, x2, max_val", _psnr),
    "ctc_loss": ("target, output, target_length, output_length, mask_index=0", _ctc_loss),
    "trace": ("x, offset=0, axis1=0, axis2=1", _trace), "inner": ("x1, x2", _inner),
    "matrix_rank": ("x, tol=None", _matrix_rank), "pinv": ("x, rcond=1e-15", _pinv),
    "lstsq": ("a, b, rcond=None", _lstsq),
    "quantile": (_QUANTILE, _quantile("quantile")), "nanquantile": (_QUANTILE, _quantile("nanquantile")),
    "percentile": (_QUANTILE, _quantile("percentile")), "nanpercentile": (_QUANTILE, _quantile("nanpercentile")),
    "median": ("x, axis=None, keepdims=False", _quantile("median")),
    "nanmedian": ("x, axis=None, keepdims=False", _quantile("nanmedian")),
    "linspace": (f"start, stop, {_SPACE_TAIL}, retstep=False, dtype=None, axis=0", _spaced("linspace")),
    "logspace": (f"start, stop, {_SPACE_TAIL}, base=10, dtype=None, axis=0", _spaced("logspace")),
    "geomspace": (f"start, stop, {_SPACE_TAIL}, dtype=None, axis=0", _spaced("geomspace")),
    "cholesky_inverse": ("x, upper=False", _cholesky_inverse), "correlate": ("x1, x2, mode='valid'", _correlate),
    "ifft2": ("x", _ifft2),
    "fold": ("x, output_size, kernel_size, dilation=1, padding=0, stride=1", _fold),
    "extract_sequences": ("x, sequence_length, sequence_stride", _extract_sequences),
    "stft": ("x, sequence_length, sequence_stride, fft_length, window='hann', center=True", _stft),
    "istft": ("x, sequence_length, sequence_stride, fft_length, length=None, window='hann', center=True", _istft),
    "ctc_decode": ("inputs, sequence_lengths, strategy='greedy', beam_width=100, top_paths=1, merge_repeated=True, "
                   "mask_index=0", _ctc_decode),
    "sparsemax": ("x, axis=-1", _sparsemax), "argpartition": ("x, kth, axis=-1", _argpartition),
}
