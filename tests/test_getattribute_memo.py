"""Reads through a ``__getattribute__`` of the analysed code (frontend/getattribute_memo.py): a
read whose inputs did not change is answered from the memo; a read after a change to
anything it read (the instance's dict, an alias table, a global, a class) is interpreted again.

Each model builds ``nn.Linear(cfg.width, ...)`` layers, so a wrong value read shows in the
parameter count: Linear(i, o) has i*o weights + o biases.  The cases where a stale answer
would be wrong also run with validation switched off, to show their assertion catches it.
"""

import pytest

from staticflops.frontend import getattribute_memo

from memo_helpers import analyse as _analyse


# transformers' PreTrainedConfig pattern: an alias table read through object.__getattribute__
CONFIG = """
import torch.nn as nn

class Config:
    attribute_map = {"width": "hidden_size"}

    def __init__(self):
        self.hidden_size = 4

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)
"""


def _net(body: str) -> str:
    return CONFIG + f"""
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = Config()
{body}

    def forward(self, x):
        return x
"""


def _stale(monkeypatch):
    """Reuse without checking what the read read: what an unchecked memo would answer."""
    monkeypatch.setattr(getattribute_memo, "_valid", lambda entry, builtins: True)


# Four reads of cfg.width (4): four Linear(4, 4) = 4 * (16 + 4) = 80 parameters.
REPEATED = _net("""        self.layers = nn.ModuleList([nn.Linear(cfg.width, cfg.width // 1) for _ in range(2)])""")


def test_repeated_reads_are_answered_from_the_memo(tmp_path, memo):
    assert _analyse(tmp_path, REPEATED).totals.params == 2 * (4 * 4 + 4)
    assert memo().hook_hits >= 3  # the first read is interpreted, the other three reused


# The alias table changes between two reads: width -> hidden_size (4), then -> other (8).
# Linear(4, 4) + Linear(8, 8) = 20 + 72 = 92 parameters.
ALIAS_CHANGED = _net("""        cfg.other = 8
        self.a = nn.Linear(cfg.width, cfg.width)
        Config.attribute_map["width"] = "other"
        self.b = nn.Linear(cfg.width, cfg.width)""")


def test_a_changed_alias_table_is_read_again(tmp_path, memo):
    assert _analyse(tmp_path, ALIAS_CHANGED).totals.params == 20 + 72
    assert memo().hook_hits >= 1  # the second read of each pair


def test_a_stale_alias_table_would_be_caught(tmp_path, monkeypatch):
    _stale(monkeypatch)
    assert _analyse(tmp_path, ALIAS_CHANGED).totals.params == 20 + 20


# The instance's dict, handed out by __getattribute__("__dict__"), is written directly:
# Linear(4, 4) then Linear(8, 8): 20 + 72.
DICT_WRITTEN = _net("""        self.a = nn.Linear(cfg.width, cfg.width)
        object.__getattribute__(cfg, "__dict__")["hidden_size"] = 8
        self.b = nn.Linear(cfg.width, cfg.width)""")


def test_a_write_through_the_handed_out_dict_is_seen(tmp_path):
    assert _analyse(tmp_path, DICT_WRITTEN).totals.params == 20 + 72


def test_a_stale_dict_would_be_caught(tmp_path, monkeypatch):
    _stale(monkeypatch)
    assert _analyse(tmp_path, DICT_WRITTEN).totals.params == 20 + 20


# An ordinary attribute write between the reads: 20 + 72.
SET = _net("""        self.a = nn.Linear(cfg.width, cfg.width)
        cfg.hidden_size = 8
        self.b = nn.Linear(cfg.width, cfg.width)""")


def test_an_attribute_write_is_seen(tmp_path):
    assert _analyse(tmp_path, SET).totals.params == 20 + 72


# A global the override reads (a scale) changes: Linear(4, 4) then Linear(8, 8): 20 + 72.
GLOBAL_READ = """
import torch.nn as nn

SCALE = 1

class Config:
    def __init__(self):
        self.hidden_size = 4

    def __getattribute__(self, key):
        value = super().__getattribute__(key)
        return value * SCALE if key == "hidden_size" else value

class Net(nn.Module):
    def __init__(self):
        global SCALE
        super().__init__()
        cfg = Config()
        self.a = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        SCALE = 2
        self.b = nn.Linear(cfg.hidden_size, cfg.hidden_size)

    def forward(self, x):
        return x
"""


def test_a_changed_global_is_read_again(tmp_path, memo):
    assert _analyse(tmp_path, GLOBAL_READ).totals.params == 20 + 72
    assert memo().hook_hits >= 1


def test_a_stale_global_would_be_caught(tmp_path, monkeypatch):
    _stale(monkeypatch)
    assert _analyse(tmp_path, GLOBAL_READ).totals.params == 20 + 20


# An override with an effect outside (a counter) runs for every read: three reads make
# the counter 1, 2, 3, and the third Linear is Linear(3, 3): 4*4+4 + 3*3+3 = 32.
COUNTING = """
import torch.nn as nn

READS = []

class Config:
    def __init__(self):
        self.hidden_size = 4

    def __getattribute__(self, key):
        READS.append(key)
        return super().__getattribute__(key)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = Config()
        self.a = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.b = nn.Linear(cfg.hidden_size - len(READS) + 3, len(READS) + 1)

    def forward(self, x):
        return x
"""


def test_an_override_that_writes_outside_runs_every_time(tmp_path, memo):
    # reads: hidden_size x3 -> len(READS) == 3 at the second Linear: Linear(4 - 3 + 3, 4) = 20
    assert _analyse(tmp_path, COUNTING).totals.params == 20 + 20
    assert memo().hook_hits == 0


# A value the read makes (a new list each time) is not handed out twice: `is` stays False,
# so the second Linear is Linear(4, 4), not Linear(4, 8): 20 + 20.
FRESH = """
import torch.nn as nn

class Config:
    def __init__(self):
        self.hidden_size = 4

    def __getattribute__(self, key):
        if key == "sizes":
            return [super().__getattribute__("hidden_size")]
        return super().__getattribute__(key)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = Config()
        self.a = nn.Linear(cfg.sizes[0], 4)
        self.b = nn.Linear(4, 8 if cfg.sizes is cfg.sizes else 4)

    def forward(self, x):
        return x
"""


def test_a_value_the_read_makes_is_made_again(tmp_path):
    assert _analyse(tmp_path, FRESH).totals.params == 20 + 20


@pytest.mark.parametrize("source", [REPEATED, ALIAS_CHANGED, DICT_WRITTEN, SET, GLOBAL_READ, COUNTING, FRESH])
def test_the_memo_changes_no_result(tmp_path, monkeypatch, source):
    with_memo = _analyse(tmp_path, source).totals
    from staticflops.frontend.construction_memo import ConstructionMemo
    monkeypatch.setattr(ConstructionMemo, "enabled", False)
    assert _analyse(tmp_path, source).totals == with_memo
