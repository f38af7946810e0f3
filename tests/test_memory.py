"""Memory figures: parameter, activation, read/write and saved-for-backward bytes.

Hand-derived numbers use LeNet-5 (samples/lenet5.py) on 1x1x28x28: conv1 1->6 k5 p2 (156
params) -> ReLU -> MaxPool 2 -> conv2 6->16 k5 (2,416) -> ReLU -> MaxPool 2 -> view ->
fc 400->120 (48,120) -> ReLU -> fc 120->84 (10,164) -> ReLU -> fc 84->10 (850).
torchstat's MemRead/MemWrite were recorded by executing its compute_memory functions
(tools/record_tools.py, torchstat 0.0.7, torch 2.13.0 CPU) -> tests/fixtures/tools_ground_truth.json."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import staticflops
from conftest import ROOT, input_args
from staticflops.api import analyze_text
from staticflops.cli.app import app
from staticflops.diagnostics import UsageError

LENET = "samples/lenet5.py"
MODELS = json.loads((ROOT / "tests" / "fixtures" / "tools_ground_truth.json").read_text())["models"]
TORCHSTAT = [path for path in sorted(MODELS) if "error" not in MODELS[path]["torchstat"]]


def lenet(**options):
    return staticflops.analyze(LENET, inputs=["1x1x28x28"], **options)


def test_lenet_standard_bytes_float32():
    totals = lenet().totals
    assert totals.dtype == "float32"
    assert totals.param_bytes == 61_706 * 4
    # Read = inputs + params per op: conv1 784+156, relu 4704, pool 4704, conv2 1176+2416,
    # relu 1600, pool 1600, fc1 400+48120, relu 120, fc2 120+10164, relu 84, fc3 84+850
    # = 77,082 elements x 4 bytes.
    assert totals.mem_read_bytes == 77_082 * 4
    # Write = outputs: 4704+4704+1176+1600+1600+400+120+120+84+84+10 = 14,602 elements.
    assert totals.mem_write_bytes == 14_602 * 4
    # Activations = every op's output (the view makes no op): the same 14,602 elements.
    assert totals.activation_bytes == 14_602 * 4


def test_lenet_layer_rows():
    rows = {row.name: row for row in lenet().layers}
    conv1 = rows["features.0"]
    assert conv1.param_bytes == 156 * 4              # 6*1*5*5 + 6
    assert conv1.mem_read_bytes == (784 + 156) * 4    # 1x28x28 input + weights
    assert conv1.mem_write_bytes == 6 * 28 * 28 * 4
    assert conv1.activation_bytes == 4_704 * 4
    classifier = rows["classifier"]                 # inclusive: fc1, relu, fc2, relu, fc3
    assert classifier.param_bytes == (48_120 + 10_164 + 850) * 4
    assert classifier.mem_write_bytes == (120 + 120 + 84 + 84 + 10) * 4


@pytest.mark.parametrize("dtype,size", [("float32", 4), ("bfloat16", 2), ("float16", 2), ("int8", 1)])
def test_dtype_scales_bytes(dtype, size):
    totals = lenet(dtype=dtype).totals
    assert totals.dtype == dtype
    assert totals.param_bytes == 61_706 * size
    assert totals.mem_read_bytes == 77_082 * size
    assert totals.mem_write_bytes == 14_602 * size


def test_training_saved_activations():
    totals = lenet(training=True).totals
    # conv1 keeps its input for dW (784); ReLU keeps its output (4704); max-pool its input
    # (4704); conv2 1176; ReLU 1600; pool 1600; fc1 400; ReLU 120; fc2 120; ReLU 84; fc3 84
    # = 15,376 elements x 4 bytes.
    assert totals.saved_activation_bytes == 15_376 * 4


MLP = """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        h = self.fc(x)
        return h + h
"""


def test_saved_follows_what_needs_gradients():
    report = analyze_text(MLP, "net.py", inputs=["25x16"], training=True)
    # fc keeps its 25x16 input for the weight gradient; add keeps nothing.
    assert report.totals.saved_activation_bytes == 25 * 16 * 4
    frozen = analyze_text(MLP, "net.py", inputs=["25x16"], freeze=["fc"])
    assert frozen.totals.saved_activation_bytes == 0  # nothing needs a gradient
    # Forward memory: fc reads 400 + 136 params, writes 200; add reads 2 x 200, writes 200.
    assert report.totals.mem_read_bytes == (400 + 136 + 400) * 4
    assert report.totals.mem_write_bytes == (200 + 200) * 4


def test_training_fields_absent_without_training():
    data = json.loads(lenet().to_json())
    assert "saved_activation_bytes" not in data["totals"]
    assert all("saved_activation_bytes" not in row for row in data["layers"])
    assert data["totals"]["param_bytes"] == 61_706 * 4
    trained = json.loads(lenet(training=True).to_json())
    assert trained["totals"]["saved_activation_bytes"] == 15_376 * 4


def test_bad_dtype_is_a_usage_error():
    with pytest.raises(UsageError, match="--dtype must be one of"):
        lenet(dtype="float128")
    result = CliRunner().invoke(app, ["analyze", LENET, "-i", "1x1x28x28", "--dtype", "float128"])
    assert result.exit_code == 1  # a bad value is bad input (issue 8)
    assert "--dtype must be one of" in result.output


def test_cli_dtype_and_summary_line():
    result = CliRunner().invoke(app, ["analyze", LENET, "-i", "1x1x28x28", "--dtype", "bfloat16", "-f", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["totals"]["param_bytes"] == 61_706 * 2
    table = CliRunner().invoke(app, ["analyze", LENET, "-i", "1x1x28x28"])
    assert "Memory (float32)" in table.output and "read 308.33 KB" in table.output


@pytest.mark.parametrize("path", TORCHSTAT, ids=[Path(p).stem for p in TORCHSTAT])
def test_torchstat_mem_read_write(path):
    entry, tool = MODELS[path], MODELS[path]["torchstat"]
    report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry), rules="torchstat")
    assert report.unknown == []
    assert report.totals.mem_read_bytes == tool["mem_read"]
    assert report.totals.mem_write_bytes == tool["mem_write"]
    rows = {row.name: row for row in report.layers if row.kind == "module"}
    for name, (_flops, _madd, read, write) in tool["by_module"].items():
        assert (rows[name].mem_read_bytes, rows[name].mem_write_bytes) == (read, write), name


def test_torchstat_cases_cover_every_memory_formula():
    kinds = {type_ for path in TORCHSTAT for type_ in _leaf_types(path)}
    assert {"Conv2d", "Linear", "BatchNorm2d", "ReLU", "MaxPool2d"} <= kinds


def _leaf_types(path):
    entry = MODELS[path]
    report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry), rules="torchstat")
    return {row.type for row in report.layers if row.kind == "module" and not _zero(row)}


def _zero(row):
    return row.mem_read_bytes == 0 and row.mem_write_bytes == 0


def test_markdown_carries_memory_and_training_lines():
    text = CliRunner().invoke(app, ["analyze", LENET, "-i", "1x1x28x28", "-f", "markdown", "--training"]).output
    # params 61,706 x 4 B = 246,824 B; read 77,082 x 4 = 308,328 B; write 14,602 x 4 = 58,408 B
    assert ("Memory (float32): params 246.82 KB, activations 58.41 KB (every op output), read 308.33 KB, "
            "write 58.41 KB (`standard` convention)") in text
    # tools/record_torch_training.py (torch 2.13.0): forward 833,040 + backward 1,430,880 = 2,263,920
    assert "Training per step: **2.26 MFLOPs** = forward 833.04 KFLOPs + backward 1.43 MFLOPs" in text
    plain = CliRunner().invoke(app, ["analyze", LENET, "-i", "1x1x28x28", "-f", "markdown"]).output
    assert "Memory (float32)" in plain and "Training per step" not in plain and "saved for backward" not in plain
