"""Single torch ops and argument variants (issue 20) against torch 2.13.0 CPU, as recorded by
tools/record_ops.py (tests/fixtures/ops_ground_truth.json): output shapes, parameters and
FlopCounterMode forward FLOPs (SDPA MATH kernel, mkldnn off).  Runs without torch."""

import json
from pathlib import Path

import pytest

from staticflops.api import analyze_text

TRUTH = json.loads((Path(__file__).parent / "fixtures" / "ops_ground_truth.json").read_text())

# Where `standard` deliberately counts what FlopCounterMode has no formula for (it says 0),
# as for aten.mv in test_torch_cases.py.  Derived by hand:
DELIBERATE = {
    # addbmm(C[4,7], A[3,4,5], B[3,5,7]): 3 batches x 4*7 outputs x 5 products = 420 MACs = 840 FLOPs
    "addbmm": 840,
    # addmv(c[4], A[4,5], v[5]): 4 outputs x 5 products = 20 MACs = 40 FLOPs
    "addmv": 40,
}


def _inputs(entry) -> list:
    return ["x".join(str(d) for d in spec["shape"]) + (":int64" if spec["dtype"] == "int64" else "")
            for spec in entry["inputs"]]


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_recorded_op(name):
    entry = TRUTH[name]
    report = analyze_text(entry["source"], f"{name}.py", model="Model", inputs=_inputs(entry))
    assert [f"{u.location}: {u.what}" for u in report.unknown] == []
    assert [list(s) for s in report.outputs if s is not None] == entry["output_shapes"]
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == DELIBERATE.get(name, entry["forward_flops"])
