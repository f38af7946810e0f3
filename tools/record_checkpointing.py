"""Record ground truth for gradient (activation) checkpointing: the training FLOPs of a step,
forward recomputation in backward included, by executing torch 2.13.0 CPU (+ transformers
5.23.0 for the Hugging Face cases) under FlopCounterMode.

Only tools/ scripts import torch; tests/test_checkpointing.py reads the JSON this writes
(tests/fixtures/checkpointing_ground_truth.json) and analyses the same models without torch.

Cases:
* ``torch_*``: the model source in ``TORCH_SOURCE`` (written into the JSON, which the test
  writes to a file), a stem, three residual blocks each run through
  ``torch.utils.checkpoint.checkpoint(block, x, use_reentrant=...)``, a head; a block ends
  either with a linear (``x + down(relu(up(x)))``) or with ``tanh`` after it.  Input 8 x 16.
* ``peft_*``: LoRA on that Llama (peft 0.21.2), its base checkpointed.
* ``hf_*``: the small configs of tools/record_transformers.py after
  ``gradient_checkpointing_enable()``, their inputs as that script makes them.
* ``llama_*``: a small ``LlamaForCausalLM`` (the config of tools/record_peft.py), eager
  attention, ``use_cache=False``, after ``model.gradient_checkpointing_enable(...)``; one
  1 x 32 batch of token ids.

Recorded per case: ``forward_flops`` (the forward in train mode), ``training_flops`` (that
forward plus ``loss.backward()``, loss = the sum of the float output), and the same step's
``training_flops_without`` checkpointing (the model built again with it off).

What torch does (torch/utils/checkpoint.py, kept as measured): with ``use_reentrant=False``
the region's forward is run again in backward only until every tensor its ops saved for
backward is back ("early stop"): an op that saves only its inputs (a linear) is not run again
if it is the last op of the region to save anything; with ``use_reentrant=True`` the whole
region runs again.

How to run (repository root):

    /work/gt/torchonly/bin/pip install torch==2.13.0 transformers==5.23.0 peft==0.21.2 accelerate==1.15.0 psutil
    /work/gt/torchonly/bin/python tools/record_checkpointing.py
"""
import json
import os
import sys
import types
import warnings

warnings.filterwarnings("ignore")  # deprecation notices; no effect on counts

import torch  # noqa: E402
import transformers  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # record_transformers, beside this script
OUT = os.path.join(REPO, "tests", "fixtures", "checkpointing_ground_truth.json")

TORCH_SOURCE = '''\
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, width, squash):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        self.squash = squash

    def forward(self, x):
        h = self.down(torch.relu(self.up(x)))
        if self.squash:
            h = torch.tanh(h)
        return x + h


class Net(nn.Module):
    def __init__(self, squash=False, reentrant=False, checkpointed=True, width=32, depth=3):
        super().__init__()
        self.stem = nn.Linear(16, width)
        self.blocks = nn.ModuleList([Block(width, squash) for _ in range(depth)])
        self.head = nn.Linear(width, 10)
        self.reentrant = reentrant
        self.checkpointed = checkpointed

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            if self.checkpointed:
                x = checkpoint(block, x, use_reentrant=self.reentrant)
            else:
                x = block(x)
        return self.head(x)
'''
TORCH_CASES = {  # name -> Net's keywords
    "torch_linear_last": {"squash": False, "reentrant": False},
    "torch_tanh_last": {"squash": True, "reentrant": False},
    "torch_reentrant": {"squash": False, "reentrant": True},
}
TORCH_INPUT = (8, 16)

LLAMA = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 2, "vocab_size": 1000}
LLAMA_CASES = {  # name -> gradient_checkpointing_enable's keywords
    "llama_default": {},
    "llama_reentrant": {"gradient_checkpointing_kwargs": {"use_reentrant": True}},
}
TOKENS = (1, 32)
# The small configs of tools/record_transformers.py (tests/fixtures/transformers_ground_truth.json),
# built as that script builds them, with gradient_checkpointing_enable() (defaults) or without.
HF_SMALL = ("bert", "gpt2", "t5", "whisper", "vit", "mixtral", "gemma3_text")


def step(model, inputs) -> tuple[int, int]:
    """(forward FLOPs, forward + backward FLOPs) of one training step."""
    model.train()
    with FlopCounterMode(display=False) as counter:
        output = model(*inputs)
        output = output.logits if hasattr(output, "logits") else output
        forward = counter.get_total_flops()
        output.float().sum().backward()
    return forward, counter.get_total_flops()


def torch_case(keywords: dict) -> dict:
    module = types.ModuleType("checkpointed")
    exec(compile(TORCH_SOURCE, "checkpointed.py", "exec"), module.__dict__)
    inputs = (torch.randn(*TORCH_INPUT),)
    torch.manual_seed(0)
    forward, training = step(module.Net(**keywords), inputs)
    torch.manual_seed(0)
    _, without = step(module.Net(**keywords, checkpointed=False), inputs)
    return {"keywords": keywords, "forward_flops": forward, "training_flops": training,
            "training_flops_without": without}


def llama(enable: dict | None):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(**LLAMA, attn_implementation="eager", use_cache=False)
    model = transformers.LlamaForCausalLM(config)
    if enable is not None:
        model.gradient_checkpointing_enable(**enable)
    return model


def llama_case(keywords: dict) -> dict:
    ids = (torch.randint(0, LLAMA["vocab_size"], TOKENS),)
    forward, training = step(llama(keywords), ids)
    _, without = step(llama(None), ids)
    return {"enable": keywords, "forward_flops": forward, "training_flops": training,
            "training_flops_without": without}


def hf_case(name: str) -> dict:
    """FlopCounterMode over a train-mode step (loss = the sum of the float outputs that need a
    gradient) of a small config from tools/record_transformers.py, its inputs as it makes them."""
    import record_transformers as rt  # noqa: E402  (tools/: its configs, builder and inputs)

    config, inputs = rt.SMALL[name]
    vocab = config.get("vocab_size", 1000)

    def measured(checkpointing: bool) -> tuple[int, int]:
        model = rt.build(config)
        if checkpointing:
            model.gradient_checkpointing_enable()
        model.train()
        torch.manual_seed(0)
        args = [torch.ones(shape, dtype=torch.int64) if arg == "attention_mask" else rt.make_input(shape, dtype, vocab)
                for arg, shape, dtype in inputs]
        with rt.sdpa_kernel(rt.SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False), \
                FlopCounterMode(display=False) as counter:
            out = model(*args)
            forward = counter.get_total_flops()
            loss = sum(v.float().sum() for v in out.values() if isinstance(v, torch.Tensor) and v.requires_grad)
            loss.backward()
        return forward, counter.get_total_flops()

    forward, training = measured(True)
    _, without = measured(False)
    return {"model": name, "forward_flops": forward, "training_flops": training, "training_flops_without": without}


# LoRA (peft 0.21.2) on q_proj and v_proj of the small Llama, its base checkpointed: the frozen
# embedding needs no gradient, so transformers hooks it to require one (enable_input_require_grads)
PEFT_CASES = {"peft_lora_default": {}, "peft_lora_reentrant": {"gradient_checkpointing_kwargs": {"use_reentrant": True}}}
PEFT_LORA = {"r": 8, "target_modules": ["q_proj", "v_proj"]}


def peft_case(keywords: dict) -> dict:
    import peft  # noqa: E402  (only this case needs it)

    def measured(enable: dict | None) -> tuple[int, int]:
        base = llama(enable)
        model = peft.get_peft_model(base, peft.LoraConfig(**PEFT_LORA))
        return step(model, (torch.randint(0, LLAMA["vocab_size"], TOKENS),))

    forward, training = measured(keywords)
    _, without = measured(None)
    return {"enable": keywords, "lora": PEFT_LORA, "forward_flops": forward, "training_flops": training,
            "training_flops_without": without, "peft": peft.__version__}


def main() -> None:
    out = {"versions": {"torch": torch.__version__, "transformers": transformers.__version__},
           "torch_source": TORCH_SOURCE, "torch_input": list(TORCH_INPUT), "llama_config": LLAMA,
           "tokens": list(TOKENS), "cases": {}}
    for name, keywords in TORCH_CASES.items():
        out["cases"][name] = torch_case(keywords)
        print(name, out["cases"][name])
    for name, keywords in LLAMA_CASES.items():
        out["cases"][name] = llama_case(keywords)
        print(name, out["cases"][name])
    for name, keywords in PEFT_CASES.items():
        out["cases"][name] = peft_case(keywords)
        print(name, out["cases"][name])
    for name in HF_SMALL:
        out["cases"]["hf_" + name] = hf_case(name)
        print(name, out["cases"]["hf_" + name])
    with open(OUT, "w") as handle:
        json.dump(out, handle, indent=1, sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main()
