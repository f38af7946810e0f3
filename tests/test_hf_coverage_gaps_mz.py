"""Interpreter gaps found by the transformers folder run over models m-z
(tools/transformers_folder_run.py), each shown on a few lines of model code that mimic the
library's pattern.  Expected numbers are worked out by hand in the comments, or are the Python /
torch 2.13 semantics named next to them (checked by running Python/torch, not staticflops)."""

from snippet_helpers import analyse


def test_callable_of_a_module_instance_and_of_a_class_with_call(tmp_path):
    # Python: an instance is callable when its type defines __call__; every nn.Module does
    # (X-codec 2's anti-aliased activation raises TypeError unless callable(SnakeBeta(dim))).
    # callable(Plain()) is False, callable(WithCall()) True (inherited __call__ counts).
    report = analyse(tmp_path, """
import torch.nn as nn

class Plain:
    pass

class Base:
    def __call__(self, x):
        return x

class WithCall(Base):
    pass

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        if not callable(nn.ReLU()) or not callable(WithCall()) or callable(Plain()):
            raise TypeError("not callable")
        # Linear(4, 3): 4*3 + 3 = 15 params
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        # (1, 4) @ (4, 3): 12 MACs = 24 FLOPs
        return self.fc(x)
""", inputs=("1x4",))
    assert report.unknown == [], report.unknown
    assert report.totals.params == 15 and report.totals.forward_flops == 24
