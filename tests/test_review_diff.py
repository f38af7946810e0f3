"""`staticflops diff`: a real earlier commit of a test repository against the working tree."""

import json
import subprocess
import sys

import pytest

from review_helpers import MLP, MLP_FLOPS, MLP_PARAMS, WIDER, WIDER_FLOPS, commit, git, make_repo

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="needs git")


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def repo(tmp_path):
    """Commit 1: the MLP; commit 2: Linear(16, 16) inserted as body.2 at models/mlp.py:11."""
    make_repo(tmp_path)
    (tmp_path / "models" / "mlp.py").write_text(WIDER)
    commit(tmp_path, "wider")
    return tmp_path


def test_diff_shows_the_added_layer_with_its_location(repo):
    result = run("diff", "--base", "HEAD~1", "--format", "json", cwd=repo)
    assert result.returncode == 0, result.stderr
    model = json.loads(result.stdout)["models"][0]
    assert model["status"] == "changed"
    totals = {t["metric"]: t for t in model["totals"]}
    assert (totals["forward_flops"]["before"], totals["forward_flops"]["after"]) == (MLP_FLOPS, WIDER_FLOPS)
    assert totals["forward_flops"]["delta"] == 1024  # 2 * (2*16*16) MACs of the new Linear
    assert totals["params"]["delta"] == 272  # 16*16 + 16
    # Inserting into the Sequential shifts body.2 -> body.3 (and the ReLU): one added layer, no false changes
    assert [(c["name"], c["change"], c["location"]) for c in model["layers"]] == [
        ("body.2", "added", "models/mlp.py:11:13")]
    assert model["layers"][0]["after_shape"] == [2, 16]


def test_diff_never_touches_the_working_tree(repo):
    (repo / "models" / "mlp.py").write_text(WIDER.replace("width=16", "width=32"))
    before = git(repo, "status", "--porcelain")
    result = run("diff", "--base", "HEAD~1", "--format", "json", cwd=repo)
    assert result.returncode == 0
    assert git(repo, "status", "--porcelain") == before
    assert (repo / "models" / "mlp.py").read_text() == WIDER.replace("width=16", "width=32")
    # Linear(8,32) 512 + Linear(32,32) 2048 + Linear(32,4) 256 = 2816 MACs on 2x8 -> 5632 FLOPs
    totals = {t["metric"]: t for t in json.loads(result.stdout)["models"][0]["totals"]}
    assert totals["forward_flops"]["after"] == 5632


def test_diff_changed_layer_and_unchanged_model(repo):
    (repo / "models" / "mlp.py").write_text(WIDER.replace("nn.Linear(width, 4)", "nn.Linear(width, 8)"))
    model = json.loads(run("diff", "--format", "json", cwd=repo).stdout)["models"][0]
    # last Linear (body.3) 16->4 becomes 16->8: MACs 2*16*4 = 128 -> 2*16*8 = 256, +128 MACs = +256 FLOPs
    assert [(c["name"], c["change"], c["delta_flops"], c["delta_params"]) for c in model["layers"]] == [
        ("body.3", "changed", 256, 68)]  # params 16*4+4 = 68 -> 16*8+8 = 136
    commit(repo, "eight outputs")
    same = json.loads(run("diff", "--base", "HEAD", "--format", "json", cwd=repo).stdout)["models"][0]
    assert same["status"] == "unchanged" and same["layers"] == []


def test_markdown_summary_first_and_details_folded(repo):
    result = run("diff", "--base", "HEAD~1", "--format", "markdown", cwd=repo)
    lines = result.stdout.splitlines()
    # +1024 FLOPs of 1792 is +1.02 KFLOPs; 1024/768 = +133.3 %; params +272 of 212 = +128.3 %
    assert lines[0] == "`mlp`: +1.02 KFLOPs (+133.3%), +272 params (+128.3%)"
    assert lines[2].startswith("<details><summary>")
    assert "| `body.2` | `Linear` | added | +1.02 KFLOPs | +272 params | 2x16 | `models/mlp.py:11:13` |" in lines
    assert "</details>" in lines and lines[-1] == "<!-- staticflops-diff -->"


def test_exact_prints_raw_integers(repo):
    out = run("diff", "--base", "HEAD~1", "--exact", cwd=repo).stdout
    assert "mlp: +1024 FLOPs (+133.3%), +272 params (+128.3%)" in out
    assert "768 FLOPs" in out and "1792 FLOPs" in out


def test_model_missing_at_base_is_added(repo):
    (repo / "models" / "second.py").write_text(MLP)
    config = repo / "pyproject.toml"
    config.write_text(config.read_text() + '\n[[tool.staticflops.models]]\nname = "second"\n'
                      'path = "models/second.py"\ninputs = ["2x8"]\n')
    models = {m["name"]: m for m in json.loads(run("diff", "--format", "json", cwd=repo).stdout)["models"]}
    assert models["second"]["status"] == "added"
    assert models["mlp"]["status"] == "unchanged"
    assert "second: new model, 768 FLOPs, 212 params" in run("diff", cwd=repo).stdout


def test_unparseable_base_is_reported_not_raised(tmp_path):
    make_repo(tmp_path, model="class Broken(:\n")
    (tmp_path / "models" / "mlp.py").write_text(MLP)
    result = run("diff", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0
    model = json.loads(result.stdout)["models"][0]
    assert model["status"] == "error"
    assert model["errors"][0].startswith("base: models/mlp.py:1:14: error: syntax error")


def test_bad_revision_is_a_usage_error(repo):
    result = run("diff", "--base", "no-such-branch", cwd=repo)
    assert result.returncode == 1  # usage errors from the API exit 1 (issue 8)
    assert "unknown git revision 'no-such-branch'" in result.stderr and "Traceback" not in result.stderr


def test_symbolic_deltas(tmp_path):
    from staticflops.project.diff import subtract

    assert subtract(1792, 768) == 1024
    assert subtract("8178368512*B", "8000000000*B") == "178368512*B"
    assert subtract("12*B", "12*B") == 0
    assert subtract("12*B", "3*S") is None


def test_analyze_text_reads_no_file(tmp_path):
    from staticflops.api import analyze_text
    from review_helpers import MLP

    report = analyze_text(MLP, "models/not_on_disk.py", inputs=["2x8"])
    assert (report.totals.forward_flops, report.totals.params) == (MLP_FLOPS, MLP_PARAMS)
    assert report.layers[0].location.startswith("models/not_on_disk.py:")


def test_diff_follows_imports_at_the_base_revision(tmp_path):
    """Only an imported sibling module changes: the base side must read it at the base revision."""
    make_repo(tmp_path, model="from torch import nn\nfrom .blocks import Block\n\n\n"
                              "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.block = Block()\n\n    def forward(self, x):\n        return self.block(x)\n")
    (tmp_path / "models" / "__init__.py").write_text("")
    blocks = tmp_path / "models" / "blocks.py"
    blocks.write_text("from torch import nn\n\n\nclass Block(nn.Module):\n    def __init__(self):\n"
                      "        super().__init__()\n        self.fc = nn.Linear(8, 4)\n\n"
                      "    def forward(self, x):\n        return self.fc(x)\n")
    commit(tmp_path, "block")
    blocks.write_text(blocks.read_text().replace("nn.Linear(8, 4)", "nn.Linear(8, 6)"))
    result = run("diff", "--base", "HEAD", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    totals = {t["metric"]: t for t in json.loads(result.stdout)["models"][0]["totals"]}
    # Linear(8, 4) -> Linear(8, 6) on 2x8: 2*8*4 = 64 MACs -> 2*8*6 = 96 MACs; FLOPs 128 -> 192
    assert (totals["forward_flops"]["before"], totals["forward_flops"]["after"]) == (128, 192)
    # params 8*4 + 4 = 36 -> 8*6 + 6 = 54
    assert (totals["params"]["before"], totals["params"]["after"]) == (36, 54)


STACK = """\
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(16, 16), nn.ReLU()) for _ in range(depth)])
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        x = self.inp(x)
        for block in self.blocks:
            x = block(x)
        return self.out(x)
"""


@pytest.mark.parametrize("base_depth, depth, expected", [
    (2, 3, [("blocks.2", "added")]),
    (3, 1, [("blocks.1", "removed"), ("blocks.2", "removed")]),
])
def test_one_more_identical_block_is_the_last_index(tmp_path, base_depth, depth, expected):
    """Blocks appended to (or dropped from) a run of identical ones are the last indices, as their
    names say, not the first with every later one renamed.  Each block: Linear(16, 16) on 2 rows,
    2*16*16 = 512 MACs -> 1,024 FLOPs and 16*16 + 16 = 272 params."""
    make_repo(tmp_path, model=STACK.replace("depth=2", f"depth={base_depth}"))
    (tmp_path / "models" / "mlp.py").write_text(STACK.replace("depth=2", f"depth={depth}"))
    result = run("diff", "--base", "HEAD", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    layers = json.loads(result.stdout)["models"][0]["layers"]
    assert [(c["name"], c["change"]) for c in layers] == expected
    sign = 1 if depth > base_depth else -1
    assert [(c["delta_flops"], c["delta_params"]) for c in layers] == [(sign * 1024, sign * 272)] * len(expected)
