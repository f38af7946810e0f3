"""Record ground truth for one generation step over a key/value cache (``--past-tokens``):
torch 2.13.0 CPU + transformers 5.23.0.

What is measured, per decoder: a first forward on P random token ids with ``use_cache=True``
(not counted) returns ``past_key_values``; FlopCounterMode then counts the forward of one new
token with that cache, as ``generate()`` runs each step.  The cache's size after the step is
the element count of the floating-point tensors it holds (each layer's keys and values).
Conventions and small configs are tools/record_transformers.py's (eager attention, eager
experts, eval, no_grad, SDPA MATH backend, oneDNN off).  Llama-3-8B's published size runs on
the meta device with that script's patch (an explicit all-ones attention mask, here P + 1 long
for the step), in bfloat16: the counts do not depend on the dtype.

State-space and recurrent models (Mamba, Falcon-Mamba, Mamba-2, xLSTM, RWKV) keep no keys and
values: their forward returns ``cache_params`` (RWKV: ``state``), a convolution window and a
recurrent state per layer, and the step takes it back under that name, as ``generate()`` passes
it; their cache's size is every floating-point tensor it holds.  Mamba-2, xLSTM and RWKV are
7B-sized by default and run on the meta device.

Writes tests/fixtures/generation_ground_truth.json, read by tests/test_generation.py (which
needs neither torch nor the network).  How to run (repository root):

    /work/gt/torchonly/bin/python tools/record_generation.py   # torch==2.13.0 (CPU), transformers==5.23.0
    /work/gt/torchonly/bin/python tools/record_generation.py state_space   # that section only, the rest kept
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import transformers  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_transformers import PUBLISHED, SMALL, build  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "generation_ground_truth.json")

DECODERS = ("llama", "gpt2", "mistral", "mixtral", "gemma3_text")  # mistral: sliding window 16 < P + 1
PASTS = (7, 31)
PUBLISHED_STEP = {"llama-3-8b": 2047}  # a 2,048-token context
# Popular decoders from their default config.json ({"model_type", "architectures"} only, as
# `staticflops analyze config.json` builds them), on the meta device (most defaults are 7B-sized).
DEFAULT_DECODERS = {
    "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM", "phi3": "Phi3ForCausalLM", "phi": "PhiForCausalLM",
    "gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM", "opt": "OPTForCausalLM", "bloom": "BloomForCausalLM",
    "gpt_neox": "GPTNeoXForCausalLM", "gptj": "GPTJForCausalLM", "falcon": "FalconForCausalLM",
    "stablelm": "StableLmForCausalLM", "gpt_bigcode": "GPTBigCodeForCausalLM", "starcoder2": "Starcoder2ForCausalLM",
    "olmo": "OlmoForCausalLM", "olmo2": "Olmo2ForCausalLM", "cohere": "CohereForCausalLM",
    "granite": "GraniteForCausalLM", "gpt_neo": "GPTNeoForCausalLM", "codegen": "CodeGenForCausalLM",
    # types that build another folder's class with their own config class's defaults
    "internlm3": "LlamaForCausalLM", "iquestcoder": "LlamaForCausalLM", "gpt-sw3": "GPT2LMHeadModel",
}
DEFAULT_PAST = 7


def cache_elements(cache) -> tuple[int, int]:
    """(elements, tensors) of the floating-point tensors the cache holds, each once (an
    encoder-decoder cache: its self-attention and its cross-attention caches)."""
    caches = [cache.self_attention_cache, cache.cross_attention_cache] if hasattr(cache, "cross_attention_cache") \
        else [cache]
    seen, elements = set(), 0
    for layer in (layer for part in caches for layer in part.layers):
        for tensor in (layer.keys, layer.values):
            if isinstance(tensor, torch.Tensor) and tensor.is_floating_point() and id(tensor) not in seen:
                seen.add(id(tensor))
                elements += tensor.numel()
    return elements, len(seen)


# State-space models from their default config.json: model_type -> (class, device)
STATE_SPACE = {"mamba": ("MambaForCausalLM", "cpu"), "falcon_mamba": ("FalconMambaForCausalLM", "cpu"),
               "mamba2": ("Mamba2ForCausalLM", "meta"), "xlstm": ("xLSTMForCausalLM", "meta"),
               "rwkv": ("RwkvForCausalLM", "meta")}
STATE_NAMES = ("cache_params", "state")  # the output field, and forward's argument, holding the state


def state_elements(cache) -> tuple[int, int]:
    """(elements, tensors) of the floating-point tensors a cache object holds, each once, found
    through its attributes, dicts, lists and tuples (a state-space cache keeps no keys/values)."""
    seen, elements, pending, visited = set(), 0, [cache], set()
    while pending:
        value = pending.pop()
        if isinstance(value, torch.Tensor):
            if value.is_floating_point() and id(value) not in seen:
                seen.add(id(value))
                elements += value.numel()
        elif id(value) in visited:
            continue
        elif isinstance(value, dict):
            visited.add(id(value))
            pending.extend(value.values())
        elif isinstance(value, (list, tuple)):
            visited.add(id(value))
            pending.extend(value)
        elif hasattr(value, "__dict__") and not isinstance(value, (transformers.PreTrainedConfig, type)):
            visited.add(id(value))
            pending.extend(vars(value).values())
    return elements, len(seen)


def state_step(model, past: int, vocab: int, device: str) -> dict:
    torch.manual_seed(0)
    with torch.device(device):
        prompt = torch.randint(0, min(vocab, 100), (1, past), dtype=torch.int64)
        token = torch.randint(0, min(vocab, 100), (1, 1), dtype=torch.int64)
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False):
        first = model(prompt, use_cache=True)
        name = next(name for name in STATE_NAMES if getattr(first, name, None) is not None)
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(token, **{name: getattr(first, name)}, use_cache=True)
    elements, tensors = state_elements(getattr(out, name))
    return {"past_tokens": past, "forward_flops": counter.get_total_flops(),
            "flops_by_op": {str(k): v for k, v in sorted(counter.get_flop_counts()["Global"].items(), key=str)},
            "output_shapes": {k: list(v.shape) for k, v in out.items() if isinstance(v, torch.Tensor)},
            "state_elements": elements, "state_tensors": tensors}


def record_state_space(out: dict) -> None:
    out["state_space"] = {}
    for model_type, (architecture, device) in STATE_SPACE.items():
        config_json = {"model_type": model_type, "architectures": [architecture]}
        model = build(config_json, device=device)
        steps = [state_step(model, past, model.config.vocab_size, device) for past in PASTS]
        del model
        out["state_space"][model_type] = {"config": config_json, "device": device, "steps": steps}
        print(model_type, [(s["past_tokens"], s["forward_flops"], s["state_elements"]) for s in steps])


def step(model, past: int, vocab: int, device: str = "cpu", masks: bool = False) -> dict:
    torch.manual_seed(0)
    with torch.device(device):
        prompt = torch.randint(0, min(vocab, 100), (1, past), dtype=torch.int64)
        token = torch.randint(0, min(vocab, 100), (1, 1), dtype=torch.int64)
        extra = ({"attention_mask": torch.ones(1, past, dtype=torch.int64)} if masks else {}), \
            ({"attention_mask": torch.ones(1, past + 1, dtype=torch.int64)} if masks else {})
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False):
        cache = model(prompt, use_cache=True, **extra[0]).past_key_values
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(token, past_key_values=cache, use_cache=True, **extra[1])
    elements, tensors = cache_elements(out.past_key_values)
    return {"past_tokens": past, "forward_flops": counter.get_total_flops(),
            "flops_by_op": {str(k): v for k, v in sorted(counter.get_flop_counts()["Global"].items(), key=str)},
            "output_shapes": {k: list(v.shape) for k, v in out.items() if isinstance(v, torch.Tensor)},
            "kv_cache_elements": elements, "kv_cache_tensors": tensors}


# Encoder-decoder small configs (tools/record_transformers.py's): the encoder's inputs as recorded
# there, the decoder's new token by keyword; the step gets the encoder's output (encoder_outputs=),
# as generate() hands it to every step, and the cache of the first forward.
SEQ2SEQ = {"t5": 2, "whisper": 2}  # name -> how many leading inputs are the encoder's
# and BART from its default config.json (bart-large's size), on the CPU
SEQ2SEQ_DEFAULTS = {"bart-default": ({"model_type": "bart", "architectures": ["BartForConditionalGeneration"]},
                                     [("input_ids", [1, 32], "int64"), ("attention_mask", [1, 32], "int64")])}


def seq2seq_step(model, specs: list, past: int, vocab: int) -> dict:
    torch.manual_seed(0)
    encoder_inputs = [torch.ones(shape, dtype=torch.int64) if arg == "attention_mask"
                      else torch.randint(0, min(vocab, 100), shape) if dtype == "int64" else torch.randn(*shape)
                      for arg, shape, dtype in specs]
    prompt = torch.randint(0, min(vocab, 100), (1, past), dtype=torch.int64)
    token = torch.randint(0, min(vocab, 100), (1, 1), dtype=torch.int64)
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False):
        first = model(*encoder_inputs, decoder_input_ids=prompt, use_cache=True)
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(*encoder_inputs, decoder_input_ids=token, past_key_values=first.past_key_values,
                        encoder_outputs=(first.encoder_last_hidden_state,), use_cache=True)
    elements, tensors = cache_elements(out.past_key_values)
    return {"past_tokens": past, "forward_flops": counter.get_total_flops(),
            "flops_by_op": {str(k): v for k, v in sorted(counter.get_flop_counts()["Global"].items(), key=str)},
            "output_shapes": {k: list(v.shape) for k, v in out.items() if isinstance(v, torch.Tensor)},
            "kv_cache_elements": elements, "kv_cache_tensors": tensors,
            "encoder_inputs": [[arg, shape, dtype] for arg, shape, dtype in specs]}


def main():
    if sys.argv[1:] == ["state_space"]:  # one section again, the others as recorded
        with open(OUT) as f:
            out = json.load(f)
        record_state_space(out)
        _write(out)
        return
    out = {"versions": {"torch": torch.__version__, "transformers": transformers.__version__},
           "conventions": "one new token over a cache filled by an uncounted forward on P tokens (use_cache=True); "
                          "eager attention, eager experts, eval, no_grad, SDPA MATH, oneDNN off",
           "small": {}, "published": {}}
    for name in DECODERS:
        config_json = SMALL[name][0]
        model = build(config_json)
        steps = [step(model, past, config_json.get("vocab_size", 1000)) for past in PASTS]
        out["small"][name] = {"config": config_json, "steps": steps}
        print(name, [(s["past_tokens"], s["forward_flops"], s["kv_cache_elements"]) for s in steps])
    for name in SEQ2SEQ:
        config_json = SMALL[name][0]
        model = build(config_json)
        specs = SMALL[name][1][:SEQ2SEQ[name]]
        steps = [seq2seq_step(model, specs, past, config_json.get("vocab_size", 1000)) for past in PASTS]
        out["seq2seq"] = {**out.get("seq2seq", {}), name: {"config": config_json, "steps": steps}}
        print(name, [(s["past_tokens"], s["forward_flops"], s["kv_cache_elements"]) for s in steps])
    for name, (config_json, specs) in SEQ2SEQ_DEFAULTS.items():
        model = build(config_json)
        steps = [seq2seq_step(model, specs, 7, model.config.vocab_size)]
        out["seq2seq"][name] = {"config": config_json, "steps": steps}
        print(name, [(s["past_tokens"], s["forward_flops"], s["kv_cache_elements"]) for s in steps])
    for name, past in PUBLISHED_STEP.items():
        config_json = PUBLISHED[name]
        model = build(config_json, device="meta").to(torch.bfloat16)
        entry = step(model, past, config_json["vocab_size"], device="meta", masks=True)
        out["published"][name] = {"config": config_json, "steps": [entry]}
        print(name, entry["forward_flops"], entry["kv_cache_elements"])
    out["defaults"] = {}
    for model_type, architecture in DEFAULT_DECODERS.items():
        config_json = {"model_type": model_type, "architectures": [architecture]}
        try:
            model = build(config_json, device="meta").to(torch.bfloat16)
            entry = step(model, DEFAULT_PAST, model.config.vocab_size, device="meta", masks=True)
        except Exception as error:  # noqa: BLE001  (recorded: the test skips what torch itself cannot run)
            entry = {"error": f"{type(error).__name__}: {error}"[:300]}
        del model
        out["defaults"][model_type] = {"config": config_json, "steps": [entry]}
        print(model_type, entry.get("forward_flops"), entry.get("kv_cache_elements"), entry.get("error", ""))
    record_state_space(out)
    _write(out)


def _write(out: dict) -> None:
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
