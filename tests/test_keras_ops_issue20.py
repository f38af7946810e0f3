"""keras.ops functions added for issue 20 (numpy semantics), in Functional models, with
output shapes and `standard` FLOPs derived by hand; they reuse op kinds that already have a
decision in every rule set (cumulative, compare, where, sort, einsum, matmul, data movement)."""

import staticflops


def _analyze(tmp_path, text, **options):
    path = tmp_path / "model.py"
    path.write_text(text)
    return staticflops.analyze(str(path), batch=1, **options)


def test_numpy_style_ops_between_layers(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

inputs = keras.Input(shape=(4, 6))
a = ops.cumsum(inputs, axis=1)
b = ops.where(ops.greater(a, 0.0), a, ops.zeros_like(a))
c = ops.tril(b)
t = ops.tile(c, (1, 2, 1))
r = ops.repeat(t, 2, axis=2)
first, second = ops.split(r, 2, axis=1)
values, indices = ops.top_k(first, 3)
d = ops.tensordot(values, ops.ones((3, 5)), axes=1)
model = keras.Model(inputs, [d, second, indices])
''')
    assert report.unknown == []
    # cumsum/greater/where/tril keep (1, 4, 6); tile (1, 2, 1) -> (1, 8, 6); repeat x2 on axis 2
    # -> (1, 8, 12); split in 2 on axis 1 -> two (1, 4, 12); top_k 3 -> (1, 4, 3) values and
    # indices; tensordot over one axis with (3, 5) -> (1, 4, 5).
    assert report.outputs == [[1, 4, 5], [1, 4, 12], [1, 4, 3]]
    # Only the contraction multiplies: 1*4*5 outputs x 3 = 60 MACs = 120 FLOPs.
    assert report.totals.macs == 60
    assert report.totals.forward_flops == 120


def test_constructors_one_hot_and_dot(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

inputs = keras.Input(shape=(5,), dtype="int32")
h = ops.reshape(ops.one_hot(inputs, 7), (-1, 7))
w = ops.dot(h, ops.eye(7, 3))
model = keras.Model(inputs, ops.add(w, ops.arange(3)) * ops.full((1, 3), 2.0))
''')
    assert report.unknown == []
    # one_hot(., 7): (1, 5, 7) -> (5, 7); dot with eye(7, 3): (5, 3), 5*3*7 = 105 MACs;
    # + arange(3) and * full((1, 3)) broadcast to (5, 3) and cost 0 under `standard`.
    assert report.outputs == [[5, 3]]
    assert (report.totals.macs, report.totals.forward_flops) == (105, 210)


def test_tf_namesakes_with_other_semantics_stay_unmodelled(tmp_path):
    # tf.split takes sizes, not indices: not taken for keras.ops.split; reported where it is called.
    report = _analyze(tmp_path, '''\
import keras
import tensorflow as tf

inputs = keras.Input(shape=(6,))
model = keras.Model(inputs, tf.split(inputs, [2, 4], axis=1)[0])
''')
    assert [u.what.split(":")[0] for u in report.unknown] == ["`tensorflow.split` is not modelled"]
    assert report.unknown[0].location.endswith("model.py:5:29")


def test_ops_conv_in_a_custom_layer():
    report = staticflops.analyze("tests/fixtures/keras_cases/ops_conv.py", batch=1)
    # 3x3 kernel, 3 -> 4 channels, stride 2 'same' on 8x8: 4x4x4 = 64 outputs x 27 = 1,728 MACs;
    # the kernel is the layer's weight: 108 parameters.
    assert (report.totals.macs, report.totals.params) == (1_728, 108)
    assert report.outputs == [[1, 4, 4, 4]]
