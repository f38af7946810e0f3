"""Every single-layer / single-op case against torch 2.13.0 CPU FlopCounterMode, as recorded
by tools/record_torch.py (tests/fixtures/torch_ground_truth.json)."""

import pytest

import staticflops
from conftest import input_args, load_ground_truth

TRUTH = load_ground_truth()
CASES = sorted(k for k in TRUTH if k.startswith("tests/fixtures/torch_cases/"))

# Where `standard` deliberately counts what FlopCounterMode has no formula for (it says 0).
DELIBERATE = {
    # Bilinear(8, 6, 4) on (5, 8), (5, 6): 5*4 outputs x 8*6 products = 960 MACs = 1,920 FLOPs.
    "tests/fixtures/torch_cases/bilinear.py": 1_920,
    # (4, 6) @ (6,): 4 outputs x 6 products = 24 MACs = 48 FLOPs (aten.mv is uncounted).
    "tests/fixtures/torch_cases/matmul_matrix_vector.py": 48,
}
NOT_YET: set = set()


def test_there_are_many_cases():
    assert len(CASES) >= 100


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_case(path):
    if path in NOT_YET:
        pytest.xfail("nn.Transformer*Layer is not modelled yet")
    entry = TRUTH[path]
    report = staticflops.analyze(path, model=entry["class"], inputs=input_args(entry))
    assert report.unknown == []
    assert [s for s in report.outputs if s is not None] == entry["output_shapes"]
    assert report.totals.params == entry["params"]
    assert report.totals.trainable_params == entry["trainable_params"]
    assert report.totals.forward_flops == DELIBERATE.get(path, entry["forward_flops"])
