"""Issue 8, "Never hang": hitting a budget gives partial results marked as such (exit 1),
budget flags on every command, and the exit statuses of bad input."""

import json
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

import staticflops
from review_helpers import MLP, git, make_repo
from staticflops.cli.app import app
from staticflops.frontend.budget import Budget
from staticflops.limits import DEFAULT_LIMITS

# Linear(8, 16), Linear(16, 16), Linear(16, 4) on a 2x8 input, then `while True: pass` (line 16):
#   MACs 2*8*16 + 2*16*16 + 2*16*4 = 256 + 512 + 128 = 896 -> FLOPs 1,792 (standard: 2 per MAC)
#   params (8*16 + 16) + (16*16 + 16) + (16*4 + 4) = 144 + 272 + 68 = 484
STUCK_IN_FORWARD = textwrap.dedent("""\
    import torch
    from torch import nn


    class Stuck(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 16)
            self.b = nn.Linear(16, 16)
            self.c = nn.Linear(16, 4)

        def forward(self, x):
            x = self.a(x)
            x = self.b(x)
            x = self.c(x)
            while True:
                pass
            return x
""")

# Two layers built, then the constructor loops (line 10); the third layer never exists:
#   params (8*16 + 16) + (16*4 + 4) = 144 + 68 = 212; no forward pass, so 0 FLOPs
STUCK_IN_INIT = textwrap.dedent("""\
    from torch import nn


    class Stuck(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 16)
            self.b = nn.Linear(16, 4)
            n = 0
            while n >= 0:
                n += 1
            self.c = nn.Linear(4, 4)

        def forward(self, x):
            return self.c(self.b(self.a(x)))
""")


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def write(tmp_path, text, name="model.py"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_budget_hit_in_forward_returns_the_ops_traced_so_far(tmp_path):
    path = write(tmp_path, STUCK_IN_FORWARD)
    report = staticflops.analyze(path, inputs=["2x8"])
    assert report.partial is True
    assert (report.totals.forward_flops, report.totals.macs, report.totals.params) == (1792, 896, 484)
    assert report.totals.complete is False  # a lower bound
    assert [row.name for row in report.layers] == ["a", "b", "c"]
    # the step budget runs out inside the loop: blamed on the `while` (line 16, column 5 of the body)
    assert report.stopped.location == f"{path}:16:9"
    assert "--max-steps" in report.stopped.message and report.stopped.severity == "error"
    assert report.diagnostics == [report.stopped]


def test_partial_cli_json_exit_1_and_message(tmp_path):
    path = write(tmp_path, STUCK_IN_FORWARD)
    result = cli("analyze", str(path), "-i", "2x8", "--format", "json", "--max-loop-iterations", "100")
    assert result.returncode == 1
    data = json.loads(result.stdout)  # the report is still printed, whole
    assert data["partial"] is True and data["schema_version"] == 1
    assert data["totals"]["forward_flops"] == 1792 and data["totals"]["params"] == 484
    assert data["stopped"]["location"] == f"{path}:16:9"
    assert result.stderr == (f"{path}:16:9: error: loop iteration budget of 100 exhausted (--max-loop-iterations); "
                             "the report above is partial (a lower bound)\n")


def test_partial_table_and_markdown_say_so_at_the_top_and_the_totals(tmp_path):
    path = write(tmp_path, STUCK_IN_FORWARD)
    table = cli("analyze", str(path), "-i", "2x8", "--max-loop-iterations", "100")
    assert table.returncode == 1
    assert table.stdout.startswith(f"PARTIAL RESULT: the analysis stopped at {path}:16:9: loop iteration budget")
    assert "PARTIAL (lower bound) Total forward: ≥ 1.79 KFLOPs — incomplete, stopped early" in table.stdout
    markdown = cli("analyze", str(path), "-i", "2x8", "--max-loop-iterations", "100", "--format", "markdown")
    assert markdown.returncode == 1
    assert markdown.stdout.startswith("> **PARTIAL RESULT: the analysis stopped at")
    assert "**PARTIAL (lower bound) `Stuck`**" in markdown.stdout and "**≥ 1.79 KFLOPs** forward" in markdown.stdout


def test_complete_report_is_not_partial():
    report = staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"])
    assert report.partial is False and report.stopped is None
    assert json.loads(report.to_json())["partial"] is False


def test_budget_hit_in_the_constructor_reports_the_layers_built(tmp_path):
    path = write(tmp_path, STUCK_IN_INIT)
    report = staticflops.analyze(path, inputs=["2x8"], limits={"max_loop_iterations": 1000})
    assert report.partial is True
    assert [row.name for row in report.layers] == ["a", "b"]
    assert (report.totals.params, report.totals.forward_flops) == (212, 0)
    assert report.stopped.location == f"{path}:10:9"  # the `while` in __init__


def test_budget_hit_before_the_model_exists_is_an_error(tmp_path):
    module_level = write(tmp_path, "from torch import nn\nwhile True:\n    pass\n\n"
                                   "class Net(nn.Module):\n    def forward(self, x):\n        return x\n")
    with pytest.raises(staticflops.AnalysisError, match="--max-steps") as error:
        staticflops.analyze(module_level, inputs=["1x4"])
    assert (error.value.location.line, error.value.location.col) == (2, 1)
    result = cli("analyze", str(module_level), "-i", "1x4")
    assert (result.returncode, result.stdout) == (1, "")
    # a builder function: the budget runs out before any module holds the layers
    builder = write(tmp_path, "from torch import nn\n\ndef build():\n    layers = [nn.Linear(4, 4)]\n"
                              "    while True:\n        pass\n", "builder.py")
    with pytest.raises(staticflops.AnalysisError) as error:
        staticflops.analyze(builder, inputs=["1x4"])
    assert error.value.location.line == 5


def test_other_analysis_errors_still_raise(tmp_path):
    path = write(tmp_path, STUCK_IN_FORWARD.replace("while True:\n            pass\n", "x = x @ x\n"))
    with pytest.raises(staticflops.AnalysisError, match="inner dimensions"):
        staticflops.analyze(path, inputs=["2x8"])


def test_keras_forward_budget_hit_is_partial(tmp_path):
    # Dense(16) on 2x8: 2*8*16 = 256 MACs, 144 params; Dense(4) on 2x16: 2*16*4 = 128 MACs, 68 params
    path = write(tmp_path, textwrap.dedent("""\
        import keras
        from keras import layers


        class Net(keras.Model):
            def __init__(self):
                super().__init__()
                self.a = layers.Dense(16)
                self.b = layers.Dense(4)

            def call(self, x):
                x = self.b(self.a(x))
                while True:
                    pass
                return x
    """))
    report = staticflops.analyze(path, inputs=["2x8"], limits={"max_loop_iterations": 100})
    assert report.partial and report.stopped.location == f"{path}:13:9"
    assert (report.totals.macs, report.totals.params) == (256 + 128, 144 + 68)


def test_folder_mode_marks_the_file_partial_and_failed(tmp_path):
    write(tmp_path, STUCK_IN_FORWARD, "stuck.py")
    write(tmp_path, MLP, "mlp.py")  # 768 FLOPs (review_helpers)
    result = cli("analyze", str(tmp_path), "-i", "2x8", "--format", "json", "--no-cache",
                 "--max-loop-iterations", "100")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    entries = {e["path"].rsplit("/", 1)[-1]: e for e in data["files"]}
    stuck = entries["stuck.py"]
    assert stuck["partial"] is True and stuck["report"]["totals"]["forward_flops"] == 1792
    assert stuck["error"].startswith(f"{tmp_path}/stuck.py:16:9: error: loop iteration budget of 100")
    assert "partial" not in entries["mlp.py"] and entries["mlp.py"]["report"]["totals"]["forward_flops"] == 768
    assert (data["summary"]["analysed"], data["summary"]["errors"]) == (1, 1)
    table = cli("analyze", str(tmp_path), "-i", "2x8", "--no-cache", "--max-loop-iterations", "100")
    assert table.returncode == 1 and "PARTIAL (lower bound)" in table.stdout


def test_check_never_passes_a_partial_result(tmp_path):
    make_repo(tmp_path, flops="1K", params="300")  # the MLP: 768 FLOPs, 212 params: passes normally
    assert cli("check", cwd=tmp_path).returncode == 0
    result = cli("check", "--format", "json", "--no-cache", "--max-steps", "12", cwd=tmp_path)
    assert result.returncode == 1
    model = json.loads(result.stdout)["models"][0]
    assert model["status"] == "error"
    assert "evaluation step budget of 12 exhausted (--max-steps)" in model["problems"][0]
    assert "partial result" in model["problems"][0]


def test_config_limits_apply_and_flags_override_them(tmp_path):
    make_repo(tmp_path, flops="1K", params="300")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[[tool.staticflops.models]]",
                                                       "[tool.staticflops]\nlimits = { max_steps = 12 }\n\n"
                                                       "[[tool.staticflops.models]]"))
    assert cli("check", "--no-cache", cwd=tmp_path).returncode == 1
    assert cli("check", "--no-cache", "--max-steps", "100000", cwd=tmp_path).returncode == 0


def test_config_limit_typo_names_the_closest_limit(tmp_path):
    make_repo(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[[tool.staticflops.models]]",
                                                       "[tool.staticflops]\nlimits = { max_stepz = 12 }\n\n"
                                                       "[[tool.staticflops.models]]"))
    result = cli("check", cwd=tmp_path)
    assert result.returncode == 1
    assert "unknown limit 'max_stepz'; did you mean 'max_steps'?" in result.stderr
    assert "Traceback" not in result.stderr
    pyproject.write_text(pyproject.read_text().replace("max_stepz = 12", "max_steps = 0"))
    result = cli("check", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "staticflops: error: limit `max_steps` must be a positive integer, got 0\n")


def test_diff_takes_the_budget_flags(tmp_path):
    make_repo(tmp_path)
    result = cli("diff", "--format", "json", "--max-steps", "12", cwd=tmp_path)
    assert result.returncode == 0  # diff reports; it does not judge
    model = json.loads(result.stdout)["models"][0]
    assert model["status"] == "error"
    assert any("evaluation step budget of 12" in e and "partial result" in e for e in model["errors"])
    assert json.loads(cli("diff", "--format", "json", cwd=tmp_path).stdout)["models"][0]["status"] == "unchanged"
    assert git(tmp_path, "status", "--porcelain") == ""


def test_compare_takes_the_flags_and_refuses_a_partial_analysis(tmp_path):
    path = write(tmp_path, STUCK_IN_FORWARD)
    result = cli("compare", str(path), "-i", "2x8", "--max-loop-iterations", "100")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"{path}:16:9: error: loop iteration budget of 100 exhausted (--max-loop-iterations)\n"


@pytest.mark.parametrize("command", ["analyze", "check", "diff", "compare"])
def test_every_command_has_every_budget_flag(command):
    help_text = CliRunner().invoke(app, [command, "--help"], terminal_width=200).output
    for name, default in DEFAULT_LIMITS.items():
        assert f"--{name.replace('_', '-')}" in help_text and f"(default {default:,})" in help_text


def test_the_limits_table_is_the_budgets_defaults():
    budget = Budget()
    assert {name: getattr(budget, name) for name in DEFAULT_LIMITS} == DEFAULT_LIMITS
    assert sorted(n for n in vars(budget) if n.startswith("max_")) == sorted(DEFAULT_LIMITS)


def test_new_flags_reach_the_interpreter(tmp_path):
    # [0] * 20 builds 20 items: over --max-container 10; (A + 1) ** 200 has 201 terms: over 5
    container = write(tmp_path, STUCK_IN_FORWARD.replace("while True:\n            pass\n", "y = [0] * 20\n"))
    result = cli("analyze", str(container), "-i", "2x8", "--max-container", "10")
    assert result.returncode == 1 and f"{container}:16:13: error: repetition builds 20 items" in result.stderr
    assert "(--max-container)" in result.stderr
    terms = write(tmp_path, STUCK_IN_FORWARD.replace("while True:\n            pass\n",
                                                     "a = x.shape[0]\n        z = (a + 1) ** 200\n"), "terms.py")
    result = cli("analyze", str(terms), "-i", "Ax8", "--max-expr-terms", "5")
    assert result.returncode == 1 and f"{terms}:17:13: error: symbolic expression would have over 5 terms" in result.stderr
    assert cli("analyze", str(terms), "-i", "Ax8").returncode == 0  # 201 terms: within the default 10,000


@pytest.mark.parametrize("expression, col", [
    ("2 ** 10**9", 13),
    ("10**10**10", 13),
    ("1 << 10**10", 13),
    ("pow(2, 10**9)", 13),
])
def test_huge_integers_are_refused_not_computed(tmp_path, expression, col):
    path = write(tmp_path, STUCK_IN_FORWARD.replace("while True:\n            pass\n", f"y = {expression}\n"))
    report = staticflops.analyze(path, inputs=["2x8"])  # would take minutes and gigabytes if computed
    assert report.partial and report.stopped.location == f"{path}:16:{col}"
    assert "(--max-int-bits)" in report.stopped.message
    assert report.totals.forward_flops == 1792  # the three Linear layers before it


def test_squaring_in_a_loop_is_refused(tmp_path):
    # x = x * x doubles the bits each pass: 2 -> 2**2 -> ... -> 2**(2**17) passes 100,000 bits at pass 17
    path = write(tmp_path, STUCK_IN_FORWARD.replace("while True:\n            pass\n",
                                                    "y = 2\n        for _ in range(64):\n            y = y * y\n"))
    report = staticflops.analyze(path, inputs=["2x8"])
    assert report.partial and report.stopped.location == f"{path}:18:17"
    assert "bits is over the limit of 100,000 (--max-int-bits)" in report.stopped.message


def test_ordinary_integer_arithmetic_still_works(tmp_path):
    # 2 ** 3 + (1 << 2) = 12 features; Linear(12, 4) on 2x12: 2*12*4 = 96 MACs
    path = write(tmp_path, "from torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
                           "        super().__init__()\n        self.fc = nn.Linear(2 ** 3 + (1 << 2), pow(2, 2))\n\n"
                           "    def forward(self, x):\n        return self.fc(x)\n")
    report = staticflops.analyze(path, inputs=["2x12"])
    assert not report.partial and report.totals.macs == 96


def test_import_cycle_with_a_name_not_yet_defined_ends(tmp_path):
    # a imports b, b imports a and needs DEPTH, which a defines only after its import line.
    # Python would raise ImportError; the analyser resolves module names lazily, so b sees
    # DEPTH = 2 and WIDTH = 2 * 3 = 6: Linear(6, 4) on 2x6 = 2*6*4 = 48 MACs.  What matters
    # here: it ends, without a traceback, with that figure.
    (tmp_path / "a.py").write_text("from b import WIDTH\nDEPTH = 2\n")
    (tmp_path / "b.py").write_text("from a import DEPTH\nWIDTH = DEPTH * 3\n")
    path = write(tmp_path, "from a import WIDTH\nfrom torch import nn\n\nclass Net(nn.Module):\n"
                           "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(WIDTH, 4)\n\n"
                           "    def forward(self, x):\n        return self.fc(x)\n")
    result = cli("analyze", str(path), "-i", "2x6", "--format", "json")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["totals"]["macs"] == 48


def test_self_import_ends(tmp_path):
    path = write(tmp_path, "import model\nfrom torch import nn\n\nclass Net(nn.Module):\n"
                           "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n\n"
                           "    def forward(self, x):\n        return self.fc(x)\n")
    report = staticflops.analyze(path, inputs=["1x4"])
    assert report.totals.macs == 16  # Linear(4, 4) on 1x4


def test_rule_file_alias_bomb_is_refused_with_its_location(tmp_path):
    lines = ["name: bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    rules = write(tmp_path, "\n".join(lines) + "\n", "bomb.yaml")
    result = cli("rules", "validate", str(rules))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{rules}:") and "expands to over 200,000 YAML nodes (aliases?)" in result.stderr


def test_oversize_rule_file_is_refused_with_its_location(tmp_path):
    rules = write(tmp_path, "name: big\n" + "# padding\n" * 120_000, "big.yaml")  # 1,200,010 bytes
    result = cli("analyze", "samples/lenet5.py", "-i", "1x1x28x28", "--rules", str(rules))
    assert result.returncode == 1
    assert result.stderr == f"{rules}:1:1: error: rule file {rules} is 1,200,010 bytes, over the 1,000,000-byte limit\n"


def test_config_alias_bomb_is_refused_with_its_location(tmp_path):
    lines = ["models:", "  - name: m", "    path: m.py", "    inputs: [1x4]", "    kwargs:",
             "      a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"      a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    write(tmp_path, "\n".join(lines) + "\n", "staticflops.yaml")
    result = cli("check", cwd=tmp_path)
    assert result.returncode == 1
    assert "staticflops.yaml:" in result.stderr and "expands to over 200,000 YAML nodes" in result.stderr


def test_keras_constructor_budget_hit_lists_the_layers_built(tmp_path):
    # Keras layers get their weights on the first call, so a constructor-only result lists the
    # layer with its parameters unknown (reported, never a silent zero).
    path = write(tmp_path, "import keras\nfrom keras import layers\n\n\nclass Net(keras.Model):\n"
                           "    def __init__(self):\n        super().__init__()\n        self.a = layers.Dense(16)\n"
                           "        while True:\n            pass\n        self.b = layers.Dense(4)\n\n"
                           "    def call(self, x):\n        return self.b(self.a(x))\n")
    report = staticflops.analyze(path, inputs=["2x8"], limits={"max_loop_iterations": 50})
    assert report.partial and report.stopped.location == f"{path}:9:9"
    assert [row.name for row in report.layers] == ["a"]
    assert report.unknown and report.unknown[0].location == f"{path}:8:18"


# Linear(8, 16) then Linear(16, 4) on 2x8, then `x = x + 1` forever (line 14, column 17):
# every turn traces one add, so the op budget stops it.  With --max-ops 10: the two Linear ops
# and 8 adds are kept, the 11th op is refused.  FLOPs (standard: adds cost 0)
#   2*(2*8*16) + 2*(2*16*4) = 512 + 256 = 768; params (8*16 + 16) + (16*4 + 4) = 144 + 68 = 212
GROWING_TRACE = textwrap.dedent("""\
    import torch
    from torch import nn


    class Grow(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 16)
            self.b = nn.Linear(16, 4)

        def forward(self, x):
            x = self.b(self.a(x))
            while True:
                x = x + 1
            return x
""")


def test_op_budget_bounds_a_loop_that_traces_an_op_per_turn(tmp_path):
    path = write(tmp_path, GROWING_TRACE)
    report = staticflops.analyze(path, inputs=["2x8"], limits={"max_ops": 10})
    assert report.partial is True
    assert (report.totals.forward_flops, report.totals.params) == (768, 212)
    assert (report.stopped.location, report.stopped.message) == (
        f"{path}:14:17", "traced op budget of 10 exhausted (--max-ops)")
    result = CliRunner().invoke(app, ["analyze", str(path), "-i", "2x8", "--max-ops", "10", "-f", "json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["partial"] is True
