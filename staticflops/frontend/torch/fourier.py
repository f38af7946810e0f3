"""``torch.fft``: the discrete Fourier transforms (fft, fftn, rfft, irfft, ... and the frequency
helpers), as shapes and one op of kind ``fft`` (kinds/spectral.py; FlopCounterMode has no formula
for aten._fft_c2c/_fft_r2c/_fft_c2r, so the standard convention counts 0, `full` the radix-2 count).

A complex result keeps the input's dtype here, as ``view_as_complex`` does: the analysis tracks
shapes and counts, and ``.real``/``.imag`` of it are the same shape (FNet's
``torch.fft.fftn(x, dim=(1, 2)).real``)."""

from __future__ import annotations

import math

from staticflops.diagnostics import AnalysisError
from staticflops.frontend.values import CannotKnow, Tensor, Unknown

# name -> (the transform's default dims: 1 = the last one, 2 = the last two, None = all;
#          what it does to the last transformed size: "same", "half" (n // 2 + 1), "double" (2 (m - 1)))
_TRANSFORMS = {
    "fft": (1, "same"), "ifft": (1, "same"), "rfft": (1, "half"), "irfft": (1, "double"),
    "hfft": (1, "double"), "ihfft": (1, "half"),
    "fft2": (2, "same"), "ifft2": (2, "same"), "rfft2": (2, "half"), "irfft2": (2, "double"),
    "hfft2": (2, "double"), "ihfft2": (2, "half"),
    "fftn": (None, "same"), "ifftn": (None, "same"), "rfftn": (None, "half"), "irfftn": (None, "double"),
    "hfftn": (None, "double"), "ihfftn": (None, "half"),
}


def _dims(rank: int, default, dim, sizes) -> list[int]:
    """The transformed dims, as torch picks them: ``dim`` when given (one int for the 1-D
    transforms), else the last ``len(s)`` dims when ``s`` is given, else the default."""
    if dim is not None:
        picked = [dim] if isinstance(dim, int) else list(dim)
    elif sizes is not None:
        picked = list(range(rank - len(sizes), rank))
    elif default is None:
        picked = list(range(rank))
    else:
        picked = list(range(rank - default, rank))
    if any(not isinstance(d, int) or not -rank <= d < rank for d in picked):
        raise CannotKnow(f"a Fourier transform over dims {picked} of a rank-{rank} tensor")
    return [d % rank for d in picked]


def _transform(t, name: str):
    default, last = _TRANSFORMS[name]
    one_dim = default == 1

    def transform(interp, args, kwargs, node):
        names = ("input", "n", "dim", "norm") if one_dim else ("input", "s", "dim", "norm")
        bound = {**dict(zip(names, args)), **kwargs}
        x = t.shape_of(interp, bound["input"], node)
        requested = bound.get("n") if one_dim else bound.get("s")
        if isinstance(requested, Unknown) or isinstance(bound.get("dim"), Unknown):
            raise CannotKnow("a Fourier transform's size or dims are unknown")
        sizes = None if requested is None else [requested] if one_dim else list(requested)
        dims = _dims(len(x), default, -1 if one_dim and bound.get("dim") is None else bound.get("dim"), sizes)
        if sizes is not None and len(sizes) != len(dims):
            raise AnalysisError(f"torch.fft.{name}: s has {len(sizes)} sizes for {len(dims)} dims",
                                interp.location(node), "SF301")
        out = list(x)
        for position, d in enumerate(dims):
            if sizes is not None and sizes[position] != -1:
                out[d] = sizes[position]
        # points per transform: the signal's sizes (after `n`/`s`; for the inverse one-sided
        # transforms, the real output's), then the one-sided transforms halve or restore the last dim
        if last == "double" and (sizes is None or sizes[-1] == -1):
            out[dims[-1]] = 2 * (x[dims[-1]] - 1)
        points = math.prod(out[d] for d in dims)
        if last == "half":
            out[dims[-1]] = out[dims[-1]] // 2 + 1
        transforms = math.prod(size for i, size in enumerate(out) if i not in dims)
        op = "fft" if last == "same" else "rfft" if last == "half" else "irfft"
        facts = {"transforms": transforms, "points": points,
                 "log2n": max(points - 1, 0).bit_length() if isinstance(points, int) else 1}
        return t.record(interp, "fft", f"torch.fft.{name}", {"op": op}, [x], node, outputs=[tuple(out)],
                        facts=facts, dtype=bound["input"].dtype)
    return transform


def _frequencies(name: str):
    """``fftfreq(n, d=1.0)``: n sample frequencies; ``rfftfreq(n)``: n // 2 + 1 of them."""
    def frequencies(interp, args, kwargs, node):
        n = args[0] if args else kwargs.get("n")
        if not isinstance(n, int):
            raise CannotKnow(f"torch.fft.{name} of a length that is not a known integer")
        return Tensor((n // 2 + 1 if name == "rfftfreq" else n,), "float32")
    return frequencies


def _shift(t):
    """``fftshift``/``ifftshift``: a roll of the zero frequency to the centre: the same shape."""
    def shift(interp, args, kwargs, node):
        value = args[0] if args else kwargs["input"]
        return Tensor(t.shape_of(interp, value, node), value.dtype)
    return shift


def build_fourier(t) -> dict:
    """name -> fn(interp, args, kwargs, node) for the ``torch.fft`` namespace."""
    found = {name: _transform(t, name) for name in _TRANSFORMS}
    found.update({name: _frequencies(name) for name in ("fftfreq", "rfftfreq")})
    found.update({name: _shift(t) for name in ("fftshift", "ifftshift")})
    return found
