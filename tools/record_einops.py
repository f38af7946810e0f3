"""Record ground truth for einops models by executing torch 2.13.0 CPU + einops 0.8.2.

Only tools/ scripts import torch; tests/test_einops.py reads the JSON this writes
(tests/fixtures/einops_ground_truth.json).  Conventions as tools/record_torch.py:
FlopCounterMode forward total, eval mode under torch.no_grad(), SDPA MATH backend and oneDNN
off; params = sum of p.numel() over model.parameters().

Models:
* vit-pytorch 1.26.11's ``vit_pytorch/vit.py`` ``ViT`` (lucidrains), loaded from its file
  (``pip download --no-deps vit-pytorch==1.26.11`` into a temporary folder, or ``--vit PATH``);
  its source is not committed.  The configs are in ``VIT_CONFIGS``, also read by the test.
* ``tests/fixtures/einops_cases/functional.py`` ``Model``.

How to run (repository root):

    /work/torchvenv/bin/python tools/record_einops.py            # torch==2.13.0 (CPU), einops==0.8.2
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import warnings
import zipfile

warnings.filterwarnings("ignore", category=UserWarning)  # oneDNN TF32 notices; no effect on counts

import torch  # noqa: E402
from flop_measure import measure  # noqa: E402  (tools/flop_measure.py: the shared convention)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "einops_ground_truth.json")
VIT_VERSION = "1.26.11"

# name -> (constructor keyword arguments, input shape)
VIT_CONFIGS = {
    "vit_b16": ({"image_size": 224, "patch_size": 16, "num_classes": 1000, "dim": 768, "depth": 12, "heads": 12,
                 "mlp_dim": 3072}, [1, 3, 224, 224]),
    "vit_small_mean_pool": ({"image_size": [64, 96], "patch_size": [16, 8], "num_classes": 10, "dim": 128,
                             "depth": 2, "heads": 4, "dim_head": 32, "mlp_dim": 256, "pool": "mean",
                             "channels": 1}, [2, 1, 64, 96]),
}
FUNCTIONAL = ("tests/fixtures/einops_cases/functional.py", "Model", [2, 3, 32, 32])


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def vit_source(folder):
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"vit-pytorch=={VIT_VERSION}",
                    "-d", folder], check=True)
    wheel = next(f for f in os.listdir(folder) if f.endswith(".whl"))
    with zipfile.ZipFile(os.path.join(folder, wheel)) as archive:
        archive.extract("vit_pytorch/vit.py", folder)
    return os.path.join(folder, "vit_pytorch", "vit.py")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vit", help="path of vit_pytorch/vit.py (default: pip download it)")
    options = parser.parse_args()
    import einops
    truth = {"versions": {"torch": torch.__version__, "einops": einops.__version__, "vit-pytorch": VIT_VERSION}}
    with tempfile.TemporaryDirectory() as folder:
        vit = load(options.vit or vit_source(folder), "vit_under_test")
        for name, (kwargs, shape) in VIT_CONFIGS.items():
            torch.manual_seed(0)
            built = {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}
            truth[name] = {"class": "ViT", "kwargs": kwargs, **measure(vit.ViT(**built), shape)}
    path, cls, shape = FUNCTIONAL
    truth[path] = {"class": cls, **measure(getattr(load(os.path.join(REPO, path), "functional"), cls)(), shape)}
    with open(OUT, "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps({k: (v.get("forward_flops"), v.get("params")) for k, v in truth.items() if k != "versions"}))


if __name__ == "__main__":
    main()
