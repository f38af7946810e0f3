"""Discrete Fourier transforms (keras.ops.fft / fft2 / rfft / irfft, and the keras.ops
signal functions built on them) and Keras' STFTSpectrogram layer."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.layout import expect_rank
from staticflops.shapes.shape import format_shape, numel
from staticflops.shapes.tensor_ops import ShapeError
from staticflops.shapes.windows import conv_output_size, same_output_size


def _fft(attrs, inputs):
    """Along the last axis (fft2: the last two) of a (real, imaginary) pair or of a real signal
    (rfft).  fft / fft2 give a pair of the input's shape; rfft the pair with n // 2 + 1
    frequencies (n = fft_length or the length); irfft of a pair the real signal of fft_length
    (default 2 * (length - 1))."""
    op, x = attrs["op"], inputs[0]
    if len(x) < (2 if op == "fft2" else 1) or any(tuple(shape) != tuple(x) for shape in inputs[1:]):
        raise ShapeError(f"{op} expects real and imaginary parts of one shape, of rank at least "
                         f"{2 if op == 'fft2' else 1}, got {', '.join(format_shape(s) for s in inputs)}")
    n = attrs.get("fft_length")
    if op == "rfft":
        n = x[-1] if n is None else n
        outputs = [x[:-1] + (n // 2 + 1,)] * 2
    elif op == "irfft":
        n = 2 * (x[-1] - 1) if n is None else n
        outputs = [x[:-1] + (n,)]
    else:
        n = x[-1] * x[-2] if op == "fft2" else x[-1]
        outputs = [tuple(x), tuple(x)]
    whole = x[:-2] if op == "fft2" else x[:-1]
    return outputs, {"transforms": numel(tuple(whole)), "points": n,
                     "log2n": max(n - 1, 0).bit_length() if isinstance(n, int) else 1}


def _stft_spectrogram(attrs, inputs):
    """STFTSpectrogram (channels_last): (B, T, C) -> frames of `frame_length` every `frame_step`
    ('valid' or 'same', as a strided conv), `bins` = fft_length // 2 + 1 per frame and channel
    (twice that for mode='stft': real and imaginary parts): (B, frames, C * bins), or
    (B, frames, bins, C) with expand_dims."""
    x = inputs[0]
    expect_rank(x, (3,), "STFTSpectrogram")
    length, step, window = x[1], attrs["frame_step"], attrs["frame_length"]
    if attrs["padding"] == "same":
        frames = same_output_size(length, step)
    else:
        frames = conv_output_size(length, window, step, 0, 1)
        if isinstance(frames, int) and frames <= 0:
            raise ShapeError(f"STFTSpectrogram: input length {length} is shorter than frame_length {window}")
    bins = attrs["bins"] * (2 if attrs["mode"] == "stft" else 1)
    out = (x[0], frames, bins, x[2]) if attrs["expand_dims"] else (x[0], frames, x[2] * bins)
    # `spectra`: the values each DFT kernel computes (one per frame, bin and channel)
    return [out], {"frames": frames, "spectra": x[0] * x[2] * frames * attrs["bins"]}


KINDS = catalogue(
    Kind("fft", _fft, True, "a discrete Fourier transform of the last axis (fft2: the last two)",
         (Example("keras.ops.rfft(x)[0]", ("x:2x8",), ((2, 5),), 0,
                  "n = 8 real samples: 8 // 2 + 1 = 5 frequencies (the real part of the pair); "
                  "FlopCounterMode has no formula for the FFTs: 0", framework="keras"),)),
    Kind("stft_spectrogram", _stft_spectrogram, True, "Keras STFTSpectrogram: DFT kernels as strided convolutions",
         (Example("layers.STFTSpectrogram(frame_length=4, frame_step=2, fft_length=4)(x)", ("x:1x8x1",),
                  ((1, 3, 3),), 144,
                  "'valid' frames (8 - 4) // 2 + 1 = 3 of 4 // 2 + 1 = 3 bins, 1 channel: (1, 3, 3); mode 'log' "
                  "convolves with a real and an imaginary kernel: 2 x 9 spectrum values x 4 taps = 72 MACs = "
                  "144 FLOPs; params: the two kernels of 4 taps x 3 bins = 24", params=24,
                  framework="keras"),)),
)
