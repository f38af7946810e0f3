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
