"""A non-editable install must find the rules: the wheel carries them inside the package."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from review_helpers import make_repo
from staticflops.rulesets.loader import builtin_names

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel pip builds from this checkout (an isolated build: hatchling and the build hook)."""
    folder = tmp_path_factory.mktemp("wheel")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(ROOT)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return next(folder.glob("staticflops-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The wheel unpacked: what an install puts in site-packages."""
    folder = tmp_path_factory.mktemp("unpacked")
    zipfile.ZipFile(wheel).extractall(folder)
    return folder


def test_wheel_contains_rule_files(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "staticflops/rules_data/standard.yaml" in names
    assert "staticflops/frontend/torch/stubs/transformer.pyi" in names
    assert "staticflops/frontend/overlays/hub_guard.pyi" in names  # from_pretrained's model
    assert "staticflops/frontend/stdlib/stubs/uuid.pyi" in names
    assert "staticflops/frontend/stdlib/stubs/subprocess.pyi" in names  # every program missing
    assert "staticflops/report/report.schema.json" in names  # what `staticflops schema` prints
    assert not any(n.startswith("samples/") or n.startswith("tests/") for n in names)
    for name in builtin_names():  # compiled by hatch_build.py
        assert f"staticflops/rules_data/compiled/{name}.json" in names


def test_installed_rule_sets_need_no_yaml(installed, tmp_path):
    code = ("import sys, staticflops; r = staticflops.analyze(sys.argv[1], inputs=['1x1x28x28']); "
            "print(staticflops.__file__, r.totals.forward_flops, 'yaml' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT / "samples" / "lenet5.py")], capture_output=True,
                          text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed)})
    where, flops, yaml_imported = done.stdout.split()
    assert where.startswith(str(installed)), done.stderr  # the unpacked wheel, not this checkout
    import staticflops  # the same figure as this checkout computes from the YAML
    assert int(flops) == staticflops.analyze(ROOT / "samples" / "lenet5.py", inputs=["1x1x28x28"]).totals.forward_flops
    assert yaml_imported == "False"


def test_start_up_writes_nothing_outside_the_project(installed, tmp_path):
    # README "Security": the only file staticflops writes outside the project is the caches'
    # signing secret in the user cache folder
    home = tmp_path / "home"
    home.mkdir()
    project = make_repo(tmp_path / "project")
    env = {key: value for key, value in os.environ.items() if key != "STATICFLOPS_CACHE_DIR"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PYTHONPATH=str(installed))
    cli = "import sys; sys.argv[0] = 'staticflops'; from staticflops.cli.entry import main; main()"
    for args in (["analyze", "models/mlp.py", "--input", "2x8"], ["check"], ["check"], ["rules", "list"],
                 ["analyze", "models/mlp.py", "--input", "2x8", "--rules", "thop"]):
        done = subprocess.run([sys.executable, "-c", cli, *args], capture_output=True, text=True, cwd=project, env=env)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    assert written == [".cache/staticflops/results-key"]
