"""Python constructs model code is written in, each checked with hand-worked numbers."""

import textwrap

import pytest

import staticflops

MODEL = '''
import math
from collections import OrderedDict
import torch
import torch.nn as nn
import torch.nn.functional as F

WIDTHS = [8, 16]
ACTS = {"relu": nn.ReLU, "gelu": nn.GELU}


def make_head(features, classes, hidden=None):
    if hidden is None:
        return nn.Linear(features, classes)
    return nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, classes))


class Net(nn.Module):
    expansion = 2

    class Stem(nn.Module):
        def __init__(self, out):
            super().__init__()
            self.conv = nn.Conv2d(3, out, kernel_size=3, padding=1, bias=False)

        def forward(self, x):
            return self.conv(x)

    def __init__(self, num_classes=10, act="relu", use_extra=False):
        super(Net, self).__init__()
        self.stem = Net.Stem(WIDTHS[0])
        blocks = []
        for i, (cin, cout) in enumerate(zip(WIDTHS[:-1], WIDTHS[1:])):
            blocks.append(self._make_block(cin, cout, stride=2 if i == 0 else 1))
        self.blocks = nn.ModuleList(blocks)
        self.named = nn.ModuleDict({name: cls() for name, cls in ACTS.items()})
        self.act = act
        if use_extra:
            self.extra = nn.Linear(1, 1)
        self.pool = nn.Sequential(OrderedDict([("gap", nn.AdaptiveAvgPool2d(1)), ("flat", nn.Flatten())]))
        self.head = make_head(WIDTHS[-1] * self.expansion // 2, num_classes, hidden=math.ceil(num_classes * 1.5))

    def _make_block(self, cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=1), nn.BatchNorm2d(cout))

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = self.named[self.act](block(x))
        b, c, h, w = x.shape
        x = x.view(b, c, h * w).mean(dim=-1, keepdim=True).unsqueeze(-1)
        return self.head(self.pool(x))
'''


@pytest.fixture()
def model_file(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(MODEL)
    return path


def test_constructs_numbers(model_file):
    report = staticflops.analyze(model_file, inputs=["2x3x16x16"])
    assert report.unknown == []
    layers = {row.name: row for row in report.layers}
    # stem: 2x8x16x16 outputs x 3*3*3 MACs = 110,592
    assert layers["stem.conv"].macs == 2 * 8 * 16 * 16 * 27
    # block conv 8->16, stride 2: 2x16x8x8 outputs x 8*3*3 = 147,456 MACs
    assert layers["blocks.0.0"].macs == 2 * 16 * 8 * 8 * 72
    assert layers["blocks.0.0"].output_shape == [2, 16, 8, 8]
    # head: hidden = ceil(10 * 1.5) = 15; Linear(16, 15) + Linear(15, 10) on batch 2
    assert layers["head.0"].macs == 2 * 16 * 15 and layers["head.2"].macs == 2 * 15 * 10
    assert report.outputs == [[2, 10]]
    # params: stem 8*27; conv 16*72 + 16; BN 2*16; head 16*15 + 15 + 15*10 + 10
    assert report.totals.params == 216 + (1152 + 16) + 32 + (240 + 15) + (150 + 10)
    assert "extra" not in layers  # `if use_extra` followed with its known value


def test_constructs_with_kwargs(model_file):
    report = staticflops.analyze(model_file, inputs=["1x3x16x16"], kwargs={"num_classes": 4, "act": "gelu",
                                                                              "use_extra": True})
    layers = {row.name: row for row in report.layers}
    assert "extra" in layers and layers["extra"].calls == 0
    assert layers["named.gelu"].calls == 1 and layers["named.relu"].calls == 0
    # hidden = ceil(4 * 1.5) = 6: Linear(16, 6) + Linear(6, 4)
    assert layers["head.0"].params == 16 * 6 + 6 and report.outputs == [[1, 4]]


def test_symbolic_spatial_size_gives_exact_formulas(model_file):
    report = staticflops.analyze(model_file, inputs=["Bx3xHxW"])
    layers = {row.name: row for row in report.layers}
    # stem keeps the size: B*8*H*W outputs x 27 MACs
    assert layers["stem.conv"].macs == "216*B*H*W"
    # stride-2 conv: ((H + 2 - 2 - 1)//2 + 1) = (H - 1)//2 + 1 rows
    assert layers["blocks.0.0"].output_shape == ["B", 16, "((H - 1)//2) + 1", "((W - 1)//2) + 1"]


def test_unknown_values_are_reported_not_zero(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent('''
        import torch
        from torch import nn
        from mystery import MysteryBlock

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(4, 4)
                self.b = MysteryBlock(4)

            def forward(self, x):
                return self.b(self.a(x))
    '''))
    report = staticflops.analyze(path, inputs=["1x4"])
    assert not report.totals.complete
    whats = [u.what for u in report.unknown]
    assert any("import of `mystery`" in w for w in whats)
    assert report.unknown[0].location == f"{path}:4:1"
    # What is known is still counted: Linear(4, 4) = 16 MACs.
    assert report.totals.macs == 16


SHARED = '''
import torch
from torch import nn


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.second = nn.Linear(4, 4)
        self.again = self.first            # the same Sequential under a second name
        self.inner = nn.Sequential(self.second, nn.Linear(4, 2))

    def forward(self, x):
        return self.inner(self.again(x))
'''


def test_named_modules_lists_pre_order_and_a_shared_module_at_its_first_path(tmp_path):
    # torch.nn.Module.named_modules: pre-order, children in assignment order, a module already
    # listed is skipped with its subtree: `again` (= `first`) and `inner.0` (= `second`) are not listed.
    path = tmp_path / "shared.py"
    path.write_text(SHARED)
    report = staticflops.analyze(str(path), inputs=["1x4"])
    modules = [row.name for row in report.layers if row.kind == "module"]
    assert modules == ["first", "first.0", "first.1", "second", "inner", "inner.1"]
    # 3 Linear(4, 4) run: first.0, then second (via inner.0), then Linear(4, 2) = 16 + 16 + 8 MACs.
    assert report.totals.macs == 40


TIED = '''
import torch
from torch import nn


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10)
        self.head.weight = self.emb.weight   # tied: one tensor under two names
        self.alias = self.head                # a shared module under a second name
        self.register_buffer("scale", torch.ones(3))
        every = [name for name, _ in self.named_parameters(remove_duplicate=False)]
        once = [name for name, _ in self.named_parameters()]
        modules = [name for name, _ in self.named_modules(remove_duplicate=False)]
        buffers = [name for name, _ in self.named_buffers(prefix="m", remove_duplicate=False)]
        if every != ["emb.weight", "head.weight", "head.bias", "alias.weight", "alias.bias"]:
            raise ValueError(every)
        if once != ["emb.weight", "head.bias"] or modules != ["", "emb", "head", "alias"]:
            raise ValueError(once, modules)
        if buffers != ["m.scale"] or [n for n, _ in self.named_parameters(prefix="p", recurse=False)] != []:
            raise ValueError(buffers)
        self.out = nn.Linear(len(every), 1)

    def forward(self, x):
        return self.out(x)
'''


def test_named_members_keep_duplicates_when_asked(tmp_path):
    """torch's named_parameters/named_modules/named_buffers(prefix, recurse, remove_duplicate):
    with remove_duplicate=False a tied weight and a shared module are listed at every name
    (transformers' tie-weights check matches them by name).  Any other listing raises; the head
    over the 5 names is Linear(5, 1): 5 + 1 params; emb 10*4 = 40, head's bias 10 (its weight is
    emb's): 56 in all."""
    path = tmp_path / "tied.py"
    path.write_text(TIED)
    report = staticflops.analyze(str(path), inputs=["1x5"])
    assert report.totals.params == 56 and report.unknown == []


ASSERTS = '''
import torch
from torch import nn


class M(nn.Module):
    def __init__(self, n=4, decoder=False):
        super().__init__()
        assert n % 2 == 0, "n must be even"
        self.fc = nn.Linear(4, n)
        assert isinstance(n, int) and n > 100   # a call: passed over, as it always was
        try:
            assert decoder, "not a decoder"
        except AssertionError:
            self.extra = nn.Linear(1, 1)

    def forward(self, x):
        assert x.shape[-1] == 4
        return self.fc(x)
'''


def test_a_plain_assert_that_fails_raises_assertion_error(tmp_path):
    """Python raises AssertionError on a false test (transformers' ReformerModelWithLMHead asserts
    `config.is_decoder`).  M(): n = 4 passes, the caught `assert decoder` builds extra: Linear(4, 4)
    + Linear(1, 1) = 20 + 2 = 22 params.  M(n=3): the model cannot be built, as in Python.  A test
    with a call (isinstance) is passed over."""
    path = tmp_path / "asserts.py"
    path.write_text(ASSERTS)
    report = staticflops.analyze(str(path), inputs=["1x4"])
    assert report.totals.params == 22 and report.unknown == []
    with pytest.raises(staticflops.AnalysisError, match=r"asserts.py:9:9: .*an assert fails.*: n must be even"):
        staticflops.analyze(str(path), model="M(n=3)", inputs=["1x4"])


@pytest.mark.parametrize("literal, value", [
    ("0x10", 16), ("0o20", 16), ("0b1_0000", 16), ("1_6", 16), ("0_0 + 16", 16), ("0X_10", 16),
    ("int(16.0)", 16), ("int(1.6e1)", 16), ("int(1_6.)", 16), ("int(.16e2)", 16),
])
def test_number_literals_in_every_spelling(tmp_path, literal, value):
    path = tmp_path / "lit.py"
    path.write_text(textwrap.dedent(f'''\
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, {literal})

            def forward(self, x):
                return self.fc(x)
        '''))
    report = staticflops.analyze(path, inputs=["1x4"])
    # Linear(4, 16) on 1x4: 4*16 = 64 MACs
    assert report.outputs == [[1, value]] and report.totals.macs == 4 * value
