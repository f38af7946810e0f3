"""`report.totals.at(B=8, ...)`: a symbolic count evaluated to numbers from the API (issue 21,
item 6).  Every expected number is derived by hand in a comment."""

import pytest

from staticflops.api import analyze_text
from staticflops.report.symbolic import count_at

LINEAR = """
import torch.nn as nn

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)
"""

CONV = """
import torch.nn as nn

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, bias=False)

    def forward(self, x):
        return self.conv(x)
"""


def test_linear_on_symbolic_batch_evaluates_at_b8():
    totals = analyze_text(LINEAR, "lin.py", inputs=["Bx16"], training=True).totals
    assert isinstance(totals.forward_flops, str)  # a formula in B before evaluation
    at = totals.at(B=8)
    # Linear(16, 4): MACs = B*16*4 = 64*B -> 512 at B=8; FLOPs = 2 x MACs = 1024
    assert (at.macs, at.forward_flops) == (512, 1024)
    # params = 16*4 + 4 = 68 (concrete already: unchanged); 68*4 bytes = 272 at float32
    assert (at.params, at.trainable_params, at.param_bytes) == (68, 68, 272)
    # backward: the weight gradient x^T·dy is another 2*B*16*4 = 1024 FLOPs; the input is a
    # model input, so no input gradient; training = forward + backward = 2048
    assert (at.backward_flops, at.input_grad_flops, at.weight_grad_flops, at.training_flops) == (1024, 0, 1024, 2048)
    # the output B x 4 floats: 8*4*4 bytes = 128
    assert at.activation_bytes == 128
    assert at.complete is True and at.convention == totals.convention  # the words are kept


def test_without_training_the_backward_fields_stay_absent():
    at = analyze_text(LINEAR, "lin.py", inputs=["Bx16"]).totals.at(B=3)
    assert at.forward_flops == 2 * 3 * 16 * 4  # 384
    assert at.backward_flops is None and at.training_flops is None


def test_floor_divisions_are_floored():
    totals = analyze_text(CONV, "conv.py", inputs=["1x3xHxW"]).totals.at(H=9, W=11)
    # 3x3 stride 2, no padding: out = (9 - 3)//2 + 1 = 4 rows, (11 - 3)//2 + 1 = 5 columns;
    # MACs = 8 out-channels * 4*5 positions * 3*3*3 = 4320, FLOPs = 8640
    assert (totals.macs, totals.forward_flops) == (4320, 8640)
    # H=10: (10 - 3)//2 + 1 = 4 as well (the floor): the same count
    assert analyze_text(CONV, "conv.py", inputs=["1x3xHxW"]).totals.at(H=10, W=11).macs == 4320


def test_missing_symbols_are_named():
    totals = analyze_text(CONV, "conv.py", inputs=["Bx3xHxW"]).totals
    with pytest.raises(ValueError, match=r"no value for H, W: call \.at\(B=\.\.\., H=\.\.\., W=\.\.\.\)"):
        totals.at(B=2)


def test_sizes_are_whole_numbers():
    totals = analyze_text(LINEAR, "lin.py", inputs=["Bx16"]).totals
    with pytest.raises(ValueError, match="B=2.5: a size is a whole number"):
        totals.at(B=2.5)


def test_extra_sizes_are_ignored_and_concrete_totals_are_unchanged():
    totals = analyze_text(LINEAR, "lin.py", inputs=["2x16"]).totals
    assert totals.at(B=8) == totals  # nothing symbolic: 2*2*16*4 = 256 FLOPs either way
    assert totals.at().forward_flops == 256


@pytest.mark.parametrize("formula, sizes, value", [
    ("128*B", {"B": 8}, 1024),
    ("2*B*T**2 + 3*T", {"B": 2, "T": 5}, 115),  # 2*2*25 + 15
    ("18816*B*((H - 1)//2)", {"B": 1, "H": 8}, 56448),  # (8 - 1)//2 = 3; 18816*3
    ("-3*B + 10", {"B": 2}, 4),
    ("1/2*B*H + 1/2*B", {"B": 2, "H": 3}, 4),  # (6 + 2)/2
])
def test_formula_evaluation(formula, sizes, value):
    assert count_at(formula, sizes) == value


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')",  # a call: refused, never run
    "B.__class__",
    "[B]",
    "B**100000",
    "1/2*B",  # 1/2 at B=1: not a whole number
    "B//0",
])
def test_anything_but_a_count_formula_is_refused(text):
    with pytest.raises(ValueError):
        count_at(text, {"B": 1, "os": 1, "system": 1, "__import__": 1})
