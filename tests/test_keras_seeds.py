"""The Keras models of the reference documents: parameters equal Keras's count_params(), and
the `tf-profiler` rule set gives what TensorFlow's profiler reports (issue 4, measured with
tensorflow-cpu 2.21 / keras 3.15 at batch 1; also recorded by tools/record_keras.py)."""

import pytest

import staticflops

CASES = "tests/fixtures/keras_cases/"


@pytest.mark.parametrize("path, flops, params", [
    # MatMul 2*1024*1 = 2048, bias AddV2 1, Softmax 5*1 = 5 -> 2054; params 1024 + 1.
    (CASES + "seed_flatten_dense_softmax.py", 2054, 1025),
    # + Conv2D 2*32*32*25 = 51200 and its bias add 1024 -> 54278; params + 25 + 1.
    (CASES + "seed_conv5_flatten_dense_softmax.py", 54278, 1051),
    # Conv2D 2*1024*9*32 = 589824 + BiasAdd 32768; Conv2D 2*1024*9*32 = 589824 + AddV2 1024.
    (CASES + "seed_two_convs_flatten.py", 1213440, 609),
])
def test_issue_models_match_tf_profiler(path, flops, params):
    report = staticflops.analyze(path, rules="tf-profiler", batch=1)
    assert report.totals.forward_flops == flops
    assert report.totals.params == params
    assert report.unknown == []


def test_seed_conv_gru_dense_in_keras():
    report = staticflops.analyze("samples/keras_seed.py", rules="tf-profiler")
    # Conv2D 2*(32*97*127)*16 = 12,614,656 + BiasAdd 394,208; GRU: one time step's input
    # projection 2*4064*288 = 2,340,864 + bias 288 (the loop body is sized once, the recurrent
    # matmul not at all); Dense on 1x97x96: 2*97*96*256 = 4,767,744 + BiasAdd 24,832.
    assert report.totals.forward_flops == 12_614_656 + 394_208 + 2_340_864 + 288 + 4_767_744 + 24_832
    # conv 32*16 + 32; GRU 3*96*(4064 + 96) + 2*288 (reset_after: two bias vectors); dense 96*256 + 256.
    assert report.totals.params == 544 + 1_198_656 + 24_832 == 1_224_032
    assert report.outputs == [[1, 97, 256]]
    assert report.framework == "keras"


def test_seed_conv_gru_dense_standard_equals_pytorch_count():
    report = staticflops.analyze("samples/keras_seed.py")
    # Same math as samples/seed_conv_gru.py: 2 x 124,904,960 MACs.
    assert report.totals.forward_flops == 249_809_920
    assert [row.name for row in report.layers] == ["conv", "reshape", "gru", "output"]


def test_unknown_batch_is_symbolic_without_batch_flag():
    report = staticflops.analyze(CASES + "seed_flatten_dense_softmax.py", rules="tf-profiler")
    # Input(shape=(32, 32, 1)) leaves the batch open: every count is linear in B.
    assert report.totals.forward_flops == "2054*B"
    assert report.inputs == ["Bx32x32x1"]
