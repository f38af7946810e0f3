"""The first per-element kinds, one per operator or function (`add` for +, `exp`, `clamp`...):
their names are rule keys, so they stay apart from elementwise.py's grouped unary_math /
binary_math.  Unary ones keep the input's shape; binary ones broadcast."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.tensor_ops import broadcast


def _same_shape(attrs, inputs):
    return [inputs[0]], {}


def _elementwise(attrs, inputs):
    return [broadcast(*inputs)], {}


_ZERO = "FlopCounterMode counts no elementwise op: 0"


def _unary(name, call, doc):
    return Kind(name, _same_shape, True, doc,
                (Example(call, ("x:2x8",), ((2, 8),), 0, f"the input's shape; {_ZERO}"),))


def _binary(name, call, doc):
    return Kind(name, _elementwise, True, doc,
                (Example(call, ("x:2x8", "y:8"), ((2, 8),), 0, f"(2, 8) and (8,) broadcast to (2, 8); {_ZERO}"),))


KINDS = catalogue(
    _unary("abs", "torch.abs(x)", "|x|"),
    _unary("exp", "torch.exp(x)", "e^x"),
    _unary("log", "torch.log(x)", "the natural logarithm"),
    _unary("sqrt", "torch.sqrt(x)", "the square root"),
    _unary("rsqrt", "torch.rsqrt(x)", "1 / sqrt(x)"),
    _unary("neg", "-x", "-x"),
    _unary("sin", "torch.sin(x)", "the sine"),
    _unary("cos", "torch.cos(x)", "the cosine"),
    _unary("clamp", "torch.clamp(x, min=0.0)", "x limited to [min, max]"),
    _unary("erf", "torch.erf(x)", "the error function"),
    _unary("round", "torch.round(x)", "to the nearest integer (half to even)"),
    _unary("floor", "torch.floor(x)", "the largest integer not above x"),
    _unary("ceil", "torch.ceil(x)", "the smallest integer not below x"),
    _unary("sign", "torch.sign(x)", "-1, 0 or 1"),
    _binary("add", "x + y", "a + b"),
    _binary("sub", "x - y", "a - b"),
    _binary("mul", "x * y", "a * b"),
    _binary("div", "x / y", "a / b"),
    _binary("pow", "x ** y", "a ** b"),
    _binary("maximum", "torch.maximum(x, y)", "the larger of a and b"),
    _binary("minimum", "torch.minimum(x, y)", "the smaller of a and b"),
    _binary("compare", "x > y", "==, <, isclose, isin...: a bool per element"),
    Kind("where", _elementwise, True, "condition ? a : b, the three broadcast",
         (Example("torch.where(x > 0, x, y)", ("x:2x8", "y:8"), ((2, 8),), 0,
                  f"(2, 8), (2, 8) and (8,) broadcast to (2, 8); {_ZERO}"),)),
    _binary("polar", "torch.polar(x, y)", "abs * (cos(angle) + i sin(angle)): a complex tensor"),

    # Keras' elementwise layers and keras.ops math (the inputs broadcast, as numpy's)
    Kind("rescale", _elementwise, True, "Keras Rescaling: x * scale + offset",
         (Example("layers.Rescaling(0.5)(x)", ("x:2x8",), ((2, 8),), 0, f"the input's shape; {_ZERO}",
                  params=0, framework="keras"),)),
    Kind("average", _elementwise, True, "Keras Average: the mean of the inputs",
         (Example("layers.Average()([x, y])", ("x:2x8", "y:2x8"), ((2, 8),), 0, f"(2, 8) twice; {_ZERO}",
                  params=0, framework="keras"),)),
    Kind("pointwise", _elementwise, True, "keras.ops math with no multiply-accumulate, and Masking",
         (Example("layers.Masking()(x)", ("x:2x3x8",), ((2, 3, 8),), 0, f"the input's shape; {_ZERO}",
                  params=0, framework="keras"),)),
)
