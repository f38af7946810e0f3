"""timm 1.0.31 read from its source, never imported: the builders and a user model on a timm
backbone are exact, and the interpreter pieces they needed behave as CPython/PyTorch do.

Ground truth: tests/fixtures/timm_ground_truth.json, recorded by tools/record_timm.py executing
torch 2.13.0 CPU + timm 1.0.31 (FlopCounterMode, eval, no_grad, SDPA MATH backend, oneDNN off).
timm's source is not committed: it is downloaded once (``pip download --no-deps``) into pytest's
cache folder; the tests skip, saying why, when PyPI cannot be reached.
"""

import json
import sys
import textwrap
from pathlib import Path

import pytest

import staticflops
import wheels
from staticflops.api import analyze_text

HERE = Path(__file__).parent
TRUTH = json.loads((HERE / "fixtures" / "timm_ground_truth.json").read_text())
VERSION = TRUTH["versions"]["timm"]
USER_FILE = "tests/fixtures/timm_cases/convnext_head.py"
BUILDERS = ["resnet50", "vit_base_patch16_224", "convnext_tiny", "efficientnet_b0"]
PY = f"python{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture(scope="module")
def timm_wheel(request, tmp_path_factory) -> Path:
    folder = wheels.cache_folder(request, tmp_path_factory, f"timm-{VERSION}")
    return wheels.wheel(folder, "timm", VERSION)


@pytest.fixture(scope="module")
def venv(timm_wheel, tmp_path_factory) -> Path:
    """What `pip install --no-deps timm==1.0.31` leaves in a fresh venv (no torch): the
    wheel's files under lib/pythonX.Y/site-packages, and pyvenv.cfg."""
    root = tmp_path_factory.mktemp("venv")
    (root / "pyvenv.cfg").write_text("home = /nonexistent/bin\ninclude-system-site-packages = false\n"
                                     f"version = {sys.version_info.major}.{sys.version_info.minor}.0\n")
    (root / "bin").mkdir()
    (root / "bin" / "python").write_text("#!/bin/sh\nexit 1\n")  # never run: only its pyvenv.cfg is read
    site = root / "lib" / PY / "site-packages"
    wheels.unpack(timm_wheel, site)
    return root


def _exact(report, entry):
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["forward_flops"]
    assert [s for s in report.outputs if s is not None] == entry["output_shapes"]
    # complete: timm/data/transforms.py's undecidable PIL probe binds names no model reads,
    # so it is only a diagnostic
    assert report.unknown == []
    assert report.totals.complete


def test_user_model_on_a_timm_backbone_is_exact(venv):
    entry = TRUTH[USER_FILE]
    report = staticflops.analyze(USER_FILE, model="Model", inputs=["1x3x224x224"], python=venv / "bin" / "python")
    _exact(report, entry)


def test_pretrained_weights_are_never_read(venv, tmp_path):
    """`timm.create_model("resnet50", pretrained=True)`: timm builds the model, then its
    load_pretrained downloads and loads the weights, which change no cost; that call does nothing
    here (no network, no hub package needed), so the counts are the recorded resnet50's."""
    (tmp_path / "model.py").write_text('import timm\n\n\ndef build():\n'
                                       '    return timm.create_model("resnet50", pretrained=True)\n')
    report = staticflops.analyze(tmp_path / "model.py", model="build", inputs=["1x3x224x224"],
                                 python=venv / "bin" / "python")
    _exact(report, TRUTH["resnet50"])


@pytest.mark.parametrize("builder", BUILDERS)
def test_builders_from_their_timm_files_are_exact(venv, builder):
    entry = TRUTH[builder]
    site = venv / "lib" / PY / "site-packages"
    report = staticflops.analyze(site / entry["file"], model=builder, inputs=["1x3x224x224"], source_path=[site])
    _exact(report, entry)


# ---- dicts with an undecidable key (timm/data/transforms.py: `{Image.NEAREST: 'nearest', ...}`) ----

PIL_DICTS = """
import torch.nn as nn
from PIL import Image          # not followed: Image is an unknown

TO_STR = {Image.NEAREST: 'nearest', Image.BILINEAR: 'bilinear', Image.BICUBIC: 'bicubic'}
WIDTHS = {Image.NEAREST: 1, 'a': 8, 'b': 16}

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(%s, 2)

    def forward(self, x):
        return self.fc(x)
"""


def _in_features(expression: str):
    report = analyze_text(PIL_DICTS % expression, "m.py", inputs=["1x16"])
    return report


@pytest.mark.parametrize("expression, expected", [
    # 'b' is stored after the last undecidable key: whatever Image.NEAREST equals, d['b'] is 16
    ("WIDTHS['b']", 16),
    ("WIDTHS.get('b', 3)", 16),
    # a stored key is in the dict whatever the other keys are: 16 if True else 0
    ("16 if 'a' in WIDTHS else 0", 16),
])
def test_known_entries_of_a_partly_undecidable_dict_are_read(expression, expected):
    report = _in_features(expression)
    assert report.unknown == []
    assert report.totals.params == expected * 2 + 2  # Linear(expected, 2): weight + bias


@pytest.mark.parametrize("expression", [
    # CPython: Image.NEAREST == 'a' would replace 8 by... no: 'a' comes after it, but `'x'`
    # below is absent; it may still equal an undecidable key, so neither KeyError nor a value
    "WIDTHS['x']",
    "WIDTHS.get('x', 16)",
    # three entries only if the three PIL constants differ: len is not decidable
    "len(TO_STR)",
    # a later undecidable key may equal 'x' and replace 4 (a later entry wins in Python)
    "{'x': 4, Image.BOX: 5}['x']",
])
def test_what_depends_on_the_undecidable_keys_is_unknown_never_merged(expression):
    report = _in_features(expression)
    assert report.unknown, expression
    assert any("undecidable key" in u.what for u in report.unknown), report.unknown


def test_iterating_such_a_dict_names_the_undecidable_key():
    # as many pairs as there are distinct keys: not decidable. In the model's __init__ that
    # is an error naming the first cause; at the module level (timm's reversed
    # `{b: a for a, b in _pil_interpolation_to_str.items()}`) the name becomes an unknown.
    with pytest.raises(staticflops.AnalysisError, match="m.py:11:.*undecidable key .*PIL"):
        _in_features("len({b: a for a, b in TO_STR.items()})")
    module_level = PIL_DICTS.replace("WIDTHS =", "FROM_STR = {b: a for a, b in TO_STR.items()}\nWIDTHS =")
    report = analyze_text(module_level % "WIDTHS['b']", "m.py", inputs=["1x16"])
    assert report.unknown == [] and report.totals.params == 16 * 2 + 2


def test_a_later_known_key_wins_over_an_earlier_undecidable_one():
    # {Image.BOX: 5, 'x': 16}: if Image.BOX == 'x' Python keeps the first key object with the
    # last value, 16; otherwise 'x' -> 16. Either way d['x'] is 16.
    report = _in_features("{Image.BOX: 5, 'x': 16}['x']")
    assert report.unknown == []
    assert report.totals.params == 16 * 2 + 2


def test_unpacking_an_unknown_into_a_dict_keeps_it_undecidable():
    # {'x': 4, **unknown}: the unknown mapping may hold 'x'
    report = _in_features("{'x': 4, **Image.mapping}['x']")
    assert report.unknown


# ---- torch pieces timm's builders needed -------------------------------------------------------

LINSPACE = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        rates = [x.item() for x in torch.linspace(0, 1, 5)]
        stages = [x.tolist() for x in torch.linspace(0, 1, 5).split([2, 3])]
        self.rates, self.stages = rates, stages
        # rates == [0.0, 0.25, 0.5, 0.75, 1.0] (exact in float32); stages == [[0.0, 0.25], [0.5, 0.75, 1.0]]
        width = int(rates[1] * 16) + int(stages[1][0] * 8) + len(stages[1])   # 4 + 4 + 3 = 11
        self.fc = nn.Linear(width, 2)

    def forward(self, x):
        return self.fc(x)
"""


def test_linspace_values_reach_item_tolist_and_split():
    report = analyze_text(LINSPACE, "m.py", inputs=["1x11"])
    assert report.unknown == []
    assert report.totals.params == 11 * 2 + 2


BATCH_NORM_ACT = """
import torch.nn as nn
import torch.nn.functional as F

class BatchNormAct(nn.BatchNorm2d):
    # the forward timm's BatchNormAct2d copies from nn.BatchNorm2d
    def forward(self, x):
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        x = F.batch_norm(x, self.running_mean if not self.training else None,
                         self.running_var if not self.training else None,
                         self.weight, self.bias, bn_training, 0.1, self.eps)
        return F.relu(x)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 1, bias=False)
        self.bn = BatchNormAct(8)
        self.plain = nn.BatchNorm2d(8, track_running_stats=False)
        assert self.plain.running_mean is None
        self.fc = nn.Linear(self.bn.running_var.shape[0], 2)

    def forward(self, x):
        return self.fc(self.plain(self.bn(self.conv(x))).mean((2, 3)))
"""


def test_batch_norm_buffers_and_functional_batch_norm():
    report = analyze_text(BATCH_NORM_ACT, "m.py", inputs=["1x3x4x4"])
    assert report.unknown == []
    # conv 3*8 = 24; bn weight+bias 16 (running stats are buffers, not params); plain bn 16;
    # fc 8*2 + 2 = 18: 74
    assert report.totals.params == 24 + 16 + 16 + 18
    # conv: 8 out * 3 in * 16 positions = 384 MACs; fc: 16 MACs; norms count 0 (standard)
    assert report.totals.forward_flops == 2 * (384 + 16)


# ---- an `if` assumed true at the module level matters only where its names are read ----------

PROBE = """
import torch.nn as nn
from PIL import Image

if hasattr(Image, "Resampling"):   # undecidable: assumed true (timm/data/transforms.py:95)
    MODES = {Image.Resampling.NEAREST: 'nearest'}
    WIDTH = 8
else:
    MODES = {Image.NEAREST: 'nearest'}
    WIDTH = 4
DOUBLE = WIDTH * 2
%s

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(%s, 2)

    def forward(self, x):
        return self.fc(x)
"""
ASSUMED = "condition could not be decided (hasattr() on this value); assumed true"


@pytest.mark.parametrize("extra, width, reported", [
    ("", "16", False),            # nothing the probe bound is read: exact and complete
    ("", "WIDTH * 2", True),      # the model reads WIDTH (8 on the assumed branch)
    ("", "DOUBLE", True),         # ... or a name computed from it at the module level
    ("REGISTRY = []\nif hasattr(Image, 'X'):\n    REGISTRY.append(1)", "16", True),  # a side effect: at once
])
def test_module_level_assumption_is_reported_when_its_names_are_used(extra, width, reported):
    report = analyze_text(PROBE % (extra, width), "m.py", inputs=["1x16"])
    assert report.totals.params == 16 * 2 + 2
    assert any(u.what == ASSUMED for u in report.unknown) is reported
    assert report.totals.complete is (not reported)
    # the assumption itself is always listed among the diagnostics
    assert any(d.code == "SF131" and d.severity == "warning" for d in report.diagnostics)
