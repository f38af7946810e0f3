"""Interpreter gaps found by the transformers folder run on the vision, audio and multimodal
modeling files (tools/transformers_folder_run.py), each shown on a few lines of model code that
mimic the library's pattern.  Expected numbers are worked out by hand in the comments, or are the
CPython 3.11 / numpy / torch 2.13 behaviour named next to them."""

import staticflops
from snippet_helpers import analyse


def test_numpy_cumsum_of_known_numbers(tmp_path):
    # numpy: cumsum([1, 2, 7, 2]) = [1, 3, 10, 12] (int64); minus 1 -> [0, 2, 9, 11] (SAM 2's
    # stage ends); cumsum([0.5, 1.0]) = [0.5, 1.5] (float64).
    # Linear(1, 4 * 10 + 11) = Linear(1, 51): 51 + 51 = 102 params.
    report = analyse(tmp_path, """
import numpy as np
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        ends = (np.cumsum([1, 2, 7, 2]) - 1).tolist()
        halves = np.cumsum([0.5, 1.0]).tolist()
        assert ends == [0, 2, 9, 11] and type(ends[0]) is int and halves == [0.5, 1.5]
        self.lin = nn.Linear(1, len(ends) * 10 + ends[-1])

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 102


def test_numpy_cumsum_with_an_axis_is_unknown(tmp_path):
    report = analyse(tmp_path, """
import numpy as np
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(1, int(np.cumsum([1, 2], axis=0)[-1]))

    def forward(self, x):
        return self.lin(x)
""")
    assert any("numpy.cumsum" in u.what for u in report.unknown), report.unknown


def test_split_sizes_must_cover_the_dimension(tmp_path):
    # torch 2.13: torch.split(zeros(1, 4), [3], dim=0) raises "split_with_sizes expects
    # split_sizes to sum exactly to 1 (input tensor's size at dimension 0)" (LLaVA-NeXT splits
    # its image features by the patch counts its image sizes give, which must match the rows).
    import pytest
    with pytest.raises(staticflops.AnalysisError, match="split sizes must sum exactly to the dimension's size 1, got \\[3\\] \\(sum 3\\)"):
        analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return torch.split(self.lin(x), [3], dim=0)[0]
""", inputs=("1x4",))


def test_split_sizes_that_cover_the_dimension(tmp_path):
    # torch.split(x (5x4), [2, 3]) -> 2x4 and 3x4; Linear(4, 4) on 5 rows: 5*4*4 = 80 MACs
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        a, b = torch.split(self.lin(x), [2, 3], dim=0)
        return b
""", inputs=("5x4",))
    assert report.outputs == [[3, 4]] and report.totals.forward_flops == 160


def test_size_numel_is_the_product_of_the_sizes(tmp_path):
    # torch 2.13: x (2, 3, 4): x.shape.numel() = 24, x.shape[1:].numel() = 12, x.size()[2:].numel() = 4,
    # torch.Size([]).numel() = 1 -> Linear(1, 24 + 12 + 4 + 1) = Linear(1, 41): 82 params
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        x = torch.zeros(2, 3, 4)
        width = x.shape.numel() + x.shape[1:].numel() + x.size()[2:].numel() + torch.Size([]).numel()
        self.lin = nn.Linear(1, width)

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 82


def test_nearest_interpolation_keeps_known_values(tmp_path):
    # torch 2.13 (printed by running it): a 6x6 mask with ones in rows 0-3, columns 0-2,
    # resized to (3, 2): rows 0, 2, 4 (scale 6/3) and columns 0, 3 (scale 6/2) ->
    # [[1, 0], [1, 0], [0, 0]], sum 2, row sums [1, 1, 0]; [1, 2, 3] doubled ->
    # [1, 1, 2, 2, 3, 3] (sum 12); [0, 1, 2, 3, 4] to 3 -> floor(i * 5/3) = 0, 1, 3 (sum 4);
    # a size read from the row sums (1, 1): 1x2x1x1, 2 elements.
    # Linear(1, 2*10 + 12 + 4 + 2) = Linear(1, 38): 76 params.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        m = torch.zeros(1, 1, 6, 6)
        m[:, :, :4, :3] = 1.0
        small = F.interpolate(m, size=(3, 2)).long()
        rows = small[0, 0].sum(dim=1)
        assert rows.tolist() == [1, 1, 0]
        big = F.interpolate(torch.tensor([[[1.0, 2.0, 3.0]]]), scale_factor=2)
        odd = F.interpolate(torch.tensor([[[0.0, 1.0, 2.0, 3.0, 4.0]]]), size=3)
        assert odd.tolist() == [[[0.0, 1.0, 3.0]]]
        other = F.interpolate(torch.ones(1, 2, 4, 4), size=(rows[0], rows[1]))
        width = small.sum().item() * 10 + int(big.sum().item()) + int(odd.sum().item()) + other.numel()
        self.lin = nn.Linear(1, width)

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 76


def test_max_of_known_values_and_a_repeat_count_held_in_a_tensor(tmp_path):
    # torch 2.13: arange(5).unsqueeze(0).repeat((2, 1)).max() = tensor(4) (int64), min() = 0;
    # x (1, 3, 4).repeat(1, max + 1, 1) -> (1, 15, 4) (V-JEPA 2's target tokens).
    # Linear(4, 4) on 15 rows: 15*4*4 = 240 MACs = 480 FLOPs; Linear(1, 4 + 1 + 0) = 10 params.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        ids = torch.arange(5).unsqueeze(0).repeat((2, 1))
        assert ids.max().dtype == torch.int64
        self.probe = nn.Linear(1, ids.max().item() + 1 + ids.min().item())
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        ids = torch.arange(5).unsqueeze(0).repeat((2, 1))
        count = ids.max() + 1
        return self.lin(x.repeat(1, count, 1))
""", inputs=("1x3x4",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 15, 4]]
    assert report.totals.forward_flops == 480
    assert report.totals.params == 10 + 20
