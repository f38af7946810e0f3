"""Issue 17, findings 9, 10, 11 and 14: what a pull request's names and files can do to our
output.  Each test is a minimal reproduction of what a PR author controls (a model file, a
config, a rule file) run through the command line, as CI runs it."""

import subprocess
import sys
import textwrap

import pytest

NFKC_MODEL = textwrap.dedent('''
    import torch.nn as ｎｎ

    width = 8
    ｗｉｄｔｈ = 64
    depth = 1


    def ｓｅｔ_depth():
        global ｄｅｐｔｈ
        ｄｅｐｔｈ = 2


    set_depth()


    class ＭＬＰ(nn.Module):
        def __init__(self, ｈｉｄｄｅｎ=4):
            super().__init__()
            scale = 1

            def ｂｕｍｐ():
                nonlocal ｓｃａｌｅ
                ｓｃａｌｅ = 2

            bump()
            self.ｆｃ = nn.Linear(width, hidden * scale)
            self.fc2 = nn.Linear(in_features=hidden * scale, ｏｕｔ_ｆｅａｔｕｒｅｓ=width)

        def forward(self, x):
            for _ in range(depth):
                x = self.fc2(self.ｆｃ(x))
            return x


    def build():
        return ＭＬＰ(ｈｉｄｄｅｎ=16)
''')


def run(*args, cwd=None, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "staticflops", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


# ---- finding 9: identifiers are NFKC-normalised, as Python does -----------------------------

def test_full_width_identifiers_are_the_names_python_binds(tmp_path):
    """Every kind of name in full-width letters: an import alias (`ｎｎ`), a module variable
    (`ｗｉｄｔｈ = 64` rebinds `width`), `global`, a function and a class name, a parameter
    (`ｈｉｄｄｅｎ`), `nonlocal`, attributes (`self.ｆｃ`) and keyword arguments, in a definition
    and in calls (`ＭＬＰ(ｈｉｄｄｅｎ=16)`, `ｏｕｔ_ｆｅａｔｕｒｅｓ=width`).
    By hand, as Python runs it: width = 64, depth = 2, hidden = 16, scale = 2:
      fc  = Linear(64, 32): 64*32 = 2,048 MACs, 64*32 + 32 = 2,080 params
      fc2 = Linear(32, 64): 32*64 = 2,048 MACs, 32*64 + 64 = 2,112 params
      forward: depth 2 x (2,048 + 2,048) = 8,192 MACs = 16,384 FLOPs (standard: 2 per MAC)
      params: 2,080 + 2,112 = 4,192.
    (torch 2.13.0's FlopCounterMode on this file, run by Python: 16384 FLOPs, 4192 params.)
    Before: `ｗｉｄｔｈ` and `width` were two names; the model could not be chosen or was priced
    at width 8."""
    import json

    path = tmp_path / "model.py"
    path.write_text(NFKC_MODEL, encoding="utf-8")
    result = run("analyze", path, "--input", "1x64", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["model"] == "build"
    assert report["totals"]["forward_flops"] == 16_384
    assert report["totals"]["macs"] == 8_192
    assert report["totals"]["params"] == 4_192
    assert report["totals"]["complete"] is True
    assert [layer["name"] for layer in report["layers"] if layer["kind"] == "module"][-2:] == ["fc", "fc2"]
