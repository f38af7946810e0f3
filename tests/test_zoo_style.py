"""Model code as the zoos write it: builders, cross-file imports, configs, weight tying.

tests/fixtures/zoo_style/zoo is a tiny package in torchvision's style (our own code);
samples/gpt_minimal.py is a GPT in the style of the minimal GPT implementations, whose
numbers tools/record_torch.py recorded with torch 2.13.0 (FlopCounterMode).
"""

import json
import subprocess
import sys
import textwrap

import pytest

import staticflops
from staticflops.diagnostics import AnalysisError

TINYNET = "tests/fixtures/zoo_style/zoo/models/tinynet.py"
GPT = "samples/gpt_minimal.py"
TRUTH = json.load(open("tests/fixtures/torch_ground_truth.json"))

# TinyNet-A on 1x3x8x8, by hand (MACs of a conv = output elements x in/groups x k*k):
#   stem conv 3->8 k3 s2: 8*4*4 * 3*9 = 3456 MACs; params 8*3*9 = 216 + BN 16
#   stage0 (8->16, expand 2): expand 1x1 8->16: 16*16*8 = 2048; depthwise 3x3 16: 16*16*9 = 2304;
#     SE 16->4->16 on 1x1: 64 + 64; project 1x1 16->16: 16*16*16 = 4096           -> 8576 MACs
#     params: 128+32, 144+32, (64+4)+(64+16), 256+32                                 -> 772
#   stage1 (16->16, expand 1, residual): depthwise 2304 + SE 128 + project 4096     -> 6528 MACs
#     params: 176 + 148 + 288                                                        -> 612
#   classifier Linear(2*16 -> 10): 320 MACs, 330 params
TINYNET_MACS = 3456 + 8576 + 6528 + 320  # 18880
TINYNET_PARAMS = 232 + 772 + 612 + 330  # 1946


def test_builder_call_expression_across_files():
    report = staticflops.analyze(TINYNET, model="tinynet_a(num_classes=10)", inputs=["1x3x8x8"])
    assert report.totals.macs == TINYNET_MACS
    assert report.totals.params == TINYNET_PARAMS
    assert report.outputs == [[1, 10]]
    assert report.unknown == []  # weight enums, register_model, _log_api_usage_once: no noise


def test_builder_name_with_kwargs_gives_the_same_model():
    report = staticflops.analyze(TINYNET, model="tinynet_a", kwargs={"num_classes": 10, "weights": None},
                                 inputs=["1x3x8x8"])
    assert (report.totals.macs, report.totals.params) == (TINYNET_MACS, TINYNET_PARAMS)


def test_layers_from_other_files_keep_their_own_locations():
    report = staticflops.analyze(TINYNET, model="tinynet_a(num_classes=10)", inputs=["1x3x8x8"])
    layers = {row.name: row for row in report.layers}
    assert layers["stem.0"].location.startswith("tests/fixtures/zoo_style/zoo/ops/misc.py:")
    assert layers["stage0.block.2.fc1"].macs == 64  # SqueezeExcitation in ops/misc.py: 4 outputs x 16


def test_file_with_several_builders_lists_them():
    with pytest.raises(AnalysisError) as error:
        staticflops.analyze(TINYNET, inputs=["1x3x8x8"])
    assert "several models" in error.value.message
    assert "builder functions: tinynet_a, tinynet_b" in error.value.message


def test_cli_lists_models_and_exits_1():
    result = subprocess.run([sys.executable, "-m", "staticflops", "analyze", TINYNET, "--input", "1x3x8x8"],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "tinynet_a, tinynet_b" in result.stderr and "Traceback" not in result.stderr


def test_gpt_call_expression_matches_flop_counter_mode():
    truth = TRUTH[GPT]  # recorded from gpt_small() = GPT(GPTConfig(n_layer=2, n_head=4, n_embd=64, ...))
    report = staticflops.analyze(GPT, model="GPT(GPTConfig(n_layer=2, n_head=4, n_embd=64, vocab_size=96))",
                                 inputs=["1x32:int64"])
    assert report.totals.forward_flops == truth["forward_flops"]
    assert report.totals.params == truth["params"]
    assert report.unknown == []


def test_gpt_weight_tying_is_counted_once():
    report = staticflops.analyze(GPT, model="gpt_small", inputs=["1x32:int64"])
    # V=96, D=64, block 64, 2 layers.  Per block: ln 2*128, c_attn 64*192+192 = 12480,
    # c_proj 64*64+64 = 4160, c_fc 64*256+256 = 16640, mlp c_proj 256*64+64 = 16448 -> 49984.
    # wte/lm_head share one 96*64 tensor (6144), wpe 64*64 = 4096, ln_f 128.
    assert report.totals.params == 6144 + 4096 + 2 * 49984 + 128  # 110336
    layers = {row.name: row for row in report.layers}
    assert layers["transformer.wte"].params == 0  # its weight is lm_head's tensor
    assert layers["lm_head"].params == 96 * 64


def test_dataclass_config_from_json_kwargs():
    report = staticflops.analyze(GPT, model="GPT", kwargs={"config": {"n_layer": 2, "n_head": 4, "n_embd": 64}},
                                 inputs=["1x32:int64"])
    assert report.totals.params == 110336  # defaults filled in: vocab 96, block 64
    assert report.totals.forward_flops == TRUTH[GPT]["forward_flops"]


def test_bad_model_expression_is_a_clear_error():
    with pytest.raises(AnalysisError) as error:
        staticflops.analyze(GPT, model="GPT(GPTConfig(n_layer=2", inputs=["1x32:int64"])
    assert "--model" in error.value.message


def test_widths_computed_with_tensor_maths_while_building(tmp_path):
    path = tmp_path / "regnet_style.py"
    path.write_text(textwrap.dedent('''
        import math
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self, depth=4, w_0=8, w_a=6.0, w_m=2.0):
                super().__init__()
                widths_cont = torch.arange(depth) * w_a + w_0
                capacity = torch.round(torch.log(widths_cont / w_0) / math.log(w_m))
                widths = (torch.round(torch.divide(w_0 * torch.pow(w_m, capacity), 8)) * 8).int().tolist()
                layers, cin = [], 3
                for w in widths:
                    layers.append(nn.Conv2d(cin, w, 1, bias=False))
                    cin = w
                self.body = nn.Sequential(*layers)

            def forward(self, x):
                return self.body(x)
    '''))
    report = staticflops.analyze(path, inputs=["1x3x2x2"])
    # widths_cont = [8, 14, 20, 26]; log2(w/8) = [0, 0.807, 1.322, 1.700] -> round [0, 1, 1, 2]
    # 8 * 2**c = [8, 16, 16, 32]; /8, round, *8 -> [8, 16, 16, 32]
    # 1x1 convs 3->8->16->16->32: params 24 + 128 + 256 + 512 = 920; MACs = 4 positions x 920
    assert report.totals.params == 920
    assert report.totals.macs == 4 * 920
    assert report.unknown == []
