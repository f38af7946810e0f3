"""Generic Python semantics behind the most frequent first causes of the transformers folder run
(tools/transformers_folder_run.py, README "Coverage over the whole library").  Each snippet
mimics the library's pattern in a few lines, with no torch needed: a value the interpreter must
get right becomes a layer width, and the expected parameter count is CPython's answer worked
out by hand in the comment next to it."""

import textwrap

import staticflops


def analyse(tmp_path, source, inputs=("1x1",)):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source))
    return staticflops.analyze(path, inputs=list(inputs))


def params(report):
    return {row.name: row.params for row in report.layers if row.type == "Linear"}


# transformers' ModelOutput: an OrderedDict dataclass whose __setattr__/__setitem__ keep the
# dict keys and the attributes in step; backbones rebuild their output from `.items()`.
MODEL_OUTPUT = """
import torch.nn as nn
from collections import OrderedDict
from dataclasses import dataclass, fields


class Output(OrderedDict):
    def __post_init__(self):
        first = fields(self)[0].name
        value = getattr(self, first)
        if all(self.__dict__.get(f.name) is None for f in fields(self)[1:]) and isinstance(value, tuple):
            setattr(self, first, None)
            super().__delitem__(first)
            self[first] = value

    def __setattr__(self, name, value):
        if value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)


@dataclass
class BackboneOutput(Output):
    feature_maps: tuple = None
    hidden_states: tuple = None
"""


def test_dataclass_init_runs_the_class_setattr(tmp_path):
    report = analyse(tmp_path, MODEL_OUTPUT + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        full = BackboneOutput(feature_maps=(1, 2), hidden_states=(3,))
        # CPython: the generated __init__ does `self.feature_maps = ...`, so Output.__setattr__
        # stores both non-None fields as keys: len 2 -> Linear(1, 2) = 2 weights + 2 biases = 4
        self.keys = nn.Linear(1, len(full))

    def forward(self, x):
        return x
""")
    assert params(report) == {"keys": 4}


def test_a_dict_subclass_setitem_written_in_the_code_runs(tmp_path):
    report = analyse(tmp_path, MODEL_OUTPUT + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        out = BackboneOutput(feature_maps=(1, 2), hidden_states=(3,))
        kept = {k: v for k, v in out.items() if k != "hidden_states"}
        # CPython: only feature_maps is given, so __post_init__ deletes the key and re-adds it
        # with `self[first] = value`, whose __setitem__ also sets the attribute back:
        # feature_maps == (1, 2), keys ['feature_maps'] -> Linear(1, 2) = 4, Linear(1, 1) = 2
        rebuilt = type(out)(**kept)
        self.second = nn.Linear(1, rebuilt.feature_maps[1])
        self.count = nn.Linear(1, len(rebuilt))

    def forward(self, x):
        return x
""")
    assert params(report) == {"second": 4, "count": 2}


def test_torch_finfo_and_iinfo_give_the_ieee_limits(tmp_path):
    report = analyse(tmp_path, """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # float32: eps = 2**-23, so 1 / eps = 8388608; max = (2 - 2**-23) * 2**127 > 3e38
        # float16: max = (2 - 2**-10) * 2**15 = 65504; iinfo(int8).max = 2**7 - 1 = 127
        # bfloat16: eps = 2**-7 -> 1 / eps = 128; finfo() is the default dtype, float32
        self.eps = nn.Linear(1, int(1 / torch.finfo(torch.float32).eps) // 2**20)   # 8 -> 16
        self.half = nn.Linear(1, int(torch.finfo(torch.float16).max) - 65500)      # 4 -> 8
        self.int8 = nn.Linear(1, torch.iinfo(torch.int8).max - 120)                 # 7 -> 14
        self.bf16 = nn.Linear(1, int(1 / torch.finfo(torch.bfloat16).eps) // 64)   # 2 -> 4
        self.big = nn.Linear(1, 3 if torch.finfo().max > 3e38 and torch.finfo().min < -3e38 else 5)  # 3 -> 6

    def forward(self, x):
        # attention masks: x.masked_fill(mask, torch.finfo(x.dtype).min) keeps the shape
        return x.masked_fill(x > 0, torch.finfo(x.dtype).min)
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"eps": 16, "half": 8, "int8": 14, "bf16": 4, "big": 6}
