"""Record PyTorch ground truth for the bundled samples and the tiny test cases.

This is the only place in the repository where torch is imported; staticflops
itself never imports it. The tests read the JSON this script writes.

How to run (from the repository root; torch 2.13.0 installs a CPU build here,
never install plain ``torch``, which pulls several GB of CUDA packages):

    python -m venv /tmp/tvenv && /tmp/tvenv/bin/pip install torch==2.13.0 && /tmp/tvenv/bin/python tools/record_torch.py

Options: ``--only SUBSTRING`` records only matching paths and merges them into
the existing JSON; ``--check`` records everything and exits 1 if the JSON on
disk differs (nothing is written).

What is recorded, per model file (key = path relative to the repo root):

* ``inputs``: list of {"shape": [...], "dtype": "float32" | "int64"}, passed
  positionally to ``forward``. int64 inputs are token ids drawn from
  ``[0, high)`` with a fixed seed (``high`` is in the table below).
* ``output_shapes``: the shapes of the tensors ``forward`` returns; a tuple or
  list output is flattened depth-first (``(out, (h, c))`` gives three shapes),
  non-tensor elements are skipped.
* ``forward_flops``: ``torch.utils.flop_counter.FlopCounterMode`` total for one
  forward pass: 2 FLOPs per multiply-accumulate in mm/addmm/bmm/baddbmm/conv/
  attention; bias adds, norms, activations, pooling, softmax and elementwise
  ops count 0.
* ``flops_by_module``: ``FlopCounterMode.get_flop_counts()`` per module FQN
  (as FlopCounterMode names them: "Global", the root class name, then
  "Root.child.grandchild"), summed over ops; modules with 0 FLOPs are not
  reported by FlopCounterMode and so are absent.
* ``flops_by_op``: the "Global" entry of ``get_flop_counts()`` by aten op.
* ``params`` / ``trainable_params``: sum of ``p.numel()`` over
  ``model.parameters()`` (all / requires_grad only). Buffers are not params.
* ``forward_flops_cpu_default``: what FlopCounterMode reports with the model in
  eval mode under ``torch.no_grad()`` on CPU with default kernels. It is 0 for
  attention (CPU flash SDPA, fused MHA / encoder fast paths) and for LSTM
  (oneDNN), i.e. wrong; kept only to document the trap. null if it raised.
* ``forward_flops_meta``: the same count with model and inputs on the ``meta``
  device (eval mode, no_grad), where no fused CPU kernel is used.
* ``mode``: how ``forward_flops`` / ``flops_by_module`` / ``output_shapes`` were
  obtained. They are always measured on CPU with the SDPA MATH backend and
  oneDNN disabled (``sdpa_kernel(SDPBackend.MATH)`` and
  ``torch.backends.mkldnn.flags(enabled=False)``); the first of these settings
  whose total equals the meta-device total is used:
    1. eval mode, torch.no_grad()
    2. eval mode, grad enabled (nn.MultiheadAttention / TransformerEncoder(Layer)
       take their fused "fast path", which FlopCounterMode counts as 0, only
       when grad is disabled or nothing requires grad)
    3. train mode, torch.no_grad() (all sample / case models use dropout 0.0
       or are shape-identical in train mode)
  If none agrees with the meta device the script fails.

The script is deterministic: fixed seeds, sorted JSON keys, no timestamps.
"""
import argparse
import contextlib
import copy
import importlib.util
import json
import os
import sys
import warnings

# torch warns about a missing NumPy, oneDNN TF32, even-kernel 'same' padding and
# LSTM projections falling back from oneDNN; none of it affects the counts.
warnings.filterwarnings("ignore", category=UserWarning)

import torch  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "torch_ground_truth.json")
CASES_DIR = os.path.join("tests", "fixtures", "torch_cases")


def f32(*shape):
    return {"shape": list(shape), "dtype": "float32"}


def i64(*shape, high=10):
    return {"shape": list(shape), "dtype": "int64", "high": high}


# path -> (class to instantiate with no arguments, inputs)
SAMPLES = {
    "samples/seed_conv_gru.py": ("SeedModel", [f32(1, 1, 100, 256)]),
    "samples/lenet5.py": ("LeNet5", [f32(1, 1, 28, 28)]),
    "samples/resnet50.py": ("ResNet50", [f32(1, 3, 224, 224)]),
    "samples/transformer.py": ("GPT", [i64(1, 64, high=1000)]),
    "samples/mlp.py": ("MLP", [f32(8, 784)]),
    "samples/mobilenet_v2.py": ("MobileNetV2", [f32(1, 3, 224, 224)]),
    # a builder function is called with no arguments like a class
    "samples/gpt_minimal.py": ("gpt_small", [i64(1, 32, high=96)]),
}

# case file name (in tests/fixtures/torch_cases/) -> inputs; the class is always `Model`
CASES = {
    # Linear / Bilinear
    "linear_2d": [f32(25, 16)],
    "linear_3d_input": [f32(2, 10, 32)],
    "linear_4d_input": [f32(2, 3, 4, 6)],
    "linear_no_bias": [f32(4, 16)],
    "mlp_sequential": [f32(4, 20)],
    "frozen_inline": [f32(2, 3, 8, 8)],
    "bilinear": [f32(5, 8), f32(5, 6)],
    # convolutions
    "conv1d_basic": [f32(2, 4, 32)],
    "conv1d_stride_pad_dilation": [f32(1, 4, 50)],
    "conv1d_padding_same": [f32(2, 3, 17)],
    "conv2d_stride_pad": [f32(1, 3, 32, 32)],
    "conv2d_tuple_args": [f32(1, 3, 20, 24)],
    "conv2d_padding_same": [f32(1, 4, 15, 17)],
    "conv2d_padding_same_even_kernel": [f32(1, 4, 15, 16)],
    "conv2d_padding_valid": [f32(1, 4, 16, 16)],
    "conv2d_dilation": [f32(1, 8, 20, 20)],
    "conv2d_groups": [f32(1, 8, 16, 16)],
    "conv2d_depthwise": [f32(1, 16, 16, 16)],
    "conv2d_depthwise_separable": [f32(1, 16, 16, 16)],
    "conv2d_no_bias": [f32(2, 3, 10, 10)],
    "conv3d_basic": [f32(1, 2, 8, 16, 16)],
    "conv3d_groups_no_bias": [f32(1, 4, 5, 9, 9)],
    "conv_transpose1d": [f32(1, 4, 16)],
    "conv_transpose2d_stride_output_padding": [f32(1, 8, 8, 8)],
    "conv_transpose2d_groups": [f32(1, 8, 6, 6)],
    "conv_transpose3d": [f32(1, 4, 4, 6, 6)],
    "conv_bn_relu": [f32(2, 3, 16, 16)],
    "residual_block": [f32(1, 8, 12, 12)],
    "pixel_shuffle": [f32(1, 4, 5, 5)],
    # norms
    "batchnorm1d": [f32(4, 16)],
    "batchnorm1d_3d_input": [f32(2, 8, 10)],
    "batchnorm2d": [f32(2, 8, 7, 7)],
    "batchnorm3d": [f32(1, 4, 3, 5, 5)],
    "layernorm": [f32(2, 10, 32)],
    "layernorm_multi_dim": [f32(2, 10, 32)],
    "groupnorm": [f32(2, 16, 8, 8)],
    "instancenorm2d": [f32(1, 8, 10, 10)],
    # activations
    "act_relu": [f32(3, 5, 12)],
    "act_gelu": [f32(3, 5, 12)],
    "act_silu": [f32(3, 5, 12)],
    "act_tanh": [f32(3, 5, 12)],
    "act_sigmoid": [f32(3, 5, 12)],
    "act_leaky_relu": [f32(3, 5, 12)],
    "act_softmax_last_dim": [f32(3, 5, 12)],
    "act_hardswish": [f32(3, 5, 12)],
    "act_only_relu": [f32(2, 3, 4, 4)],
    # pooling / resampling
    "maxpool1d": [f32(1, 4, 21)],
    "maxpool2d": [f32(1, 3, 16, 16)],
    "maxpool2d_ceil_mode": [f32(1, 3, 16, 16)],
    "maxpool2d_padding": [f32(1, 3, 15, 15)],
    "maxpool3d": [f32(1, 2, 8, 8, 8)],
    "maxpool3d_ceil_mode": [f32(1, 2, 5, 7, 7)],
    "avgpool1d": [f32(1, 4, 20)],
    "avgpool2d": [f32(1, 3, 16, 16)],
    "avgpool2d_ceil_pad": [f32(1, 3, 14, 14)],
    "avgpool3d": [f32(1, 2, 6, 8, 8)],
    "adaptive_avgpool2d": [f32(1, 8, 7, 7)],
    "adaptive_avgpool2d_int_size": [f32(1, 4, 10, 11)],
    "adaptive_avgpool2d_none_dim": [f32(1, 4, 10, 12)],
    "adaptive_maxpool2d": [f32(1, 4, 9, 9)],
    "upsample_nearest": [f32(1, 3, 8, 8)],
    "upsample_bilinear_size": [f32(1, 3, 8, 8)],
    # misc modules
    "dropout": [f32(2, 10)],
    "flatten_module": [f32(2, 3, 4, 5)],
    "flatten_module_dims": [f32(2, 3, 4, 5)],
    "unflatten": [f32(2, 32)],
    "identity": [f32(3, 5)],
    "embedding": [i64(2, 7, high=100)],
    "embedding_bag_mean_classifier": [i64(4, 6, high=50)],
    "frozen_layer": [f32(4, 16)],
    "sequential_ordereddict": [f32(1, 3, 8, 8)],
    "modulelist_loop": [f32(2, 16)],
    # recurrent
    "rnn_seq_first": [f32(5, 3, 10)],
    "rnn_relu_2layer_batch_first": [f32(2, 6, 8)],
    "gru_batch_first": [f32(2, 7, 16)],
    "gru_seq_first": [f32(7, 2, 16)],
    "gru_bidirectional_2layer": [f32(2, 7, 16)],
    "gru_last_step_classifier": [f32(3, 9, 12)],
    "gru_4064_96": [f32(1, 100, 4064)],
    "lstm_basic": [f32(2, 7, 16)],
    "lstm_seq_first_2layer": [f32(7, 2, 16)],
    "lstm_bidirectional": [f32(2, 7, 16)],
    "lstm_proj_size": [f32(2, 7, 16)],
    "lstm_bidirectional_2layer_proj": [f32(2, 7, 16)],
    "lstm_last_hidden_classifier": [i64(4, 10, high=100)],
    "lstm_4064_96": [f32(1, 100, 4064)],
    # attention / transformer layers
    "mha_batch_first_index0": [f32(2, 10, 32)],
    "mha_seq_first_unpack": [f32(10, 2, 32)],
    "mha_returns_weights": [f32(2, 10, 32)],
    "mha_need_weights_false": [f32(2, 10, 32)],
    "mha_cross_attention": [f32(2, 5, 32), f32(2, 12, 32)],
    "transformer_encoder_layer": [f32(2, 10, 32)],
    "transformer_encoder_2layers": [f32(2, 10, 32)],
    "transformer_decoder_layer": [f32(2, 6, 32), f32(2, 10, 32)],
    "sdpa": [f32(1, 2, 8, 16), f32(1, 2, 10, 16), f32(1, 2, 10, 16)],
    "sdpa_causal": [f32(1, 2, 8, 16), f32(1, 2, 8, 16), f32(1, 2, 8, 16)],
    "manual_causal_attention_buffer": [f32(1, 8, 32)],
    # forward-level tensor ops
    "elementwise_broadcast": [f32(2, 3, 4), f32(4)],
    "add_bias_param": [f32(2, 5, 8)],
    "matmul_operator": [f32(5, 8), f32(8, 3)],
    "matmul_2d": [f32(4, 6), f32(6, 3)],
    "matmul_batched": [f32(2, 4, 6), f32(2, 6, 3)],
    "matmul_broadcast_weight": [f32(2, 3, 4, 6)],
    "matmul_broadcast_batch": [f32(2, 1, 4, 6), f32(3, 6, 5)],
    "matmul_matrix_vector": [f32(4, 6), f32(6)],
    "mm": [f32(4, 6), f32(6, 3)],
    "bmm": [f32(3, 4, 6), f32(3, 6, 5)],
    "einsum_attention_scores": [f32(1, 2, 5, 8), f32(1, 2, 7, 8)],
    "einsum_projection": [f32(2, 5, 8)],
    "view_reshape_infer": [f32(2, 3, 4, 5)],
    "flatten_methods": [f32(2, 3, 4, 5)],
    "permute_transpose_contiguous": [f32(2, 3, 4, 5)],
    "squeeze_unsqueeze_expand": [f32(3, 4)],
    "cat_stack": [f32(2, 3, 4), f32(2, 5, 4)],
    "split_chunk": [f32(2, 4, 8)],
    "indexing_slicing": [f32(2, 5, 6)],
    "reductions_keepdim": [f32(2, 3, 4, 5)],
    "functional_softmax": [f32(2, 3, 7)],
    "functional_linear_param": [f32(4, 16)],
    "functional_conv2d_param": [f32(1, 3, 16, 16)],
    "functional_interpolate_scale": [f32(1, 3, 6, 7)],
    "functional_interpolate_size": [f32(1, 3, 6, 7)],
    "functional_relu_gelu": [f32(4, 10)],
}

# Hand-calculated / externally known numbers the recording must reproduce.
EXPECTED = {
    "samples/seed_conv_gru.py": {"forward_flops": 249_809_920, "params": 1_224_032, "output_shapes": [[1, 97, 256]]},
    "samples/resnet50.py": {"forward_flops": 8_178_368_512, "params": 25_557_032, "output_shapes": [[1, 1000]]},
    # 2 * 25 * 16 * 9
    CASES_DIR + "/linear_2d.py": {"forward_flops": 7_200},
    # 2 * T * 3H * (I + H), T=100, H=96, I=4064
    CASES_DIR + "/gru_4064_96.py": {"forward_flops": 239_616_000},
    # 2 * T * 4H * (I + H)
    CASES_DIR + "/lstm_4064_96.py": {"forward_flops": 319_488_000},
    # in-proj 2*20*32*96 + out-proj 2*20*32*32 + QK^T and AV 2 * 2*(8*10*10*8)
    CASES_DIR + "/mha_batch_first_index0.py": {"forward_flops": 189_440},
}

EXACT = "cpu, sdpa_kernel(SDPBackend.MATH) + torch.backends.mkldnn.flags(enabled=False)"
SETTINGS = [
    ("eval", False, EXACT + ", eval mode, torch.no_grad()"),
    ("eval", True, EXACT + ", eval mode, grad enabled (the no_grad fused fast path counts 0)"),
    ("train", False, EXACT + ", train mode (dropout 0.0), torch.no_grad() (the eval fused fast path counts 0)"),
]


def load_module(relpath):
    name = "_recorded_" + relpath.replace("/", "_").replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, relpath))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def make_inputs(specs, device="cpu"):
    gen = torch.Generator().manual_seed(1234)
    tensors = []
    for spec in specs:
        if spec["dtype"] == "float32":
            t = torch.randn(spec["shape"], generator=gen, dtype=torch.float32)
        elif spec["dtype"] == "int64":
            t = torch.randint(0, spec["high"], spec["shape"], generator=gen, dtype=torch.int64)
        else:
            raise ValueError(spec["dtype"])
        tensors.append(t.to(device))
    return tensors


def flatten_tensors(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        result = []
        for item in out:
            result.extend(flatten_tensors(item))
        return result
    return []


def count(model, inputs, train, grad, exact):
    model.train(train)
    with contextlib.ExitStack() as stack:
        if exact:
            stack.enter_context(sdpa_kernel(SDPBackend.MATH))
            stack.enter_context(torch.backends.mkldnn.flags(enabled=False))
        stack.enter_context(torch.enable_grad() if grad else torch.no_grad())
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(*inputs)
    by_module = {}
    by_op = {}
    for fqn, ops in counter.get_flop_counts().items():
        by_module[fqn] = int(sum(ops.values()))
        if fqn == "Global":
            by_op = {str(op): int(n) for op, n in ops.items()}
    shapes = [list(t.shape) for t in flatten_tensors(out)]
    return int(counter.get_total_flops()), by_module, by_op, shapes


def record(relpath, class_name, input_specs):
    module = load_module(relpath)
    cls = getattr(module, class_name)
    torch.manual_seed(0)
    model = cls()
    params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)

    meta_model = copy.deepcopy(model).to("meta")
    meta_total, _, _, meta_shapes = count(meta_model, make_inputs(input_specs, "meta"), False, False, False)

    try:
        default_total = count(copy.deepcopy(model), make_inputs(input_specs), False, False, False)[0]
    except Exception:  # the fused fast paths can raise under FlopCounterMode
        default_total = None

    chosen = None
    tried = []
    for mode_name, grad, description in SETTINGS:
        result = count(copy.deepcopy(model), make_inputs(input_specs), mode_name == "train", grad, True)
        tried.append(result[0])
        if result[0] == meta_total:
            chosen = result + (description,)
            break
    if chosen is None:
        raise RuntimeError(f"{relpath}: no CPU setting agrees with meta ({meta_total}); got {tried}")
    total, by_module, by_op, shapes, description = chosen
    if shapes != meta_shapes:
        raise RuntimeError(f"{relpath}: output shapes differ cpu {shapes} vs meta {meta_shapes}")
    if default_total != total:
        description += f"; plain CPU FlopCounterMode (eval, no_grad, default kernels) reports {default_total}"

    return {
        "class": class_name,
        "inputs": [{"shape": s["shape"], "dtype": s["dtype"]} for s in input_specs],
        "output_shapes": shapes,
        "forward_flops": total,
        "forward_flops_meta": meta_total,
        "forward_flops_cpu_default": default_total,
        "flops_by_module": by_module,
        "flops_by_op": by_op,
        "params": int(params),
        "trainable_params": int(trainable),
        "torch_version": torch.__version__,
        "mode": description,
    }


def all_targets():
    targets = dict((path, spec) for path, spec in SAMPLES.items())
    on_disk = sorted(f[:-3] for f in os.listdir(os.path.join(REPO, CASES_DIR)) if f.endswith(".py"))
    missing = sorted(set(on_disk) - set(CASES))
    stale = sorted(set(CASES) - set(on_disk))
    if missing or stale:
        raise SystemExit(f"input table out of date: no inputs for {missing}; no file for {stale}")
    for name in on_disk:
        targets[f"{CASES_DIR}/{name}.py"] = ("Model", CASES[name])
    return targets


def record_all(record_fn, out, expected, summary, description):
    """The shared driver of the recording scripts: --only / --check, expected values, JSON."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--only", help="record only paths containing this substring (merged into the JSON)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the JSON on disk is out of date")
    args = parser.parse_args()

    torch.set_num_threads(1)
    targets = all_targets()
    if args.only:
        targets = {k: v for k, v in targets.items() if args.only in k}

    results = {}
    if args.only and os.path.exists(out):
        with open(out) as fh:
            results = json.load(fh)
    for relpath, (class_name, inputs) in sorted(targets.items()):
        entry = record_fn(relpath, class_name, inputs)
        for key, value in expected.get(relpath, {}).items():
            if entry[key] != value:
                raise SystemExit(f"{relpath}: {key} = {entry[key]}, expected {value}")
        results[relpath] = entry
        print(f"{relpath}: {summary(entry)}")

    text = json.dumps(results, sort_keys=True, indent=1) + "\n"
    if args.check:
        with open(out) as fh:
            same = fh.read() == text
        print("up to date" if same else "OUT OF DATE: " + out)
        sys.exit(0 if same else 1)
    with open(out, "w") as fh:
        fh.write(text)
    print(f"wrote {len(results)} entries to {os.path.relpath(out, REPO)}")


def main():
    record_all(record, OUT, EXPECTED,
               lambda e: f"flops={e['forward_flops']:,} params={e['params']:,} out={e['output_shapes']}",
               __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
