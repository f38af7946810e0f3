"""The Keras-only kinds' shape rules (staticflops/kinds/, moved there from shapes/) refuse a
model that cannot be built with a located one-line message: the layer, then the rule's own
sentence, its sizes filled in from the inputs written here."""

import pytest

from staticflops import AnalysisError
from test_tensor_ops_table import run

CASES = [
    # Permute counts axes from 1: (2, 3) leaves axis 1 of (3, 4) out
    ("layers.Permute((2, 3))(x)", ("x:2x3x4",), "6:26", "Permute: Permute(2, 3) does not fit an input of shape 2x3x4"),
    # axis 1 of a is 4, of b is 5
    ("layers.Dot(axes=1)([a, b])", ("a:2x4", "b:2x5"), "7:29", "Dot: Dot: the contracted axes differ (4 vs 5)"),
    # 'valid' frames of 16 samples in a signal of 8
    ("layers.STFTSpectrogram(frame_length=16, frame_step=2, fft_length=16)(x)", ("x:1x8x1",), "6:26",
     "STFTSpectrogram: STFTSpectrogram: input length 8 is shorter than frame_length 16"),
    # (2, 8, 3): one spatial dim where Cropping2D crops two
    ("layers.Cropping2D(1)(x)", ("x:2x8x3",), "6:26", "Cropping2D: Cropping2D expects 2 spatial dimensions, got shape 2x8x3"),
    ("layers.RepeatVector(3)(x)", ("x:2x4x5",), "6:26", "RepeatVector: RepeatVector expects a 2-D input, got shape 2x4x5"),
    # real part (2, 8), imaginary part (2, 4)
    ("keras.ops.fft((x, y))", ("x:2x8", "y:2x4"), "7:29",
     "ops.fft: fft expects real and imaginary parts of one shape, of rank at least 1, got 2x8, 2x4"),
]


@pytest.mark.parametrize("call, inputs, where, message", CASES, ids=[case[0].split("(")[0] for case in CASES])
def test_a_keras_only_kind_refuses_a_bad_shape_with_its_rule_s_message(call, inputs, where, message):
    # located at the call in the generated model line: 4 header lines, one keras.Input line per
    # input, so line 6 (one input) or 7 (two); `model = keras.Model([x], ` is 25 characters, so
    # column 26, and `[a, b]` is 3 longer than `[x]`: 29
    with pytest.raises(AnalysisError) as error:
        run(call, inputs, framework="keras")
    assert str(error.value) == f"m.py:{where}: the model `model` could not be built: {message}"
