"""The bundled samples against numbers recorded by executing torch 2.13.0 CPU with
FlopCounterMode (tools/record_torch.py -> tests/fixtures/torch_ground_truth.json), and
against the reference documents' figures."""

import pytest

import staticflops
from conftest import input_args, load_ground_truth

TRUTH = load_ground_truth()


def test_seed_model_matches_flopcountermode():
    report = staticflops.analyze("samples/seed_conv_gru.py", inputs=["1x1x100x256"])
    # Reference documents / ground-truth notes: 249,809,920 FLOPs = 2 x 124,904,960 MACs
    # (conv 6,307,328 + GRU input 113,531,904 + GRU hidden 2,681,856 + linear 2,383,872).
    assert report.totals.forward_flops == 249_809_920
    assert report.totals.macs == 124_904_960
    assert report.totals.params == 1_224_032
    assert report.outputs == [[1, 97, 256]]
    assert report.totals.complete


def test_seed_model_per_layer_arithmetic():
    layers = {row.name: row for row in staticflops.analyze("samples/seed_conv_gru.py", inputs=["1x1x100x256"]).layers}
    # conv: output 1x32x97x127, each element 1*4*4 MACs -> 32*97*127*16 = 6,307,328
    assert layers["conv"].macs == 6_307_328
    assert layers["conv"].output_shape == [1, 32, 97, 127]
    # GRU: 97 steps x 3 gates x 96 x (4064 + 96) = 116,213,760 MACs
    assert layers["gru"].macs == 116_213_760
    # GRU params: 3*96*(4064+96) weights + 2*3*96 biases = 1,198,656
    assert layers["gru"].params == 1_198_656
    # Linear(96, 256) on 1x97x96: 97*96*256 = 2,383,872 MACs; params 96*256 + 256
    assert layers["fc"].macs == 2_383_872
    assert layers["fc"].params == 24_832


def test_resnet50_matches_flopcountermode():
    report = staticflops.analyze("samples/resnet50.py", inputs=["1x3x224x224"])
    assert report.model == "ResNet50"
    assert report.totals.forward_flops == 8_178_368_512
    assert report.totals.params == 25_557_032
    assert report.outputs == [[1, 1000]]


def test_resnet50_symbolic_batch_is_linear_in_B():
    report = staticflops.analyze("samples/resnet50.py", inputs=["Bx3x224x224"])
    assert report.totals.forward_flops == "8178368512*B"
    assert report.totals.macs == "4089184256*B"
    assert report.totals.params == 25_557_032
    assert report.outputs == [["B", 1000]]


@pytest.mark.parametrize("path", ["samples/lenet5.py", "samples/transformer.py", "samples/gpt_minimal.py",
                                  "samples/seed_conv_gru.py", "samples/resnet50.py"])
def test_sample_totals_and_shapes_equal_recorded(path):
    entry = TRUTH[path]
    report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry))
    assert report.totals.forward_flops == entry["forward_flops"]
    assert report.totals.params == entry["params"]
    assert report.outputs == entry["output_shapes"]
    assert report.unknown == []


def test_resnet50_builder_function_with_kwargs():
    report = staticflops.analyze("samples/resnet50.py", model="resnet50", kwargs='{"num_classes": 10}',
                                 inputs=["1x3x224x224"])
    # Only the classifier changes: fc 2048*1000+1000 -> 2048*10+10 params.
    assert report.totals.params == 25_557_032 - (2048 * 1000 + 1000) + (2048 * 10 + 10)
    assert report.outputs == [[1, 10]]
