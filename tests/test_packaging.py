"""A non-editable install must find the rules: the wheel carries them inside the package."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_wheel_contains_rule_files(tmp_path):
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    wheel = next(tmp_path.glob("staticflops-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "staticflops/rules_data/standard.yaml" in names
    assert "staticflops/frontend/torch/stubs/transformer.pyi" in names
    assert "staticflops/report/report.schema.json" in names  # what `staticflops schema` prints
    assert not any(n.startswith("samples/") or n.startswith("tests/") for n in names)
