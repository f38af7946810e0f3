"""Every Keras case (tests/fixtures/keras_cases/) and the Keras sample against keras 3.15.1 /
tensorflow-cpu 2.21 as recorded by tools/record_keras.py (tests/fixtures/keras_ground_truth.json):
count_params(), the trainable weights, output shapes at batch 1, and the TF profiler's FLOPs
through the `tf-profiler` rule set."""

import json
from pathlib import Path

import pytest

import staticflops

TRUTH = json.loads((Path(__file__).parent / "fixtures" / "keras_ground_truth.json").read_text())
CASES = sorted(TRUTH)


def test_there_are_many_cases():
    assert len([c for c in CASES if "keras_cases" in c]) >= 90


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.rsplit("/", 1)[-1][:-3])
def test_case(path):
    entry = TRUTH[path]
    report = staticflops.analyze(path, rules="tf-profiler", batch=1)
    assert report.unknown == []
    assert report.outputs == entry["output_shapes"]
    assert report.totals.params == entry["params"]
    assert report.totals.trainable_params == entry["trainable_params"]
    assert report.totals.forward_flops == entry["tf_profiler_flops"]
