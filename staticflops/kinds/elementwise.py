"""Elementwise arithmetic kinds: one output element from the matching element of each operand.

`standard` (FlopCounterMode) counts none of them; `full` counts the operations per element
(rules/full.yaml).  The ``op`` attribute names the function (``atan2``, ``addcmul``, ...).
"""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue, expect
from staticflops.shapes.tensor_ops import broadcast


def _same(attrs, inputs):
    return [inputs[0]], {}


def _broadcast(attrs, inputs):
    return [broadcast(*inputs)], {}


def _ternary(attrs, inputs):
    if attrs.get("op") == "addr":  # input + outer(vec1, vec2): the outer product's matrix
        base, u, v = inputs
        expect(len(u) == 1 and len(v) == 1, "addr expects 1-D vectors")
        return [broadcast(base, (u[0], v[0]))], {}
    return [broadcast(*inputs)], {}


def _kron(attrs, inputs):
    a, b = inputs
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    return [tuple(p * q for p, q in zip(a, b))], {}


KINDS = catalogue(
    Kind("unary_math", _same, True,
         "f(x) per element: trigonometric, hyperbolic, exponential/log variants, special functions, "
         "rounding, bitwise not, nan_to_num...",
         (Example("torch.acos(x)", ("x:2x3x8x8",), ((2, 3, 8, 8),), 0,
                  "elementwise: FlopCounterMode has no formula for aten.acos: 0"),)),
    Kind("binary_math", _broadcast, True,
         "f(a, b) per element of the broadcast shape: atan2, hypot, fmod, remainder, bitwise ops, xlogy...",
         (Example("torch.atan2(x, y)", ("x:2x8", "y:8"), ((2, 8),), 0,
                  "(2, 8) and (8,) broadcast to (2, 8); elementwise: 0"),)),
    Kind("ternary_math", _ternary, True,
         "f(a, b, c) per element: addcmul, addcdiv, lerp, addr (input + outer product)",
         (Example("torch.addr(x, u, v)", ("x:2x8", "u:2", "v:8"), ((2, 8),), 0,
                  "outer(u, v) is (2, 8); FlopCounterMode has no formula for aten.addr: 0"),)),
    Kind("kron", _kron, True,
         "Kronecker product: each dimension the product of the operands' (one multiply per output)",
         (Example("torch.kron(x, y)", ("x:2x8", "y:2x8"), ((4, 64),), 0, "2*2, 8*8; products only: 0"),)),
)
