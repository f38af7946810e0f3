"""Hugging Face transformers 5.23.0 read as written, from a config.json, without torch.

Ground truth: tests/fixtures/transformers_ground_truth.json, recorded by
tools/record_transformers.py executing torch 2.13.0 CPU + transformers 5.23.0 (eager attention,
use_cache=False, FlopCounterMode in eval under no_grad; published sizes' params on the meta
device).  The configs the recording used are in the fixture; each test writes one as a
config.json and analyses it with transformers' source (``pip download --no-deps``, never
imported) given by --source-path.
"""

import json
import textwrap
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import staticflops
import wheels
from cache_helpers import entry_stubs
from staticflops.cli.app import app

HERE = Path(__file__).parent
TRUTH = json.loads((HERE / "fixtures" / "transformers_ground_truth.json").read_text())
PACKAGES = {"transformers": TRUTH["versions"]["transformers"], "huggingface_hub": "2.4.0"}


@pytest.fixture(scope="module")
def source_path(request, tmp_path_factory) -> Path:
    """transformers 5.23.0 and huggingface_hub 2.4.0 (its config classes are huggingface_hub
    strict dataclasses) unpacked once into pytest's cache folder (a temporary one when the
    cache plugin is off); skipped with the reason when PyPI cannot be reached."""
    return wheels.unpacked_side_by_side(request, tmp_path_factory, "transformers", PACKAGES)


def _config_file(tmp_path, config: dict) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


def _analyse(tmp_path, source_path, config, inputs, **options):
    return staticflops.analyze(_config_file(tmp_path, config), inputs=inputs, source_path=[source_path], **options)


def _shape(spec) -> str:
    return "x".join(str(d) for d in spec["shape"]) + (":int64" if spec["dtype"] == "int64" else "")


# ---- small configs, batch 1 x seq 32 (ViT, ConvNeXt: one 224x224 image; T5: input_ids,
# attention_mask, decoder_input_ids; Whisper: input_features 1x80x3000, attention_mask 1x3000,
# decoder_input_ids; Mixtral: recorded with the eager per-expert loop, analysed through the
# default grouped GEMM -- the same multiplications; Marian: numpy sinusoidal tables of 2 x 524,288
# entries; gemma3_text: a model type without a folder of its own, found through transformers'
# SPECIAL_MODEL_TYPE_TO_MODULE_NAME): params, FLOPs and output shapes exact

@pytest.mark.parametrize("name", ["llama", "gpt2", "bert", "mistral", "vit", "t5", "mixtral", "convnext", "whisper",
                                  "marian", "gemma3_text"])
def test_small_config_is_exact(tmp_path, source_path, name):
    entry = TRUTH["small"][name]
    # the recording's attention masks are all ones (record_transformers.py): `=1` says so
    inputs = [_shape(spec) + ("=1" if spec["name"] == "attention_mask" else "")
              for spec in entry["inputs"] if spec["shape"] is not None]
    report = _analyse(tmp_path, source_path, entry["config"], inputs)
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["forward_flops"]
    assert sorted(tuple(s) for s in report.outputs if s is not None) == \
        sorted(tuple(s) for s in entry["output_shapes"].values())
    # transformers' device, tracing and tensor-attribute probes are answered (torch/accelerators.py,
    # tensor_attribute_names.py) and the masks' values given: nothing is left unresolved, so the
    # total is not a lower bound
    assert report.totals.complete, [f"{u.location}: {u.what}" for u in report.unknown]


def test_an_attention_mask_of_unknown_values_leaves_its_padding_check_open(tmp_path, source_path):
    """T5 given a 1x32 attention mask without `=1`: whether it pads anything (`padding_mask.all()`
    in masking_utils, which decides whether a mask tensor is built) depends on values not given,
    an assumption the report names; the count is the recorded one all the same."""
    entry = TRUTH["small"]["t5"]
    inputs = [_shape(spec) for spec in entry["inputs"] if spec["shape"] is not None]
    report = _analyse(tmp_path, source_path, entry["config"], inputs)
    assert report.totals.forward_flops == entry["forward_flops"]
    opened = [f"{u.location}: {u.what}" for u in report.unknown]
    assert opened and all("masking_utils.py" in line and "one-element tensor whose value" in line for line in opened)


@pytest.mark.parametrize("group, name, flops", [("small", "mixtral", 12_517_376),
                                                ("published", "mixtral-8x7b", 816_446_439_424)])
def test_mixtral_eager_expert_loop_is_the_recorded_count(tmp_path, source_path, group, name, flops):
    """The small config's recording ran the eager per-expert loop (`experts_implementation=
    "eager"`); Mixtral-8x7B's ran on the meta device through the grouped GEMM, a route the
    recording script checks against the CPU eager loop on the small configs.  Asked for that
    loop, staticflops counts it through its one-hot routing mask (frontend/torch/routing.py):
    the 32 x 2 routed rows priced once whatever the split, so the same recorded FLOPs.  The
    compare on the expert index (`if expert_idx == self.num_experts`) runs once per expert
    reached: a located unknown, 0 FLOPs under this convention."""
    entry = TRUTH[group][name]
    report = _analyse(tmp_path, source_path, dict(entry["config"], experts_implementation="eager"), ["1x32:int64"])
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["forward_flops"] == flops
    assert any("once per expert" in u.what for u in report.unknown)
    assert not any("depends on the routing" in u.what for u in report.unknown)


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


def test_training_prints_6nt_beside_the_exact_count(tmp_path, source_path):
    """--training on a config.json: the small Llama's non-embedding params are the recorded
    220,480 minus the 1000 x 64 token embedding = 156,480; 6 x 156,480 x 32 tokens =
    30,044,160 FLOPs, printed beside the exact training count."""
    entry = TRUTH["small"]["llama"]
    result = CliRunner().invoke(app, ["analyze", str(_config_file(tmp_path, entry["config"])), "--input", "1x32:int64",
                                      "--training", "--source-path", str(source_path)])
    assert result.exit_code == 0, result.output
    assert "Rule of thumb 6·N·T: 30.04 MFLOPs per step (N = non-embedding parameters, T = 32 tokens); exact:" \
        in " ".join(result.output.split())


# ---- published sizes --------------------------------------------------------------------------

@pytest.mark.parametrize("name, published", [("gpt2", 124_439_808), ("bert-base-uncased", 109_482_240),
                                             ("mistral-7b-v0.1", 7_241_732_096), ("mixtral-8x7b", 46_702_792_704)])
def test_published_size_params_and_flops(tmp_path, source_path, name, published):
    """GPT-2 and BERT-base recorded on CPU; Mistral-7B and Mixtral-8x7B on the meta device (the
    patches are in record_transformers.measure_on_meta; that route gives the CPU counts on the
    small Llama, Mistral and Mixtral configs).  Mixtral-8x7B by hand: per token, attention
    4096 x (4096 + 1024 + 1024 + 4096) = 41,943,040 MACs, 2 of 8 experts x 3 x 4096 x 14336 =
    352,321,536, router 4096 x 8 = 32,768, in 32 layers, plus the LM head 4096 x 32000 =
    131,072,000: 12,748,587,008 MACs per token, x 2 x 32 tokens = 815,909,568,512, plus the
    attention's 2 x 2 x 32 heads x 32 x 32 x 128 x 32 layers = 536,870,912: 816,446,439,424."""
    entry = TRUTH["published"][name]
    report = _analyse(tmp_path, source_path, entry["config"], ["1x32:int64"])
    assert report.totals.params == entry["params"] == published
    assert report.totals.forward_flops == entry["forward_flops"]
    assert report.outputs == list(entry["output_shapes"].values())
    assert report.totals.complete, [f"{u.location}: {u.what}" for u in report.unknown]


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
    # left open for a symbol T (at T = 32 the report is complete: the tests above): the SDPA
    # wrapper's `q_length > 1` (T may be 1), which does not change the count.  The
    # packed-sequence check on arange(T) is decided (its positions are a known progression).
    assert report.unknown and all(u.what == "cannot compare T with 1" for u in report.unknown)
    # more than one token (--assume T>=2): decided, the same formula, complete in that range
    ranged = _analyse(tmp_path, source_path, entry["config"], ["1xT:int64"], assume=["T>=2"])
    assert ranged.totals.forward_flops == "524288*T**2 + 15009316864*T"
    assert ranged.totals.complete and not ranged.unknown and ranged.assumed == ["2 <= T"]
    # at T = 32: the forward recorded on the meta device (record_transformers.measure_on_meta)
    assert 524288 * 32**2 + 15009316864 * 32 == entry["forward_flops"] == 480_835_010_560
    assert report.outputs == [[1, "T", 128_256]]


def test_gpt2_formula_in_t_is_complete_for_more_than_one_token(tmp_path, source_path):
    """--assume T>=2 decides the SDPA wrapper's `q_length > 1`, so GPT-2's formula is complete
    and says the range it holds in.  By hand, per token: 12 layers x (768 x 2304 + 768 x 768 +
    768 x 3072 + 3072 x 768) = 84,934,656 MACs, plus the LM head 768 x 50,257 = 38,597,376:
    123,532,032 MACs = 247,064,064 FLOPs x T; attention 2 x 2 x 12 heads x 64 x 12 layers =
    36,864 FLOPs x T^2.  At T = 32 that is the forward recorded on CPU."""
    entry = TRUTH["published"]["gpt2"]
    report = _analyse(tmp_path, source_path, entry["config"], ["1xT:int64"], assume=["T>=2"])
    assert report.totals.forward_flops == "36864*T**2 + 247064064*T"
    assert report.totals.complete and not report.unknown, [f"{u.location}: {u.what}" for u in report.unknown]
    assert report.assumed == ["2 <= T"]
    assert 36864 * 32**2 + 247064064 * 32 == entry["forward_flops"] == 7_943_798_784
    open_report = _analyse(tmp_path, source_path, entry["config"], ["1xT:int64"])
    assert not open_report.totals.complete and open_report.assumed == []
    assert {u.what for u in open_report.unknown} == {"cannot compare T with 1"}


def test_t5_decoder_input_by_keyword(tmp_path, source_path):
    """`--keyword-input decoder_input_ids=1x32:int64` skips T5's optional attention_mask (None:
    nothing masked, as the recorded all-ones mask): the recorded small T5's params and FLOPs."""
    entry = TRUTH["small"]["t5"]
    report = _analyse(tmp_path, source_path, entry["config"], ["1x32:int64"],
                      keyword_inputs=["decoder_input_ids=1x32:int64"])
    assert report.unknown == []
    assert (report.totals.params, report.totals.forward_flops) == (entry["params"], entry["forward_flops"])


def test_compare_reads_a_config_json(tmp_path, source_path):
    """`compare` takes a config.json as `analyze` does, and --assume: GPT-2's conventions side by
    side in T.  By hand (the test above): 36,864*T^2 + 247,064,064*T FLOPs under FlopCounterMode's
    convention, half of each in MACs: 18,432*T^2 + 123,532,032*T."""
    entry = TRUTH["published"]["gpt2"]
    comparison = staticflops.compare(_config_file(tmp_path, entry["config"]), inputs=["1xT:int64"],
                                     rules=["standard", "fvcore"], source_path=[source_path], assume=["T>=2"])
    standard = comparison.conventions[0]
    assert [row.rules for row in comparison.conventions] == ["standard", "fvcore"] and standard.complete
    assert standard.forward_flops == "36864*T**2 + 247064064*T" and standard.macs == "18432*T**2 + 123532032*T"
    assert comparison.assumed == ["2 <= T"]
    result = CliRunner().invoke(app, ["compare", str(_config_file(tmp_path, entry["config"])), "--input", "1xT:int64",
                                      "--assume", "T>=2", "--rules", "standard", "--source-path", str(source_path),
                                      "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "for `2 <= T`" in result.output and "36864*T**2 + 247064064*T" in result.output


def test_check_budgets_a_config_json_model(tmp_path, source_path):
    """A configured model may be a config.json, with the library's source in a folder inside
    the project (``source_path``; one outside is refused).  Small Llama, recorded with torch:
    220,480 params and 10,518,528 forward FLOPs, so budgets of 11M FLOPs / 221K params pass and
    a 10M-FLOP budget fails by 518,528."""
    entry = TRUTH["small"]["llama"]
    (tmp_path / "llama").mkdir()
    (tmp_path / "llama" / "config.json").write_text(json.dumps(entry["config"]))
    for package in PACKAGES:
        shutil.copytree(source_path / package, tmp_path / "site" / package)

    def check(budget: str) -> subprocess.CompletedProcess:
        (tmp_path / "pyproject.toml").write_text(
            '[tool.staticflops]\nsource_path = ["site"]\n\n[[tool.staticflops.models]]\nname = "llama"\n'
            f'path = "llama/config.json"\ninputs = ["1x32:int64"]\nbudget = {{ {budget} }}\n')
        return subprocess.run([sys.executable, "-m", "staticflops", "check", "--exact", "--no-cache"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)

    passing = check('forward_flops = "11M", params = "221K"')
    assert passing.returncode == 0, passing.stdout + passing.stderr
    failing = check('forward_flops = "10M"')
    assert failing.returncode == 1
    assert "forward_flops is over budget: 10518528 > 10000000 (+518528)" in failing.stdout.replace(",", "")


def test_second_analysis_of_a_config_reads_cached_trees(tmp_path, source_path):
    """The config.json route keeps the parsed-module cache in the config's project folder:
    the first analysis stores a tree per transformers file it read, the second reads them
    (none written again) and reports the same."""
    entry = TRUTH["small"]["llama"]
    first = _analyse(tmp_path, source_path, entry["config"], ["1x32:int64"]).to_json()
    folder = tmp_path / ".staticflops_cache" / "parsed"
    stamps = {p: p.stat().st_mtime_ns for p in folder.glob("*.tree")}
    assert len(stamps) > 20  # modeling_llama.py, modeling_utils.py, configuration_utils.py, ...
    second = _analyse(tmp_path, source_path, entry["config"], ["1x32:int64"]).to_json()
    assert second == first
    assert {p: p.stat().st_mtime_ns for p in folder.glob("*.tree")} == stamps


def test_a_first_analysis_imports_no_libcst_and_stubbed_bodies_are_exact_later(tmp_path, source_path):
    """A cold config.json analysis reads library files, our stub sources, the generated stand-in
    module and the --model expression with Python's parser: libcst is never imported.  It stores
    the library trees with only the function bodies it ran; Mistral, analysed next in the same
    folder, runs bodies of the shared files that Llama did not (lowered from the text) and must
    still match its recorded counts."""
    llama, mistral = TRUTH["small"]["llama"], TRUTH["small"]["mistral"]
    path = _config_file(tmp_path, llama["config"])
    code = ("import sys; from staticflops import api; r = api.analyze(sys.argv[1], inputs=[sys.argv[2]], "
            "source_path=[sys.argv[3]]); print(r.totals.forward_flops, 'libcst' in sys.modules)")
    inputs = [_shape(spec) for spec in llama["inputs"] if spec["shape"] is not None]
    done = subprocess.run([sys.executable, "-c", code, str(path), *inputs, str(source_path)], capture_output=True,
                          text=True, check=True, env=os.environ)
    flops, imported = done.stdout.split()
    assert int(flops) == llama["forward_flops"] and imported == "False"
    stored = [entry_stubs(p.read_bytes()) for p in (tmp_path / ".staticflops_cache" / "parsed").glob("*.tree")]
    assert any(stubs.get("IndentedBlock") for stubs in stored)  # bodies never run: stubs
    report = _analyse(tmp_path, source_path, mistral["config"],
                      [_shape(spec) for spec in mistral["inputs"] if spec["shape"] is not None])
    assert (report.totals.params, report.totals.forward_flops) == (mistral["params"], mistral["forward_flops"])


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


def test_a_missing_transformers_or_model_type_says_so(tmp_path, source_path):
    """No transformers where libraries are read (an empty --source-path, run by a Python without
    it): the error says how to install it, not an unknown import.  A model_type the installed
    transformers has no folder for (transfo-xl, removed before 5.x): the error names the file it
    looked for.  An architecture its modeling file never names: the error lists the heads."""
    empty = tmp_path / "empty"
    empty.mkdir()
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", "architectures": ["LlamaForCausalLM"]}')
    code = ("import sys, staticflops\n"
            "try:\n    staticflops.analyze(sys.argv[1], inputs=['1x32:int64'], source_path=[sys.argv[2]])\n"
            "except staticflops.AnalysisError as error:\n    print(error)\n")
    isolated = subprocess.run([sys.executable, "-I", "-c", code, str(path), str(empty)], capture_output=True,
                              text=True, cwd=tmp_path)  # -I: no user site-packages with a transformers in it
    found = "transformers" in subprocess.run([sys.executable, "-I", "-c", "import importlib.util as u; "
                                              "print(u.find_spec('transformers') and 'transformers')"],
                                             capture_output=True, text=True).stdout
    if not found:  # (a test environment that has transformers installed cannot show the first case)
        assert "pip install --no-deps transformers huggingface_hub" in isolated.stdout, isolated.stdout + isolated.stderr
    path.write_text('{"model_type": "transfo-xl", "architectures": ["TransfoXLLMHeadModel"]}')
    result = CliRunner().invoke(app, ["analyze", str(path), "--input", "1x32:int64", "--source-path", str(source_path)])
    assert result.exit_code == 1
    assert "no modeling file for model_type 'transfo-xl' (transformers/models/transfo_xl/modeling_transfo_xl.py)" \
        in result.output.replace("\n", " ")
    # a head the modeling file never names: the error lists the file's model classes
    path.write_text('{"model_type": "llama", "architectures": ["LlamaForFooBar"]}')
    result = CliRunner().invoke(app, ["analyze", str(path), "--input", "1x32:int64", "--source-path", str(source_path)])
    assert result.exit_code == 1
    shown = " ".join(result.output.split())
    assert "modeling_llama has no class LlamaForFooBar; its model classes: LlamaModel, LlamaForCausalLM," in shown


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


GROUPED = '''
import torch
import torch.nn as nn


class Experts(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Parameter(torch.zeros(4, 16, 32))
        self.router = nn.Linear(16, 4, bias=False)

    def forward(self, x):
        weights, index = torch.topk(self.router(x).softmax(-1), 2, dim=-1)
        ids, perm = torch.sort(index.reshape(-1))
        counts = torch.histc(ids.float(), bins=4, min=0, max=3)
        offsets = torch.cumsum(counts, dim=0, dtype=torch.int32)
        rows = x[perm // 2]
        batched = torch._grouped_mm(torch.zeros(4, 5, 16), self.up, offs=None)
        return torch.nn.functional.grouped_mm(rows, self.up, offs=offsets), counts, batched
'''


def test_grouped_mm_counts_every_routed_row_once(tmp_path):
    """The default mixture-of-experts path of transformers (a grouped GEMM over tokens sorted by
    expert): each of the 8 tokens x top-2 = 16 routed rows meets one 16 x 32 expert matrix,
    16 x 16 x 32 = 8,192 MACs whatever the per-expert split; the router is 8 x 16 x 4 = 512 MACs;
    3-D with 3-D is batched: 4 x 5 x 16 x 32 = 10,240 MACs.  histc: 4 bins, no arithmetic."""
    from staticflops.api import analyze_text
    report = analyze_text(GROUPED, tmp_path / "experts.py", inputs=["8x16"])
    assert report.totals.forward_flops == 2 * (8_192 + 512 + 10_240)
    assert report.outputs == [[16, 32], [4], [4, 5, 32]]


# ---- a hub-cache snapshot folder is its config.json --------------------------------------------

def _hub_cache(tmp_path, config: dict, blob_target=None) -> Path:
    """The layout huggingface_hub writes: models--org--name/{blobs/<hash>, refs/main,
    snapshots/<rev>/config.json -> ../../blobs/<hash>}."""
    revision = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--org--tiny"
    (repo / "blobs").mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "snapshots" / revision).mkdir(parents=True)
    (repo / "blobs" / "b1").write_text(json.dumps(config))
    (repo / "refs" / "main").write_text(revision)
    (repo / "snapshots" / revision / "config.json").symlink_to(blob_target or Path("../../blobs/b1"))
    return repo


def test_hub_snapshot_folder_is_its_config(tmp_path, source_path):
    """The snapshot folder (api) and the model's cache folder through refs/main (CLI) both give
    the recorded small Llama."""
    entry = TRUTH["small"]["llama"]
    repo = _hub_cache(tmp_path, entry["config"])
    snapshot = next((repo / "snapshots").iterdir())
    report = staticflops.analyze(snapshot, inputs=["1x32:int64"], source_path=[source_path])
    assert (report.totals.params, report.totals.forward_flops) == (entry["params"], entry["forward_flops"])
    result = CliRunner().invoke(app, ["analyze", str(repo), "--input", "1x32:int64", "--source-path", str(source_path),
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    totals = json.loads(result.output)["totals"]
    assert (totals["params"], totals["forward_flops"]) == (entry["params"], entry["forward_flops"])


def test_hub_snapshot_config_json_named_as_a_file(tmp_path, source_path):
    """The snapshot's config.json itself (a link into the model's blobs/, outside the snapshot
    folder) is read within the model's cache folder, as the snapshot folder is."""
    entry = TRUTH["small"]["llama"]
    repo = _hub_cache(tmp_path, entry["config"])
    config = next((repo / "snapshots").iterdir()) / "config.json"
    report = staticflops.analyze(config, inputs=["1x32:int64"], source_path=[source_path])
    assert (report.totals.params, report.totals.forward_flops) == (entry["params"], entry["forward_flops"])


def test_hub_snapshot_link_leaving_the_cache_folder_is_refused(tmp_path):
    outside = tmp_path / "secret.json"
    outside.write_text('{"model_type": "llama", "architectures": ["LlamaForCausalLM"]}')
    repo = _hub_cache(tmp_path, {}, blob_target=outside)
    result = CliRunner().invoke(app, ["analyze", str(repo), "--input", "1x32:int64"])
    assert result.exit_code == 1, result.output
    assert "config.json:1:1: error:" in result.output and "is outside the project" in result.output


def test_tensor_type_cast_and_torch_normal(tmp_path):
    """DeepSeek-V3's router casts with ``x.type(torch.float32)``; DiffLlama's lambdas are
    ``torch.normal(0, std, size=(d,))`` parameters.  Params 16 + (4 x 1 broadcast with 1 x 16 =
    4 x 16) = 80; (8 x 16) @ (16 x 4) = 512 MACs; the exp of a sum is free here."""
    from staticflops.api import analyze_text
    source = (Path(__file__).parent / "fixtures" / "torch_type_normal.py").read_text()
    report = analyze_text(source, tmp_path / "m.py", model="M", inputs=["8x16"])
    assert report.totals.params == 80
    assert report.totals.forward_flops == 2 * 512
    assert report.outputs == [[8, 4], []]


def test_torch_linalg_norms(tmp_path):
    """ConvNeXt-V2's GRN: torch.linalg.vector_norm(x, ord=2, dim=(1, 2), keepdim=True) and
    torch.linalg.norm(x, 2, -1) (ord before dim) are reductions, free under the convention; the
    Linear on 2 x 4 x 4 rows of 8: 32 x 8 x 8 = 2,048 MACs."""
    from staticflops.api import analyze_text
    source = (Path(__file__).parent / "fixtures" / "torch_linalg_norm.py").read_text()
    report = analyze_text(source, tmp_path / "m.py", model="GRN", inputs=["2x4x4x8"])
    assert report.totals.forward_flops == 2 * 2_048
    assert report.outputs == [[2, 4, 4, 8], [2, 4, 4]]


def test_pad_by_an_unresolved_amount_names_its_cause(tmp_path):
    """F.pad by an amount the analysis cannot resolve (falcon_mamba's convolution padding) is a
    located unknown naming that amount, not a Python TypeError inside the pad rule."""
    from staticflops.api import analyze_text
    source = (Path(__file__).parent / "fixtures" / "torch_pad_unknown.py").read_text()
    report = analyze_text(source, tmp_path / "m.py", model="P", inputs=["2x8"])
    assert report.outputs == [None]
    assert [u.what for u in report.unknown] == ["`torch.__file__` is not modelled"]


def test_several_index_tensors_broadcast_together(tmp_path):
    """Index tensors in one subscript broadcast into one index (NumPy's rule, torch's too):
    mask (2 x 7)[b of 2x1x1x1, kv of 1x1x1x7] is 2x1x1x7 (mbart's and BigBird-Pegasus' padding
    masks were rank 8); x (4 x 5 x 6)[:, i of 3x1, j of 1x2] keeps the place: 4x3x2; with a slice
    between them the broadcast index goes first: x[i, :, j] is 3x2x5."""
    from staticflops.api import analyze_text
    source = (Path(__file__).parent / "fixtures" / "torch_multi_index.py").read_text()
    report = analyze_text(source, tmp_path / "m.py", model="Mask", inputs=["2x7:int64", "4x5x6"])
    assert report.outputs == [[2, 1, 1, 7], [4, 3, 2], [3, 2, 5]]


def test_is_floating_point_from_the_dtype(tmp_path):
    """PreTrainedModel.dtype is next(p.dtype for p in self.parameters() if p.is_floating_point())
    (LLaVA-NeXT-Video stopped on it).  A float input 1, an int64 tensor 0, torch.is_floating_point
    of the input 1: 1 + 2*0 + 4*1 = 5; Linear 2 x 4 x 3 = 24 MACs."""
    from staticflops.api import analyze_text
    source = (Path(__file__).parent / "fixtures" / "torch_is_floating_point.py").read_text()
    report = analyze_text(source, tmp_path / "m.py", model="S", inputs=["2x4"])
    assert report.outputs == [[2, 3], [5]]
    assert report.totals.forward_flops == 2 * 24
    assert report.unknown == []


def test_square_is_a_product_of_the_tensor_with_itself(tmp_path):
    """torch.square / Tensor.square (nanochat's norm): under `full`, one multiply per element:
    two squares of 2 x 4 = 16, the mean over 4 = 3 adds + 1 divide per row = 8, the add 8: 32."""
    from staticflops.api import analyze_text
    source = (Path(__file__).parent / "fixtures" / "torch_square.py").read_text()
    report = analyze_text(source, tmp_path / "m.py", model="Sq", inputs=["2x4"], rules="full")
    assert report.totals.forward_flops == 32
    assert report.outputs == [[2, 4]]


# ---- from_pretrained: the model built from its config, the weights never read ---------------

def _user_file(tmp_path, text: str) -> Path:
    (tmp_path / "model.py").write_text(textwrap.dedent(text))
    return tmp_path / "model.py"


def test_from_pretrained_of_a_project_folder_builds_from_its_config(tmp_path, source_path):
    """`AutoModel.from_pretrained("tiny-bert")` in the user's own module, the folder holding only
    config.json (no weights: they are never read): the recorded small BertModel (176,576 params,
    6,823,936 FLOPs at 1x32) plus the user's head, Linear(64, 2): 64*2 + 2 = 130 params and
    2*64*2 = 256 FLOPs on the pooled [CLS] row.  Loading-only keywords change nothing."""
    entry = TRUTH["small"]["bert"]
    (tmp_path / "tiny-bert").mkdir()
    (tmp_path / "tiny-bert" / "config.json").write_text(json.dumps(entry["config"]))
    path = _user_file(tmp_path, """
        import torch.nn as nn
        from transformers import AutoModel


        class Classifier(nn.Module):
            def __init__(self, name="tiny-bert"):
                super().__init__()
                self.bert = AutoModel.from_pretrained(name, torch_dtype="auto", attn_implementation="eager")
                self.head = nn.Linear(self.bert.config.hidden_size, 2)

            def forward(self, input_ids):
                return self.head(self.bert(input_ids).last_hidden_state[:, 0])
    """)
    report = staticflops.analyze(path, inputs=["1x32:int64"], source_path=[source_path])
    assert report.unknown == []
    assert report.totals.params == entry["params"] + 130
    assert report.totals.forward_flops == entry["forward_flops"] + 256


def test_from_pretrained_of_a_hub_id_says_what_to_give(tmp_path, source_path):
    """A hub id is a download the analysis cannot make: an error at the user's line naming what
    to give instead, for the model's and the config's from_pretrained alike."""
    path = _user_file(tmp_path, """
        import torch.nn as nn
        from transformers import AutoConfig, AutoModel


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.bert = AutoModel.from_pretrained("bert-base-uncased")

            def forward(self, input_ids):
                return self.bert(input_ids)


        class FromConfig(nn.Module):
            def __init__(self):
                super().__init__()
                self.bert = AutoModel.from_config(AutoConfig.from_pretrained("bert-base-uncased"))

            def forward(self, input_ids):
                return self.bert(input_ids)
    """)
    for model, where in (("Net", "model.py:9:21:"), ("FromConfig", "model.py:18:43:")):
        result = CliRunner().invoke(app, ["analyze", str(path), "--model", model, "--input", "1x32:int64",
                                          "--source-path", str(source_path), "--no-cache"])
        assert result.exit_code == 1, result.output
        assert where in result.output and "'bert-base-uncased' is not a folder of the project" in result.output
        assert "a folder of the project holding its config.json" in " ".join(result.output.split())


def test_from_pretrained_of_a_hub_id_in_the_named_hub_cache(tmp_path, source_path):
    """With the hub cache named (--env HF_HUB_CACHE=..., outside the project, read-only), a hub id
    is its snapshot folder there, as huggingface_hub finds it offline: refs/main names the
    revision, config.json is a link into blobs/.  The recorded small BertModel again; a revision
    not cached is an error naming the cache."""
    entry = TRUTH["small"]["bert"]
    revision = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "cache" / "models--org--tiny-bert"
    (repo / "snapshots" / revision).mkdir(parents=True)
    (repo / "blobs").mkdir()
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)
    (repo / "blobs" / "c0").write_text(json.dumps(entry["config"]))
    (repo / "snapshots" / revision / "config.json").symlink_to(Path("../../blobs/c0"))
    project = tmp_path / "project"
    project.mkdir()
    path = _user_file(project, """
        import torch.nn as nn
        from transformers import AutoModel


        class Net(nn.Module):
            def __init__(self, revision="main"):
                super().__init__()
                self.bert = AutoModel.from_pretrained("org/tiny-bert", revision=revision)

            def forward(self, input_ids):
                return self.bert(input_ids).last_hidden_state
    """)
    env = [f"HF_HUB_CACHE={tmp_path / 'cache'}"]
    report = staticflops.analyze(path, inputs=["1x32:int64"], source_path=[source_path], env=env)
    assert report.unknown == []
    assert (report.totals.params, report.totals.forward_flops) == (entry["params"], entry["forward_flops"])
    with pytest.raises(staticflops.AnalysisError, match="'org/tiny-bert' \\(revision 'v2'\\) is not in the hub cache"):
        staticflops.analyze(path, inputs=["1x32:int64"], source_path=[source_path], env=env, kwargs={"revision": "v2"})
