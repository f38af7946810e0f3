"""Every kind of the catalogue by name (the family modules' tables, merged; no duplicates).

The kinds that compute are also entered in the shapes stage's registry of kinds
(``shapes/layers.py``'s ``SHAPE_FUNCTIONS``), so that every question "is X a kind, what is its
shape" has one answer: the tracer's ``infer`` and the rule-set tests (every rule key is a kind,
every kind has a rule in every rule set) see them.  Kinds that only move data are never
recorded and need no rule: they stay out of it.
"""

from __future__ import annotations

from staticflops.kinds import (activation, arithmetic, attention, contraction, conv, elementwise, linalg, linear, loss,
                              movement, norm, pool, preprocessing, rearrange, recurrent, reduction, resample, search,
                              sequence, similarity, spectral)
from staticflops.kinds.record import catalogue
from staticflops.shapes.layers import SHAPE_FUNCTIONS

# The tensor ops of issue 20 (torch.* and Tensor methods); the torch.nn / nn.functional layer
# kinds; the first per-operator kinds, products and reductions (both frameworks bind them).
TENSOR_FAMILIES = (elementwise, linalg, search, sequence, movement)
NN_FAMILIES = (activation, linear, conv, pool, norm, recurrent, attention, loss, similarity, rearrange, resample)
CORE_FAMILIES = (arithmetic, contraction, reduction)
# Kinds only Keras produces that fit no family above: preprocessing layers, the Fourier transforms.
KERAS_FAMILIES = (preprocessing, spectral)
FAMILIES = TENSOR_FAMILIES + NN_FAMILIES + CORE_FAMILIES + KERAS_FAMILIES
KINDS = catalogue(*[kind for family in FAMILIES for kind in family.KINDS.values()])
# The tensor-op kinds, whose shape functions the tensor table calls itself (a symbolic minimum is
# a located unknown there); every other kind is reached through the registry's ``infer``.
TENSOR_KINDS = {name: kind for family in TENSOR_FAMILIES for name, kind in family.KINDS.items()}

for _kind in KINDS.values():
    if _kind.computes:
        if SHAPE_FUNCTIONS.get(_kind.name, _kind.shape) is not _kind.shape:
            raise ValueError(f"op kind {_kind.name!r} has a shape rule in shapes/ and in the catalogue")
        SHAPE_FUNCTIONS[_kind.name] = _kind.shape
