"""Record ground truth for single torch ops and their argument variants (issue 20).

Each case is one tiny model written here as source text; this script executes it with the
real torch and writes what it observed to tests/fixtures/ops_ground_truth.json.  The test
tests/test_ops_recorded.py runs every recorded source through staticflops, without torch.

How to run (torch 2.13.0 CPU, e.g. the venv at /work/torchvenv):

    /work/torchvenv/bin/python tools/record_ops.py

Recorded per case: ``source``, ``inputs`` ([{"shape", "dtype"}]), ``output_shapes`` (a
tuple/list/namedtuple output flattened depth-first, non-tensors skipped), ``params``
(sum of numel over model.parameters()) and ``forward_flops`` (FlopCounterMode, train mode,
under SDPA's MATH kernel and with mkldnn off, so attention and matmuls get their formulas:
see /work/shared/research/ground-truth-notes.md).
"""

from __future__ import annotations

import json
import sys
import textwrap
import types
from pathlib import Path

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ops_ground_truth.json"

HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\n\nclass Model(nn.Module):\n"

# name: (constructor body, forward body, inputs "name:shape" or "name:int64:shape")
CASES: dict[str, tuple[str, str, list[str]]] = {
    # ---- the wrong/error cases of issue 20 ----
    "conv_transpose2d_output_size": ("self.m = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)",
                                     "return self.m(x, output_size=[32, 32])", ["x:1x4x16x16"]),
    "max_pool2d_return_indices": ("self.m = nn.MaxPool2d(2, return_indices=True)", "return self.m(x)", ["x:1x3x8x8"]),
    "max_pool2d_indices_unpacked": ("self.m = nn.MaxPool2d(2, return_indices=True)",
                                    "out, idx = self.m(x)\n        return out + 1, idx", ["x:2x3x8x6"]),
    "adaptive_max_pool2d_return_indices": ("self.m = nn.AdaptiveMaxPool2d((2, 3), return_indices=True)",
                                           "return self.m(x)", ["x:1x3x8x9"]),
    "f_max_pool2d_return_indices": ("", "return F.max_pool2d(x, 2, return_indices=True)", ["x:1x3x8x8"]),
    "sdpa_enable_gqa": ("", "return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)",
                        ["q:1x8x5x16", "k:1x2x7x16", "v:1x2x7x12"]),
    "view_dtype": ("self.fc = nn.Linear(6, 4)", "return self.fc(x).view(torch.int32)", ["x:3x6"]),
    # ---- RMSNorm ----
    "rms_norm_module": ("self.norm = nn.RMSNorm(16)\n        self.fc = nn.Linear(16, 4)",
                        "return self.fc(self.norm(x))", ["x:2x5x16"]),
    "rms_norm_module_2d_no_affine": ("self.norm = nn.RMSNorm([5, 16], elementwise_affine=False)",
                                     "return self.norm(x)", ["x:2x5x16"]),
    "f_rms_norm": ("self.w = nn.Parameter(torch.ones(16))", "return F.rms_norm(x, [16], self.w)", ["x:2x5x16"]),
    # ---- addmm family ----
    "addmm_gpt2_conv1d": ("self.weight = nn.Parameter(torch.randn(8, 6))\n        self.bias = nn.Parameter(torch.zeros(6))",
                          "size_out = x.size()[:-1] + (6,)\n        y = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)\n        return y.view(size_out)",
                          ["x:2x5x8"]),
    "addmm_method": ("self.weight = nn.Parameter(torch.randn(8, 6))", "return torch.zeros(6).addmm(x, self.weight, beta=0.5, alpha=2)", ["x:4x8"]),
    "baddbmm": ("", "return torch.baddbmm(torch.zeros(3, 4, 7), a, b, beta=0.0, alpha=0.125)", ["a:3x4x5", "b:3x5x7"]),
    "baddbmm_broadcast_input": ("", "return torch.baddbmm(torch.zeros(1, 1, 7), a, b)", ["a:3x4x5", "b:3x5x7"]),
    "addbmm": ("", "return torch.addbmm(torch.zeros(4, 7), a, b)", ["a:3x4x5", "b:3x5x7"]),
    "addmv": ("", "return torch.addmv(torch.zeros(4), a, v)", ["a:4x5", "v:5"]),
    # ---- comparisons, logical, all/any ----
    "compare_methods": ("", "return x.eq(y), x.ne(0), x.lt(y), x.le(y), x.gt(0.5), x.ge(y)", ["x:3x4", "y:3x4"]),
    "compare_functions": ("", "return torch.eq(x, y), torch.gt(x, 0), torch.ne(x, y)", ["x:3x4", "y:1x4"]),
    "logical_ops": ("", "a, b = x > 0, y > 0\n        return torch.logical_and(a, b), a.logical_or(b), torch.logical_not(a), a.logical_xor(b)", ["x:3x4", "y:3x4"]),
    "all_any_methods": ("", "m = x > 0\n        return m.all(), m.any(), m.all(dim=1), m.any(-1, keepdim=True), torch.all(m)", ["x:3x4"]),
    # ---- data movement and indexing ----
    "unflatten": ("", "return x.unflatten(1, (2, -1)), torch.unflatten(x, -1, (3, 2))", ["x:4x12x6"]),
    "narrow": ("", "return x.narrow(1, 2, 5), torch.narrow(x, -1, 0, 2)", ["x:3x8x4"]),
    "tile": ("", "return x.tile((2,)), torch.tile(x, (2, 1, 3, 1))", ["x:3x4x5"]),
    "movedim": ("", "return x.movedim(1, -1), torch.movedim(x, (0, 1), (2, 0)), x.moveaxis(0, 1)", ["x:2x3x4"]),
    "broadcast_to": ("", "return x.broadcast_to((5, 3, 4)), torch.broadcast_to(x, (2, 5, 3, 4))", ["x:1x3x4"]),
    "split_with_sizes": ("", "return x.split_with_sizes([2, 5], dim=1)", ["x:3x7"]),
    "tensor_split_sections": ("", "return x.tensor_split(3, dim=1)", ["x:2x8"]),
    "tensor_split_indices": ("", "return torch.tensor_split(x, [1, 5, 20], dim=-1)", ["x:2x8"]),
    "rope_outer_complex_views": ("self.fc = nn.Linear(8, 8)",
                                 "freqs = torch.outer(torch.arange(5).float(), torch.ones(4))\n"
                                 "        xc = torch.view_as_complex(self.fc(x).reshape(2, 5, 4, 2))\n"
                                 "        return freqs, torch.view_as_real(xc).flatten(2)", ["x:2x5x8"]),
    "rope_polar": ("", "freqs = torch.outer(torch.arange(6).float(), 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8)))\n"
                       "        cis = torch.polar(torch.ones_like(freqs), freqs)\n"
                       "        xc = torch.view_as_complex(x.float().reshape(2, 6, 4, 2))\n"
                       "        return torch.view_as_real(xc * cis).flatten(2), torch.complex(x, x)", ["x:2x6x8"]),
    "repeat_interleave": ("", "return x.repeat_interleave(2, dim=1), torch.repeat_interleave(x, 3)", ["x:2x3x4"]),
    "gather": ("", "return x.gather(1, i), torch.gather(x, 0, i[:1])", ["x:3x5", "i:int64:3x2"]),
    "index_select": ("", "return x.index_select(1, i), torch.index_select(x, 0, i)", ["x:4x5", "i:int64:3"]),
    "take_along_dim": ("", "return torch.take_along_dim(x, i, dim=1), x.take_along_dim(i)", ["x:3x5", "i:int64:3x2"]),
    # ---- padding layers, PixelUnshuffle, GLU, one_hot, constructors, functional norms ----
    "reflection_pad2d": ("self.m = nn.ReflectionPad2d((1, 2, 3, 0))", "return self.m(x)", ["x:1x3x8x8"]),
    "zero_pad2d_unbatched": ("self.m = nn.ZeroPad2d(2)", "return self.m(x)", ["x:3x5x6"]),
    "constant_pad1d": ("self.m = nn.ConstantPad1d((2, 1), 0.5)", "return self.m(x)", ["x:2x3x7"]),
    "replication_pad3d": ("self.m = nn.ReplicationPad3d(1)", "return self.m(x)", ["x:1x2x3x4x5"]),
    "circular_pad2d": ("self.m = nn.CircularPad2d((1, 1, 2, 2))", "return self.m(x)", ["x:1x2x4x4"]),
    "pixel_unshuffle": ("self.m = nn.PixelUnshuffle(2)", "return self.m(x), F.pixel_unshuffle(x, 4)", ["x:1x3x8x8"]),
    "glu": ("self.m = nn.GLU()\n        self.fc = nn.Linear(6, 8)", "return self.m(self.fc(x)), F.glu(x, dim=0)", ["x:4x6"]),
    "one_hot": ("", "return F.one_hot(i, num_classes=5), F.one_hot(i, 3).float()", ["i:int64:2x3"]),
    "eye_linspace_logspace": ("", "return x + torch.eye(4), torch.eye(2, 3), torch.linspace(0, 1, steps=7), torch.logspace(0, 2, 5)", ["x:3x4x4"]),
    "f_batch_norm": ("self.w = nn.Parameter(torch.ones(3))\n        self.register_buffer('m', torch.zeros(3))\n        self.register_buffer('v', torch.ones(3))",
                     "return F.batch_norm(x, self.m, self.v, self.w)", ["x:2x3x4x4"]),
    "f_instance_norm": ("", "return F.instance_norm(x)", ["x:2x3x4x4"]),
    "f_group_norm": ("self.w = nn.Parameter(torch.ones(4))\n        self.b = nn.Parameter(torch.zeros(4))",
                     "return F.group_norm(x, 2, self.w, self.b)", ["x:2x4x5"]),
    # ---- cumulative, sorting, scatter, normalize ----
    "cumsum_cumprod": ("", "return x.cumsum(1), torch.cumsum(x, dim=-1), x.cumprod(0)", ["x:3x4"]),
    "sort_values_indices": ("", "s = x.sort(dim=1, descending=True)\n        return s.values, s.indices, torch.sort(x)[0]", ["x:3x5"]),
    "argsort": ("", "return x.argsort(dim=0), torch.argsort(x, -1)", ["x:3x5"]),
    "topk": ("", "v, i = x.topk(2)\n        t = torch.topk(x, 3, dim=0)\n        return v, i, t.values, t.indices", ["x:4x5"]),
    "max_dim_values_indices": ("", "m = x.max(dim=1)\n        return m.values, m.indices, torch.min(x, 0).values", ["x:3x5"]),
    "scatter_family": ("", "return x.scatter(1, i, y), x.scatter_add(1, i, y), torch.index_add(x, 0, i[:2, 0], x[:2] * 2)",
                       ["x:3x5", "i:int64:3x2", "y:3x2"]),
    "f_normalize": ("self.fc = nn.Linear(6, 6)", "return F.normalize(self.fc(x), dim=-1), F.normalize(x)", ["x:4x6"]),
    # ---- recurrent cells ----
    "rnn_cell": ("self.cell = nn.RNNCell(6, 5)", "return self.cell(x)", ["x:3x6"]),
    "gru_cell_with_state": ("self.cell = nn.GRUCell(6, 5)", "h = self.cell(x)\n        return self.cell(x, h)", ["x:3x6"]),
    "lstm_cell_unbatched_no_bias": ("self.cell = nn.LSTMCell(6, 5, bias=False)", "h, c = self.cell(x)\n        return h, c", ["x:6"]),
    # ---- losses inside forward ----
    "cross_entropy_module": ("self.fc = nn.Linear(6, 4)\n        self.loss = nn.CrossEntropyLoss()",
                             "return self.loss(self.fc(x), i[:, 0])", ["x:3x6", "i:int64:3x2"]),
    "f_cross_entropy_none_spatial": ("", "return F.cross_entropy(x, i, reduction='none')", ["x:2x4x3x3", "i:int64:2x3x3"]),
    "mse_l1_losses": ("self.mse = nn.MSELoss(reduction='sum')",
                      "return self.mse(x, y), F.mse_loss(x, y), F.l1_loss(x, y, reduction='none'), nn.SmoothL1Loss()(x, y)",
                      ["x:3x4", "y:3x4"]),
    "bce_kl_nll": ("", "p, q = torch.sigmoid(x), torch.sigmoid(y)\n        return F.binary_cross_entropy(p, q), F.binary_cross_entropy_with_logits(x, q), "
                       "F.kl_div(F.log_softmax(x, -1), y, reduction='batchmean'), F.nll_loss(F.log_softmax(x, 1), i[:, 0])",
                   ["x:3x4", "y:3x4", "i:int64:3x2"]),
}


def _source(init: str, body: str, names: list) -> str:
    return (HEADER + "    def __init__(self):\n        super().__init__()\n"
            + (f"        {init}\n" if init else "") + "\n"
            + f"    def forward(self, {', '.join(names)}):\n        {body}\n")


def _shapes(value) -> list:
    if isinstance(value, torch.Tensor):
        return [list(value.shape)]
    if isinstance(value, (tuple, list)):
        return [s for item in value for s in _shapes(item)]
    return []


def _input(spec: str):
    """``x:2x3`` (float32) or ``ids:int64:2x3``; ``v:5`` a vector, ``s:`` a 0-d tensor."""
    name, _, rest = spec.partition(":")
    dtype, _, dims = rest.rpartition(":")
    shape = [int(d) for d in dims.split("x")] if dims else []
    if dtype == "int64":
        return name, torch.randint(0, 2, shape), {"shape": shape, "dtype": "int64"}  # valid indices in every case
    return name, torch.randn(shape), {"shape": shape, "dtype": "float32"}


def record(name: str, init: str, body: str, inputs: list) -> dict:
    names, tensors, specs = zip(*(_input(s) for s in inputs))
    source = _source(init, body, list(names))
    module = types.ModuleType(f"case_{name}")
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # our own case text, never analysed code
    torch.manual_seed(0)
    model = module.Model()
    with torch.backends.mkldnn.flags(enabled=False), sdpa_kernel(SDPBackend.MATH):
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(*tensors)
    return {"source": source, "inputs": list(specs), "output_shapes": _shapes(out),
            "params": sum(p.numel() for p in model.parameters()),
            "forward_flops": counter.get_total_flops(),
            "flops_by_op": {str(k): v for k, v in counter.get_flop_counts().get("Global", {}).items()},
            "recorded_with": f"torch {torch.__version__}"}


def main() -> int:
    truth = {name: record(name, *case) for name, case in CASES.items()}
    OUT.write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
    print(f"{len(truth)} cases -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
