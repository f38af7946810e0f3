"""The command line as users and CI scripts call it: exit codes, messages, the JSON contract."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True, cwd=cwd)


def test_json_contract_for_the_seed_model():
    result = run("analyze", "samples/seed_conv_gru.py", "--input", "1x1x100x256", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["schema_version"] == 1
    assert set(report) >= {"file", "model", "framework", "rules", "inputs", "outputs", "totals", "layers",
                           "unknown", "diagnostics"}
    assert report["totals"]["forward_flops"] == 249_809_920
    assert report["totals"]["params"] == 1_224_032
    assert report["outputs"] == [[1, 97, 256]]
    layer = report["layers"][0]
    assert set(layer) >= {"name", "type", "location", "output_shape", "forward_flops", "macs", "params"}
    assert layer["location"].startswith("samples/seed_conv_gru.py:")


def test_symbolic_totals_are_formula_strings():
    result = run("analyze", "samples/resnet50.py", "--input", "Bx3x224x224", "--format", "json")
    assert json.loads(result.stdout)["totals"]["forward_flops"] == "8178368512*B"


def test_table_shows_units_and_convention():
    result = run("analyze", "samples/seed_conv_gru.py", "--input", "1x1x100x256")
    assert result.returncode == 0
    assert "249.81 MFLOPs" in result.stdout and "124.90 MMACs" in result.stdout
    assert "FlopCounterMode" in result.stdout


def test_shape_bug_exits_1_with_location_and_both_numbers(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(784, 1024)
                self.fc2 = nn.Linear(512, 10)

            def forward(self, x):
                return self.fc2(torch.relu(self.fc1(x)))
    """))
    result = run("analyze", "model.py", "--input", "1x784", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip() == "model.py:12:16: error: Linear expects 512 input features, got 1024"
    assert "Traceback" not in result.stderr


def test_syntax_error_exits_1_with_location(tmp_path):
    (tmp_path / "broken.py").write_text("import torch\nclass A(:\n    pass\n")
    result = run("analyze", "broken.py", "--input", "1x3", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("broken.py:2:9: error: syntax error")


@pytest.mark.parametrize("args", [
    ["--input", "1xQ-3"],
    ["--input", "1x784", "--kwargs", "{bad"],
    ["--input", "1x784", "--kwargs", "[1, 2]"],
])
def test_bad_input_values_exit_1(args):
    """Wrong --input or --kwargs is bad input: exit 1 with one line (issue 8), not 2."""
    result = run("analyze", "samples/lenet5.py", *args)
    assert result.returncode == 1
    assert result.stderr.startswith("staticflops: error: --") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [
    ["--format", "yaml"],  # not a choice
    ["--bogus-flag"],  # unknown option
    ["--input", "1x784", "--max-steps", "many"],  # not an integer
    ["--input", "1x784", "--max-steps", "0"],  # below the flag's minimum
])
def test_command_line_errors_exit_2(args):
    """Click's own errors about the command line keep exit 2."""
    result = run("analyze", "samples/lenet5.py", *args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_missing_argument_exits_2():
    assert run("analyze").returncode == 2


def test_unknown_rule_set_is_a_clear_error():
    result = run("analyze", "samples/lenet5.py", "--input", "1x1x28x28", "--rules", "nosuch")
    assert result.returncode == 1
    assert "no rule set named 'nosuch'" in result.stderr


def test_model_and_kwargs_options(tmp_path):
    (tmp_path / "my_net.py").write_text(textwrap.dedent("""
        from torch import nn

        class Net(nn.Module):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
                self.head = nn.Linear(8, num_classes)

            def forward(self, x):
                return self.head(self.features(x).flatten(1))

        class Other(nn.Module):
            def forward(self, x):
                return x
    """))
    result = run("analyze", "my_net.py", "--model", "Net", "--kwargs", '{"num_classes": 10}',
                 "--input", "1x3x32x32", "--format", "json", cwd=tmp_path)
    report = json.loads(result.stdout)
    # conv: 8x32x32 outputs x 3*3*3 = 221,184 MACs; head: 8*10 = 80 MACs
    assert report["totals"]["macs"] == 221_184 + 80
    # conv 8*3*9 + 8; head 8*10 + 10
    assert report["totals"]["params"] == 224 + 90
    assert report["outputs"] == [[1, 10]]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_output_that_cannot_be_written_is_one_line_not_a_traceback():
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "staticflops", "analyze", "samples/lenet5.py", "-i", "1x1x28x28",
                                 "-f", "json"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr == "staticflops: error: cannot write the output: No space left on device\n"


def test_console_script_turns_pydantic_plugins_off_unless_the_user_chose():
    # main() runs the app; the app is replaced by one that prints what pydantic would see.
    probe = ("import os, staticflops.cli.app as a\n"
             "a.app = lambda: print(os.environ.get('PYDANTIC_DISABLE_PLUGINS'))\n"
             "a.main()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    default = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    chosen = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            env={**env, "PYDANTIC_DISABLE_PLUGINS": "logfire"})
    assert (default.returncode, default.stdout.strip()) == (0, "__all__")
    assert (chosen.returncode, chosen.stdout.strip()) == (0, "logfire")
