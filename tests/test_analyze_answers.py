"""The results cache of ``analyze FILE`` (staticflops/answers.py, cli/entry.py): the same
command again with nothing changed prints the stored answer — exactly what the full command
prints, stdout, stderr and exit status — without entering the interpreter; any change to
what the answer depends on (the model file, a config.json, a library file, a file appearing
where an import looked, an option) analyses again; a record not signed by this user is
ignored; ``--no-cache`` analyses again.  The same analysis with other output options (another
``--format``, ``--depth``...) prints the report the first run kept, without analysing.

Whether a run analysed is read from ``-X importtime``: an analysis imports the interpreter
(``staticflops.frontend.interpreter``), the fast path imports none of libcst, pydantic, rich
or typer, the full command printing a kept report imports typer but not the interpreter."""

import json
import os
import shutil
import sys
import textwrap
import time
from pathlib import Path

import pytest

from review_helpers import (
    HEAVY, MLP, MLP_FLOPS, MLP_PARAMS, USES_VENDORED, VENDORED, WIDER, WIDER_FLOPS, WIDER_PARAMS, run_console, run_full,
)

from staticflops import files

INTERPRETER = "staticflops.frontend.interpreter"


def console(*args, cwd):
    """The console script with ``-X importtime``: (result, the modules it imported)."""
    result, imported, errors = run_console(*args, cwd=cwd)
    result.stderr = "".join(line + "\n" for line in errors)
    return result, imported


def full(*args, cwd):
    """The full command line (never the fast path); it writes the record."""
    return run_full(*args, cwd=cwd)


def served(*args, cwd):
    """The console script's answer, asserting that it came from the record."""
    result, imported = console(*args, cwd=cwd)
    assert INTERPRETER not in imported and not {name.split(".")[0] for name in imported} & set(HEAVY), \
        sorted(name for name in imported if name.startswith(("staticflops.frontend", *HEAVY)))
    return result


def from_report(*args, cwd):
    """The console script's answer, asserting that the full command printed a kept report."""
    result, imported = console(*args, cwd=cwd)
    assert "typer" in imported and INTERPRETER not in imported
    return result


def analysed(*args, cwd):
    """The console script's answer, asserting that it analysed."""
    result, imported = console(*args, cwd=cwd)
    assert INTERPRETER in imported
    return result


def same(a, b) -> bool:
    return (a.stdout, a.stderr, a.returncode) == (b.stdout, b.stderr, b.returncode)


def totals(result) -> tuple:
    data = json.loads(result.stdout)["totals"]
    return data["forward_flops"], data["params"]


def mlp_project(root: Path) -> Path:
    (root / "models").mkdir(parents=True)
    (root / "models" / "mlp.py").write_text(MLP)
    return root


@pytest.mark.parametrize("options", [("--format", "json"), (), ("--exact", "--depth", "1"), ("-f", "markdown"),
                                     ("--format=csv",), ("--format", "html", "--by-type"), ("--training",)])
def test_the_same_command_again_prints_the_stored_answer(tmp_path, options):
    mlp_project(tmp_path)
    args = ("analyze", "models/mlp.py", "--input", "2x8", *options)
    first = analysed(*args, cwd=tmp_path)  # the console script's full path writes the record
    assert first.returncode == 0 and first.stdout, first.stderr
    again = served(*args, cwd=tmp_path)
    assert same(again, first)
    assert same(again, full(*args, cwd=tmp_path))  # what the full command prints now


def test_the_stored_answer_of_a_model_in_json(tmp_path):
    mlp_project(tmp_path)
    args = ("analyze", "models/mlp.py", "--input", "2x8", "--format", "json")
    full(*args, cwd=tmp_path)
    assert totals(served(*args, cwd=tmp_path)) == (MLP_FLOPS, MLP_PARAMS)  # review_helpers: 768 FLOPs, 212 params


def test_strict_with_unknowns_is_kept_with_its_exit_status_and_error_line(tmp_path):
    (tmp_path / "m.py").write_text(MLP.replace("from torch import nn\n", "from torch import nn\nfrom mylib import f\n")
                                   .replace("return self.body(x)", "return f(self.body(x))"))
    args = ("analyze", "m.py", "--input", "2x8", "--strict")
    first = full(*args, cwd=tmp_path)
    assert first.returncode == 1 and "(--strict)" in first.stderr
    assert same(served(*args, cwd=tmp_path), first)


def test_an_analysis_error_is_never_kept(tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return (\n")
    args = ("analyze", "m.py", "--input", "2x8")
    first = full(*args, cwd=tmp_path)
    assert first.returncode == 1 and "error" in first.stderr
    again = analysed(*args, cwd=tmp_path)
    assert same(again, first)


def test_a_changed_model_file_is_analysed_again(tmp_path):
    mlp_project(tmp_path)
    args = ("analyze", "models/mlp.py", "--input", "2x8", "--format", "json")
    full(*args, cwd=tmp_path)
    served(*args, cwd=tmp_path)
    (tmp_path / "models" / "mlp.py").write_text(WIDER)
    assert totals(analysed(*args, cwd=tmp_path)) == (WIDER_FLOPS, WIDER_PARAMS)  # review_helpers: 1,792 and 484
    assert totals(served(*args, cwd=tmp_path)) == (WIDER_FLOPS, WIDER_PARAMS)
    (tmp_path / "models" / "mlp.py").write_text(MLP)  # back: an earlier answer of the same command is still kept
    assert totals(served(*args, cwd=tmp_path)) == (MLP_FLOPS, MLP_PARAMS)


def test_a_changed_option_is_another_answer(tmp_path):
    mlp_project(tmp_path)
    first = full("analyze", "models/mlp.py", "--input", "2x8", "--format", "json", cwd=tmp_path)
    # 4x8: twice the rows, twice the MACs: 2 * 768 = 1,536 FLOPs, the same 212 params
    other = analysed("analyze", "models/mlp.py", "--input", "4x8", "--format", "json", cwd=tmp_path)
    assert totals(other) == (2 * MLP_FLOPS, MLP_PARAMS)
    # another command line, the same analysis: the full command prints the kept report
    reordered = from_report("analyze", "--format", "json", "models/mlp.py", "--input", "2x8", cwd=tmp_path)
    assert same(reordered, first)
    assert same(served("analyze", "models/mlp.py", "--input", "2x8", "--format", "json", cwd=tmp_path), first)


def test_another_working_folder_is_another_answer(tmp_path):
    # locations are printed relative to the working folder
    mlp_project(tmp_path)
    full("analyze", "mlp.py", "--input", "2x8", cwd=tmp_path / "models")
    elsewhere = analysed("analyze", "models/mlp.py", "--input", "2x8", cwd=tmp_path)
    assert same(served("analyze", "models/mlp.py", "--input", "2x8", cwd=tmp_path), elsewhere)


def test_no_cache_analyses_again(tmp_path):
    mlp_project(tmp_path)
    args = ("analyze", "models/mlp.py", "--input", "2x8")
    first = full(*args, cwd=tmp_path)
    served(*args, cwd=tmp_path)
    assert same(analysed(*args, "--no-cache", cwd=tmp_path), first)




def vendored_project(root: Path) -> tuple:
    (root / "proj").mkdir()
    (root / "proj" / "net.py").write_text(USES_VENDORED)
    (root / "vendor" / "vendlib").mkdir(parents=True)
    (root / "vendor" / "vendlib" / "__init__.py").write_text(VENDORED)
    return ("analyze", "net.py", "--input", "2x8", "--format", "json", "--source-path", "../vendor")


@pytest.mark.parametrize("settled", [False, True], ids=["just written", "settled"])
def test_a_changed_library_file_is_analysed_again(tmp_path, settled):
    # settled (last changed over files.SETTLED_NS before it was read): its stamp is kept and an
    # equal stamp spares hashing it; the same-size edit below changes the stamp (ctime)
    args = vendored_project(tmp_path)
    if settled:
        time.sleep(2.2)
    # Linear(8, 4) on 2x8: 2*8*4 = 64 MACs, 128 FLOPs; 8*4 + 4 = 36 params
    assert totals(full(*args, cwd=tmp_path / "proj")) == (128, 36)
    assert totals(served(*args, cwd=tmp_path / "proj")) == (128, 36)
    library = tmp_path / "vendor" / "vendlib" / "__init__.py"
    (record,) = (tmp_path / "proj" / ".staticflops_cache").glob("analyze-*.json")
    stamps = json.loads(record.read_bytes().partition(b"\n")[2])["answers"][0]["stamps"]
    if not settled and time.time_ns() - library.stat().st_ctime_ns > files.SETTLED_NS:
        pytest.skip("the machine was too slow to read the file while it was still unsettled")
    assert any(name.endswith("vendlib/__init__.py") for name in stamps) == settled
    library.write_text(VENDORED.replace("nn.Linear(8, 4)", "nn.Linear(8, 8)"))
    # Linear(8, 8): 2*8*8 = 128 MACs, 256 FLOPs; 8*8 + 8 = 72 params
    assert totals(analysed(*args, cwd=tmp_path / "proj")) == (256, 72)


def test_a_changed_rule_file_is_analysed_again(tmp_path):
    mlp_project(tmp_path)
    rules = tmp_path / "rules.yaml"
    rules.write_text("name: mine\nextends: standard\n")
    args = ("analyze", "models/mlp.py", "--input", "2x8", "--format", "json", "--rules", "rules.yaml")
    assert totals(full(*args, cwd=tmp_path)) == (MLP_FLOPS, MLP_PARAMS)
    served(*args, cwd=tmp_path)
    rules.write_text("name: mine\nextends: standard\nrules:\n  linear:\n    macs: 1\n")
    # every Linear costs 1 MAC, 2 FLOPs: 4 for the two Linears
    assert totals(analysed(*args, cwd=tmp_path)) == (4, MLP_PARAMS)


def test_a_file_appearing_where_an_import_looked_is_analysed_again(tmp_path):
    # `from vendlib import Block` first looks in the project (vendlib.py, vendlib/__init__.py):
    # missing there, it came from --source-path; a project module of that name now wins
    args = vendored_project(tmp_path)
    assert totals(full(*args, cwd=tmp_path / "proj")) == (128, 36)
    served(*args, cwd=tmp_path / "proj")
    (tmp_path / "proj" / "vendlib.py").write_text(VENDORED.replace("nn.Linear(8, 4)", "nn.Linear(8, 2)"))
    # Linear(8, 2): 2*8*2 = 32 MACs, 64 FLOPs; 8*2 + 2 = 18 params
    assert totals(analysed(*args, cwd=tmp_path / "proj")) == (64, 18)


def test_a_package_installed_where_imports_searched_is_analysed_again(tmp_path):
    # the model imports a package that is nowhere: an unknown; installing it changes the answer
    (tmp_path / "proj").mkdir()
    (tmp_path / "vendor").mkdir()
    (tmp_path / "proj" / "net.py").write_text(USES_VENDORED.replace("vendlib", "otherlib"))
    args = ("analyze", "net.py", "--input", "2x8", "--format", "json", "--source-path", "../vendor")
    first = full(*args, cwd=tmp_path / "proj")
    assert json.loads(first.stdout)["unknown"]
    served(*args, cwd=tmp_path / "proj")
    (tmp_path / "vendor" / "otherlib").mkdir()
    (tmp_path / "vendor" / "otherlib" / "__init__.py").write_text(VENDORED)
    assert totals(analysed(*args, cwd=tmp_path / "proj")) == (128, 36)  # as above: Linear(8, 4)


TINY = textwrap.dedent("""\
    from torch import nn


    class TinyConfig:
        def __init__(self, hidden_size=8, vocab_size=10, **kwargs):
            self.hidden_size = hidden_size
            self.vocab_size = vocab_size


    class TinyForCausalLM(nn.Module):
        config_class = TinyConfig

        def __init__(self, config):
            super().__init__()
            self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
            self.head = nn.Linear(config.hidden_size, config.vocab_size)

        def forward(self, input_ids):
            return self.head(self.embed(input_ids))
""")


def test_a_changed_config_json_is_analysed_again(tmp_path):
    # a transformers-like package read from --source-path: models/tiny/modeling_tiny.py
    package = tmp_path / "lib" / "transformers"
    (package / "models" / "tiny").mkdir(parents=True)
    for folder in (package, package / "models", package / "models" / "tiny"):
        (folder / "__init__.py").write_text("")
    (package / "models" / "tiny" / "modeling_tiny.py").write_text(TINY)
    (tmp_path / "proj").mkdir()
    config = tmp_path / "proj" / "config.json"
    config.write_text(json.dumps({"model_type": "tiny", "architectures": ["TinyForCausalLM"], "hidden_size": 8,
                                  "vocab_size": 10}))
    args = ("analyze", "config.json", "--input", "1x4:int64", "--format", "json", "--source-path", "../lib")
    # head Linear(8, 10) on 4 tokens: 4*8*10 = 320 MACs, 640 FLOPs; params 10*8 (embedding) + 8*10 + 10 = 170
    assert totals(full(*args, cwd=tmp_path / "proj")) == (640, 170)
    assert totals(served(*args, cwd=tmp_path / "proj")) == (640, 170)
    config.write_text(config.read_text().replace('"hidden_size": 8', '"hidden_size": 16'))
    # hidden 16: 4*16*10 = 640 MACs, 1,280 FLOPs; params 10*16 + 16*10 + 10 = 330
    assert totals(analysed(*args, cwd=tmp_path / "proj")) == (1280, 330)
    assert totals(served(*args, cwd=tmp_path / "proj")) == (1280, 330)


def records(root: Path) -> list:
    # in the model's project root: here the model's own folder (no git, config or package above it)
    return sorted((root / "models" / ".staticflops_cache").glob("analyze-*.json"))


def test_a_record_not_signed_by_this_user_is_ignored(tmp_path):
    mlp_project(tmp_path)
    args = ("analyze", "models/mlp.py", "--input", "2x8", "--format", "json")
    first = full(*args, cwd=tmp_path)
    (record,) = records(tmp_path)
    signature, _, payload = record.read_bytes().partition(b"\n")
    data = json.loads(payload)
    data["answers"][0]["stdout"] = '{"forged": true}\n'
    record.write_bytes(signature + b"\n" + json.dumps(data).encode())  # the old signature: wrong now
    assert same(from_report(*args, cwd=tmp_path), first)  # the full command, from the kept report
    record.write_bytes(json.dumps(data).encode())  # no signature at all
    assert same(from_report(*args, cwd=tmp_path), first)


def test_a_report_not_signed_by_this_user_is_ignored(tmp_path):
    mlp_project(tmp_path)
    args = ("analyze", "models/mlp.py", "--input", "2x8", "--format", "json")
    first = full(*args, cwd=tmp_path)
    (record,) = (tmp_path / "models" / ".staticflops_cache").glob("report-*.json")
    signature, _, payload = record.read_bytes().partition(b"\n")
    data = json.loads(payload)
    data["answers"][0]["report"]["totals"]["params"] = 1
    record.write_bytes(signature + b"\n" + json.dumps(data).encode())
    other = ("analyze", "models/mlp.py", "--input", "2x8", "--format", "json", "--exact")  # not the printed answer
    result = analysed(*other, cwd=tmp_path)
    assert same(result, first) and totals(result) == (MLP_FLOPS, MLP_PARAMS)


@pytest.mark.parametrize("options", [("--format", "table"), ("--format", "markdown", "--depth", "1"),
                                     ("--format", "html", "--exact"), ("-f", "csv"), ("--strict",)])
def test_other_output_options_print_the_kept_report(tmp_path, options):
    # the analysis' options are the same: the full command renders the report kept by the first run
    mlp_project(tmp_path)
    full("analyze", "models/mlp.py", "--input", "2x8", "--format", "json", cwd=tmp_path)
    args = ("analyze", "models/mlp.py", "--input", "2x8", *options)
    result = from_report(*args, cwd=tmp_path)
    assert same(result, full(*args, "--no-cache", cwd=tmp_path))  # what a fresh analysis prints
    assert same(served(*args, cwd=tmp_path), result)  # and now the printed answer is kept too


def test_a_cache_folder_that_is_a_link_is_not_used(tmp_path):
    mlp_project(tmp_path / "proj")
    args = ("analyze", "models/mlp.py", "--input", "2x8", "--format", "json")
    first = full(*args, cwd=tmp_path / "proj")
    # the records moved elsewhere, reached through a symbolic link a pull request could commit
    cache = tmp_path / "proj" / "models" / ".staticflops_cache"  # the model's project root: its own folder
    shutil.move(cache, tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", cache)
    assert same(analysed(*args, cwd=tmp_path / "proj"), first)


def test_options_it_does_not_know_take_the_full_path(tmp_path):
    mlp_project(tmp_path)
    full("analyze", "models/mlp.py", "--input", "2x8", cwd=tmp_path)
    out = tmp_path / "report.txt"
    for extra in (("--output", str(out)), ("-fjson",), ("--help",), ("--python", sys.executable)):
        for _ in range(2):  # the first run keeps nothing a second could be answered from
            result, imported = console("analyze", "models/mlp.py", "--input", "2x8", *extra, cwd=tmp_path)
            assert "typer" in imported and result.returncode == 0, (extra, result.stderr)
    assert out.read_text()  # --output wrote its file


def test_a_module_appearing_where_a_library_import_looked_is_analysed_again(tmp_path):
    # vendlib tries its optional `.fast` submodule first: missing, Block comes from `.slow`
    args = vendored_project(tmp_path)
    package = tmp_path / "vendor" / "vendlib"
    (package / "slow.py").write_text(VENDORED)
    (package / "__init__.py").write_text("try:\n    from .fast import Block\nexcept ImportError:\n"
                                         "    from .slow import Block\n")
    assert totals(full(*args, cwd=tmp_path / "proj")) == (128, 36)  # Linear(8, 4), as above
    served(*args, cwd=tmp_path / "proj")
    (package / "fast.py").write_text(VENDORED.replace("nn.Linear(8, 4)", "nn.Linear(8, 8)"))
    assert totals(analysed(*args, cwd=tmp_path / "proj")) == (256, 72)  # Linear(8, 8), as above


def test_a_record_holds_no_option_value_as_written(tmp_path):
    # --env may carry a secret; the cache folder may be uploaded with a CI cache
    mlp_project(tmp_path)
    full("analyze", "models/mlp.py", "--input", "2x8", "--env", "TOKEN=s3cr3t-value", cwd=tmp_path)
    kept = sorted((tmp_path / "models" / ".staticflops_cache").glob("*-*.json"))
    assert [p.name.split("-")[0] for p in kept] == ["analyze", "report"]
    assert not any(b"s3cr3t-value" in p.read_bytes() for p in kept)
    served("analyze", "models/mlp.py", "--input", "2x8", "--env", "TOKEN=s3cr3t-value", cwd=tmp_path)
