"""`staticflops analyze DIR`: every model file of a folder, in parallel, cached by content."""

import json
import subprocess
import sys
import textwrap

import pytest

from staticflops.project import folder as folder_mode

TINY = textwrap.dedent("""\
    import torch.nn as nn

    class Tiny(nn.Module):
        def __init__(self, width=3):
            super().__init__()
            self.fc = nn.Linear(4, width)

        def forward(self, x):
            return self.fc(x)
""")
# Linear(4, 3) on a 1x4 input: params 4*3 + 3 = 15; MACs 1*4*3 = 12; FLOPs 2*12 = 24.
# Linear(4, 5) (the copy with width=5): params 4*5 + 5 = 25; MACs 20; FLOPs 40.


@pytest.fixture()
def models(tmp_path):
    (tmp_path / "a.py").write_text(TINY)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text(TINY.replace("width=3", "width=5"))
    (tmp_path / "helpers.py").write_text("def helper():\n    return 1\n")  # no framework import: not a model
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.py").write_text(TINY)
    return tmp_path


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True, cwd=cwd)


def test_folder_lists_only_model_files(models):
    assert folder_mode.model_files([str(models)]) == [str(models / "a.py"), str(models / "sub" / "b.py")]


def test_folder_json_has_one_report_per_file_and_a_rate(models):
    result = run("analyze", ".", "--input", "1x4", "--format", "json", cwd=models)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    by_path = {entry["path"]: entry for entry in data["files"]}
    assert sorted(by_path) == ["a.py", "sub/b.py"]
    assert by_path["a.py"]["report"]["totals"]["params"] == 15
    assert by_path["a.py"]["report"]["totals"]["forward_flops"] == 24
    assert by_path["sub/b.py"]["report"]["totals"]["params"] == 25
    assert by_path["sub/b.py"]["report"]["totals"]["macs"] == 20
    assert "backward_flops" not in by_path["a.py"]["report"]["totals"]  # same contract as one file
    summary = data["summary"]
    assert (summary["files"], summary["analysed"], summary["errors"], summary["cached"]) == (2, 2, 0, 0)
    assert summary["files_per_second"] > 0


def test_warm_repeat_parses_nothing(models, monkeypatch):
    monkeypatch.chdir(models)
    cold = folder_mode.analyse_files(["a.py", "sub/b.py"], {"model": None, "inputs": ["1x4"], "kwargs": None,
                                                            "rules": "standard"}, jobs=1)
    assert [r.cached for r in cold.results] == [False, False]

    def no_parsing(*args, **kwargs):
        raise AssertionError("a warm repeat must not parse")

    monkeypatch.setattr("staticflops.frontend.source.parse_source", no_parsing)
    monkeypatch.setattr("staticflops.api.load_source", no_parsing)
    warm = folder_mode.analyse_files(["a.py", "sub/b.py"], {"model": None, "inputs": ["1x4"], "kwargs": None,
                                                            "rules": "standard"}, jobs=1)
    assert [r.cached for r in warm.results] == [True, True]
    assert [r.report["totals"]["params"] for r in warm.results] == [15, 25]

    (models / "a.py").write_text(TINY.replace("width=3", "width=7"))  # changed content: analysed again
    monkeypatch.undo()
    monkeypatch.chdir(models)
    edited = folder_mode.analyse_files(["a.py"], {"model": None, "inputs": ["1x4"], "kwargs": None,
                                                  "rules": "standard"}, jobs=1)
    assert not edited.results[0].cached
    assert edited.results[0].report["totals"]["params"] == 4 * 7 + 7


def test_a_broken_file_is_an_error_row_with_its_location(models):
    (models / "broken.py").write_text("import torch\nclass (:\n")
    result = run("analyze", ".", "--input", "1x4", "--no-cache", "--format", "markdown", cwd=models)
    assert result.returncode == 1
    assert "broken.py:2:" in result.stdout and "syntax error" in result.stdout
    assert "| `a.py` | `Tiny` | 15 |" in result.stdout
    assert "files/s" in result.stdout


def test_several_processes_give_the_same_numbers(models):
    for i in range(6):
        (models / f"copy{i}.py").write_text(TINY.replace("width=3", f"width={i + 1}"))
    result = run("analyze", ".", "--input", "1x4", "--jobs", "2", "--no-cache", "--format", "json", cwd=models)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    params = {e["path"]: e["report"]["totals"]["params"] for e in data["files"]}
    for i in range(6):  # Linear(4, w): 4*w + w
        assert params[f"copy{i}.py"] == 5 * (i + 1)
    assert data["summary"]["jobs"] == 2


def test_missing_path_is_a_usage_error(tmp_path):
    result = run("analyze", "nope", "also-nope", cwd=tmp_path)
    assert result.returncode == 1  # bad input: exit 1 (issue 8)
    assert "nope: no such file or folder" in result.stderr


OPTIONS = {"model": None, "inputs": ["1x4"], "kwargs": None, "rules": "standard"}  # the CLI's defaults


def test_progress_bar_only_on_a_terminal(models, monkeypatch):
    """The bar goes to stderr when it is a terminal; piped (CI logs, `| jq`) nothing is written."""
    import io

    from rich.console import Console

    from staticflops.cli.progress import folder_progress

    piped = run("analyze", ".", "--input", "1x4", "--no-cache", cwd=models)
    assert piped.returncode == 0 and piped.stderr == ""

    quiet = io.StringIO()
    with folder_progress(2, Console(file=quiet, force_terminal=False)) as advance:
        advance("a.py")
    assert quiet.getvalue() == ""

    monkeypatch.chdir(models)
    seen, shown = [], io.StringIO()
    terminal = Console(file=shown, force_terminal=True, width=100)
    with folder_progress(2, terminal) as advance:
        done = folder_mode.analyse_files(["a.py", "sub/b.py"], OPTIONS, jobs=1, use_cache=False,
                                         progress=lambda path: (seen.append(path), advance(path)))
    assert seen == ["a.py", "sub/b.py"]  # once per file, in order
    assert [r.report["totals"]["params"] for r in done.results] == [15, 25], done.results
    assert "Analysing" in shown.getvalue() and "2/2" in shown.getvalue()  # the last refresh: both files done
