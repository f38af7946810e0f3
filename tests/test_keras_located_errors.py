"""Issue 20 item 5: Keras errors are located.  A keras.ops call at a script's top level whose
shapes do not fit leaves the model variable unknown; the analysis names that error and where
it is, instead of the unlocated "defines no Keras model"."""

import pytest

import staticflops
from staticflops import AnalysisError


def _analyze(tmp_path, text):
    path = tmp_path / "model.py"
    path.write_text(text)
    return staticflops.analyze(str(path), batch=1)


def test_a_shape_error_before_the_model_is_located(tmp_path):
    with pytest.raises(AnalysisError) as raised:
        _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input((8,))
y = ops.matmul(x, ops.ones((3, 4)))
model = keras.Model(x, y)
''')
    text = str(raised.value)
    # (B, 8) @ (3, 4): inner sizes 8 and 3 differ; reported at the matmul's line 5, column 5,
    # through the model statement (line 6) that could not be built.
    assert "defines no Keras model" not in text
    assert "model.py:5:5" in text and "inner dimensions 8 and 3 differ" in text
    assert raised.value.location is not None and raised.value.location.line == 6


def test_a_sequential_named_otherwise_is_found_too(tmp_path):
    with pytest.raises(AnalysisError) as raised:
        _analyze(tmp_path, '''\
import keras
from keras import layers, ops

x = keras.Input((8, 4))
y = ops.reshape(x, (3, 5))
net = keras.Model(x, layers.Dense(2)(y))
''')
    # 8 * 4 = 32 elements cannot take the shape (3, 5) = 15: located at line 5.
    assert "model.py:5:" in str(raised.value) and "`net`" in str(raised.value)


def test_without_any_model_the_message_stays(tmp_path):
    with pytest.raises(AnalysisError, match="defines no Keras model"):
        _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input((8,))
y = ops.matmul(x, ops.ones((3, 4)))
''')
