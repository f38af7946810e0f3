"""diffusers 0.42.1 analysed from its published source, read like any third-party package (never
imported): `from diffusers import UNet2DConditionModel` goes through diffusers' `_LazyModule`
(`sys.modules[__name__] = ...`, its `__getattr__`, `importlib.import_module`), and the models'
`@register_to_config` plumbing fills `self.config`.

Ground truth: tests/fixtures/diffusers_ground_truth.json, recorded by tools/record_diffusers.py
executing torch 2.13.0 CPU + diffusers 0.42.1 (FlopCounterMode, eval under no_grad, SDPA MATH
backend, oneDNN off).  The source is downloaded once (`pip download --no-deps`) into pytest's
cache folder; without network the tests are skipped, saying why.
"""

import json
import textwrap
from pathlib import Path

import pytest

import staticflops
import wheels

HERE = Path(__file__).parent
TRUTH = json.loads((HERE / "fixtures" / "diffusers_ground_truth.json").read_text())
VERSION = TRUTH["_meta"]["diffusers"]


@pytest.fixture(scope="module")
def diffusers_source(request, tmp_path_factory) -> Path:
    """The folder holding diffusers/ as published (the wheel unpacked; not ours to commit)."""
    return wheels.unpacked(request, tmp_path_factory, "diffusers", VERSION, "diffusers/")


def _shapes(entry) -> list[str]:
    return ["x".join(str(d) for d in spec["shape"]) + (":int64" if spec["dtype"] == "int64" else "")
            for spec in entry["inputs"]]


@pytest.mark.parametrize("name", ["unet_small", "vae_small", "sd15_unet"])
def test_diffusers_models_are_exact(diffusers_source, tmp_path, name):
    """A user file importing the class from the package, as one would write it."""
    entry = TRUTH[name]
    (tmp_path / "model.py").write_text(f"from diffusers import {entry['class']}\n")
    report = staticflops.analyze(tmp_path / "model.py", model=entry["class"], kwargs=entry["kwargs"],
                                 inputs=_shapes(entry), source_path=[diffusers_source])
    assert report.unknown == []
    assert report.outputs == entry["output_shapes"]
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["forward_flops"]


def test_register_to_config_fills_self_config(diffusers_source, tmp_path):
    """diffusers' ConfigMixin: @register_to_config records the __init__ arguments (defaults
    filled in by inspect.signature) in a FrozenDict read back as `self.config.<name>`."""
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import torch.nn as nn
        from diffusers.configuration_utils import ConfigMixin, register_to_config
        from diffusers.models.modeling_utils import ModelMixin


        class Net(ModelMixin, ConfigMixin):
            @register_to_config
            def __init__(self, width: int = 3, depth: int = 2):
                super().__init__()
                self.a = nn.Linear(1, self.config.width * 10)   # the argument given: 5 -> 50
                self.b = nn.Linear(1, self.config.depth)        # the default: 2
                self.c = nn.Linear(1, len(self.config))         # 3: width, depth, _use_default_values
                self.d = nn.Linear(1, 7 if self.config._use_default_values == ["depth"] else 1)  # 7

            def forward(self, x):
                return x
    """))
    report = staticflops.analyze(tmp_path / "model.py", model="Net", kwargs={"width": 5}, inputs=["1x1"],
                                 source_path=[diffusers_source])
    assert report.unknown == []
    widths = {row.name: row.params // 2 for row in report.layers if row.type == "Linear"}
    # Linear(1, n) has n weights + n biases.  CPython (configuration_utils.py 0.42.1, inner_init):
    # config = {"width": 5, "depth": 2, "_use_default_values": ["depth"]} (the names not passed)
    assert widths == {"a": 50, "b": 2, "c": 3, "d": 7}
