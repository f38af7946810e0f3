"""Keras ConvLSTM1D/2D/3D, CategoryEncoding and AutoContrast (issue 20, keras layers) under every
rule set that prices them with a formula of its own: the numbers are derived by hand below (the
`tf-profiler` figures of the probe's own cases are checked against the recorded profiler by
tests/test_coverage_probe.py, tools/record_coverage_keras.py, keras 3.15.1 / TF 2.21)."""

import textwrap

import pytest

from staticflops.api import analyze_text
from staticflops.rulesets.loader import builtin_names

HEADER = "import keras\nfrom keras import layers\n\n"


def run(body: str, rules: str = "standard", **options):
    source = HEADER + textwrap.dedent(body)
    return analyze_text(source, "model.py", rules=rules, batch=1, **options)


CONV_LSTM_2D = """\
    x = keras.Input(shape=(4, 8, 8, 3))
    out = layers.ConvLSTM2D(4, 3)(x)
    model = keras.Model(x, out)
    """


def test_conv_lstm_2d_standard_counts_both_gate_convolutions_every_step():
    report = run(CONV_LSTM_2D)
    assert report.unknown == [] and report.outputs == [[1, 6, 6, 4]]
    # 'valid' 3x3 on 8x8 -> 6x6 = 36 positions; per step 4 gates x 4 filters = 16 outputs each of
    # an input conv (9 x 3 = 27 terms) and a state conv (9 x 4 = 36): 36 x 16 x 63 = 36,288 MACs
    # x 4 steps = 145,152 MACs = 290,304 FLOPs.
    assert report.totals.macs == 145_152 and report.totals.forward_flops == 290_304
    # kernel 3x3x3x16 = 432, recurrent kernel 3x3x4x16 = 576, bias 16: 1,024 (Keras count_params,
    # recorded by the probe for this very layer)
    assert report.totals.params == 1_024


def test_conv_lstm_full_counts_the_gate_arithmetic():
    report = run(CONV_LSTM_2D, "full")
    # per step and position, per filter: 4 x (2*27 - 1) + 4 x (2*36 - 1) + 4 bias + 22 gate ops
    # = 212 + 284 + 4 + 22 = 522; x 4 filters x 36 positions x 4 steps = 300,672
    assert report.totals.forward_flops == 300_672


def test_conv_lstm_tf_profiler_sizes_one_step_of_input_convolutions():
    # Recorded by the probe (tools/record_coverage_keras.py): 31,680; by hand 36 positions x 16
    # x 27 x 2 = 31,104 + the bias adds 36 x 16 = 576.
    assert run(CONV_LSTM_2D, "tf-profiler").totals.forward_flops == 31_680


def test_conv_lstm_sequences_and_states():
    report = run("""\
        x = keras.Input(shape=(3, 9, 2))
        seq, h, c = layers.ConvLSTM1D(5, 2, strides=2, return_sequences=True, return_state=True)(x)
        model = keras.Model(x, [seq, h, c])
        """)
    # 'valid' kernel 2 stride 2 on 9 -> (9 - 2) // 2 + 1 = 4 positions; the state keeps them
    assert report.outputs == [[1, 3, 4, 5], [1, 4, 5], [1, 4, 5]]
    # 4 positions x 20 gate outputs x 2 x (2 + 5) = 1,120 MACs per step, x 3 steps = 3,360
    assert report.totals.macs == 3_360
    # 2 x 2 x 20 + 2 x 5 x 20 + 20 = 300
    assert report.totals.params == 300


@pytest.mark.parametrize("body, why", [
    ("layers.ConvLSTM2D(4, 3, dilation_rate=2)(x)", "dilation_rate > 1"),
    ("layers.ConvLSTM2D(4, 3, data_format='channels_first')(x)", "channels_first"),
])
def test_conv_lstm_arguments_not_modelled_are_located(body, why):
    report = run(f"x = keras.Input(shape=(4, 8, 8, 3))\nout = {body}\nmodel = keras.Model(x, out)\n")
    assert report.unknown and report.unknown[0].location == "model.py:5:7"
    assert why in report.unknown[0].what


@pytest.mark.parametrize("mode, width, shape", [
    ("multi_hot", 5, [1, 10]), ("count", 5, [1, 10]), ("one_hot", 1, [1, 10]), ("one_hot", 3, [1, 3, 10]),
])
def test_category_encoding_shapes(mode, width, shape):
    report = run(f"""\
        i = keras.Input(shape=({width},), dtype="int32")
        out = layers.CategoryEncoding(10, output_mode="{mode}")(i)
        model = keras.Model(i, out)
        """)
    assert report.unknown == [] and report.outputs == [shape] and report.totals.params == 0
    # standard: no multiply-accumulate
    assert report.totals.forward_flops == 0
    # full: one operation per token id for count/multi_hot (5), none for one_hot's writes
    full = run(f"""\
        i = keras.Input(shape=({width},), dtype="int32")
        out = layers.CategoryEncoding(10, output_mode="{mode}")(i)
        model = keras.Model(i, out)
        """, "full")
    assert full.totals.forward_flops == (0 if mode == "one_hot" else 5)


def test_auto_contrast_full_and_standard():
    body = """\
        x = keras.Input(shape=(6, 4, 2))
        out = layers.AutoContrast(value_range=(0, 1))(x)
        model = keras.Model(x, out)
        """
    assert run(body).totals.forward_flops == 0
    # 48 elements, 2 channels: 7 x 48 + 2 x 2 = 340 (min/max compares 2 x (24 - 1) per channel,
    # 4 per channel, 5 per element), + the value range converted both ways 8 x 48 + 4 = 388: 728
    assert run(body, "full").totals.forward_flops == 728
    # tf-profiler: 4 x 48 + 4 x 2 + 388 = 588 (recorded by the probe for this case: 588)
    assert run(body, "tf-profiler").totals.forward_flops == 588


def test_every_rule_set_prices_the_new_kinds_without_an_unknown():
    # The PyTorch tools never see Keras layers (0) but keep the weights: ConvLSTM2D's 1,024,
    # STFTSpectrogram's 80 (both derived above).
    for rules in builtin_names():
        for body, params in ((CONV_LSTM_2D, 1_024), (STFT, 80)):
            report = run(body, rules)
            assert report.unknown == [] and report.totals.params == params, rules


STFT = """\
    x = keras.Input(shape=(32, 2))
    out = layers.STFTSpectrogram(frame_length=8, frame_step=4, window=None)(x)
    model = keras.Model(x, out)
    """


def test_stft_spectrogram_standard_counts_the_dft_convolutions():
    report = run(STFT)
    # frames (32 - 8) // 4 + 1 = 7, bins 8 // 2 + 1 = 5, per channel: (1, 7, 2 * 5)
    assert report.unknown == [] and report.outputs == [[1, 7, 10]]
    # 2 kernels (real, imaginary) x 7 frames x 5 bins x 2 channels x 8 taps = 1,120 MACs
    assert report.totals.macs == 1_120 and report.totals.forward_flops == 2_240
    # two kernels of 8 x 1 x 5 = 80 weights (Keras count_params)
    assert report.totals.params == 80


def test_stft_spectrogram_full_counts_the_spectrum_arithmetic():
    # 70 spectrum values: 2 kernels x (2 x 8 - 1) = 30 each = 2,100, + log mode's 7 each = 490
    assert run(STFT, "full").totals.forward_flops == 2_590


@pytest.mark.parametrize("arguments", ["data_format='channels_first'", "mode='bogus'"])
def test_stft_spectrogram_arguments_not_modelled_are_located(arguments):
    report = run(f"""\
        x = keras.Input(shape=(2, 32))
        out = layers.STFTSpectrogram(frame_length=8, {arguments})(x)
        model = keras.Model(x, out)
        """)
    assert report.unknown and report.unknown[0].location == "model.py:5:7"
