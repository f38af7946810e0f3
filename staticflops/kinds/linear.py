"""Dense layers and table lookups: y = x W^T + b over the last dimension (nn.Linear, F.linear,
Keras Dense), the bilinear form x1^T A x2 (nn.Bilinear), and embedding tables (nn.Embedding,
nn.EmbeddingBag and their F.* forms; Keras Embedding)."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.layout import expect_size
from staticflops.shapes.shape import format_shape
from staticflops.shapes.tensor_ops import ShapeError


def _linear(attrs, inputs):
    x = inputs[0]
    if not x:
        raise ShapeError("Linear expects an input of rank at least 1, got a scalar")
    expect_size(x[-1], attrs["in_features"], "Linear expects {wanted} input features, got {actual}")
    return [x[:-1] + (attrs["out_features"],)], {}


def _bilinear(attrs, inputs):
    x1, x2 = inputs[0], inputs[1]
    expect_size(x1[-1], attrs["in1_features"], "Bilinear expects {wanted} features in its first input, got {actual}")
    expect_size(x2[-1], attrs["in2_features"], "Bilinear expects {wanted} features in its second input, got {actual}")
    return [x1[:-1] + (attrs["out_features"],)], {}


def _embedding(attrs, inputs):
    return [tuple(inputs[0]) + (attrs["embedding_dim"],)], {}


def _embedding_bag(attrs, inputs):
    """2-D input: one bag per row; 1-D input: one bag per offset (the last one dropped with
    ``include_last_offset``)."""
    ids = inputs[0]
    if len(ids) == 2:
        bags = ids[0]
    elif len(ids) == 1 and len(inputs) > 1:
        bags = inputs[1][0] - (1 if attrs.get("include_last_offset") else 0)
    else:
        raise ShapeError(f"EmbeddingBag expects a 2-D input, or a 1-D input with offsets, got {format_shape(ids)}")
    return [(bags, attrs["embedding_dim"])], {}


KINDS = catalogue(
    Kind("linear", _linear, True, "x W^T + b over the last dimension: in_features MACs per output",
         (Example("self.m(x)", ("x:2x8",), ((2, 4),), 128,
                  "2*4 = 8 outputs x 8 inputs = 64 MACs = 128 FLOPs (the bias add is not counted); params "
                  "8*4 + 4 = 36", init="self.m = nn.Linear(8, 4)", params=36),),
         weights=lambda a: ((a["out_features"], a["in_features"]), (a["out_features"],))),
    Kind("bilinear", _bilinear, True, "y_k = x1^T A_k x2 + b_k: in1 x in2 MACs per output",
         (Example("self.m(x, y)", ("x:2x3", "y:2x4"), ((2, 2),), 96,
                  "2*2 = 4 outputs x 3*4 = 48 MACs = 96 FLOPs (FlopCounterMode has no formula for "
                  "aten._trilinear: `standard` counts the products); params 3*4*2 + 2 = 26",
                  init="self.m = nn.Bilinear(3, 4, 2)", params=26),),
         weights=lambda a: ((a["out_features"], a["in1_features"], a["in2_features"]), (a["out_features"],))),
    Kind("embedding", _embedding, True, "a row of the table per index: the indices' shape + (embedding_dim,)",
         (Example("self.m(i)", ("i:int64:2x5",), ((2, 5, 4),), 0,
                  "2x5 indices, rows of 4; a lookup: 0; params 10*4 = 40",
                  init="self.m = nn.Embedding(10, 4)", params=40),),
         weights=lambda a: ((a["num_embeddings"], a["embedding_dim"]), None)),
    Kind("embedding_bag", _embedding_bag, True, "the sum, mean or max of the rows of each bag",
         (Example("self.m(i)", ("i:int64:2x5",), ((2, 4),), 0,
                  "a 2-D input is 2 bags of 5 indices: (2, 4); lookups and a mean: 0; params 10*4 = 40",
                  init="self.m = nn.EmbeddingBag(10, 4)", params=40),),
         weights=lambda a: ((a["num_embeddings"], a["embedding_dim"]), None)),
)
