"""Interpreter gaps found by the transformers folder run (tools/transformers_folder_run.py,
docs/transformers.md "Coverage over the whole library"), each shown on a few lines of model code that mimic
the library's pattern.  Expected numbers are worked out by hand in the comments, or are the
torch 2.13 semantics named next to them (checked by running torch, not staticflops)."""

from snippet_helpers import analyse


def test_multihead_attention_exposes_its_projection_tensors(tmp_path):
    # torch 2.13: nn.MultiheadAttention(8, 2) has in_proj_weight (24, 8) and in_proj_bias (24,),
    # no separate q/k/v weights; with kdim=4, vdim=6, bias=False, add_bias_kv=True:
    # in_proj_weight None, q (8, 8), k (8, 4), v (8, 6), bias_k (1, 1, 8).
    report = analyse(tmp_path, """
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
        other = nn.MultiheadAttention(8, 2, kdim=4, vdim=6, bias=False, add_bias_kv=True)
        nn.init.xavier_uniform_(self.attn.in_proj_weight)
        nn.init.zeros_(self.attn.in_proj_bias)
        assert other.in_proj_weight is None and other.in_proj_bias is None
        # 8*8 + 8*4 + 8*6 + 8 = 64 + 32 + 48 + 8 = 152 -> Linear(1, 152): 152 + 152 = 304 params
        sizes = other.q_proj_weight.numel() + other.k_proj_weight.numel() + other.v_proj_weight.numel() \\
            + other.bias_k.numel()
        self.probe = nn.Linear(1, sizes)

    def forward(self, x):
        # (1, 5, 8) @ (8, 24)^T + bias: 5*8*24 = 960 MACs = 1,920 FLOPs (the bias add is not
        # counted, as FlopCounterMode's addmm)
        return F.linear(x, self.attn.in_proj_weight, self.attn.in_proj_bias)
""", inputs=("1x5x8",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 5, 24]] and report.totals.forward_flops == 1920
    layers = {row.name: row for row in report.layers}
    assert layers["probe"].params == 304
    # the MultiheadAttention's own parameters (its rule): 3*8*8 + 3*8 + 8*8 + 8 = 288
    assert report.totals.params == 288 + 304


def test_builtin_abs_of_a_tensor_is_its_abs(tmp_path):
    # abs(t) calls Tensor.__abs__ (torch.abs): same shape, one op per element.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Parameter(torch.ones(3))

    def forward(self, x):
        bound = abs(self.up[0]) * abs(x)
        return bound
""", inputs=("2x4",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[2, 4]]


def test_builtin_abs_calls_a_class_dunder(tmp_path):
    report = analyse(tmp_path, """
import torch.nn as nn

class Size:
    def __abs__(self):
        return 5

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # CPython: abs(Size()) is Size.__abs__() = 5 -> Linear(1, 5): 5 weights + 5 biases = 10
        self.lin = nn.Linear(1, abs(Size()))

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 10


def test_an_unknown_appended_to_a_list_stays_an_item(tmp_path):
    # CPython: after frames.append(y) and frames.insert(0, y) the list has 2 items, whatever y is;
    # y is unknown here (an op staticflops does not model), so frames[0] is that located unknown
    # and len(frames) = 2 sizes Linear(1, 2): 2 weights + 2 biases = 4 params.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        frames = []
        frames.append(torch.frobnicate(torch.ones(2)))
        frames.insert(0, torch.frobnicate(torch.ones(2)))
        self.lin = nn.Linear(1, len(frames))

    def forward(self, x):
        frames = []
        for i in range(0, 1):
            frames.append(torch.frobnicate(x))
        return frames[0]
""", inputs=("2x4",))
    assert report.totals.params == 4
    assert {u.what for u in report.unknown} == {"`torch.frobnicate` is not modelled"}
    assert report.totals.complete is False


def test_numpy_lcm_gcd_and_argsort_of_known_numbers(tmp_path):
    report = analyse(tmp_path, """
import numpy as np
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # numpy: lcm(4, 6) = 12, gcd(4, 6) = 2; argsort([32, 16, 8]) = [2, 1, 0]
        order = np.argsort([32, 16, 8], axis=0).tolist()
        widths = [5, 7, 9]
        # Linear(1, 12 + 2 + widths[2]) = Linear(1, 23): 23 + 23 = 46 params
        self.lin = nn.Linear(1, int(np.lcm(4, 6)) + int(np.gcd(4, 6)) + widths[order[0]])

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 46


def test_numpy_argsort_with_ties_is_unknown(tmp_path):
    report = analyse(tmp_path, """
import numpy as np
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        order = np.argsort([1, 1, 0]).tolist()
        self.lin = nn.Linear(1, 2)

    def forward(self, x):
        return self.lin(x)
""")
    assert any("numpy.argsort" in u.what for u in report.unknown), report.unknown


def test_flatten_and_constant_pad_keep_known_values(tmp_path):
    # torch 2.13: F.pad(arange(6).view(2, 3), (1, 2, 1, 0), value=9) is
    # [[9,9,9,9,9,9], [9,0,1,2,9,9], [9,3,4,5,9,9]]: sum 15 + 12*9 = 123, [2, 3] = 5,
    # flatten()[10] = 9; a long tensor padded with 0.5 holds 0 there (the fill cast toward zero).
    # Longformer decides `(mask > 0).flatten().any().item()` on a mask padded like this.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        x = F.pad(torch.arange(6).view(2, 3), (1, 2, 1, 0), value=9)
        cast = F.pad(torch.ones(2, dtype=torch.long), (1, 0), value=0.5)
        wide = F.pad(torch.ones(1, 32, dtype=torch.long), (0, 480), value=0)
        assert not bool((wide < 0).flatten().any().item())
        # Linear(1, 123 + 5 + 9 + 0 + 32) = Linear(1, 169): 169 + 169 = 338 params
        self.lin = nn.Linear(1, x.sum().item() + x[2, 3].item() + x.flatten()[10].item() + cast[0].item()
                             + wide.flatten().sum().item())

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 338


def test_view_keeps_an_integer_dtype(tmp_path):
    # torch: arange(6) is int64 and so is its view; its sum().item() is the int 15 (a float
    # 15.0 would be refused as a layer width) -> Linear(1, 15): 15 + 15 = 30 params
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        grid = torch.arange(6).view(2, 3)
        assert grid.dtype == torch.int64
        self.lin = nn.Linear(1, grid.sum().item())

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 30


def test_a_plain_subclass_of_a_dataclass_is_one(tmp_path):
    # CPython: __dataclass_fields__ is inherited, so fields(Sub(...)) lists the base's fields
    # (a, b; Sub's own annotation c is not a field) and is_dataclass(Sub) is True:
    # Linear(1, 2 + 1) -> 3 + 3 = 6 params.  transformers' `class XOutput(BaseModelOutput): pass`
    # reaches fields(self) in ModelOutput.__setattr__.
    report = analyse(tmp_path, """
import dataclasses
from dataclasses import dataclass, fields
import torch.nn as nn

@dataclass
class Base:
    a: int = 1
    b: int = 2

class Sub(Base):
    c: int = 3

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        names = [f.name for f in fields(Sub(5))]
        assert names == ["a", "b"] and dataclasses.asdict(Sub(5)) == {"a": 5, "b": 2}
        self.lin = nn.Linear(1, len(names) + int(dataclasses.is_dataclass(Sub)))

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 6


def test_pad_sizes_held_in_integer_tensors(tmp_path):
    # Mimi/EnCodec-style causal padding computed from int64 buffers. torch 2.13 gives, for a
    # length-6 input, kernel 3, padding 2, stride 2: frames = ceil((6 - 3 + 2) / 2 + 1) - 1 = 3,
    # ideal length 3*2 + 3 - 2 = 7, extra = 1, so F.pad(x, (2, extra)) is 1x4x9 (6 + 2 + 1).
    report = analyse(tmp_path, """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("stride", torch.tensor(2, dtype=torch.int64), persistent=False)
        self.register_buffer("kernel_size", torch.tensor(3, dtype=torch.int64), persistent=False)
        self.register_buffer("padding_total", torch.tensor(2, dtype=torch.int64), persistent=False)

    def forward(self, x):
        length = x.shape[-1]
        frames = (length - self.kernel_size + self.padding_total) / self.stride + 1
        frames = torch.ceil(frames).to(torch.int64) - 1
        extra = frames * self.stride + self.kernel_size - self.padding_total - length
        return F.pad(x, (2, extra))
""", inputs=("1x4x6",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 4, 9]]


def test_pad_size_in_a_tensor_of_unknown_value_is_a_located_unknown(tmp_path):
    report = analyse(tmp_path, """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def forward(self, x, n):
        return F.pad(x, (0, n.sum()))
""", inputs=("1x4x6", "3:int64"))
    assert [u.what for u in report.unknown] == [
        "`F.pad` on a size held in a tensor whose value is not known while the model is built"]


def test_builtin_max_min_of_numbers_and_known_one_element_tensors(tmp_path):
    # torch 2.13 / CPython: max(1, tensor(3)) is tensor(3), max(4, tensor(3)) is 4,
    # min(tensor(2), 2) is tensor(2) (the first of equals).  The pads are 3 + 4 = 7 and 2,
    # so F.pad of 1x4x6 by (3 + 4, 2) is 1x4x15 (6 + 7 + 2).
    report = analyse(tmp_path, """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def forward(self, x):
        three = torch.tensor(3)
        left = max(1, three) + max(4, three)
        right = min(torch.tensor(2), 2)
        assert isinstance(right, torch.Tensor)
        return F.pad(x, (left, right))
""", inputs=("1x4x6",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 4, 15]]


def test_identity_returns_a_tuple_it_is_given(tmp_path):
    # torch: nn.Identity()(x) is x for any x, here a tuple of two 1x2x3 maps; the model returns
    # the tuple's second item through a Linear(3, 5): 1x2x5, 3*5 + 5 = 20 params,
    # 2*3*5 = 30 MACs = 60 FLOPs.
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fpn = nn.Identity()
        self.lin = nn.Linear(3, 5)

    def forward(self, x):
        maps = self.fpn((x, x * 2))
        return self.lin(maps[1])
""", inputs=("1x2x3",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 2, 5]]
    assert report.totals.params == 20 and report.totals.forward_flops == 60


def test_legacy_typed_tensor_constructors(tmp_path):
    # torch 2.13: LongTensor([[0, 1, 2], [2, 1, 0]]).view(3, 2) is int64 with sum 6 and [2, 1] = 0;
    # LongTensor(2, 3) is an uninitialised 2x3 int64 tensor.  Linear(1, 6 + 0 + 2*3) = Linear(1, 12):
    # 12 + 12 = 24 params (LeViT's attention_bias_idxs buffer is built this way).
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        idxs = torch.LongTensor([[0, 1, 2], [2, 1, 0]]).view(3, 2)
        empty = torch.LongTensor(2, 3)
        assert idxs.dtype == torch.int64 and empty.dtype == torch.long
        assert torch.BoolTensor([True, False]).dtype == torch.bool
        self.lin = nn.Linear(1, idxs.sum().item() + idxs[2, 1].item() + empty.numel())

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 24


def test_sizes_given_as_tensors(tmp_path):
    # torch 2.13 reads a one-element integer tensor as a size: zeros((1, tensor(5), 4)) is 1x5x4,
    # new_zeros(tensor(3), 2) is 3x2, full((tensor(2),), 7) is (2,).  A size whose value is not
    # known (the largest of an input's sums: FastSpeech2's length regulator) is a located unknown,
    # never a shape holding a tensor.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def forward(self, x, durations):
        a = torch.zeros((1, torch.tensor(5), 4))
        b = x.new_zeros(torch.tensor(3), 2)
        c = torch.full((torch.tensor(2),), 7)
        d = torch.zeros((1, durations.sum(dim=1).max(), 4))
        return a, b, c, d
""", inputs=("1x4", "1x3:int64"))
    assert report.outputs[:3] == [[1, 5, 4], [3, 2], [2]]
    assert [u.what for u in report.unknown] == [
        "`torch.zeros` on a size held in a tensor whose value is not known while the model is built"]


def test_slice_bounds_held_in_tensors(tmp_path):
    # torch 2.13: with x = arange(12).view(3, 4) and n = tensor(2), x[:, :n] is 3x2 with sum
    # 0+1+4+5+8+9 = 27, and x[tensor(1):] is 2x4.  A bound whose value is not known (the largest
    # of an input's values) is a located unknown, not an internal error.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def forward(self, y, lengths):
        x = torch.arange(12).view(3, 4)
        n = torch.tensor(2)
        a = x[:, :n]
        b = x[torch.tensor(1):]
        c = y.new_zeros(a.sum().item())
        d = y[:, :lengths.max()]
        return a, b, c, d
""", inputs=("2x8", "2:int64"))
    assert report.outputs[:3] == [[3, 2], [2, 4], [27]]
    assert [u.what for u in report.unknown] == [
        "a slice bound held in a tensor whose value is not known while the model is built"]


def test_torch_distributions_normal(tmp_path):
    # torch 2.13: Normal(0, 1).icdf(tensor([0.9, 0.95])) has shape (2,) (float32 loc/scale);
    # Normal(zeros(2), 1.0).rsample((4,)) is 4x2, its cdf of a 3x2 tensor 3x2, log_prob of 3x1: 3x2.
    # The model scales its 3x2 input by the icdf: 3x2.  (Gemma 3n's activation sparsity.)
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def forward(self, x):
        normal = torch.distributions.normal.Normal(0, 1)
        other = torch.distributions.Normal(torch.zeros(2), 1.0)
        return (x * normal.icdf(torch.tensor([0.9, 0.95])), other.rsample((4,)), other.cdf(torch.zeros(3, 2)),
                other.log_prob(torch.zeros(3, 1)))
""", inputs=("3x2",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[3, 2], [4, 2], [3, 2], [3, 2]]


def test_a_userdict_subclass_is_a_mapping(tmp_path):
    # CPython: Shared({"a": (3, 4)}, b=(1,)) then d["c"] = (5,) and del d["b"] holds keys a, c
    # (in that order); it is a MutableMapping; d.get("zz", 7) = 7.
    # Linear(1, 4 + 2 + 7) = Linear(1, 13): 13 + 13 = 26 params.  (transformers' KVSharingDict)
    report = analyse(tmp_path, """
from collections import UserDict
from collections.abc import MutableMapping
import torch.nn as nn

class Shared(UserDict):
    pass

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        d = Shared({"a": (3, 4)}, b=(1,))
        d["c"] = (5,)
        del d["b"]
        assert list(d.keys()) == ["a", "c"] and [k for k, _ in d.items()] == ["a", "c"]
        assert isinstance(d, MutableMapping) and "a" in d and "b" not in d
        self.lin = nn.Linear(1, d["a"][1] + len(d) + d.get("zz", 7))

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 26


def test_numpy_newaxis_indexes_a_tensor(tmp_path):
    # numpy.newaxis is None, so arange(5)[:, np.newaxis] * w[np.newaxis, :] with w of shape (3,)
    # is (5, 1) * (1, 3) = 5x3 (Canary's sinusoidal positions).
    report = analyse(tmp_path, """
import numpy as np
import torch
import torch.nn as nn

class Net(nn.Module):
    def forward(self, w):
        return torch.arange(5)[:, np.newaxis] * w[np.newaxis, :]
""", inputs=("3",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[5, 3]]


def test_item_assignment_updates_or_forgets_known_values(tmp_path):
    # torch 2.13: m = zeros(2, 6); m[(arange(2), tensor([3, 1]))] = 1; then
    # m.flip([-1]).cumsum(-1).flip([-1]) is [[1,1,1,1,0,0], [1,1,0,0,0,0]]: sum 6, [0, 3] = 1,
    # [1, 2] = 0 (Speech2Text's feature-vector mask); arange(6).view(2, 3).flip(0)[0, 0] = 3;
    # z = zeros(2, 6, long); z[:, 2:4] = 3 sums to 12.  Linear(1, 6 + 1 + 0 + 3 + 12) = Linear(1, 22):
    # 44 params.  A write these rules do not follow (an index listing one element twice) leaves
    # the values unknown, never the stale zeros: the last width is a located unknown.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        m = torch.zeros(2, 6, dtype=torch.long)
        m[(torch.arange(2), torch.tensor([3, 1]))] = 1
        r = m.flip([-1]).cumsum(-1).flip([-1]).long()
        z = torch.zeros(2, 6, dtype=torch.long)
        z[:, 2:4] = 3
        width = r.sum().item() + r[0, 3].item() + r[1, 2].item() + torch.arange(6).view(2, 3).flip(0)[0, 0].item()
        self.lin = nn.Linear(1, width + z.sum().item())
        twice = torch.zeros(3, dtype=torch.long)
        twice[torch.tensor([0, 0])] = 1
        self.other = nn.Linear(1, 1 + twice.sum().item())

    def forward(self, x):
        return self.lin(x)
""")
    layers = {row.name: row for row in report.layers}
    assert layers["lin"].params == 44
    assert [u.what for u in report.unknown][:1] == [
        "`Tensor.item` on a tensor whose value is not known while the model is built"]


def test_reductions_along_a_dim_keep_known_values(tmp_path):
    # torch 2.13: m = [[1,1,1,0], [1,0,0,0]]: m.sum(-1) = [3, 1] (int64), m.sum(0)[0] = 2,
    # m.sum(dim=1, keepdim=True)[1, 0] = 1; arange(24).view(2, 3, 4).sum(1)[1, 3] = 57,
    # .amax(dim=2)[1, 2] = 23.  Linear(1, 3 + 1 + 2 + 1 + 57 + 23) = Linear(1, 87): 174 params.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        m = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0]])
        lengths = m.sum(-1)
        x = torch.arange(24).view(2, 3, 4)
        width = lengths[0].item() + lengths[1].item() + m.sum(0)[0].item() \\
            + m.sum(dim=1, keepdim=True)[1, 0].item() + x.sum(1)[1, 3].item() + x.amax(dim=2)[1, 2].item()
        self.lin = nn.Linear(1, width)

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 174


def test_floor_division_and_remainder_of_tensors_keep_their_values(tmp_path):
    # torch 2.13: t = arange(6): t // 4 = [0,0,0,0,1,1] (int64, sum 2); t % 4 sums 0+1+2+3+0+1 = 7;
    # (-t) % 4 = [0,3,2,1,0,3] (sum 9: the divisor's sign, as Python); tensor([7.5]) // 2 = 3.0;
    # (tensor([32]) - 1) // 2 + 1 = 16 (a conv stack's output length).
    # Linear(1, 2 + 7 + 9 + 3 + 16) = Linear(1, 37): 74 params.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        t = torch.arange(6)
        quotient = t // 4
        assert quotient.dtype == torch.int64
        width = quotient.sum().item() + (t % 4).sum().item() + ((-t) % 4).sum().item() \\
            + int((torch.tensor([7.5]) // 2).item()) + ((torch.tensor([32]) - 1) // 2 + 1).item()
        self.lin = nn.Linear(1, width)

    def forward(self, x):
        return self.lin(x)
""")
    assert report.unknown == [], report.unknown
    assert report.totals.params == 74


def test_weights_tied_twice_are_counted_once(tmp_path):
    # transformers ties in each post_init: MarianModel's (encoder and decoder embeddings to
    # `shared`), then MarianMTModel's again with the same pairs.  torch 2.13: one tensor of
    # 100 x 8 = 800 parameters however often it is tied; given back to the layer that owns
    # its first tensor, that one counts again: 800 + 800 = 1,600 (checked by running torch)
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Embedding(100, 8)
        self.enc = nn.Embedding(100, 8)
        self.dec = nn.Embedding(100, 8)
        for _ in range(2):
            self.enc.weight = self.shared.weight
            self.dec.weight = self.shared.weight
        self.dec.weight = self.dec.weight

    def forward(self, x):
        return self.enc(x) + self.dec(x)
""", inputs=("1x4:int64",))
    assert report.totals.params == 800
    untied = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Embedding(100, 8)
        self.enc = nn.Embedding(100, 8)
        own = self.enc.weight
        self.enc.weight = self.enc.weight
        self.enc.weight = self.shared.weight
        self.enc.weight = own

    def forward(self, x):
        return self.enc(x)
""", inputs=("1x4:int64",))
    assert untied.totals.params == 1_600


def test_parameter_list_holds_every_parameter_appended(tmp_path):
    # torch 2.13 (checked by running it): a ParameterList with two appended parameters has
    # len 2 and iterates both; Reformer's axial position weights (64, 1, 64) and (1, 64, 192):
    # 4,096 + 12,288 = 16,384 params.  Linear(4, 2*100 + 2*10 + 2) = Linear(4, 222): 888 + 222
    # = 1,110 params, 888 MACs = 1,776 FLOPs.  A ParameterDict of "a" and "b" has len 2 and
    # iterates its keys: Linear(1, 2*10 + len("bbb")) = Linear(1, 23), 23 + 23 = 46 params (not called).
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.ParameterList()
        self.weights.append(nn.Parameter(torch.ones((64, 1, 64))))
        self.weights.append(nn.Parameter(torch.ones((1, 64, 192))))
        named = nn.ParameterDict({"a": nn.Parameter(torch.ones(2)), "b": nn.Parameter(torch.ones(3))})
        self.extra = nn.Linear(1, len(named) * 10 + len(list(named)[1] * 3))
        self.proj = nn.Linear(4, len(self.weights) * 100 + len([w for w in self.weights]) * 10 + len(list(self.weights)))

    def forward(self, x):
        return self.proj(x)
""", inputs=("1x4",))
    assert report.totals.params == 16_384 + 1_110 + 46 and report.totals.forward_flops == 1_776
