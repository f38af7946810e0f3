"""keras.ops functions modelled from the tables of frontend/keras/op_table.py, and the wrong
and lost-model cases the op-surface probe found (issue 20).  Expected numbers are derived by
hand (arithmetic in the comments) or recorded by tools/record_coverage_keras.py (keras 3.15.1,
tensorflow-cpu 2.21, TF profiler at batch 1: tests/fixtures/coverage/keras_ops.json)."""

import pytest

from staticflops.api import analyze_text

HEADER = "import keras\nfrom keras import layers, ops\n\n"


def run(body: str, inputs: str = "x = keras.Input(shape=(8,))\n", rules: str = "tf-profiler"):
    source = HEADER + inputs + f"out = {body}\nmodel = keras.Model(x, out)\n"
    return analyze_text(source, "m.py", rules=rules, batch=1)


def test_ops_gelu_defaults_to_the_tanh_form():
    # keras.ops.gelu(x, approximate=True) by default (keras/src/ops/nn.py); the probe recorded 1344
    # profiler FLOPs on (1, 8, 8, 3) = 192 elements: 7 per element.  approximate=False is the erf
    # form: 3 Mul + Neg = 4 per element, 768.
    report = run("ops.gelu(x)", "x = keras.Input(shape=(8, 8, 3))\n")
    assert report.unknown == [] and report.totals.forward_flops == 1344
    assert run("ops.gelu(x, approximate=False)", "x = keras.Input(shape=(8, 8, 3))\n").totals.forward_flops == 768
    assert run("keras.activations.gelu(x)", "x = keras.Input(shape=(8, 8, 3))\n").totals.forward_flops == 768


def test_random_crop_passes_the_image_through_at_inference():
    # Keras 3.15.1 RandomCrop.transform_images crops only when training; the probe executed
    # RandomCrop(4, 6) on (1, 8, 8, 3) with training=False and got (1, 8, 8, 3).
    report = run("layers.RandomCrop(4, 6)(x)", "x = keras.Input(shape=(8, 8, 3))\n")
    assert report.unknown == [] and report.outputs == [[1, 8, 8, 3]]


@pytest.mark.parametrize("body", ["x + ops.bartlett((8,))", "x + ops.blackman((8,))", "x + ops.hamming(8)",
                                  "x + ops.hanning(8)", "x + ops.kaiser(8, 5.0)", "x + ops.isin((8,), 1.0)",
                                  "x + ops.kron((8,), 1.0)"])
def test_constant_tensors_added_to_the_input(body):
    # These build a constant of shape (8,) or (1,) (folded by TensorFlow: 0 FLOPs); the add to
    # the (1, 8) input is 1 per element: 8 FLOPs (the probe recorded 8 for each).
    report = run(body)
    assert report.unknown == [] and report.outputs == [[1, 8]] and report.totals.forward_flops == 8


def test_tri_and_tile_with_an_int():
    # ops.tri(8) is (8, 8); + (1, 8) broadcasts to (8, 8) at batch 1: 64 adds (recorded 64).
    report = run("x + ops.tri(8)")
    assert report.outputs == [[8, 8]] and report.totals.forward_flops == 64
    # ops.tile(x, 1) (numpy: repeats (1,) on the last axis) keeps (1, 8, 8, 3), no arithmetic.
    report = run("ops.tile(x, 1)", "x = keras.Input(shape=(8, 8, 3))\n")
    assert report.unknown == [] and report.outputs == [[1, 8, 8, 3]] and report.totals.forward_flops == 0


def test_an_unmodelled_op_added_to_a_keras_tensor_keeps_the_model():
    # Before, `x + <unmodelled op>` lost the whole model ("defines no Keras model"); now the op is
    # a located unknown and the Dense after it still counts: Dense(4) on (1, 8): 8*4 + 4 = 36 params.
    source = (HEADER + "x = keras.Input(shape=(8,))\nh = x + ops.no_such_op(8)\n"
              "out = layers.Dense(4)(x) + 0 * ops.sum(h)\nmodel = keras.Model(x, out)\n")
    report = analyze_text(source, "m.py", rules="tf-profiler", batch=1)
    assert [str(u.location) for u in report.unknown][:1] == ["m.py:5:9"]
    assert report.totals.params == 36


# Every (shape, FLOPs) below was also recorded by executing the call with run_case() of
# tools/record_coverage_keras.py (keras 3.15.1, tensorflow-cpu 2.21, batch 1).
@pytest.mark.parametrize("body, shape, flops", [
    # pointwise, tf-profiler per element (probe: log10 385 on 192 = 2 per element + 1 constant)
    ("ops.log10(x)", [1, 8], 2 * 8 + 1),
    ("ops.hypot(x, x)", [1, 8], 5 * 8),  # probe: 40 on 8
    ("ops.arctan(x)", [1, 8], 0),  # Atan has no profiler formula
    # reductions: var = Mean, Sub, Square, Mean: 4 per input element (probe: 768 on 192)
    ("ops.var(x)", [], 4 * 8),
    ("ops.argmax(x, axis=-1)", [1], 3 * 8 - 1),  # probe: 575 = 3 * 192 - 1
    # movement: no arithmetic
    ("ops.swapaxes(x, 0, 1)", [8, 1], 0), ("ops.hstack([x, x])", [1, 16], 0), ("ops.vstack([x, x])", [2, 8], 0),
    ("ops.dstack([x, x])", [1, 8, 2], 0), ("ops.append(x, x)", [16], 0), ("ops.diagflat(x)", [8, 8], 0),
    ("ops.rot90(x)", [8, 1], 0),
])
def test_table_ops(body, shape, flops):
    report = run(body)
    assert report.unknown == []
    assert report.outputs == [shape] and report.totals.forward_flops == flops


# Reductions along an axis: x = (1, 4, 8) -> y = (1, 8); the rule's per-element forms, first
# measured on a whole (8, 8, 3) tensor, hold here (recorded as above).
@pytest.mark.parametrize("body, flops", [
    ("ops.var(x, axis=1)", 4 * 32), ("ops.argmax(x, axis=1)", 3 * 32 - 8), ("ops.logsumexp(x, axis=1)", 2 * 32 + 8),
    ("ops.count_nonzero(x, axis=1)", 2 * 32 - 8), ("ops.nanvar(x, axis=1)", 6 * 32 - 2 * 8), ("ops.ptp(x, axis=1)", 8),
])
def test_reductions_along_an_axis(body, flops):
    report = run(body, "x = keras.Input(shape=(4, 8))\n")
    assert report.unknown == []
    assert report.outputs == [[1, 8]] and report.totals.forward_flops == flops


def test_standard_counts_pointwise_math_zero_and_full_one_per_element():
    assert run("ops.log10(x)", rules="standard").totals.forward_flops == 0
    assert run("ops.log10(x)", rules="full").totals.forward_flops == 8  # one per element of (1, 8)


# Sizes other than the probe's, to check the rules' general forms; each recorded with run_case()
# of tools/record_coverage_keras.py (keras 3.15.1, tensorflow-cpu 2.21, batch 1).
@pytest.mark.parametrize("inputs, body, shapes, flops", [
    # H: windows 3 and 4 over 7 rows: (5 * 3 + 4 * 4) per line x 10 * 2 lines = 620; W: windows 2
    # and 3 over 10: (9 * 2 + 8 * 3) x 3 * 2 lines = 252; gather indices 9 * (3 + 5) = 72: 944.
    ("x = keras.Input(shape=(7, 10, 2))\n", "layers.AdaptiveAveragePooling2D((3, 5))(x)", [[1, 3, 5, 2]], 944),
    # windows 4 and 5 over 10: (7 * 4 + 6 * 5) x 2 channels = 116, + 9 * 3 = 143.
    ("x = keras.Input(shape=(10, 2))\n", "layers.AdaptiveMaxPooling1D(3)(x)", [[1, 3, 2]], 143),
    ("x = keras.Input(shape=(5, 4))\n", "layers.Masking()(x)", [[1, 5, 4]], 20),  # 1 per element
    ("x = keras.Input(shape=(5, 2), dtype='int32')\n", "layers.Hashing(4)(x)", [[1, 5, 2]], 0),
    ("x = keras.Input(shape=(4, 8))\n", "ops.moments(x, 1)", [[1, 8], [1, 8]], 4 * 32),  # as var
    ("x = keras.Input(shape=(4, 8))\n", "ops.sort(x, axis=1)", [[1, 4, 8]], 2 * 32),  # two Negs
])
def test_recorded_sizes(inputs, body, shapes, flops):
    report = run(body, inputs)
    assert report.unknown == []
    assert report.outputs == shapes and report.totals.forward_flops == flops


def test_meshgrid():
    # x (1, 3) and y (1, 5), flattened: two (5, 3) grids, each a Mul with ones: 2 * 15 (recorded 30).
    source = (HEADER + "x = keras.Input(shape=(3,))\ny = keras.Input(shape=(5,))\n"
              "out = ops.meshgrid(x, y)\nmodel = keras.Model([x, y], out)\n")
    report = analyze_text(source, "m.py", rules="tf-profiler", batch=1)
    assert report.unknown == [] and report.outputs == [[5, 3], [5, 3]] and report.totals.forward_flops == 30
