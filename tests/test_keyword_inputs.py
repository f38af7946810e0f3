"""--keyword-input NAME=SHAPE: tensors given to forward by keyword, a dotted NAME being a key of a
dict argument (diffusers' SDXL `added_cond_kwargs`; tests/test_diffusers.py checks that against
FlopCounterMode).  The FLOPs below are derived by hand in the comments."""

import json

from typer.testing import CliRunner

import staticflops
from staticflops.cli.app import app

MODEL = '''
import torch.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.proj = nn.Linear(3, 4)

    def forward(self, x, mask=None, cond=None):
        y = self.fc(x)
        if mask is not None:
            y = y * mask
        if cond is not None:
            y = y + self.proj(cond["t"])
        return y
'''


def _model(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(MODEL)
    return path


def test_keyword_tensor_and_dict_key(tmp_path):
    # fc: 2 rows x 4 x 4 = 32 MACs; proj of cond["t"]: 2 x 3 x 4 = 24 MACs -> 112 FLOPs (the
    # product with mask and the sum count 0 under `standard`)
    report = staticflops.analyze(_model(tmp_path), inputs=["2x4"], keyword_inputs=["cond.t=2x3", "mask=2x4"])
    assert report.unknown == []
    assert report.totals.forward_flops == 112 and report.outputs == [[2, 4]]
    assert report.keyword_inputs == {"cond.t": "2x3", "mask": "2x4"}
    # only fc without them: 2 x 4 x 4 = 32 MACs -> 64 FLOPs; the JSON has no keyword_inputs field
    plain = staticflops.analyze(_model(tmp_path), inputs=["2x4"])
    assert plain.totals.forward_flops == 64 and "keyword_inputs" not in json.loads(plain.to_json())


def test_keyword_inputs_printed_and_symbolic(tmp_path):
    # B rows: fc 16B + proj 12B MACs = 28B -> 56*B FLOPs
    result = CliRunner().invoke(app, ["analyze", str(_model(tmp_path)), "--input", "Bx4", "--keyword-input",
                                      "cond.t=Bx3", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "Inputs: Bx4, cond.t=Bx3" in result.output
    result = CliRunner().invoke(app, ["analyze", str(_model(tmp_path)), "--input", "Bx4", "--keyword-input",
                                      "cond.t=Bx3", "--format", "json", "--no-cache"])
    assert json.loads(result.output)["totals"]["forward_flops"] == "56*B"
    result = CliRunner().invoke(app, ["compare", str(_model(tmp_path)), "--input", "2x4", "--keyword-input",
                                      "cond.t=2x3", "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "inputs `2x4`, `cond.t=2x3`" in result.output


def test_keyword_input_mistakes_are_usage_errors(tmp_path):
    for given, says in (("2x3", "expected NAME=SHAPE"), ("cond.t=2xq!", "is neither a number nor a symbol name")):
        result = CliRunner().invoke(app, ["analyze", str(_model(tmp_path)), "--input", "2x4",
                                          "--keyword-input", given, "--no-cache"])
        assert result.exit_code == 1 and says in result.output, result.output
    result = CliRunner().invoke(app, ["analyze", str(_model(tmp_path)), "--input", "2x4", "--keyword-input",
                                      "cond=2x3", "--keyword-input", "cond.t=2x3", "--no-cache"])
    assert result.exit_code == 1 and "a tensor and keys both" in result.output, result.output


def test_check_passes_keyword_inputs_from_the_config(tmp_path):
    """A configured model's `keyword_inputs` reach forward as --keyword-input does: with cond.t
    the model costs 112 FLOPs (above), over a 100-FLOP budget by 12; without it, 64 pass."""
    _model(tmp_path)

    def check(extra: str):
        (tmp_path / "pyproject.toml").write_text(
            '[[tool.staticflops.models]]\nname = "m"\npath = "m.py"\ninputs = ["2x4"]\n'
            f'budget = {{ forward_flops = 100 }}\n{extra}')
        return CliRunner().invoke(app, ["check", "--exact", "--no-cache", "--config", str(tmp_path / "pyproject.toml")])

    failing = check('keyword_inputs = { "cond.t" = "2x3" }\n')
    assert failing.exit_code == 1, failing.output
    assert "forward_flops is over budget: 112 > 100 (+12)" in failing.output
    passing = check("")
    assert passing.exit_code == 0, passing.output
