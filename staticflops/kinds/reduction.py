"""Reductions and scans along dims: sum/mean/amax/... (`reduce`, with an ``op``), cumulative
scans, F.normalize, sort/argsort/topk and scatter_add."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError, reduce


def _along_dim(attrs, inputs):
    return [inputs[0]], {}


def _sort(attrs, inputs):
    """sort / argsort / topk along ``dim``; ``comparisons`` = n * ceil(log2 n) per row for a
    full sort, n * ceil(log2 k) for the k largest (a heap of k), for rule sets that count them."""
    x = inputs[0]
    axis = attrs["dim"]
    n = x[axis] if x else 1
    k = attrs.get("k")
    if k is not None:
        if isinstance(k, int) and isinstance(n, int) and not 0 <= k <= n:
            raise ShapeError(f"k ({k}) is out of range for a dimension of size {n}")
        out = x[:axis] + (k,) + x[axis + 1:] if x else x
    else:
        out = x
    depth = k if k is not None else n
    log = (depth - 1).bit_length() if isinstance(depth, int) and depth > 1 else 0
    rows = numel(x) // n if x and isinstance(n, int) and n else numel(x)
    return [out], {"comparisons": rows * (n if x else 1) * log}


def _scatter_add(attrs, inputs):
    return [inputs[0]], {}


def _reduce(attrs, inputs):
    return [reduce(inputs[0], attrs.get("dim"), attrs.get("keepdim", False))], {}


KINDS = catalogue(
    Kind("reduce", _reduce, True, "a reduction over dims (sum, mean, amax, std, ...: the ``op`` attribute)",
         (Example("x.sum(1)", ("x:2x8",), ((2,),), 0, "dim 1 of (2, 8) reduced; FlopCounterMode counts no reduction: 0"),)),
    Kind("cumulative", _along_dim, True, "a running sum, product, max... along dim: the input's shape",
         (Example("torch.cumsum(x, 1)", ("x:2x8",), ((2, 8),), 0, "the input's shape: 0"),)),
    Kind("normalize", _along_dim, True, "F.normalize: x / max(||x||_p, eps) along dim",
         (Example("F.normalize(x)", ("x:2x8",), ((2, 8),), 0, "the input's shape: 0"),)),
    Kind("sort", _sort, True, "sort / argsort / topk along dim: values and indices",
         (Example("torch.sort(x, 1)", ("x:2x8",), ((2, 8), (2, 8)), 0,
                  "values and indices of (2, 8); comparisons only: 0"),)),
    Kind("scatter_add", _scatter_add, True, "src added into a copy of the input at the index's positions",
         (Example("x.scatter_add(1, i, x)", ("x:2x8", "i:int64:2x8"), ((2, 8),), 0, "the input's shape: 0"),)),
)
