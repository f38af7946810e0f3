"""Interpreter gaps found by the transformers folder run over the text/LLM-style modeling files
(tools/transformers_folder_run.py, docs/transformers.md "Coverage over the whole library"), each shown on a few
lines of model code that mimic the library's pattern.  Expected numbers are worked out by hand in
the comments, or are the CPython 3.11 / torch 2.13 semantics named next to them (checked by
running CPython/torch, not staticflops)."""

import pytest

from snippet_helpers import analyse
from staticflops import AnalysisError


def test_next_of_itertools_cycle_goes_round_and_zip_continues_it(tmp_path):
    # Zamba2 picks the block each hybrid layer shares with `next(cycle(blocks))`.  CPython 3.11:
    # c = cycle([1, 2, 3]); next(c), next(c) -> 1, 2; list(zip(c, [10, 20])) -> [(3, 10), (1, 20)]
    # and zip pulls 2 from the cycle before it finds [10, 20] exhausted (lost);
    # list(zip([30], c)) -> [(30, 3)] (the list runs out first, the cycle is not pulled again);
    # next(c) -> 1.
    report = analyse(tmp_path, """
import itertools
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        c = itertools.cycle([1, 2, 3])
        a, b = next(c), next(c)
        z = list(zip(c, [10, 20]))
        w = list(zip([30], c))
        d = next(c)
        assert (a, b, z, w, d) == (1, 2, [(3, 10), (1, 20)], [(30, 3)], 1)
        # 1 + 2 + 3 + 1 + 3 + 1 = 11 output features
        self.fc = nn.Linear(2, a + b + z[0][0] + z[1][0] + w[0][1] + d)

    def forward(self, x):
        return self.fc(x)
""", inputs=("1x2",))
    assert report.unknown == [], report.unknown
    # Linear(2, 11): 2*11 + 11 = 33 params; 1*2*11 MACs = 44 FLOPs
    assert report.outputs == [[1, 11]]
    assert report.totals.params == 33 and report.totals.forward_flops == 44


def test_torch_associative_scan_is_importable_and_its_unused_path_costs_nothing(tmp_path):
    # Mamba's selective scan imports torch's prototype `associative_scan` (it exists in torch
    # >= 2.9) and takes that path only while compiling; eagerly it runs the recurrent loop.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4, bias=False)

    def forward(self, x):
        from torch._higher_order_ops.associative_scan import associative_scan
        if associative_scan is not None and torch.compiler.is_compiling():
            return associative_scan(lambda a, b: a + b, x, dim=1)
        state = torch.zeros(1, 4)
        for i in range(x.shape[1]):
            state = self.fc(state) + x[:, i]
        return state
""", inputs=("1x3x4",))
    assert report.unknown == [], report.unknown
    # three turns of Linear(4, 4) on one row: 3 * 4*4 = 48 MACs = 96 FLOPs
    assert report.outputs == [[1, 4]] and report.totals.forward_flops == 96


def test_arithmetic_on_none_is_cpythons_type_error(tmp_path):
    # Ministral, HunYuan and Nemotron's default configs leave head_dim None and the attention
    # computes `self.head_dim ** -0.5`: CPython 3.11 raises "TypeError: unsupported operand
    # type(s) for ** or pow(): 'NoneType' and 'float'" there, where the model is built.
    with pytest.raises(AnalysisError) as error:
        analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, head_dim=None):
        super().__init__()
        try:
            caught = 7 // None
        except TypeError:
            caught = 3
        self.fc = nn.Linear(2, caught)  # the except branch ran: Linear(2, 3)
        self.scaling = head_dim ** -0.5

    def forward(self, x):
        return self.fc(x)
""", inputs=("1x2",))
    assert "model.py:12:24: unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'" \
        in str(error.value)


def test_a_size_left_none_is_torchs_type_error_where_the_tensor_is_made(tmp_path):
    # torch 2.13: torch.zeros(None, 8), nn.Embedding(None, 8) and nn.Linear(8, None) raise
    # TypeError ("empty(): argument 'size' ... must be tuple of ints, but found element of type
    # NoneType"), when called or built, not later in forward (ESM, Dots1, DiffusionGemma's defaults).
    for line, code in ((9, "self.w = nn.Parameter(torch.zeros(n, 8))"), (9, "self.e = nn.Embedding(n, 8)"),
                       (9, "self.fc = nn.Linear(8, n)")):
        with pytest.raises(AnalysisError) as error:
            analyse(tmp_path, f"""
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        n = None
        {code}

    def forward(self, x):
        return x * 2
""", inputs=("1x8",))
        message = str(error.value)
        assert f"model.py:{line}:" in message and "must be tuple of ints, but found element of type NoneType" \
            in message, (code, message)


def test_split_sizes_must_cover_the_dimension(tmp_path):
    # torch 2.13: torch.ones(1, 11).split([8, 12, 12], dim=-1) raises "split_with_sizes expects
    # split_sizes to sum exactly to 11" (GLM-4V-MoE's default rope sections against its head
    # dim); [3, 8] on 11 columns gives 1x3 and 1x8.
    source = """
import torch.nn as nn

class Net(nn.Module):
    def forward(self, x):
        a, b = x.split({sizes}, dim=-1)
        return b
"""
    report = analyse(tmp_path, source.format(sizes="[3, 8]"), inputs=("1x11",))
    assert report.unknown == [] and report.outputs == [[1, 8]]
    with pytest.raises(AnalysisError) as error:
        analyse(tmp_path, source.format(sizes="[8, 12]"), inputs=("1x11",))
    assert "model.py:6:16: split: split sizes must sum exactly to the dimension's size 11, got [8, 12] (sum 20)" \
        in str(error.value)


def test_max_pool_of_a_constant_tensor_is_that_constant(tmp_path):
    # CANINE max-pools its all-ones character mask (MaxPool1d(4, 4)) and transformers asks
    # `mask.all()` to skip the attention mask: torch 2.13 gives ones of shape (1, 1, 2) for
    # MaxPool1d(4, 4)(torch.ones(1, 1, 8)), so the test is True.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3, bias=False)

    def forward(self, x):
        mask = nn.MaxPool1d(kernel_size=4, stride=4)(torch.ones(1, 1, 8))
        if mask.all():
            return self.fc(mask)
        return x
""", inputs=("1x2",))
    assert report.unknown == [], report.unknown
    # Linear(2, 3) on (1, 1, 2): 2*3 = 6 MACs = 12 FLOPs (the pool: FlopCounterMode counts none)
    assert report.outputs == [[1, 1, 3]] and report.totals.forward_flops == 12


def test_numpy_array_of_a_comprehension_gives_a_sinusoidal_table(tmp_path):
    # RoFormer's (and Marian's) sinusoidal positions: np.array of an n_pos x dim list of floats
    # is a float64 array of shape (n_pos, dim); numpy 2: np.sin/np.cos of its every-other
    # column keep that column slice's shape (6, 2); torch.FloatTensor of it is float32.
    report = analyse(tmp_path, """
import numpy as np
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        n_pos, dim = 6, 4
        table = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
        out = torch.empty(n_pos, dim)
        out[:, 0:2] = torch.FloatTensor(np.sin(table[:, 0::2]))
        out[:, 2:] = torch.FloatTensor(np.cos(table[:, 1::2]))
        self.table = nn.Parameter(out)
        self.fc = nn.Linear(out.shape[1], out.shape[0], bias=False)

    def forward(self, x):
        return self.fc(x)
""", inputs=("1x4",))
    assert report.unknown == [], report.unknown
    # table 6*4 = 24 parameters, Linear(4, 6) 24 more; 4*6 = 24 MACs = 48 FLOPs
    assert report.totals.params == 48 and report.totals.forward_flops == 48 and report.outputs == [[1, 6]]
