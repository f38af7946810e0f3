"""Training cost: backward FLOPs against FlopCounterMode executed on forward + loss.backward()
(tools/record_torch_training.py, torch 2.13.0 CPU -> tests/fixtures/torch_training_ground_truth.json),
and by hand."""

import json

import pytest

import staticflops
from conftest import ROOT, input_args

TRUTH = json.loads((ROOT / "tests" / "fixtures" / "torch_training_ground_truth.json").read_text())

# Where `standard` deliberately differs from FlopCounterMode: its conv weight-gradient formula
# ignores groups (x groups), and it has no formula for Bilinear or matrix-vector products.
NOT_FLOPCOUNTERMODE = {
    "samples/mobilenet_v2.py", "tests/fixtures/torch_cases/bilinear.py",
    "tests/fixtures/torch_cases/matmul_matrix_vector.py", "tests/fixtures/torch_cases/conv2d_depthwise.py",
    "tests/fixtures/torch_cases/conv2d_depthwise_separable.py", "tests/fixtures/torch_cases/conv2d_groups.py",
    "tests/fixtures/torch_cases/conv3d_groups_no_bias.py", "tests/fixtures/torch_cases/conv_transpose2d_groups.py",
}


def analyze(path, rules="standard", **options):
    entry = TRUTH[path]
    return staticflops.analyze(path, model=entry["class"], inputs=input_args(entry), rules=rules,
                               training=True, **options)


@pytest.mark.parametrize("path", sorted(TRUTH), ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_torch_rules_equal_flopcountermode_exactly(path):
    report = analyze(path, rules="torch")
    assert report.totals.forward_flops == TRUTH[path]["forward_flops"]
    assert report.totals.backward_flops == TRUTH[path]["backward_flops"]


@pytest.mark.parametrize("path", sorted(set(TRUTH) - NOT_FLOPCOUNTERMODE), ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_standard_equals_flopcountermode_where_it_is_right(path):
    report = analyze(path)
    assert report.totals.backward_flops == TRUTH[path]["backward_flops"]
    assert report.totals.training_flops == TRUTH[path]["forward_flops"] + TRUTH[path]["backward_flops"]


@pytest.mark.parametrize("path, forward, backward", [
    # Published in the training issue (FlopCounterMode, torch 2.13 CPU, train mode, loss = sum).
    ("samples/lenet5.py", 833_040, 1_430_880),
    ("samples/mlp.py", 9_064_448, 11_706_368),
    ("samples/resnet50.py", 8_178_368_512, 16_120_709_120),
])
def test_published_numbers(path, forward, backward):
    report = analyze(path)
    assert (report.totals.forward_flops, report.totals.backward_flops) == (forward, backward)
    # backward = input gradients + weight gradients
    assert report.totals.input_grad_flops + report.totals.weight_grad_flops == backward


def test_mlp_backward_by_hand():
    totals = analyze("samples/mlp.py").totals
    # Every Linear has a weight gradient equal to its forward: 2*8*(784*512 + 512*256 + 256*128 + 128*10).
    assert totals.weight_grad_flops == 2 * 8 * (784 * 512 + 512 * 256 + 256 * 128 + 128 * 10)
    # Input gradients for all but the first layer, whose input is the model input.
    assert totals.input_grad_flops == 2 * 8 * (512 * 256 + 256 * 128 + 128 * 10)


def test_mobilenet_v2_grouped_conv_backward():
    standard = analyze("samples/mobilenet_v2.py")
    # Every op is a conv or linear with trainable weights and an input that needs a gradient,
    # except the stem conv (3->32, stride 2, 112x112 output): no input gradient, 32*112*112*27 MACs.
    stem = 2 * 32 * 112 * 112 * 27
    assert standard.totals.forward_flops == 601_548_544
    assert standard.totals.backward_flops == 2 * 601_548_544 - stem
    # FlopCounterMode's weight gradient ignores groups: `torch` reproduces its 11,678,152,448 (recorded).
    torch = analyze("samples/mobilenet_v2.py", rules="torch")
    assert torch.totals.backward_flops == TRUTH["samples/mobilenet_v2.py"]["backward_flops"] == 11_678_152_448


def test_one_depthwise_conv():
    entry = "tests/fixtures/torch_cases/conv2d_depthwise.py"
    report = analyze(entry)
    forward = report.totals.forward_flops
    # The input is a model input: only the weight gradient, which costs as much as the forward.
    assert report.totals.backward_flops == forward
    torch = analyze(entry, rules="torch")
    assert torch.totals.backward_flops == 16 * forward == TRUTH[entry]["backward_flops"]  # groups = 16


def test_in_source_requires_grad_false():
    report = analyze("tests/fixtures/torch_cases/frozen_inline.py")
    # conv (frozen) on 2x3x8x8: no weight gradient, and its input needs none -> 0.
    # head Linear(256, 5) on batch 2: weight gradient 2*2*256*5 = 5,120; its input comes only from
    # frozen layers and the model input -> no input gradient.
    assert report.totals.backward_flops == 5_120 == TRUTH["tests/fixtures/torch_cases/frozen_inline.py"]["backward_flops"]
    assert report.totals.trainable_params == 256 * 5 + 5


def test_freeze_glob_removes_exactly_the_frozen_weight_gradients():
    full = analyze("samples/lenet5.py").totals
    # Freezing the second conv (trainable layers upstream) removes exactly its weight gradient:
    # 2 * 16*10*10 outputs * 6*5*5 = 480,000; its input gradient is still needed for conv 1.
    second = analyze("samples/lenet5.py", freeze=["features.3"]).totals
    assert full.weight_grad_flops - second.weight_grad_flops == 480_000
    assert full.input_grad_flops == second.input_grad_flops
    assert second.trainable_params == 61_706 - (16 * 6 * 25 + 16)
    # Freezing the first conv removes its weight gradient, 2 * 6*28*28 * 25 = 235,200, and with
    # nothing trainable upstream any more, the second conv's input gradient (480,000) too.
    first = analyze("samples/lenet5.py", freeze=["features.0"]).totals
    assert full.weight_grad_flops - first.weight_grad_flops == 235_200
    assert full.input_grad_flops - first.input_grad_flops == 480_000
    # Freezing the whole feature extractor: nothing upstream of the classifier is trainable, so
    # only the classifier's weight gradients (2*(400*120 + 120*84 + 84*10) = 117,840) and the input
    # gradients of its 2nd and 3rd Linear (2*(120*84 + 84*10) = 21,840) remain.
    frozen = analyze("samples/lenet5.py", freeze=["features.*"]).totals
    assert frozen.weight_grad_flops == 117_840
    assert frozen.input_grad_flops == 21_840


def test_symbolic_batch_training_formula():
    report = staticflops.analyze("samples/resnet50.py", inputs=["Bx3x224x224"], training=True)
    # forward 8,178,368,512 + backward 16,120,709,120 per image (recorded)
    assert report.totals.training_flops == "24299077632*B"
    assert report.totals.backward_flops == "16120709120*B"


def test_json_has_training_fields_only_with_training():
    plain = json.loads(staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"]).to_json())
    assert "backward_flops" not in plain["totals"] and "training" not in plain
    assert all("backward_flops" not in layer for layer in plain["layers"])
    trained = json.loads(staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"], training=True).to_json())
    assert {"backward_flops", "input_grad_flops", "weight_grad_flops", "training_flops"} <= set(trained["totals"])
    assert all("backward_flops" in layer for layer in trained["layers"])


def test_run_budget_on_hardware():
    report = staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"], steps=1000, hardware="h100", mfu=0.5)
    budget = report.training.budget
    # (833,040 + 1,430,880) FLOPs/step x 1000 steps; H100 SXM bf16 dense peak 989.4 TFLOP/s at 50%.
    assert budget.total_flops == 2_263_920_000
    assert budget.gpu_hours == pytest.approx(2_263_920_000 / (989.4e12 * 0.5) / 3600)


def test_gpt_flops_per_token_against_6n():
    entry = TRUTH["samples/transformer.py"]
    report = analyze("samples/transformer.py")
    # Non-embedding params: 660,992 - (1000*128 token + 64*128 position embeddings) = 524,800.
    per_token = (entry["forward_flops"] + entry["backward_flops"]) / 64
    assert report.training.flops_per_token_vs_6n == pytest.approx(per_token / (6 * 524_800))
    # the rule of thumb itself, beside the exact count: 6 x 524,800 x 64 tokens
    assert report.training.flops_6nt == 6 * 524_800 * 64 == 201_523_200


def test_6nt_rule_of_thumb_is_printed_and_symbolic_in_t():
    from typer.testing import CliRunner

    from staticflops.cli.app import app
    model = TRUTH["samples/transformer.py"]["class"]
    result = CliRunner().invoke(app, ["analyze", "samples/transformer.py", "--model", model, "--training",
                                      "--input", "1xT:int64"])
    assert result.exit_code == 0, result.output
    # 6 x 524,800 non-embedding params = 3,148,800 FLOPs per token
    assert "Rule of thumb 6·N·T: 3.15 MFLOPs·T per step (N = non-embedding parameters, T tokens)" in result.output
    report = staticflops.analyze("samples/transformer.py", model=model, inputs=["1xT:int64"], training=True)
    assert report.training.flops_6nt == "3148800*T"


def test_hardware_without_mfu_is_a_usage_error():
    with pytest.raises(staticflops.UsageError, match="--mfu"):
        staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"], hardware="h100")


GRAD_MODES = '''
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.teacher = nn.Linear(4, 4)
        self.student = nn.Linear(4, 4)
        self.head = nn.Linear(4, 4)

    @torch.no_grad()
    def target(self, x):
        return self.teacher(x)

    def forward(self, x):
        {body}
'''


@pytest.mark.parametrize("body, backward", [
    # autograd records nothing under no_grad: the teacher call has no backward; the student's
    # weight gradient is 2 x 16 MACs = 32 FLOPs (its input is the model input: no input gradient)
    ("with torch.no_grad():\n            t = self.teacher(x)\n        return self.student(x) + t", 32),
    ("return self.student(x) + self.target(x)", 32),
    ("with torch.inference_mode():\n            t = self.teacher(x)\n        return self.student(x) + t", 32),
    ("with torch.set_grad_enabled(False):\n            t = self.teacher(x)\n        return self.student(x) + t", 32),
    # enable_grad inside no_grad records again: teacher 32 + student 32 + head (weight 32, and
    # its input comes from the student, which needs one: 32) = 128
    ("with torch.no_grad():\n            with torch.enable_grad():\n                t = self.teacher(x)\n"
     "        return self.head(self.student(x)) + t", 128),
    # no block: every layer is differentiated (teacher 32, student 32, head 32 + 32)
    ("return self.head(self.student(x)) + self.teacher(x)", 128),
])
def test_no_grad_blocks_have_no_backward(tmp_path, body, backward):
    path = tmp_path / "model.py"
    path.write_text(GRAD_MODES.replace("{body}", body))
    report = staticflops.analyze(path, inputs=["1x4"], training=True)
    assert report.totals.complete
    assert report.totals.backward_flops == backward


def test_a_no_grad_method_is_still_a_method(tmp_path):
    # transformers' `@torch.no_grad() def _init_weights(self, module): super()._init_weights(...)`:
    # the decorated function keeps its class for super(): width = (1 + 1) + 1 = 3, Linear(4, 3)
    path = tmp_path / "model.py"
    path.write_text('''
import torch
import torch.nn as nn


class A(nn.Module):
    @torch.no_grad()
    def width(self, n):
        return n + 1


class B(A):
    @torch.no_grad()
    def width(self, n):
        return super().width(n) + 1


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, B().width(1))

    def forward(self, x):
        return self.fc(x)
''')
    report = staticflops.analyze(path, inputs=["1x4"])
    assert report.totals.complete and report.totals.params == 4 * 3 + 3


def test_a_layer_frozen_in_part_bitfit(tmp_path):
    """BitFit trains the biases only.  Linear(8, 16) then Linear(16, 4) on 2 x 8: forward
    2*2*8*16 + 2*2*16*4 = 512 + 256 = 768; trainable 16 + 4 = 20 of 212; backward: no weight
    gradient (weights frozen; a bias's gradient is a sum, 0 here), the second layer's input
    gradient to reach the first bias 2*2*16*4 = 256, none for the first (its input is the
    model input).  FlopCounterMode (torch 2.13.0 CPU) gives 768 and 256, and 20 trainable.
    Freezing only the first weight in place (``self.a.weight.requires_grad = False``) leaves
    that layer's bias trainable: 212 - 128 = 84 trainable."""
    path = tmp_path / "bitfit.py"
    path.write_text(
        "import torch.nn as nn\n\n\nclass M(nn.Module):\n    def __init__(self, bitfit=True):\n"
        "        super().__init__()\n        self.a = nn.Linear(8, 16)\n        self.b = nn.Linear(16, 4)\n"
        "        if bitfit:\n            for name, p in self.named_parameters():\n"
        "                p.requires_grad = 'bias' in name\n        else:\n"
        "            self.a.weight.requires_grad = False\n\n    def forward(self, x):\n        return self.b(self.a(x))\n")
    totals = staticflops.analyze(path, model="M", inputs=["2x8"], training=True).totals
    assert (totals.forward_flops, totals.trainable_params, totals.params) == (768, 20, 212)
    assert (totals.input_grad_flops, totals.weight_grad_flops) == (256, 0)
    one = staticflops.analyze(path, model="M", kwargs={"bitfit": False}, inputs=["2x8"], training=True).totals
    # b: input gradient 256 + weight gradient 256; a: weight frozen, input is the model input
    assert (one.trainable_params, one.input_grad_flops, one.weight_grad_flops) == (84, 256, 256)
