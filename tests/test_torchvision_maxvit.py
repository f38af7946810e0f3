"""torchvision 0.28.0's ``maxvit_t`` read from its published source (never imported) is exact.

Ground truth: tests/fixtures/torchvision_ground_truth.json, recorded by
tools/record_torchvision.py executing torch 2.13.0 CPU + torchvision 0.28.0 (FlopCounterMode,
eval, no_grad, SDPA MATH backend, oneDNN off).  The wheel's Python files are downloaded once
into pytest's cache folder (tests/wheels.py); without network the test is skipped, saying why.
"""

import json
from pathlib import Path

import staticflops
import wheels

HERE = Path(__file__).parent
TRUTH = json.loads((HERE / "fixtures" / "torchvision_ground_truth.json").read_text())
VERSION = TRUTH["versions"]["torchvision"].split("+")[0]  # "0.28.0+cu130": the wheel on PyPI is 0.28.0


def test_maxvit_t_is_exact(request, tmp_path_factory):
    entry = TRUTH["maxvit_t"]
    source = wheels.unpacked(request, tmp_path_factory, "torchvision", VERSION, "torchvision/", suffix=".py")
    shape = "x".join(str(d) for d in entry["inputs"][0]["shape"])
    report = staticflops.analyze(source / entry["file"], model=entry["builder"], inputs=[shape])
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["forward_flops"]
    assert [s for s in report.outputs if s is not None] == entry["output_shapes"]
    assert report.unknown == [] and report.totals.complete
