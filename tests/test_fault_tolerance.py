"""Module-level code the model does not need never stops the analysis; undecidable conditions,
`try`/`except` and short-circuit operators follow Python; `.eval()`/`.train()` as in PyTorch.

Each expected value is what CPython gives for the code shown (the equivalent Python is in the
comments), or a hand count.  `somelib` is a package that cannot be found: its values are
unknown, as any third-party value the analyser cannot follow.
"""

import textwrap

import pytest

import staticflops
from staticflops import AnalysisError

# Appended to each case: a model whose only layer has `W` outputs, so params = 2 * W
# (Linear(1, W): W weights + W biases) shows the value the module level computed for W.
PROBE = '''
import torch.nn as _nn


class Probe(_nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = _nn.Linear(1, W)

    def forward(self, x):
        return self.fc(x)
'''


def analyse(tmp_path, source, model="Probe", inputs=("1x1",)):
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(source) + PROBE)
    return staticflops.analyze(path, model=model, inputs=list(inputs))


def width(tmp_path, source) -> int:
    report = analyse(tmp_path, source)
    assert report.unknown == [], report.unknown
    return report.totals.params // 2


def codes(report, code):
    return [(d.location, d.severity, d.message) for d in report.diagnostics if d.code == code]


# ---- the shape of pytorch/examples' dcgan main.py ----------------------------------------

SCRIPT = '''
import argparse
import somelib

parser = argparse.ArgumentParser()
parser.add_argument("--dataset", required=True)
parser.add_argument("--width", type=int, default="32")
parser.add_argument("--dry-run", action="store_true")
parser.add_argument("--classes", default=10, type=int)
opt = parser.parse_args()

for handler in somelib.handlers:        # line 12: iterating an unknown
    handler.setLevel(0)

if somelib.VERSION < (2, 0):            # line 15: undecidable, the branch raises
    raise RuntimeError("too old")

try:
    import fastlib                      # not installed
    FAST = True
except ImportError:
    FAST = False

if not opt.dataset and somelib.strict:  # required: unknown in a run without arguments
    raise ValueError("dataset needed")

for epoch in range(somelib.epochs):     # line 27: the training loop
    somelib.step(epoch)

W = opt.width + (0 if FAST else opt.classes) + (100 if opt.dry_run else 0)
'''


def test_a_script_with_module_level_argparse_probes_and_loops(tmp_path):
    report = analyse(tmp_path, SCRIPT)
    # parse_args() in a run without arguments: width "32" converted by type=int -> 32,
    # dry_run (store_true) False, classes 10; `import fastlib` raises ModuleNotFoundError so
    # FAST = False.  W = 32 + 10 + 0 = 42: Linear(1, 42) holds 42 + 42 = 84 params.
    assert report.totals.params == 84 and report.unknown == []
    skipped = codes(report, "SF130")
    assert [location.rsplit(":", 2)[1] for location, _, _ in skipped] == ["12", "27"]
    assert all(severity == "info" for _, severity, _ in skipped)
    assumed = codes(report, "SF131")
    assert [location.rsplit(":", 2)[1] for location, _, _ in assumed] == ["15", "24"]
    assert all("assumed false, the other branch raises" in message for _, _, message in assumed)


def test_a_name_the_model_needs_names_the_first_cause(tmp_path):
    source = '''
    import somelib
    WIDTHS = [w for w in somelib.widths()]
    W = len(WIDTHS)
    '''
    report = analyse(tmp_path, source)
    # The Linear that needs W says why: line 3 col 22, where the comprehension met the unknown
    # (not the `len` of line 4, a symptom).
    [unknown] = [u for u in report.unknown if "`out_features`" in u.what]
    assert "/case.py:3:22: cannot iterate over an unknown value (import of `somelib`" in unknown.what


def test_an_unknown_the_model_uses_is_reported_with_its_first_cause(tmp_path):
    source = '''
    import somelib
    for name in somelib.names():
        W = 4
    '''
    report = analyse(tmp_path, source)
    # W is left unknown by the loop at line 3; the Linear that needs it says so.
    assert [u.what for u in report.unknown if "case.py:3:13: cannot iterate" in u.what]
    assert report.totals.complete is False


def test_iterating_a_needed_unknown_is_an_error_naming_the_first_cause(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent('''
        import torch.nn as nn
        import somelib
        for name in somelib.names():
            DEPTH = 2

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(DEPTH)])

            def forward(self, x):
                return x
    '''))
    with pytest.raises(AnalysisError) as error:
        staticflops.analyze(path, inputs=["1x4"])
    assert "net.py:4:13: cannot iterate over an unknown value" in str(error.value)


def test_statements_the_model_does_not_need_leave_no_unknowns(tmp_path):
    # Python would stop at line 3; the model below never uses `names` or `total`.
    assert width(tmp_path, '''
    import somelib
    names = [n.upper() for n in somelib.listdir(".")]
    total = sum(len(n) for n in somelib.listdir("."))
    W = 3
    ''') == 3


# ---- undecidable conditions -----------------------------------------------------------------

def test_the_branch_that_does_not_raise_is_taken(tmp_path):
    report = analyse(tmp_path, '''
    import somelib
    if somelib.flag:
        W = 3
    else:
        raise RuntimeError("unsupported")
    if not len(somelib.rates) == 4:     # torchvision maxvit.py:529
        raise ValueError("rates must have length 4")
    if somelib.a:
        raise TypeError("a")
    elif somelib.b:
        raise TypeError("b")
    else:
        W = W + 4
    ''')
    # The module imported, so no `raise` ran: W = 3, then the elif chain's else: 3 + 4 = 7.
    assert report.totals.params == 2 * 7 and report.unknown == []
    lines = [location.rsplit(":", 2)[1] for location, _, _ in codes(report, "SF131")]
    assert lines == ["3", "7", "9", "11"]


def test_neither_branch_raising_assumes_true_and_says_so(tmp_path):
    report = analyse(tmp_path, '''
    import somelib
    if somelib.flag:
        W = 3
    else:
        W = 5
    ''')
    assert report.totals.params == 2 * 3
    [(location, severity, message)] = codes(report, "SF131")
    assert location.endswith("case.py:3:4") and severity == "warning" and message.endswith("assumed true")
    # W depends on the guess: the totals say they are not sure, at the condition.
    assert report.totals.complete is False
    assert [u.location.rsplit(":", 2)[1:] for u in report.unknown] == [["3", "4"]]


def test_an_undecidable_condition_in_the_model_is_an_unknown(tmp_path):
    report = analyse(tmp_path, '''
    import somelib
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            if somelib.big:
                self.fc = nn.Linear(1, 8)
            else:
                self.fc = nn.Linear(1, 2)

        def forward(self, x):
            return self.fc(x)
    W = 1
    ''', model="Net")
    # The test is assumed true (Linear(1, 8): 16 params), and the totals say they are not sure.
    assert report.totals.params == 16 and report.totals.complete is False
    assert any("condition could not be decided" in u.what for u in report.unknown)


def test_short_circuit_with_unknowns(tmp_path):
    # For every value of `flag`: `flag and False` is falsy, `flag or True` truthy,
    # `False and flag` is False, `True or flag` is True.
    assert width(tmp_path, '''
    import somelib
    A = somelib.flag and False
    B = somelib.flag or True
    C = False and somelib.flag
    D = True or somelib.flag
    W = 1 + (0 if A else 1) + (2 if B else 0) + (0 if C else 4) + (8 if D else 0)
    ''') == 16


# ---- try / except / else / finally ----------------------------------------------------------

def test_try_except_follows_python(tmp_path):
    assert width(tmp_path, '''
    class MyError(ValueError):
        pass

    try:
        raise ValueError("abc")
    except ValueError as error:
        A = len(error.args[0])          # 3
    try:
        {}["missing"]
    except LookupError:                 # KeyError is a LookupError
        B = 10
    try:
        [1, 2][5]
    except (TypeError, IndexError):
        C = 100
    try:
        raise MyError("x")
    except ValueError:                  # a subclass of the class named
        D = 1000
    try:
        E = 1 // 0
    except ArithmeticError:             # ZeroDivisionError
        E = 10000
    W = A + B + C + D + E               # 11113
    ''') == 11113


def test_else_finally_and_reraise(tmp_path):
    assert width(tmp_path, '''
    order = []
    try:
        order.append(1)
    except Exception:
        order.append(2)
    else:
        order.append(3)
    finally:
        order.append(4)
    try:
        try:
            raise KeyError("k")
        except KeyError:
            order.append(5)
            raise                       # re-raised to the outer `try`
        finally:
            order.append(6)
    except LookupError:
        order.append(7)
    # CPython: order == [1, 3, 4, 5, 6, 7]
    W = sum(v * 10 ** i for i, v in enumerate(order))
    ''') == 1 + 30 + 400 + 5000 + 60000 + 700000


def test_missing_imports_raise_module_not_found_in_a_try(tmp_path):
    assert width(tmp_path, '''
    try:
        from apex.normalization import FusedLayerNorm
        A = 1
    except ImportError:                 # ModuleNotFoundError is an ImportError
        A = 2
    try:
        import math                      # the standard library is always there
        B = 10
    except ImportError:
        B = 20
    W = A + B                            # 12
    ''') == 12


def test_an_unknown_inside_try_is_not_an_exception(tmp_path):
    assert width(tmp_path, '''
    import somelib
    try:
        handle = somelib.open("config")
        A = 1
    except Exception:
        A = 2
    W = A
    ''') == 1


def test_an_uncaught_exception_in_the_model_is_still_an_error(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent('''
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                try:
                    raise ValueError("bad width")
                except KeyError:
                    pass

            def forward(self, x):
                return x
    '''))
    with pytest.raises(AnalysisError) as error:
        staticflops.analyze(path, inputs=["1x4"])
    assert str(error.value).endswith("net.py:8:13: the model raises an error here: bad width")


# ---- .eval() / .train() ---------------------------------------------------------------------

TRAINING = '''
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.training = True            # sticks until a later train()/eval()

    def forward(self, x):
        if self.training:
            x = self.fc(x)
        return self.fc(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.eval()                     # recursive: block.training is False
        a = 1 if self.block.training else 2
        same = self.train() is self     # train() returns self and sets True everywhere
        b = 3 if self.block.training else 4
        self.train(False)
        c = 5 if self.block.training else 6
        self.block.training = True
        self.head = nn.Linear(4, a * 100 + b * 10 + c + (1000 if same else 0))

    def forward(self, x):
        return self.head(self.block(x))
'''


def test_eval_and_train_set_the_flag_recursively(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(TRAINING)
    report = staticflops.analyze(path, model="Net", inputs=["1x4"])
    layers = {row.name: row for row in report.layers}
    # a = 2, b = 3, c = 6, same: head = Linear(4, 1236).
    assert layers["head"].params == 4 * 1236 + 1236
    # The forward is analysed after model.eval(), which overrides `block.training = True`:
    # Block calls fc once, 2 * 4 * 4 = 32 FLOPs.
    assert layers["block"].forward_flops == 32 and layers["block.fc"].calls == 1


# ---- what torchvision's maxvit_t needed past maxvit.py:530 ----------------------------------

def test_maxvit_construction_idioms(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                rates = np.linspace(0, 0.5, 6).tolist()     # [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
                if not len(rates[2:5]) == 3:
                    raise ValueError("three rates")
                self.layers = nn.ModuleList()
                for rate in rates[2:5]:
                    self.layers += [nn.Linear(4, 4)]         # ModuleList.__iadd__ extends in place
                self.bias = nn.parameter.Parameter(torch.empty(7, 3))
                self.last = nn.Linear(4, int(rates[-1] * 10))  # 0.5 * 10 = 5 outputs

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return self.last(x)
    '''))
    report = staticflops.analyze(path, inputs=["1x4"])
    assert report.unknown == []
    # three Linear(4, 4) of 20 params, the 7x3 parameter, Linear(4, 5) of 25
    assert report.totals.params == 3 * 20 + 21 + 25
    # forward: 3 x (2 * 4 * 4) + 2 * 4 * 5 = 136 FLOPs
    assert report.totals.forward_flops == 136 and report.outputs == [[1, 5]]


def test_torch_tensor_of_an_array_keeps_its_values(tmp_path):
    """``torch.Tensor(np.linspace(...))`` and ``torch.tensor(array)`` are copies of the array's
    values (BiT's per-stage drop rates: ``.split(depths)`` then ``.tolist()``), not a size and
    not a scalar.  Rates 0.0 .. 0.5 in six, split (2, 4): the second part's last rate 0.5 gives
    Linear(4, 5); the int copy of [0, 1, 2, 3] sums to 6: Linear(4, 6).  Params 25 + 30 = 55;
    FLOPs 2*4*5 + 2*4*6 = 88."""
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                rates = [part.tolist() for part in torch.Tensor(np.linspace(0, 0.5, 6)).split([2, 4])]
                counts = torch.tensor(torch.arange(4))
                self.a = nn.Linear(4, round(rates[1][-1] * 10))
                self.b = nn.Linear(4, int(counts.sum().item()))

            def forward(self, x):
                return self.a(x), self.b(x)
    '''))
    report = staticflops.analyze(path, inputs=["1x4"])
    assert report.unknown == []
    assert (report.totals.params, report.totals.forward_flops) == (55, 88)


def test_an_exception_class_that_cannot_be_followed_still_raises_with_its_message(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent('''
        import torch.nn as nn
        from somelib import ConfigError

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                raise ConfigError("width must be even")

            def forward(self, x):
                return x
    '''))
    with pytest.raises(AnalysisError) as error:
        staticflops.analyze(path, inputs=["1x4"])
    assert str(error.value).endswith("net.py:8:9: the model raises an error here: width must be even")


def test_argparse_defaults_of_a_run_without_arguments(tmp_path):
    report = analyse(tmp_path, '''
    import argparse
    parser = argparse.ArgumentParser(description="train")
    group = parser.add_argument_group("model")
    group.add_argument("-d", "--depth-mult", type=float, default="1.5")
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--no-bias", action="store_false", dest="bias")
    parser.add_argument("--scale", type=int, default=2)
    parser.set_defaults(scale=5)
    parser.add_argument("data")                    # positional: argparse would exit
    args = parser.parse_args()
    # CPython, parse_args([]) without the positional: depth_mult 1.5, k 3, bias True, scale 5
    W = int(args.depth_mult * 10) + args.k * 100 + (1000 if args.bias else 0) + args.scale * 10000
    DATA = args.data
    ''')
    assert report.totals.params == 2 * (15 + 300 + 1000 + 50000) and report.unknown == []


def test_a_required_argument_the_model_uses_is_an_unknown_naming_it(tmp_path):
    report = analyse(tmp_path, '''
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, required=True)
    W = parser.parse_args().width
    ''')
    assert any("argument `--width` is required" in u.what and "`out_features`" in u.what for u in report.unknown)


def test_a_class_body_statement_that_cannot_be_followed_leaves_the_rest_of_the_class(tmp_path):
    # CPython would stop at line 5; the class's other members are what the model needs.
    assert width(tmp_path, '''
    import somelib

    class Config:
        names = [n for n in somelib.registry]
        width = 9

        def doubled(self):
            return self.width * 2

    W = Config().doubled()                  # 18
    ''') == 18


def test_a_model_whose_definition_failed_names_the_cause(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent('''
        import somelib
        import torch.nn as nn

        for Net in somelib.models:
            pass
    '''))
    with pytest.raises(AnalysisError) as error:
        staticflops.analyze(path, model="Net", inputs=["1x4"])
    # the loop at line 5 binds Net; it met the unknown at col 12
    assert "`Net` could not be defined: " in str(error.value)
    assert str(error.value).startswith(f"{path}:5:12: ")


DECORATED = '''
import somelib


def documented(cls):
    if somelib.flag:  # undecidable: assumed true
        cls.__doc__ = "documented"
    return cls


def renamed(cls):
    if somelib.flag:
        cls.width = 3
    return cls


def wrapped(cls):
    if somelib.flag:
        class Wrapped(cls):
            width = 5
        return Wrapped
    return cls


@{decorator}
class Sizes:
    width = 2


W = Sizes.width
'''


@pytest.mark.parametrize("decorator, params, complete", [
    # the very class back, only its docstring set: the object as written, the assumption a warning
    ("documented", 2 * 2, True),
    # an attribute the model reads set under the assumption (width 3: Linear(1, 3) has 6 params),
    # or another class returned (width 5): every use of the class is in doubt
    ("renamed", 2 * 3, False),
    ("wrapped", 2 * 5, False),
])
def test_assumptions_inside_a_decorator(tmp_path, decorator, params, complete):
    report = analyse(tmp_path, DECORATED.replace("{decorator}", decorator))
    assert (report.totals.params, report.totals.complete) == (params, complete), report.unknown
    assert [severity for _, severity, message in codes(report, "SF131")] == ["warning"]


def test_an_undecidable_while_turns_once(tmp_path):
    """``while len(lines[i]) == 0:`` on lines that are not known (transformers' docstring code)
    used to be assumed true at every turn until the step budget stopped the analysis.  Its
    undecidable test is assumed true for one turn, then false: i = 1, W = 2 + 1 = 3, so
    Linear(1, 3) has 6 params, and the totals say they are not sure."""
    report = analyse(tmp_path, '''
    import somelib
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            lines = somelib.text.split("\\n")
            i = 0
            while len(lines[i]) == 0:
                i += 1
            self.fc = nn.Linear(1, 2 + i)

        def forward(self, x):
            return self.fc(x)
    W = 1
    ''', model="Net")
    assert report.totals.params == 2 * 3 and report.totals.complete is False
    messages = [u.what for u in report.unknown]
    assert any(m.endswith("assumed true") for m in messages), messages
    assert any(m.endswith("the loop ends (assumed false)") for m in messages), messages
