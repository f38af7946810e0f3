"""The construction memo (frontend/construction_memo.py): a repeated block is built once and
copied, and a block whose ``__init__`` reads or writes state outside itself is not reused.

Each negative case also runs with the memo forced on (``ConstructionMemo.force``: reuse with
no check), to show that its assertion would catch a wrong reuse."""

import pytest

import staticflops
from staticflops.frontend.construction_memo import ConstructionMemo

from memo_helpers import analyse as _analyse
from memo_helpers import force_reuse as _forced


# Linear(4, 4k): 4*4k weights + 4k biases = 20k parameters for the k-th block.
CLASS_COUNTER = """
import torch.nn as nn

class Block(nn.Module):
    count = 0

    def __init__(self, d):
        super().__init__()
        Block.count += 1
        self.fc = nn.Linear(d, d * Block.count)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(4) for _ in range(3)])

    def forward(self, x):
        return x
"""


def test_a_class_attribute_counter_gives_each_block_its_own_width(tmp_path, memo):
    report = _analyse(tmp_path, CLASS_COUNTER)
    assert report.totals.params == 20 * 1 + 20 * 2 + 20 * 3  # 120
    assert memo().hits == 0


def test_forced_reuse_of_the_counter_block_would_be_caught(tmp_path, memo, monkeypatch):
    _forced(monkeypatch)
    report = _analyse(tmp_path, CLASS_COUNTER)
    # the first block is built, the second recorded, the third a copy of the second: 20 + 40 + 40
    assert report.totals.params == 100 != 120
    assert memo().hits == 1


GLOBAL_COUNTER = """
import torch.nn as nn

COUNT = 0

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        global COUNT
        COUNT += 1
        self.fc = nn.Linear(d, d * COUNT)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(4) for _ in range(3)])

    def forward(self, x):
        return x
"""


def test_a_global_counter_gives_each_block_its_own_width(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, GLOBAL_COUNTER).totals.params == 120  # as above: 20 + 40 + 60
    _forced(monkeypatch)
    assert _analyse(tmp_path, GLOBAL_COUNTER).totals.params == 100  # a wrong reuse shows


# A module-level list the blocks append to: Linear(4, 4n) after n appends, 20n parameters.
SHARED_LIST = """
import torch.nn as nn

LOG = []

class Block(nn.Module):
    def __init__(self, d, log=None):
        super().__init__()
        log = LOG if log is None else log
        log.append(d)
        self.fc = nn.Linear(d, d * len(log))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        shared = []
        self.given = nn.ModuleList([Block(4, shared) for _ in range(3)])
        self.found = nn.ModuleList([Block(4) for _ in range(3)])

    def forward(self, x):
        return x
"""


def test_a_shared_mutable_list_is_seen_by_every_block(tmp_path, memo, monkeypatch):
    # given the list (not a plain argument: never a key) and finding it as a global: 20+40+60 each
    assert _analyse(tmp_path, SHARED_LIST).totals.params == 2 * 120
    assert memo().hits == 0
    _forced(monkeypatch)
    # forced: the blocks given the list are still built (no key); the third global one is a copy
    assert _analyse(tmp_path, SHARED_LIST).totals.params == 120 + 100


# Linear(2, w): 2w + w = 3w parameters.
MODULE_WIDTH = """
import torch.nn as nn

WIDTH = 4

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, WIDTH)

def widths(values):
    global WIDTH
    blocks = []
    for value in values:
        WIDTH = value
        blocks.append(Block(2))
    return blocks

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(widths([4, 4, 8, 8, 8]))

    def forward(self, x):
        return x
"""


def test_a_module_level_width_changed_between_constructions_is_seen(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, MODULE_WIDTH).totals.params == 3 * (4 + 4 + 8 + 8 + 8)  # 96
    # the 1st is built, the 2nd recorded (WIDTH 4), the 3rd misses (WIDTH is 8 now) and is
    # recorded again, the 4th and 5th are copies of it
    assert memo().hits == 2
    _forced(monkeypatch)
    assert _analyse(tmp_path, MODULE_WIDTH).totals.params == 3 * (4 + 4 + 4 + 4 + 4)  # 60: a wrong reuse


MUTATED_COPY = """
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(4) for _ in range(4)])
        self.blocks[1].fc = nn.Linear(4, 8)
        self.blocks[3].fc.weight = self.blocks[2].fc.weight

    def forward(self, x):
        return x
"""


def test_copies_are_independent_objects(tmp_path, memo):
    report = _analyse(tmp_path, MUTATED_COPY)
    assert memo().hits == 2  # blocks 3 and 4
    # Linear(4, 4): 20 each, Linear(4, 8): 40 (replacing block 2's layer changed no other
    # block); block 4's 16 weights are block 3's, counted once (two copies of one recorded
    # block hold distinct tensors: a tensor shared by two blocks would be counted once too)
    assert report.totals.params == 20 + 40 + 20 + 20 - 16


# The GPT sample, default sizes (vocab V=1000, block_size S=64, n_embd d=128, n_head 4) at
# L=96 layers, input 1x64 (T=64).  Per block: ln_1, ln_2 2d each, c_attn d*3d+3d, attn c_proj
# d*d+d, c_fc d*4d+4d, mlp c_proj 4d*d+d: 12d^2+13d.  Besides: wte V*d, wpe S*d, ln_f 2d,
# lm_head d*V (no bias).  MACs per block: the four Linears 12*d^2*T, attention's two matmuls
# 2*T^2*d; the head T*d*V; FLOPs = 2 MACs.  At L=2 this gives the recorded 660,992 parameters
# and 70,909,952 FLOPs (tests/fixtures/torch_ground_truth.json, tools/record_torch.py).
def test_a_96_layer_gpt_reuses_its_blocks_and_counts_as_the_formula_says(memo):
    V, S, d, T, L = 1000, 64, 128, 64, 96
    report = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], kwargs={"n_layer": L})
    assert report.totals.params == 2 * V * d + S * d + L * (12 * d * d + 13 * d) + 2 * d  # 19,298,560
    assert report.totals.forward_flops == 2 * (L * (12 * d * d * T + 2 * T * T * d) + T * d * V)  # 2,633,629,696
    # Block 1 is built, block 2 recorded, blocks 3..96 are copies
    assert memo().hits == L - 2
    assert len([layer for layer in report.layers if layer.type == "Block"]) == L


def test_the_memo_changes_no_report(tmp_path, monkeypatch):
    """Every row of the 12-layer GPT's report is the same with the memo off."""
    on = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], kwargs={"n_layer": 12}, training=True)
    monkeypatch.setattr(ConstructionMemo, "enabled", False)
    off = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], kwargs={"n_layer": 12}, training=True)
    assert on.to_json() == off.to_json()


# A module-level function that appends to a module-level list, called by __init__: the list
# is read as a global by the helper (mutable: refused).  Linear(4, 4n) after n calls: 20n.
HELPER_WRITES = """
import torch.nn as nn

MADE = []

def register(block):
    MADE.append(block)
    return len(MADE)

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d * register(self))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(4) for _ in range(3)])

    def forward(self, x):
        return x
"""


def test_a_helper_that_writes_a_global_list_is_not_reused(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, HELPER_WRITES).totals.params == 120  # 20 + 40 + 60
    assert memo().hits == 0
    _forced(monkeypatch)
    assert _analyse(tmp_path, HELPER_WRITES).totals.params == 100


# A config object (an instance, mutable) read as a global, changed between constructions:
# Linear(2, w), 3w parameters.
CONFIG_OBJECT = """
import torch.nn as nn

class Config:
    def __init__(self):
        self.width = 4

CONFIG = Config()

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, CONFIG.width)

def blocks():
    made = []
    for width in (4, 4, 8):
        CONFIG.width = width
        made.append(Block(2))
    return made

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(blocks())

    def forward(self, x):
        return x
"""


def test_a_mutable_config_object_is_read_afresh(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, CONFIG_OBJECT).totals.params == 3 * (4 + 4 + 8)  # 48
    assert memo().hits == 0
    _forced(monkeypatch)
    assert _analyse(tmp_path, CONFIG_OBJECT).totals.params == 3 * (4 + 4 + 4)  # 36: a wrong reuse


# A closure over the constructor's frame kept on the module: not copied (it would be shared).
CLOSURE = """
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.scale = lambda x: x * d

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(4) for _ in range(3)])

    def forward(self, x):
        for block in self.blocks:
            x = block.scale(block.fc(x))
        return x
"""


def test_a_closure_kept_on_the_module_is_not_shared_between_copies(tmp_path, memo):
    report = _analyse(tmp_path, CLOSURE)
    assert report.totals.params == 3 * 20
    assert report.totals.forward_flops == 3 * 2 * 4 * 4  # three Linear(4, 4) on 1x4: 2*16 each
    assert memo().hits == 0


# A method the constructor calls (through super()) replaced on the base class between two
# constructions: Linear(4, 4) = 20 parameters, Linear(4, 8) = 40.
BASE_REPLACED = """
import torch.nn as nn

class Base(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)

def wide(self, d):
    nn.Module.__init__(self)
    self.fc = nn.Linear(d, 2 * d)

class Block(Base):
    def __init__(self, d):
        super().__init__(d)

def block():
    return Block(4)

def blocks():
    made = [block() for _ in range(3)]
    Base.__init__ = wide
    return made + [block() for _ in range(2)]

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(blocks())

    def forward(self, x):
        return x
"""


def test_a_method_replaced_on_a_base_class_is_seen(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, BASE_REPLACED).totals.params == 3 * 20 + 2 * 40
    # the third Block is a copy; the class write makes the entry stale: the fourth is
    # interpreted (and recorded), the fifth a copy of it
    assert memo().hits == 2
    _forced(monkeypatch)
    assert _analyse(tmp_path, BASE_REPLACED).totals.params == 5 * 20  # a wrong reuse
