"""Hostile and broken input ends within bounds with a located message, never a traceback."""

import subprocess
import sys
import textwrap

import pytest

import staticflops

MODEL = textwrap.dedent('''
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self, mode=0):
            super().__init__()
            if mode == 0:
                while True:
                    pass
            elif mode == 1:
                for i in range(10**12):
                    pass
            elif mode == 2:
                x = [0] * 10**10
            elif mode == 3:
                x = 2 ** 10**9
            elif mode == 4:
                self.me = Net(mode=4)
            elif mode == 5:
                self.f(1)
            self.fc = nn.Linear(2, 2)

        def f(self, n):
            return self.g(n)

        def g(self, n):
            return self.f(n)

        def forward(self, x):
            return self.fc(x)
''')


@pytest.mark.parametrize("mode, where, message", [
    (0, ":9:", "evaluation step budget"),         # while True: pass (blamed on the `while`, line 9)
    (1, ":12:", "over the loop budget"),            # range(10**12)
    (2, ":15:", "over the limit"),                  # [0] * 10**10
    (3, ":17:", "(--max-int-bits)"),              # 2 ** 10**9
    (4, ":19:", "call depth over 150"),             # a module that contains itself
    (5, ":25:", "call depth over 150"),             # mutually recursive helpers
])
def test_runaway_code_is_stopped_with_its_location(tmp_path, mode, where, message):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    result = subprocess.run([sys.executable, "-m", "staticflops", "analyze", str(path), "--input", "1x2",
                             "--kwargs", f'{{"mode": {mode}}}'], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert f"{path}{where}" in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr


def test_rule_formula_with_code_is_rejected_with_its_position(tmp_path):
    rules = tmp_path / "evil.yaml"
    rules.write_text("name: evil\nextends: standard\nrules:\n  linear:\n    macs: __import__('os').system('touch pwned')\n")
    with pytest.raises(staticflops.AnalysisError) as error:
        staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"], rules=str(rules))
    assert str(error.value.location) == f"{rules}:5:11"
    assert "`Call` is not allowed" in error.value.message or "only these functions" in error.value.message
    assert not (tmp_path / "pwned").exists()


def test_yaml_alias_bomb_is_refused(tmp_path):
    lines = ["name: bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]"
              for i in range(1, 9)]
    rules = tmp_path / "bomb.yaml"
    rules.write_text("\n".join(lines) + "\n")
    with pytest.raises(staticflops.AnalysisError, match="expands to over"):
        staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"], rules=str(rules))


def test_malformed_rule_file_names_the_key(tmp_path):
    rules = tmp_path / "bad.yaml"
    rules.write_text("name: bad\nextends: standard\nrules:\n  linear:\n    flop: 2 * macs\n")
    with pytest.raises(staticflops.AnalysisError) as error:
        staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"], rules=str(rules))
    assert "rules.linear.flop" in error.value.message and error.value.location.line == 5
