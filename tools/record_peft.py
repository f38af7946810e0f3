"""Record ground truth for LoRA and other adapters built with peft by executing torch 2.13.0 CPU +
transformers 5.23.0 + peft 0.21.2.

Only tools/ scripts import torch; tests/test_peft.py reads the JSON this writes
(tests/fixtures/peft_ground_truth.json) and analyses the same construction without torch:
a small Llama or BERT (``LlamaForCausalLM(LlamaConfig(...))``) wrapped by
``get_peft_model(base, LoraConfig(...))`` (or IA3Config, LoKrConfig, PromptTuningConfig,
VeraConfig, AdaLoraConfig), one
1 x 32 batch of token ids.

Recorded per case:
* ``params``: sum of ``p.numel()`` over ``model.parameters()`` (base and adapters);
  ``trainable``: the same over those with ``requires_grad`` (peft freezes the base);
* ``forward_flops``: FlopCounterMode's total for ``model(input_ids)`` in eval mode under
  ``torch.no_grad()``, eager attention (FlopCounterMode counts CPU SDPA as 0; eager computes
  the same matmuls), ``use_cache=False``;
* ``training_flops``: FlopCounterMode's total for the forward and ``logits.sum().backward()``
  in train mode (LoRA's dropout is 0: the same ops), which computes only the gradients the
  adapters need.

How to run (repository root):

    /work/gt/torchonly/bin/pip install torch==2.13.0 transformers==5.23.0 peft==0.21.2 accelerate==1.15.0 psutil
    /work/gt/torchonly/bin/python tools/record_peft.py
"""
import json
import os
import warnings

warnings.filterwarnings("ignore")  # deprecation notices; no effect on counts

import peft  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "peft_ground_truth.json")

LLAMA = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 2, "vocab_size": 1000}
BERT = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
        "vocab_size": 1000}
# name -> (model class, config class, its keywords, peft config class, its keywords); the test
# writes the same into a user file
CASES = {
    "llama_lora_qv": ("LlamaForCausalLM", "LlamaConfig", LLAMA, "LoraConfig",
                      {"r": 8, "target_modules": ["q_proj", "v_proj"]}),
    "llama_lora_all_linear": ("LlamaForCausalLM", "LlamaConfig", LLAMA, "LoraConfig",
                              {"r": 4, "lora_alpha": 8, "target_modules": "all-linear"}),
    # DoRA: a magnitude vector per adapted layer, and the adapted weight's norm in every forward
    "llama_dora_qv": ("LlamaForCausalLM", "LlamaConfig", LLAMA, "LoraConfig",
                      {"r": 8, "target_modules": ["q_proj", "v_proj"], "use_dora": True}),
    # a classifier head: SEQ_CLS keeps the new head trainable (modules_to_save)
    "bert_lora_seq_cls": ("BertForSequenceClassification", "BertConfig", BERT, "LoraConfig",
                          {"task_type": "SEQ_CLS", "r": 8, "target_modules": ["query", "value"]}),
    # other adapters: IA3's learned scales, LoKr's Kronecker factors, prompt tuning's 8 virtual tokens
    "llama_ia3": ("LlamaForCausalLM", "LlamaConfig", LLAMA, "IA3Config",
                  {"target_modules": ["k_proj", "v_proj", "down_proj"], "feedforward_modules": ["down_proj"]}),
    "llama_lokr": ("LlamaForCausalLM", "LlamaConfig", LLAMA, "LoKrConfig",
                   {"r": 8, "target_modules": ["q_proj", "v_proj"]}),
    "llama_prompt_tuning": ("LlamaForCausalLM", "LlamaConfig", LLAMA, "PromptTuningConfig",
                            {"task_type": "CAUSAL_LM", "num_virtual_tokens": 8}),
    # VeRA: frozen random projections shared by every adapted layer (a BufferDict of buffers),
    # trainable scaling vectors per layer
    "llama_vera": ("LlamaForCausalLM", "LlamaConfig", LLAMA, "VeraConfig", {"r": 8, "target_modules": ["q_proj", "v_proj"]}),
    # AdaLoRA: SVD-form adapters (P, Lambda, Q) at the initial rank 12, before any rank is pruned
    "llama_adalora": ("LlamaForCausalLM", "LlamaConfig", LLAMA, "AdaLoraConfig",
                      {"r": 8, "target_modules": ["q_proj", "v_proj"], "total_step": 100}),
}
TOKENS = (1, 32)


def build(model_class: str, config_class: str, config: dict, peft_class: str, settings: dict):
    torch.manual_seed(0)
    base_config = getattr(transformers, config_class)(**config, attn_implementation="eager", use_cache=False)
    base = getattr(transformers, model_class)(base_config)
    return peft.get_peft_model(base, getattr(peft, peft_class)(**settings))


def record(model_class: str, config_class: str, config: dict, peft_class: str, settings: dict) -> dict:
    model = build(model_class, config_class, config, peft_class, settings)
    ids = torch.randint(0, config["vocab_size"], TOKENS)
    params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    model.eval()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(input_ids=ids)
    forward = counter.get_total_flops()
    model.train()
    with FlopCounterMode(display=False) as counter:
        model(input_ids=ids).logits.sum().backward()
    return {"params": params, "trainable": trainable, "forward_flops": forward,
            "training_flops": counter.get_total_flops()}


def main() -> None:
    out = {"versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                        "peft": peft.__version__},
           "tokens": list(TOKENS), "cases": {}}
    for name, (model_class, config_class, config, peft_class, settings) in CASES.items():
        out["cases"][name] = {"model_class": model_class, "config_class": config_class, "config": config,
                              "peft_class": peft_class, "peft": settings,
                              **record(model_class, config_class, config, peft_class, settings)}
        print(name, out["cases"][name])
    with open(OUT, "w") as handle:
        json.dump(out, handle, indent=1, sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main()
