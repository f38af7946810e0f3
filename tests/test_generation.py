"""``--past-tokens``: one generation step over a key/value cache.

Ground truth: tests/fixtures/generation_ground_truth.json, recorded by tools/record_generation.py
executing torch 2.13.0 CPU + transformers 5.23.0 (an uncounted forward on P tokens with
``use_cache=True``, then FlopCounterMode over one new token with that cache; the cache's
elements after the step).  transformers 5.23.0 and huggingface_hub 2.4.0 are read from their
wheels (`pip download --no-deps`), never imported.

By hand for TinyDecoder below (width 32, vocabulary 100, one new token over P cached ones):
  qkv 2*32*96 = 6,144; q @ k^T 2*32*(P + 1); attention @ v 2*(P + 1)*32; out 2*32*100 = 6,400
  (embedding and softmax 0 in the standard rules): 128*P + 12,672 FLOPs.
  cache after the step: keys and values, 1 x (P + 1) x 32 each, float32: 2 * 4 * 32 * (P + 1)
  = 256*P + 256 bytes.
Llama-3-8B (published config) at 2,048 tokens of context: every weight but the embedding once
per token, 2 * (8,030,261,248 - 128,256*4,096) = 15,009,316,864, plus attention over P + 1
positions, 2 (scores and mix) * 2 * 32 layers * 32 heads * 128 * (P + 1) = 524,288 * (P + 1);
its cache 2 * 32 layers * 8 key/value heads * 128 * (P + 1) elements.
"""

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import staticflops
from staticflops.cli.app import app
from staticflops.diagnostics import AnalysisError, UsageError
from test_transformers import source_path as transformers_source  # noqa: F401  (the unpacked wheels, a fixture)

TRUTH = json.loads((Path(__file__).parent / "fixtures" / "generation_ground_truth.json").read_text())
STEPS = [(group, name, index) for group in ("small", "published", "defaults") for name in sorted(TRUTH[group])
         for index in range(len(TRUTH[group][name]["steps"]))]

TINY = textwrap.dedent('''
    import torch
    from torch import nn


    class TinyDecoder(nn.Module):
        def __init__(self, vocab=100, width=32):
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.qkv = nn.Linear(width, 3 * width, bias=False)
            self.out = nn.Linear(width, vocab, bias=False)

        def forward(self, ids, past_key_values=None, use_cache=False):
            x = self.embed(ids)
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            if past_key_values is not None:
                k = torch.cat([past_key_values[0], k], dim=1)
                v = torch.cat([past_key_values[1], v], dim=1)
            attn = torch.softmax(q @ k.transpose(1, 2), dim=-1) @ v
            logits = self.out(attn)
            return (logits, (k, v)) if use_cache else logits


    class Recurrent(nn.Module):
        """A recurrent state by the name RWKV's forward uses, returned in a dict."""

        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(100, 8)
            self.cell = nn.Linear(8, 8, bias=False)

        def forward(self, ids, state=None, use_cache=False):
            x = self.embed(ids)
            h = state if state is not None else torch.zeros(ids.shape[0], 8)
            for t in range(ids.shape[1]):
                h = torch.tanh(self.cell(x[:, t] + h))
            return {"logits": h, "state": h} if use_cache else h


    class NoCache(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, ids, use_cache=False):
            return self.fc(ids.float().unsqueeze(-1).expand(-1, -1, 4))


    class NoKeyword(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, ids):
            return self.fc(ids.float().unsqueeze(-1).expand(-1, -1, 4))
''')


@pytest.fixture
def tiny(tmp_path) -> Path:
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    return path


def test_a_hand_written_tuple_cache_gives_the_step_as_a_formula_in_p(tiny):
    report = staticflops.analyze(tiny, model="TinyDecoder", inputs=["1x1:int64"], past_tokens="P")
    assert report.totals.complete
    assert report.totals.forward_flops == "128*P + 12672"
    assert report.generation.past_tokens == "P"
    assert report.generation.kv_cache_bytes == "256*P + 256"
    assert report.generation.kv_cache_tensors == 2


def test_a_number_of_past_tokens_gives_numbers(tiny):
    report = staticflops.analyze(tiny, model="TinyDecoder", inputs=["1x1:int64"], past_tokens=9, dtype="bf16")
    assert report.totals.forward_flops == 128 * 9 + 12_672
    assert report.generation.kv_cache_bytes == 2 * 2 * 32 * 10  # bfloat16: 2 bytes an element
    assert report.generation.past_tokens == 9


def test_without_the_option_the_forward_runs_once_without_a_cache(tiny):
    report = staticflops.analyze(tiny, model="TinyDecoder", inputs=["1x1:int64"])
    assert report.generation is None
    assert report.totals.forward_flops == 6_144 + 2 * 32 + 2 * 32 + 6_400  # attention over the token itself


def test_a_recurrent_state_is_taken_back_under_its_own_name(tiny):
    """The step of a model whose state is ``state=``: one token through the cell, 2*8*8 = 128
    FLOPs whatever P (tanh and adds 0 in the standard rules); the state after it, 1 x 8 float32
    = 32 bytes.  With P a name the prompt's loop over its tokens has no trip count: the error
    says to give a number."""
    report = staticflops.analyze(tiny, model="Recurrent", inputs=["1x1:int64"], past_tokens=5)
    assert report.totals.complete and report.totals.forward_flops == 128
    assert report.generation.kv_cache_bytes == 32 and report.generation.kv_cache_tensors == 1
    with pytest.raises(AnalysisError, match="--past-tokens P is a name: .*needs a number"):
        staticflops.analyze(tiny, model="Recurrent", inputs=["1x1:int64"], past_tokens="P")


def test_a_model_that_returns_no_cache_is_a_clear_error(tiny):
    with pytest.raises(AnalysisError, match=r"NoCache returned no cache .*"
                                            r"past_key_values or cache_params or state: none") as raised:
        staticflops.analyze(tiny, model="NoCache", inputs=["1x1:int64"], past_tokens=4)
    assert raised.value.location is not None


def test_a_forward_without_use_cache_says_which_forward_failed(tiny):
    with pytest.raises(AnalysisError, match=r"--past-tokens: the forward filling the cache .*unexpected keyword "
                                            r"argument 'use_cache'"):
        staticflops.analyze(tiny, model="NoKeyword", inputs=["1x1:int64"], past_tokens=4)


@pytest.mark.parametrize("options, message", [
    ({"past_tokens": 0}, "--past-tokens expects a number"),
    ({"past_tokens": "P x"}, "--past-tokens expects a number"),
    ({"past_tokens": "1x2"}, "--past-tokens expects a number"),
    ({"past_tokens": True}, "--past-tokens expects a number"),
    ({"past_tokens": 4, "training": True}, "prices an inference step"),
    ({"past_tokens": 4, "inputs": ["1x1:int64", "1x1:int64"]}, "the one --input of a decoder"),
    ({"past_tokens": 4, "inputs": ["1x1x3:int64"]}, "batch x tokens"),
    ({"past_tokens": 4, "keyword_inputs": ["ids=1x1:int64"], "inputs": []}, "decoder_input_ids=1x1:int64 beside"),
    ({"past_tokens": 4, "keyword_inputs": ["decoder_input_ids=1x1x2:int64"]}, "batch x tokens"),
])
def test_malformed_requests_are_usage_errors(tiny, options, message):
    options = {"inputs": ["1x1:int64"], **options}
    with pytest.raises(UsageError, match=message):
        staticflops.analyze(tiny, model="TinyDecoder", **options)


def test_assume_ranges_the_past_size(tiny):
    report = staticflops.analyze(tiny, model="TinyDecoder", inputs=["1x1:int64"], past_tokens="P",
                                 assume=["P>=16"])
    assert report.assumed == ["16 <= P"]
    assert report.totals.forward_flops == "128*P + 12672"
    with pytest.raises(UsageError, match="Q is not a size named"):
        staticflops.analyze(tiny, model="TinyDecoder", inputs=["1x1:int64"], past_tokens="P", assume=["Q>=2"])


def test_the_cli_prints_the_step_and_the_json_has_it(tiny):
    runner = CliRunner()
    result = runner.invoke(app, ["analyze", str(tiny), "-m", "TinyDecoder", "--input", "1x1:int64",
                                 "--past-tokens", "9", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "Generation step over the cache of 9 earlier tokens" in result.output
    assert "2.56 KB (float32, 2 tensors)" in result.output  # 256 * 10 bytes
    data = json.loads(runner.invoke(app, ["analyze", str(tiny), "-m", "TinyDecoder", "--input", "1x1:int64",
                                          "--past-tokens", "9", "--no-cache", "-f", "json"]).output)
    assert data["generation"] == {"past_tokens": 9, "kv_cache_bytes": 2_560, "kv_cache_tensors": 2}
    plain = json.loads(runner.invoke(app, ["analyze", str(tiny), "-m", "TinyDecoder", "--input", "1x1:int64",
                                           "--no-cache", "-f", "json"]).output)
    assert "generation" not in plain  # absent, not null, without the option
    markdown = runner.invoke(app, ["analyze", str(tiny), "-m", "TinyDecoder", "--input", "1x1:int64",
                                   "--past-tokens", "P", "--no-cache", "-f", "markdown"]).output
    assert "cache of `P` earlier tokens" in markdown
    refused = runner.invoke(app, ["analyze", str(tiny), "-m", "TinyDecoder", "--input", "1x1:int64",
                                  "--past-tokens", "-3", "--no-cache"])
    assert refused.exit_code == 1 and "--past-tokens expects a number" in refused.output  # as --hardware without --mfu


@pytest.mark.parametrize("group, name, index", STEPS)
def test_transformers_step_equals_flop_counter_mode(transformers_source, tmp_path, group, name, index):
    """Small configs at P = 7 and 31, Llama-3-8B at 2047, and 23 popular decoders from their
    default config.json at P = 7 (Qwen2/3, Phi, Gemma 1/2, OPT, BLOOM, GPT-NeoX, GPT-J, Falcon,
    StableLM, GPTBigCode, StarCoder2, OLMo 1/2, Cohere, Granite, GPT-Neo, CodeGen, and InternLM3,
    IQuestCoder and GPT-SW3, which build another folder's class with their own config class):
    nothing of any of them is special-cased."""
    step = TRUTH[group][name]["steps"][index]
    _assert_step_as_recorded(TRUTH[group][name]["config"], step, transformers_source, tmp_path,
                             step["kv_cache_elements"], step["kv_cache_tensors"])


def _assert_step_as_recorded(config_json: dict, step: dict, source, tmp_path, elements: int, tensors: int):
    """The step of one new token from ``config_json``: complete, and as recorded (its cache
    ``elements`` float32 values in ``tensors`` tensors)."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps(config_json))
    report = staticflops.analyze(config, inputs=["1x1:int64"], past_tokens=step["past_tokens"], source_path=[source])
    assert report.totals.complete, [f"{u.location}: {u.what}" for u in report.unknown]
    assert report.totals.forward_flops == step["forward_flops"]
    assert report.generation.kv_cache_bytes == 4 * elements  # float32
    assert report.generation.kv_cache_tensors == tensors
    assert report.outputs[0] == step["output_shapes"]["logits"]


SEQ2SEQ_STEPS = [(name, index) for name in sorted(TRUTH["seq2seq"]) for index in range(len(TRUTH["seq2seq"][name]["steps"]))]


@pytest.mark.parametrize("name, index", SEQ2SEQ_STEPS)
def test_an_encoder_decoder_step_takes_the_encoder_output_once(transformers_source, tmp_path, name, index):
    """T5 and Whisper small configs, and BART from its default config.json (bart-large's
    size): the encoder's inputs as given, the new token by keyword
    (decoder_input_ids); the step reuses the first forward's encoder output (encoder_outputs=,
    as generate() passes it) and its cross-attention keys and values from the cache."""
    entry = TRUTH["seq2seq"][name]
    step = entry["steps"][index]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(entry["config"]))
    inputs = ["x".join(map(str, shape)) + ("" if dtype == "float32" else f":{dtype}")
              + ("=1" if argument == "attention_mask" else "") for argument, shape, dtype in step["encoder_inputs"]]
    report = staticflops.analyze(config, inputs=inputs, keyword_inputs=["decoder_input_ids=1x1:int64"],
                                 past_tokens=step["past_tokens"], source_path=[transformers_source])
    assert report.totals.complete, [f"{u.location}: {u.what}" for u in report.unknown]
    assert report.totals.forward_flops == step["forward_flops"]
    assert report.generation.kv_cache_bytes == 4 * step["kv_cache_elements"]  # self- and cross-attention caches
    assert report.generation.kv_cache_tensors == step["kv_cache_tensors"]


STATE_STEPS = [(name, index) for name in sorted(TRUTH["state_space"])
               for index in range(len(TRUTH["state_space"][name]["steps"]))]


@pytest.mark.parametrize("name, index", STATE_STEPS)
def test_a_state_space_step_takes_back_its_recurrent_state(transformers_source, tmp_path, name, index):
    """Mamba, Falcon-Mamba, Mamba-2, xLSTM and RWKV from their default config.json: forward
    returns ``cache_params`` (RWKV: ``state``; a convolution window and a recurrent state per
    layer, no keys or values), and the step gets it back under that name.  Nothing of these models is special-cased.  Their
    step costs the same at P = 7 and 31, and so does their state (recorded, and asserted below).
    Mamba's state by hand: 32 layers x (conv 1 x 1,536 x 4 + SSM 1 x 1,536 x 16) = 983,040
    elements; xLSTM's: 32 layers x 8 heads x (256 x 512 + 256 + 1) = 33,620,224."""
    entry = TRUTH["state_space"][name]
    step = entry["steps"][index]
    _assert_step_as_recorded(entry["config"], step, transformers_source, tmp_path, step["state_elements"],
                             step["state_tensors"])
    assert {s["forward_flops"] for s in entry["steps"]} == {step["forward_flops"]}  # whatever P
    if name == "mamba":
        assert step["state_elements"] == 32 * (1_536 * 4 + 1_536 * 16)
    if name == "xlstm":
        assert step["state_elements"] == 32 * 8 * (256 * 512 + 256 + 1)


def test_llama_3_8b_step_is_a_formula_in_p_matching_the_recording(transformers_source, tmp_path):
    entry = TRUTH["published"]["llama-3-8b"]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(entry["config"]))
    # the prompt's forward asks whether P tokens are more than one (sdpa's `q_length > 1`)
    undecided = staticflops.analyze(config, inputs=["1x1:int64"], past_tokens="P", source_path=[transformers_source])
    assert {u.what for u in undecided.unknown} == {"cannot compare P with 1"}
    report = staticflops.analyze(config, inputs=["1x1:int64"], past_tokens="P", source_path=[transformers_source],
                                 dtype="bf16", assume=["P>=2"])
    assert report.totals.complete
    # by hand (module docstring): 15,009,316,864 + 524,288 * (P + 1)
    assert report.totals.forward_flops == "524288*P + 15009841152"
    assert 524_288 * 2_047 + 15_009_841_152 == entry["steps"][0]["forward_flops"]
    assert report.generation.kv_cache_bytes == "131072*P + 131072"  # 2 * 32 * 8 * 128 elements, 2 bytes each
    assert 65_536 * 2_048 == entry["steps"][0]["kv_cache_elements"]


def test_a_sliding_window_cache_leaves_the_window_comparison_open_until_assumed(transformers_source, tmp_path):
    """Mistral's small config keeps a window of 16: the step attends to min(P + 1, 16) positions, so P
    against the window is undecided, until --assume puts P past it: then as recorded at P = 31."""
    entry = TRUTH["small"]["mistral"]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(entry["config"]))
    open_report = staticflops.analyze(config, inputs=["1x1:int64"], past_tokens="P", assume=["P>=2"],
                                      source_path=[transformers_source])
    assert not open_report.totals.complete
    assert any("cannot compare P with 16" in u.what for u in open_report.unknown)
    past_window = staticflops.analyze(config, inputs=["1x1:int64"], past_tokens="P", assume=["P>=16"],
                                      source_path=[transformers_source])
    assert past_window.totals.complete
    assert past_window.totals.forward_flops == entry["steps"][1]["forward_flops"]  # P = 31: no P left in it


def test_a_project_budget_prices_the_generation_step(tmp_path):
    """`past_tokens = 9` in a project config: the forward_flops budget is the step's, 128*9 +
    12,672 = 13,824 FLOPs (module docstring); without it, the one-token forward, 6,144 + 6,400 +
    128 (attention over the token itself) = 12,672."""
    import subprocess
    import sys

    (tmp_path / "tiny.py").write_text(TINY)
    config = textwrap.dedent("""\
        [[tool.staticflops.models]]
        name = "tiny"
        path = "tiny.py"
        model = "TinyDecoder"
        inputs = ["1x1:int64"]
        budget = {{ forward_flops = 13000 }}
        {option}
        """)
    for option, measured in (("past_tokens = 9", 13_824), ("", 12_672)):
        (tmp_path / "pyproject.toml").write_text(config.format(option=option))
        result = subprocess.run([sys.executable, "-m", "staticflops", "check", "--format", "json", "--no-cache"],
                                capture_output=True, text=True, cwd=tmp_path)
        line = json.loads(result.stdout)["models"][0]["budgets"][0]
        assert (line["metric"], line["measured"]) == ("forward_flops", measured), result.stdout + result.stderr
        assert result.returncode == (1 if measured > 13_000 else 0)


def test_n_new_tokens_are_the_prompt_plus_n_minus_one_steps(tiny):
    """docs/transformers.md's recipe on TinyDecoder (no causal mask: the prompt attends to all of
    itself): the prompt of T tokens is qkv 6,144*T + scores 64*T**2 + mix 64*T**2 + out 6,400*T =
    128*T**2 + 12,544*T.  T = 4, N = 3: prompt 2,048 + 50,176 = 52,224; steps at P = 4 and 5:
    13,184 + 13,312 = 26,496; in all 78,720."""
    prompt = staticflops.analyze(tiny, model="TinyDecoder", inputs=["1xT:int64"])
    step = staticflops.analyze(tiny, model="TinyDecoder", inputs=["1x1:int64"], past_tokens="P")
    assert prompt.totals.forward_flops == "128*T**2 + 12544*T"
    T, N = 4, 3
    total = prompt.totals.at(T=T).forward_flops + sum(step.totals.at(P=p).forward_flops for p in range(T, T + N - 1))
    assert total == 78_720
