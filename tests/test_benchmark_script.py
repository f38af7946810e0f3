"""Issue 9's promises that are not timings: `--help` loads no heavy module, and the benchmark
script runs where torch is absent, saying so (timings are the script's job, never a test's)."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("libcst", "pydantic", "yaml", "rich.table")


def test_help_imports_no_heavy_module():
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "staticflops", "--help"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0 and "analyze" in result.stdout
    imported = {m.group(1) for m in re.finditer(r"^import time:.*\|\s*(\S+)$", result.stderr, re.MULTILINE)}
    assert "staticflops.cli.app" in imported  # the listing is read right
    assert not [name for name in imported if name.split(".")[0] in HEAVY or name in HEAVY]


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed: the rows would run")
def test_benchmark_without_torch_skips_the_torch_rows_with_a_message():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    result = subprocess.run([sys.executable, "benchmarks/run.py", "--repeat", "1", "--skip", "depth,folder,help,check",
                             "--from-checkout"],
                            capture_output=True, text=True, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr
    assert "torch rows skipped" in result.stdout and "--torch-python" in result.stdout
    rows = [line.split()[0] for line in result.stdout.splitlines() if re.search(r"\s\d+\.\d{3}\s+\d+\.\d{3}\s", line)]
    # ours, the no-store row, the floor, the second analysis (parsed cache); no torch row
    assert rows == ["staticflops", "the", "floor:", "second"]
