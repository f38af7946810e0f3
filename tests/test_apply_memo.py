"""``Module.apply(fn)`` (frontend/torch/apply_memo.py): a call ``fn(m)`` that changed nothing is
skipped for a later module in the same state, and a call that changes something, or whose
path depends on something that changed, is interpreted for every module.

Each negative case but the key's own also runs with the memo forced on (``ConstructionMemo.force``: record
without refusing, reuse with no check), to show that its assertion would catch a wrong reuse.
A Linear(4, 4) has 4*4 weights + 4 biases = 20 parameters; ``requires_grad_(False)`` makes
them untrainable."""

import pytest

import staticflops

from memo_helpers import analyse as _analyse
from memo_helpers import force_reuse as _forced


# Three Linear(4, 4): 60 parameters.  Each `fn(m)` gives the Linear it is given another
# Linear(4, 4) (apply lists the modules before it calls fn: the new ones are not visited):
# 60 + 3 * 20 = 120 parameters.
GROW_ALL = """
import torch.nn as nn

def grow(m):
    if isinstance(m, nn.Linear):
        m.extra = nn.Linear(4, 4)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.c = nn.Linear(4, 4)
        self.apply(grow)

    def forward(self, x):
        return self.c(self.b(self.a(x)))
"""


def test_a_call_that_writes_its_module_runs_for_every_module(tmp_path, memo):
    assert _analyse(tmp_path, GROW_ALL).totals.params == 120
    assert memo().apply_hits == 0


def test_forced_reuse_of_the_writing_call_would_be_caught(tmp_path, memo, monkeypatch):
    _forced(monkeypatch)
    # forced: only the first Linear's call runs; the other two (same key) are skipped
    assert _analyse(tmp_path, GROW_ALL).totals.params == 60 + 20


# A builtin method of the module (requires_grad_) changes it without any attribute write:
# the three Linears frozen, 0 of 60 trainable.
FREEZE_BY_METHOD = GROW_ALL.replace("m.extra = nn.Linear(4, 4)", "m.requires_grad_(False)").replace("grow", "freeze")


def test_a_builtin_method_of_the_given_module_is_not_skipped(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, FREEZE_BY_METHOD).totals.trainable_params == 0
    _forced(monkeypatch)
    assert _analyse(tmp_path, FREEZE_BY_METHOD).totals.trainable_params == 40


# A global counter: N counts the calls (3 Linears + Net = 4), and the head is Linear(4, N).
# Head: 4*4 + 4 = 20 parameters; 3*20 + 20 = 80.
GLOBAL_COUNTER = """
import torch.nn as nn

N = 0

def count(m):
    global N
    N += 1

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.c = nn.Linear(4, 4)
        self.apply(count)
        self.head = nn.Linear(4, N)

    def forward(self, x):
        return self.head(self.c(self.b(self.a(x))))
"""


def test_a_global_counter_counts_every_call(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, GLOBAL_COUNTER).totals.params == 80
    _forced(monkeypatch)
    # forced: the 2nd and 3rd Linear are skipped: N = 2 (a Linear, Net); head 4*2 + 2 = 10
    assert _analyse(tmp_path, GLOBAL_COUNTER).totals.params == 3 * 20 + 10


# The first apply changes nothing (FREEZE is False) and is memoised; the model then sets the
# global, and the second apply of the same function must freeze both.  Two Linear(4, 4):
# 40 parameters, none trainable.
GLOBAL_CHANGED = """
import torch.nn as nn

FREEZE = False

def maybe_freeze(m):
    if FREEZE and isinstance(m, nn.Linear):
        m.requires_grad_(False)

def freeze_from_now_on():
    global FREEZE
    FREEZE = True

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.apply(maybe_freeze)
        freeze_from_now_on()
        self.apply(maybe_freeze)

    def forward(self, x):
        return self.b(self.a(x))
"""


def test_a_global_read_is_checked_again_before_a_skip(tmp_path, memo, monkeypatch):
    report = _analyse(tmp_path, GLOBAL_CHANGED)
    assert report.totals.trainable_params == 0
    assert memo().apply_hits == 1  # the first apply: b's call skipped after a's
    _forced(monkeypatch)
    assert _analyse(tmp_path, GLOBAL_CHANGED).totals.trainable_params == 40


# The module's own state is in the key: the Linear without bias is a different key from the
# ones with bias, so its call is not skipped after theirs.  Freezing its 4*4 = 16 weights
# leaves 20 + 20 trainable (two Linear(4, 4)) of 56 parameters.
STATE_IN_KEY = """
import torch.nn as nn

def freeze_unbiased(m):
    if isinstance(m, nn.Linear) and m.bias is None:
        m.requires_grad_(False)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.c = nn.Linear(4, 4, bias=False)
        self.apply(freeze_unbiased)

    def forward(self, x):
        return self.c(self.b(self.a(x)))
"""


def test_the_module_state_is_part_of_the_key(tmp_path, memo):
    report = _analyse(tmp_path, STATE_IN_KEY)
    assert report.totals.params == 20 + 20 + 16
    assert report.totals.trainable_params == 40


# The bound method's receiver is outside the call: reading or writing its attributes
# refuses, so a call whose path depends on them is never skipped.  Two Linear(4, 4), both
# frozen: 0 of 40 trainable.
RECEIVER_STATE = """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.seen = 0
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            self.seen += 1
            if self.seen >= 1:
                m.requires_grad_(False)

    def forward(self, x):
        return self.b(self.a(x))
"""


def test_the_receivers_state_is_never_assumed(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, RECEIVER_STATE).totals.trainable_params == 0
    assert memo().apply_hits == 0
    _forced(monkeypatch)
    # forced: b's call is skipped after a's: b's 20 parameters stay trainable
    assert _analyse(tmp_path, RECEIVER_STATE).totals.trainable_params == 20


# The GPT sample's `self.apply(self._init_weights)` visits 6 + 10L modules (GPT, wte, wpe,
# h, ln_f, lm_head; per block: Block, ln_1, attn, c_attn, c_proj, ln_2, mlp, c_fc, gelu,
# c_proj).  Distinct keys: GPT, wte, wpe, h, lm_head (no bias), one LayerNorm(128) for
# ln_1/ln_2/ln_f, and per block kind Block, CausalSelfAttention, MLP, GELU, c_attn (128->384),
# attn.c_proj (128->128), c_fc (128->512), mlp.c_proj (512->128): 14.  Every other call is
# skipped: 966 - 14 = 952 at L = 96.  The counts are the hand formula of test_construction_memo.
def test_the_gpt_init_weights_calls_are_skipped_for_repeated_blocks(memo):
    V, S, d, T, L = 1000, 64, 128, 64, 96
    report = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], kwargs={"n_layer": L})
    assert report.totals.params == 2 * V * d + S * d + L * (12 * d * d + 13 * d) + 2 * d
    assert report.totals.trainable_params == report.totals.params
    assert memo().apply_hits == 6 + 10 * L - 14
