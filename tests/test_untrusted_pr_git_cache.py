"""Issue 17, findings 1, 2, 3 and 8: a pull request controls every file of the checkout.
Each test is the pull request's attack, reproduced with real git repositories, the real
`pre-commit` and real symbolic links, and the promise that defeats it:

1. git runs only pinned to the user's repository: committed repository files (``HEAD``,
   ``objects/``, ``refs/``, a ``config`` whose ``core.fsmonitor`` is a shell command) start
   nothing and do not forge the base side of ``diff``;
2. the pre-commit hooks pass file names after ``--``: a file named ``--config=...`` is a path;
3. the results cache writes nothing outside its folder under the project root;
8. the results cache returns nothing stale or planted: a missing import that appears, an
   entry without sources, a committed cache folder.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from review_helpers import MLP, WIDER, commit, git, make_repo

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 300  # seconds; generous for a 2-core machine shared with other jobs

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def cli(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=TIMEOUT, env=env)


def files_under(folder: Path) -> set:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")} if folder.exists() else set()


# ---- 1. git runs an attacker's command ----------------------------------------------------

# ml/staticflops.yaml, as a monorepo has it; the budget is 1,000 FLOPs.
ML_CONFIG = textwrap.dedent("""\
    models:
      - name: mlp
        path: models/mlp.py
        inputs: ["2x8"]
        budget: {forward_flops: 1000}
""")
# A model only the forged repository holds: Linear(8, 4) on 2x8 = 2*8*4 = 64 MACs = 128 FLOPs.
FORGED_MODEL = textwrap.dedent("""\
    from torch import nn


    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(8, 4)

        def forward(self, x):
            return self.body(x)
""")


def forged_repository_files(tmp_path: Path, marker: Path) -> Path:
    """A real repository's HEAD, objects/ and refs/ (one commit with ml/models/mlp.py =
    FORGED_MODEL) and a config that makes it a repository with the checkout as work tree and
    a shell command as fsmonitor: what the pull request commits as plain files in ml/."""
    forge = tmp_path / "forge"
    (forge / "ml" / "models").mkdir(parents=True)
    (forge / "ml" / "models" / "mlp.py").write_text(FORGED_MODEL)
    git(forge, "init", "-q")
    git(forge, "-c", "user.email=a@b", "-c", "user.name=a", "add", "-A")
    git(forge, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "forged")
    staged = tmp_path / "forged-files"
    staged.mkdir()
    shutil.copy(forge / ".git" / "HEAD", staged / "HEAD")
    shutil.copytree(forge / ".git" / "objects", staged / "objects")
    shutil.copytree(forge / ".git" / "refs", staged / "refs")
    (staged / "config").write_text(textwrap.dedent(f"""\
        [core]
        \trepositoryformatversion = 0
        \tbare = false
        \tworktree = ..
        \tfsmonitor = "touch {marker}.fsmonitor; false"
        [alias]
        \tblame = "!touch {marker}.alias"
    """))
    return staged


def test_1_committed_repository_files_run_nothing_and_forge_nothing(tmp_path):
    marker = tmp_path / "PWNED"
    repo = tmp_path / "repo"
    (repo / "ml" / "models").mkdir(parents=True)
    (repo / "ml" / "staticflops.yaml").write_text(ML_CONFIG)
    (repo / "ml" / "models" / "mlp.py").write_text(MLP)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    first = commit(repo, "budget and model")
    # The pull request: a wider model (1,792 FLOPs > 1,000), the repository files in ml/ and an
    # executable `git` in ml/ and at the top for a PATH with an empty (= working directory) entry.
    (repo / "ml" / "models" / "mlp.py").write_text(WIDER)
    shutil.copytree(forged_repository_files(tmp_path, marker), repo / "ml", dirs_exist_ok=True)
    for folder in (repo, repo / "ml"):
        fake = folder / "git"
        fake.write_text(f"#!/bin/sh\ntouch {marker}.path\nexit 1\n")
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    pr = commit(repo, "pull request")
    assert git(repo, "ls-files", "ml/config", "ml/HEAD") == "ml/HEAD\nml/config"
    # git itself, unpinned, takes the committed folder for a repository (the attack is real):
    discovered = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=repo / "ml", capture_output=True, text=True,
                                timeout=TIMEOUT)
    assert discovered.returncode == 0 and Path(discovered.stdout.strip()) == repo / "ml"

    # Then the same with PATH starting with an empty entry (the working directory) and a
    # GIT_DIR naming the committed folder: neither unpins git.
    hostile = {**os.environ, "PATH": os.pathsep + os.environ["PATH"], "GIT_DIR": str(repo / "ml")}
    runs = [(env, cwd, config) for env in (None, hostile)
            for cwd, config in ((repo, ["--config", "ml/staticflops.yaml"]), (repo / "ml", []))]
    for env, cwd, config in runs:
        over = cli("check", "--no-cache", *config, cwd=cwd, env=env)
        assert sorted(p.name for p in tmp_path.glob("PWNED*")) == []
        assert over.returncode == 1, over.stdout + over.stderr
        # 768 + 2*2*16*16 (the inserted Linear(16, 16)) = 768 + 1,024 = 1,792 FLOPs
        assert "forward_flops is over budget: 1,792 > 1,000 (+792)" in over.stdout
        # the growth is against the commit that set the budget in the real repository
        assert f"grew most since {first[:12]}" in over.stdout, over.stdout
        assert "models/mlp.py:11:13: body.2 (Linear)" in over.stdout

        diffed = cli("diff", "--base", "HEAD", "--no-cache", "--format", "json", *config, cwd=cwd, env=env)
        assert sorted(p.name for p in tmp_path.glob("PWNED*")) == []
        assert diffed.returncode == 0, diffed.stdout + diffed.stderr
        result = json.loads(diffed.stdout)
        assert result["base_commit"] == pr  # the real HEAD, not the forged repository's commit
        assert result["models"][0]["status"] == "unchanged"  # WIDER on both sides (forged: 128 FLOPs)


# ---- 2. pre-commit takes file names as options -----------------------------------------

try:
    import pre_commit  # noqa: F401
    HAVE_PRE_COMMIT = True
except ImportError:
    HAVE_PRE_COMMIT = False


@pytest.mark.skipif(not HAVE_PRE_COMMIT, reason="needs the pre-commit package (pip install '.[test]')")
def test_2_a_file_named_like_an_option_is_a_path_to_the_hook(tmp_path):
    repo = make_repo(tmp_path / "repo", flops="1K", params="300")  # the MLP: 768 FLOPs
    (repo / "models" / "mlp.py").write_text(WIDER)  # 1,792 FLOPs > 1,000
    lenient = ("[[tool.staticflops.models]]\nname = \"mlp\"\npath = \"models/mlp.py\"\ninputs = [\"2x8\"]\n"
               "budget = { forward_flops = \"1T\" }\n")
    (repo / "lenient.toml").write_text("[project]\nname = \"x\"\n\n" + lenient)
    (repo / "--config=lenient.toml").write_text("# a file name pre-commit passes to the hook\n")
    git(repo, "add", "-A")
    # `git ls-files` order, which pre-commit keeps: the option-like name comes first
    assert git(repo, "ls-files").splitlines()[0] == "--config=lenient.toml"
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    result = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "staticflops-check",
                             "--all-files"], cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "models/mlp.py: mlp: forward_flops is over budget: 1,792 > 1,000 (+792)" in result.stdout
    assert "Failed" in result.stdout


def test_2_check_takes_paths_after_double_dash(tmp_path):
    """The same without pre-commit: after `--` an option-like argument is a path."""
    repo = make_repo(tmp_path / "repo", flops="1K", params="300")
    (repo / "models" / "mlp.py").write_text(WIDER)
    (repo / "lenient.yaml").write_text("models:\n  - {name: mlp, path: models/mlp.py, inputs: [2x8], "
                                       "budget: {forward_flops: 1T}}\n")
    result = cli("check", "--", "--config=lenient.yaml", "models/mlp.py", cwd=repo)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "forward_flops is over budget: 1,792 > 1,000 (+792)" in result.stdout


# ---- 3. the cache writes outside the project ----------------------------------------------

@pytest.mark.parametrize("cache_dir, message", [
    ("{outside}", "must be a folder inside the project root, not an absolute path"),
    ("../outside", "climbs out with '..'"),
    ("cache/../../outside", "climbs out with '..'"),
    ("", "not the root itself"),
    (".", "not the root itself"),
])
def test_3_cache_dir_outside_the_root_is_a_located_config_error(tmp_path, cache_dir, message):
    outside = tmp_path / "outside"
    repo = make_repo(tmp_path / "repo")
    text = (repo / "pyproject.toml").read_text()
    (repo / "pyproject.toml").write_text(text.replace("[[tool.staticflops.models]]",
                                                      f"[tool.staticflops]\ncache_dir = \"{cache_dir.format(outside=outside)}\"\n\n"
                                                      "[[tool.staticflops.models]]"))
    before = files_under(repo)
    result = cli("check", cwd=repo)
    assert result.returncode == 1, result.stdout + result.stderr
    # pyproject.toml: [project] (1), name (2), blank (3), [tool.staticflops] (4), cache_dir (5)
    assert result.stderr.startswith("staticflops: error: pyproject.toml:5:1: `cache_dir`: "), result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not outside.exists() and files_under(repo) == before  # no .gitignore in the root either


def symlink_or_skip(link: Path, target: Path) -> None:
    try:
        link.symlink_to(target)
    except (OSError, NotImplementedError):
        pytest.skip("symbolic links not available")


def test_3_committed_cache_symlinks_write_nothing_outside(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    repo = make_repo(tmp_path / "repo")
    symlink_or_skip(repo / ".staticflops_cache", elsewhere)
    commit(repo, "cache folder linked out of the project")
    result = cli("check", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ".staticflops_cache is a symbolic link or not a folder: the results cache is off" in result.stderr
    assert files_under(elsewhere) == set()
    folder_run = cli("analyze", "models", "--input", "2x8", cwd=repo)  # folder mode caches in the same folder
    assert folder_run.returncode == 0, folder_run.stdout + folder_run.stderr
    assert "the results cache is off" in folder_run.stderr and files_under(elsewhere) == set()

    # a real folder holding a dangling link where the .gitignore goes, and a cache folder
    # configured under a linked folder
    (repo / ".staticflops_cache").unlink()
    (repo / ".staticflops_cache").mkdir()
    symlink_or_skip(repo / ".staticflops_cache" / ".gitignore", elsewhere / "created" / "by-write")
    (elsewhere / "created").mkdir()
    result = cli("check", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert files_under(elsewhere) == {"created"}  # the link's target was not created
    written = [p for p in (repo / ".staticflops_cache").iterdir() if p.suffix == ".json"
               and not p.name.startswith("check-")]  # check-*.json: the fast path's record (verdicts.py)
    assert len(written) == 1 and not written[0].is_symlink()  # the cache itself still works
    assert cli("check", "--format", "json", cwd=repo).stdout.count('"cached": true') == 1

    # each entry file name in the way as a link to a file outside: replaced, never written through
    victim = elsewhere / "victim.json"
    victim.write_text("untouched")
    written[0].unlink()
    symlink_or_skip(written[0], victim)
    (repo / "models" / "mlp.py").write_text(MLP + "\n")  # a new analysis, stored again
    assert cli("check", cwd=repo).returncode == 0
    assert victim.read_text() == "untouched" and not written[0].is_symlink()

    linked = tmp_path / "linked"
    linked.mkdir()
    symlink_or_skip(repo / "sub", linked)
    text = (repo / "pyproject.toml").read_text()
    (repo / "pyproject.toml").write_text(text.replace("[[tool.staticflops.models]]",
                                                      "[tool.staticflops]\ncache_dir = \"sub/cache\"\n\n"
                                                      "[[tool.staticflops.models]]"))
    result = cli("check", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "sub is a symbolic link or not a folder" in result.stderr
    assert files_under(linked) == set()


# ---- 8. the results cache trusts stale or planted entries ---------------------------------

# models/net.py imports `helpers`, which is not there yet: an unknown (allowed), so the model
# is Linear(8, 4) on 2x8 = 64 MACs = 128 FLOPs <= the 200-FLOP budget.
NET = textwrap.dedent("""\
    from torch import nn
    from helpers import Block


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)
            self.block = Block()

        def forward(self, x):
            return self.block(self.fc(x))
""")
# models/helpers.py, added later: Block = Linear(4, 56,250) on 2x4 = 2*4*56,250 = 450,000 MACs
# = 900,000 FLOPs; with fc 900,128 FLOPs, 4,500.64 x the budget.
HELPERS = textwrap.dedent("""\
    from torch import nn


    def Block():
        return nn.Linear(4, 56250)
""")
NET_CONFIG = textwrap.dedent("""\
    allow_unknown: true
    models:
      - name: net
        path: models/net.py
        inputs: ["2x8"]
        budget: {forward_flops: 200}
""")


def net_project(root: Path) -> Path:
    (root / "models").mkdir(parents=True)
    (root / "models" / "net.py").write_text(NET)
    (root / "staticflops.yaml").write_text(NET_CONFIG)
    return root


def test_8a_an_import_that_appears_invalidates_the_cached_pass(tmp_path):
    project = net_project(tmp_path / "project")
    first = cli("check", "--format", "json", cwd=project)
    assert first.returncode == 0, first.stdout + first.stderr
    assert json.loads(first.stdout)["models"][0]["budgets"][0]["measured"] == 128  # 2*8*4*2
    assert cli("check", "--format", "json", cwd=project).stdout.count('"cached": true') == 1

    (project / "models" / "helpers.py").write_text(HELPERS)
    # pre-commit passes only the new file: the model that looked for it is selected
    over = cli("check", "models/helpers.py", cwd=project)
    assert over.returncode == 1, over.stdout + over.stderr
    assert "forward_flops is over budget: 900,128 > 200 (+899,928)" in over.stdout
    again = cli("check", "--format", "json", cwd=project)
    assert again.returncode == 1 and json.loads(again.stdout)["models"][0]["cached"] is True


def planted_entry(project: Path, report_from: Path, sources: dict, env: dict) -> str:
    """Write `.staticflops_cache/KEY.json` as an attacker would: under the model's real key (it
    depends only on the config and the staticflops build, both public) with a passing report
    taken from another project; signed with ``env``'s user secret.  Returns the key."""
    script = textwrap.dedent(f"""\
        import json, os, sys
        from pathlib import Path
        from staticflops.project import cache as c
        from staticflops.project.config import load_config
        from staticflops.project.run import request_for
        config = load_config(Path({str(project / "staticflops.yaml")!r}))
        store = c.ResultCache(config.root, config.cache_dir)
        key = store.key(request_for(config, config.models[0]))
        report = json.loads(Path({str(report_from)!r}).read_text())
        entries = json.dumps([{{"sources": {sources!r}, "disk": {{}}, "report": report}}]).encode()
        folder = config.root / config.cache_dir
        folder.mkdir(exist_ok=True)
        (folder / (key + ".json")).write_bytes(c._sign(key, entries) + b"\\n" + entries)
        print(key)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=TIMEOUT,
                          cwd=project)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def passing_report(tmp_path: Path) -> Path:
    """A genuine report of a 128-FLOP model, to plant under another model's key."""
    small = tmp_path / "small"
    (small / "models").mkdir(parents=True)
    (small / "models" / "net.py").write_text(FORGED_MODEL)
    result = cli("analyze", "models/net.py", "-i", "2x8", "--format", "json", cwd=small)
    assert result.returncode == 0, result.stderr
    path = tmp_path / "report.json"
    path.write_text(result.stdout)
    return path


def test_8b_an_entry_without_the_analysed_file_among_its_sources_is_a_miss(tmp_path):
    """Even signed with this user's own secret (a bug, not an attack), an entry that does not
    pin the analysed file's content is not used."""
    project = net_project(tmp_path / "project")
    (project / "models" / "helpers.py").write_text(HELPERS)  # 900,128 FLOPs
    report = passing_report(tmp_path)
    key = planted_entry(project, report, {}, dict(os.environ))
    assert (project / ".staticflops_cache" / f"{key}.json").exists()
    result = cli("check", "--format", "json", cwd=project)
    assert result.returncode == 1, result.stdout + result.stderr
    model = json.loads(result.stdout)["models"][0]
    assert model["cached"] is False and model["budgets"][0]["measured"] == 900_128


def test_8c_a_committed_cache_folder_never_passes_an_over_budget_model(tmp_path):
    project = net_project(tmp_path / "project")
    (project / "models" / "helpers.py").write_text(HELPERS)  # 900,128 FLOPs > 200
    git(project, "init", "-q")
    git(project, "config", "user.email", "test@example.com")
    git(project, "config", "user.name", "test")
    import hashlib
    sources = {"models/net.py": hashlib.sha256(NET.encode()).hexdigest(),
               "models/helpers.py": hashlib.sha256(HELPERS.encode()).hexdigest()}
    attacker = {**os.environ, "STATICFLOPS_CACHE_DIR": str(tmp_path / "attacker-home-cache")}
    key = planted_entry(project, passing_report(tmp_path), sources, attacker)  # signed: attacker's secret
    git(project, "add", "-f", "-A")
    commit(project, "pull request with a cache folder")
    assert f".staticflops_cache/{key}.json" in git(project, "ls-files")
    # the attacker's own machine takes it (the planted entry is well-formed and signed there)
    assert cli("check", cwd=project, env=attacker).returncode == 0

    result = cli("check", "--format", "json", cwd=project)
    assert result.returncode == 1, result.stdout + result.stderr
    model = json.loads(result.stdout)["models"][0]
    assert model["cached"] is False and model["budgets"][0]["measured"] == 900_128


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give the repository away")
def test_1_pinning_keeps_gits_ownership_check(tmp_path):
    """`--git-dir` skips git's safe.directory check; staticflops asks git for it first, so a
    repository of another account (a `/tmp/.git` planted above the user's folder) is not used
    unless the user's own global config trusts it."""
    repo = make_repo(tmp_path / "repo")
    (repo / "models" / "mlp.py").write_text(WIDER)
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    env.pop("SUDO_UID", None)
    for path in [repo, *repo.rglob("*")]:
        os.lchown(path, 4321, 4321)  # another account's repository
    refused = cli("diff", "--no-cache", cwd=repo, env=env)
    assert refused.returncode == 1 and "not one git trusts for this user (safe.directory)" in refused.stderr

    (home / ".gitconfig").write_text(f"[safe]\n\tdirectory = {repo}\n")
    trusted = cli("diff", "--no-cache", "--format", "json", cwd=repo, env=env)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    assert json.loads(trusted.stdout)["models"][0]["status"] == "changed"  # MLP -> WIDER
