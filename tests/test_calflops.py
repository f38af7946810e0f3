"""`--rules calflops` reproduces calflops 0.3.2 (FLOPs, MACs and its parameter count) on every
sample and single-layer case it can count, as recorded by executing it: tools/record_calflops.py
with torch 2.13.0 CPU and calflops 0.3.2 -> tests/fixtures/calflops_ground_truth.json."""

import json
from pathlib import Path

import pytest

import staticflops
from conftest import ROOT, input_args

FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "calflops_ground_truth.json").read_text())
MODELS = FIXTURE["models"]
CASES = "tests/fixtures/torch_cases/"

# model -> why `--rules calflops` does not reproduce calflops there.
EXCEPTIONS = {
    **{CASES + name: "torch.relu is not patched by calflops (F.relu is); we do not tell torch.relu from F.relu"
       for name in ("frozen_inline.py", "frozen_layer.py")},
    **{CASES + name: "nn.Transformer*Layer keeps the original F.relu it captured at construction, so calflops' "
       "patch never sees it; our layer model calls it like user code"
       for name in ("transformer_encoder_layer.py", "transformer_encoder_2layers.py", "transformer_decoder_layer.py")},
}
TARGETS = sorted(path for path, entry in MODELS.items() if "error" not in entry["calflops"])


def test_fixture_covers_samples_and_cases():
    assert FIXTURE["_versions"] == {"calflops": "0.3.2", "torch": "2.13.0+cpu"}
    assert sum(p.startswith("samples/") for p in TARGETS) == 7
    assert sum(p.startswith(CASES) for p in TARGETS) >= 80


@pytest.mark.parametrize("path", TARGETS, ids=[Path(p).stem for p in TARGETS])
def test_rule_set_equals_calflops(path):
    if path in EXCEPTIONS:
        pytest.skip(EXCEPTIONS[path])
    entry, tool = MODELS[path], MODELS[path]["calflops"]
    report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry), rules="calflops")
    assert report.unknown == []
    assert (report.totals.forward_flops, report.totals.macs) == (tool["flops"], tool["macs"])
    assert report.totals.trainable_params == tool["params"]  # calflops counts parameters that require grad


def test_exceptions_are_still_exceptions():
    """An exception that starts matching should be removed from the list."""
    for path in EXCEPTIONS:
        entry, tool = MODELS[path], MODELS[path]["calflops"]
        report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry), rules="calflops")
        assert report.totals.forward_flops != tool["flops"], path


def test_parameter_free_models_are_errors_in_calflops():
    # calculate_flops reads next(model.parameters()) for the device: a model without parameters
    # raises StopIteration, recorded as the tool's error; we still count it.
    errors = {path for path, entry in MODELS.items() if "error" in entry["calflops"]}
    assert errors and all(MODELS[p]["calflops"]["error"].startswith("StopIteration") for p in errors)
    relu = CASES + "act_relu.py"
    assert relu not in errors  # a Linear before the ReLU gives it parameters


def test_linear_and_gru_by_hand():
    # Linear(16, 9) on 25x16: 25*16*9 = 3,600 MACs, 7,200 FLOPs; F.linear's bias add is not counted.
    totals = staticflops.analyze(CASES + "linear_2d.py", inputs=["25x16"], rules="calflops").totals
    assert (totals.forward_flops, totals.macs) == (7_200, 3_600)
    # GRU(4064, 96) on 1x100x4064: G = 3*96 = 288 gate rows; per step 2*288*4064 - 288
    # + 2*288*96 - 288 + 7*96 (gate arithmetic) + 2*288 (biases) = 2,396,832; x 100 steps.
    gru = staticflops.analyze(CASES + "gru_4064_96.py", inputs=["1x100x4064"], rules="calflops").totals
    assert (gru.forward_flops, gru.macs) == (239_683_200, 0)
