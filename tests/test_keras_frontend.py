"""Keras front end behaviour: model selection, declared vs given inputs, symbolic batch, the
`standard` convention on Keras layers (hand arithmetic), and clear errors."""

import json

import pytest
from typer.testing import CliRunner

import staticflops
from staticflops.cli.app import app
from staticflops.diagnostics import AnalysisError

CASES = "tests/fixtures/keras_cases/"


def _write(tmp_path, text, name="model.py"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_standard_counts_keras_layers_like_pytorch_ones():
    report = staticflops.analyze(CASES + "separable_conv2d.py", batch=1)
    # SeparableConv2D(4, 3) on 1x8x8x3: depthwise 6*6*3 outputs x 9 = 972 MACs, pointwise
    # 6*6*4 outputs x 3 = 432 MACs -> 1,404 MACs = 2,808 FLOPs; params 3*9 + 3*4 + 4 = 43.
    assert report.totals.macs == 1_404
    assert report.totals.forward_flops == 2_808
    assert report.totals.params == 43


def test_standard_multi_head_attention():
    report = staticflops.analyze(CASES + "mha_cross.py", batch=1)
    # 2 heads x key_dim 8, query 7x16, value 9x16: q 7*16*16, k 9*16*16, v 9*16*16, scores and
    # weighted sum 2*7*9*8 each, output 7*16*16 -> 1792 + 2304 + 2304 + 2016 + 1792 = 10,208 MACs.
    assert report.totals.macs == 10_208
    assert report.outputs == [[1, 7, 16]]


def test_keras_gru_without_reset_after_has_one_bias_vector():
    report = staticflops.analyze(CASES + "gru_reset_before.py", batch=1)
    # 3*6*(5 + 6) weights + 3*6 bias = 216 (reset_after=True would add a second 18).
    assert report.totals.params == 216
    # 7 steps x 3 gates x 6 x (5 + 6) = 1,386 MACs.
    assert report.totals.macs == 1_386


def test_batch_norm_statistics_are_non_trainable_params():
    report = staticflops.analyze(CASES + "batch_norm_image.py", batch=1)
    assert (report.totals.params, report.totals.trainable_params) == (12, 6)  # 4 x 3 channels, gamma + beta


def test_given_input_overrides_the_declared_one():
    report = staticflops.analyze(CASES + "dense_rank3.py", inputs=["2x9x8"])
    # Dense(4) on 2x9x8: 18 rows x 8 x 4 = 576 MACs.
    assert report.totals.macs == 576
    assert report.outputs == [[2, 9, 4]]


def test_subclassed_model_needs_an_input_and_then_analyses(tmp_path):
    path = _write(tmp_path, """
import keras
from keras import layers

class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.fc = layers.Dense(3)

    def call(self, x):
        return self.fc(x)
""")
    with pytest.raises(AnalysisError, match="--input"):
        staticflops.analyze(path)
    report = staticflops.analyze(path, inputs=["4x5"])
    assert report.model == "Net"
    assert report.totals.macs == 4 * 5 * 3
    assert [row.name for row in report.layers] == ["fc"]


def test_unmodelled_activation_is_reported_with_location(tmp_path):
    path = _write(tmp_path, """
import keras
from keras import layers

inputs = keras.Input((4,))
model = keras.Model(inputs, layers.Dense(2, activation="swishy")(inputs))
""")
    report = staticflops.analyze(path, batch=1)
    assert not report.totals.complete
    assert any("swishy" in u.what and u.location.endswith(":6:29") for u in report.unknown)


def test_torch_files_still_go_to_the_pytorch_front_end():
    assert staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"]).framework == "pytorch"


def test_cli_batch_flag_and_json():
    result = CliRunner().invoke(app, ["analyze", CASES + "seed_flatten_dense_softmax.py", "--batch", "1",
                                      "--rules", "tf-profiler", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["totals"]["forward_flops"] == 2054
    assert report["rules"] == "tf-profiler"


def test_cli_rejects_a_non_positive_batch():
    result = CliRunner().invoke(app, ["analyze", "samples/keras_seed.py", "--batch", "0"])
    assert result.exit_code == 1  # a bad value is bad input (issue 8)
