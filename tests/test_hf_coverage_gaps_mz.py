"""Interpreter gaps found by the transformers folder run over models m-z
(tools/transformers_folder_run.py), each shown on a few lines of model code that mimic the
library's pattern.  Expected numbers are worked out by hand in the comments, or are the Python /
torch 2.13 semantics named next to them (checked by running Python/torch, not staticflops)."""

import pytest
from snippet_helpers import analyse

from staticflops.diagnostics import AnalysisError


def test_callable_of_a_module_instance_and_of_a_class_with_call(tmp_path):
    # Python: an instance is callable when its type defines __call__; every nn.Module does
    # (X-codec 2's anti-aliased activation raises TypeError unless callable(SnakeBeta(dim))).
    # callable(Plain()) is False, callable(WithCall()) True (inherited __call__ counts).
    report = analyse(tmp_path, """
import torch.nn as nn

class Plain:
    pass

class Base:
    def __call__(self, x):
        return x

class WithCall(Base):
    pass

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        if not callable(nn.ReLU()) or not callable(WithCall()) or callable(Plain()):
            raise TypeError("not callable")
        # Linear(4, 3): 4*3 + 3 = 15 params
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        # (1, 4) @ (4, 3): 12 MACs = 24 FLOPs
        return self.fc(x)
""", inputs=("1x4",))
    assert report.unknown == [], report.unknown
    assert report.totals.params == 15 and report.totals.forward_flops == 24


def test_multihead_attention_given_query_key_value_by_name(tmp_path):
    # torch's MultiheadAttention.forward(query, key, value, key_padding_mask=None, ...): the
    # inputs may be passed by name (Mask2Former's and Phi-4's vision pooling do).
    # MHA(8, 2) on (1, 5, 8) query and (1, 7, 8) key/value:
    # in-projections 5*8*8 + 7*8*8 + 7*8*8 = 320 + 448 + 448 = 1,216 MACs; scores 2 heads *
    # 5*7*4 = 280, weighted values 280; out-projection 5*8*8 = 320: 2,096 MACs = 4,192 FLOPs.
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, q, kv):
        out, weights = self.attn(query=q, key=kv, value=kv, key_padding_mask=None)
        return out
""", inputs=("1x5x8", "1x7x8"))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 5, 8]]
    assert report.totals.forward_flops == 4192
    # 3*8*8 + 3*8 in-projection, 8*8 + 8 out-projection: 288
    assert report.totals.params == 288


def test_recurrent_cells_expose_their_weights(tmp_path):
    # torch 2.13: nn.GRUCell(4, 6) registers weight_ih (18, 4), weight_hh (18, 6), bias_ih and
    # bias_hh (18,) (3 gates * 6); LSTMCell(4, 6, bias=False) weight_ih (24, 4) and no biases.
    # SLANet's _init_weights initialises them by name.
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(4, 6)
        nn.init.uniform_(self.cell.weight_ih, -0.1, 0.1)
        other = nn.LSTMCell(4, 6, bias=False)
        assert other.bias_ih is None and other.bias_hh is None
        # 18*4 + 18*6 + 18 + 18 = 72 + 108 + 36 = 216; 24*4 = 96 -> Linear(1, 312): 624 params
        sizes = self.cell.weight_ih.numel() + self.cell.weight_hh.numel() + self.cell.bias_ih.numel() \\
            + self.cell.bias_hh.numel() + other.weight_ih.numel()
        self.probe = nn.Linear(1, sizes)

    def forward(self, x):
        return self.probe(x)
""", inputs=("1x1",))
    assert report.unknown == [], report.unknown
    layers = {row.name: row for row in report.layers}
    assert layers["probe"].params == 624
    # the GRUCell's own parameters (its rule): 216
    assert report.totals.params == 624 + 216


def test_dtype_attributes_and_backend_flags(tmp_path):
    # torch 2.13: torch.float32.is_floating_point True, torch.int64's False; itemsize 4 and 8;
    # torch.uint8.is_signed False, torch.int8's True.  `torch.backends.cudnn.flags(enabled=False)`
    # (PE Audio) and `torch.backends.mkldnn.flags(...)` are context managers choosing kernels.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        facts = (self.fc.weight.dtype.is_floating_point, torch.int64.is_floating_point,
                 torch.float32.itemsize, torch.int64.itemsize, torch.uint8.is_signed, torch.int8.is_signed,
                 torch.bfloat16.is_floating_point, torch.half.itemsize)
        assert facts == (True, False, 4, 8, False, True, True, 2), facts

    def forward(self, x):
        if (target := self.fc.weight.dtype).is_floating_point:
            x = x.to(target)
        with torch.no_grad(), torch.backends.cudnn.flags(enabled=False), torch.backends.mkldnn.flags(enabled=False):
            # (1, 4) @ (4, 3): 12 MACs = 24 FLOPs
            return self.fc(x)
""", inputs=("1x4",))
    assert report.unknown == [], report.unknown
    assert report.totals.forward_flops == 24 and report.totals.params == 15


def test_bitwise_not_of_a_known_mask_keeps_its_values(tmp_path):
    # torch: ~ of a bool tensor is logical not, of an int64 tensor the two's complement ~v = -v-1.
    # A padding mask built from zeros (TimesFM 2.5: ~(zeros >= 0.5)) is all True, so
    # transformers' `mask.sum() == mask.numel()` is decided.  Here p = 4 Falses:
    # (~p).sum() = 4, and (~q).sum() over q = 4 ones is 4 * -2 = -8.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.wide = nn.Linear(32, 6)
        self.narrow = nn.Linear(32, 2)

    def forward(self, x):
        pad = torch.zeros_like(x, dtype=torch.long).view(1, 4, 8)
        p = (pad >= 0.5)[..., -1]
        q = (~p).to(torch.int64)
        if q.sum() == q.numel() and (~q).sum() == -8:
            return self.wide(x)
        return self.narrow(x)
""", inputs=("1x32",))
    assert report.unknown == [], report.unknown
    # the wide branch: (1, 32) @ (32, 6) = 192 MACs = 384 FLOPs
    assert report.outputs == [[1, 6]] and report.totals.forward_flops == 384


VMAP_MASK = """
import torch
import torch.nn as nn
from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex


def causal(b, h, q, kv):
    return kv <= q


def window(b, h, q, kv):
    return (q - kv) < 3


class Net(nn.Module):
    def forward(self, x):
        pad = torch.ones(1, 5, dtype=torch.bool)
        def both(b, h, q, kv):
            return causal(b, h, q, kv) & window(b, h, q, kv) & pad[b, kv]
        fn = both
        # transformers' _vmap_expansion_sdpa: kv, then q, then head, then batch
        for dims in [(None, None, None, 0), (None, None, 0, None), (None, 0, None, None), (0, None, None, None)]:
            fn = torch.vmap(fn, in_dims=dims, out_dims=0)
        with TransformGetItemToIndex():
            mask = fn(torch.arange(1), torch.arange(1), torch.arange(5), torch.arange(5))
        return BODY
"""


def test_vmap_of_a_mask_function_maps_over_every_dimension(tmp_path):
    # torch.vmap semantics (torch 2.13): nested vmaps over (b, h, q, kv) of sizes 1, 1, 5, 5
    # return the mask of shape (1, 1, 5, 5).  In the full convention each per-element op counts
    # once per element of the batched result: <=, -, <, & and & on 25 elements = 5 * 25 = 125;
    # the standard convention counts none of them (FlopCounterMode: 0).
    report = analyse(tmp_path, VMAP_MASK.replace("BODY", "mask"), inputs=("1x5",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 1, 5, 5]] and report.totals.forward_flops == 0
    path = tmp_path / "model.py"
    import staticflops
    full = staticflops.analyze(path, inputs=["1x5"], rules="full")
    assert full.unknown == [] and full.totals.forward_flops == 125


def test_vmap_of_a_matmul_is_a_located_unknown(tmp_path):
    # An op whose cost is not per element (a matmul per example) is not priced by a leading
    # dimension: a located unknown, never a silent count.
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def forward(self, x):
        w = torch.ones(4, 3)
        return torch.vmap(lambda row: row @ w)(x)
""", inputs=("6x4",))
    assert any("inside torch.vmap" in u.what for u in report.unknown), report.unknown


MHA_FORWARD = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(8, 8)
        self.k_proj = nn.Linear(8, 8)
        self.v_proj = nn.Linear(8, 8)
        self.out_proj = nn.Linear(8, 8)

    def forward(self, x, bias):
        x = x.transpose(0, 1)  # (L, N, E), sequence first
        out, weights = F.multi_head_attention_forward(
            x, x, x, 8, 2, torch.empty([0]),
            torch.cat((self.q_proj.bias, self.k_proj.bias, self.v_proj.bias)),
            None, None, False, 0.0, self.out_proj.weight, self.out_proj.bias, self.training, None,
            need_weights=True, attn_mask=bias, use_separate_proj_weight=True,
            q_proj_weight=self.q_proj.weight, k_proj_weight=self.k_proj.weight, v_proj_weight=self.v_proj.weight)
        return out.transpose(0, 1), weights
"""


def test_functional_multi_head_attention_forward(tmp_path):
    # WavLM's attention calls F.multi_head_attention_forward with separate q/k/v weights and a
    # (N*H, L, S) position bias.  One sequence of 5, E = 8, 2 heads of 4:
    # q/k/v projections 3 * 5*8*8 = 960 MACs; scores (a baddbmm with the bias) 2 * 5*5*4 = 200;
    # weighted values 200; out projection 5*8*8 = 320: 1,680 MACs = 3,360 FLOPs.
    # Outputs: (1, 5, 8) and the head-averaged weights (1, 5, 5).  FlopCounterMode on torch
    # 2.13 gives the same 3,360 for this snippet.
    report = analyse(tmp_path, MHA_FORWARD, inputs=("1x5x8", "2x5x5"))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 5, 8], [1, 5, 5]]
    assert report.totals.forward_flops == 3360
    # four Linear(8, 8): 4 * 72 = 288
    assert report.totals.params == 288


SWITCH = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, experts=4, width=8, hidden=16, capacity=CAPACITY):
        super().__init__()
        self.num_experts = experts
        self.capacity = capacity
        self.router = nn.Linear(width, experts, bias=False)
        self.up = nn.Parameter(torch.empty(experts, hidden, width))
        self.down = nn.Parameter(torch.empty(experts, width, hidden))

    def forward(self, x):
        # Switch Transformers' top-1 router with an expert capacity
        probs = F.softmax(self.router(x), dim=-1)
        index = F.one_hot(torch.argmax(probs, dim=-1), num_classes=self.num_experts)
        priority = torch.cumsum(index, dim=-2)
        index = index * (priority <= self.capacity)
        weights = torch.max(probs, dim=-1).values.unsqueeze(-1)
        x = x.view(-1, x.shape[-1])
        selected = index.view(-1, 1, self.num_experts)
        weights = weights.view(-1, 1)
        out = torch.zeros_like(x)
        mask = selected.permute(2, 1, 0)
        hit = torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert in hit:
            idx, token = torch.where(mask[expert].squeeze(0))
            h = F.relu(F.linear(x[None, token].reshape(-1, x.shape[-1]), self.up[expert[0]]))
            h = F.linear(h, self.down[expert[0]]) * weights[token, idx, None]
            out.index_add_(0, token, h)
        return out
"""


def test_top1_routing_with_a_capacity_that_drops_no_token(tmp_path):
    # 6 tokens, each routed to exactly one expert; the capacity (8) is at least the tokens
    # (a cumsum over 6 positions is at most 6), so none is dropped and the loop's rows sum to 6:
    # router 6*8*4 = 192 MACs; experts up 6*8*16 = 768 and down 6*16*8 = 768:
    # 1,728 MACs = 3,456 FLOPs whatever the routing.
    report = analyse(tmp_path, SWITCH.replace("CAPACITY", "8"), inputs=("1x6x8",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[6, 8]] and report.totals.forward_flops == 3456


def test_top1_routing_with_a_capacity_that_may_drop_tokens_is_data_dependent(tmp_path):
    # capacity 4 < 6 tokens: how many rows the experts get depends on the routing, so the
    # experts the loop visits are not known: a located error, never a count
    with pytest.raises(AnalysisError, match="data-dependent"):
        analyse(tmp_path, SWITCH.replace("CAPACITY", "4"), inputs=("1x6x8",))


def test_tensor_layout_is_strided(tmp_path):
    # torch 2.13: a dense tensor's .layout is torch.strided (not torch.sparse_coo); Ovis2 passes
    # it on to torch.zeros(..., layout=x.layout).  Outputs: cat of (1, 4) and two (1, 3) = (1, 10).
    report = analyse(tmp_path, """
import torch
import torch.nn as nn

class Net(nn.Module):
    def forward(self, x):
        assert x.layout == torch.strided and x.layout != torch.sparse_coo
        pad = torch.zeros((1, 3), dtype=x.dtype, device=x.device, requires_grad=False, layout=x.layout)
        other = torch.zeros((1, 3), layout=torch.strided)
        return torch.cat([x, pad, other], dim=1)
""", inputs=("1x4",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 10]]


MASKED = """
import torch
import torch.nn as nn

class Net(nn.Module):
    def forward(self, h, m):
        return BODY
"""


@pytest.mark.parametrize("body, inputs, expected", [
    # torch 2.13: zeros(3).masked_fill(ones(2, 3) bool, 1) has the broadcast shape (2, 3)
    ("h.masked_fill(m.bool(), 1.0)", ("3", "2x3:int64=1"), [2, 3]),
    # in place, a (3,) mask broadcasts into (2, 3)
    ("h.masked_fill_(m.bool(), 1.0)", ("2x3", "3:int64=1"), [2, 3]),
])
def test_masked_fill_takes_the_broadcast_shape(tmp_path, body, inputs, expected):
    report = analyse(tmp_path, MASKED.replace("BODY", body), inputs=inputs)
    assert report.unknown == [] and report.outputs == [expected]


@pytest.mark.parametrize("body, inputs", [
    # SeamlessM4T's speech encoder given a 32-token mask for 3,000 frames: torch raises
    # "The size of tensor a (32) must match the size of tensor b (3000) at non-singleton dimension 1"
    ("h.masked_fill(~m.bool().unsqueeze(-1), 0.0)", ("1x3000x8", "1x32:int64=1")),
    # in place the output keeps x's shape: "output with shape [3] doesn't match the broadcast shape [2, 3]"
    ("h.masked_fill_(m.bool(), 1.0)", ("3", "2x3:int64=1")),
])
def test_masked_fill_with_a_mask_that_does_not_fit_fails(tmp_path, body, inputs):
    with pytest.raises(AnalysisError, match="masked_fill"):
        analyse(tmp_path, MASKED.replace("BODY", body), inputs=inputs)


def test_list_plus_tuple_raises_python_type_error(tmp_path):
    # Python: [384] + (256, 128) raises TypeError 'can only concatenate list (not "tuple") to
    # list' (ViTMatte's default config gives its fusion sizes as a tuple); code may catch it.
    report = analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, sizes=(256, 128)):
        super().__init__()
        try:
            channels = [384] + sizes
        except TypeError:
            channels = [384] + list(sizes)
        # 384 + 256 + 128 = 768 -> Linear(768, 1): 769 params
        self.fc = nn.Linear(sum(channels), 1)

    def forward(self, x):
        return self.fc(x)
""", inputs=("1x768",))
    assert report.unknown == [] and report.totals.params == 769
    with pytest.raises(AnalysisError, match='can only concatenate list'):
        analyse(tmp_path, """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, sizes=(256, 128)):
        super().__init__()
        self.fc = nn.Linear(len([384] + sizes), 1)

    def forward(self, x):
        return self.fc(x)
""", inputs=("1x3",))
