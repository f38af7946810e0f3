"""Arithmetic along one dimension whose output length differs from the input's: finite
differences, integrals, Vandermonde powers, short-time Fourier transforms."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue, expect
from staticflops.shapes.tensor_ops import normalize_dim


def _sequence(attrs, inputs):
    x, op = inputs[0], attrs["op"]
    if op == "gradient":  # one derivative per dimension asked for (all by default)
        dims = attrs.get("dim")
        count = len(x) if dims is None else len(dims) if isinstance(dims, tuple) else 1
        return [x] * count, {}
    if op == "cumulative_trapezoid":  # the running integral: one value per interval
        axis = normalize_dim(attrs.get("dim", -1), len(x))
        return [x[:axis] + (x[axis] - 1,) + x[axis + 1:]], {}
    if op == "vander":  # x^0 .. x^(N-1) for each element of a 1-D x
        expect(len(x) == 1, "vander expects a 1-D tensor")
        columns = attrs.get("N")
        return [(x[0], x[0] if columns is None else columns)], {}
    raise ValueError(f"{op} is not a sequence op")


def _istft(attrs, x):
    """(batch?, bins, frames) complex -> (batch?, length): the frames overlap-added every hop,
    the centre padding cut off (or ``length`` samples)."""
    expect(len(x) in (2, 3), f"istft expects a 2-D or 3-D complex input, got rank {len(x)}")
    n_fft = attrs["n_fft"]
    hop = attrs.get("hop_length") or n_fft // 4
    frames = x[-1]
    length = attrs.get("length")
    if length is None:
        length = hop * (frames - 1) + n_fft - (2 * (n_fft // 2) if attrs.get("center", True) else 0)
    return [x[:-2] + (length,)], {"frames": frames * (x[0] if len(x) == 3 else 1), "n_fft": n_fft,
                                  "log2n": max(n_fft - 1, 0).bit_length()}


def _stft(attrs, inputs):
    """(batch?, length) -> (batch?, n_fft // 2 + 1 [onesided] or n_fft, frames[, 2])."""
    x = inputs[0]
    if attrs.get("op") == "istft":
        return _istft(attrs, x)
    expect(len(x) in (1, 2), f"stft expects a 1-D or 2-D input, got rank {len(x)}")
    n_fft = attrs["n_fft"]
    hop = attrs.get("hop_length") or n_fft // 4
    expect(isinstance(n_fft, int) and n_fft > 0 and hop > 0, "stft: n_fft and hop_length must be positive")
    length = x[-1] + (2 * (n_fft // 2) if attrs.get("center", True) else 0)
    expect(not isinstance(length, int) or length >= n_fft, f"stft: n_fft {n_fft} exceeds the input's length")
    frames = (length - n_fft) // hop + 1
    onesided = attrs.get("onesided")
    bins = n_fft if onesided is False else n_fft // 2 + 1
    out = x[:-1] + (bins, frames) + (() if attrs.get("return_complex") else (2,))
    return [out], {"frames": frames * (x[0] if len(x) == 2 else 1), "n_fft": n_fft,
                   "log2n": max(n_fft - 1, 0).bit_length()}


KINDS = catalogue(
    Kind("sequence_math", _sequence, True,
         "gradient (central differences, one tensor per dim), cumulative_trapezoid (n - 1 running "
         "integrals), vander (the powers of a vector)",
         (Example("torch.cumulative_trapezoid(x)", ("x:2x8",), ((2, 7),), 0,
                  "7 intervals of 8 samples; elementwise: 0"),)),
    Kind("stft", _stft, True,
         "short-time Fourier transform (a windowed FFT of n_fft samples every hop_length) and its inverse",
         (Example("torch.stft(x, 4, return_complex=True)", ("x:2x16",), ((2, 3, 17),), 0,
                  "centre padding 2 + 16 + 2 = 20, hop 4 // 4 = 1: (20 - 4) // 1 + 1 = 17 frames of "
                  "4 // 2 + 1 = 3 bins; aten._fft_r2c has no FlopCounterMode formula: 0"),)),
)
