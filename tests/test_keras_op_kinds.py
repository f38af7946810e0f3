"""keras.ops functions bound to an existing kind (frontend/keras/op_kinds.py): linear algebra
(kind linalg), searchsorted (search), unfold (unfold), segment reductions (scatter_add).
Shapes follow Keras's documentation and the op-surface probe (tests/fixtures/coverage/
keras_ops.json, recorded by tools/record_coverage_keras.py); the FLOPs are derived by hand."""

import staticflops


def _analyze(tmp_path, text, **options):
    path = tmp_path / "model.py"
    path.write_text(text)
    return staticflops.analyze(str(path), batch=1, **options)


_LINALG = '''\
import keras
from keras import ops

a = keras.Input(shape=(4, 4))
b = keras.Input(shape=(4, 2))
x = ops.solve(a, b)
d = ops.det(a)
q, r = ops.qr(keras.Input(shape=(6, 4)))
t = ops.solve_triangular(a, b, lower=True)
model = keras.Model([a, b], [x, d, ops.inv(a), q, r, t])
'''


def test_linear_algebra_shapes_and_full_counts(tmp_path):
    report = _analyze(tmp_path, _LINALG, rules="full")
    assert report.unknown == []
    # solve (1, 4, 4) x (1, 4, 2) -> b's (1, 4, 2); det -> (1,); inv keeps (1, 4, 4); reduced QR of
    # (1, 6, 4): Q (1, 6, 4), R (1, 4, 4); solve_triangular returns the solution only: (1, 4, 2).
    assert report.outputs == [[1, 4, 2], [1], [1, 4, 4], [1, 6, 4], [1, 4, 4], [1, 4, 2]]
    # `full` (rules/full.yaml linalg), n = 4, one matrix each:
    #   solve: LU floor(64 * 2/3) = 42, plus 2 n^2 per right-hand side: 2 * 16 * 2 = 64 -> 106
    #   det: floor(64 * 2/3) = 42; inv: 2 * 64 = 128; qr (n = 4 columns): floor(64 * 4/3) = 85
    #   solve_triangular: n^2 per right-hand side: 16 * 2 = 32
    assert report.totals.forward_flops == 106 + 42 + 128 + 85 + 32


def test_linear_algebra_is_zero_under_standard_and_tf_profiler(tmp_path):
    # LAPACK kernels: no FlopCounterMode formula; the TF profiler counts MatrixSolve,
    # MatrixDeterminant, MatrixInverse, Qr, MatrixTriangularSolve as 0 (op-surface probe: ops.solve,
    # ops.det, ops.inv, ops.qr, ops.solve_triangular all recorded 0).
    for rules in ("standard", "tf-profiler"):
        report = _analyze(tmp_path, _LINALG, rules=rules)
        assert report.unknown == []
        assert report.totals.forward_flops == 0


def test_search_unfold_and_segments(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input(shape=(3, 8, 8))
v = keras.Input(shape=(5,))
s = ops.searchsorted(ops.arange(10.0), ops.reshape(v, (-1,)))
u = ops.unfold(x, 3, padding=1)
ids = keras.Input(shape=(6,), dtype="int32")
g = ops.segment_sum(ops.reshape(v, (-1,)), ops.reshape(ids, (-1,))[:5], num_segments=4)
m = ops.segment_max(ops.reshape(v, (-1,)), ops.reshape(ids, (-1,))[:5], num_segments=2)
model = keras.Model([x, v, ids], [s, u, g, m])
''', rules="full")
    assert report.unknown == []
    # searchsorted: one index per value (5,); unfold 3x3, padding 1, stride 1 of (1, 3, 8, 8):
    # (1, 3 * 9, 8 * 8) = (1, 27, 64); segment reductions: (num_segments,) of a 1-D input.
    assert report.outputs == [[5], [1, 27, 64], [4], [2]]
    # `full`: search ceil(log2(10 + 1)) = 4 comparisons per value: 5 * 4 = 20; unfold is a copy: 0;
    # each segment reduction one operation per data element: 5 + 5.
    assert report.totals.forward_flops == 20 + 0 + 5 + 5


def test_segment_sum_without_num_segments_is_a_located_unknown(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

v = keras.Input(shape=(5,))
ids = keras.Input(shape=(5,), dtype="int32")
model = keras.Model([v, ids], ops.segment_sum(ops.reshape(v, (-1,)), ops.reshape(ids, (-1,))))
''')
    assert len(report.unknown) == 1
    assert "model.py:6:" in str(report.unknown[0]) and "num_segments" in str(report.unknown[0])


def test_fourier_transforms(tmp_path):
    source = '''\
import keras
from keras import ops

s = keras.Input(shape=(16,))
re = keras.Input(shape=(8,))
im = keras.Input(shape=(4, 4))
a, b = ops.rfft(s)
c, d = ops.fft((re, re))
e, f = ops.fft2([im, im])
g = ops.irfft((a, b))
model = keras.Model([s, re, im], [a, b, c, e, g])
'''
    report = _analyze(tmp_path, source, rules="full")
    assert report.unknown == []
    # rfft of 16 samples: 16 // 2 + 1 = 9 frequencies (real, imaginary); fft and fft2 keep the
    # shape; irfft of 9 frequencies: 2 * (9 - 1) = 16 samples.
    assert report.outputs == [[1, 9], [1, 9], [1, 8], [1, 4, 4], [1, 16]]
    # `full`: 5 N log2 N per complex transform, half for real ones (log2 rounded up):
    # rfft N = 16: 2.5 * 16 * 4 = 160; fft N = 8: 5 * 8 * 3 = 120; fft2 N = 4 * 4 = 16:
    # 5 * 16 * 4 = 320; irfft N = 16: 160.
    assert report.totals.forward_flops == 160 + 120 + 320 + 160
    # FFT, FFT2D, RFFT, IRFFT have no TF profiler formula (op-surface probe: 0); nor a
    # FlopCounterMode one (aten._fft_*).
    for rules in ("standard", "tf-profiler"):
        assert _analyze(tmp_path, source, rules=rules).totals.forward_flops == 0


def test_fft_of_one_tensor_is_a_located_unknown(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input(shape=(8,))
model = keras.Model(x, ops.fft(x)[0])
''')
    assert len(report.unknown) == 1 and "model.py:5:" in str(report.unknown[0])


def test_nancumsum_and_multi_hot(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input(shape=(4, 6))
i = keras.Input(shape=(5,), dtype="int32")
model = keras.Model([x, i], [ops.nancumsum(x), ops.nancumprod(x, axis=1), ops.multi_hot(i, 7)])
''', rules="tf-profiler")
    assert report.unknown == []
    # nancumsum flattens (axis None): 4 * 6 = 24; nancumprod along axis 1 keeps (1, 4, 6);
    # multi_hot: one_hot (1, 5, 7), the maximum over axis 1: (1, 7).
    assert report.outputs == [[24], [1, 4, 6], [1, 7]]
    # tf-profiler: nan_to_num 2 per element (the op-surface probe measured ops.nan_to_num and
    # ops.nancumsum alike, 384 on 192 elements) x 24 elements, twice; Cumsum/Cumprod, OneHot, Max: 0.
    assert report.totals.forward_flops == 2 * 24 + 2 * 24


def test_trapezoid(tmp_path):
    source = '''\
import keras
from keras import ops

y = keras.Input(shape=(4, 5))
model = keras.Model(y, [ops.trapezoid(y), ops.trapezoid(y, dx=0.5, axis=1)])
'''
    report = _analyze(tmp_path, source, rules="tf-profiler")
    assert report.unknown == []
    # the integration axis goes: (1, 4, 5) -> (1, 4) along the last, (1, 5) along axis 1.
    assert report.outputs == [[1, 4], [1, 5]]
    # tf-profiler, per interval an Add, a Mul by 0.5 and a Mul by dx (3), then the Sum (intervals
    # - 1 per output): last axis 4 outputs x (3 * 4 + 3) = 60; axis 1: 5 x (3 * 3 + 2) = 55.
    # (The probe recorded trapezoid of (1, 8, 8, 3): 64 x (3 * 2 + 1) = 448.)
    assert report.totals.forward_flops == 60 + 55
    assert "sample points" in str(_analyze(tmp_path, source.replace("ops.trapezoid(y)", "ops.trapezoid(y, y)"))
                                  .unknown[0])


def test_svd_full_and_reduced(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input(shape=(6, 4))
u, s, vh = ops.svd(x)
ur, sr, vr = ops.svd(x, full_matrices=False)
model = keras.Model(x, [u, s, vh, ur, vr, ops.svd(x, compute_uv=False)])
''', rules="full")
    assert report.unknown == []
    # (1, 6, 4), k = min(6, 4) = 4: full matrices u (6, 6), s (4,), vh (4, 4); reduced u (6, 4);
    # compute_uv=False: s alone (the probe recorded svd of (1, 8, 8, 3): (1, 8, 8, 8), (1, 8, 3),
    # (1, 8, 3, 3)).
    assert report.outputs == [[1, 6, 6], [1, 4], [1, 4, 4], [1, 6, 4], [1, 4, 4], [1, 4]]
    # `full`: ~22 n^3 per matrix, n = 4 columns: 22 * 64 = 1,408, three times.
    assert report.totals.forward_flops == 3 * 1_408


def test_logdet_as_tensorflow_lowers_it(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input(shape=(4, 4))
model = keras.Model(x, ops.logdet(x))
''', rules="tf-profiler")
    assert report.unknown == []
    assert report.outputs == [[1]]
    # tf.linalg.logdet = 2 * sum(log(diag(cholesky(x)))): Cholesky 0, Log 4, Sum 3, Mul 1 = 8
    # (the probe recorded logdet of (1, 8, 8): 8 + 7 + 1 = 16).
    assert report.totals.forward_flops == 8


def test_allclose(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input(shape=(2, 3))
y = keras.Input(shape=(2, 3))
model = keras.Model([x, y], ops.allclose(x, y))
''', rules="tf-profiler")
    assert report.unknown == []
    assert report.outputs == [[]]  # one bool
    # per element: Sub, Mul (rtol), Add (atol), LessEqual (isclose: 4) and Equal (1), Abs and
    # the logical ops and All have no profiler formula: 5 x 6 elements = 30 (the probe recorded
    # allclose of two (1, 8): 40).
    assert report.totals.forward_flops == 30


def test_cdist(tmp_path):
    report = _analyze(tmp_path, '''\
import keras
from keras import ops

x = keras.Input(shape=(3, 4))
y = keras.Input(shape=(5, 4))
model = keras.Model([x, y], ops.cdist(x, y))
''', rules="tf-profiler")
    assert report.unknown == []
    assert report.outputs == [[1, 3, 5]]  # 3 x 5 pairs of 4 features
    # differences (1, 3, 5, 4) = 60: Sub 60, Square 60, Sum 15 x 3 = 45; Sqrt has no profiler
    # formula: 165 (the probe recorded cdist of two (1, 8): 8 + 8 + 7 = 23).
    assert report.totals.forward_flops == 165
