"""An ``if`` whose test cannot be decided (frontend/inert_branch.py): when its branch changes
nothing outside itself (transformers' "input_ids may be padded" warning), the test is not an
assumption and the report stays complete; when the branch acts (an attribute, a list, an op, a
name read later), the test is reported as assumed true, as before.

Each model is Linear(4, 8) on a 1x4 input: 4*8 weights + 8 biases = 40 parameters and
2*4*8 = 64 FLOPs (FlopCounterMode's convention: the bias add is not counted).  ``0 in x``
tests the input's values, which a static analysis does not have.
"""

from memo_helpers import analyse as _analyse


def _net(branch: str, after: str = "") -> str:
    return f"""
import torch.nn as nn

LOG = []

def note(message):
    LOG.append(message)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)
        self.flag = False

    def forward(self, x):
        scale = 1
        if 0 in x:
{branch}
        y = self.fc(x)
{after}
        return y
"""


def _assumed(report) -> bool:
    return any("could not be decided" in what and "assumed true" in what for what in (u.what for u in report.unknown))


WARNS = _net("""            message = "the input may hold zeros"
            print(message)""")


def test_a_branch_that_only_warns_is_not_an_assumption(tmp_path):
    report = _analyse(tmp_path, WARNS)
    assert (report.totals.params, report.totals.forward_flops) == (40, 64)
    assert report.totals.complete and report.unknown == []
    assert any(d.severity == "info" and "changes nothing outside itself" in d.message for d in report.diagnostics)


# A name the branch binds, read afterwards: the value depends on the test.
READ_LATER = _net("""            scale = 2""", """        y = y * scale""")


def test_a_name_read_after_the_branch_makes_it_an_assumption(tmp_path):
    report = _analyse(tmp_path, READ_LATER)
    assert not report.totals.complete and _assumed(report)
    assert not any("changes nothing outside itself" in d.message for d in report.diagnostics)


# A name bound in the branch and never read again: still inert.
BOUND_UNREAD = _net("""            scale = 2""")


def test_a_name_bound_but_never_read_is_not_an_assumption(tmp_path):
    report = _analyse(tmp_path, BOUND_UNREAD)
    assert report.totals.complete and report.unknown == []


def test_an_attribute_set_on_an_outside_object_is_an_effect(tmp_path):
    report = _analyse(tmp_path, _net("""            self.flag = True"""))
    assert not report.totals.complete and _assumed(report)


def test_a_list_changed_through_a_function_is_an_effect(tmp_path):
    # `note` appends to the module's LOG: a container from outside that changed
    report = _analyse(tmp_path, _net("""            note("zeros")"""))
    assert not report.totals.complete and _assumed(report)


def test_a_traced_op_is_an_effect(tmp_path):
    # x + 1 on the input is an op the report would count (it is dropped: y is from self.fc(x))
    report = _analyse(tmp_path, _net("""            z = x + 1"""))
    assert not report.totals.complete and _assumed(report)


def test_a_branch_that_freezes_a_parameter_is_an_effect(tmp_path):
    # requires_grad_ on a tensor from outside changes the trainable count: 0 or 32 weights frozen
    report = _analyse(tmp_path, _net("""            self.fc.weight.requires_grad_(False)"""))
    assert not report.totals.complete and _assumed(report)


def test_an_else_branch_keeps_the_assumption(tmp_path):
    source = WARNS.replace("""            print(message)""", """            print(message)
        else:
            print("no zeros")""")
    report = _analyse(tmp_path, source)
    assert not report.totals.complete and _assumed(report)


GENERATOR = """
import torch.nn as nn

def widths(x):
    yield 4
    if 0 in x:
        yield 8

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)

    def forward(self, x):
        for width in widths(x):
            x = x
        return self.fc(x)
"""


def test_a_yield_in_the_branch_is_an_effect(tmp_path):
    # what the generator gives (4, or 4 and 8) depends on the test
    report = _analyse(tmp_path, GENERATOR)
    assert not report.totals.complete and _assumed(report)
