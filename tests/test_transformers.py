"""Hugging Face transformers 5.23.0 read as written, from a config.json, without torch.

Ground truth: tests/fixtures/transformers_ground_truth.json, recorded by
tools/record_transformers.py executing torch 2.13.0 CPU + transformers 5.23.0 (eager attention,
use_cache=False, FlopCounterMode in eval under no_grad; published sizes' params on the meta
device).  The configs the recording used are in the fixture; each test writes one as a
config.json and analyses it with transformers' source (``pip download --no-deps``, never
imported) given by --source-path.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import staticflops
import wheels
from staticflops.cli.app import app

HERE = Path(__file__).parent
TRUTH = json.loads((HERE / "fixtures" / "transformers_ground_truth.json").read_text())
PACKAGES = {"transformers": TRUTH["versions"]["transformers"], "huggingface_hub": "2.4.0"}


@pytest.fixture(scope="module")
def source_path(request, tmp_path_factory) -> Path:
    """transformers 5.23.0 and huggingface_hub 2.4.0 (its config classes are huggingface_hub
    strict dataclasses) unpacked once into pytest's cache folder (a temporary one when the
    cache plugin is off); skipped with the reason when PyPI cannot be reached."""
    name = "transformers-" + "-".join(f"{k}{v}" for k, v in PACKAGES.items())
    for package, version in PACKAGES.items():
        folder = wheels.unpacked(request, tmp_path_factory, package, version, f"{package}/", folder=name)
    return folder


def _config_file(tmp_path, config: dict) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


def _analyse(tmp_path, source_path, config, inputs, **options):
    return staticflops.analyze(_config_file(tmp_path, config), inputs=inputs, source_path=[source_path], **options)


def _shape(spec) -> str:
    return "x".join(str(d) for d in spec["shape"]) + (":int64" if spec["dtype"] == "int64" else "")


# ---- small configs, batch 1 x seq 32 (ViT: one 224x224 image; T5: input_ids, attention_mask,
# decoder_input_ids): params, FLOPs and output shapes exact

@pytest.mark.parametrize("name", ["llama", "gpt2", "bert", "mistral", "vit", "t5"])
def test_small_config_is_exact(tmp_path, source_path, name):
    entry = TRUTH["small"][name]
    inputs = [_shape(spec) for spec in entry["inputs"] if spec["shape"] is not None]
    report = _analyse(tmp_path, source_path, entry["config"], inputs)
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["forward_flops"]
    assert sorted(tuple(s) for s in report.outputs if s is not None) == \
        sorted(tuple(s) for s in entry["output_shapes"].values())


def test_model_option_picks_another_head(tmp_path, source_path):
    """--model LlamaModel: the base model of the same config, without the LM head: the recorded
    LlamaForCausalLM minus lm_head (64 -> 1000, no bias): 64*1000 = 64,000 params and
    2*32*64*1000 = 4,096,000 FLOPs at 1x32."""
    entry = TRUTH["small"]["llama"]
    report = staticflops.analyze(_config_file(tmp_path, entry["config"]), model="LlamaModel", inputs=["1x32:int64"],
                                 source_path=[source_path])
    assert report.totals.params == entry["params"] - 64_000
    assert report.totals.forward_flops == entry["forward_flops"] - 4_096_000
    assert report.outputs == [[1, 32, 64]]


# ---- published sizes --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["gpt2", "bert-base-uncased"])
def test_published_size_params_and_flops(tmp_path, source_path, name):
    entry = TRUTH["published"][name]
    report = _analyse(tmp_path, source_path, entry["config"], ["1x32:int64"])
    assert report.totals.params == entry["params"]  # 124,439,808 (GPT-2) / 109,482,240 (BERT-base)
    assert report.totals.forward_flops == entry["forward_flops"]


def test_llama_3_8b_symbolic_sequence_length(tmp_path, source_path):
    """Llama-3-8B from its config: 8,030,261,248 params (published; recorded on the meta
    device), and --input 1xT gives a formula in T with the attention's T^2 term visible.
    By hand: every weight but the embedding (128,256 x 4,096, a lookup) and the 65 RMSNorm
    weights (4,096 each, elementwise) is one MAC per token: 8,030,261,248 - 525,336,576 -
    266,240 = 7,504,658,432 MACs, 15,009,316,864 FLOPs per token; attention adds Q.K^T and
    A.V, each 32 heads x T x T x 128 MACs, in 32 layers: 2*2*32*128*32 = 524,288 FLOPs x T^2."""
    entry = TRUTH["published"]["llama-3-8b"]
    report = _analyse(tmp_path, source_path, entry["config"], ["1xT:int64"])
    assert report.totals.params == entry["params"] == 8_030_261_248
    assert report.totals.forward_flops == "524288*T**2 + 15009316864*T"
    assert report.outputs == [[1, "T", 128_256]]


# ---- bad input: a located message, exit 1 ------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ('{"architectures": ["LlamaForCausalLM"]}', "config.json:1:1: error: the config has no `model_type`"),
    ('{"model_type": "llama"', "config.json:1:23: error: not valid JSON"),
    ('{"model_type": "llama"}', "config.json:1:1: error: the config names no architecture"),
    ('{"model_type": "../../etc", "architectures": ["X"]}', "config.json:1:1: error: the config has no `model_type`"),
])
def test_bad_config_is_a_located_error(tmp_path, text, message):
    path = tmp_path / "config.json"
    path.write_text(text)
    result = CliRunner().invoke(app, ["analyze", str(path), "--input", "1x32:int64"])
    assert result.exit_code == 1, result.output
    assert message in result.output.replace(str(tmp_path) + "/", "")


# ---- the torch pieces transformers' modeling code uses (hand-derived) -------------------------

BLOCKS = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Blocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(16, 16))
        self.register_buffer("ids", torch.zeros(1, 8, dtype=torch.long), persistent=False)
        self.weight = nn.Parameter(torch.zeros(16, 32))
        self.bias = nn.Parameter(torch.zeros(32))
        tied = self.get_parameter("inner.0.weight")
        self.count = len(list(self.buffers())) * 10 + (self.get_submodule("inner.0") is self.inner[0]) + (tied is self.inner[0].weight) * 100

    def forward(self, x):
        y = torch.addmm(self.bias, x.view(-1, 16), self.weight)
        q = torch.zeros(1, 4, 8, 16)
        kv = torch.zeros(1, 2, 8, 16)
        z = F.scaled_dot_product_attention(q, kv, kv, enable_gqa=True)
        g = torch.gather(self.ids.expand(2, 8), dim=1, index=torch.zeros(2, 5, dtype=torch.long))
        return y, z, g, torch.zeros(self.count)
'''


def test_addmm_gqa_attention_gather_buffers_and_submodules(tmp_path):
    from staticflops.api import analyze_text
    report = analyze_text(BLOCKS, tmp_path / "blocks.py", inputs=["4x16"])
    # addmm: (4 x 16) @ (16 x 32) = 2,048 MACs; attention with 4 query heads sharing 2 key/value
    # heads: Q.K^T and A.V, each 1 x 4 heads x 8 x 8 x 16 = 4,096 MACs; gather and the buffers: none
    assert report.totals.forward_flops == 2 * (2_048 + 2 * 4_096)
    assert report.totals.params == 16 * 16 + 16 + 16 * 32 + 32
    # outputs: addmm 4x32, attention with the query's heads, gather index-shaped; count: one
    # registered buffer, the submodule found, the parameter is that Linear's weight
    assert report.outputs == [[4, 32], [1, 4, 8, 16], [2, 5], [111]]
