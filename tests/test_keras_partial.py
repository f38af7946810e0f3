"""Issue 20 item 5: a Keras layer or op we do not model no longer loses the whole report.  As
for PyTorch, the totals are partial (lower bounds, `complete` false, exit 0) and the op is a
located unknown at its own line (inside `Sequential([...])` the layer's line, not the
model's); what follows it has an unknown shape, and a layer whose weights depend on the size
of that input (Dense, Conv2D) is reported too, since its parameters are then unknown."""

import json

from typer.testing import CliRunner

import staticflops
from staticflops.cli.app import app
from staticflops.frontend.keras import layers as keras_layers

SEQUENTIAL = '''\
import keras
from keras import layers

model = keras.Sequential([
    keras.Input(shape=(8, 8, 3)),
    layers.RandomFlip("horizontal"),
    layers.Conv2D(4, 3),
    layers.GlobalAveragePooling2D(),
    layers.Dense(2),
])
'''

FUNCTIONAL = '''\
import keras
from keras import layers

inputs = keras.Input(shape=(8, 8, 3))
x = layers.RandomFlip("horizontal")(inputs)
x = layers.Conv2D(4, 3)(x)
x = layers.GlobalAveragePooling2D()(x)
outputs = layers.Dense(2)(x)
model = keras.Model(inputs, outputs)
'''

# An op we do not model between two layers: the Conv2D before it is counted.
UNMODELLED_OP = '''\
import keras
from keras import layers, ops

inputs = keras.Input(shape=(8, 8, 3))
x = layers.Conv2D(4, 3)(inputs)
x = ops.not_a_keras_op(x, axis=1)
x = layers.GlobalAveragePooling2D()(x)
x = x * 2.0
outputs = layers.Dense(2)(x)
model = keras.Model(inputs, outputs)
'''


def _write(tmp_path, text, name="model.py"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _unknowns(report):
    return [(u.location.rsplit("/", 1)[-1], u.what.split(":")[0]) for u in report.unknown]


def test_unmodelled_layer_in_sequential_gives_a_partial_report(tmp_path, monkeypatch):
    monkeypatch.delitem(keras_layers.LAYERS, "RandomFlip")  # as if RandomFlip were not modelled
    path = _write(tmp_path, SEQUENTIAL)
    result = CliRunner().invoke(app, ["analyze", path, "--batch", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["totals"]["complete"] is False
    # Nothing before the unknown layer: every count is a lower bound of 0.
    assert (report["totals"]["forward_flops"], report["totals"]["params"]) == (0, 0)
    located = [(u["location"].rsplit("/", 1)[-1], u["what"].split(":")[0]) for u in report["unknown"]]
    # The layers' own lines (6, 7, 9 inside the list), not the `model = keras.Sequential(` line 4;
    # GlobalAveragePooling2D has no weights, so only its output shape is unknown ("?").
    assert located == [("model.py:6:5", "`keras.layers.RandomFlip` is not modelled"),
                       ("model.py:7:5", "Conv2D"), ("model.py:9:5", "Dense")]
    assert report["outputs"] == [None]


def test_unmodelled_layer_in_functional_model(tmp_path, monkeypatch):
    monkeypatch.delitem(keras_layers.LAYERS, "RandomFlip")
    report = staticflops.analyze(_write(tmp_path, FUNCTIONAL), batch=1)
    assert not report.totals.complete
    assert _unknowns(report) == [("model.py:5:5", "`keras.layers.RandomFlip` is not modelled"),
                                 ("model.py:6:5", "Conv2D"), ("model.py:8:11", "Dense")]
    assert [row.name for row in report.layers] == ["random_flip", "conv2d", "global_average_pooling2d", "dense"]


def test_with_random_flip_modelled_the_same_model_is_exact(tmp_path):
    for text in (SEQUENTIAL, FUNCTIONAL):
        report = staticflops.analyze(_write(tmp_path, text), batch=1)
        assert report.unknown == []
        # RandomFlip: identity-shaped, no weights, 0 FLOPs (inference).  Conv2D(4, 3) on 1x8x8x3:
        # 6*6*4 = 144 outputs x 3*3*3 = 27 -> 3,888 MACs, params 4*27 + 4 = 112; pooling -> 1x4;
        # Dense(2): 4*2 = 8 MACs, params 4*2 + 2 = 10.  3,896 MACs = 7,792 FLOPs, 122 params.
        assert report.totals.macs == 3_896
        assert report.totals.forward_flops == 7_792
        assert report.totals.params == 122
        assert report.outputs == [[1, 2]]


def test_unmodelled_op_keeps_what_comes_before(tmp_path):
    report = staticflops.analyze(_write(tmp_path, UNMODELLED_OP), batch=1)
    # Conv2D(4, 3) on 1x8x8x3: 3,888 MACs = 7,776 FLOPs, 112 params; the Dense after the
    # unknown op has an unknown input size, so its 2*in + 2 parameters are unknown; `x * 2.0`
    # on a tensor of unknown shape adds nothing to report.
    assert (report.totals.forward_flops, report.totals.params) == (7_776, 112)
    assert not report.totals.complete
    assert _unknowns(report) == [("model.py:6:5", "`keras.ops.not_a_keras_op` is not modelled"),
                                 ("model.py:9:11", "Dense")]
    assert report.outputs == [None]


def test_weights_that_do_not_depend_on_the_input_are_still_counted(tmp_path):
    path = _write(tmp_path, '''\
import keras
from keras import layers, ops

inputs = keras.Input(shape=(5,), dtype="int32")
x = ops.not_a_keras_op(inputs)
x = layers.Embedding(10, 4)(x)
model = keras.Model(inputs, layers.ReLU()(x))
''')
    report = staticflops.analyze(path, batch=1)
    assert report.totals.params == 40  # Embedding(10, 4): a 10 x 4 table, whatever the input
    assert _unknowns(report) == [("model.py:5:5", "`keras.ops.not_a_keras_op` is not modelled")]


def test_a_modelled_layer_that_cannot_be_resolved_does_not_cut_the_graph(tmp_path):
    # The Reshape's target comes from a package we do not read: before this, the unknown output
    # reached keras.Model(inputs, outputs) and the whole report was lost (SF120).
    report = staticflops.analyze(_write(tmp_path, '''\
import keras
from keras import layers
from somewhere_else import target_shape

inputs = keras.Input(shape=(8,))
x = layers.Dense(4)(inputs)
x = layers.Reshape(target_shape)(x)
model = keras.Model(inputs, layers.Dense(2)(x))
'''), batch=1)
    # Dense(4) on 1x8: 32 MACs = 64 FLOPs, 8*4 + 4 = 36 params; the last Dense's are unknown.
    assert (report.totals.forward_flops, report.totals.params) == (64, 36)
    assert not report.totals.complete
    lines = [u.location.rsplit(":", 2)[-2] for u in report.unknown]
    assert "7" in lines and "8" in lines  # the Reshape, and the Dense after it


def test_tensorflow_2_preprocessing_spelling(tmp_path):
    # tf.keras.layers.experimental.preprocessing.RandomFlip / Rescaling: the same layers.
    report = staticflops.analyze(_write(tmp_path, '''\
import tensorflow as tf
from tensorflow.keras.layers.experimental.preprocessing import RandomFlip

model = tf.keras.Sequential([
    tf.keras.Input(shape=(8, 8, 3)),
    RandomFlip("horizontal"),
    tf.keras.layers.experimental.preprocessing.Rescaling(1.0 / 255),
    tf.keras.layers.Conv2D(4, 3),
])
'''), batch=1)
    assert report.unknown == []
    assert report.totals.macs == 3_888  # Conv2D(4, 3) on 8x8x3: 6*6*4 outputs x 27
