"""Every op kind is decided everywhere, by name, with nothing left to chance:

* every key a built-in rule set names (``rules:`` and ``zero_cost:``) is a kind the analyser
  can produce (it has a shape function): a typo or a stale key fails here;
* every kind has a rule in every built-in rule set once ``extends`` is resolved;
* ``full`` ("every operation counted") decides every kind in its own file: a new kind cannot
  reach it silently at ``standard``'s price of 0; and every kind added from now on is decided in
  the own file of every rule set (``torch-cpu`` follows ``torch``);
* the Keras-only kinds ``full`` prices, on a model whose every figure is derived by hand."""

import textwrap
from pathlib import Path

import yaml

from staticflops.api import analyze_text
from staticflops.rulesets.loader import builtin_names, load_ruleset
from staticflops.shapes.layers import SHAPE_FUNCTIONS

RULES = Path(__file__).resolve().parent.parent / "rules"


def _own_keys(name: str) -> set:
    data = yaml.safe_load((RULES / f"{name}.yaml").read_text())
    return set(data.get("rules") or {}) | set(data.get("zero_cost") or [])


def test_every_rule_key_names_a_kind():
    unknown = {name: sorted(_own_keys(name) - set(SHAPE_FUNCTIONS)) for name in builtin_names()}
    assert {name: keys for name, keys in unknown.items() if keys} == {}


def test_every_kind_has_a_rule_in_every_rule_set():
    missing = {name: sorted(set(SHAPE_FUNCTIONS) - set(load_ruleset(name).rules)) for name in builtin_names()}
    assert {name: kinds for name, kinds in missing.items() if kinds} == {}


def _undecided_in_full() -> list:
    return sorted(set(SHAPE_FUNCTIONS) - _own_keys("full"))


def test_full_decides_every_kind_in_its_own_file():
    assert _undecided_in_full() == []


def test_a_new_kind_without_a_decision_is_caught(monkeypatch):
    # the check above would pass vacuously if the registry were not what it consults
    monkeypatch.setitem(SHAPE_FUNCTIONS, "no_such_kind", lambda attrs, inputs: ([inputs[0]], {}))
    assert _undecided_in_full() == ["no_such_kind"]


# The kinds that existed when this test was written; the conventions other than `full` let some
# of them take `standard`'s rule through `extends` (fvcore and thop count no norms, say).  This
# list only shrinks: every kind added after it must be decided in each rule set's own file.
KINDS_BEFORE_EXPLICIT_DECISIONS = frozenset({
    'abs', 'adaptive_avg_pool', 'adaptive_max_pool', 'add', 'add_product', 'augment', 'average', 'avg_pool',
    'batch_norm', 'bilinear', 'ceil', 'celu', 'clamp', 'compare', 'concat', 'conv', 'conv_transpose', 'cos',
    'crop', 'crop_to', 'cumulative', 'div', 'dot', 'dropout', 'einsum', 'elu', 'embedding', 'erf', 'exp',
    'flatten', 'floor', 'gelu', 'global_avg_pool', 'global_max_pool', 'glu', 'group_norm', 'gru', 'hardsigmoid',
    'hardswish', 'hardtanh', 'identity', 'instance_norm', 'interpolate', 'layer_norm', 'leaky_relu', 'linear',
    'log', 'log_softmax', 'loss', 'lp_pool', 'lstm', 'matmul', 'max_pool', 'maximum', 'minimum', 'mish', 'mul',
    'multi_head_attention', 'multihead_attention', 'neg', 'normalization', 'normalize', 'pad', 'permute',
    'pixel_shuffle', 'pixel_unshuffle', 'polar', 'pow', 'prelu', 'reduce', 'relu', 'relu6', 'repeat',
    'repeat_vector', 'rescale', 'reshape', 'resize', 'rms_norm', 'rnn', 'rnn_cell', 'round', 'rsqrt',
    'scaled_dot_product_attention', 'scatter_add', 'selu', 'separable_conv', 'sigmoid', 'sign', 'silu', 'sin',
    'softmax', 'softplus', 'softsign', 'sort', 'sqrt', 'sub', 'take', 'tanh', 'unflatten', 'upsample', 'where',
})
# `torch-cpu` is `torch` measured on CPU kernels: it takes every decision from `torch`.
DECIDES_FOR_ITSELF = [name for name in builtin_names() if name != "torch-cpu"]


def test_every_new_kind_is_decided_in_every_rule_set_file():
    new = set(SHAPE_FUNCTIONS) - KINDS_BEFORE_EXPLICIT_DECISIONS
    silent = {name: sorted(new - _own_keys(name)) for name in DECIDES_FOR_ITSELF}
    assert {name: kinds for name, kinds in silent.items() if kinds} == {}


KERAS_ONLY = textwrap.dedent("""\
    import keras
    from keras import layers

    img = keras.Input(shape=(8, 8, 3))
    a = keras.Input(shape=(4,))
    b = keras.Input(shape=(4,))
    x = layers.SeparableConv2D(4, 3)(img)
    u = layers.UpSampling2D(size=2, interpolation="bilinear")(x)
    g = layers.GlobalAveragePooling2D()(x)
    s = layers.Activation("softsign")(g)
    d = layers.Dot(axes=1)([a, b])
    m = layers.Average()([a, s])
    q = keras.Input(shape=(2, 4))
    h = layers.MultiHeadAttention(num_heads=2, key_dim=3)(q, q)
    model = keras.Model([img, a, b, q], [u, d, m, h])
    """)


def test_full_prices_the_keras_only_kinds(tmp_path):
    report = analyze_text(KERAS_ONLY, tmp_path / "k.py", rules="full", batch=1)
    flops = {row.type: row.forward_flops for row in report.layers}
    # SeparableConv2D(4, 3) on 8x8x3 -> 6x6x4: 6*6*3 = 108 depthwise outputs x (2*9 - 1 = 17) = 1,836;
    # pointwise 144 outputs x (2*3*1 - 1 + 1 bias) = 864; 1,836 + 864 = 2,700
    assert flops["SeparableConv2D"] == 2700
    # bilinear UpSampling2D(2) of 6x6x4 -> 12x12x4 = 576 outputs x 9 = 5,184
    assert flops["UpSampling2D"] == 5184
    # GlobalAveragePooling2D: every one of the 6*6*4 = 144 inputs once (35 adds + 1 divide per channel)
    assert flops["GlobalAveragePooling2D"] == 144
    # softsign x / (1 + |x|) on 4 elements: 3 x 4
    assert flops["Activation"] == 12
    # Dot(axes=1) of two 4-vectors: 4 multiplies + 3 adds
    assert flops["Dot"] == 7
    # Average of 2 inputs of 4: 1 add + 1 divide per output: 2 x 4
    assert flops["Average"] == 8
    # MultiHeadAttention(2 heads, key_dim 3) on T = S = 2, D = 4, with biases: q, k, v projections
    # 3 x (2*2*3 outputs x (2*4 - 1 + 1)) = 288; query scaling 2*2*3 = 12; scores 2*2*2 x (2*3 - 1) = 40;
    # softmax 2*2 rows x (5*2 - 2) = 32; weighted sum 2*2*3 x (2*2 - 1) = 36; output 2*4 x (2*2*3 - 1 + 1)
    # = 96; total 288 + 12 + 40 + 32 + 36 + 96 = 504
    assert flops["MultiHeadAttention"] == 504
