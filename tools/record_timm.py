"""Record ground truth for timm models by executing torch 2.13.0 CPU + timm 1.0.31.

Only tools/ scripts import torch; tests/test_timm.py reads the JSON this writes
(tests/fixtures/timm_ground_truth.json).  Conventions as tools/record_torch.py:
FlopCounterMode forward total, eval mode under torch.no_grad(), SDPA MATH backend and oneDNN
off; params = sum of p.numel() over model.parameters().

Models (input 1x3x224x224, float32):
* the builders ``resnet50``, ``vit_base_patch16_224``, ``convnext_tiny``, ``efficientnet_b0``
  called with no arguments (``pretrained=False``, 1000 classes), keyed by their timm file;
* ``tests/fixtures/timm_cases/convnext_head.py`` ``Model`` (``timm.create_model("convnext_tiny",
  pretrained=False, num_classes=0)`` and a ``Linear`` head).

torchvision: timm 1.0.31 imports it at ``import timm`` (``torchvision.ops.misc.FrozenBatchNorm2d``
in timm/layers, and the data transforms), but none of the models recorded here uses it, and
torchvision from PyPI does not load beside this torch build.  So this script puts a tiny fake
``torchvision`` package (written into a temporary folder) first on sys.path: it defines the names
timm imports, and its FrozenBatchNorm2d raises if anything instantiates it.  PIL (pillow),
safetensors, huggingface_hub and pyyaml are the real packages.

How to run (repository root; the venv has torch==2.13.0 CPU and ``pip install --no-deps
timm==1.0.31 pillow huggingface_hub``):

    /work/torchvenv/bin/python tools/record_timm.py
"""
import json
import os
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore", category=UserWarning)  # oneDNN TF32 notices; no effect on counts

FAKE_TORCHVISION = {
    "__init__.py": "",
    "ops/__init__.py": "",
    "ops/misc.py": (
        "import torch\n"
        "class FrozenBatchNorm2d(torch.nn.Module):\n"
        "    def __init__(self, *a, **k):\n"
        "        raise RuntimeError('fake torchvision: FrozenBatchNorm2d is not available')\n"),
    "transforms/__init__.py": (
        "from . import functional\n"
        "class _Unavailable:\n"
        "    def __init__(self, *a, **k):\n"
        "        raise RuntimeError('fake torchvision: transforms are not available')\n"
        "def __getattr__(name):\n"
        "    return type(name, (_Unavailable,), {})  # timm subclasses some; none is instantiated\n"),
    "transforms/functional.py": (
        "import enum\n"
        "class InterpolationMode(enum.Enum):\n"
        "    NEAREST = 'nearest'\n    NEAREST_EXACT = 'nearest-exact'\n    BILINEAR = 'bilinear'\n"
        "    BICUBIC = 'bicubic'\n    BOX = 'box'\n    HAMMING = 'hamming'\n    LANCZOS = 'lanczos'\n"
        "def __getattr__(name):\n"
        "    def unavailable(*a, **k):\n"
        "        raise RuntimeError(f'fake torchvision: transforms.functional.{name} is not available')\n"
        "    return unavailable\n"),
    "datasets/__init__.py": (
        "CIFAR100 = CIFAR10 = MNIST = KMNIST = FashionMNIST = ImageFolder = None\n"),
}


def install_fake_torchvision(folder):
    for rel, text in FAKE_TORCHVISION.items():
        path = os.path.join(folder, "torchvision", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    sys.path.insert(0, folder)


_FAKE = tempfile.mkdtemp(prefix="fake_torchvision_")
install_fake_torchvision(_FAKE)

import importlib.util  # noqa: E402

import torch  # noqa: E402
from flop_measure import measure  # noqa: E402  (tools/flop_measure.py: the shared convention)

import timm  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "timm_ground_truth.json")
TIMM_VERSION = "1.0.31"
SHAPE = [1, 3, 224, 224]
BUILDERS = {
    "resnet50": "timm/models/resnet.py",
    "vit_base_patch16_224": "timm/models/vision_transformer.py",
    "convnext_tiny": "timm/models/convnext.py",
    "efficientnet_b0": "timm/models/efficientnet.py",
}
USER_FILE = ("tests/fixtures/timm_cases/convnext_head.py", "Model")


def main():
    assert torch.__version__.split("+")[0] == "2.13.0", torch.__version__
    assert timm.__version__ == TIMM_VERSION, timm.__version__
    out = {"versions": {"torch": torch.__version__, "timm": timm.__version__},
           "convention": "FlopCounterMode total, eval, no_grad, cpu, SDPA MATH, mkldnn off"}
    for name, file in BUILDERS.items():
        entry = measure(timm.create_model(name, pretrained=False), SHAPE)
        entry.update(file=file, builder=name)
        out[name] = entry
        print(name, entry["params"], entry["forward_flops"])
    path, cls = USER_FILE
    spec = importlib.util.spec_from_file_location("convnext_head", os.path.join(REPO, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entry = measure(getattr(module, cls)(), SHAPE)
    entry.update(file=path, **{"class": cls})
    out[path] = entry
    print(path, entry["params"], entry["forward_flops"])
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
