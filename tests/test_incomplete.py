"""Honest totals: a lower bound never looks like a total.  The totals line says `incomplete`
with the count, `check` says `incomplete`, `--strict` fails, every unknown has a code from the
catalogue, and `# staticflops: ignore[CODE]` accepts exactly the report it names.

The model is the functional-einops fixture (ground truth: tools/record_einops.py, torch 2.13.0
CPU + einops 0.8.2) with two calls added that nothing models (`torch.frobnicate`), whose
results are unused: the recorded forward FLOPs stay the right total, and each call is one
unknown at its own line."""

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import staticflops
from staticflops.api import analyze_text
from staticflops.codes import CATALOGUE
from staticflops.report.schema import SCHEMA_FILE, generated_schema

HERE = Path(__file__).parent
ROOT = HERE.parent
FUNCTIONAL = "tests/fixtures/einops_cases/functional.py"
TRUTH = json.loads((HERE / "fixtures" / "einops_ground_truth.json").read_text())[FUNCTIONAL]
SHAPE = "x".join(str(d) for d in TRUTH["inputs"][0]["shape"])  # 2x3x32x32
# 2,808,576 recorded FLOPs -> 2.81 MFLOPs as the table writes it (two decimals of 10**6)
TOTAL_TEXT = f"{TRUTH['forward_flops'] / 10**6:.2f} MFLOPs"
ANCHOR = "        x = self.grouped(x)\n"
FIRST_LINE = 34  # the two calls go right after `x = self.grouped(x)` (line 33 of the fixture)


def model(first: str = "", second: str = "") -> str:
    """The fixture with `torch.frobnicate(x)` at line 34 and `torch.defrobnicate(x)` at 35,
    each followed by the given comment."""
    text = (ROOT / FUNCTIONAL).read_text()
    assert text.splitlines()[FIRST_LINE - 2] == ANCHOR.rstrip("\n")
    added = f"        torch.frobnicate(x){first}\n        torch.defrobnicate(x){second}\n"
    return text.replace(ANCHOR, ANCHOR + added)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "vit.py"
    path.write_text(text)
    return path


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True, cwd=cwd)


# ---- the totals line -------------------------------------------------------------------------

def test_totals_line_says_incomplete_with_the_count(tmp_path):
    path = write(tmp_path, model())
    result = cli("analyze", str(path), "--input", SHAPE, cwd=tmp_path)
    assert result.returncode == 0, result.stderr  # without --strict an incomplete report is still a report
    total = next(line for line in result.stdout.splitlines() if line.startswith("Total forward:"))
    assert total.startswith(f"Total forward: ≥ {TOTAL_TEXT} — incomplete, 2 unresolved  (")
    # each unknown at its line with its code, as linters print them
    assert f"vit.py:{FIRST_LINE}:9: `torch.frobnicate` is not modelled [SF400]" in result.stdout
    assert f"vit.py:{FIRST_LINE + 1}:9: `torch.defrobnicate` is not modelled [SF400]" in result.stdout


def test_markdown_totals_say_incomplete(tmp_path):
    path = write(tmp_path, model())
    result = cli("analyze", str(path), "--input", SHAPE, "--format", "markdown", cwd=tmp_path)
    assert f"**≥ {TOTAL_TEXT}** forward — incomplete, 2 unresolved (" in result.stdout
    assert f"- `{path}:{FIRST_LINE}:9`: `` `torch.frobnicate` is not modelled `` [`SF400`]" in result.stdout


def test_json_unknowns_carry_codes_and_the_report_its_tool_version(tmp_path):
    report = json.loads(cli("analyze", str(write(tmp_path, model())), "--input", SHAPE, "--format", "json",
                            cwd=tmp_path).stdout)
    assert report["totals"]["complete"] is False
    assert report["totals"]["forward_flops"] == TRUTH["forward_flops"]  # the unused calls cost nothing
    assert [(u["location"].rsplit(":", 2)[1], u["code"]) for u in report["unknown"]] == [
        (str(FIRST_LINE), "SF400"), (str(FIRST_LINE + 1), "SF400")]
    assert report["suppressed"] == []
    assert report["tool_version"] == staticflops.__version__
    assert report["schema_version"] == 1


def test_a_complete_model_has_a_plain_total():
    result = cli("analyze", FUNCTIONAL, "--input", SHAPE, "--strict", cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert f"Total forward: {TOTAL_TEXT}  (" in result.stdout
    assert "incomplete" not in result.stdout and "≥" not in result.stdout


# ---- --strict --------------------------------------------------------------------------------

def test_strict_exits_1_on_any_unknown_after_printing(tmp_path):
    result = cli("analyze", str(write(tmp_path, model())), "--input", SHAPE, "--strict", cwd=tmp_path)
    assert result.returncode == 1
    assert "Total forward: ≥" in result.stdout  # the report is printed first
    assert re.fullmatch(rf".*vit\.py:{FIRST_LINE}:9: error: 2 unresolved, the totals are lower bounds \(--strict\); "
                        r"first: `torch\.frobnicate` is not modelled \[SF400\]\n", result.stderr)


def test_strict_applies_to_folder_mode(tmp_path):
    write(tmp_path, model())
    assert cli("analyze", str(tmp_path), "--input", SHAPE, cwd=tmp_path).returncode == 0
    strict = cli("analyze", str(tmp_path), "--input", SHAPE, "--strict", cwd=tmp_path)
    assert strict.returncode == 1 and "(--strict)" in strict.stderr


# ---- ignore comments -------------------------------------------------------------------------

def test_ignore_suppresses_exactly_that_one(tmp_path):
    path = write(tmp_path, model(second="  # staticflops: ignore[SF400]"))
    report = json.loads(cli("analyze", str(path), "--input", SHAPE, "--format", "json", cwd=tmp_path).stdout)
    assert [u["location"] for u in report["unknown"]] == [f"{path}:{FIRST_LINE}:9"]
    assert report["suppressed"] == [{"kind": "unknown", "code": "SF400", "location": f"{path}:{FIRST_LINE + 1}:9",
                                     "message": "`torch.defrobnicate` is not modelled"}]
    table = cli("analyze", str(path), "--input", SHAPE, cwd=tmp_path).stdout
    assert f"Total forward: ≥ {TOTAL_TEXT} — incomplete, 1 unresolved, 1 suppressed  (" in table
    assert "defrobnicate" not in table  # listed in the JSON, not among what is left to resolve
    assert cli("analyze", str(path), "--input", SHAPE, "--strict", cwd=tmp_path).returncode == 1  # one is left


def test_suppressing_every_unknown_passes_strict_but_stays_a_lower_bound(tmp_path):
    comment = "  # staticflops: ignore[SF400]"
    path = write(tmp_path, model(first=comment, second=comment))
    result = cli("analyze", str(path), "--input", SHAPE, "--strict", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"Total forward: ≥ {TOTAL_TEXT} — lower bound, 2 suppressed  (" in result.stdout
    report = analyze_text(model(first=comment, second=comment), "vit.py", inputs=[SHAPE])
    assert report.unknown == [] and len(report.suppressed) == 2
    assert report.totals.complete is False  # the counts leave the calls out: the comment changes the verdict only


@pytest.mark.parametrize("comment", [
    "  # staticflops: ignore[SF401]",  # another code
    "  # staticflops: ignore",  # no code: a blanket ignore suppresses nothing
    "  # staticflops: ignore[]",
    '; "# staticflops: ignore[SF400]"',  # the marker in a string, not a comment
])
def test_only_a_comment_naming_the_code_suppresses(comment):
    report = analyze_text(model(first=comment), "vit.py", inputs=[SHAPE])
    assert len(report.unknown) == 2 and report.suppressed == []


def test_one_comment_can_name_several_codes():
    report = analyze_text(model(first="  # staticflops: ignore[SF401, SF400]"), "vit.py", inputs=[SHAPE])
    assert [u.location for u in report.unknown] == [f"vit.py:{FIRST_LINE + 1}:9"]
    assert [s.location for s in report.suppressed] == [f"vit.py:{FIRST_LINE}:9"]


def test_an_assumed_condition_is_one_code_for_its_warning_and_its_unknown():
    # `if` on an unknown condition: a warning SF131 (assumed true) and an unknown with the same
    # code at the condition; the import of `mystery` (line 3) is an SF400 of its own
    text = textwrap.dedent("""\
        import torch
        from torch import nn
        from mystery import FLAG


        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                if FLAG:{comment}
                    x = self.fc(x)
                return x
        """)
    plain = analyze_text(text.format(comment=""), "m.py", inputs=["1x4"])
    assert [d.code for d in plain.diagnostics] == ["SF131"]
    assert [(u.location, u.code) for u in plain.unknown] == [("m.py:3:1", "SF400"), ("m.py:12:12", "SF131")]
    quiet = analyze_text(text.format(comment="  # staticflops: ignore[SF131]"), "m.py", inputs=["1x4"])
    assert quiet.diagnostics == [] and [u.location for u in quiet.unknown] == ["m.py:3:1"]
    assert [(s.kind, s.code) for s in quiet.suppressed] == [("unknown", "SF131"), ("warning", "SF131")]


SKIPPED = textwrap.dedent("""\
    import torch
    from torch import nn

    N = [1][5]{comment}


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x)
    """)  # line 4 fails (IndexError) and is skipped: an SF130 note; N is never used, so no unknown


def test_notes_are_listed_with_their_codes_and_accepted_by_theirs(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SKIPPED.format(comment=""))
    table = cli("analyze", "m.py", "--input", "1x4", cwd=tmp_path).stdout
    assert ("Notes (1):\n  m.py:4:1: info: statement skipped, the names it binds left unknown: m.py:4:5: index 5 is "
            "out of range for list [1] [SF130]\n") in table
    assert "Total forward: 32 FLOPs  (" in table  # complete: 1x4 @ 4x4 = 16 MACs = 32 FLOPs
    path.write_text(SKIPPED.format(comment="  # staticflops: ignore[SF130]"))
    quiet = json.loads(cli("analyze", "m.py", "--input", "1x4", "--format", "json", cwd=tmp_path).stdout)
    assert quiet["diagnostics"] == [] and [(s["kind"], s["code"]) for s in quiet["suppressed"]] == [("info", "SF130")]
    assert "Notes" not in cli("analyze", "m.py", "--input", "1x4", cwd=tmp_path).stdout


# ---- check -----------------------------------------------------------------------------------

PYPROJECT = textwrap.dedent("""\
    [project]
    name = "demo"

    [tool.staticflops]
    allow_unknown = {allow}

    [[tool.staticflops.models]]
    name = "vit"
    path = "vit.py"
    inputs = ["{shape}"]
    budget = {{ forward_flops = "3M" }}
    """)  # 2,808,576 recorded FLOPs < 3,000,000: the budget is met by the lower bound


def check(tmp_path: Path, text: str, allow: bool, *extra):
    write(tmp_path, text)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(allow=str(allow).lower(), shape=SHAPE))
    return cli("check", "--no-cache", *extra, cwd=tmp_path)


def _result_column(stdout: str) -> str:
    row = next(line for line in stdout.splitlines() if "forward_flops" in line)
    return row.split()[-1] if not row.rstrip().endswith("(allowed)") else " ".join(row.split()[-2:])


def test_check_shows_incomplete_and_fails_without_allow_unknown(tmp_path):
    result = check(tmp_path, model(), allow=False)
    assert result.returncode == 1
    assert _result_column(result.stdout) == "incomplete"
    assert f"vit.py:{FIRST_LINE}:9: not resolved: `torch.frobnicate` is not modelled [SF400]" in result.stdout
    data = json.loads(check(tmp_path, model(), False, "--format", "json").stdout)
    assert data["models"][0]["status"] == "fail" and data["models"][0]["incomplete"] is True
    assert [u["code"] for u in data["models"][0]["unknown"]] == ["SF400", "SF400"]


def test_check_with_allow_unknown_passes_and_still_says_incomplete(tmp_path):
    result = check(tmp_path, model(), allow=True)
    assert result.returncode == 0, result.stdout
    assert _result_column(result.stdout) == "incomplete (allowed)"


def test_check_passes_when_ignore_comments_accept_every_unknown(tmp_path):
    comment = "  # staticflops: ignore[SF400]"
    result = check(tmp_path, model(first=comment, second=comment), allow=False)
    assert result.returncode == 0, result.stdout
    assert _result_column(result.stdout) == "pass"


def test_check_markdown_says_incomplete(tmp_path):
    result = check(tmp_path, model(), False, "--format", "markdown")
    assert "| 2.81 MFLOPs | 3.00 MFLOPs | +6.4% | incomplete |" in result.stdout  # (3M - 2,808,576) / 3M = 6.38 %


# ---- the catalogue ---------------------------------------------------------------------------

def test_every_code_in_the_package_is_catalogued_and_every_entry_used():
    package = ROOT / "staticflops"
    used = set()
    for source in package.rglob("*.py"):
        if source.name != "codes.py":
            used |= set(re.findall(r"[\"'](SF\d{3})[\"']", source.read_text()))
    assert used - set(CATALOGUE) == set()
    assert set(CATALOGUE) - used == set()
    for code, entry in CATALOGUE.items():
        assert entry.code == code and entry.summary and entry.template


# ---- version, schema, --freeze ---------------------------------------------------------------

def test_version():
    result = cli("--version")
    assert result.returncode == 0
    project = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert result.stdout == f"staticflops {project}\n" and staticflops.__version__ == project


def test_schema_is_shipped_and_printed():
    shipped = (ROOT / "staticflops" / "report" / SCHEMA_FILE).read_text()
    assert shipped == generated_schema()  # regenerate: python -c "...generated_schema()" > the file
    result = cli("schema")
    assert result.returncode == 0 and result.stdout == shipped
    schema = json.loads(result.stdout)
    assert schema["title"] == "Report"
    assert {"tool_version", "suppressed", "unknown", "totals"} <= set(schema["properties"])
    assert "code" in schema["$defs"]["Unknown"]["properties"]


def test_freeze_pattern_matching_nothing_names_close_matches():
    result = cli("analyze", "samples/lenet5.py", "--input", "1x1x32x32", "--freeze", "featurs.*", cwd=ROOT)
    assert result.returncode == 1
    # one line; the closest module path first (difflib's ratio of `featurs` to `features` is the highest)
    assert result.stderr.startswith("staticflops: error: --freeze 'featurs.*' matches no module; did you mean 'features', ")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


# ---- a layer whose input is unknown is not a layer that costs 0 --------------------------------

UNRESOLVED_ITEM = textwrap.dedent('''\
    import torch
    from torch import nn
    from mystery import Weird


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(8, 16), Weird(16), nn.Linear(16, 4))

        def forward(self, x):
            return self.body(x)
    ''')


def test_layer_after_an_unresolved_one_is_unknown_not_zero(tmp_path):
    report = analyze_text(UNRESOLVED_ITEM, tmp_path / "m.py", inputs=["2x8"])
    rows = {row.name: row for row in report.layers}
    # body.0: Linear(8, 16) on 2x8 = 2*16 outputs x 8 = 256 MACs, 512 FLOPs, counted exactly
    assert (rows["body.0"].forward_flops, rows["body.0"].macs, rows["body.0"].lower_bound) == (512, 256, None)
    # body.2 gets Weird's unknown output: nothing of it is counted, and it says so
    assert (rows["body.2"].forward_flops, rows["body.2"].macs, rows["body.2"].lower_bound) == ("unknown", "unknown", True)
    assert rows["body.2"].params == 16 * 4 + 4  # its weights are known all the same
    # the Sequential counted body.0 only: a lower bound
    assert (rows["body"].forward_flops, rows["body"].lower_bound) == (512, True)
    dumped = json.loads(report.to_json())
    assert "lower_bound" not in next(layer for layer in dumped["layers"] if layer["name"] == "body.0")
    text = cli("analyze", str(write_named(tmp_path, "m.py", UNRESOLVED_ITEM)), "--input", "2x8", cwd=tmp_path).stdout
    line = {row.split()[0]: row for row in text.splitlines() if row.strip().startswith(("body", "2 "))}
    assert "≥ 512" in line["body"] and "unknown" in line["2"]


def write_named(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path
