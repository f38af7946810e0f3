"""The `full` rule set: exact arithmetic counts, derived by hand from each layer's formula."""

import json

import pytest

import staticflops
from conftest import ROOT, input_args

CASES = "tests/fixtures/torch_cases/"
MODELS = json.loads((ROOT / "tests" / "fixtures" / "tools_ground_truth.json").read_text())["models"]


def full(path, *inputs):
    return staticflops.analyze(CASES + path, inputs=list(inputs), rules="full").totals


def test_linear_with_and_without_bias():
    # Linear(16, 9) on 25x16: 225 outputs x (16 mults + 15 adds) = 6,975, + 225 bias adds = 7,200.
    totals = full("linear_2d.py", "25x16")
    assert totals.forward_flops == 7_200
    assert totals.macs == 3_600
    # Linear(16, 8, bias=False) on 4x16: 32 outputs x 31 = 992.
    assert full("linear_no_bias.py", "4x16").forward_flops == 992


def test_relu_and_softmax():
    # ReLU on 2x3x4x4: one compare per element = 96.
    assert full("act_only_relu.py", "2x3x4x4").forward_flops == 96
    # Linear(12, 12) on 3x5x12 then softmax over the last dim: 180 x (2x12 - 1 + 1) = 4,320
    # for the Linear, 15 rows x (5 x 12 - 2) = 870 for the softmax.
    assert full("act_softmax_last_dim.py", "3x5x12").forward_flops == 4_320 + 870


def test_batchnorm2d_eval():
    # BatchNorm2d(8) on 2x8x7x7 = 784 elements: (2 normalise + 2 affine) x 784 + 2 x 8 channels = 3,152.
    assert full("batchnorm2d.py", "2x8x7x7").forward_flops == 3_152


def test_gru_gate_arithmetic():
    # GRU(16, 32, batch_first) on 2x7x16: per step and batch element
    # 3x32x(2x16 - 1) + 3x32x(2x32 - 1) = 2,976 + 6,048 = 9,024 mat-vec ops, bias 6x32 = 192,
    # gate arithmetic 17x32 = 544 -> 9,760; x 14 = 136,640.
    assert full("gru_batch_first.py", "2x7x16").forward_flops == 136_640


@pytest.mark.parametrize("path", sorted(MODELS), ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_full_prices_everything(path):
    entry = MODELS[path]
    report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry), rules="full")
    assert report.unknown == []
    standard = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry))
    assert report.totals.macs == standard.totals.macs
