"""Probe the public op surface of the installed torch (issue 20 item 4): one tiny model per op.

The surface is *enumerated* from the installed framework, not from a hand list:

* ``nn modules``: every class exported by ``torch.nn.modules`` that is an ``nn.Module``;
* ``nn.functional``: every public function of ``torch.nn.functional``;
* ``tensor ops``: the public ``torch.Tensor`` methods and ``torch.*`` functions, after the
  principled exclusions of ``excluded()`` (each with its reason, written to the fixture).

Each op gets one *primary* case and, where it has well-known modes, a few variants.  How an op
is called comes from a recipe (``RECIPES``: constructor arguments, call, inputs) or, for ops
without one, from generic attempts tried in order (``ATTEMPTS``: a float ``2x3x8x8`` tensor, a
``2x8`` one, two of them...).  An op that no recipe and no attempt can call is recorded as
``no recipe``: a gap of the probe, listed in the fixture.  An op whose every successful call
returns no tensor (``x.dim()``, ``torch.is_floating_point``) is listed as ``no tensor``.

Every case is executed with torch (eval mode, no_grad, SDPA MATH kernel, mkldnn off: the
conventions of tools/flop_measure.py and ../shared/research/ground-truth-notes.md) under
FlopCounterMode, and its output shapes (a tuple/list output flattened depth-first, non-tensors
skipped), parameter count and forward FLOPs are written to
``tests/fixtures/coverage/<family>.json``.  tests/test_coverage_probe.py runs every case
through staticflops without torch.

How to run (torch 2.13.0 CPU):

    /work/gt/torch/bin/python tools/record_coverage.py               # every torch family
    /work/gt/torch/bin/python tools/record_coverage.py tensor_ops    # one family (its fixture only)
"""

from __future__ import annotations

import inspect
import json
import signal
import sys
import types
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flop_measure import measure_call  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "coverage"

# The case source convention of tools/record_ops.py: this header, then `class Model` whose
# __init__ holds the case's `init` lines and whose forward returns the case's `call`.
HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\n\nclass Model(nn.Module):\n"


def case_source(init: str, call: str, names: list) -> str:
    body = "".join(f"        {line}\n" for line in init.splitlines())
    return (HEADER + "    def __init__(self):\n        super().__init__()\n" + body + "\n"
            + f"    def forward(self, {', '.join(names)}):\n        return {call}\n")


# Output shapes that depend on the values, not the shapes: no static analyser can know them.
DATA_DEPENDENT = {"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere",
                  "bincount", "histogram", "histogramdd", "combinations"}
DATA_DEPENDENT_REASON = "output shape depends on the tensor's values"

# ---- exclusions: public names that are not ops computing or moving tensor data ----
PLUMBING = {  # dtype/device/storage/autograd/Python-conversion plumbing: moves no data a model costs
    "to", "cpu", "cuda", "xpu", "mps", "ipu", "mtia", "hpu", "type", "type_as", "storage", "untyped_storage",
    "storage_offset", "storage_type", "data_ptr", "element_size", "nbytes", "itemsize", "get_device", "pin_memory",
    "share_memory", "record_stream", "tolist", "item", "numpy", "backward", "register_hook",
    "register_post_accumulate_grad_hook", "retain_grad", "requires_grad", "detach", "set", "apply", "map",
    "map2", "new", "module_load", "dim_order", "stride", "is_contiguous", "contiguous", "clone", "resize",
    "resize_as", "smm", "sspaddmm", "lu_solve", "to_mkldnn", "to_padded_tensor", "bfloat16", "bool", "byte",
    "char", "double", "float", "half", "int", "long", "short", "cdouble", "cfloat", "chalf", "dim", "ndimension",
    "nelement", "numel", "size", "data", "grad", "grad_fn", "output_nr", "names", "align_as", "align_to",
    "refine_names", "rename", "unflatten_names", "as_subclass", "reinforce", "sum_to_size", "new_tensor",
    "from_file", "from_numpy", "frombuffer", "asarray", "as_tensor", "tensor", "as_strided", "as_strided_scatter",
    "set_", "dequantize", "int_repr", "coalesce", "compile", "load", "save", "manual_seed", "seed", "initial_seed",
    "get_rng_state", "set_rng_state", "use_deterministic_algorithms", "typename", "result_type", "can_cast",
    "promote_types", "vmap", "cond", "while_loop", "export", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not",
    "sym_ite", "sym_sum", "sym_fresh_size", "sym_constrain_range", "sym_constrain_range_for_size", "chunk_cat",
    "empty_strided", "empty_permuted", "empty_quantized", "align_tensors", "autocast", "rand_like", "randint_like",
}
RUNTIME = {  # TorchScript, threading and autocast runtime entries
    "fork", "wait", "parse_ir", "import_ir_module", "import_ir_module_from_buffer", "init_num_threads",
    "autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache", "compiled_with_cxx11_abi",
    "merge_type_from_type_comment", "unify_type_list", "parse_type_comment", "parse_schema", "thread_safe_generator",
    "are_deterministic_algorithms_enabled", "broadcast_shapes", "sym_sqrt", "choose_qparams_optimized",
    "fused_moving_avg_obs_fake_quant", "qscheme", "const_data_ptr", "mutable_data_ptr",
}
ATEN_BLOCKS = {  # aten entries behind a public module or functional, probed through that
    "lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "convolution",
    "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "constant_pad_nd", "affine_grid_generator", "segment_reduce",
    "hsmm", "hspmm", "saddmm", "feature_dropout", "embedding_renorm",
}
REMOVED = {"eig", "lstsq", "solve", "symeig"}  # deprecated in 1.9, now raise on any call
PLUMBING_REASON = "dtype/device/storage/autograd plumbing or a Python conversion: no tensor op a model costs"
NAMESPACES = (  # namespaces with their own semantics, outside the probe
    ("sparse", "sparse tensors"), ("coalesce", "sparse tensors"), ("crow_", "sparse tensors"),
    ("ccol_", "sparse tensors"), ("col_indices", "sparse tensors"), ("row_indices", "sparse tensors"),
    ("to_dense", "sparse tensors"), ("indices", "sparse tensors"), ("values", "sparse tensors"),
    ("q_", "quantized tensors"), ("quantize", "quantized tensors"), ("fbgemm", "quantized kernels"),
    ("cudnn", "CUDA-only kernels"), ("miopen", "ROCm-only kernels"), ("mkldnn", "oneDNN-only kernels"),
    ("nested", "nested tensors"), ("_nnz", "sparse tensors"), ("dense_dim", "sparse tensors"),
)


def excluded(name: str, obj) -> str | None:
    """Why a public name is not probed as an op (None: probe it)."""
    if name.startswith("_"):
        return "private"
    if inspect.isclass(obj) or inspect.ismodule(obj) or not callable(obj):
        return "not a function"
    if name.endswith("_") and not name.endswith("__"):
        return "in-place variant: follows its out-of-place kind"
    if name.startswith(("is_", "has_", "get_", "set_")) or name in {"numel", "typename"}:
        return "predicate or getter/setter: returns no tensor"
    if name in PLUMBING:
        return PLUMBING_REASON
    if name in RUNTIME:
        return "TorchScript/threading/autocast runtime entry: no tensor op"
    if name in REMOVED:
        return "removed from torch (raises since 1.9: torch.linalg has the op)"
    if name == "index":
        return "functorch first-class dimensions (binds positions to Dim objects): no tensor op"
    if name in ATEN_BLOCKS:
        return "aten building block of a public module or functional, probed through that"
    if name.endswith("_copy"):
        return "copying variant of a view: follows the view's kind"
    if name.startswith("native_") or name.startswith("batch_norm_") or name.endswith(("_backward", "_forward")):
        return "aten building block of a public op (dispatcher internals)"
    for marker, what in NAMESPACES:
        if marker in name:
            return f"{what}: outside the probe"
    return None


# ---- how to call an op ----
# An attempt/recipe: (init, call, inputs); `{op}` in init/call is replaced by the op's path.
# Inputs: "name:2x3" float32, "name:int64:2x3" (valid indices 0/1).
ATTEMPTS_FUNCTION = [
    ("", "{op}(x)", ["x:2x3x8x8"]),
    ("", "{op}(x)", ["x:2x8"]),
    ("", "{op}(x, y)", ["x:2x8", "y:2x8"]),
    ("", "{op}(x, 1)", ["x:2x8"]),
    ("", "{op}(x, y)", ["x:8x8", "y:8x8"]),
    ("", "{op}(x)", ["x:8"]),
    ("", "{op}(x, y)", ["x:8", "y:8"]),
    ("", "{op}(x, i)", ["x:2x8", "i:int64:2x8"]),
    ("", "{op}(x, y, z)", ["x:2x8", "y:2x8", "z:2x8"]),
    ("", "{op}([x, y])", ["x:2x8", "y:2x8"]),
    ("", "{op}((2, 3))", ["x:2x8"]),
    ("", "{op}(4)", ["x:2x8"]),
    ("", "{op}(x, 0, 1)", ["x:2x8"]),
    ("", "{op}(x, 1, 0, 2)", ["x:2x8"]),
    ("", "{op}(x, 1, i, y)", ["x:2x8", "i:int64:2x8", "y:2x8"]),
    ("", "{op}(x, 1, i[0])", ["x:2x8", "i:int64:2x8"]),
    ("", "{op}(z, x, y)", ["z:8x8", "x:8x8", "y:8x8"]),
    ("", "{op}(z, x, y)", ["z:2x8x8", "x:2x8x8", "y:2x8x8"]),
    ("", "{op}(x, (3, 2, 8))", ["x:2x8"]),
    ("", "{op}(x, 1, (2, 4))", ["x:2x8"]),
    ("", "{op}(x, [3, 5], 1)", ["x:2x8"]),
    ("", "{op}(x > 0, x, y)", ["x:2x8", "y:2x8"]),
    ("", "{op}(i, i)", ["i:int64:2x8"]),
    ("", "{op}(i)", ["i:int64:2x8"]),
    ("", "{op}(x)", ["x:2x8x2"]),
    ("", "{op}(x, 2)", ["x:2x8x8"]),
]
ATTEMPTS_METHOD = [
    ("", "x.{name}()", ["x:2x3x8x8"]),
    ("", "x.{name}()", ["x:2x8"]),
    ("", "x.{name}(y)", ["x:2x8", "y:2x8"]),
    ("", "x.{name}(1)", ["x:2x8"]),
    ("", "x.{name}(y)", ["x:8x8", "y:8x8"]),
    ("", "x.{name}()", ["x:8"]),
    ("", "x.{name}(y)", ["x:8", "y:8"]),
    ("", "x.{name}(1, i)", ["x:2x8", "i:int64:2x8"]),
    ("", "x.{name}((2, 3))", ["x:2x8"]),
    ("", "x.{name}(0, 1)", ["x:2x8"]),
    ("", "x.{name}(1, 0, 2)", ["x:2x8"]),
    ("", "x.{name}(1, i, y)", ["x:2x8", "i:int64:2x8", "y:2x8"]),
    ("", "x.{name}(1, i[0])", ["x:2x8", "i:int64:2x8"]),
    ("", "x.{name}(1, i[0], y)", ["x:2x8", "i:int64:2x8", "y:2x8"]),
    ("", "x.{name}(y, z)", ["x:8x8", "y:8x8", "z:8x8"]),
    ("", "x.{name}(y, z)", ["x:2x8x8", "y:2x8x8", "z:2x8x8"]),
    ("", "x.{name}((3, 2, 8))", ["x:2x8"]),
    ("", "x.{name}(1, (2, 4))", ["x:2x8"]),
    ("", "x.{name}([3, 5], 1)", ["x:2x8"]),
    ("", "x.{name}(x > 0, y)", ["x:2x8", "y:2x8"]),
    ("", "x.{name}(x > 0)", ["x:2x8"]),
    ("", "i.{name}(i)", ["i:int64:2x8"]),
    ("", "i.{name}()", ["i:int64:2x8"]),
    ("", "x.{name}(2)", ["x:2x8x8"]),
]
_DIM = {"1d": "2x3x8", "2d": "2x3x8x8", "3d": "2x3x4x8x8"}


def _module_attempts(name: str) -> list:
    """Generic attempts for an nn Module class: built without arguments or with a channel count
    of 3, called on a tensor of the rank its name says (…1d/2d/3d) or on common shapes."""
    rank = next((shape for suffix, shape in _DIM.items() if name.lower().endswith(suffix)), None)
    shapes = [rank] if rank else ["2x3x8x8", "2x8", "2x3x8"]
    out = []
    for args in ("", "3", "2", "8, 4"):
        for shape in shapes:
            out.append((f"self.m = nn.{name}({args})", "self.m(x)", [f"x:{shape}"]))
    out += [(f"self.m = nn.{name}()", "self.m(x, y)", ["x:2x8", "y:2x8"]),
            (f"self.m = nn.{name}()", "self.m(x, i[:, 0])", ["x:2x8", "i:int64:2x8"]),
            (f"self.m = nn.{name}()", "self.m(x, y, z)", ["x:2x8", "y:2x8", "z:2x8"])]
    return out


def _m(init: str, call: str = "self.m(x)", *inputs: str) -> tuple:
    return (init, call, list(inputs) or ["x:2x3x8x8"])


# Recipes for ops the generic attempts cannot call (or call only in a degenerate way), and
# variants for ops with well-known modes: name -> list of (init, call, inputs); the first is
# the primary case.  Module names are the nn class names; functions `F.x`, `torch.x`, `Tensor.x`.
RECIPES: dict[str, list] = {
    # ---- nn modules ----
    "Conv1d": [_m("self.m = nn.Conv1d(3, 4, 3)", "self.m(x)", "x:2x3x8"),
               _m("self.m = nn.Conv1d(4, 4, 3, stride=2, padding=1, groups=2, bias=False)", "self.m(x)", "x:2x4x9")],
    "Conv2d": [_m("self.m = nn.Conv2d(3, 4, 3)"),
               _m("self.m = nn.Conv2d(3, 6, 3, stride=2, padding=1, dilation=2, groups=3)"),
               _m("self.m = nn.Conv2d(3, 4, 3, padding='same', padding_mode='reflect')")],
    "Conv3d": [_m("self.m = nn.Conv3d(3, 4, 3)", "self.m(x)", "x:2x3x4x8x8")],
    "ConvTranspose1d": [_m("self.m = nn.ConvTranspose1d(3, 4, 3, stride=2)", "self.m(x)", "x:2x3x8")],
    "ConvTranspose2d": [_m("self.m = nn.ConvTranspose2d(3, 4, 3, stride=2)"),
                        _m("self.m = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)"),
                        _m("self.m = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1)", "self.m(x, output_size=[16, 16])")],
    "ConvTranspose3d": [_m("self.m = nn.ConvTranspose3d(3, 4, 3, stride=2)", "self.m(x)", "x:2x3x4x8x8")],
    "LazyConv1d": [_m("self.m = nn.LazyConv1d(4, 3)", "self.m(x)", "x:2x3x8")],
    "LazyConv2d": [_m("self.m = nn.LazyConv2d(4, 3)"),
                   _m("self.m = nn.LazyConv2d(6, 3, stride=2, padding=1, groups=3, bias=False)")],
    "LazyConv3d": [_m("self.m = nn.LazyConv3d(4, 3)", "self.m(x)", "x:2x3x4x8x8")],
    "LazyConvTranspose1d": [_m("self.m = nn.LazyConvTranspose1d(4, 3)", "self.m(x)", "x:2x3x8")],
    "LazyConvTranspose2d": [_m("self.m = nn.LazyConvTranspose2d(4, 3)")],
    "LazyConvTranspose3d": [_m("self.m = nn.LazyConvTranspose3d(4, 3)", "self.m(x)", "x:2x3x4x8x8")],
    "Linear": [_m("self.m = nn.Linear(8, 4)", "self.m(x)", "x:2x8"),
               _m("self.m = nn.Linear(8, 4, bias=False)", "self.m(x)", "x:2x5x8")],
    "LazyLinear": [_m("self.m = nn.LazyLinear(4)", "self.m(x)", "x:2x8")],
    "Bilinear": [_m("self.m = nn.Bilinear(8, 6, 4)", "self.m(x, y)", "x:2x8", "y:2x6")],
    "BatchNorm1d": [_m("self.m = nn.BatchNorm1d(3)", "self.m(x)", "x:2x3x8")],
    "BatchNorm2d": [_m("self.m = nn.BatchNorm2d(3)"), _m("self.m = nn.BatchNorm2d(3, affine=False)")],
    "BatchNorm3d": [_m("self.m = nn.BatchNorm3d(3)", "self.m(x)", "x:2x3x4x8x8")],
    "SyncBatchNorm": [_m("self.m = nn.SyncBatchNorm(3)")],
    "InstanceNorm2d": [_m("self.m = nn.InstanceNorm2d(3)"), _m("self.m = nn.InstanceNorm2d(3, affine=True)")],
    "GroupNorm": [_m("self.m = nn.GroupNorm(3, 6)", "self.m(x)", "x:2x6x4x4")],
    "LayerNorm": [_m("self.m = nn.LayerNorm(8)"), _m("self.m = nn.LayerNorm([8, 8], bias=False)")],
    "RMSNorm": [_m("self.m = nn.RMSNorm(8)"), _m("self.m = nn.RMSNorm([8, 8], elementwise_affine=False)")],
    "LocalResponseNorm": [_m("self.m = nn.LocalResponseNorm(2)")],
    "CrossMapLRN2d": [_m("self.m = nn.CrossMapLRN2d(3)")],
    "MaxPool2d": [_m("self.m = nn.MaxPool2d(2)"), _m("self.m = nn.MaxPool2d(3, stride=2, ceil_mode=True)"),
                  _m("self.m = nn.MaxPool2d(2, return_indices=True)")],
    "AvgPool2d": [_m("self.m = nn.AvgPool2d(2)"), _m("self.m = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True)")],
    "AdaptiveAvgPool2d": [_m("self.m = nn.AdaptiveAvgPool2d(1)"), _m("self.m = nn.AdaptiveAvgPool2d((3, None))")],
    "AdaptiveMaxPool2d": [_m("self.m = nn.AdaptiveMaxPool2d(3)"), _m("self.m = nn.AdaptiveMaxPool2d(2, return_indices=True)")],
    "LPPool1d": [_m("self.m = nn.LPPool1d(2, 2)", "self.m(x)", "x:2x3x8")],
    "LPPool2d": [_m("self.m = nn.LPPool2d(2, 2)"),
                 _m("self.m = nn.LPPool2d(1, 3, stride=2, ceil_mode=True)")],
    "LPPool3d": [_m("self.m = nn.LPPool3d(2, 2)", "self.m(x)", "x:2x3x4x8x8")],
    "FractionalMaxPool2d": [_m("self.m = nn.FractionalMaxPool2d(2, output_size=3)")],
    "FractionalMaxPool3d": [_m("self.m = nn.FractionalMaxPool3d(2, output_size=3)", "self.m(x)", "x:2x3x8x8x8")],
    "LinearCrossEntropyLoss": [_m("self.m = nn.LinearCrossEntropyLoss(8, 10)", "self.m(x, i[:, 0])", "x:2x8", "i:int64:2x8")],
    "MaxUnpool1d": [_m("self.p = nn.MaxPool1d(2, return_indices=True)\nself.m = nn.MaxUnpool1d(2)", "self.m(*self.p(x))", "x:2x3x8")],
    "MaxUnpool2d": [_m("self.p = nn.MaxPool2d(2, return_indices=True)\nself.m = nn.MaxUnpool2d(2)", "self.m(*self.p(x))"),
                    _m("self.p = nn.MaxPool2d(2, return_indices=True)\nself.m = nn.MaxUnpool2d(2)", "self.m(*self.p(x), output_size=[9, 9])", "x:2x3x9x9")],
    "MaxUnpool3d": [_m("self.p = nn.MaxPool3d(2, return_indices=True)\nself.m = nn.MaxUnpool3d(2)", "self.m(*self.p(x))", "x:2x3x4x8x8")],
    "Upsample": [_m("self.m = nn.Upsample(scale_factor=2)"), _m("self.m = nn.Upsample(size=(5, 7), mode='bilinear')"),
                 _m("self.m = nn.Upsample(scale_factor=1.5, mode='bicubic', align_corners=True)")],
    "UpsamplingNearest2d": [_m("self.m = nn.UpsamplingNearest2d(scale_factor=2)")],
    "UpsamplingBilinear2d": [_m("self.m = nn.UpsamplingBilinear2d(scale_factor=2)")],
    "PixelShuffle": [_m("self.m = nn.PixelShuffle(2)", "self.m(x)", "x:2x8x4x4")],
    "PixelUnshuffle": [_m("self.m = nn.PixelUnshuffle(2)")],
    "ChannelShuffle": [_m("self.m = nn.ChannelShuffle(3)", "self.m(x)", "x:2x6x4x4")],
    "Embedding": [_m("self.m = nn.Embedding(10, 4)", "self.m(i)", "i:int64:2x5"),
                  _m("self.m = nn.Embedding(10, 4, padding_idx=0)", "self.m(i)", "i:int64:5")],
    "EmbeddingBag": [_m("self.m = nn.EmbeddingBag(10, 4)", "self.m(i)", "i:int64:2x5"),
                     _m("self.m = nn.EmbeddingBag(10, 4, mode='max')", "self.m(i.flatten(), torch.tensor([0, 3, 6]))", "i:int64:2x5")],
    "RNN": [_m("self.m = nn.RNN(8, 4)", "self.m(x)", "x:5x2x8"),
            _m("self.m = nn.RNN(8, 4, num_layers=2, batch_first=True, bidirectional=True)", "self.m(x)", "x:2x5x8")],
    "LSTM": [_m("self.m = nn.LSTM(8, 4)", "self.m(x)", "x:5x2x8"),
             _m("self.m = nn.LSTM(8, 4, batch_first=True, proj_size=2)", "self.m(x)", "x:2x5x8")],
    "GRU": [_m("self.m = nn.GRU(8, 4)", "self.m(x)", "x:5x2x8"),
            _m("self.m = nn.GRU(8, 4, num_layers=2, bidirectional=True)", "self.m(x)", "x:5x2x8")],
    "RNNCell": [_m("self.m = nn.RNNCell(8, 4)", "self.m(x)", "x:2x8")],
    "LSTMCell": [_m("self.m = nn.LSTMCell(8, 4)", "self.m(x)", "x:2x8")],
    "GRUCell": [_m("self.m = nn.GRUCell(8, 4)", "self.m(x)", "x:2x8")],
    "MultiheadAttention": [_m("self.m = nn.MultiheadAttention(8, 2)", "self.m(x, x, x)", "x:5x2x8"),
                           _m("self.m = nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=4)",
                              "self.m(x, k, v, need_weights=False)", "x:2x5x8", "k:2x7x6", "v:2x7x4")],
    "TransformerEncoderLayer": [_m("self.m = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)", "self.m(x)", "x:5x2x8")],
    "TransformerDecoderLayer": [_m("self.m = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16)", "self.m(x, y)",
                                   "x:5x2x8", "y:7x2x8")],
    "TransformerEncoder": [_m("self.m = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)", "self.m(x)", "x:5x2x8")],
    "TransformerDecoder": [_m("self.m = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)", "self.m(x, y)",
                              "x:5x2x8", "y:7x2x8")],
    "Transformer": [_m("self.m = nn.Transformer(8, 2, 1, 1, 16)", "self.m(x, y)", "x:5x2x8", "y:7x2x8")],
    "Unflatten": [_m("self.m = nn.Unflatten(1, (2, 4))", "self.m(x)", "x:2x8")],
    "Flatten": [_m("self.m = nn.Flatten()"), _m("self.m = nn.Flatten(0, 1)")],
    "Unfold": [_m("self.m = nn.Unfold(2)"), _m("self.m = nn.Unfold(3, padding=1, stride=2)")],
    "Fold": [_m("self.m = nn.Fold((4, 4), 2)", "self.m(x)", "x:2x12x9"),
             _m("self.m = nn.Fold((5, 5), 3, padding=1, stride=2)", "self.m(x)", "x:2x18x9")],
    "Threshold": [_m("self.m = nn.Threshold(0.1, 0.0)")],
    "Softmax": [_m("self.m = nn.Softmax(dim=1)")],
    "LogSoftmax": [_m("self.m = nn.LogSoftmax(dim=1)")],
    "Softmin": [_m("self.m = nn.Softmin(dim=1)")],
    "GLU": [_m("self.m = nn.GLU()", "self.m(x)", "x:2x8")],
    "PReLU": [_m("self.m = nn.PReLU()"), _m("self.m = nn.PReLU(3)")],
    "ZeroPad2d": [_m("self.m = nn.ZeroPad2d(1)"), _m("self.m = nn.ZeroPad2d((1, 2, 0, 3))")],
    "ConstantPad1d": [_m("self.m = nn.ConstantPad1d(1, 0.5)", "self.m(x)", "x:2x3x8")],
    "ConstantPad2d": [_m("self.m = nn.ConstantPad2d(1, 0.5)")],
    "ConstantPad3d": [_m("self.m = nn.ConstantPad3d(1, 0.5)", "self.m(x)", "x:2x3x4x8x8")],
    "CosineSimilarity": [_m("self.m = nn.CosineSimilarity()", "self.m(x, y)", "x:2x8", "y:2x8"),
                         _m("self.m = nn.CosineSimilarity(dim=2)", "self.m(x, y)", "x:2x3x8", "y:1x3x8")],
    "PairwiseDistance": [_m("self.m = nn.PairwiseDistance()", "self.m(x, y)", "x:2x8", "y:2x8"),
                         _m("self.m = nn.PairwiseDistance(p=1.0, keepdim=True)", "self.m(x, y)", "x:2x8", "y:2x8")],
    "CrossEntropyLoss": [_m("self.m = nn.CrossEntropyLoss()", "self.m(x, i[:, 0])", "x:2x8", "i:int64:2x8"),
                         _m("self.m = nn.CrossEntropyLoss(label_smoothing=0.1)", "self.m(x, y.softmax(1))", "x:2x8", "y:2x8")],
    "NLLLoss": [_m("self.m = nn.NLLLoss()", "self.m(x, i[:, 0])", "x:2x8", "i:int64:2x8")],
    "BCELoss": [_m("self.m = nn.BCELoss()", "self.m(x.sigmoid(), y.sigmoid())", "x:2x8", "y:2x8")],
    "MultiLabelMarginLoss": [_m("self.m = nn.MultiLabelMarginLoss()", "self.m(x, i)", "x:2x8", "i:int64:2x8")],
    "MultiMarginLoss": [_m("self.m = nn.MultiMarginLoss()", "self.m(x, i[:, 0])", "x:2x8", "i:int64:2x8")],
    "CTCLoss": [_m("self.m = nn.CTCLoss()", "self.m(x.log_softmax(2), i + 1, torch.full((2,), 5), torch.full((2,), 3))",
                   "x:5x2x4", "i:int64:2x3"),
                _m("self.m = nn.CTCLoss(reduction='none')", "self.m(x.log_softmax(2), i + 1, torch.full((2,), 5), torch.full((2,), 3))", "x:5x2x4", "i:int64:2x3")],
    "AdaptiveLogSoftmaxWithLoss": [_m("self.m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])", "self.m(x, i[:, 0])",
                                      "x:2x8", "i:int64:2x8")],
    "TripletMarginLoss": [_m("self.m = nn.TripletMarginLoss()", "self.m(x, y, z)", "x:2x8", "y:2x8", "z:2x8"),
                          _m("self.m = nn.TripletMarginLoss(swap=True, reduction='none')", "self.m(x, y, z)", "x:2x8", "y:2x8", "z:2x8")],
    "TripletMarginWithDistanceLoss": [_m("self.m = nn.TripletMarginWithDistanceLoss()", "self.m(x, y, z)",
                                         "x:2x8", "y:2x8", "z:2x8")],
    "MarginRankingLoss": [_m("self.m = nn.MarginRankingLoss()", "self.m(x, y, z)", "x:2x8", "y:2x8", "z:2x8")],
    "CosineEmbeddingLoss": [_m("self.m = nn.CosineEmbeddingLoss()", "self.m(x, y, z[:, 0])", "x:2x8", "y:2x8", "z:2x8")],
    "GaussianNLLLoss": [_m("self.m = nn.GaussianNLLLoss()", "self.m(x, y, z.exp())", "x:2x8", "y:2x8", "z:2x8")],
    # ---- nn.functional ----
    "F.conv1d": [("self.w = nn.Parameter(torch.randn(4, 3, 3))", "F.conv1d(x, self.w)", ["x:2x3x8"])],
    "F.conv2d": [("self.w = nn.Parameter(torch.randn(4, 3, 3, 3))", "F.conv2d(x, self.w)", ["x:2x3x8x8"]),
                 ("self.w = nn.Parameter(torch.randn(6, 1, 3, 3))", "F.conv2d(x, self.w, stride=2, padding=1, groups=3)",
                  ["x:2x3x8x8"])],
    "F.conv3d": [("self.w = nn.Parameter(torch.randn(4, 3, 3, 3, 3))", "F.conv3d(x, self.w)", ["x:2x3x4x8x8"])],
    "F.conv_transpose1d": [("self.w = nn.Parameter(torch.randn(3, 4, 3))", "F.conv_transpose1d(x, self.w, stride=2)", ["x:2x3x8"])],
    "F.conv_transpose2d": [("self.w = nn.Parameter(torch.randn(3, 4, 3, 3))", "F.conv_transpose2d(x, self.w, stride=2)", ["x:2x3x8x8"])],
    "F.conv_transpose3d": [("self.w = nn.Parameter(torch.randn(3, 4, 3, 3, 3))", "F.conv_transpose3d(x, self.w)", ["x:2x3x4x8x8"])],
    "F.conv_tbc": [("self.w = nn.Parameter(torch.randn(3, 8, 4))\nself.b = nn.Parameter(torch.zeros(4))",
                    "F.conv_tbc(x, self.w, self.b)", ["x:5x2x8"])],
    "F.linear": [("self.w = nn.Parameter(torch.randn(4, 8))", "F.linear(x, self.w)", ["x:2x8"])],
    "F.bilinear": [("self.w = nn.Parameter(torch.randn(4, 8, 6))", "F.bilinear(x, y, self.w)", ["x:2x8", "y:2x6"])],
    "F.avg_pool1d": [("", "F.avg_pool1d(x, 2)", ["x:2x3x8"])],
    "F.avg_pool2d": [("", "F.avg_pool2d(x, 2)", ["x:2x3x8x8"])],
    "F.avg_pool3d": [("", "F.avg_pool3d(x, 2)", ["x:2x3x4x8x8"])],
    "F.max_pool1d": [("", "F.max_pool1d(x, 2)", ["x:2x3x8"])],
    "F.max_pool2d": [("", "F.max_pool2d(x, 2)", ["x:2x3x8x8"]), ("", "F.max_pool2d(x, 2, return_indices=True)", ["x:2x3x8x8"])],
    "F.max_pool3d": [("", "F.max_pool3d(x, 2)", ["x:2x3x4x8x8"])],
    "F.lp_pool1d": [("", "F.lp_pool1d(x, 2, 2)", ["x:2x3x8"])],
    "F.lp_pool2d": [("", "F.lp_pool2d(x, 2, 2)", ["x:2x3x8x8"])],
    "F.lp_pool3d": [("", "F.lp_pool3d(x, 2, 2)", ["x:2x3x4x8x8"])],
    "F.adaptive_avg_pool1d": [("", "F.adaptive_avg_pool1d(x, 3)", ["x:2x3x8"])],
    "F.adaptive_avg_pool2d": [("", "F.adaptive_avg_pool2d(x, 3)", ["x:2x3x8x8"])],
    "F.adaptive_avg_pool3d": [("", "F.adaptive_avg_pool3d(x, 2)", ["x:2x3x4x8x8"])],
    "F.adaptive_max_pool1d": [("", "F.adaptive_max_pool1d(x, 3)", ["x:2x3x8"])],
    "F.adaptive_max_pool2d": [("", "F.adaptive_max_pool2d(x, 3)", ["x:2x3x8x8"])],
    "F.adaptive_max_pool3d": [("", "F.adaptive_max_pool3d(x, 2)", ["x:2x3x4x8x8"])],
    "F.fractional_max_pool2d": [("", "F.fractional_max_pool2d(x, 2, output_size=3)", ["x:2x3x8x8"]),
                                ("", "F.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5), return_indices=True)", ["x:2x3x8x8"])],
    "F.fractional_max_pool3d": [("", "F.fractional_max_pool3d(x, 2, output_size=3)", ["x:2x3x8x8x8"])],
    "F.max_unpool1d": [("", "F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2)", ["x:2x3x8"])],
    "F.max_unpool2d": [("", "F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2)", ["x:2x3x8x8"]),
                       ("", "F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, output_size=[9, 9])", ["x:2x3x9x9"])],
    "F.max_unpool3d": [("", "F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2)", ["x:2x3x4x8x8"])],
    "F.batch_norm": [("", "F.batch_norm(x, torch.zeros(3), torch.ones(3))", ["x:2x3x8x8"])],
    "F.instance_norm": [("", "F.instance_norm(x)", ["x:2x3x8x8"])],
    "F.layer_norm": [("", "F.layer_norm(x, [8])", ["x:2x3x8x8"])],
    "F.rms_norm": [("", "F.rms_norm(x, [8])", ["x:2x3x8x8"])],
    "F.group_norm": [("", "F.group_norm(x, 3)", ["x:2x3x8x8"])],
    "F.local_response_norm": [("", "F.local_response_norm(x, 2)", ["x:2x3x8x8"])],
    "F.embedding": [("self.w = nn.Parameter(torch.randn(10, 4))", "F.embedding(i, self.w)", ["i:int64:2x5"])],
    "F.embedding_bag": [("self.w = nn.Parameter(torch.randn(10, 4))", "F.embedding_bag(i, self.w)", ["i:int64:2x5"]),
                        ("self.w = nn.Parameter(torch.randn(10, 4))", "F.embedding_bag(i.flatten(), self.w, torch.tensor([0, 3, 6]), include_last_offset=True, mode='sum')", ["i:int64:2x5"])],
    "F.one_hot": [("", "F.one_hot(i, 5)", ["i:int64:2x5"])],
    "F.softmax": [("", "F.softmax(x, dim=1)", ["x:2x3x8x8"])],
    "F.log_softmax": [("", "F.log_softmax(x, dim=1)", ["x:2x3x8x8"])],
    "F.softmin": [("", "F.softmin(x, dim=1)", ["x:2x3x8x8"])],
    "F.gumbel_softmax": [("", "F.gumbel_softmax(x)", ["x:2x8"]),
                         ("", "F.gumbel_softmax(x, tau=0.5, hard=True)", ["x:2x8"])],
    "F.glu": [("", "F.glu(x)", ["x:2x8"])],
    "F.prelu": [("", "F.prelu(x, torch.full((1,), 0.25))", ["x:2x3x8x8"])],
    "F.threshold": [("", "F.threshold(x, 0.1, 0.0)", ["x:2x3x8x8"])],
    "F.pixel_shuffle": [("", "F.pixel_shuffle(x, 2)", ["x:2x8x4x4"])],
    "F.pixel_unshuffle": [("", "F.pixel_unshuffle(x, 2)", ["x:2x3x8x8"])],
    "F.channel_shuffle": [("", "F.channel_shuffle(x, 3)", ["x:2x6x4x4"])],
    "F.interpolate": [("", "F.interpolate(x, scale_factor=2)", ["x:2x3x8x8"]),
                      ("", "F.interpolate(x, size=(5, 7), mode='bilinear', align_corners=False)", ["x:2x3x8x8"]),
                      ("", "F.interpolate(x, scale_factor=0.5, mode='area')", ["x:2x3x8x8"]),
                      ("", "F.interpolate(x, size=12, mode='linear')", ["x:2x3x8"])],
    "F.upsample": [("", "F.upsample(x, scale_factor=2)", ["x:2x3x8x8"])],
    "F.upsample_nearest": [("", "F.upsample_nearest(x, scale_factor=2)", ["x:2x3x8x8"])],
    "F.upsample_bilinear": [("", "F.upsample_bilinear(x, scale_factor=2)", ["x:2x3x8x8"])],
    "F.grid_sample": [("", "F.grid_sample(x, g, align_corners=False)", ["x:2x3x8x8", "g:2x5x6x2"]),
                      ("", "F.grid_sample(x, g, mode='nearest', padding_mode='border', align_corners=True)", ["x:2x3x8x8", "g:2x5x6x2"])],
    "F.affine_grid": [("", "F.affine_grid(t, [2, 3, 5, 6], align_corners=False)", ["t:2x2x3"]),
                      ("", "F.affine_grid(t, [2, 3, 4, 5, 6], align_corners=False)", ["t:2x3x4"])],
    "F.pad": [("", "F.pad(x, (1, 2))", ["x:2x3x8x8"]), ("", "F.pad(x, (1, 1, 2, 2), mode='reflect')", ["x:2x3x8x8"]),
              ("", "F.pad(x, (1, 1, 1, 1), value=0.5)", ["x:2x3x8x8"])],
    "F.unfold": [("", "F.unfold(x, 2)", ["x:2x3x8x8"]),
                 ("", "F.unfold(x, (2, 3), dilation=2, padding=1, stride=(1, 2))", ["x:2x3x8x8"])],
    "F.fold": [("", "F.fold(x, (4, 4), 2)", ["x:2x12x9"])],
    "F.normalize": [("", "F.normalize(x)", ["x:2x3x8x8"]), ("", "F.normalize(x, p=1, dim=-1)", ["x:2x8"])],
    "F.pdist": [("", "F.pdist(x)", ["x:4x8"])],
    "F.scaled_dot_product_attention": [
        ("", "F.scaled_dot_product_attention(q, k, v)", ["q:2x2x5x8", "k:2x2x7x8", "v:2x2x7x4"]),
        ("", "F.scaled_dot_product_attention(q, k, v, is_causal=True)", ["q:2x2x5x8", "k:2x2x5x8", "v:2x2x5x8"]),
        ("", "F.scaled_dot_product_attention(q, k, v, enable_gqa=True)", ["q:1x8x5x16", "k:1x2x7x16", "v:1x2x7x12"])],
    "F.multi_head_attention_forward": [
        ("self.w = nn.Parameter(torch.randn(24, 8))\nself.o = nn.Parameter(torch.randn(8, 8))",
         "F.multi_head_attention_forward(x, x, x, 8, 2, self.w, None, None, None, False, 0.0, self.o, None, training=False)",
         ["x:5x2x8"])],
    "F.cross_entropy": [("", "F.cross_entropy(x, i[:, 0])", ["x:2x8", "i:int64:2x8"]),
                        ("", "F.cross_entropy(x, i, reduction='none')", ["x:2x4x3x3", "i:int64:2x3x3"])],
    "F.nll_loss": [("", "F.nll_loss(x, i[:, 0])", ["x:2x8", "i:int64:2x8"])],
    "F.binary_cross_entropy": [("", "F.binary_cross_entropy(x.sigmoid(), y.sigmoid())", ["x:2x8", "y:2x8"])],
    "F.multilabel_margin_loss": [("", "F.multilabel_margin_loss(x, i)", ["x:2x8", "i:int64:2x8"])],
    "F.multi_margin_loss": [("", "F.multi_margin_loss(x, i[:, 0])", ["x:2x8", "i:int64:2x8"])],
    "F.ctc_loss": [("", "F.ctc_loss(x.log_softmax(2), i + 1, torch.full((2,), 5), torch.full((2,), 3))",
                    ["x:5x2x4", "i:int64:2x3"])],
    "F.gaussian_nll_loss": [("", "F.gaussian_nll_loss(x, y, z.exp())", ["x:2x8", "y:2x8", "z:2x8"])],
    "F.cosine_embedding_loss": [("", "F.cosine_embedding_loss(x, y, z[:, 0])", ["x:2x8", "y:2x8", "z:2x8"])],
    "F.linear_cross_entropy": [("self.w = nn.Parameter(torch.randn(10, 8))", "F.linear_cross_entropy(x, self.w, i[:, 0])",
                                ["x:2x8", "i:int64:2x8"])],
    # ---- tensor methods / torch functions needing arguments ----
    "torch.matmul": [("", "torch.matmul(x, y)", ["x:2x5x8", "y:8x4"])],
    "torch.bmm": [("", "torch.bmm(x, y)", ["x:2x5x8", "y:2x8x4"])],
    "torch.mm": [("", "torch.mm(x, y)", ["x:5x8", "y:8x4"])],
    "torch.einsum": [("", "torch.einsum('bij,bjk->bik', x, y)", ["x:2x5x8", "y:2x8x4"])],
    "torch.addmm": [("", "torch.addmm(z, x, y)", ["z:4", "x:5x8", "y:8x4"])],
    "torch.baddbmm": [("", "torch.baddbmm(z, x, y)", ["z:2x5x4", "x:2x5x8", "y:2x8x4"])],
    "torch.cat": [("", "torch.cat([x, y], dim=1)", ["x:2x8", "y:2x3"])],
    "torch.stack": [("", "torch.stack([x, y])", ["x:2x8", "y:2x8"])],
    "torch.where": [("", "torch.where(x > 0, x, y)", ["x:2x8", "y:2x8"])],
    "torch.arange": [("", "torch.arange(6)", ["x:2x8"]), ("", "torch.arange(1, 10, 2)", ["x:2x8"])],
    "torch.zeros": [("", "torch.zeros(2, 3)", ["x:2x8"])],
    "torch.ones": [("", "torch.ones(2, 3)", ["x:2x8"])],
    "torch.full": [("", "torch.full((2, 3), 1.5)", ["x:2x8"])],
    "torch.eye": [("", "torch.eye(4)", ["x:2x8"])],
    "torch.linspace": [("", "torch.linspace(0, 1, 5)", ["x:2x8"])],
    "torch.logspace": [("", "torch.logspace(0, 1, 5)", ["x:2x8"])],
    "Tensor.view": [("", "x.view(2, 4, 2)", ["x:2x8"]), ("", "x.view(-1)", ["x:2x8"])],
    "Tensor.reshape": [("", "x.reshape(4, -1)", ["x:2x8"])],
    "Tensor.permute": [("", "x.permute(0, 2, 3, 1)", ["x:2x3x8x8"])],
    "Tensor.expand": [("", "x.expand(3, 2, 8)", ["x:2x8"])],
    "Tensor.repeat": [("", "x.repeat(2, 3)", ["x:2x8"])],
    "Tensor.transpose": [("", "x.transpose(0, 1)", ["x:2x8"])],
    "Tensor.flatten": [("", "x.flatten(1)", ["x:2x3x8x8"])],
    "Tensor.softmax": [("", "x.softmax(-1)", ["x:2x8"])],
    "Tensor.sum": [("", "x.sum()", ["x:2x8"]), ("", "x.sum(dim=1, keepdim=True)", ["x:2x8"])],
    "Tensor.mean": [("", "x.mean()", ["x:2x8"]), ("", "x.mean((2, 3))", ["x:2x3x8x8"])],
    "Tensor.max": [("", "x.max()", ["x:2x8"]), ("", "x.max(dim=1)", ["x:2x8"])],
    "Tensor.topk": [("", "x.topk(3)", ["x:2x8"])],
    "Tensor.chunk": [("", "x.chunk(2, dim=1)", ["x:2x8"])],
    "Tensor.split": [("", "x.split(3, dim=1)", ["x:2x8"])],
    "Tensor.masked_fill": [("", "x.masked_fill(x > 0, 0.0)", ["x:2x8"])],
    "Tensor.index_select": [("", "x.index_select(1, i[0])", ["x:2x8", "i:int64:2x8"])],
    "Tensor.gather": [("", "x.gather(1, i)", ["x:2x8", "i:int64:2x8"])],
    "torch.gather": [("", "torch.gather(x, 1, i)", ["x:2x8", "i:int64:2x8"])],
    "torch.flip": [("", "torch.flip(x, (1,))", ["x:2x8"])],
    "torch.permute": [("", "torch.permute(x, (1, 0))", ["x:2x8"])],
    "torch.reshape": [("", "torch.reshape(x, (4, 4))", ["x:2x8"])],
    "torch.masked_fill": [("", "torch.masked_fill(x, x > 0, 0.0)", ["x:2x8"])],
    "torch.index_add": [("", "torch.index_add(x, 1, i[0], y)", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "Tensor.bmm": [("", "x.bmm(y)", ["x:2x5x8", "y:2x8x4"])],
    "Tensor.mv": [("", "x.mv(v)", ["x:5x8", "v:8"])],
    "torch.mv": [("", "torch.mv(x, v)", ["x:5x8", "v:8"])],
    "Tensor.cross": [("", "x.cross(y, dim=1)", ["x:2x3", "y:2x3"])],
    "torch.cross": [("", "torch.cross(x, y, dim=1)", ["x:2x3", "y:2x3"])],
    "torch.range": [("", "torch.range(0, 4)", ["x:2x8"])],
    "torch.randint": [("", "torch.randint(0, 5, (2, 3))", ["x:2x8"])],
    "torch.imag": [("", "torch.imag(torch.view_as_complex(x))", ["x:2x8x2"])],
    "torch.view_as_real": [("", "torch.view_as_real(torch.view_as_complex(x))", ["x:2x8x2"])],
    "torch.polygamma": [("", "torch.polygamma(1, x)", ["x:2x8"])],
    "Tensor.polygamma": [("", "x.polygamma(1)", ["x:2x8"])],
    "Tensor.index_fill": [("", "x.index_fill(1, i[0], 0.0)", ["x:2x8", "i:int64:2x8"])],
    "torch.index_fill": [("", "torch.index_fill(x, 1, i[0], 0.0)", ["x:2x8", "i:int64:2x8"])],
    "Tensor.select_scatter": [("", "x.select_scatter(y[:, 0], 1, 0)", ["x:2x8", "y:2x8"])],
    "torch.select_scatter": [("", "torch.select_scatter(x, y[:, 0], 1, 0)", ["x:2x8", "y:2x8"])],
    "Tensor.stft": [("", "x.stft(4, return_complex=True)", ["x:2x16"])],
    "torch.stft": [("", "torch.stft(x, 4, return_complex=True)", ["x:2x16"])],
    "Tensor.prelu": [("", "x.prelu(torch.full((1,), 0.25))", ["x:2x3x8x8"])],
    "Tensor.addr": [("", "x.addr(u, v)", ["x:2x8", "u:2", "v:8"])],
    "torch.addr": [("", "torch.addr(x, u, v)", ["x:2x8", "u:2", "v:8"])],
    "Tensor.multinomial": [("", "x.softmax(1).multinomial(2)", ["x:2x8"])],
    "torch.multinomial": [("", "torch.multinomial(x.softmax(1), 2)", ["x:2x8"])],
    "torch.poisson": [("", "torch.poisson(x.exp())", ["x:2x8"])],
    "Tensor.scatter_reduce": [("", "x.scatter_reduce(1, i, y, 'sum')", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "torch.scatter_reduce": [("", "torch.scatter_reduce(x, 1, i, y, 'amax')", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "Tensor.masked_scatter": [("", "x.masked_scatter(x > 0, y)", ["x:2x8", "y:2x8"])],
    "torch.masked_scatter": [("", "torch.masked_scatter(x, x > 0, y)", ["x:2x8", "y:2x8"])],
    "Tensor.diagonal_scatter": [("", "x.diagonal_scatter(y[0])", ["x:8x8", "y:8x8"])],
    "torch.diagonal_scatter": [("", "torch.diagonal_scatter(x, y[0])", ["x:8x8", "y:8x8"])],
    "Tensor.masked_select": [("", "x.masked_select(x > 0)", ["x:2x8"])],
    "torch.masked_select": [("", "torch.masked_select(x, x > 0)", ["x:2x8"])],
    "Tensor.bincount": [("", "i[0].bincount()", ["i:int64:2x8"])],
    "torch.bincount": [("", "torch.bincount(i[0])", ["i:int64:2x8"])],
    # ops the generic attempts cannot call (issue 20, tensor ops)
    "Tensor.addbmm": [("", "x.addbmm(y, z)", ["x:5x4", "y:2x5x8", "z:2x8x4"])],
    "torch.addbmm": [("", "torch.addbmm(x, y, z)", ["x:5x4", "y:2x5x8", "z:2x8x4"])],
    "Tensor.addmv": [("", "x.addmv(y, v)", ["x:5", "y:5x8", "v:8"])],
    "torch.addmv": [("", "torch.addmv(x, y, v)", ["x:5", "y:5x8", "v:8"])],
    "Tensor.cholesky": [("", "(x @ x.mT + 8 * torch.eye(8)).cholesky()", ["x:8x8"])],
    "torch.cholesky": [("", "torch.cholesky(x @ x.mT + 8 * torch.eye(8))", ["x:8x8"])],
    "Tensor.index_put": [("", "x.index_put((i[0],), y[0])", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "torch.index_put": [("", "torch.index_put(x, (i[0],), y[0])", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "Tensor.index_reduce": [("", "x.index_reduce(1, i[0], y, 'amax')", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "torch.index_reduce": [("", "torch.index_reduce(x, 1, i[0], y, 'prod')", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "Tensor.istft": [("", "torch.stft(x, 4, return_complex=True).istft(4)", ["x:2x16"])],
    "torch.istft": [("", "torch.istft(torch.stft(x, 4, return_complex=True), 4)", ["x:2x16"])],
    "Tensor.new_empty_strided": [("", "x.new_empty_strided((2, 3), (3, 1))", ["x:2x8"])],
    "Tensor.nonzero_static": [("", "x.nonzero_static(size=4)", ["x:2x8"])],
    "torch.nonzero_static": [("", "torch.nonzero_static(x, size=4)", ["x:2x8"])],
    "Tensor.orgqr": [("", "x.orgqr(v)", ["x:8x8", "v:8"])],
    "torch.orgqr": [("", "torch.orgqr(x, v)", ["x:8x8", "v:8"])],
    "Tensor.ormqr": [("", "x.ormqr(v, y)", ["x:8x8", "v:8", "y:8x4"])],
    "torch.ormqr": [("", "torch.ormqr(x, v, y)", ["x:8x8", "v:8", "y:8x4"])],
    "Tensor.put": [("", "x.put(i[0], y[0])", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "torch.put": [("", "torch.put(x, i[0], y[0])", ["x:2x8", "i:int64:2x8", "y:2x8"])],
    "torch.lu_unpack": [("", "torch.lu_unpack(*torch.lu(x))", ["x:8x8"])],
    "torch.unravel_index": [("", "torch.unravel_index(i, (4, 4))", ["i:int64:2x8"])],
}


def _tensor(spec: str):
    """``x:2x3`` (float32) or ``ids:int64:2x3``; ``v:8`` a vector."""
    name, _, rest = spec.partition(":")
    dtype, _, dims = rest.rpartition(":")
    shape = [int(d) for d in dims.split("x")] if dims else []
    if dtype == "int64":
        return name, torch.randint(0, 2, shape)
    return name, torch.randn(shape)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def run_case(init: str, call: str, inputs: list, name: str) -> dict:
    """Execute one case; its record, or raise what torch raised."""
    names, tensors = zip(*(_tensor(s) for s in inputs))
    source = case_source(init, call, list(names))
    module = types.ModuleType("case")
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # our own generated case text
    torch.manual_seed(0)
    signal.alarm(10)
    try:
        model = module.Model()
        measured = measure_call(model, tensors)
    finally:
        signal.alarm(0)
    if not measured["output_shapes"]:
        raise TypeError("returns no tensor")
    return {"init": init, "call": call, "inputs": list(inputs), **measured}


def probe(op: str, recipes: list, attempts: list) -> tuple[list, str | None]:
    """The cases of one op: its recipes (each variant), else the first generic attempt that runs.
    With no case: the reason (``no recipe`` or ``no tensor``)."""
    cases, failures = [], []
    for index, (init, call, inputs) in enumerate(recipes):
        try:
            cases.append({"op": op, "variant": index, **run_case(init, call, inputs, op)})
        except Exception as error:  # noqa: BLE001 - a recipe that does not run is reported
            print(f"recipe failed: {op} {call}: {type(error).__name__}: {str(error)[:120]}", file=sys.stderr)
    if cases:
        return cases, None
    no_tensor = False
    for init, call, inputs in attempts:
        try:
            return [{"op": op, "variant": 0, **run_case(init, call, inputs, op)}], None
        except TypeError as error:
            no_tensor = no_tensor or str(error) == "returns no tensor"
            failures.append(error)
        except Exception as error:  # noqa: BLE001 - the next attempt
            failures.append(error)
    return [], "no tensor" if no_tensor else "no recipe"


def _fill(template: tuple, **names) -> tuple:
    init, call, inputs = template
    return init.format(**names), call.format(**names), inputs


def surface() -> dict:
    """family -> [(op, recipes, attempts)] and family -> {name: exclusion reason}."""
    families: dict = {"nn_modules": [], "nn_functional": [], "tensor_ops": []}
    out: dict = {family: {} for family in families}
    containers = {"Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Container"}
    for name in sorted(nn.modules.__all__):
        cls = getattr(nn.modules, name)
        if not (inspect.isclass(cls) and issubclass(cls, nn.Module)):
            out["nn_modules"][name] = "not an nn.Module"
        elif name in containers:
            out["nn_modules"][name] = "container: its children are the ops"
        elif name.endswith("Base"):
            out["nn_modules"][name] = "base class of the recurrent modules, not built by models"
        else:
            families["nn_modules"].append((name, RECIPES.get(name, []), _module_attempts(name)))
    for name, obj in sorted(vars(F).items()):
        reason = excluded(name, obj)
        if reason is None and name in {"Optional", "boolean_dispatch", "handle_torch_function", "assert_int_or_pair"} \
                or reason is None and name.startswith("has_torch_function"):
            reason = "helper of the module, not an op"
        if reason is None and name.endswith("_with_indices"):
            reason = "the `return_indices=True` form of its pool: probed as that pool's variant"
        if reason is None and name in {"grouped_mm", "scaled_mm", "scaled_grouped_mm"}:
            reason = "CUDA-only low-precision kernel"
        if reason and reason not in ("private", "not a function"):
            out["nn_functional"][name] = reason
        if reason:
            continue
        families["nn_functional"].append((f"F.{name}", RECIPES.get(f"F.{name}", []),
                                          [_fill(a, op=f"F.{name}") for a in ATTEMPTS_FUNCTION]))
    for name in sorted(dir(torch.Tensor)):
        reason = excluded(name, getattr(torch.Tensor, name, None))
        if reason and reason not in ("private", "not a function"):
            out["tensor_ops"][f"Tensor.{name}"] = reason
        if reason:
            continue
        families["tensor_ops"].append((f"Tensor.{name}", RECIPES.get(f"Tensor.{name}", []),
                                       [_fill(a, name=name) for a in ATTEMPTS_METHOD]))
    for name in sorted(dir(torch)):
        obj = getattr(torch, name, None)
        reason = excluded(name, obj)
        if reason is None and not (inspect.isbuiltin(obj) or inspect.isfunction(obj)):
            reason = "not a function"
        if reason is None and name in vars(F):
            reason = f"same op as F.{name} (probed there)"
        if reason is None and getattr(obj, "__module__", "") not in ("torch", "torch.functional", "torch._C._VariableFunctions",
                                                                     None, "torch.random", "torch.serialization"):
            reason = f"helper from {getattr(obj, '__module__', '?')}, not a tensor op"
        if reason and reason not in ("private", "not a function"):
            out["tensor_ops"][f"torch.{name}"] = reason
        if reason:
            continue
        families["tensor_ops"].append((f"torch.{name}", RECIPES.get(f"torch.{name}", []),
                                       [_fill(a, op=f"torch.{name}") for a in ATTEMPTS_FUNCTION]))
    return families, out


def main(argv: list) -> int:
    """Record every torch family, or only those named (``record_coverage.py tensor_ops``)."""
    warnings.filterwarnings("ignore")
    signal.signal(signal.SIGALRM, _alarm)
    families, excluded_by_family = surface()
    OUT.mkdir(parents=True, exist_ok=True)
    for family, ops in families.items():
        if argv and family not in argv:
            continue
        cases, gaps = [], {}
        for op, recipes, attempts in ops:
            found, gap = probe(op, recipes, attempts)
            short = op.split(".")[-1]
            if found and short in DATA_DEPENDENT:
                for case in found:
                    case["out_of_scope"] = DATA_DEPENDENT_REASON
            cases += found
            if gap:
                gaps[op] = gap
        fixture = {"recorded_with": f"torch {torch.__version__}", "header": HEADER,
                   "cases": cases, "gaps": gaps, "excluded": excluded_by_family[family]}
        (OUT / f"{family}.json").write_text(json.dumps(fixture, indent=0, sort_keys=True) + "\n")
        print(f"{family}: {len(cases)} cases of {len({c['op'] for c in cases})} ops, {len(gaps)} gaps, "
              f"{len(excluded_by_family[family])} excluded")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
