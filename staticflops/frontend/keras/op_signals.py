"""``keras.ops`` signal functions as Keras 3.15.1's TensorFlow backend computes them, from
existing kinds (helper kops, issue 20): ``stft``/``istft`` (tf.signal framing, the hann window,
kind ``fft``), ``extract_sequences``, ``fold`` (kind ``fold`` and its scatter indices),
``correlate`` (a conv1d: its products) and ``ifft2``.  The small scalar and index ops are the
backend's size arithmetic, which the TF profiler counts one per element (the `tf-profiler`
ground truth of tools/record_coverage_keras.py's probe).  frontend/keras/op_table.py binds
``SIGNALS`` with its other tables.
"""

from __future__ import annotations

from math import gcd

from staticflops.frontend.keras.op_composites import _record, _scalars, _tensor, _unknown_first
from staticflops.frontend.values import Tensor
from staticflops.shapes.tensor_ops import ShapeError


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
    out = f["matmul"](interp, [Tensor((rows, m), a.dtype), Tensor((m, 1), c.dtype)], {}, node)
    if not isinstance(out, Tensor):
        return out
    return Tensor((max(n, m),) if mode == "same" else (rows,), a.dtype)


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
            indices = f["mul"](interp, [Tensor((count,), "int32"), Tensor(())], {}, node)
            f["add"](interp, [indices, Tensor(())], {}, node)
    return out


def _frames(f, interp, length, frame_length, step, node):
    """tf.signal.frame(pad_end=False) along the last axis: the frame count (a Sub, an Add and a
    Maximum of scalars), each frame's start (a Mul per frame) and the start of each of its
    frame_length / gcd(frame_length, step) sub-frames (an Add each); the gather is no arithmetic."""
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
    scaled = f["mul"](interp, [f["cos"](interp, [points], {}, node), Tensor(())], {}, node)
    return f["sub"](interp, [Tensor(()), scaled], {}, node)


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


# name -> (signature, lowering)
SIGNALS = {
    "correlate": ("x1, x2, mode='valid'", _correlate), "ifft2": ("x", _ifft2),
    "fold": ("x, output_size, kernel_size, dilation=1, padding=0, stride=1", _fold),
    "extract_sequences": ("x, sequence_length, sequence_stride", _extract_sequences),
    "stft": ("x, sequence_length, sequence_stride, fft_length, window='hann', center=True", _stft),
    "istft": ("x, sequence_length, sequence_stride, fft_length, length=None, window='hann', center=True", _istft),
}
