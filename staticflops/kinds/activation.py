"""Activations and the other per-element layers (torch.nn ReLU ... Threshold, Dropout,
Identity, PReLU; their F.* forms; Keras Activation/ReLU/... share the kinds): the input's
shape.  Softmax-like kinds normalise along one dimension; GLU halves one."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.tensor_ops import ShapeError, normalize_dim


def _same(attrs, inputs):
    return [inputs[0]], {}


def _softmax(attrs, inputs):
    dim = attrs.get("dim")
    if isinstance(dim, int) and not isinstance(dim, bool):  # None: PyTorch's legacy implicit choice
        normalize_dim(dim, len(inputs[0]))
    return [inputs[0]], {}


def _glu(attrs, inputs):
    x = inputs[0]
    axis = normalize_dim(attrs.get("dim", -1), len(x))
    if isinstance(x[axis], int) and x[axis] % 2:
        raise ShapeError(f"GLU halves dimension {attrs.get('dim', -1)}, but its size {x[axis]} is odd")
    return [x[:axis] + (x[axis] // 2,) + x[axis + 1:]], {}


def _per_element(name, module, doc, params=0, why="the input's shape; FlopCounterMode counts no elementwise op: 0",
                 weights=None):
    """A kind whose worked case is ``nn.<module>`` on a (2, 8) input."""
    return Kind(name, _same, True, doc,
                (Example("self.m(x)", ("x:2x8",), ((2, 8),), 0, why, init=f"self.m = nn.{module}", params=params),),
                weights)


KINDS = catalogue(
    _per_element("identity", "Identity()", "passes its input through"),
    _per_element("dropout", "Dropout()", "zeroes elements at random while training, scales the rest"),
    _per_element("relu", "ReLU()", "max(x, 0)"),
    _per_element("relu6", "ReLU6()", "min(max(x, 0), 6)"),
    _per_element("gelu", "GELU()", "x * Phi(x) (erf or tanh form)"),
    _per_element("silu", "SiLU()", "x * sigmoid(x)"),
    _per_element("tanh", "Tanh()", "tanh(x)"),
    _per_element("sigmoid", "Sigmoid()", "1 / (1 + exp(-x))"),
    _per_element("leaky_relu", "LeakyReLU()", "x, or negative_slope * x below 0"),
    _per_element("elu", "ELU()", "x, or alpha (exp(x) - 1) below 0"),
    _per_element("selu", "SELU()", "scale * elu(x, alpha) with fixed constants"),
    _per_element("celu", "CELU()", "max(0, x) + min(0, alpha (exp(x / alpha) - 1))"),
    _per_element("softplus", "Softplus()", "log(1 + exp(beta x)) / beta (linear above threshold)"),
    _per_element("mish", "Mish()", "x * tanh(softplus(x))"),
    _per_element("hardswish", "Hardswish()", "x * relu6(x + 3) / 6"),
    _per_element("hardsigmoid", "Hardsigmoid()", "relu6(x + 3) / 6"),
    _per_element("hardtanh", "Hardtanh()", "x clamped to [min_val, max_val]"),
    _per_element("prelu", "PReLU()", "x, or a learned slope times x below 0", params=1,
                 why="the input's shape; one shared slope (num_parameters=1): 1 param; 0",
                 weights=lambda attrs: ((attrs["num_parameters"],), None)),
    _per_element("hardshrink", "Hardshrink()", "x where |x| > lambd, else 0"),
    _per_element("softshrink", "Softshrink()", "x - lambd * sign(x) where |x| > lambd, else 0"),
    _per_element("tanhshrink", "Tanhshrink()", "x - tanh(x)"),
    _per_element("logsigmoid", "LogSigmoid()", "log(sigmoid(x))"),
    _per_element("rrelu", "RReLU()", "a leaky ReLU whose slope is drawn at random while training"),
    _per_element("threshold", "Threshold(0.1, 0.0)", "x above threshold, else value"),
    Kind("softmax", _softmax, True, "exp(x) / sum(exp(x)) along dim",
         (Example("self.m(x)", ("x:2x8",), ((2, 8),), 0, "the input's shape, normalised along dim 1: 0",
                  init="self.m = nn.Softmax(dim=1)", params=0),)),
    Kind("log_softmax", _softmax, True, "log(softmax(x)) along dim",
         (Example("self.m(x)", ("x:2x8",), ((2, 8),), 0, "the input's shape: 0",
                  init="self.m = nn.LogSoftmax(dim=1)", params=0),)),
    Kind("softmin", _softmax, True, "softmax(-x) along dim",
         (Example("self.m(x)", ("x:2x8",), ((2, 8),), 0, "the input's shape: 0",
                  init="self.m = nn.Softmin(dim=1)", params=0),)),
    Kind("gumbel_softmax", _softmax, True, "softmax((x + Gumbel noise) / tau) along dim (hard: one-hot)",
         (Example("F.gumbel_softmax(x)", ("x:2x8",), ((2, 8),), 0, "the input's shape, along the last dim: 0"),)),
    Kind("glu", _glu, True, "a * sigmoid(b) of the two halves of dim",
         (Example("self.m(x)", ("x:2x8",), ((2, 4),), 0, "the last dim of 8 halves to 4: 0",
                  init="self.m = nn.GLU()", params=0),)),

    Kind("softsign", _same, True, "x / (1 + |x|) (Keras' softsign activation)",
         (Example('layers.Activation("softsign")(x)', ("x:2x8",), ((2, 8),), 0,
                  "the input's shape; elementwise: 0", params=0, framework="keras"),)),
)
