"""Keras preprocessing layers inside a model: token encodings and lookups, and image
augmentation, which passes the image through at inference."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.layout import expect_rank
from staticflops.shapes.tensor_ops import broadcast


def _same(attrs, inputs):
    return [inputs[0]], {}


def _broadcast(attrs, inputs):
    # the preprocessing lookups (Hashing, HashedCrossing...): the inputs broadcast, as numpy's
    return [broadcast(*inputs)], {}


def _category_encoding(attrs, inputs):
    """CategoryEncoding: (B, n) token ids -> (B, num_tokens) counts or multi-hot flags; one_hot
    gives each id its own row, (B, 1) or (B,) -> (B, num_tokens), (B, n) -> (B, n, num_tokens)."""
    x, tokens = inputs[0], attrs["num_tokens"]
    if attrs["output_mode"] == "one_hot":
        expect_rank(x, (1, 2), "CategoryEncoding")
        return [(x[0], tokens) if len(x) == 1 or x[-1] == 1 else tuple(x) + (tokens,)], {}
    expect_rank(x, (2,), "CategoryEncoding")
    return [(x[0], tokens)], {}


def _keras(call, inputs, shape, why):
    return (Example(call, inputs, (shape,), 0, why, framework="keras"),)


KINDS = catalogue(
    Kind("category_encoding", _category_encoding, True, "token ids to counts, multi-hot or one-hot rows",
         _keras('layers.CategoryEncoding(num_tokens=5, output_mode="multi_hot")(i)', ("i:int32:2x3",), (2, 5),
                "each row of 3 ids becomes 5 flags: (2, 5); index arithmetic: 0")),
    Kind("lookup", _broadcast, True, "Discretization, Hashing, IntegerLookup, HashedCrossing: an index per value",
         _keras("layers.Hashing(num_bins=4)(i)", ("i:int32:2x3",), (2, 3), "one bin per id: (2, 3); no arithmetic: 0")),
    Kind("augment", _same, True, "random image augmentation: the image itself at inference",
         _keras("layers.RandomFlip()(x)", ("x:2x8x8x3",), (2, 8, 8, 3), "the input's shape; a copy at inference: 0")),
    Kind("auto_contrast", _same, True, "AutoContrast: each channel stretched to value_range (min/max, elementwise)",
         _keras("layers.AutoContrast()(x)", ("x:2x8x8x3",), (2, 8, 8, 3), "the input's shape; elementwise: 0")),
)
