"""Each compatibility rule set reproduces its tool's number exactly, for every sample and
every single-layer case, as recorded by executing the tools (tools/record_tools.py with
torch 2.13.0 CPU, fvcore 0.1.5.post20221221, thop 0.1.1.post2209072238, ptflops 0.7.5,
torchinfo 1.8.0, torchstat 0.0.7 formula functions) -> tests/fixtures/tools_ground_truth.json.

Where a tool reports MACs the number is compared with ``totals.macs``; FlopCounterMode's
FLOPs with ``totals.forward_flops``.  Exceptions are listed below and in the README."""

import json
from pathlib import Path

import pytest

import staticflops
from conftest import ROOT, input_args

FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "tools_ground_truth.json").read_text())
MODELS = FIXTURE["models"]
CASES = "tests/fixtures/torch_cases/"

# (rule set, model) -> why we do not reproduce the tool there.
EXCEPTIONS = {
    ("ptflops", CASES + "frozen_layer.py"):
        "torch.relu is not patched by ptflops (F.relu is); we do not tell torch.relu from F.relu",
    **{("ptflops", CASES + name): "nn.Transformer*Layer keeps the original F.relu it captured at construction, "
       "so ptflops's patch never sees it; our layer model calls it like user code"
       for name in ("transformer_encoder_layer.py", "transformer_encoder_2layers.py", "transformer_decoder_layer.py")},
    **{("torchinfo", CASES + name): "torchinfo prices a parameter-holding *user* leaf module by its parameters' "
       "names (weight/bias x output_size[0]); our class-free rules do not model parameter names"
       for name in ("einsum_projection.py", "functional_conv2d_param.py", "functional_linear_param.py",
                    "matmul_broadcast_weight.py")},
}

HEADLINE = {"torch": "flops", "fvcore": "macs", "thop": "macs", "ptflops": "macs", "torchinfo": "macs",
            "torchstat": "flops"}  # the key in the fixture
# The fixture's tool key -> our rule set: FlopCounterMode as run by default on CPU is `torch-cpu`
# (`torch` is FlopCounterMode on exact kernels: see tests/test_training.py).
RULE_SET = {"torch": "torch-cpu"}
TARGETS = [(rules, path) for rules in HEADLINE for path in sorted(MODELS)
           if "error" not in MODELS[path][rules]]


def test_fixture_covers_samples_and_cases():
    assert sum(p.startswith("samples/") for p in MODELS) == 4
    assert sum(p.startswith(CASES) for p in MODELS) >= 120


@pytest.mark.parametrize("rules,path", TARGETS, ids=[f"{r}-{Path(p).stem}" for r, p in TARGETS])
def test_rule_set_equals_tool(rules, path):
    if (rules, path) in EXCEPTIONS:
        pytest.skip(EXCEPTIONS[(rules, path)])
    entry, tool = MODELS[path], MODELS[path][rules]
    report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry),
                                 rules=RULE_SET.get(rules, rules))
    assert report.unknown == []
    if rules == "torch":
        assert report.totals.forward_flops == tool["flops"]
    else:
        assert report.totals.macs == tool[HEADLINE[rules]]
    if rules == "torchstat":
        assert report.totals.forward_flops == tool["madd"]
    if rules == "ptflops":  # ptflops counts parameters that require grad
        assert report.totals.trainable_params == tool["params"]
    elif "params" in tool:
        assert report.totals.params == tool["params"]


def test_exceptions_are_still_exceptions():
    """An exception that starts matching should be removed from the list."""
    for rules, path in EXCEPTIONS:
        entry, tool = MODELS[path], MODELS[path][rules]
        report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry), rules=rules)
        assert report.totals.macs != tool["macs"], (rules, path)


def test_linear_25x16_across_conventions():
    # Linear(16, 9) on 25x16: 25*9*16 = 3,600 MACs; bias adds 25*9 = 225.
    path = CASES + "linear_2d.py"
    totals = {r: staticflops.analyze(path, inputs=["25x16"], rules=RULE_SET.get(r, r)).totals for r in HEADLINE}
    assert totals["torch"].forward_flops == 7_200      # 2 x 3,600
    assert totals["fvcore"].macs == 3_600
    assert totals["thop"].macs == 3_600
    assert totals["ptflops"].macs == 3_825              # 3,600 + 225 bias
    assert totals["torchinfo"].macs == 3_825            # 153 params x 25 rows
    assert totals["torchstat"].forward_flops == 279     # MAdd: 9 x (2*16 - 1), batch ignored


def test_headline_and_convention_in_totals():
    report = staticflops.analyze(CASES + "linear_2d.py", inputs=["25x16"], rules="thop")
    assert report.rules == "thop"
    assert "MACs" in report.totals.convention
