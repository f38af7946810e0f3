"""Constructions given an instance from outside and an ``int`` they only pass along
(``[Layer(cfg, i) for i in range(8)]``): the construction memo (frontend/construction_memo.py)
keys the instance by identity, records what is read of it, and runs the construction once
with a placeholder for the int (frontend/opaque_ints.py).  A copy is reused only while the
reads give the same values and the int was only stored.

Each negative case also runs with the checks off (``ConstructionMemo.force``: reuse with no
check and the int left out of the key, as a memo without placeholders would; or the
instance keyed by its class only), to show that its assertion would catch a wrong reuse.

Figures: ``nn.Linear(a, b)`` holds a*b + b parameters; on a 1x4 input a Linear(4, 4) costs
1*4*4 = 16 MACs, 32 FLOPs (biases count 0)."""

import pytest

from staticflops.frontend import construction_memo

from memo_helpers import analyse as _analyse
from memo_helpers import force_reuse as _forced


def _model(layer: str, net_init: str, forward: str = "return x") -> str:
    return f"""
import torch.nn as nn

class Cfg:
    def __init__(self, d=4):
        self.d = d
        self.kinds = ["s", "l", "s", "l", "s", "l", "s", "l"]
        self.widths = [4]

class Layer(nn.Module):
    def __init__(self, cfg, i):
        super().__init__()
{layer}

class Net(nn.Module):
    def __init__(self):
        super().__init__()
{net_init}

    def forward(self, x):
        {forward}
"""


def _indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.strip("\n").splitlines())


STORED = _indent("""
self.cfg = cfg
self.index = i
self.fc = nn.Linear(cfg.d, cfg.d)
""", 8)
EIGHT = _indent("""
cfg = Cfg()
self.layers = nn.ModuleList([Layer(cfg, i) for i in range(8)])
""", 8)


def test_layers_that_only_store_their_index_are_copied(tmp_path, memo):
    report = _analyse(tmp_path, _model(STORED, EIGHT))
    assert report.totals.params == 8 * (4 * 4 + 4)  # 160
    # the first layer is interpreted, the second recorded and run with a placeholder, the six others copied
    assert memo().hits == 6


def test_copies_keep_the_config_and_their_own_index(tmp_path, memo):
    forward = _indent("""
for layer in self.layers:
    assert layer.cfg is self.layers[0].cfg
    if layer.index % 2 == 0:
        x = layer.fc(x)
return x
""", 8).lstrip()
    report = _analyse(tmp_path, _model(STORED, EIGHT, forward))
    assert memo().hits == 6
    assert report.totals.forward_flops == 4 * 32  # layers 0, 2, 4, 6: 128
    assert not report.unknown


def test_forced_reuse_of_the_index_would_be_caught_in_the_forward(tmp_path, memo, monkeypatch):
    _forced(monkeypatch)
    forward = "return self.layers[2].fc(x) if self.layers[2].index == 2 else x"
    # a copy of the second layer would keep index 1: no Linear call, 0 FLOPs instead of 32
    assert _analyse(tmp_path, _model(STORED, EIGHT, forward)).totals.forward_flops == 0
    monkeypatch.undo()
    assert _analyse(tmp_path, _model(STORED, EIGHT, forward)).totals.forward_flops == 32


ARITHMETIC = _indent("""
self.fc = nn.Linear(cfg.d, cfg.d * (i % 2 + 1))
""", 8)
BRANCH = _indent("""
self.fc = nn.Linear(cfg.d, cfg.d)
if i % 2:
    self.extra = nn.Linear(cfg.d, cfg.d)
""", 8)
INDEXED = _indent("""
width = 4 if cfg.kinds[i] == "s" else 8
self.fc = nn.Linear(cfg.d, width)
""", 8)


@pytest.mark.parametrize("layer, right, forced", [
    # Linear(4, 4) = 20 on even layers, Linear(4, 8) = 40 on odd ones: 4*20 + 4*40 = 240;
    # forced, layers 2..7 copy layer 1: 20 + 7*40 = 300
    (ARITHMETIC, 240, 300),
    # 20 each, plus another 20 on odd layers: 8*20 + 4*20 = 240; forced: 20 + 7*40 = 300
    (BRANCH, 240, 300),
    # kinds s, l, s, l...: as ARITHMETIC
    (INDEXED, 240, 300),
])
def test_an_index_used_in_arithmetic_a_test_or_a_subscript_is_not_left_out(tmp_path, memo, monkeypatch,
                                                                            layer, right, forced):
    assert _analyse(tmp_path, _model(layer, EIGHT)).totals.params == right
    assert memo().hits == 0
    _forced(monkeypatch)
    assert _analyse(tmp_path, _model(layer, EIGHT)).totals.params == forced


INNER = """
class Inner(nn.Module):
    def __init__(self, i):
        super().__init__()
        self.fc = nn.Linear(4, 4 * (i % 2 + 1))
"""


def test_an_index_passed_on_and_used_further_down_is_not_left_out(tmp_path, memo, monkeypatch):
    layer = _indent("self.inner = Inner(i)", 8)
    source = _model(layer, EIGHT) + INNER
    assert _analyse(tmp_path, source).totals.params == 240  # as ARITHMETIC above
    _forced(monkeypatch)
    assert _analyse(tmp_path, source).totals.params == 300


def _loop(change: str) -> str:
    """Eight layers built in a loop; ``change`` runs before the fifth."""
    return _indent(f"""
cfg = Cfg()
other = Cfg(8)
layers = []
for i in range(8):
    if i == 4:
{_indent(change, 8)}
    layers.append(Layer(cfg, i))
self.layers = nn.ModuleList(layers)
""", 8)


WIDE = _indent("self.fc = nn.Linear(cfg.d, cfg.d)", 8)
LISTED = _indent("self.fc = nn.Linear(4, cfg.widths[0])", 8)


def test_a_config_attribute_changed_between_layers_is_seen(tmp_path, memo, monkeypatch):
    source = _model(WIDE, _loop("cfg.d = 8"))
    # four Linear(4, 4) = 80, four Linear(8, 8) = 4*72 = 288: 368; forced, all copies of layer 1: 8*20 = 160
    assert _analyse(tmp_path, source).totals.params == 368
    _forced(monkeypatch)
    assert _analyse(tmp_path, source).totals.params == 160


def test_a_shared_list_of_the_config_changed_between_layers_is_seen(tmp_path, memo, monkeypatch):
    source = _model(LISTED, _loop("cfg.widths[0] = 8"))
    # four Linear(4, 4) = 80, four Linear(4, 8) = 160: 240; forced: 8*20 = 160
    assert _analyse(tmp_path, source).totals.params == 240
    _forced(monkeypatch)
    assert _analyse(tmp_path, source).totals.params == 160


def test_another_config_instance_is_another_key(tmp_path, memo, monkeypatch):
    source = _model(WIDE, _loop("cfg = other"))
    assert _analyse(tmp_path, source).totals.params == 368  # as above
    # keyed by the instance's class instead of the instance: the d=4 layers are copied for cfg d=8
    monkeypatch.setattr(construction_memo, "_argument_key", lambda value: (
        (construction_memo.Instance, value.cls) if type(value) is construction_memo.Instance
        else construction_memo._plain_key(value)))
    assert _analyse(tmp_path, source).totals.params == 160


REGISTRY = """
class Registry(dict):
    def __getitem__(self, key):
        return super().__getitem__(key) * 1

WIDTHS = Registry(small=4)
"""


def test_a_global_registry_read_by_the_layers_is_watched(tmp_path, memo, monkeypatch):
    layer = _indent('self.fc = nn.Linear(4, WIDTHS["small"])', 8)
    source = _model(layer, _loop('WIDTHS["small"] = 8')) + REGISTRY
    # four Linear(4, 4) = 80, four Linear(4, 8) = 160: 240; forced: 8*20 = 160
    assert _analyse(tmp_path, source).totals.params == 240
    assert memo().hits == 2  # layers 2 and 3: copies; from the fifth on, the registry changed
    _forced(monkeypatch)
    assert _analyse(tmp_path, source).totals.params == 160


def test_the_same_layers_with_the_memo_off_give_the_same_figures(tmp_path, monkeypatch):
    for layer, net in ((STORED, EIGHT), (INDEXED, EIGHT), (WIDE, _loop("cfg.d = 8"))):
        on = _analyse(tmp_path, _model(layer, net)).totals
        monkeypatch.setattr(construction_memo.ConstructionMemo, "enabled", False)
        off = _analyse(tmp_path, _model(layer, net)).totals
        monkeypatch.undo()
        assert (on.params, on.forward_flops) == (off.params, off.forward_flops)


TWO_INDICES = """
import torch.nn as nn

class Cfg:
    d = 4

class Layer(nn.Module):
    def __init__(self, cfg, i, *, j):
        super().__init__()
        self.i = i
        self.j = j
        self.fc = nn.Linear(cfg.d, cfg.d)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = Cfg()
        self.layers = nn.ModuleList([Layer(cfg, i, j=2 * i) for i in range(8)])

    def forward(self, x):
        for layer in self.layers:
            if layer.i + layer.j == 6:
                x = layer.fc(x)
        return x
"""


def test_two_indices_one_given_by_keyword_are_both_filled_in(tmp_path, memo, monkeypatch):
    # only layer 2 (i=2, j=4) runs its Linear: 32 FLOPs; forced, layers 2..7 copy layer 1 (1 + 2): 0
    assert _analyse(tmp_path, TWO_INDICES).totals.forward_flops == 32
    assert memo().hits == 6
    _forced(monkeypatch)
    assert _analyse(tmp_path, TWO_INDICES).totals.forward_flops == 0
