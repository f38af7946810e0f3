"""A throw-away git repository with a configured model, for the check/diff/pre-commit tests."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Linear(8, 16) -> ReLU -> Linear(16, 4) on a 2x8 input:
#   MACs 2*8*16 + 2*16*4 = 256 + 128 = 384 -> FLOPs 768 (standard: 2 per MAC)
#   params (8*16 + 16) + (16*4 + 4) = 144 + 68 = 212
MLP = textwrap.dedent("""\
    import torch
    from torch import nn


    class MLP(nn.Module):
        def __init__(self, width=16):
            super().__init__()
            self.body = nn.Sequential(
                nn.Linear(8, width),
                nn.ReLU(),
                nn.Linear(width, 4),
            )

        def forward(self, x):
            return self.body(x)
""")
MLP_FLOPS, MLP_PARAMS = 768, 212

# The same with Linear(16, 16) inserted at line 11, as body.2:
#   + 2*16*16 = 512 MACs -> +1,024 FLOPs (1,792 in all); + 16*16 + 16 = 272 params (484 in all)
WIDER = MLP.replace("            nn.ReLU(),\n", "            nn.ReLU(),\n            nn.Linear(width, width),\n")
WIDER_FLOPS, WIDER_PARAMS = 1792, 484

PYPROJECT = textwrap.dedent("""\
    [project]
    name = "demo"

    [[tool.staticflops.models]]
    name = "mlp"
    path = "models/mlp.py"
    inputs = ["2x8"]
    budget = {{ forward_flops = "{flops}", params = {params} }}
""")


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return result.stdout.strip()


def make_repo(root: Path, flops: str = "1K", params: str = "300", model: str = MLP) -> Path:
    """A git repository with models/mlp.py and a pyproject budget, committed once."""
    (root / "models").mkdir(parents=True)
    (root / "models" / "mlp.py").write_text(model)
    (root / "pyproject.toml").write_text(PYPROJECT.format(flops=flops, params=params))
    git(root, "init", "-q")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "test")
    git(root, "config", "commit.gpgsign", "false")
    commit(root, "first model")
    return root


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


# A project model importing a Linear(8, 4) block from a library folder (`vendlib`): what the
# cache tests change to see a dependency outside the project noticed.
VENDORED = textwrap.dedent("""\
    from torch import nn


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(x)
""")
USES_VENDORED = textwrap.dedent("""\
    import torch
    from torch import nn
    from vendlib import Block


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()

        def forward(self, x):
            return self.block(x)
""")


# The console script pip installed, and the full command line run without it (never the fast path).
SCRIPT = Path(sys.executable).parent / "staticflops"
HEAVY = ("libcst", "pydantic", "rich", "typer")
FULL = "import sys; sys.argv[0] = 'staticflops'; from staticflops.cli.app import main; main()"


def run_console(*args, cwd):
    """The console script under ``-X importtime``: (result, the modules it imported by their full
    names, the lines of its stderr that are not import times)."""
    if not SCRIPT.is_file():
        pytest.skip("the console script is not installed")
    result = subprocess.run([sys.executable, "-X", "importtime", str(SCRIPT), *args], capture_output=True,
                            text=True, cwd=cwd)
    imported, errors = set(), []
    for line in result.stderr.splitlines():
        if line.startswith("import time:"):
            name = line.rsplit("|", 1)[-1].strip()
            if name != "package":  # the header line
                imported.add(name)
        else:
            errors.append(line)
    return result, imported, errors


def run_full(*args, cwd):
    return subprocess.run([sys.executable, "-c", FULL, *args], capture_output=True, text=True, cwd=cwd)
