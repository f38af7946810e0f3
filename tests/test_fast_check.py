"""check's no-op fast path (staticflops/verdicts.py, cli/entry.py): with nothing changed the
console script prints the last verdict without importing libcst, pydantic, rich or typer; it
prints exactly what the full path prints, with the same exit status; and any change to what
the verdict depends on (the model, a file it imports, the config, a rule file, a third-party
module) sends it to the full path."""

import json
import shutil
import textwrap
import time
from pathlib import Path

import pytest

from review_helpers import HEAVY, MLP, USES_VENDORED, VENDORED, make_repo, run_console, run_full

from staticflops import cachefolder

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

def fast(*args, cwd):
    """The console script, with ``-X importtime``: (result, the top-level packages imported)."""
    result, imported, errors = run_console(*args, cwd=cwd)
    result.stderr = "\n".join(errors)
    return result, {name.split(".")[0] for name in imported}


def full(*args, cwd):
    """The full command line, never the fast path."""
    return run_full(*args, cwd=cwd)


def same(a, b) -> bool:
    return (a.stdout, a.stderr, a.returncode) == (b.stdout, b.stderr, b.returncode)


def warm(repo: Path, *args):
    """Run the full check twice: the first analyses and records, the second prints what a
    check with everything cached prints (``(cached)``, ``"cached": true``)."""
    first = full("check", *args, cwd=repo)
    assert not first.stderr, first.stderr
    return full("check", *args, cwd=repo)


def test_warm_noop_check_imports_none_of_the_heavy_stack(tmp_path):
    make_repo(tmp_path)
    warm(tmp_path)
    result, imported = fast("check", cwd=tmp_path)
    assert not set(HEAVY) & imported, sorted(set(HEAVY) & imported)
    assert "staticflops" in imported  # the listing is read right
    assert same(result, full("check", cwd=tmp_path))  # the full path now finds everything cached: same text
    assert result.returncode == 0 and "mlp (cached)" in result.stdout


@pytest.mark.parametrize("args", [(), ("--format", "json"), ("--format=markdown",), ("--exact",), ("-f", "json", "--exact"),
                                  ("--", "models/mlp.py"), ("-j", "2", "pyproject.toml")])
def test_fast_path_prints_what_the_full_path_prints(tmp_path, args):
    make_repo(tmp_path)
    warm(tmp_path, *args)
    result, imported = fast("check", *args, cwd=tmp_path)
    assert "pydantic" not in imported
    assert same(result, full("check", *args, cwd=tmp_path))


def test_a_commit_touching_no_model_is_answered_fast(tmp_path):
    make_repo(tmp_path)
    (tmp_path / "README.md").write_text("hello\n")
    (tmp_path / "other.py").write_text("x = 1\n")
    warm(tmp_path)  # the record names each model's files
    result, imported = fast("check", "--", "other.py", "README.md", cwd=tmp_path)
    assert "pydantic" not in imported
    assert result.returncode == 0 and result.stdout == "staticflops check: no configured model reads the given files\n"
    assert same(result, full("check", "--", "other.py", "README.md", cwd=tmp_path))


UNRESOLVED = MLP.replace("from torch import nn\n", "from torch import nn\nfrom mylib import mystery\n").replace(
    "return self.body(x)", "return mystery(self.body(x))")


def test_an_incomplete_model_fails_on_the_fast_path_too(tmp_path):
    make_repo(tmp_path, model=UNRESOLVED)
    assert warm(tmp_path).returncode == 1
    result, imported = fast("check", cwd=tmp_path)
    assert "pydantic" not in imported
    assert result.returncode == 1 and "could not be resolved" in result.stdout
    assert same(result, full("check", cwd=tmp_path))


def test_an_overrun_always_takes_the_full_path(tmp_path):
    # naming the layers that grew reads git history, which the record does not cover
    make_repo(tmp_path, flops="700")  # 768 FLOPs > 700
    assert warm(tmp_path).returncode == 1
    result, imported = fast("check", cwd=tmp_path)
    assert "pydantic" in imported
    assert result.returncode == 1 and "forward_flops is over budget: 768 > 700 (+68)" in result.stdout
    assert same(result, full("check", cwd=tmp_path))


HELPER = textwrap.dedent("""\
    from torch import nn


    def block(width):
        return nn.Linear(8, width)
""")
# MLP with its first layer from a helper module: the same 768 FLOPs while width is 16
WITH_HELPER = MLP.replace("from torch import nn\n", "from torch import nn\nfrom models.helper import block\n").replace(
    "nn.Linear(8, width),", "block(width),")


def _edit(repo: Path, what: str) -> None:
    if what == "model":  # width 16 -> 32: 2*(2*8*32 + 2*32*4) = 1,536 FLOPs, over 1K
        path = repo / "models" / "mlp.py"
        path.write_text(path.read_text().replace("width=16", "width=32"))
    elif what == "helper":  # Linear(8, w) -> Linear(8, w, bias=False): params 212 - 16 = 196
        path = repo / "models" / "helper.py"
        path.write_text(path.read_text().replace("nn.Linear(8, width)", "nn.Linear(8, width, bias=False)"))
    elif what == "config":
        path = repo / "pyproject.toml"
        path.write_text(path.read_text().replace("params = 300", "params = 250"))
    elif what == "rules":  # every Linear costs 1 MAC: 2 FLOPs per Linear, 4 in all
        (repo / "rules.yaml").write_text("name: mine\nextends: standard\nrules:\n  linear:\n    macs: 1\n")
    elif what == "new file":  # the root's __init__.py was looked for (is models/ a subpackage?) and missing
        (repo / "__init__.py").write_text("")


@pytest.mark.parametrize("what", ["model", "helper", "config", "rules", "new file"])
def test_any_change_the_verdict_depends_on_sends_it_to_the_full_path(tmp_path, what):
    make_repo(tmp_path, model=WITH_HELPER)
    (tmp_path / "models" / "helper.py").write_text(HELPER)
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "rules.yaml").write_text("name: mine\nextends: standard\n")
    config = tmp_path / "pyproject.toml"
    config.write_text(config.read_text().replace('inputs = ["2x8"]', 'inputs = ["2x8"]\nrules = "rules.yaml"'))
    before = warm(tmp_path, "--format", "json")
    assert before.returncode == 0
    assert fast("check", "--format", "json", cwd=tmp_path)[0].stdout == before.stdout  # served while unchanged
    _edit(tmp_path, what)
    result, imported = fast("check", "--format", "json", cwd=tmp_path)
    assert "pydantic" in imported  # the full path decided
    assert result.stdout != before.stdout
    lines = {line["metric"]: line["measured"] for line in json.loads(result.stdout)["models"][0]["budgets"]}
    # model: width 32 -> params (8*32 + 32) + (32*4 + 4) = 288 + 132 = 420
    expected = {"model": (1536, 420), "helper": (768, 196), "config": (768, 212), "rules": (4, 212),
                "new file": (768, 212)}[what]
    assert (lines["forward_flops"], lines["params"]) == expected
    again = full("check", "--format", "json", cwd=tmp_path)  # the same verdict, from the cache now
    assert json.loads(again.stdout)["models"][0]["budgets"] == json.loads(result.stdout)["models"][0]["budgets"]
    assert again.returncode == result.returncode == (1 if what == "model" else 0)




@pytest.mark.parametrize("settled", [False, True], ids=["just written", "settled"])
def test_a_third_party_module_is_part_of_the_verdict(tmp_path, settled):
    # a library read through source_path (not the project's own files): its bytes are recorded
    # too, so the results cache and the fast path notice an upgrade.  Settled (last changed over
    # cachefolder.SETTLED_NS before it was read): its stamp is recorded and trusted while equal,
    # and the same-size edit below still changes the stamp (ctime).
    make_repo(tmp_path, model=USES_VENDORED)
    (tmp_path / "vendor" / "vendlib").mkdir(parents=True)
    (tmp_path / "vendor" / "vendlib" / "__init__.py").write_text(VENDORED)
    if settled:
        time.sleep(2.2)
    config = tmp_path / "pyproject.toml"
    config.write_text(config.read_text().replace("[[tool.staticflops.models]]",
                                                 '[tool.staticflops]\nsource_path = ["vendor"]\n\n[[tool.staticflops.models]]', 1)
                      .replace('"models/mlp.py"', '"models/mlp.py"\nmodel = "Net"'))
    first = warm(tmp_path, "--format", "json")
    lib = tmp_path / "vendor" / "vendlib" / "__init__.py"
    if not settled and time.time_ns() - lib.stat().st_ctime_ns > cachefolder.SETTLED_NS:
        # the two runs took longer than the settle time (a loaded machine): the file was
        # already settled when they read it, so this case cannot be observed on this run
        pytest.skip("the machine was too slow to read the file while it was still unsettled")
    # Linear(8, 4) on 2x8: 2*8*4 = 64 MACs, 128 FLOPs
    assert json.loads(first.stdout)["models"][0]["budgets"][0]["measured"] == 128, first.stdout
    assert fast("check", "--format", "json", cwd=tmp_path)[0].stdout == first.stdout
    (record,) = (tmp_path / ".staticflops_cache").glob("check-*.json")
    stamps = json.loads(record.read_bytes().partition(b"\n")[2])["models"]["mlp"]["stamps"]
    assert (str(lib.resolve()) in stamps) == settled
    lib.write_text(lib.read_text().replace("nn.Linear(8, 4)", "nn.Linear(8, 8)"))
    result, imported = fast("check", "--format", "json", cwd=tmp_path)
    assert "pydantic" in imported
    # Linear(8, 8): 2*8*8 = 128 MACs, 256 FLOPs
    assert json.loads(result.stdout)["models"][0]["budgets"][0]["measured"] == 256


def test_a_record_not_signed_by_this_user_is_ignored(tmp_path):
    make_repo(tmp_path)
    warm(tmp_path)
    (record,) = (tmp_path / ".staticflops_cache").glob("check-*.json")
    signature, _, payload = record.read_bytes().partition(b"\n")
    data = json.loads(payload)
    for rendering in data["renderings"]:
        rendering["stdout"] = "all budgets met (forged)\n"
    record.write_bytes(signature + b"\n" + json.dumps(data).encode())
    result, imported = fast("check", cwd=tmp_path)
    assert "pydantic" in imported and "forged" not in result.stdout and result.returncode == 0


def test_options_it_does_not_know_take_the_full_path(tmp_path):
    make_repo(tmp_path)
    warm(tmp_path)
    for args in (("--no-cache",), ("--max-steps", "100000000"), ("-fjson",)):
        result, imported = fast("check", *args, cwd=tmp_path)
        assert "pydantic" in imported and result.returncode == 0, args


def test_second_cli_analysis_of_unchanged_sources_does_not_import_libcst(tmp_path):
    # the parsed-module cache, through the console script (test_parsed_cache.py: through the API)
    (tmp_path / "project").mkdir()
    model = tmp_path / "project" / "resnet50.py"
    shutil.copy(Path(__file__).resolve().parent.parent / "samples" / "resnet50.py", model)
    first, imported_first = fast("analyze", str(model), "--input", "1x3x224x224", "--format", "json", cwd=tmp_path)
    second, imported_second = fast("analyze", str(model), "--input", "1x3x112x112", "--format", "json", cwd=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    assert "libcst" in imported_first and "libcst" not in imported_second


@pytest.mark.parametrize("kind", ["toml", "yaml"])
def test_a_configured_cache_folder_is_found(tmp_path, kind):
    make_repo(tmp_path)
    if kind == "toml":
        config = tmp_path / "pyproject.toml"
        config.write_text(config.read_text().replace("[[tool.staticflops.models]]",
                                                     "[tool.staticflops]\ncache_dir = 'build/sf'  # ours\n\n"
                                                     "[[tool.staticflops.models]]", 1))
    else:
        (tmp_path / "pyproject.toml").unlink()
        (tmp_path / "staticflops.yaml").write_text(textwrap.dedent("""\
            cache_dir: "build/sf"
            models:
              - name: mlp
                path: models/mlp.py
                inputs: ["2x8"]
                budget: {forward_flops: 1K, params: 300}
        """))
    warm(tmp_path)
    assert list((tmp_path / "build" / "sf").glob("check-*.json")) and not (tmp_path / ".staticflops_cache").exists()
    result, imported = fast("check", cwd=tmp_path)
    assert "pydantic" not in imported
    assert same(result, full("check", cwd=tmp_path)) and result.returncode == 0
