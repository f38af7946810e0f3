"""Record ground truth for Hugging Face transformers models: torch 2.13.0 CPU + transformers 5.23.0.

Only tools/ scripts import torch; tests/test_transformers.py reads the JSON this writes
(tests/fixtures/transformers_ground_truth.json), together with the configs below (written into
the fixture), so the tests need neither torch nor the network for the numbers.

Conventions (as tools/record_torch.py): the model built from its config with
``attn_implementation="eager"`` and ``use_cache=False`` (mixture-of-experts layers with
``experts_implementation="eager"``: the per-expert loop, which FlopCounterMode sees; the default
grouped GEMM is invisible to it), eval mode under ``torch.no_grad()``, SDPA MATH backend and oneDNN
off; FlopCounterMode's forward total; params = sum of p.numel() over model.parameters() (tied
weights once).  Published sizes too big for CPU are built on the ``meta`` device (see
measure_on_meta for the two patches that needs, checked against the CPU route on small configs).

How to run (repository root):

    /work/gt/torch/bin/python tools/record_transformers.py    # torch==2.13.0 (CPU), transformers==5.23.0
"""
import json
import os
import warnings

warnings.filterwarnings("ignore")  # oneDNN TF32 notices, transformers' deprecation notes; no effect on counts

import torch  # noqa: E402
import transformers  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "transformers_ground_truth.json")

# Small configs: name -> (config.json contents, [(forward argument, shape, dtype)]).
# Each dict is what a config.json holds (model_type + architectures + fields).
SMALL = {
    "llama": ({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 1000,
               "hidden_size": 64, "intermediate_size": 176, "num_hidden_layers": 2, "num_attention_heads": 4,
               "num_key_value_heads": 2, "max_position_embeddings": 128, "tie_word_embeddings": False},
              [("input_ids", [1, 32], "int64")]),
    "gpt2": ({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 1000, "n_positions": 128,
              "n_embd": 64, "n_layer": 2, "n_head": 4, "bos_token_id": 0, "eos_token_id": 0},
             [("input_ids", [1, 32], "int64")]),
    "bert": ({"model_type": "bert", "architectures": ["BertModel"], "vocab_size": 1000, "hidden_size": 64,
              "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 256,
              "max_position_embeddings": 128},
             [("input_ids", [1, 32], "int64")]),
    "mistral": ({"model_type": "mistral", "architectures": ["MistralForCausalLM"], "vocab_size": 1000,
                 "hidden_size": 64, "intermediate_size": 176, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "max_position_embeddings": 128, "sliding_window": 16},
                [("input_ids", [1, 32], "int64")]),
    "t5": ({"model_type": "t5", "architectures": ["T5ForConditionalGeneration"], "vocab_size": 1000,
            "d_model": 64, "d_kv": 16, "d_ff": 128, "num_layers": 2, "num_decoder_layers": 2, "num_heads": 4,
            "decoder_start_token_id": 0},
           [("input_ids", [1, 32], "int64"), ("attention_mask", [1, 32], "int64"),
            ("decoder_input_ids", [1, 32], "int64")]),
    "whisper": ({"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"], "vocab_size": 1000,
                 "num_mel_bins": 80, "d_model": 64, "encoder_layers": 2, "decoder_layers": 2,
                 "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 128,
                 "decoder_ffn_dim": 128, "max_source_positions": 1500, "max_target_positions": 64, "pad_token_id": 1,
                 "bos_token_id": 2, "eos_token_id": 2, "decoder_start_token_id": 3},
                [("input_features", [1, 80, 3000], "float32"), ("attention_mask", [1, 3000], "int64"),
                 ("decoder_input_ids", [1, 32], "int64")]),
    "vit": ({"model_type": "vit", "architectures": ["ViTForImageClassification"], "hidden_size": 64,
             "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "image_size": 224,
             "patch_size": 16, "num_labels": 10},
            [("pixel_values", [1, 3, 224, 224], "float32")]),
    "mixtral": ({"model_type": "mixtral", "architectures": ["MixtralForCausalLM"], "vocab_size": 1000,
                 "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "max_position_embeddings": 128, "num_local_experts": 4,
                 "num_experts_per_tok": 2},
                [("input_ids", [1, 32], "int64")]),
    "convnext": ({"model_type": "convnext", "architectures": ["ConvNextForImageClassification"],
                  "hidden_sizes": [16, 32, 64, 128], "depths": [1, 1, 2, 1], "num_labels": 10},
                 [("pixel_values", [1, 3, 224, 224], "float32")]),
    # sinusoidal position tables built with numpy in Python loops: 8,192 x 64 = 524,288 entries
    # each for the encoder and the decoder, past staticflops' default loop budget were they run
    "marian": ({"model_type": "marian", "architectures": ["MarianMTModel"], "vocab_size": 1000, "d_model": 64,
                "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
                "decoder_attention_heads": 4, "encoder_ffn_dim": 128, "decoder_ffn_dim": 128,
                "max_position_embeddings": 8192, "pad_token_id": 999, "decoder_start_token_id": 999,
                "eos_token_id": 0},
               [("input_ids", [1, 32], "int64"), ("attention_mask", [1, 32], "int64"),
                ("decoder_input_ids", [1, 32], "int64")]),
    # a model type with no folder of its own: transformers finds models/gemma3 through its
    # SPECIAL_MODEL_TYPE_TO_MODULE_NAME table
    "gemma3_text": ({"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "vocab_size": 1000,
                     "hidden_size": 64, "intermediate_size": 176, "num_hidden_layers": 2, "num_attention_heads": 4,
                     "num_key_value_heads": 2, "head_dim": 16, "max_position_embeddings": 128,
                     "sliding_window": 16},
                    [("input_ids", [1, 32], "int64")]),
}

# Published sizes, written from the models' published config.json values (no network).
PUBLISHED = {
    "llama-3-8b": {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 128256,
                   "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 8192,
                   "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": False,
                   "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu"},
    "gpt2": {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 50257, "n_positions": 1024,
             "n_ctx": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12, "activation_function": "gelu_new"},
    "bert-base-uncased": {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": 30522,
                          "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                          "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2,
                          "hidden_act": "gelu"},
    "mistral-7b-v0.1": {"model_type": "mistral", "architectures": ["MistralForCausalLM"], "vocab_size": 32000,
                        "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                        "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 32768,
                        "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096,
                        "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu"},
    "mixtral-8x7b": {"model_type": "mixtral", "architectures": ["MixtralForCausalLM"], "vocab_size": 32000,
                     "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                     "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 32768,
                     "num_local_experts": 8, "num_experts_per_tok": 2, "rms_norm_eps": 1e-05, "rope_theta": 1e6,
                     "sliding_window": None, "router_aux_loss_coef": 0.02, "tie_word_embeddings": False,
                     "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu"},
}
PUBLISHED_FORWARD_ON_CPU = {"gpt2": [1, 32], "bert-base-uncased": [1, 32]}
PUBLISHED_FORWARD_ON_META = {"llama-3-8b": [1, 32], "mistral-7b-v0.1": [1, 32], "mixtral-8x7b": [1, 32]}
# The meta route is checked against the CPU recording on these small configs (the counts must agree).
META_CHECKED = ("llama", "mistral", "mixtral")


def _grouped_mm_flops(a_shape, b_shape, *args, **kwargs):
    """FlopCounterMode has no formula for aten._grouped_mm (it counts 0).  Rows (S x K) sorted by
    expert, one K x N matrix per expert: each row meets exactly one matrix, 2*S*K*N FLOPs -- what
    the eager per-expert loop executes (S = tokens x top-k)."""
    if len(a_shape) == 2 and len(b_shape) == 3:
        return 2 * a_shape[0] * a_shape[1] * b_shape[2]
    raise NotImplementedError(f"grouped_mm {a_shape} x {b_shape}")


def measure_on_meta(config_json, shape):
    """Forward FLOPs of a published size on the meta device (no weights in memory).  Patches,
    all written here: (1) an explicit all-ones attention_mask, because with none transformers
    probes position_ids for packed sequences with `.item()`, which meta tensors refuse;
    (2) mixture-of-experts layers take transformers' grouped-GEMM path (`experts_implementation=
    "grouped_mm"`; the eager loop's `nonzero()` is data-dependent, impossible on meta), in
    bfloat16 (the meta kernel of aten._grouped_mm accepts only bf16; the dtype changes no count),
    counted with _grouped_mm_flops as FlopCounterMode's custom_mapping.  main() checks this route
    against the CPU eager-loop recording on META_CHECKED small configs."""
    model = build(config_json, device="meta").to(torch.bfloat16)
    model.config._experts_implementation = "grouped_mm"
    with torch.device("meta"), torch.no_grad():
        ids = torch.zeros(*shape, dtype=torch.int64)
        counter = FlopCounterMode(display=False, custom_mapping={torch.ops.aten._grouped_mm: _grouped_mm_flops})
        with counter:
            out = model(ids, attention_mask=torch.ones(*shape, dtype=torch.int64))
    return {
        "inputs": [{"name": "input_ids", "shape": list(shape), "dtype": "int64"}],
        "output_shapes": {k: list(v.shape) for k, v in out.items() if isinstance(v, torch.Tensor)},
        "forward_flops": counter.get_total_flops(),
        "flops_by_op": {str(k): v for k, v in sorted(counter.get_flop_counts()["Global"].items(), key=str)},
        "params": sum(p.numel() for p in model.parameters()),
        "device": "meta",
    }


def build(config_json, device="cpu"):
    fields = {k: v for k, v in config_json.items() if k not in ("model_type", "architectures")}
    config = transformers.AutoConfig.for_model(config_json["model_type"], **fields)
    config._attn_implementation = "eager"
    config._experts_implementation = "eager"
    config.use_cache = False
    cls = getattr(transformers, config_json["architectures"][0])
    torch.manual_seed(0)
    with torch.device(device):
        model = cls(config)
    return model.eval()


def make_input(shape, dtype, vocab):
    if dtype == "int64":
        return torch.randint(0, min(vocab, 100), shape, dtype=torch.int64)
    return torch.randn(*shape)


def measure(model, inputs, vocab):
    torch.manual_seed(0)
    # an attention mask keeps every token (ones); other int64 inputs are token ids
    args = [None if shape is None else torch.ones(shape, dtype=torch.int64) if name == "attention_mask"
            else make_input(shape, dtype, vocab) for name, shape, dtype in inputs]
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False):
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(*args)
    shapes = {k: list(v.shape) for k, v in out.items() if isinstance(v, torch.Tensor)}
    return {
        "inputs": [{"name": n, "shape": s, "dtype": d} for n, s, d in inputs],
        "output_shapes": shapes,
        "forward_flops": counter.get_total_flops(),
        "flops_by_op": {str(k): v for k, v in sorted(counter.get_flop_counts()["Global"].items(), key=str)},
        "params": sum(p.numel() for p in model.parameters()),
    }


def main():
    out = {"versions": {"torch": torch.__version__, "transformers": transformers.__version__},
           "conventions": "eager attention, use_cache=False, eager experts, eval, no_grad, SDPA MATH, oneDNN off",
           "small": {}, "published": {}}
    for name, (config_json, inputs) in SMALL.items():
        model = build(config_json)
        entry = measure(model, inputs, config_json.get("vocab_size", 1000))
        entry["config"] = config_json
        out["small"][name] = entry
        print(name, entry["params"], entry["forward_flops"], entry["output_shapes"])
        if name in META_CHECKED:
            on_meta = measure_on_meta(config_json, [1, 32])
            assert (on_meta["forward_flops"], on_meta["params"]) == (entry["forward_flops"], entry["params"]), name
            entry["meta_route_forward_flops"] = on_meta["forward_flops"]
    for name, config_json in PUBLISHED.items():
        if name in PUBLISHED_FORWARD_ON_CPU:
            model = build(config_json)
            entry = measure(model, [("input_ids", PUBLISHED_FORWARD_ON_CPU[name], "int64")], config_json["vocab_size"])
            del model
        elif name in PUBLISHED_FORWARD_ON_META:
            entry = measure_on_meta(config_json, PUBLISHED_FORWARD_ON_META[name])
        else:
            model = build(config_json, device="meta")
            entry = {"params": sum(p.numel() for p in model.parameters()), "device": "meta"}
            del model
        entry["config"] = config_json
        out["published"][name] = entry
        print(name, entry["params"], entry.get("forward_flops"))
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
