"""keras.ops lowerings (frontend/keras/op_lowerings.py, issue 20) at sizes other than the
op-surface probe's, so that each formula is checked on a second point, not fitted to one.

Each case was recorded by executing Keras 3.15.1 / tensorflow-cpu 2.21.0 with
``/work/gt/keras/bin/python tools/record_coverage_keras.py --one CALL INPUT...`` (one case per
process: TensorFlow cannot trace ctc_loss twice in one), which prints the output shapes at batch 1
and the TF profiler's FLOPs of the frozen graph; tools/coverage_table.py's classifier runs each
through staticflops under `tf-profiler` as the probe does.  The `standard` and `full` figures
below are derived by hand.
"""

import importlib.util
from pathlib import Path

import pytest

from staticflops.api import analyze_text
from staticflops.frontend.keras.op_kinds import KIND_OPS
from staticflops.frontend.keras.op_losses import LOSSES
from staticflops.frontend.keras.op_lowerings import LOWERINGS
from staticflops.frontend.keras.op_signals import SIGNALS
from staticflops.rulesets.loader import builtin_names

_SPEC = importlib.util.spec_from_file_location(
    "coverage_table", Path(__file__).resolve().parent.parent / "tools" / "coverage_table.py")
coverage_table = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(coverage_table)

HEADER = "import keras\nfrom keras import layers, ops\n\n"

# (call, inputs, output shapes, TF profiler FLOPs): recorded as the module docstring says.
RECORDED = [
    ("ops.quantile(x, y)", ["x:5x4", "y:3"], [[1, 3]], 83),
    ("ops.nanpercentile(x, y)", ["x:6", "y:2"], [[1, 2]], 33),
    ("ops.median(x)", ["x:5x3"], [[]], 47),
    ("ops.linspace(x, y, num=7)", ["x:2x3", "y:2x3"], [[7, 1, 2, 3]], 83),
    ("ops.geomspace(x, y, num=5)", ["x:4", "y:4"], [[5, 1, 4]], 99),
    ("ops.lstsq(ops.reshape(x, (3, 4)), ops.reshape(y, (3, 2)))", ["x:12", "y:6"], [[4, 2]], 97),
    ("ops.pinv(x)", ["x:4x5"], [[1, 5, 4]], 185),
    ("ops.matrix_rank(x)", ["x:5x4"], [[1]], 9),
    ("ops.sparsemax(x)", ["x:6x5"], [[1, 6, 5]], 241),
    ("ops.stft(ops.reshape(x, (-1,)), 16, 4, 16)", ["x:64"], [[17, 9], [17, 9]], 428),
    ("ops.istft((x, y), 16, 8, 16)", ["x:5x9", "y:5x9"], [[1, 32]], 257),
    ("ops.fold(x, (5, 6), 3)", ["x:18x12"], [[1, 2, 5, 6]], 144),
    ("ops.extract_sequences(x, 4, 2)", ["x:3x10"], [[1, 3, 4, 4]], 15),
    ("ops.ctc_decode(x, ops.full((1,), 6, dtype='int32'))", ["x:6x5"], [[1, 1, 6], [1, 1]], 0),
    ("ops.categorical_crossentropy(x, y)", ["x:4x6", "y:4x6"], [[1, 4]], 164),
    ("ops.binary_crossentropy(x, y)", ["x:3x5", "y:3x5"], [[1, 3, 5]], 150),
    ("ops.psnr(x, y, 2.0)", ["x:4x5", "y:4x5"], [[]], 69),
    ("ops.trace(x)", ["x:5x5x2"], [[5, 2]], 41),
    ("ops.inner(x, y)", ["x:3x4", "y:3x4"], [[1, 3, 1, 3]], 86),
    ("ops.correlate(ops.reshape(x, (9,)), ops.reshape(y, (4,)), mode='full')", ["x:9", "y:4"], [[12]], 96),
    ("ops.cholesky_inverse(x * 0.0 + ops.eye(5))", ["x:5x5"], [[1, 5, 5]], 301),
    ("ops.ctc_loss(i, x, ops.reshape(j, (-1,)), ops.reshape(k, (-1,)))",
     ["i:int32:2", "x:6x5", "j:int32:1", "k:int32:1"], [[1]], 260),
    ("ops.ctc_loss(i, x, ops.reshape(j, (-1,)), ops.reshape(k, (-1,)))",
     ["i:int32:4", "x:7x3", "j:int32:1", "k:int32:1"], [[1]], 509),
]


@pytest.mark.parametrize("call, inputs, shapes, flops", RECORDED, ids=[f"{c[0][:40]}-{c[1]}" for c in RECORDED])
def test_recorded_at_a_second_size(call, inputs, shapes, flops):
    case = {"op": call.split("(")[0], "variant": 1, "init": "", "call": call, "inputs": inputs,
            "output_shapes": shapes, "params": 0, "tf_profiler_flops": flops}
    assert coverage_table.classify(HEADER, case) == ("exact", "")


def _forward(source, rules):
    report = analyze_text(HEADER + source, "m.py", rules=rules, batch=1)
    assert report.unknown == []
    return report.totals.forward_flops


def test_standard_counts_the_products_of_pinv_and_lstsq():
    # `standard` prices elementwise ops and LAPACK kernels at 0 (FlopCounterMode has no formula
    # for them) and counts matmul-class products at 2 FLOPs per MAC.
    # pinv of one (1, 4, 5) batch: SVD u (4, 4), s (4,), v (5, 4); (v / s) (5, 4) @ u^T (4, 4):
    # 5 * 4 * 4 = 80 MACs = 160 FLOPs.
    pinv = "x = keras.Input(shape=(4, 5))\nmodel = keras.Model(x, ops.pinv(x))\n"
    assert _forward(pinv, "standard") == 160
    # lstsq of a (3, 4) by b (3, 2): r = 3; u^T b: (3, 3) @ (3, 2) = 18 MACs; v (4, 3) @ (3, 2) =
    # 24 MACs; 42 MACs = 84 FLOPs.
    lstsq = ("x = keras.Input(shape=(12,))\ny = keras.Input(shape=(6,))\n"
             "model = keras.Model([x, y], ops.lstsq(ops.reshape(x, (3, 4)), ops.reshape(y, (3, 2))))\n")
    assert _forward(lstsq, "standard") == 84


def test_full_counts_eigendecompositions():
    # rules/full.yaml linalg: eigh ~9n^3, eig ~25n^3 per matrix: one 8x8 matrix at batch 1:
    # eigh 9 * 512 = 4608, eig 25 * 512 = 12800.
    for name, expected in (("eigh", 4608), ("eig", 12800)):
        source = f"x = keras.Input(shape=(8, 8))\nmodel = keras.Model(x, ops.{name}(x))\n"
        assert _forward(source, "full") == expected, name


def test_full_counts_the_sort_inside_a_median():
    # median of 8 values: the sort counts n * ceil(log2 n) = 8 * 3 = 24 comparisons; 4 scalar
    # Subs; one quantile's interpolation: Mul, clamp (2), Sub, Maximum, Add, Minimum, Sub, Mul,
    # Sub, Mul, Mul, Add: 1 each, the clamp's two compares 2 (rules/full.yaml `clamp`), so 13.
    source = "x = keras.Input(shape=(8,))\nmodel = keras.Model(x, ops.median(x))\n"
    assert _forward(source, "full") == 24 + 4 + 13


@pytest.mark.parametrize("call, reason", [
    ("ops.quantile(x, 0.5, axis=1)", "along an axis"),
    ("ops.binary_crossentropy(x, x, from_logits=True)", "from_logits=True"),
    ("ops.correlate(ops.reshape(x, (8,)), ops.reshape(x, (8,)), mode='bad')", "mode 'bad'"),
    ("ops.argpartition(x, 3)", "of a tensor"),
])
def test_what_is_not_modelled_is_a_located_unknown(call, reason):
    source = HEADER + f"x = keras.Input(shape=(8,))\nmodel = keras.Model(x, {call})\n"
    report = analyze_text(source, "m.py", rules="tf-profiler", batch=1)
    assert report.unknown and reason in report.unknown[0].what
    assert str(report.unknown[0].location).startswith("m.py:5:")


def test_every_probed_lowering_is_priced_by_every_rule_set():
    # The probe checks `tf-profiler`; here every built-in rule set must price the same recorded
    # cases without an unknown (a kind fact a rule reads but the binding does not give, as
    # in_top_k's comparisons once were, is an unknown under `full`).
    added = ("segment_min", "segment_prod", "cholesky", "slogdet", "lu_factor", "eig", "eigh", "in_top_k")
    assert set(added) <= set(KIND_OPS)
    names = {f"ops.{name}" for name in (*LOWERINGS, *LOSSES, *SIGNALS, *added)}
    fixture = coverage_table.load("keras_ops")
    cases = [case for case in fixture["cases"] if case["op"] in names]
    assert {case["op"] for case in cases} == names  # each of them has a recorded probe case
    for case in cases:
        source = coverage_table.keras_case_source(fixture["header"], case)
        for rules in builtin_names():
            report = analyze_text(source, "case.py", rules=rules, batch=1)
            assert report.unknown == [], (case["call"], rules, report.unknown[0].what)


def test_full_counts_in_top_k_as_a_heap_of_k():
    # in_top_k(targets (1,), predictions (1, 8), k=2): kind sort with k: n * ceil(log2 k) = 8 * 1
    # comparisons per row, one row (rules/full.yaml `sort`).
    source = ("i = keras.Input(shape=(1,), dtype=\"int32\")\nx = keras.Input(shape=(8,))\n"
              "model = keras.Model([i, x], ops.in_top_k(ops.reshape(i, (-1,)), x, 2))\n")
    assert _forward(source, "full") == 8
