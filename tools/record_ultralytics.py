"""Record ground truth for ultralytics' YOLOv8n by executing torch 2.13.0 CPU + ultralytics 8.4.190.

Only tools/ scripts import torch; tests/test_ultralytics.py reads the JSON this writes
(tests/fixtures/ultralytics_ground_truth.json).  Conventions as tools/record_torch.py:
FlopCounterMode forward total, eval mode under torch.no_grad(), SDPA MATH backend and oneDNN
off; params = sum of p.numel() over model.parameters().

Models: ``DetectionModel("yolov8n.yaml")`` (and the others in ``CASES``) from ``ultralytics.nn.tasks`` (built from the YAML
shipped in the package, ``cfg/models/v8/yolov8.yaml`` at scale ``n``), ``.eval()``, one
1x3x640x640 input.  Also recorded: the GFLOPs ultralytics itself prints (``model_info``, which
counts with thop at 640: MACs x 2) to compare in docs/libraries.md.

torchvision: ultralytics 8.4.190 declares it as a dependency, but the PyPI wheel does not install
beside this torch.  Building and running a DetectionModel never uses it — ultralytics asks only
for its version at import (``importlib.metadata.version("torchvision")``) and imports it inside
functions for NMS/data transforms and TorchScript loading.  So this script answers that one
version query with "0.28.0" and puts an empty ``torchvision`` module in ``sys.modules``; if a
counted code path used it, the run would fail with an AttributeError, not give a number.

How to run (repository root), in a venv with torch 2.13.0 CPU:

    pip install --no-deps ultralytics==8.4.190
    pip install pyyaml psutil requests pillow matplotlib opencv-python-headless polars ultralytics-thop
    python tools/record_ultralytics.py
"""
import importlib.metadata
import json
import os
import sys
import tempfile
import types
import warnings

warnings.filterwarnings("ignore", category=UserWarning)  # oneDNN TF32 notices; no effect on counts

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "ultralytics_ground_truth.json")
VERSION = "8.4.190"
# the must-show (YOLOv8n), YOLOv6n (its YAML names the activation as code: `eval("torch.nn.ReLU()")`)
# and YOLO11n (C3k2 and C2PSA attention blocks)
CASES = {"yolov8n": ("yolov8n.yaml", [1, 3, 640, 640]), "yolov6n": ("yolov6n.yaml", [1, 3, 640, 640]),
         "yolo11n": ("yolo11n.yaml", [1, 3, 640, 640])}

_real_version = importlib.metadata.version


def _version(name):
    return "0.28.0" if name == "torchvision" else _real_version(name)


def main():
    importlib.metadata.version = _version
    sys.modules.setdefault("torchvision", types.ModuleType("torchvision"))
    # ultralytics writes its settings file at import: keep it out of the home folder, and offline
    os.environ["YOLO_CONFIG_DIR"] = tempfile.mkdtemp(prefix="ultralytics-settings-")
    os.environ["YOLO_OFFLINE"] = "1"

    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.utils.flop_counter import FlopCounterMode

    import ultralytics
    from ultralytics.nn.tasks import DetectionModel
    from ultralytics.utils.torch_utils import get_flops

    assert ultralytics.__version__ == VERSION, ultralytics.__version__
    assert torch.__version__.startswith("2.13.0"), torch.__version__

    results = {}
    for name, (cfg, shape) in CASES.items():
        torch.manual_seed(0)
        model = DetectionModel(cfg, verbose=False)
        model.eval()
        x = torch.randn(*shape)
        with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False):
            counter = FlopCounterMode(display=False)
            with counter:
                out = model(x)
        outputs = out if isinstance(out, (tuple, list)) else [out]
        results[name] = {
            "cfg": cfg,
            "inputs": [{"shape": shape, "dtype": "float32"}],
            "output_shapes": [list(o.shape) for o in outputs if isinstance(o, torch.Tensor)],
            "forward_flops": counter.get_total_flops(),
            "flops_by_op": {str(k): v for k, v in sorted(counter.get_flop_counts()["Global"].items(), key=str)},
            "params": sum(p.numel() for p in model.parameters()),
            "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
            "ultralytics_printed_gflops_640": get_flops(model, imgsz=shape[-1]),
        }
        print(name, results[name])
    with open(OUT, "w") as handle:
        json.dump({"versions": {"torch": torch.__version__, "ultralytics": ultralytics.__version__},
                   "cases": results}, handle, indent=1, sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main()
