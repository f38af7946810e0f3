"""Keras layers of issue 20 that wrap another layer or take a tuple: SpectralNormalization
(at inference the wrapped layer, plus its non-trainable vector_u) and HashedCrossing on a
tuple of inputs.  Counts derived by hand; tf-profiler figures as recorded by the op-surface
probe (tests/fixtures/coverage/keras_layers.json, tools/record_coverage_keras.py)."""

import staticflops


def _analyze(tmp_path, text, **options):
    path = tmp_path / "model.py"
    path.write_text(text)
    return staticflops.analyze(str(path), batch=1, **options)


def test_spectral_normalization_is_its_layer_plus_vector_u(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import layers

x = keras.Input((8, 8, 3))
y = layers.SpectralNormalization(layers.Conv2D(5, 3))(x)
z = layers.SpectralNormalization(layers.Dense(4), power_iterations=2)(layers.Flatten()(y))
model = keras.Model(x, z)
''', rules="tf-profiler")
    assert report.unknown == []
    # Conv2D(5, 3) on 8x8x3: (1, 6, 6, 5); Flatten 180; Dense(4): (1, 4).
    assert report.outputs == [[1, 4]]
    # params: conv 3*3*3*5 + 5 = 140 and vector_u (1, 5); dense 180*4 + 4 = 724 and vector_u (1, 4).
    assert report.totals.params == 140 + 5 + 724 + 4
    assert report.totals.trainable_params == 140 + 724
    # tf-profiler: conv 6*6*5 outputs x 27 MACs x 2 + 180 bias adds = 9,900; dense 2 * 720 + 4 =
    # 1,444 (the probe recorded SpectralNormalization(Dense(4)) on 8 features: 2 * 32 + 4 = 68).
    assert report.totals.forward_flops == 9_900 + 1_444


def test_hashed_crossing_of_a_tuple(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import layers

i = keras.Input((3,), dtype="int32")
j = keras.Input((3,), dtype="int32")
model = keras.Model([i, j], layers.HashedCrossing(16)((i, j)))
''')
    assert report.unknown == []
    # one bin per pair of crossed values: the inputs' shape (1, 3); hashing costs 0 (kind lookup).
    assert report.outputs == [[1, 3]]
    assert report.totals.forward_flops == 0
