"""Interpreter gaps found by the transformers folder run over the models a-l
(tools/transformers_folder_run.py, README "Coverage over the whole library"), each shown on a few
lines of model code that mimic the library's pattern.  Expected numbers are worked out by hand in
the comments; behaviours are torch 2.13's (checked by running torch, not staticflops)."""

from snippet_helpers import analyse


def test_view_reads_a_size_held_in_a_one_element_tensor(tmp_path):
    # Longformer/LED chunk a sequence with `torch.div(n, 2 * w, rounding_mode="trunc")`, a 0-d
    # int64 tensor, as a `view` size: torch reads its value. 6 // 2 = 3 -> (1, 3, 2, 8), and
    # Linear(8, 4) on 3*2 rows: 6*8*4 = 192 MACs = 384 FLOPs.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, x):
        chunks = torch.div(x.size(1), 2, rounding_mode="trunc")
        return self.proj(x.view(x.size(0), chunks, 2, 8))
""", inputs=("1x6x8",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 3, 2, 4]] and report.totals.forward_flops == 384


def test_a_tensor_compared_with_none_is_a_python_bool(tmp_path):
    # torch 2.13: `torch.ones(2) == None` is False and `!= None` True (the tensor's operator
    # returns NotImplemented, Python falls back to identity); `x * None` raises TypeError. So
    # `input_ids == config.image_token_id` with the id unset is False, and the code's `.unsqueeze`
    # on it fails as in torch (Blip-2 with its default config).
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, x):
        assert (x == None) is False and (None != x) is True
        try:
            x * None
            failed = False
        except TypeError:
            failed = True
        return self.proj(x) if failed else x
""", inputs=("1x8",))
    assert report.unknown == [], report.unknown
    # Linear(8, 4) on one row: 32 MACs = 64 FLOPs
    assert report.outputs == [[1, 4]] and report.totals.forward_flops == 64
