"""The hooks in .pre-commit-hooks.yaml, run by the real `pre-commit` tool (`pre-commit try-repo`):
it builds a virtualenv, installs this repository into it and runs the hook in a temporary
git repository with a configured model, as a user's `git commit` would."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from review_helpers import MLP, WIDER, git, make_repo

ROOT = Path(__file__).resolve().parent.parent

try:
    import pre_commit  # noqa: F401
    HAVE_PRE_COMMIT = True
except ImportError:
    HAVE_PRE_COMMIT = False

pytestmark = pytest.mark.skipif(not HAVE_PRE_COMMIT, reason="needs the pre-commit package (pip install pre-commit, "
                                                            "or pip install '.[test]')")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    """One hook environment for the module: pre-commit installs staticflops into it once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(repo: Path, home: Path, hook: str, *files: str):
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--files", *files],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=900)


def test_check_hook_fails_over_budget_and_passes_under(tmp_path, pre_commit_home):
    repo = make_repo(tmp_path, flops="1K", params="300")  # the MLP: 768 FLOPs, 212 params
    (repo / "models" / "mlp.py").write_text(WIDER)  # 1,792 FLOPs, 484 params
    git(repo, "add", "-A")
    over = try_repo(repo, pre_commit_home, "staticflops-check", "models/mlp.py")
    assert over.returncode == 1, over.stdout + over.stderr
    assert "staticflops budget check" in over.stdout and "Failed" in over.stdout
    assert "models/mlp.py: mlp: forward_flops is over budget: 1,792 > 1,000 (+792)" in over.stdout
    assert "models/mlp.py:11:13: body.2 (Linear)" in over.stdout  # the layer that grew since the budget

    (repo / "models" / "mlp.py").write_text(MLP)
    git(repo, "add", "-A")
    under = try_repo(repo, pre_commit_home, "staticflops-check", "models/mlp.py")
    assert under.returncode == 0, under.stdout + under.stderr
    assert "Passed" in under.stdout


def test_diff_hook_is_informational(tmp_path, pre_commit_home):
    repo = make_repo(tmp_path, flops="1K", params="300")
    (repo / "models" / "mlp.py").write_text(WIDER)
    git(repo, "add", "-A")
    result = try_repo(repo, pre_commit_home, "staticflops-diff", "models/mlp.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "mlp: +1.02 KFLOPs (+133.3%), +272 params (+128.3%)" in result.stdout
