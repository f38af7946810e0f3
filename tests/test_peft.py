"""LoRA with peft read as written: ``model = get_peft_model(LlamaForCausalLM(config), LoraConfig(...))``
in a user's file (LoRA on chosen or all linear layers, DoRA, a BERT classifier, IA3, LoKr, prompt tuning, VeRA), analysed without torch, from peft 0.21.2's source (with transformers 5.23.0,
huggingface_hub 2.4.0 and packaging 26.4: `pip download --no-deps`, never imported).

Ground truth: tests/fixtures/peft_ground_truth.json, recorded by tools/record_peft.py executing
torch 2.13.0 CPU + transformers 5.23.0 + peft 0.21.2 (eager attention, FlopCounterMode: the
forward in eval under no_grad, and forward + ``logits.sum().backward()`` in train mode).

By hand for ``llama_lora_qv`` (hidden 64, 4 heads of 16, 2 KV heads, MLP 128, vocab 1000, 2
layers, r = 8 on q_proj 64->64 and v_proj 64->32, 32 tokens):
  base params: embeddings 64,000 + lm_head 64,000 + final norm 64 + 2 x (q 4,096 + k 2,048
  + v 2,048 + o 4,096 + MLP 3 x 8,192 + norms 128 = 36,992) = 202,048;
  adapters: 2 x (q: A 64x8 + B 8x64 = 1,024; v: A 64x8 + B 8x32 = 768) = 3,584 (the only
  trainable ones);  params 205,632.
  forward MACs: 2 x (32 x 36,864 linear + attention 2 x 4 x 32 x 32 x 16 = 131,072) + lm_head
  32 x 64 x 1,000 = 2,048,000 + adapters 2 x 32 x (512 + 512 + 512 + 256) = 114,688:
  4,784,128 MACs = 9,568,256 FLOPs.
"""

import json
import textwrap
from pathlib import Path

import pytest

import staticflops
import wheels

TRUTH = json.loads((Path(__file__).parent / "fixtures" / "peft_ground_truth.json").read_text())
PACKAGES = {"peft": "0.21.2", "transformers": "5.23.0", "huggingface_hub": "2.4.0", "packaging": "26.4"}


@pytest.fixture(scope="module")
def peft_source(request, tmp_path_factory) -> Path:
    return wheels.unpacked_side_by_side(request, tmp_path_factory, "peft", PACKAGES)


def _user_file(tmp_path, case: dict) -> Path:
    path = tmp_path / "lora.py"
    path.write_text(textwrap.dedent(f"""\
        from transformers import {case["config_class"]}, {case["model_class"]}
        from peft import {case["peft_class"]}, get_peft_model

        base = {case["model_class"]}({case["config_class"]}(**{case["config"]!r}))
        model = get_peft_model(base, {case["peft_class"]}(**{case["peft"]!r}))
        """))
    return path


@pytest.mark.parametrize("name", sorted(TRUTH["cases"]))
def test_lora_counts_equal_flop_counter_mode(peft_source, tmp_path, name):
    case = TRUTH["cases"][name]
    tokens = "x".join(map(str, TRUTH["tokens"])) + ":int64"
    report = staticflops.analyze(_user_file(tmp_path, case), model="model", inputs=[tokens],
                                 source_path=[peft_source], training=True)
    totals = report.totals
    assert totals.complete, [f"{u.location}: {u.what}" for u in report.unknown]
    assert (totals.params, totals.trainable_params) == (case["params"], case["trainable"])
    assert totals.forward_flops == case["forward_flops"]
    # the frozen base passes gradients back only as far as the adapters need them
    assert totals.training_flops == case["training_flops"] + DETACHED_BACKWARD.get(name, 0)


# DoRA computes its weight norm from lora_B(lora_A(eye(in))) and detaches it: autograd never
# differentiates those two calls, which the analysis still prices (it follows which inputs need
# a gradient, not which results reach the loss). Per layer, with weight gradients 2 x MACs and
# lora_B's input gradient 2 x MACs: q_proj (in 64, r 8, out 64): lora_A 64x64x8 = 32,768 MACs,
# lora_B 64x8x64 = 32,768 MACs -> 2 x 32,768 + 2 x 2 x 32,768 = 196,608; v_proj (out 32):
# lora_A 32,768, lora_B 16,384 MACs -> 65,536 + 2 x 32,768 = 131,072; two layers: 655,360.
DETACHED_BACKWARD = {"llama_dora_qv": 2 * (196_608 + 131_072)}


def test_the_hand_count_of_the_qv_case():
    case = TRUTH["cases"]["llama_lora_qv"]
    assert (case["params"], case["trainable"], case["forward_flops"]) == (205_632, 3_584, 9_568_256)
