"""keras.applications acceptance (issue 4): Keras's own application files, analysed without
Keras, against count_params() and the TF profiler as recorded by tools/keras_applications.py
(tests/fixtures/keras_applications_truth.json).  The sources stay outside the repository:
the test runs when $KERAS_SRC (default /tmp/keras-src/unpacked) holds the unpacked keras 3.15.1 wheel."""

import json
import os
from pathlib import Path

import pytest

import staticflops

TRUTH = json.loads((Path(__file__).parent / "fixtures" / "keras_applications_truth.json").read_text())
SOURCES = Path(os.environ.get("KERAS_SRC", "/tmp/keras-src/unpacked")) / "keras" / "src" / "applications"
# Known misses, each with the construct that blocks it (see docs/keras.md, "keras.applications").
MISSES = {
    "ConvNeXtTiny": "a grouped Conv2D leaves TF's static shape unknown, so the profiler skips the next LayerNorm",
}

pytestmark = pytest.mark.skipif(not SOURCES.is_dir(), reason=f"keras 3.15.1 sources not unpacked at {SOURCES}")


@pytest.mark.parametrize("builder", sorted(TRUTH))
def test_application(builder):
    entry = TRUTH[builder]
    if builder in MISSES:
        pytest.xfail(MISSES[builder])
    report = staticflops.analyze(SOURCES / entry["file"], model=builder, kwargs={"weights": None, **entry["kwargs"]},
                                 rules="tf-profiler", batch=1)
    assert report.unknown == []
    assert report.outputs == entry["output_shapes"]
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["tf_profiler_flops"]



def test_resnet50v2_follows_its_sibling_import():
    # resnet_v2.py builds the model with resnet.ResNet from the sibling file resnet.py.
    entry = TRUTH["ResNet50V2"]
    report = staticflops.analyze(SOURCES / "resnet_v2.py", model="ResNet50V2", kwargs={"weights": None},
                                 rules="tf-profiler", batch=1)
    assert report.totals.params == entry["params"]
