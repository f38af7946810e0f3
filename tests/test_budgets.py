"""The interpreter's bounds are overridable by flags and each one stops the analysis at the
construct that hit it, with `path:line:col` and exit status 1."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import staticflops


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_step_budget_flag_stops_at_the_statement():
    result = cli("analyze", "samples/lenet5.py", "--input", "1x1x28x28", "--max-steps", "10")
    assert result.returncode == 1
    # the 10th statement run is `super().__init__()` in LeNet5.__init__ (line 13, column 9)
    # stopped inside the constructor: the (empty so far) partial report is printed, then the message
    assert result.stderr == ("samples/lenet5.py:13:9: error: evaluation step budget of 10 exhausted (--max-steps); "
                             "the report above is partial (a lower bound)\n")
    assert "PARTIAL RESULT" in result.stdout


def test_depth_budget_flag_stops_at_the_call():
    result = cli("analyze", "samples/resnet50.py", "--input", "1x3x224x224", "--max-depth", "3")
    assert result.returncode == 1
    assert result.stderr.startswith("samples/resnet50.py:") and "call depth over 3 (recursion? --max-depth)" in result.stderr


def test_loop_budget_flag(tmp_path):
    model = tmp_path / "loop.py"
    model.write_text(textwrap.dedent('''\
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(64)])

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return x
    '''))
    assert cli("analyze", str(model), "--input", "1x4").returncode == 0
    result = cli("analyze", str(model), "--input", "1x4", "--max-loop-iterations", "50")
    assert result.returncode == 1
    # `range(64)` starts at column 63 of line 6
    assert result.stderr == (f"{model}:6:63: error: range of 64 items is over the loop budget (--max-loop-iterations); "
                             "the report above is partial (a lower bound)\n")


def test_file_size_flag(tmp_path):
    size = Path("samples/lenet5.py").stat().st_size
    result = cli("analyze", "samples/lenet5.py", "--input", "1x1x28x28", "--max-file-bytes", "100")
    assert result.returncode == 1
    assert result.stderr == (f"samples/lenet5.py:1:1: error: samples/lenet5.py is {size:,} bytes, "
                             "over the 100-byte limit (--max-file-bytes)\n")


SYMBOLIC = textwrap.dedent('''\
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            a, b, c, d = x.shape
            {line}
            return self.fc(x)
''')


@pytest.mark.parametrize("line, col", [
    # (a + b + c) ** 200 has C(202, 200) = 20,301 terms > 10,000: refused before it is built
    ("z = (a + b + c) ** 200", 13),
    # each pass multiplies by a 3-term sum; terms grow until a product would pass 10,000
    ("z = a + b + 1\n        for i in range(400):\n            z = z * (a + b + c)", 17),
])
def test_symbolic_expression_size_is_bounded(tmp_path, line, col):
    model = tmp_path / "sym.py"
    model.write_text(SYMBOLIC.format(line=line))
    report = staticflops.analyze(model, inputs=["AxBxCx4"])  # a budget hit: a partial report, not an exception
    assert report.partial and "symbolic expression would have over 10,000 terms" in report.stopped.message
    path, _line, column = report.stopped.location.rsplit(":", 2)
    assert path == str(model) and int(column) == col


def test_import_chain_depth_is_bounded(tmp_path):
    for i in range(60):  # m0 imports m1 imports ... m59
        (tmp_path / f"m{i}.py").write_text(f"from m{i + 1} import *\nW{i} = 1\n" if i < 59 else "W59 = 1\n")
    (tmp_path / "model.py").write_text("from m0 import *\nfrom torch import nn\n\nclass Net(nn.Module):\n"
                                       "    def __init__(self):\n        super().__init__()\n"
                                       "        self.fc = nn.Linear(4, 4)\n\n    def forward(self, x):\n"
                                       "        return self.fc(x)\n")
    with pytest.raises(staticflops.AnalysisError, match=r"imports nest over 50 files deep \(--max-import-depth\)") as error:
        staticflops.analyze(tmp_path / "model.py", inputs=["1x4"])
    # model.py runs m0 (depth 1) ... m49 (depth 50) whose line 1 imports m50: refused there
    assert (error.value.location.path.endswith("m49.py"), error.value.location.line) == (True, 1)
    # with a larger bound the whole chain is followed: Linear(4, 4) on 1x4 = 16 MACs
    report = staticflops.analyze(tmp_path / "model.py", inputs=["1x4"], limits={"max_import_depth": 100})
    assert report.totals.macs == 16


def test_import_cycle_ends(tmp_path):
    (tmp_path / "a.py").write_text("from b import WIDTH\nDEPTH = 2\n")
    (tmp_path / "b.py").write_text("import a\nWIDTH = 6\n")
    (tmp_path / "model.py").write_text("from a import WIDTH\nfrom torch import nn\n\nclass Net(nn.Module):\n"
                                       "    def __init__(self):\n        super().__init__()\n"
                                       "        self.fc = nn.Linear(WIDTH, WIDTH)\n\n    def forward(self, x):\n"
                                       "        return self.fc(x)\n")
    report = staticflops.analyze(tmp_path / "model.py", inputs=["1x6"])
    assert report.totals.macs == 36  # Linear(6, 6) on 1x6: 6*6


def test_unknown_or_bad_limit_is_a_usage_error():
    with pytest.raises(staticflops.UsageError, match="unknown limit `max_stepz`"):
        staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"], limits={"max_stepz": 5})
    with pytest.raises(staticflops.UsageError, match="must be a positive integer"):
        staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"], limits={"max_steps": 0})
    result = cli("analyze", "samples/lenet5.py", "--input", "1x1x28x28", "--max-steps", "0")
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_internal_error_asks_for_a_bug_report(monkeypatch):
    """Any exception that is not ours-by-design becomes one line and exit 3; --debug re-raises."""
    from typer.testing import CliRunner

    from staticflops import api
    from staticflops.cli.app import app

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(api, "analyze", broken)
    runner = CliRunner()
    result = runner.invoke(app, ["analyze", "samples/lenet5.py", "--input", "1x1x28x28"])
    assert result.exit_code == 3
    assert result.output == (f"staticflops: internal error while analysing samples/lenet5.py: KeyError: 'boom'. "
                             f"This is a bug in staticflops {staticflops.__version__}; please report it with the "
                             "file name and version (--debug shows the traceback).\n")
    debug = runner.invoke(app, ["analyze", "samples/lenet5.py", "--input", "1x1x28x28", "--debug"])
    assert isinstance(debug.exception, KeyError)
