"""Interpreter gaps found by the transformers folder run over the models a-l
(tools/transformers_folder_run.py, README "Coverage over the whole library"), each shown on a few
lines of model code that mimic the library's pattern.  Expected numbers are worked out by hand in
the comments; behaviours are torch 2.13's (checked by running torch, not staticflops)."""

import staticflops
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


FOURIER = """
import torch
import torch.nn as nn
from functools import partial

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)
        self.transform = partial(torch.fft.fftn, dim=(1, 2))  # FNet's mixing layer

    def forward(self, x):
        mixed = self.transform(x).real                       # (1, 6, 8)
        half = torch.fft.rfft(x)                             # 8 // 2 + 1 = 5: (1, 6, 5)
        back = torch.fft.irfft(half)                         # 2 * (5 - 1) = 8: (1, 6, 8)
        padded = torch.fft.fft(x, n=16, dim=1)               # (1, 16, 8)
        planes = torch.fft.rfftn(x, s=(4, 10))               # dims 1, 2 -> 4, 10 // 2 + 1 = 6: (1, 4, 6)
        freqs = torch.fft.fftfreq(8), torch.fft.rfftfreq(8)  # (8,), (5,)
        centred = torch.fft.fftshift(back, dim=-1)           # (1, 6, 8)
        return self.proj(mixed), half, centred, padded, planes, *freqs
"""


def test_torch_fft_transforms_shapes_and_zero_standard_cost(tmp_path):
    # Shapes as torch 2.13 gives them (noted beside each line); FlopCounterMode has no formula for
    # the FFT kernels (aten._fft_c2c/_fft_r2c/_fft_c2r), so only the Linear counts: 6 rows * 8 * 4
    # = 192 MACs = 384 FLOPs (FNet default config at 1x32 tokens: 3,662,807,040 FLOPs, equal to
    # FlopCounterMode's, measured with tools/flop_measure.py's measure_call).
    report = analyse(tmp_path, FOURIER, inputs=("1x6x8",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 6, 4], [1, 6, 5], [1, 6, 8], [1, 16, 8], [1, 4, 6], [8], [5]]
    assert report.totals.forward_flops == 384


def test_torch_fft_full_convention_counts_radix_two(tmp_path):
    # rules/full.yaml's fft: transforms * floor(c * points * log2n), c = 5 for a complex transform,
    # 5/2 for a one-sided one, log2n = bit_length(points - 1):
    #   fftn over (6, 8): 1 transform of 48 points, log2n 6: 5 * 48 * 6 = 1440
    #   rfft of 8 points, 6 rows: 6 * floor(2.5 * 8 * 3) = 6 * 60 = 360
    #   irfft back to 8 points, 6 rows: 360
    #   fft n=16 along dim 1, 8 columns: 8 * 5 * 16 * 4 = 2560
    #   rfftn s=(4, 10): 1 transform of 40 points, log2n 6: floor(2.5 * 40 * 6) = 600
    path = tmp_path / "model.py"
    path.write_text(FOURIER)
    report = staticflops.analyze(path, inputs=["1x6x8"], rules="full")
    ffts = {row.type: row.forward_flops for row in report.layers if row.type.startswith("torch.fft.")}
    assert ffts == {"torch.fft.fftn": 1440, "torch.fft.rfft": 360, "torch.fft.irfft": 360, "torch.fft.fft": 2560,
                    "torch.fft.rfftn": 600}


def test_calling_none_raises_type_error(tmp_path):
    # Python: `None(x)` raises TypeError "'NoneType' object is not callable" (Gemma 4 with no
    # vision_config leaves `self.vision_tower` None; given pixels, torch fails there), which the
    # code may catch; so may `3()`.
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.tower = None
        self.proj = nn.Linear(8, 4)

    def forward(self, x):
        try:
            self.tower(pixel_values=x)
        except TypeError as error:
            assert str(error) == "'NoneType' object is not callable"
            return self.proj(x)
        return x
""", inputs=("1x8",))
    assert report.unknown == [], report.unknown
    # Linear(8, 4) on one row: 32 MACs = 64 FLOPs
    assert report.outputs == [[1, 4]] and report.totals.forward_flops == 64


def test_indexing_none_raises_type_error(tmp_path):
    # Python: `None[0]` raises TypeError "'NoneType' object is not subscriptable" (LFM2-MoE's and
    # DeepSeek-OCR-2's default configs leave `layer_types`/`mlp_layer_types` None: torch fails
    # building the model), which the code may catch.
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, layer_types=None):
        super().__init__()
        try:
            wide = layer_types[0] == "wide"
        except TypeError as error:
            assert str(error) == "'NoneType' object is not subscriptable"
            wide = True
        self.proj = nn.Linear(8, 4 if wide else 2)

    def forward(self, x):
        return self.proj(x)
""", inputs=("1x8",))
    assert report.unknown == [], report.unknown
    # Linear(8, 4) on one row: 32 MACs = 64 FLOPs
    assert report.outputs == [[1, 4]] and report.totals.forward_flops == 64


def test_a_missing_attribute_of_none_or_a_bool_raises_attribute_error(tmp_path):
    # Python: `None.to` and `False.unsqueeze` raise AttributeError ("'NoneType' object has no
    # attribute 'to'"): Kosmos-2 given no image mask, Blip-2's `input_ids == None` mask (False)
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, x, mask=None):
        caught = 0
        for value in (mask, x == None):
            try:
                value.unsqueeze(-1)
            except AttributeError as error:
                caught += 1
                assert str(error) in ("'NoneType' object has no attribute 'unsqueeze'",
                                      "'bool' object has no attribute 'unsqueeze'")
        assert caught == 2
        return self.proj(x)
""", inputs=("1x8",))
    assert report.unknown == [], report.unknown
    # Linear(8, 4) on one row: 32 MACs = 64 FLOPs
    assert report.outputs == [[1, 4]] and report.totals.forward_flops == 64


def test_copy_copy_of_an_object_is_a_new_object(tmp_path):
    # Python: copy.copy(obj) is a new object with the same attribute values; setting one on the
    # copy leaves the original alone (transformers' per-layer config view copies the model config
    # and sets head_dim 512 on the copy for EmbeddingGemma2's full-attention layers: the model's
    # own head_dim stays 256). A class's __copy__ is used when it has one.
    report = analyse(tmp_path, """
import copy
import torch.nn as nn

class Config:
    def __init__(self):
        self.head_dim = 256
        self.sizes = [1]

class Custom:
    def __copy__(self):
        return 7

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        config = Config()
        layer = copy.copy(config)
        layer.head_dim = 512
        assert layer.sizes is config.sizes  # shallow: the same list
        listed = copy.copy(config.sizes)
        listed.append(2)
        self.wide = nn.Linear(1, layer.head_dim)
        self.narrow = nn.Linear(1, config.head_dim + len(config.sizes) + copy.copy(Custom()) - 8)

    def forward(self, x):
        return self.wide(x), self.narrow(x)
""", inputs=("1x1",))
    assert report.unknown == [], report.unknown
    # 256 + 1 + 7 - 8 = 256 outputs for the original's Linear
    assert report.outputs == [[1, 512], [1, 256]]
    # Linear(1, 512) + Linear(1, 256): 512 + 256 MACs = 1,536 FLOPs
    assert report.totals.forward_flops == 1536


def test_a_module_without_forward_raises_not_implemented_error(tmp_path):
    # torch 2.13: calling an nn.Module subclass that defines no forward raises NotImplementedError
    # ('Module [Tower] is missing the required "forward" function'), which the code may catch
    # (transformers' BarkModel holds sub-models and has no forward of its own)
    report = analyse(tmp_path, """
import torch.nn as nn

class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.tower = Tower()
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        try:
            x = self.tower(x)
        except NotImplementedError as error:
            assert str(error) == 'Module [Tower] is missing the required "forward" function'
        return self.head(x)
""", inputs=("1x8",))
    assert report.unknown == [], report.unknown
    # only the head runs: Linear(8, 4) on one row, 32 MACs = 64 FLOPs; params 72 + 36 = 108
    assert report.outputs == [[1, 4]] and report.totals.forward_flops == 64
    assert report.totals.params == 72 + 36
