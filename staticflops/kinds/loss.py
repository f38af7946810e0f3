"""Losses inside ``forward`` (nn.*Loss, F.* losses, and nn.LinearCrossEntropyLoss, a projection
fused with its cross entropy): a scalar, or one term per item with reduction='none'.  The
attribute ``op`` names the loss (the F.* function of the same math)."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.expr import format_dim
from staticflops.shapes.shape import format_shape, numel
from staticflops.shapes.tensor_ops import ShapeError, broadcast, same

# Losses whose input has a class dimension (dim 1, or 0 unbatched) that the loss consumes.
_CLASS_LOSSES = ("cross_entropy", "nll_loss", "multi_margin_loss")
# Losses with one term per row: the last dimension (features, or labels) is consumed.
_ROW_LOSSES = ("cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
               "multilabel_margin_loss", "multilabel_soft_margin_loss")


def _loss(attrs, inputs):
    """The loss per element (reduction='none') or a scalar; ``elements`` = terms before the
    reduction, ``classes`` = the dimension each term consumes (a cross entropy's classes, a
    row loss's features); CTC: ``steps`` = time steps, ``labels`` = target length."""
    x, target = inputs[0], inputs[1]
    if attrs["op"] in _CLASS_LOSSES:
        axis = 1 if len(x) >= 2 else 0
        classes = x[axis] if x else 1
        per_item = x[:axis] + x[axis + 1:]
        if tuple(target) != tuple(x) and not all(same(a, b) for a, b in zip(target, per_item)) or (
                tuple(target) != tuple(x) and len(target) != len(per_item)):
            raise ShapeError(f"{attrs['op']}: target {format_shape(target)} does not fit input {format_shape(x)}")
    elif attrs["op"] in _ROW_LOSSES:
        both = broadcast(x, target)
        classes, per_item = (both[-1] if both else 1), both[:-1]
    elif attrs["op"] == "ctc_loss":  # log_probs (time, batch, classes) or (time, classes): one term per sequence
        classes, per_item = x[-1], x[1:2] if len(x) == 3 else ()
    else:  # elementwise losses; margin_ranking_loss and gaussian_nll_loss broadcast a third tensor too
        classes, per_item = 1, broadcast(*inputs)
    out = per_item if attrs.get("reduction", "mean") == "none" else ()
    return [out], {"elements": numel(per_item), "classes": classes, "steps": x[0] if x else 1,
                   "labels": target[-1] if target else 1}


def _linear_cross_entropy(attrs, inputs):
    """input (..., in_features) projected to num_classes logits, then a cross entropy against
    the target: one term per row."""
    x = inputs[0]
    if not x or not same(x[-1], attrs["in_features"]):
        raise ShapeError(f"linear_cross_entropy expects {format_dim(attrs['in_features'])} input features, "
                         f"got input {format_shape(x)}")
    rows = x[:-1]
    return [rows if attrs.get("reduction", "mean") == "none" else ()], {"rows": numel(rows)}


KINDS = catalogue(
    Kind("loss", _loss, True,
         "a loss of the input against a target: elementwise, per class dimension, per row, or CTC",
         (Example("self.m(x, t)", ("x:4x10", "t:int64:4"), ((),), 0,
                  "cross entropy of 4 rows of 10 classes, mean-reduced: a scalar; FlopCounterMode counts "
                  "none of it: 0", init="self.m = nn.CrossEntropyLoss()", params=0),)),
    Kind("linear_cross_entropy", _linear_cross_entropy, True,
         "logits = x W^T (in_features -> num_classes), then their cross entropy against the target",
         (Example("self.m(x, t)", ("x:4x8", "t:int64:4"), ((),), 640,
                  "4 rows x 8 inputs x 10 classes = 320 MACs = 640 FLOPs (the projection; the cross entropy "
                  "counts 0); a scalar; params 8*10 (no bias by default)",
                  init="self.m = nn.LinearCrossEntropyLoss(8, 10)", params=80),),
         weights=lambda a: ((a["num_classes"], a["in_features"]), (a["num_classes"],))),
)
