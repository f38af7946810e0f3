"""Every command (`analyze`, `check`, `diff`, `compare`) reads a hostile project without
running any of it: code at module level, in a class body, in `__init__`, in `forward`, in
an imported sibling module and in default arguments would write a marker file or connect
to a listening socket if executed.  No marker appears and no connection arrives."""

import json
import socket
import subprocess
import sys
import textwrap

import pytest

from review_helpers import commit, git

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="needs git")

SIBLING = textwrap.dedent('''\
    import socket
    open({marker!r} + ".sibling", "w").write("ran")
    socket.create_connection(("127.0.0.1", {port}))
    from torch import nn


    class Block(nn.Module):
        def __init__(self, width):
            super().__init__()
            open({marker!r} + ".block", "w").write("ran")
            self.fc = nn.Linear(width, width)

        def forward(self, x):
            open({marker!r} + ".block_forward", "w").write("ran")
            return self.fc(x)
''')

MODEL = textwrap.dedent('''\
    import os
    import socket
    import subprocess
    import torch
    from torch import nn
    from .layers import Block

    open({marker!r} + ".module", "w").write("ran")
    os.system("touch " + {marker!r} + ".system")
    subprocess.run(["touch", {marker!r} + ".subprocess"])


    def side_effect(tag):
        open({marker!r} + "." + tag, "w").write("ran")
        socket.create_connection(("127.0.0.1", {port}))
        return 8


    class MLP(nn.Module):
        open({marker!r} + ".classbody", "w").write("ran")

        def __init__(self, width=side_effect("default")):
            super().__init__()
            open({marker!r} + ".init", "w").write("ran")
            __import__("os").system("touch " + {marker!r} + ".dunder")
            self.block = Block(width)
            self.head = nn.Linear(width, 4)

        def forward(self, x):
            open({marker!r} + ".forward", "w").write("ran")
            socket.create_connection(("127.0.0.1", {port}))
            return self.head(self.block(x))
''')

# Block = Linear(8, 8), head = Linear(8, 4) on 2x8:
#   MACs 2*8*8 + 2*8*4 = 128 + 64 = 192 -> 384 FLOPs (2 per MAC); params 8*8+8 + 8*4+4 = 72 + 36 = 108
FLOPS, PARAMS = 384, 108

PYPROJECT = textwrap.dedent('''\
    [[tool.staticflops.models]]
    name = "mlp"
    path = "models/mlp.py"
    inputs = ["2x8"]
    budget = { forward_flops = "1K", params = 200 }
    allow_unknown = true
''')


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture
def hostile(tmp_path, listener):
    """A git repository whose model would act on its surroundings; markers go to a separate directory."""
    markers = tmp_path / "markers"
    markers.mkdir()
    repo = tmp_path / "repo"
    (repo / "models").mkdir(parents=True)
    fill = {"marker": str(markers / "m"), "port": listener.getsockname()[1]}
    (repo / "models" / "__init__.py").write_text(f"open({str(markers / 'm')!r} + '.package', 'w').write('ran')\n")
    (repo / "models" / "layers.py").write_text(SIBLING.format(**fill))
    (repo / "models" / "mlp.py").write_text(MODEL.format(**fill))
    (repo / "pyproject.toml").write_text(PYPROJECT)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    git(repo, "config", "commit.gpgsign", "false")
    commit(repo, "hostile model")
    (repo / "models" / "mlp.py").write_text(MODEL.format(**fill).replace("nn.Linear(width, 4)", "nn.Linear(width, 2)"))
    return repo, markers


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def assert_nothing_ran(markers, listener):
    assert list(markers.iterdir()) == [], "analysed code ran"
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected


def test_analyze_never_executes(hostile, listener):
    repo, markers = hostile
    result = run("analyze", "models/mlp.py", "--input", "2x8", "--format", "json", cwd=repo)
    assert result.returncode == 0, result.stderr
    totals = json.loads(result.stdout)["totals"]
    # the working tree's head is Linear(8, 2): 2*8*8 + 2*8*2 = 160 MACs = 320 FLOPs; params 72 + 18 = 90
    assert (totals["forward_flops"], totals["params"]) == (320, 90)
    assert_nothing_ran(markers, listener)


def test_check_never_executes(hostile, listener):
    repo, markers = hostile
    result = run("check", "--no-cache", "--format", "json", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    budgets = {line["metric"]: line["measured"] for line in json.loads(result.stdout)["models"][0]["budgets"]}
    assert budgets == {"forward_flops": 320, "params": 90}  # the working tree's model, as in analyze
    assert_nothing_ran(markers, listener)


def test_diff_never_executes(hostile, listener):
    repo, markers = hostile
    result = run("diff", "--no-cache", "--format", "json", cwd=repo)
    assert result.returncode == 0, result.stderr
    totals = {t["metric"]: t for t in json.loads(result.stdout)["models"][0]["totals"]}
    assert (totals["forward_flops"]["before"], totals["forward_flops"]["after"]) == (FLOPS, 320)
    assert (totals["params"]["before"], totals["params"]["after"]) == (PARAMS, 90)
    assert_nothing_ran(markers, listener)


def test_compare_never_executes(hostile, listener):
    repo, markers = hostile
    result = run("compare", "models/mlp.py", "--input", "2x8", "--rules", "standard", "--rules", "thop",
                 "--format", "json", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert '"320"' in result.stdout or ": 320" in result.stdout  # standard: 160 MACs x 2
    assert_nothing_ran(markers, listener)
