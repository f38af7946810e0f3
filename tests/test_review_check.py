"""`staticflops check`: budgets pass and fail, unknowns, the cache, the grown layers."""

import json
import subprocess
import sys
import textwrap

import pytest

from review_helpers import MLP, MLP_FLOPS, WIDER, WIDER_FLOPS, WIDER_PARAMS, make_repo

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="needs git")


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True, cwd=cwd)


def test_under_budget_passes(tmp_path):
    make_repo(tmp_path, flops="1K", params="300")
    result = run("check", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    model = json.loads(result.stdout)["models"][0]
    lines = {line["metric"]: line for line in model["budgets"]}
    assert lines["forward_flops"]["measured"] == MLP_FLOPS and lines["forward_flops"]["budget"] == 1000
    # headroom (1000 - 768) / 1000 = 23.2 %; params (300 - 212) / 300 = 29.33 %
    assert lines["forward_flops"]["headroom_percent"] == pytest.approx(23.2)
    assert lines["params"]["headroom_percent"] == pytest.approx(100 * 88 / 300)
    assert model["status"] == "pass"


def test_overrun_exits_1_and_names_the_layer_that_grew(tmp_path):
    make_repo(tmp_path, flops="1K", params="300")
    (tmp_path / "models" / "mlp.py").write_text(WIDER)
    result = run("check", cwd=tmp_path)
    assert result.returncode == 1
    out = result.stdout
    assert f"forward_flops is over budget: {WIDER_FLOPS:,} > 1,000 (+792)" in out
    assert f"params is over budget: {WIDER_PARAMS:,} > 300 (+184)" in out
    assert "FAIL" in out and "budget check failed" in out
    # the budget line was committed with the first model: the inserted Linear(16, 16), line 11
    assert "grew most since" in out
    assert "models/mlp.py:11:13: body.2 (Linear) +1.02 KFLOPs (new)" in out


def test_overrun_of_exact_budget_is_raw_integers(tmp_path):
    make_repo(tmp_path, flops="767", params="212")
    result = run("check", "--exact", cwd=tmp_path)
    # 768 > 767 by one FLOP; params exactly at budget passes
    assert result.returncode == 1
    assert "768 FLOPs" in result.stdout and "767 FLOPs" in result.stdout
    assert "forward_flops is over budget: 768 > 767 (+1)" in result.stdout
    assert "params is over budget" not in result.stdout


UNRESOLVED = MLP.replace("from torch import nn\n", "from torch import nn\nfrom mylib import mystery\n").replace(
    "return self.body(x)", "return mystery(self.body(x))")


def test_unknowns_fail_unless_allowed(tmp_path):
    make_repo(tmp_path, flops="1K", params="300", model=UNRESOLVED)
    failed = run("check", cwd=tmp_path)
    assert failed.returncode == 1
    assert "could not be resolved" in failed.stdout
    assert "models/mlp.py:3:1: not resolved: import of `mylib`: not a file of the analysed project" in failed.stdout
    config = tmp_path / "pyproject.toml"
    config.write_text(config.read_text().replace('inputs = ["2x8"]', 'inputs = ["2x8"]\nallow_unknown = true'))
    assert run("check", cwd=tmp_path).returncode == 0


def test_analysis_error_fails_with_location(tmp_path):
    make_repo(tmp_path, model=MLP.replace("nn.Linear(width, 4)", "nn.Linear(5, 4)"))
    result = run("check", cwd=tmp_path)
    assert result.returncode == 1
    assert "models/mlp.py:15:16: error: Linear expects 5 input features, got 16 (model mlp)" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_training_budget_is_checked_or_not_available(tmp_path):
    make_repo(tmp_path)
    config = tmp_path / "pyproject.toml"
    config.write_text(config.read_text().replace("params = 300", 'params = 300, training_flops = "1M"'))
    result = json.loads(run("check", "--format", "json", cwd=tmp_path).stdout)
    line = next(b for b in result["models"][0]["budgets"] if b["metric"] == "training_flops")
    assert line["status"] in ("pass", "not available")
    if line["status"] == "not available":  # this build computes no training FLOPs: said, not failed
        assert line["measured"] is None and result["passed"]


def test_paths_select_models_and_the_config_selects_all(tmp_path):
    make_repo(tmp_path)
    (tmp_path / "other.py").write_text("x = 1\n")
    none = run("check", "other.py", cwd=tmp_path)
    assert none.returncode == 0 and "no configured model reads the given files" in none.stdout
    assert "mlp" in run("check", "models/mlp.py", cwd=tmp_path).stdout
    assert "mlp" in run("check", "pyproject.toml", cwd=tmp_path).stdout


def test_cache_hit_parses_nothing(tmp_path, monkeypatch):
    from staticflops import project
    from staticflops.frontend import source

    make_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    first = project.run_check()
    assert first.passed and not first.models[0].cached
    assert (tmp_path / ".staticflops_cache" / ".gitignore").read_text().strip().endswith("*")

    def parse_forbidden(*args, **kwargs):
        raise AssertionError("a cached check parsed a file")

    monkeypatch.setattr(source, "parse_source", parse_forbidden)
    second = project.run_check()
    assert second.models[0].cached and second.passed
    assert second.models[0].budgets == first.models[0].budgets
    # one changed byte in the model invalidates the entry
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models" / "mlp.py").write_text(MLP + "\n")
    assert not project.run_check().models[0].cached


def test_missing_config_is_a_usage_error(tmp_path):
    result = run("check", cwd=tmp_path)
    assert result.returncode == 1  # usage errors from the API exit 1 (issue 8)
    assert "no staticflops config found" in result.stderr and "Traceback" not in result.stderr


def test_many_models_in_parallel_match_serial(tmp_path):
    make_repo(tmp_path)
    models = "".join(textwrap.dedent(f"""
        [[tool.staticflops.models]]
        name = "mlp{width}"
        path = "models/mlp.py"
        kwargs = {{ width = {width} }}
        inputs = ["2x8"]
        budget = {{ params = 10_000 }}
    """) for width in range(1, 7))
    (tmp_path / "pyproject.toml").write_text(models)
    result = json.loads(run("check", "--format", "json", "--jobs", "3", cwd=tmp_path).stdout)
    # Linear(8, w) + Linear(w, 4): params 8w + w + 4w + 4 = 13w + 4
    assert [m["budgets"][0]["measured"] for m in result["models"]] == [13 * w + 4 for w in range(1, 7)]


def test_check_markdown_names_the_failure(tmp_path):
    make_repo(tmp_path, flops="1K", params="300")
    (tmp_path / "models" / "mlp.py").write_text(WIDER)
    result = run("check", "--format", "markdown", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "**staticflops check**: Budget check failed: `mlp` (0 of 1 pass)"
    assert "| `mlp` | forward_flops | 1.79 KFLOPs | 1.00 KFLOPs | -79.2% | fail |" in lines  # (1000-1792)/1000
