"""Calls ``fn(module, *plain)`` made while a model is built (frontend/torch/call_memo.py): a call
that only read its module and set plain attributes on it is answered for a later module in the
same state by making the same writes; a call whose path depends on something that changed, or
that changes anything else, is interpreted every time.

Every model below builds four Linear(4, 4) (4*4 weights + 4 biases = 20 parameters each, 80)
and calls the function on each in turn: the first call with a key is interpreted, the second
recorded, the third and fourth answered from the memo (``call_hits`` 2) when nothing changed.
Its effects decide the width N of a head Linear(4, N): 4N + N = 5N parameters, 80 + 5N in all.
Each negative case also runs with its check switched off (``ConstructionMemo.force``: record
without refusing, reuse with no check; or a key without the module's state), to show that its
assertion would catch a wrong reuse."""

from memo_helpers import analyse as _analyse
from memo_helpers import force_reuse as _forced

from staticflops.frontend.torch import apply_memo, call_memo


def _model(prelude: str, call: str, between: str = "pass", head: str = "sum(m.k for m in mods)",
           members: str = "") -> str:
    """Four Linear(4, 4) given to ``call`` in turn (``between`` runs before each, with ``i``
    its index), then a head Linear(4, ``head``)."""
    return f"""
import torch.nn as nn

{prelude}

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.std = 1
        self.count = 0
        mods = [nn.Linear(4, 4) for _ in range(4)]
        self.a = mods[0]
        self.b = mods[1]
        self.c = mods[2]
        self.d = mods[3]
        for i, m in enumerate(mods):
            {between}
            {call}
        self.head = nn.Linear(4, {head})
{members}
    def forward(self, x):
        return self.head(self.d(self.c(self.b(self.a(x)))))
"""


def _params(n: int) -> int:
    return 80 + 5 * n


# transformers' pattern: a method of the model, a flag set on each module it initialised.
INIT_METHOD = _model("", "self._init(m, False)", members="""
    def _init(self, module, custom):
        if getattr(module, "k", False):
            return
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=self.std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        module.k = 1
""")


def test_a_repeated_init_call_is_answered_with_its_writes(tmp_path, memo):
    # every module marked: N = 4 (the two answered calls made their write: else N = 2)
    assert _analyse(tmp_path, INIT_METHOD).totals.params == _params(4)
    assert memo().call_hits == 2


def test_without_the_memo_the_answer_is_the_same(tmp_path, memo, monkeypatch):
    from staticflops.frontend.construction_memo import ConstructionMemo
    monkeypatch.setattr(ConstructionMemo, "enabled", False)
    assert _analyse(tmp_path, INIT_METHOD).totals.params == _params(4)
    assert memo().call_hits == 0


# A plain function, the value it writes read from a global that changes before the third
# call: 1 + 1 + 3 + 3 = 8.
GLOBAL_CHANGED = _model("""
SCALE = 1

def set_scale(value):
    global SCALE
    SCALE = value

def mark(m):
    m.k = SCALE
""", "mark(m)", between="if i == 2: set_scale(3)")


def test_a_global_read_is_checked_again(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, GLOBAL_CHANGED).totals.params == _params(8)
    assert memo().call_hits == 1  # the fourth call, after the third was recorded again
    _forced(monkeypatch)
    assert _analyse(tmp_path, GLOBAL_CHANGED).totals.params == _params(4)  # forced: 1 + 1 + 1 + 1


# The module's own plain attribute decides the value written: the first two Linears are
# tagged 1, the last two 5 (the key has its type; the value read is checked before a reuse);
# 1 + 1 + 5 + 5 = 12.
MODULE_STATE = _model("""
def mark(m):
    m.k = m.tag
""", "mark(m)", between="m.tag = 1 if i < 2 else 5")


def test_a_plain_attribute_of_the_module_read_is_checked(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, MODULE_STATE).totals.params == _params(12)
    assert memo().call_hits == 1  # the fourth call: the third did not match the entry, a second was recorded
    _forced(monkeypatch)
    assert _analyse(tmp_path, MODULE_STATE).totals.params == _params(1 + 1 + 1 + 1)


# An attribute the call does not read differs between the modules (transformers' layer_idx):
# the calls are answered all the same.  N = 4 marks.
UNREAD_ATTRIBUTE = _model("""
def mark(m):
    m.k = 1
""", "mark(m)", between="m.layer_idx = i")


def test_an_attribute_the_call_does_not_read_does_not_split_the_key(tmp_path, memo):
    assert _analyse(tmp_path, UNREAD_ATTRIBUTE).totals.params == _params(4)
    assert memo().call_hits == 2


# A module whose own attribute is a dict of lists (not plain data): the key has only its
# kind, so reading it refuses and every call runs: 2 + 2 + 7 + 7 = 18.
MODULE_DICT = _model("""
def mark(m):
    m.k = m.sizes["k"][0]
""", "mark(m)", between="m.sizes = {'k': [2] if i < 2 else [7]}")


def test_a_container_of_the_module_is_not_read_from_the_memo(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, MODULE_DICT).totals.params == _params(18)
    assert memo().call_hits == 0
    _forced(monkeypatch)
    assert _analyse(tmp_path, MODULE_DICT).totals.params == _params(8)


# A mark the code set on the module's weight (transformers' `_is_hf_initialized` on a
# tensor) decides the value written; the mark is False on the first two weights, True on the
# last two: 1 + 1 + 2 + 2 = 6.
TENSOR_MARK = _model("""
def mark(m):
    m.k = 2 if getattr(m.weight, "seen", False) else 1
""", "mark(m)", between="m.weight.seen = i >= 2")


def test_the_marks_on_the_modules_tensors_are_in_the_key(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, TENSOR_MARK).totals.params == _params(6)
    monkeypatch.setattr(apply_memo, "_plain_dict", lambda value: ("other", dict))  # a key without them
    assert _analyse(tmp_path, TENSOR_MARK).totals.params == _params(4)


# The call appends to a list from outside: N counts the calls (4).
OUTSIDE_LIST = _model("""
LOG = []

def mark(m):
    LOG.append(1)
    m.k = 1
""", "mark(m)", head="len(LOG)")


def test_a_call_that_changes_an_outside_list_runs_every_time(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, OUTSIDE_LIST).totals.params == _params(4)
    assert memo().call_hits == 0
    _forced(monkeypatch)
    assert _analyse(tmp_path, OUTSIDE_LIST).totals.params == _params(2)  # forced: the last two skipped


# A global counter through a `global` statement: N = 4.
GLOBAL_COUNTER = _model("""
N = 0

def mark(m):
    global N
    N += 1
""", "mark(m)", head="N")


def test_a_global_counter_counts_every_call(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, GLOBAL_COUNTER).totals.params == _params(4)
    _forced(monkeypatch)
    assert _analyse(tmp_path, GLOBAL_COUNTER).totals.params == _params(2)


# The value written is read from an outside dict whose item changes before the third call:
# 1 + 1 + 5 + 5 = 12.
OUTSIDE_DICT = _model("""
SIZES = {"k": 1}

def mark(m):
    m.k = SIZES["k"]
""", "mark(m)", between="if i == 2: SIZES['k'] = 5")


def test_an_outside_dict_read_is_watched(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, OUTSIDE_DICT).totals.params == _params(12)
    assert memo().call_hits == 1
    _forced(monkeypatch)
    assert _analyse(tmp_path, OUTSIDE_DICT).totals.params == _params(4)


# A class attribute of the module's class read by the call, replaced before the third call:
# 1 + 1 + 3 + 3 = 8.
CLASS_ATTRIBUTE = _model("""
class Tagged(nn.Linear):
    TAG = 1

def mark(m):
    m.k = m.TAG
""", "mark(m)", between="if i == 2: Tagged.TAG = 3").replace("nn.Linear(4, 4) for", "Tagged(4, 4) for")


def test_a_replaced_class_attribute_is_seen(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, CLASS_ATTRIBUTE).totals.params == _params(8)
    assert memo().call_hits == 1
    _forced(monkeypatch)
    assert _analyse(tmp_path, CLASS_ATTRIBUTE).totals.params == _params(4)


# The receiver's attribute read by the method changes before the third call: 1 + 1 + 2 + 2 = 6.
RECEIVER_READ = _model("", "self._mark(m)", between="if i == 2: self.std = 2", members="""
    def _mark(self, module):
        module.k = self.std
""")


def test_a_receiver_attribute_read_is_checked_again(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, RECEIVER_READ).totals.params == _params(6)
    assert memo().call_hits == 1
    _forced(monkeypatch)
    assert _analyse(tmp_path, RECEIVER_READ).totals.params == _params(4)


# Whether the receiver has an attribute (hasattr, no hook) changes before the third call:
# 1 + 1 + 2 + 2 = 6.
RECEIVER_PROBE = _model("", "self._mark(m)", between="if i == 2: self.wide = True", members="""
    def _mark(self, module):
        module.k = 2 if hasattr(self, "wide") else 1
""")


def test_whether_the_receiver_has_an_attribute_is_checked_again(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, RECEIVER_PROBE).totals.params == _params(6)
    _forced(monkeypatch)
    assert _analyse(tmp_path, RECEIVER_PROBE).totals.params == _params(4)


# The method counts its calls on the receiver: N = 4.
RECEIVER_WRITE = _model("", "self._mark(m)", head="self.count", members="""
    def _mark(self, module):
        self.count += 1
""")


def test_a_write_to_the_receiver_runs_every_time(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, RECEIVER_WRITE).totals.params == _params(4)
    assert memo().call_hits == 0
    _forced(monkeypatch)
    assert _analyse(tmp_path, RECEIVER_WRITE).totals.params == _params(2)


# The call marks the module's weight (a tensor: not the write it may make): N counts marked
# weights (4).
TENSOR_WRITE = _model("""
def mark(m):
    m.weight.seen = True
""", "mark(m)", head="sum(1 for m in mods if getattr(m.weight, 'seen', False))")


def test_a_write_to_a_tensor_of_the_module_runs_every_time(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, TENSOR_WRITE).totals.params == _params(4)
    _forced(monkeypatch)
    assert _analyse(tmp_path, TENSOR_WRITE).totals.params == _params(2)


# Whether a child of the module is a ReLU decides the write: Sequential(Linear, ReLU) twice,
# then Sequential(Linear, Tanh) twice; the children's names are the same ("0", "1"), their
# classes are in the key.  The head is Linear(4, 1 + the sum of the marks).
CHILD_CLASS = """
import torch.nn as nn

def mark(m):
    k = 0
    for child in m:
        if isinstance(child, nn.ReLU):
            k += 1
    m.k = k

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        mods = [nn.Sequential(nn.Linear(4, 4), nn.ReLU() if i < 2 else nn.Tanh()) for i in range(4)]
        self.blocks = nn.ModuleList(mods)
        for m in mods:
            mark(m)
        self.head = nn.Linear(4, 1 + sum(m.k for m in mods))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)
"""


def test_the_classes_of_the_modules_children_are_in_the_key(tmp_path, memo, monkeypatch):
    # head Linear(4, 1 + 1 + 1 + 0 + 0) = 4*3 + 3 = 15, after 4 * 20
    assert _analyse(tmp_path, CHILD_CLASS).totals.params == 80 + 15

    def without_child_classes(module, attrs, index, receivers, deep, state=call_memo._state):
        return state(module, attrs, index, receivers, deep)[:-1]
    monkeypatch.setattr(call_memo, "_state", without_child_classes)
    # the Tanh blocks answered as the ReLU ones: 1 + 4 = 5; 4*5 + 5 = 25
    assert _analyse(tmp_path, CHILD_CLASS).totals.params == 80 + 25


# transformers' weight initialisation as a recursion over children, twice (an inner model's
# post_init, then the outer one's, where every module is already marked).  The walks of the
# Linears (each calls `fn` on its Linear): in the first pass the first is interpreted, the
# second recorded, the other two answered; in the second pass the marked Linears are a new
# key, and the walk's recordings were kept so far and a Linear has no children: the first is
# recorded at once, the other three answered.  The walks of the root (unmarked, then marked:
# two keys met once; it has children) are interpreted.  5 calls answered.
RECURSION = """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.std = 0.02
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.c = nn.Linear(4, 4)
        self.d = nn.Linear(4, 4)
        self.walk(self, self._initialize, False)
        self.walk(self, self._initialize, False)

    def walk(self, module, fn, custom):
        for child in module.children():
            self.walk(child, fn, custom)
        fn(module, custom)

    def _initialize(self, module, custom):
        if getattr(module, "_done", False):
            return
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=self.std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        module._done = True

    def forward(self, x):
        return self.d(self.c(self.b(self.a(x))))
"""


def test_a_recursive_initialisation_is_answered_for_repeated_modules(tmp_path, memo):
    assert _analyse(tmp_path, RECURSION).totals.params == 80
    assert memo().call_hits == 5


# A walk over the tree that calls a function on every module (transformers' `smart_apply`):
# a call for a module with children reads them, so the function's calls are keyed by the
# whole subtree.  Six blocks, each a Linear(4, 4) whose `wide` flag (plain: read and checked)
# is True in the fifth block only, and an index the walk does not read.  The mark is 1, or 2
# when wide: 1 + 1 + 1 + 1 + 2 + 1 = 7; head Linear(4, 7).
WALK = """
import torch.nn as nn

def walk(module, fn):
    for child in module.children():
        walk(child, fn)
    fn(module)
    return module

def mark(m):
    if isinstance(m, nn.Linear):
        m.k = 2 if m.wide else 1

class Block(nn.Module):
    def __init__(self, index, wide):
        super().__init__()
        self.index = index
        self.fc = nn.Linear(4, 4)
        self.fc.wide = wide

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(i, i == 4) for i in range(6)])
        walk(self.blocks, mark)
        self.head = nn.Linear(4, sum(block.fc.k for block in self.blocks))

    def forward(self, x):
        for block in self.blocks:
            x = block.fc(x)
        return self.head(x)
"""


def test_a_walk_over_repeated_blocks_is_answered_with_the_writes_below(tmp_path, memo, monkeypatch):
    # 6 * 20 + (4 * 7 + 7).  The walks of the blocks: the first interpreted; the second
    # recorded, it reads the children: the function's calls are keyed by subtree from then
    # on; the third interpreted, the fourth recorded, the fifth (wide) does not match the
    # entry and is recorded as a second one, the sixth is answered.
    assert _analyse(tmp_path, WALK).totals.params == 120 + 35
    assert memo().call_hits >= 1
    monkeypatch.setattr(call_memo, "_same", lambda now, then: True)  # the plain values read not checked
    # the fifth block answered as a narrow one: 6 marks of 1
    assert _analyse(tmp_path, WALK).totals.params == 120 + 30


# The same walk over six blocks holding an empty module each, a Tag, but an Other in the fifth
# block: two classes with the same state; the subtree's classes are in the key.  Tags are
# marked: 5 marks, head Linear(4, 5): 4*5 + 5 = 25 parameters, the only ones.
WALK_CLASSES = """
import torch.nn as nn

def walk(module, fn):
    for child in module.children():
        walk(child, fn)
    fn(module)
    return module

def mark(m):
    if isinstance(m, Tag):
        m.k = 1

class Tag(nn.Module):
    pass

class Other(nn.Module):
    pass

class Block(nn.Module):
    def __init__(self, index):
        super().__init__()
        self.inner = Other() if index == 4 else Tag()

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(i) for i in range(6)])
        walk(self.blocks, mark)
        self.head = nn.Linear(4, sum(getattr(block.inner, "k", 0) for block in self.blocks))

    def forward(self, x):
        return self.head(x)
"""


def test_the_classes_of_the_subtree_are_in_the_key(tmp_path, memo, monkeypatch):
    assert _analyse(tmp_path, WALK_CLASSES).totals.params == 4 * 5 + 5

    def without_classes(module, attrs, index, receivers, deep, state=call_memo._state):
        return state(module, attrs, index, receivers, deep)[1:]
    monkeypatch.setattr(call_memo, "_state", without_classes)
    # the Other answered as a Tag: marked too, 6 marks
    assert _analyse(tmp_path, WALK_CLASSES).totals.params == 4 * 6 + 6
