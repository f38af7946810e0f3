"""Gradient checkpointing: the forward that backward runs again is in the training FLOPs.

Ground truth: tests/fixtures/checkpointing_ground_truth.json, recorded by
tools/record_checkpointing.py executing torch 2.13.0 CPU + transformers 5.23.0 (FlopCounterMode
over a train-mode forward and ``backward()``).  transformers 5.23.0 and huggingface_hub 2.4.0
are read from their wheels (`pip download --no-deps`), never imported.

By hand for the torch model (stem Linear(16, 32), three blocks x + down(relu(up(x))) with up
32->128 and down 128->32, head Linear(32, 10), input 8 x 16):
  forward: stem 2*8*16*32 = 8,192; each block up 2*8*32*128 = 65,536 + down 65,536; head
  2*8*32*10 = 5,120: 8,192 + 3 * 131,072 + 5,120 = 406,528.
  backward: stem weight gradient only (its input is the model input) 8,192; each block 2 x
  131,072 (input and weight gradients); head 2 x 5,120: 8,192 + 786,432 + 10,240 = 804,864.
  recompute, use_reentrant=False: up only in each block (down keeps just its input, which relu
  has given back: torch stops there): 3 x 65,536 = 196,608; with tanh after down, tanh keeps
  its output, so down runs too: 3 x 131,072 = 393,216; reentrant: every block whole, 393,216.
"""

import json
import textwrap
from pathlib import Path

import pytest

import staticflops
import wheels
from staticflops.cli.app import app
from typer.testing import CliRunner

TRUTH = json.loads((Path(__file__).parent / "fixtures" / "checkpointing_ground_truth.json").read_text())
PACKAGES = {"transformers": TRUTH["versions"]["transformers"], "huggingface_hub": "2.4.0"}
TORCH_CASES = sorted(name for name in TRUTH["cases"] if name.startswith("torch_"))
LLAMA_CASES = sorted(name for name in TRUTH["cases"] if name.startswith("llama_"))


@pytest.fixture(scope="module")
def transformers_source(request, tmp_path_factory) -> Path:
    return wheels.unpacked_side_by_side(request, tmp_path_factory, "transformers", PACKAGES)


@pytest.fixture
def torch_model(tmp_path) -> Path:
    path = tmp_path / "checkpointed.py"
    path.write_text(TRUTH["torch_source"])
    return path


def _training(path, **options):
    report = staticflops.analyze(path, training=True, **options)
    assert report.totals.complete, [f"{u.location}: {u.what}" for u in report.unknown]
    return report.totals


@pytest.mark.parametrize("name", TORCH_CASES)
def test_torch_checkpoint_equals_flop_counter_mode(torch_model, name):
    case = TRUTH["cases"][name]
    shape = "x".join(map(str, TRUTH["torch_input"]))
    totals = _training(torch_model, model="Net", kwargs=case["keywords"], inputs=[shape])
    assert totals.forward_flops == case["forward_flops"] == 406_528
    assert totals.training_flops == case["training_flops"]
    # what the recompute is, by hand (module docstring)
    assert totals.recompute_flops == {"torch_linear_last": 196_608, "torch_tanh_last": 393_216,
                                      "torch_reentrant": 393_216}[name]
    assert totals.training_flops == totals.forward_flops + totals.backward_flops + totals.recompute_flops
    without = _training(torch_model, model="Net", kwargs={**case["keywords"], "checkpointed": False}, inputs=[shape])
    assert without.training_flops == case["training_flops_without"] == 406_528 + 804_864
    assert without.recompute_flops == 0


def test_checkpointed_regions_keep_their_inputs_not_their_ops_tensors(torch_model):
    """Saved for backward (standard rules, float32): without checkpointing every op's (7,296
    elements); with it, the stem's input 8*16 = 128, each block's argument 8*32 = 256 (three),
    the head's input 256: 1,152 elements = 4,608 bytes."""
    on = _training(torch_model, model="Net", kwargs={}, inputs=["8x16"])
    assert on.saved_activation_bytes == 4 * (128 + 3 * 256 + 256)


@pytest.mark.parametrize("name", LLAMA_CASES)
def test_transformers_gradient_checkpointing_enable(transformers_source, tmp_path, name):
    """A Llama decoder layer (hidden 64, MLP 128, 4 heads of 16, 2 KV heads, 32 tokens):
    q 2*32*64*64 = 262,144, k and v 131,072 each, o 262,144, attention 2 x 131,072,
    gate/up/down 524,288 each: 2,621,440; two layers run again whole (reentrant): 5,242,880;
    without reentrant all but down_proj: 2 x 2,097,152 = 4,194,304."""
    case = TRUTH["cases"][name]
    path = tmp_path / "llama_gc.py"
    path.write_text(textwrap.dedent(f"""\
        from transformers import LlamaConfig, LlamaForCausalLM

        model = LlamaForCausalLM(LlamaConfig(**{TRUTH["llama_config"]!r}))
        model.gradient_checkpointing_enable(**{case["enable"]!r})
        """))
    tokens = "x".join(map(str, TRUTH["tokens"])) + ":int64"
    totals = _training(path, model="model", inputs=[tokens], source_path=[transformers_source])
    assert totals.forward_flops == case["forward_flops"] == 9_338_880
    assert totals.training_flops == case["training_flops"]
    assert totals.recompute_flops == {"llama_default": 4_194_304, "llama_reentrant": 5_242_880}[name]


def test_the_option_switches_it_on_through_the_library(transformers_source, tmp_path):
    case = TRUTH["cases"]["llama_default"]
    path = tmp_path / "llama.py"
    path.write_text(textwrap.dedent(f"""\
        from transformers import LlamaConfig, LlamaForCausalLM

        model = LlamaForCausalLM(LlamaConfig(**{TRUTH["llama_config"]!r}))
        """))
    options = dict(model="model", inputs=["1x32:int64"], source_path=[transformers_source])
    report = staticflops.analyze(path, gradient_checkpointing=True, **options)
    assert report.totals.complete, [f"{u.location}: {u.what}" for u in report.unknown]
    assert report.totals.training_flops == case["training_flops"]
    assert any("gradient checkpointing" in note for note in report.training.notes)
    assert _training(path, **options).training_flops == case["training_flops_without"]


def test_the_option_on_a_model_without_a_switch_says_so(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.fc = nn.Linear(4, 4)\n\n    def forward(self, x):\n        return self.fc(x)\n")
    result = CliRunner().invoke(app, ["analyze", str(path), "--input", "2x4", "--gradient-checkpointing"])
    assert result.exit_code == 1  # an error about the input (cli/app.py's _guarded)
    assert "gradient_checkpointing_enable" in result.output and "torch.utils.checkpoint" in result.output
    assert f"Net ({path}:3:1)" in result.output  # where the class without a switch is defined


def _checkpointed(tmp_path, forward: str, init: str = "") -> Path:
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent("""\
        import torch
        import torch.nn as nn
        from torch.utils.checkpoint import checkpoint, checkpoint_sequential


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8))
                self.head = nn.Linear(8, 8)
        {init}
            def forward(self, x):
        {forward}
        """).format(init=textwrap.indent(textwrap.dedent(init), " " * 4),
                    forward=textwrap.indent(textwrap.dedent(forward), " " * 8)))
    return path


def test_checkpoint_sequential_checkpoints_all_but_the_last_segment(tmp_path):
    """Four Linear(8, 8) on 4 x 8 (2*4*8*8 = 512 FLOPs each) in two segments: the first
    checkpointed (non-reentrant), the second not.  In the first, the second linear keeps only its
    input, which the first gives back: 512 recomputed."""
    path = _checkpointed(tmp_path, "return self.head(checkpoint_sequential(self.body, 2, x, use_reentrant=False))")
    totals = _training(path, model="Net", inputs=["4x8"])
    assert totals.forward_flops == 5 * 512
    assert totals.recompute_flops == 512


def test_reentrant_checkpoint_of_inputs_without_gradient_has_no_backward(tmp_path):
    """Reentrant checkpointing hands autograd one function of its tensor arguments: given only
    the model input (no gradient), its result needs none, its weights get none and nothing
    runs again; only the head trains: weight gradient 512 (input gradient none: its input
    needs no gradient either)."""
    path = _checkpointed(tmp_path, "return self.head(checkpoint(self.body, x, use_reentrant=True))")
    totals = _training(path, model="Net", inputs=["4x8"])
    assert totals.forward_flops == 5 * 512
    assert (totals.backward_flops, totals.recompute_flops) == (512, 0)


def test_keywords_reach_the_function_and_early_stop_false_runs_the_whole_region(tmp_path):
    """``checkpoint(fn, x, use_reentrant=False, early_stop=False, twice=True)``: ``twice`` is
    fn's; without early stop the whole region (two calls of the first linear, 2 x 512) runs
    again, however its ops end."""
    path = _checkpointed(tmp_path, "return self.head(checkpoint(self.twice, x, use_reentrant=False, early_stop=False,"
                                   " twice=True))",
                         init="""\
                         def twice(self, x, twice=False):
                             x = self.body[0](x)
                             return self.body[0](x) if twice else x
                         """)
    totals = _training(path, model="Net", inputs=["4x8"])
    assert totals.forward_flops == 3 * 512
    assert totals.recompute_flops == 2 * 512


def test_reentrant_checkpoint_refuses_keywords_as_torch_does(tmp_path):
    path = _checkpointed(tmp_path, "return checkpoint(self.head, x, use_reentrant=True, scale=2)")
    with pytest.raises(staticflops.AnalysisError, match="Unexpected keyword arguments: scale"):
        staticflops.analyze(path, model="Net", inputs=["4x8"], training=True)


def test_a_uniform_draw_compared_with_0_or_1_is_decided(tmp_path):
    """Train-mode code tests ``torch.rand`` (values in [0, 1)) against a probability: at 0 or 1 the
    outcome is fixed (peft's module dropout, transformers' LayerDrop); at 0.5 the data decides.
    Two Linear(8, 8) on 2 x 8: 256 FLOPs each."""
    path = tmp_path / "draws.py"
    path.write_text(textwrap.dedent("""\
        import torch
        import torch.nn as nn


        class M(nn.Module):
            def __init__(self, p=0.0, layerdrop=0.0):
                super().__init__()
                self.a = nn.Linear(8, 8)
                self.b = nn.Linear(8, 8)
                self.p = p
                self.layerdrop = layerdrop

            def forward(self, x):
                if torch.rand(1) > self.p:
                    x = self.a(x)
                if torch.rand([]) < self.layerdrop:
                    return x
                return self.b(x)
        """))
    kept = staticflops.analyze(path, model="M", inputs=["2x8"])
    assert (kept.totals.forward_flops, kept.totals.complete) == (512, True)
    dropped = staticflops.analyze(path, model="M", kwargs={"layerdrop": 1.0}, inputs=["2x8"])
    assert (dropped.totals.forward_flops, dropped.totals.complete) == (256, True)
    undecided = staticflops.analyze(path, model="M", kwargs={"p": 0.5}, inputs=["2x8"])
    assert not undecided.totals.complete


def test_timm_set_grad_checkpointing(request, tmp_path_factory, tmp_path):
    """timm 1.0.31's ``vit_tiny_patch16_224`` (width 192, 3 heads of 64, MLP 768, 197 tokens, 12
    blocks) after ``set_grad_checkpointing()``: each block runs through torch's checkpoint
    without reentrant, and ends ``x + fc2(...)`` (no layer scale, no drop path), so fc2 is not
    run again.  A block: qkv 2*197*192*576 = 43,573,248, scores and weighted sum 2 x
    2*3*197*197*64 = 29,805,312, proj 2*197*192*192 = 14,524,416, fc1 and fc2 2*197*192*768 =
    58,097,664 each: 204,098,304; again in backward all but fc2: 146,000,640; 12 blocks:
    1,752,007,680.  With ``--gradient-checkpointing`` instead of the call, the same."""
    source = wheels.unpacked(request, tmp_path_factory, "timm", "1.0.31", "timm/")
    path = tmp_path / "vit.py"
    path.write_text('import timm\n\nmodel = timm.create_model("vit_tiny_patch16_224")\n'
                    'model.set_grad_checkpointing(True)\n')
    options = dict(model="model", inputs=["1x3x224x224"], source_path=[source])
    called = _training(path, **options)
    assert called.recompute_flops == 12 * (204_098_304 - 58_097_664)
    assert called.training_flops == called.forward_flops + called.backward_flops + 1_752_007_680
    path.write_text('import timm\n\nmodel = timm.create_model("vit_tiny_patch16_224")\n')
    report = staticflops.analyze(path, gradient_checkpointing=True, **options)
    assert report.totals.recompute_flops == 1_752_007_680


SWITCHED = textwrap.dedent("""\
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Linear(8, 8)
            self.block = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
            self.grad_checkpointing = False

        def set_grad_checkpointing(self, enable=True):
            self.grad_checkpointing = enable

        def forward(self, x):
            x = self.stem(x)
            if self.grad_checkpointing and self.training:
                return x + checkpoint(self.block, x, use_reentrant=False)
            return x + self.block(x)
    """)


def test_a_project_budget_counts_the_recomputation(tmp_path):
    """timm's pattern (``set_grad_checkpointing`` and ``self.training``), in a project config:
    Linear(8, 8) on 2 x 8 is 2*2*8*8 = 256 FLOPs; forward 3 x 256 = 768; backward: stem weight
    gradient 256, each block linear 2 x 256: 1,280; the block's first linear runs again (the
    last keeps only its input, which relu gives back): 256.  Training 768 + 1,280 + 256 = 2,304
    with the option, 2,048 without."""
    import subprocess
    import sys

    (tmp_path / "net.py").write_text(SWITCHED)
    config = textwrap.dedent("""\
        [[tool.staticflops.models]]
        name = "net"
        path = "net.py"
        inputs = ["2x8"]
        budget = {{ training_flops = {budget} }}
        {option}
        """)
    for option, measured in (("gradient_checkpointing = true", 2_304), ("", 2_048)):
        (tmp_path / "pyproject.toml").write_text(config.format(budget=2_200, option=option))
        result = subprocess.run([sys.executable, "-m", "staticflops", "check", "--format", "json", "--no-cache"],
                                capture_output=True, text=True, cwd=tmp_path)
        line = json.loads(result.stdout)["models"][0]["budgets"][0]
        assert (line["metric"], line["measured"]) == ("training_flops", measured), result.stdout + result.stderr
        assert result.returncode == (1 if measured > 2_200 else 0)


HF_CASES = sorted(name for name in TRUTH["cases"] if name.startswith("hf_"))


@pytest.mark.parametrize("name", HF_CASES)
def test_transformers_small_configs_with_and_without_checkpointing(transformers_source, tmp_path, name):
    """The small configs of the transformers tests, from their config.json with
    --gradient-checkpointing and without: FlopCounterMode's training step both ways.  GPT-2,
    T5, Whisper and Gemma 3 tie their output projection to the embedding, whose gradient then
    has that projection's weight gradient too (vocab 1000 x width 64 x 32 tokens x 2 =
    4,096,000 FLOPs of the step)."""
    case = TRUTH["cases"][name]
    small = json.loads((Path(__file__).parent / "fixtures" / "transformers_ground_truth.json").read_text())
    model = small["small"][case["model"]]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(model["config"]))
    inputs = ["x".join(map(str, spec["shape"])) + (":int64" if spec["dtype"] == "int64" else "")
              + ("=1" if spec["name"] == "attention_mask" else "") for spec in model["inputs"]]
    on = staticflops.analyze(config, inputs=inputs, gradient_checkpointing=True, source_path=[transformers_source])
    assert on.totals.complete, [f"{u.location}: {u.what}" for u in on.unknown]
    assert on.totals.forward_flops == case["forward_flops"]
    assert on.totals.training_flops == case["training_flops"]
    off = _training(config, inputs=inputs, source_path=[transformers_source])
    assert off.training_flops == case["training_flops_without"]


PEFT_PACKAGES = {"peft": "0.21.2", "transformers": "5.23.0", "huggingface_hub": "2.4.0", "packaging": "26.4"}


@pytest.mark.parametrize("name", sorted(n for n in TRUTH["cases"] if n.startswith("peft_")))
def test_lora_on_a_checkpointed_base(request, tmp_path_factory, tmp_path, name):
    """LoRA fine-tuning with gradient checkpointing, the usual memory saver: the base's
    embedding is frozen, so transformers hooks its output to require a gradient
    (``enable_input_require_grads``) and the checkpointed layers pass gradients back to the
    adapters; reentrant checkpointing then runs each layer again whole.  As recorded by
    tools/record_checkpointing.py (peft 0.21.2)."""
    case = TRUTH["cases"][name]
    source = wheels.unpacked_side_by_side(request, tmp_path_factory, "peft", PEFT_PACKAGES)
    path = tmp_path / "lora.py"
    path.write_text(textwrap.dedent(f"""\
        from transformers import LlamaConfig, LlamaForCausalLM
        from peft import LoraConfig, get_peft_model

        base = LlamaForCausalLM(LlamaConfig(**{TRUTH["llama_config"]!r}))
        base.gradient_checkpointing_enable(**{case["enable"]!r})
        model = get_peft_model(base, LoraConfig(**{case["lora"]!r}))
        """))
    totals = _training(path, model="model", inputs=["1x32:int64"], source_path=[source])
    assert totals.forward_flops == case["forward_flops"]
    assert totals.training_flops == case["training_flops"]


def test_the_note_says_what_checkpointing_adds(torch_model):
    """196,608 recomputed on a step of 1,211,392 without it: +16.2 %."""
    report = staticflops.analyze(torch_model, model="Net", inputs=["8x16"], training=True)
    note = next(note for note in report.training.notes if "gradient checkpointing" in note)
    assert note.startswith("196,608 FLOPs of forward run again in backward") and "(+16.2 % on the step without it)" in note
