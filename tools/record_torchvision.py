"""Record ground truth for torchvision 0.28.0's ``maxvit_t`` by executing torch 2.13.0 CPU.

Only tools/ scripts import torch; tests/test_torchvision_maxvit.py reads the JSON this writes
(tests/fixtures/torchvision_ground_truth.json).  Measurement: tools/flop_measure.py
(FlopCounterMode forward total, eval mode under torch.no_grad(), SDPA MATH backend, oneDNN off;
params = sum of p.numel() over model.parameters()).

The model is built as ``torchvision.models.maxvit_t(weights=None)`` (random weights: the counts
do not depend on them), input 1x3x224x224 float32 (its weights' transforms crop to 224).

How to run (repository root; the ground-truth venv has torch==2.13.0 CPU and torchvision==0.28.0):

    /work/gt/torch/bin/python tools/record_torchvision.py

Compare with (torchvision's wheel unpacked into SRC, never imported by staticflops):

    staticflops analyze SRC/torchvision/models/maxvit.py --model maxvit_t --input 1x3x224x224
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore", category=UserWarning)  # oneDNN TF32 notices; no effect on counts

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from flop_measure import allow_cuda_torchvision, measure  # noqa: E402

allow_cuda_torchvision()  # the PyPI wheel of torchvision 0.28.0 is a CUDA build
import torchvision  # noqa: E402


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "torchvision_ground_truth.json")
MODELS = [("maxvit_t", "torchvision/models/maxvit.py", (1, 3, 224, 224))]


def main():
    truth = {
        "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__},
        "convention": "FlopCounterMode total, eval, no_grad, cpu, SDPA MATH, mkldnn off",
    }
    for builder, file, shape in MODELS:
        model = getattr(torchvision.models, builder)(weights=None)
        truth[builder] = {"builder": builder, "file": file, **measure(model, shape)}
        print(builder, truth[builder]["params"], truth[builder]["forward_flops"], truth[builder]["output_shapes"])
    with open(OUT, "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
