"""One vocabulary of number formats for `--dtype` and `--precision`, and `--peak-tflops` for a
device not in rules/hardware.yaml (issue 21, item 7)."""

import json

import pytest
from typer.testing import CliRunner

import staticflops
from staticflops import UsageError
from staticflops.cli.app import app
from staticflops.cost.memory import dtype_bytes
from staticflops.rulesets.hardware import load_device
from staticflops.shapes.precision import PRECISIONS, precision

LENET = "samples/lenet5.py"
# LeNet-5 training FLOPs per step, derived by hand in tests/test_training.py: 833,040 forward
# + 1,430,880 backward = 2,263,920
PER_STEP = 833_040 + 1_430_880


@pytest.mark.parametrize("names, size", [
    (("bf16", "bfloat16", "BF16"), 2),
    (("fp16", "float16", "half"), 2),
    (("fp32", "float32", "float"), 4),
    (("fp64", "float64", "double"), 8),
    (("fp8", "float8", "float8_e4m3fn"), 1),
    (("int8",), 1),
])
def test_every_spelling_names_one_format(names, size):
    formats = {precision(name, "--dtype") for name in names}
    assert len(formats) == 1
    assert all(dtype_bytes(name) == size for name in names)


def test_both_flags_take_the_same_names():
    # H100 SXM5 dense bf16/fp16 peak 989.4 TFLOP/s, fp32 67 TFLOP/s (rules/hardware.yaml, datasheet)
    for name in ("bf16", "bfloat16"):
        assert load_device("h100", name)[1] == 989.4e12
    for name in ("fp16", "float16", "half"):
        assert load_device("h100", name)[1] == 989.4e12
    assert load_device("h100", "float32")[1] == 67.0e12  # float32 is fp32, not tf32
    assert load_device("h100", "tf32")[1] == 494.7e12


def test_dtype_is_reported_by_its_dtype_name():
    report = staticflops.analyze(LENET, inputs=["1x1x28x28"], dtype="bf16")
    assert report.totals.dtype == "bfloat16"
    # 61,706 parameters x 2 bytes
    assert report.totals.param_bytes == 61_706 * 2


def test_tf32_tensors_take_float32_bytes():
    assert dtype_bytes("tf32") == 4 and precision("tf32", "--dtype").dtype == "float32"


@pytest.mark.parametrize("flag", ["--dtype", "--precision"])
def test_an_unknown_name_lists_the_valid_ones(flag):
    extra = ["--hardware", "h100", "--mfu", "0.4"] if flag == "--precision" else []
    result = CliRunner().invoke(app, ["analyze", LENET, "-i", "1x1x28x28", flag, "fp128", *extra])
    assert result.exit_code == 1
    message = result.output.strip().splitlines()[-1]
    assert f"{flag} must be one of" in message and "'fp128'" in message
    for item in PRECISIONS:
        assert item.short in message
    assert "bf16 (bfloat16)" in message and "half" in message


def test_peak_tflops_for_a_device_not_in_the_table():
    report = staticflops.analyze(LENET, inputs=["1x1x28x28"], steps=1000, peak_tflops=100, mfu=0.5)
    budget = report.training.budget
    assert budget.total_flops == PER_STEP * 1000  # 2,263,920,000
    assert budget.peak_flops_per_second == 100e12
    # 2.26392e9 FLOPs / (100e12 FLOP/s x 0.5) = 4.52784e-5 s = 1.2577e-8 hours
    assert budget.gpu_hours == pytest.approx(2_263_920_000 / 50e12 / 3600)
    assert budget.hardware is None and budget.precision is None


def test_peak_tflops_equal_to_a_listed_device_gives_its_hours():
    listed = staticflops.analyze(LENET, inputs=["1x1x28x28"], steps=10, hardware="h100", mfu=0.4).training.budget
    own = staticflops.analyze(LENET, inputs=["1x1x28x28"], steps=10, peak_tflops=989.4, mfu=0.4).training.budget
    assert own.gpu_hours == pytest.approx(listed.gpu_hours)


def test_peak_tflops_on_the_command_line():
    result = CliRunner().invoke(app, ["analyze", LENET, "-i", "1x1x28x28", "--steps", "1000",
                                      "--peak-tflops", "100", "--mfu", "0.5", "--format", "json"])
    assert result.exit_code == 0, result.output
    budget = json.loads(result.output)["training"]["budget"]
    assert budget["peak_flops_per_second"] == 100e12 and budget["mfu"] == 0.5
    text = CliRunner().invoke(app, ["analyze", LENET, "-i", "1x1x28x28", "--steps", "1000",
                                    "--peak-tflops", "100", "--mfu", "0.5"], env={"COLUMNS": "200"}).output
    assert "GPU-hours at a peak of 100.0 TFLOP/s (--peak-tflops), MFU 0.5" in text


@pytest.mark.parametrize("options, message", [
    ({"peak_tflops": 100}, "--peak-tflops needs --mfu"),
    ({"peak_tflops": 100, "mfu": 0.4, "hardware": "h100"}, "--hardware and --peak-tflops"),
    ({"peak_tflops": -1.0, "mfu": 0.4}, "--peak-tflops must be a positive number"),
    ({"peak_tflops": float("inf"), "mfu": 0.4}, "--peak-tflops must be a positive number"),
])
def test_peak_tflops_usage_errors(options, message):
    with pytest.raises(UsageError, match=message):
        staticflops.analyze(LENET, inputs=["1x1x28x28"], **options)


LINEAR = """
import torch.nn as nn

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)
"""


def test_gpu_hours_of_a_symbolic_batch_are_a_formula():
    from staticflops.api import analyze_text

    # was an internal error (Expr / float).  Linear(16, 4) on Bx16: forward 2*16*4 = 128*B FLOPs,
    # weight gradient another 128*B, no input gradient: 256*B per step; 1000 steps = 256000*B;
    # / (1e12 FLOP/s x 0.5) / 3600 s = 1.4222e-10*B hours
    budget = analyze_text(LINEAR, "lin.py", inputs=["Bx16"], steps=1000, peak_tflops=1, mfu=0.5).training.budget
    assert budget.total_flops == "256000*B"
    assert budget.gpu_hours == "1.422e-10*B"
