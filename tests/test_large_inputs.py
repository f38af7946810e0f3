"""Large and deeply nested files finish within the budgets with a result or a located error."""

import time

import pytest

import staticflops

DEEP = '''\
from torch import nn
WIDTH = {expression}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(WIDTH, 4)

    def forward(self, x):
        return self.fc(x)
'''


def test_20000_line_model_file(tmp_path):
    """10,000 Linear(8, 8) layers built in __init__ and called in forward: 20,010 lines."""
    n = 10_000
    lines = ["import torch", "from torch import nn", "", "class Net(nn.Module):", "    def __init__(self):",
             "        super().__init__()"]
    lines += [f"        self.l{i} = nn.Linear(8, 8)" for i in range(n)]
    lines += ["", "    def forward(self, x):"] + [f"        x = self.l{i}(x)" for i in range(n)] + ["        return x"]
    path = tmp_path / "big.py"
    path.write_text("\n".join(lines) + "\n")
    assert len(lines) >= 20_000
    started = time.monotonic()
    report = staticflops.analyze(path, inputs=["1x8"])
    # each Linear(8, 8) on 1x8: 8*8 = 64 MACs, 8*8 + 8 = 72 params; 10,000 of them
    assert (report.totals.macs, report.totals.params) == (640_000, 720_000)
    assert report.unknown == []
    assert time.monotonic() - started < 300  # ~5-7 s measured (2-core VM): libcst parsing is most of it


@pytest.mark.parametrize("expression", [
    "(1 + " * 499 + "4" + ")" * 499 + " - 499",   # 500 nested parentheses: 499 + 4 - 499 = 4
    "- " * 500 + "4",                             # 500 nested unary minus: even count, so 4
    " + ".join(["1"] * 500) + " - 496",           # a 500-operand chain: 500 - 496 = 4
    "abs(" * 500 + "4" + ")" * 500,               # 500 nested calls
], ids=["parentheses", "unary", "chain", "calls"])
def test_500_deep_expression(tmp_path, expression):
    path = tmp_path / "deep.py"
    path.write_text(DEEP.format(expression=expression))
    report = staticflops.analyze(path, inputs=["1x4"])
    assert report.totals.macs == 16  # Linear(4, 4) on 1x4: 4*4


@pytest.mark.parametrize("expression, col, message", [
    # "WIDTH = " is 8 columns; the 1,000th "(" (column 1,008) makes the depth 1,001
    ("(" * 30_000 + "4" + ")" * 30_000, 1008, "brackets nest over 1000 deep"),
    ("- " * 30_000 + "4", 9, "over 1000 unary operators nest inside each other"),
], ids=["parentheses", "unary"])
def test_too_deep_for_the_parser_is_a_located_error(tmp_path, expression, col, message):
    """Unguarded, 30,000 nested parentheses exhaust memory inside libcst; now refused up front."""
    path = tmp_path / "deeper.py"
    path.write_text(DEEP.format(expression=expression))
    with pytest.raises(staticflops.AnalysisError) as error:
        staticflops.analyze(path, inputs=["1x4"])
    assert (str(error.value.location), error.value.message) == (f"{path}:2:{col}", message)
