"""The project's probe of the public torch op surface (issue 20 item 4), without torch.

tools/record_coverage.py enumerates nn modules, nn.functional, Tensor methods and torch
functions from torch 2.13.0 (CPU), executes one tiny model per op and variant under
FlopCounterMode (SDPA MATH kernel, mkldnn off) and records output shapes, params and forward
FLOPs in tests/fixtures/coverage/*.json; tools/record_coverage_keras.py does the same for
keras.layers and keras.ops (keras 3.15.1, tensorflow-cpu 2.21, TF profiler FLOPs at batch 1).  Here every recorded case runs through staticflops in
process (tools/coverage_table.py classifies it) and:

* no case is `wrong` (a number or shape that differs from torch's) and none is an `error`,
  beyond ``KNOWN_WRONG`` (empty; it may only shrink);
* per family, the exact cases and the exact primary ops do not drop below today's count
  (a ratchet: raise the floors when coverage grows, never lower them).
"""

import importlib.util
from pathlib import Path

import pytest

from staticflops.api import analyze_text

_SPEC = importlib.util.spec_from_file_location(
    "coverage_table", Path(__file__).resolve().parent.parent / "tools" / "coverage_table.py")
coverage_table = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(coverage_table)

# (family, op, call) -> why its `wrong`/`error` is accepted for now.  Must stay empty or shrink.
KNOWN_WRONG: dict = {}

# Measured on this branch with `python tools/coverage_table.py` (torch 2.13.0, keras 3.15.1 fixtures):
# family -> (exact cases, exact primary ops).  A ratchet: only ever raised.
FLOORS = {
    "nn_modules": (188, 152),
    "nn_functional": (129, 111),
    "tensor_ops": (630, 625),
    "keras_layers": (164, 145),
    "keras_ops": (310, 310),
}


@pytest.fixture(scope="module")
def measured():
    return coverage_table.measure()


def test_no_case_is_wrong_or_an_error(measured):
    bad = [f"{family} {kind}: {case['op']}: {case['call']}: {detail}"
           for family, data in measured.items() for case, kind, detail in data["cases"]
           if kind in ("wrong", "error") and (family, case["op"], case["call"]) not in KNOWN_WRONG]
    assert bad == []


def test_known_wrong_entries_are_still_wrong(measured):
    # A fixed case leaves KNOWN_WRONG (the list only shrinks).
    still = {(family, case["op"], case["call"]) for family, data in measured.items()
             for case, kind, _ in data["cases"] if kind in ("wrong", "error")}
    assert set(KNOWN_WRONG) <= still


@pytest.mark.parametrize("family", sorted(FLOORS))
def test_coverage_does_not_drop(measured, family):
    figures = coverage_table.summary(measured[family]["cases"])
    assert (figures["exact"], figures["primary_exact"]) >= FLOORS[family]
    assert figures["exact"] >= FLOORS[family][0] and figures["primary_exact"] >= FLOORS[family][1]


def test_every_family_is_probed_and_exclusions_have_reasons():
    for family in coverage_table.FAMILIES:
        data = coverage_table.load(family)
        assert len(data["cases"]) > 100, family  # enumerated from torch, not a short hand list
        assert all(reason.strip() for reason in data["excluded"].values())
        assert set(data["gaps"].values()) <= {"no recipe", "no tensor"}


def test_the_classifier_tells_wrong_and_not_modelled_apart():
    # The classifier itself can fail a case: a doctored FLOP count is `wrong`, an op staticflops
    # does not know is `not modelled` (located), a recorded Linear(8, 4) on (2, 8) is exact:
    # 2*4 outputs x 8 products = 64 MACs = 128 FLOPs, 8*4 + 4 = 36 params.
    header = coverage_table.load("nn_modules")["header"]
    linear = {"op": "Linear", "variant": 0, "init": "self.m = nn.Linear(8, 4)", "call": "self.m(x)",
              "inputs": ["x:2x8"], "output_shapes": [[2, 4]], "params": 36, "forward_flops": 128}
    assert coverage_table.classify(header, linear) == ("exact", "")
    assert coverage_table.classify(header, {**linear, "forward_flops": 129})[0] == "wrong"
    assert coverage_table.classify(header, {**linear, "output_shapes": [[2, 4], [2, 4]]})[0] == "wrong"
    unknown = {**linear, "init": "", "call": "x.no_such_op_anywhere()"}
    kind, detail = coverage_table.classify(header, unknown)
    assert kind == "not modelled" and detail.startswith("case.py:11:16")


def test_msort_returns_the_sorted_tensor_only():
    # The probe found `x.msort()` taken for sort's (values, indices): torch.msort returns one
    # tensor, x sorted along dim 0, of x's shape (3, 5).
    source = ("import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
              "    def forward(self, x):\n        return torch.msort(x), x.msort()\n")
    report = analyze_text(source, "m.py", model="Model", inputs=["3x5"])
    assert report.unknown == []
    assert report.outputs == [[3, 5], [3, 5]]


def test_the_readme_table_claims_no_more_than_is_measured(measured):
    # docs/ground-truth.md's table is printed by tools/coverage_table.py; whatever commit it was
    # measured at, it may not hide a wrong or error case nor claim more exact cases than the probe finds now.
    readme = (Path(__file__).resolve().parent.parent / "docs" / "ground-truth.md").read_text()
    section = readme[readme.index("Measured with `python tools/coverage_table.py`"):]
    rows = {}
    for line in section.splitlines()[5:]:  # after the sentence, a blank line, the header and its rule
        if not line.startswith("| "):
            break
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        rows[cells[0]] = cells[1:]
    for family, title in coverage_table.FAMILIES.items():
        cases, exact, wrong, not_modelled, error, primary = rows[title][:6]
        figures = coverage_table.summary(measured[family]["cases"])
        assert int(wrong) >= figures["wrong"] and int(error) >= figures["error"], title
        assert int(exact) <= figures["exact"], title
        assert int(primary.split("/")[0]) <= figures["primary_exact"], title


def test_keras_cropping_defaults_per_rank():
    # The probe found Cropping3D() taken as cropping nothing.  Keras 3.15.1's defaults
    # (keras/src/layers/reshaping/cropping{1,2,3}d.py): Cropping1D (1, 1), Cropping2D
    # ((0, 0), (0, 0)), Cropping3D ((1, 1), (1, 1), (1, 1)).  At batch 1: (8, 3) -> (6, 3);
    # (8, 8, 3) unchanged; (4, 8, 8, 3) -> (2, 6, 6, 3).
    source = ("import keras\nfrom keras import layers\n\n"
              "a = keras.Input(shape=(8, 3))\nb = keras.Input(shape=(8, 8, 3))\nc = keras.Input(shape=(4, 8, 8, 3))\n"
              "model = keras.Model([a, b, c], [layers.Cropping1D()(a), layers.Cropping2D()(b), layers.Cropping3D()(c)])\n")
    report = analyze_text(source, "m.py", batch=1)
    assert report.unknown == []
    assert report.outputs == [[1, 6, 3], [1, 8, 8, 3], [1, 2, 6, 6, 3]]
