"""Training FLOPs of Keras models: which gradients a step computes follows what Keras trains.
Every weight of a layer is trained unless the layer, or a model it runs inside, was set
``trainable=False``; an input gradient is needed only downstream of something trained.  (Before,
a Keras layer call carried no gradient information, so every backward came out 0.)

All figures at batch 1 under `standard` (2 FLOPs per multiply-accumulate, backward of a matmul
= one product per gradient it computes)."""

import pytest

from staticflops.api import analyze_text

TWO_DENSE = '''\
import keras
from keras import layers
model = keras.Sequential([keras.Input((8,)), layers.Dense(16, activation="relu"), layers.Dense(4)])
'''

FROZEN_BASE = '''\
import keras
from keras import layers
base = keras.Sequential([keras.Input((8,)), layers.Dense(16, activation="relu")])
base.trainable = False
inputs = keras.Input((8,))
outputs = layers.Dense(4)(base(inputs))
model = keras.Model(inputs, outputs)
'''

FROZEN_BY_ARGUMENT = '''\
import keras
from keras import layers
model = keras.Sequential([keras.Input((8,)), layers.Dense(16, trainable=False), layers.Dense(4)])
'''

OWN_WEIGHT = '''\
import keras
from keras import layers, ops

class Project(layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 4))

    def call(self, x):
        return ops.matmul(x, self.w)

model = keras.Sequential([keras.Input((8,)), layers.Dense(16), Project()])
'''


def _backward(source: str) -> tuple:
    totals = analyze_text(source, "m.py", training=True, batch=1).totals
    return totals.forward_flops, totals.input_grad_flops, totals.weight_grad_flops


# Dense(16) on 8 features: 2*8*16 = 256; Dense(4) on 16: 2*16*4 = 128 (forward 384).
@pytest.mark.parametrize("source, expected", [
    # weight gradients of both layers (256 + 128); the input gradient of the second (128); none
    # for the first, whose input is the model's input
    (TWO_DENSE, (384, 128, 384)),
    # the frozen base trains nothing, and nothing before Dense(4) needs an input gradient
    (FROZEN_BASE, (384, 0, 128)),
    (FROZEN_BY_ARGUMENT, (384, 0, 128)),
    # a custom layer's own trainable weight: ops.matmul(x, w) computes both gradients (128 each)
    (OWN_WEIGHT, (384, 128, 384)),
], ids=["two-dense", "frozen-base-model", "trainable-false", "add-weight"])
def test_keras_backward_follows_what_keras_trains(source, expected):
    assert _backward(source) == expected


def test_a_layer_without_weights_has_no_weight_gradient():
    # ReLU after Dense(4): its rule counts no parameters, so no weight gradient is priced for it
    # (and under `full`, which prices ReLU, no "rule gives no weight-gradient cost" unknown)
    source = TWO_DENSE.replace('activation="relu"', "").replace("layers.Dense(4)]", "layers.Dense(4), layers.ReLU()]")
    report = analyze_text(source, "m.py", training=True, batch=1, rules="full")
    assert report.totals.weight_grad_flops > 0
    assert not [u for u in report.unknown if "weight-gradient" in u.what], report.unknown
