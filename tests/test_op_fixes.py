"""Regressions for the wrong/error cases of issue 20 that the torch recording cannot show
(Keras), with the arithmetic derived by hand.  The torch ones are recorded cases in
tests/test_ops_recorded.py (conv_transpose2d_output_size, max_pool2d_return_indices, ...)."""

import staticflops

KERAS_IDENTITY = '''
import keras
from keras import layers, ops

inputs = keras.Input(shape=(3,))
h = layers.Dense(3)(inputs)
model = keras.Model(inputs, ops.matmul(h, ops.identity(3)))
'''


def test_keras_ops_identity_builds_a_matrix(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(KERAS_IDENTITY)
    report = staticflops.analyze(str(path), batch=1)
    assert report.unknown == []
    # ops.identity(3) is a 3x3 matrix: (1, 3) @ (3, 3) -> (1, 3)
    assert [list(s) for s in report.outputs] == [[1, 3]]
    # Dense(3) on 3 features: 3*3 = 9 MACs; matmul: 3 outputs x 3 products = 9 MACs;
    # 18 MACs = 36 FLOPs.  Params: 3*3 + 3 = 12.
    assert report.totals.forward_flops == 36
    assert report.totals.params == 12


def test_tf_identity_still_returns_its_argument(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(KERAS_IDENTITY.replace("import keras\n", "import keras\nimport tensorflow as tf\n")
                    .replace("ops.matmul(h, ops.identity(3))", "tf.identity(h)"))
    report = staticflops.analyze(str(path), batch=1)
    assert report.unknown == []
    assert [list(s) for s in report.outputs] == [[1, 3]]
    assert report.totals.forward_flops == 18  # the Dense alone: 9 MACs
