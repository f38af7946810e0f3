"""Similarities and distances between vectors along one dimension (F.cosine_similarity,
F.pairwise_distance, F.pdist and their modules); cdist is `distance` (kinds/linalg.py)."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.shape import format_shape
from staticflops.shapes.tensor_ops import ShapeError, broadcast, normalize_dim, reduce


def _cosine_similarity(attrs, inputs):
    both = broadcast(inputs[0], inputs[1])
    return [reduce(both, attrs.get("dim", 1), False)], {"features": both[normalize_dim(attrs.get("dim", 1), len(both))]}


def _pairwise_distance(attrs, inputs):
    both = broadcast(inputs[0], inputs[1])
    if not both:
        return [()], {"features": 1}
    return [both[:-1] + ((1,) if attrs.get("keepdim") else ())], {"features": both[-1]}


def _pdist(attrs, inputs):
    x = inputs[0]
    if len(x) != 2:
        raise ShapeError(f"pdist expects a 2-D input, got {format_shape(x)}")
    return [(x[0] * (x[0] - 1) // 2,)], {"features": x[1]}


KINDS = catalogue(
    Kind("cosine_similarity", _cosine_similarity, True, "x . y / (|x| |y|) along dim (1 by default), broadcast",
         (Example("F.cosine_similarity(x, y)", ("x:2x8", "y:2x8"), ((2,),), 0,
                  "dim 1 of (2, 8) is reduced: (2,); FlopCounterMode has no formula: 0"),)),
    Kind("pairwise_distance", _pairwise_distance, True, "the p-norm of x - y along the last dimension",
         (Example("F.pairwise_distance(x, y)", ("x:2x8", "y:2x8"), ((2,),), 0,
                  "the last dim of (2, 8) is reduced: (2,); 0"),)),
    Kind("pdist", _pdist, True, "the p-norm distance of every pair of rows, the upper triangle flattened",
         (Example("F.pdist(x)", ("x:5x8",), ((10,),), 0, "5 * 4 / 2 = 10 pairs of rows; 0"),)),
)
