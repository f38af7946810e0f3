"""The example CI workflow runs staticflops without any ML framework."""

from pathlib import Path

import yaml

WORKFLOW = Path("examples/github/staticflops-diff.yml")


def test_workflow_installs_no_framework_and_posts_the_markdown_diff():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps = workflow["jobs"]["cost"]["steps"]
    commands = " ".join(step.get("run", "") for step in steps)
    assert not any(name in commands for name in ("torch", "tensorflow", "keras", "jax"))
    assert "staticflops diff --base" in commands and "--format markdown" in commands
    assert "staticflops check" in commands
    checkout = next(step for step in steps if step.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0  # the base revision must exist for `git show`


# ---- issue 21, item 9: the properties the two example workflows promise ---------------------

import json
import re
import shutil
import subprocess

import pytest

COMMENT = Path("examples/github/staticflops-comment.yml")


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def test_install_is_pinned_to_a_commit_of_a_repository():
    steps = _load(WORKFLOW)["jobs"]["cost"]["steps"]
    installs = [step["run"] for step in steps if "pip install" in step.get("run", "")]
    assert len(installs) == 1
    # a git commit (40 hex digits, or the placeholder the comment above it says to replace),
    # never a package name: `staticflops` is not published on PyPI
    assert re.fullmatch(r'pip install "git\+https://github\.com/[^/\s]+/staticflops@(COMMIT_SHA|[0-9a-f]{40})"',
                        installs[0])


def test_budgets_run_on_the_pull_request_after_the_artifact_is_saved():
    flow = _load(WORKFLOW)
    assert list(flow["on"]) == ["pull_request"]
    steps = flow["jobs"]["cost"]["steps"]
    upload = next(i for i, step in enumerate(steps) if step.get("uses", "").startswith("actions/upload-artifact"))
    check = next(i for i, step in enumerate(steps) if step.get("run", "").startswith("staticflops check"))
    assert upload < check  # a model over budget fails the job, and its comment is still posted
    assert "secrets." not in WORKFLOW.read_text()  # no secret is read (the comments say so in words)


def test_both_workflows_set_concurrency():
    for path in (WORKFLOW, COMMENT):
        assert _load(path)["concurrency"]["group"]


def _finder() -> str:
    script = _load(COMMENT)["jobs"]["comment"]["steps"][1]["run"]
    return re.search(r"--jq \\\n\s*'([^']+)'", script).group(1)


def test_the_comment_is_found_by_the_marker_staticflops_writes():
    from staticflops.report.review_markdown import MARKER

    script = _load(COMMENT)["jobs"]["comment"]["steps"][1]["run"]
    assert f"marker='{MARKER}'" in script and MARKER in _finder()


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq (gh's --jq is the same language)")
def test_the_comment_finder_selects_by_author_and_marker():
    comments = [
        {"id": 1, "user": {"login": "someone"}, "body": "quoting it: <!-- staticflops-diff -->"},
        {"id": 2, "user": {"login": "github-actions[bot]"}, "body": "another workflow's comment"},
        {"id": 3, "user": {"login": "github-actions[bot]"}, "body": "`mlp`: +1 FLOPs\n\n<!-- staticflops-diff -->\n"},
    ]
    found = subprocess.run(["jq", "-r", _finder()], input=json.dumps(comments), capture_output=True, text=True,
                           timeout=60)
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == ["3"]  # not a user quoting the marker, not the bot's other comments
