"""Issue 17, findings 4 and 5: a pull request controls every file, name and symlink of the
checkout, so reads must stay inside the project and never start on a special or huge file.

Each test is a minimal PR reproduction run as the real command in a subprocess (generous
timeouts; address space capped with RLIMIT_AS where memory is the point).  The reads all go
through ``staticflops/files.py``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from staticflops.files import RefusedRead, project_root, read_file, read_limit
from staticflops.rulesets.loader import builtin_rules_dir

SECRET = "hunter2_TOPSECRET_0451"  # in a file outside the project: must never be printed
MEMORY_CAP = 1536 * 1024 * 1024  # 1.5 GiB of address space: a normal run fits (~1.1 GiB with its 512 MiB thread stack)
TIMEOUT = 120  # seconds; every refusal below takes about one second


def _cap_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run(cwd: Path, *args: str, capped: bool = False, user_cache: str = "") -> subprocess.CompletedProcess:
    # without a user cache folder there is no signing
    # secret, so no results cache either (project/cache.py)
    env = {**os.environ, "STATICFLOPS_CACHE_DIR": user_cache}
    return subprocess.run([sys.executable, "-m", "staticflops", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, env=env, preexec_fn=_cap_memory if capped else None)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main",
                    *args], cwd=cwd, check=True, capture_output=True, timeout=TIMEOUT)


MODEL = """\
import torch.nn as nn
{imports}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.add_module(SECRET_KEY, nn.Linear(4, 4))

    def forward(self, x):
        return getattr(self, SECRET_KEY)(x)
"""


def config(path: str = "models/net.py", extra: str = "") -> str:
    # line 3, column 11 is where the path's value starts: 4 spaces + "path: " = 10 characters before it
    return f"models:\n  - name: net\n    path: {path}\n    inputs: 1x4\n    allow_unknown: true\n{extra}"


@pytest.fixture
def layout(tmp_path):
    """tmp/outside/creds.py holds the secret; tmp/proj is the checkout (config at its root)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "__init__.py").write_text("")
    (outside / "creds.py").write_text(f'SECRET_KEY = "{SECRET}"\n')
    project = tmp_path / "proj"
    (project / "models").mkdir(parents=True)
    (project / "staticflops.yaml").write_text(config())
    return project


# ---- finding 4: reads outside the project ----------------------------------------------------

def test_symlinked_secret_never_reaches_any_output(layout):
    (layout / "models" / "settings.py").symlink_to(layout.parent / "outside" / "creds.py")
    (layout / "models" / "net.py").write_text(MODEL.format(imports="from settings import SECRET_KEY"))
    git(layout, "init", "-q")
    git(layout, "add", "-A")
    git(layout, "commit", "-qm", "pr")
    outputs = {
        "analyze": run(layout, "analyze", "models/net.py", "-i", "1x4"),
        "analyze json": run(layout, "analyze", "models/net.py", "-i", "1x4", "-f", "json"),
        "analyze markdown": run(layout, "analyze", "models/net.py", "-i", "1x4", "-f", "markdown"),
        "folder": run(layout, "analyze", "models", "-i", "1x4", "-f", "json"),
        "check": run(layout, "check", "--no-cache"),
        "check markdown": run(layout, "check", "--no-cache", "-f", "markdown"),
        "diff markdown": run(layout, "diff", "--base", "HEAD", "--no-cache", "-f", "markdown"),
        "diff json": run(layout, "diff", "--base", "HEAD", "--no-cache", "-f", "json"),
    }
    for name, result in outputs.items():
        assert SECRET not in result.stdout + result.stderr, name
        assert "internal error" not in result.stderr, name
    unknown = json.loads(outputs["analyze json"].stdout)["unknown"]
    assert unknown[0]["location"] == "models/net.py:2:1"  # the import line
    assert "outside the project" in unknown[0]["what"]


def test_the_same_secret_inside_the_project_is_a_layer_name(layout):
    """The control for the test above: the scenario does leak when the file may be read."""
    (layout / "models" / "settings.py").write_text(f'SECRET_KEY = "{SECRET}"\n')
    (layout / "models" / "net.py").write_text(MODEL.format(imports="from settings import SECRET_KEY"))
    result = run(layout, "analyze", "models/net.py", "-i", "1x4", "-f", "json")
    assert result.returncode == 0, result.stderr
    assert [layer["name"] for layer in json.loads(result.stdout)["layers"]] == [SECRET]


@pytest.mark.parametrize("path", ["/etc/passwd", "../../x"])
def test_config_path_outside_the_project_is_a_located_error(layout, path):
    (layout.parent.parent / "x").write_text("root:x:0:0:secret\n")  # `../../x` from the project root exists
    (layout / "staticflops.yaml").write_text(config(path))
    for command in (["check"], ["diff", "--base", "HEAD"]):
        result = run(layout, *command)
        assert result.returncode == 1, result.stderr
        assert "staticflops.yaml:3:11: `models.0.path`" in result.stderr
        assert "outside the project" in result.stderr
        assert "root:" not in result.stdout + result.stderr


def test_config_path_through_a_symlink_out_is_a_located_error(layout):
    (layout / "models" / "net.py").symlink_to(layout.parent / "outside" / "creds.py")
    result = run(layout, "check")
    assert result.returncode == 1
    assert "staticflops.yaml:3:11: `models.0.path`: models/net.py is outside the project" in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_relative_import_above_the_root_is_unknown_and_analyze_agrees_with_check(layout):
    # models/net.py -> `...` is the folder above the project root, where outside/creds.py is
    (layout / "models" / "net.py").write_text(MODEL.format(imports="from ...outside.creds import SECRET_KEY"))
    analysed = run(layout, "analyze", "models/net.py", "-i", "1x4", "-f", "json")
    checked = run(layout, "check", "--no-cache", "-f", "json")
    assert analysed.returncode == 0 and checked.returncode == 0, analysed.stderr + checked.stderr
    assert SECRET not in analysed.stdout + checked.stdout
    from_analyze = json.loads(analysed.stdout)["unknown"]
    from_check = json.loads(checked.stdout)["models"][0]["unknown"]
    assert from_analyze == from_check
    assert from_analyze[0]["location"] == "models/net.py:2:1"
    assert "outside the project" in from_analyze[0]["what"]


RULES = "name: mine\nextends: standard\n"


@pytest.mark.parametrize("where", ["project", "model"])
def test_config_rules_outside_the_project_is_a_located_error(layout, where):
    (layout.parent.parent / "x.yaml").write_text(RULES)  # exists: only the place is wrong
    (layout / "models" / "net.py").write_text(MODEL.format(imports="SECRET_KEY = 'fc'"))
    if where == "project":  # line 1: `rules: ` is 7 characters
        (layout / "staticflops.yaml").write_text("rules: ../../x.yaml\n" + config())
        expected = "staticflops.yaml:1:8: `rules`"
    else:  # line 6, under the model: 4 spaces + `rules: ` = 11 characters
        (layout / "staticflops.yaml").write_text(config(extra="    rules: ../../x.yaml\n"))
        expected = "staticflops.yaml:6:12: `models.0.rules`"
    result = run(layout, "check")
    assert result.returncode == 1
    assert expected in result.stderr and "outside the project" in result.stderr


def test_config_rules_name_that_climbs_is_a_located_error(layout):
    (layout / "staticflops.yaml").write_text("rules: ../../x\n" + config())
    result = run(layout, "check")
    assert result.returncode == 1
    assert "staticflops.yaml:1:8: `rules`: ../../x is neither a built-in rule set's name" in result.stderr


def test_rules_name_cannot_climb_out_of_the_builtin_folder(layout):
    """`--rules NAME` means rules/NAME.yaml; a NAME with `..` used to reach any .yaml file."""
    (layout / "models" / "net.py").write_text(MODEL.format(imports="SECRET_KEY = 'fc'"))
    target = layout.parent / "x.yaml"
    target.write_text(RULES)
    name = os.path.relpath(target, builtin_rules_dir().resolve())[:-len(".yaml")]
    result = run(layout, "analyze", "models/net.py", "-i", "1x4", "--rules", name)
    assert result.returncode == 1
    assert f"no rule set named {name!r}" in result.stderr


def test_rules_extends_out_of_the_project_is_a_located_error(layout):
    (layout.parent / "x.yaml").write_text(RULES)
    (layout / "models" / "net.py").write_text(MODEL.format(imports="SECRET_KEY = 'fc'"))
    (layout / "mine.yaml").write_text("name: mine\nextends: ../x.yaml\n")
    for command in (["check"], ["analyze", "models/net.py", "-i", "1x4", "--rules", "mine.yaml"]):
        if command == ["check"]:
            (layout / "staticflops.yaml").write_text("rules: mine.yaml\n" + config())
        result = run(layout, *command)
        assert result.returncode == 1
        printed = " ".join((result.stdout + result.stderr).split())  # `check` lists it in its table, wrapped
        # line 2 of mine.yaml, after `extends: ` (9 characters)
        assert "mine.yaml:2:10: error: rule file ../x.yaml is outside the project" in printed


def test_rules_named_on_the_command_line_are_the_users_and_read_where_they_are(layout):
    """The user's own `--rules PATH` may lie anywhere (a regular file, bounded); the threat is a
    config the pull request controls, and the config's rule files are confined (tests above)."""
    (layout.parent / "x.yaml").write_text(RULES)
    (layout / "models" / "net.py").write_text(MODEL.format(imports="SECRET_KEY = 'fc'"))
    result = run(layout, "analyze", "models/net.py", "-i", "1x4", "--rules", "../x.yaml")
    assert result.returncode == 0, result.stderr
    assert "rules: mine" in result.stdout


# ---- finding 5: special and huge files ----------------------------------------------------------

def _zero(layout) -> None:
    (layout / "models" / "net.py").symlink_to("/dev/zero")


def test_dev_zero_as_the_model_stops_at_once_without_the_memory(layout):
    _zero(layout)
    result = run(layout, "analyze", "models/net.py", "-i", "1x4", capped=True)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("models/net.py:1:1: error: models/net.py is outside the project")


def test_a_device_named_on_the_command_line_is_refused(layout):
    result = run(layout, "analyze", "/dev/zero", capped=True)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("/dev/zero:1:1: error: /dev/zero is a character device, not a regular file")


def test_dev_zero_as_the_configured_model_stops_at_once(layout):
    _zero(layout)
    result = run(layout, "check", capped=True)
    assert result.returncode == 1, result.stderr
    assert "staticflops.yaml:3:11: `models.0.path`: models/net.py is outside the project" in result.stderr


def test_dev_zero_in_a_folder_run_is_that_files_error(layout):
    _zero(layout)
    (layout / "models" / "ok.py").write_text(MODEL.format(imports="SECRET_KEY = 'fc'"))
    result = run(layout, "analyze", "models", "-i", "1x4", "-f", "json", "--no-cache", capped=True)
    assert result.returncode == 1, result.stderr
    rows = {row["path"]: row for row in json.loads(result.stdout)["files"]}
    assert rows["models/net.py"]["error"].startswith("models/net.py:1:1: error: models/net.py is outside")
    assert "report" in rows["models/ok.py"]


def test_dev_zero_as_a_rule_file_is_refused(layout):
    (layout / "models" / "net.py").write_text(MODEL.format(imports="SECRET_KEY = 'fc'"))
    (layout / "zero.yaml").symlink_to("/dev/zero")
    result = run(layout, "analyze", "models/net.py", "-i", "1x4", "--rules", "zero.yaml", capped=True)
    assert result.returncode == 1, result.stderr
    assert "rule file zero.yaml is a character device, not a regular file" in result.stderr


def test_pyproject_toml_linked_to_dev_zero_is_refused_while_looking_for_the_config(layout):
    (layout / "staticflops.yaml").unlink()
    (layout / "pyproject.toml").symlink_to("/dev/zero")
    result = run(layout, "check", capped=True)
    assert result.returncode == 1, result.stderr
    assert "pyproject.toml is outside the project" in result.stderr


def test_a_fifo_as_the_model_does_not_hang(layout):
    os.mkfifo(layout / "models" / "net.py")
    started = time.monotonic()
    analysed = run(layout, "analyze", "models/net.py", "-i", "1x4")
    checked = run(layout, "check")
    folder = run(layout, "analyze", "models", "-i", "1x4", "--no-cache")
    assert time.monotonic() - started < TIMEOUT  # each would block forever on open() before
    assert analysed.returncode == checked.returncode == folder.returncode == 1
    assert analysed.stderr.startswith("models/net.py:1:1: error: models/net.py is a FIFO (named pipe), not a regular file")
    assert "staticflops.yaml:3:11: `models.0.path`: models/net.py is a FIFO" in checked.stderr
    assert "models/net.py:1:1: error: models/net.py is a FIFO" in folder.stdout


def test_a_fifo_as_a_rule_file_does_not_hang(layout):
    (layout / "models" / "net.py").write_text(MODEL.format(imports="SECRET_KEY = 'fc'"))
    os.mkfifo(layout / "rules.yaml")
    result = run(layout, "analyze", "models/net.py", "-i", "1x4", "--rules", "rules.yaml")
    assert result.returncode == 1
    assert "rule file rules.yaml is a FIFO (named pipe), not a regular file" in result.stderr


def test_a_2_gb_sparse_file_is_refused_by_its_size_before_reading(layout):
    model = layout / "models" / "net.py"
    with open(model, "wb") as handle:
        handle.truncate(2 * 1024**3)  # 2 GiB = 2,147,483,648 bytes, no block allocated
    for command in (["analyze", "models/net.py", "-i", "1x4"], ["check", "--no-cache"]):
        started = time.monotonic()
        result = run(layout, *command, capped=True)  # reading it whole needs more than the 1.5 GiB cap
        assert time.monotonic() - started < 30
        assert result.returncode == 1, result.stderr
        assert ("models/net.py:1:1: error: models/net.py is 2,147,483,648 bytes, over the 5,000,000-byte limit "
                "(--max-file-bytes)") in result.stdout + result.stderr


# ---- the module itself ---------------------------------------------------------------------------

def test_read_file_stops_at_the_limit_and_names_the_kind(tmp_path):
    path = tmp_path / "f.py"
    path.write_bytes(b"x" * 11)
    assert read_file(path, (tmp_path,), max_bytes=11) == b"x" * 11
    with pytest.raises(RefusedRead, match="is 11 bytes, over the 10-byte limit") as refused:
        read_file(path, (tmp_path,), max_bytes=10)
    assert refused.value.kind == "size"
    with read_limit(10), pytest.raises(RefusedRead):  # the limit of reads that name none
        read_file(path, (tmp_path,))
    with pytest.raises(RefusedRead, match="is outside the project"):
        read_file(path, (tmp_path / "elsewhere",))


def test_project_root_is_the_config_folder_then_the_work_tree_then_above_the_packages(tmp_path):
    package = tmp_path / "repo" / "sub" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    model = package / "net.py"
    assert project_root(model) == tmp_path / "repo" / "sub"  # above the outermost package
    (tmp_path / "repo" / ".git").mkdir()
    assert project_root(model) == tmp_path / "repo"  # the git work tree
    (package / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # not a staticflops config
    (tmp_path / "repo" / "sub" / "pyproject.toml").write_text("[tool.staticflops]\nmodels = []\n")
    assert project_root(model) == tmp_path / "repo" / "sub"  # where `check` finds its config


def test_a_config_found_by_looking_may_not_be_a_link_out_of_its_folder(layout):
    (layout.parent / "outside" / "creds.yaml").write_text(f"{SECRET}: 1\n")  # an unknown key would be named
    (layout / "staticflops.yaml").unlink()
    (layout / "staticflops.yaml").symlink_to(layout.parent / "outside" / "creds.yaml")
    result = run(layout, "check")
    assert result.returncode == 1
    assert "staticflops.yaml is outside the project" in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_a_fifo_planted_as_a_cache_entry_does_not_hang(layout):
    (layout / "models" / "net.py").write_text(MODEL.format(imports="SECRET_KEY = 'fc'"))
    user_cache = str(layout.parent / "user-cache")  # outside the project: holds the cache's signing secret
    assert run(layout, "check", user_cache=user_cache).returncode == 0
    (entry,) = [p for p in (layout / ".staticflops_cache").glob("*.json") if not p.name.startswith("check-")]
    (record,) = (layout / ".staticflops_cache").glob("check-*.json")  # check's fast path (verdicts.py)
    for planted in (entry, record):
        planted.unlink()
        os.mkfifo(planted)
    result = run(layout, "check", user_cache=user_cache)  # neither is read: the model is analysed again
    assert result.returncode == 0, result.stderr
