"""Issue 21, items 5 and 6: `analyze --format html|csv`, `check --format github` and the
Jupyter repr of a report.  Every name here is chosen by a pull request's author: the tests
show it arrives as text (HTML entities, a quoted CSV cell, an escaped annotation), never as
markup, a spreadsheet formula or a workflow command of its own."""

import csv
import io
import json
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser

import pytest

from review_helpers import MLP, commit, git

# Seven Linear(8, 8) on a 2x8 input, each named by add_module, then an unmodelled attribute
# of torch.nn (one unknown).  By hand, per layer: MACs 2*8*8 = 128, FLOPs 2*128 = 256
# (standard: 2 per MAC), params 8*8 + 8 = 72; forward in all 7*256 = 1,792 FLOPs.
HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>', "</svg><b>x", '=HYPERLINK("http://e")',
           "@SUM(A1)", "-1+2", "a,b:c%0A"]
HOSTILE_MODEL = textwrap.dedent('''\
    import torch
    from torch import nn

    NAMES = {names!r}


    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            for name in NAMES:
                self.add_module(name, nn.Linear(8, 8))
            self.extra = getattr(nn, "</svg><script>alert(3)</script>\\n::error::fake")

        def forward(self, x):
            for layer in self.children():
                x = layer(x)
            return x
''').format(names=HOSTILE)
UNKNOWN_LINE, UNKNOWN_COL = 12, 22  # `getattr(` on line 12 after 8 spaces and "self.extra = " (13): column 22


def run(*args, cwd=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "staticflops", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


class Tags(HTMLParser):
    """Every element and attribute of a page, and its text, as a browser's parser reads them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [(tag, name, value) for name, value in attrs]

    def handle_data(self, data):
        self.text.append(data)


def parsed(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    tags.close()
    return tags


OUR_TAGS = {"html", "head", "meta", "title", "body", "div", "style", "h1", "h2", "p", "span", "b", "br", "code", "ul",
            "li", "svg", "g", "rect", "text", "table", "thead", "tbody", "tr", "th", "td"}
OUR_ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "style", "class", "id", "xmlns", "width", "height",
                  "viewbox", "role", "x", "y", "fill", "stroke", "stroke-width", "text-anchor", "title"}


def test_html_report_shows_hostile_names_as_text_and_injects_nothing(tmp_path):
    """Layer names `<script>...`, `"><img onerror=...>` and `</svg><b>`, and an unknown quoting
    `</svg><script>`: the page has only the elements and attributes the renderer writes (no
    script, no event handler, the three charts' SVGs intact), and every name is in its text."""
    model = tmp_path / "m.py"
    model.write_text(HOSTILE_MODEL)
    result = run("analyze", model, "-i", "2x8", "--format", "html", "-o", tmp_path / "r.html")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # the page went to the file
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    tags = parsed(page)
    assert set(tags.tags) <= OUR_TAGS, set(tags.tags) - OUR_TAGS
    assert {name for _, name, _ in tags.attributes} <= OUR_ATTRIBUTES
    assert tags.tags.count("svg") == 3 and tags.tags.count("script") == 0
    assert "<script" not in page and "</svg><" not in page.replace("</svg><h2>", "").replace("</svg><p", "")
    text = "".join(tags.text)
    for name in HOSTILE:
        assert f"{name} (Linear): 256 FLOPs" in text  # the icicle's tooltip, decoded by the parser
        assert name in text
    assert "`torch.nn.</svg><script>alert(3)</script>\\n::error::fake` is not modelled" in text
    # the incompleteness said on the totals line, in the text output's words
    assert "Total forward: ≥ 1.79 KFLOPs — incomplete, 1 unresolved" in text
    assert f"{model}:{UNKNOWN_LINE}:{UNKNOWN_COL}" in text and "[SF400]" in text
    policy = [value for tag, name, value in tags.attributes if tag == "meta" and name == "content"][0]
    assert policy.startswith("default-src 'none'")  # no script, no request, even if something slipped through


def test_html_sizes_a_symbolic_count_by_its_leading_terms_and_shows_the_formula(tmp_path):
    """review_helpers' MLP on Bx8: body.0 = Linear(8, 16): 2*8*16 = 256*B FLOPs, body.2 =
    Linear(16, 4): 2*16*4 = 128*B, ReLU 0; 384*B in all.  At B = 1 the 960 px chart gives
    body.0 960*256/384 = 640 px from x = 0, body.2 960*128/384 = 320 px from x = 640."""
    model = tmp_path / "mlp.py"
    model.write_text(MLP)
    result = run("analyze", model, "-i", "Bx8", "--format", "html")
    assert result.returncode == 0, result.stderr
    page = result.stdout
    flops_chart = page[page.index('id="flops-chart"'):page.index('id="params-chart"')]
    boxes = {name: (float(x), float(width)) for name, x, width in
             re.findall(r'<title>([\w.]+) \(\w+\): [^<]*</title><rect x="([\d.]+)" y="\d+" width="([\d.]+)"',
                        flops_chart)}
    assert boxes["body.0"] == (0.0, 640.0) and boxes["body.2"] == (640.0, 320.0)
    assert "body.1" not in boxes  # 0 FLOPs: no box
    assert "<title>body.0 (Linear): 256*B</title>" in flops_chart  # the formula in the tooltip
    assert "Total forward: 384 FLOPs·B" in "".join(parsed(page).text)
    assert "drawn by their leading terms with every symbol = 1" in page


def test_csv_has_the_json_row_columns_rfc_4180_quoting_and_no_spreadsheet_formulas(tmp_path):
    model = tmp_path / "m.py"
    model.write_text(HOSTILE_MODEL)
    out = tmp_path / "r.csv"
    result = run("analyze", model, "-i", "2x8", "--format", "csv", "-o", out)
    assert result.returncode == 0, result.stderr
    raw = out.read_bytes().decode("utf-8")
    assert raw.endswith("\r\n") and "\n" not in raw.replace("\r\n", "")  # CRLF records, RFC 4180
    assert '"\'=HYPERLINK(""http://e"")"' in raw  # quotes doubled inside a quoted cell
    rows = list(csv.reader(io.StringIO(raw, newline="")))
    assert rows[0] == ["name", "type", "depth", "location", "output_shape", "forward_flops", "macs", "params", "calls"]
    shown = {'=HYPERLINK("http://e")': '\'=HYPERLINK("http://e")', "@SUM(A1)": "'@SUM(A1)", "-1+2": "'-1+2"}
    assert [row[0] for row in rows[1:]] == [shown.get(name, name) for name in HOSTILE]
    for row in rows[1:]:
        assert row[1:] == ["Linear", "1", f"{model}:11:35", "2x8", "256", "128", "72", "1"]


def test_csv_keeps_formulas_as_text_and_adds_backward_with_training(tmp_path):
    model = tmp_path / "mlp.py"
    model.write_text(MLP)
    result = run("analyze", model, "-i", "Bx8", "--format", "csv", "--training")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert list(rows[0]) == ["name", "type", "depth", "location", "output_shape", "forward_flops", "macs", "params",
                             "calls", "backward_flops"]
    by_name = {row["name"]: row for row in rows}
    # Linear(8, 16) and Linear(16, 4), per sample: 2*8*16 = 256 and 2*16*4 = 128 FLOPs
    assert by_name["body.0"]["forward_flops"] == "256*B" and by_name["body.2"]["forward_flops"] == "128*B"
    assert by_name["body.0"]["output_shape"] == "Bx16"
    report = json.loads(run("analyze", model, "-i", "Bx8", "--format", "json", "--training").stdout)
    assert [row["backward_flops"] for row in rows] == [str(layer["backward_flops"]) for layer in report["layers"]]


def test_html_and_csv_are_refused_for_a_folder(tmp_path):
    (tmp_path / "mlp.py").write_text(MLP)
    result = run("analyze", tmp_path, "-i", "2x8", "--format", "csv")
    assert result.returncode == 2 and "--format csv is for one file, not a folder" in result.stderr


def test_output_never_overwrites_the_model_file(tmp_path):
    model = tmp_path / "mlp.py"
    model.write_text(MLP)
    result = run("analyze", model, "-i", "2x8", "--format", "html", "-o", model)
    assert result.returncode == 2 and "is the model file itself" in result.stderr
    assert model.read_text() == MLP


def github_repo(root):
    """A committed project whose model file name, model name and layers are hostile, over its
    budgets (1,792 FLOPs > 1,000; 504 params > 300) and with one unknown."""
    (root / "models").mkdir(parents=True)
    (root / "models" / "m,1:2.py").write_text(HOSTILE_MODEL)
    (root / "pyproject.toml").write_text(textwrap.dedent(f'''\
        [[tool.staticflops.models]]
        name = {json.dumps("net%,x:y" + chr(10) + "::warning::forged")}
        path = "models/m,1:2.py"
        inputs = ["2x8"]
        budget = {{ forward_flops = 1000, params = 300 }}
    '''))
    git(root, "init", "-q")
    for key, value in (("user.email", "t@example.com"), ("user.name", "t"), ("commit.gpgsign", "false")):
        git(root, "config", key, value)
    commit(root, "model")
    return root


@pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="needs git")
def test_check_github_annotations_are_located_and_escaped(tmp_path):
    repo = github_repo(tmp_path)
    result = run("check", "--format", "github", "--no-cache", cwd=repo)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    # every line is one of ours: the name's newline is `\n` text, not a second (forged) command
    assert all(line.startswith(("::error file=", "staticflops check: ")) for line in lines), lines
    name = "net%25,x:y\\n::warning::forged"  # in a message: only % (and CR, LF) are escaped
    where = "file=models/m%2C1%3A2.py"  # in a property, `,` and `:` are escaped too
    # a failed budget points at its key in the config: line 5 is `budget = { forward_flops = 1000,
    # params = 300 }`; `forward_flops` starts after the 11 characters "budget = { " (column 12),
    # `params` after those and the 22 of "forward_flops = 1000, " (column 11 + 22 + 1 = 34)
    assert (f"::error file=pyproject.toml,line=5,col=12,title=staticflops budget::{name}: forward_flops is over "
            "budget: 1,792 > 1,000 (+792)") in lines
    assert (f"::error file=pyproject.toml,line=5,col=34,title=staticflops budget::{name}: params is over budget: "
            "504 > 300 (+204)") in lines
    # the model's other problem (the unknown makes its counts lower bounds) stays on its file
    assert any(line.startswith(f"::error {where},title=staticflops budget::{name}: 1 thing(s) could not be resolved")
               for line in lines)
    assert (f"::error {where},line={UNKNOWN_LINE},col={UNKNOWN_COL},title=staticflops SF400::{name}: not resolved: "
            "`torch.nn.</svg><script>alert(3)</script>\\n::error::fake` is not modelled [SF400]") in lines
    assert lines[-1] == "staticflops check: budget check failed: 0 of 1 model(s) pass"


def test_github_command_escapes_per_the_runner_rules():
    from staticflops.report.github import command

    # visible() first turns CR/LF into `\r`/`\n` text; the runner's escapes then apply to the rest
    assert command("warning", "100% a\r\nb", file="a,b:c.py", line=3, title="t%") == \
        "::warning file=a%2Cb%3Ac.py,line=3,title=t%25::100%25 a\\r\\nb\n"
    assert command("error", "x") == "::error::x\n"


def test_report_renders_itself_in_jupyter(tmp_path):
    import staticflops
    from staticflops.report.markdown import render_markdown

    model = tmp_path / "m.py"
    model.write_text(HOSTILE_MODEL)
    report = staticflops.analyze(model, inputs=["2x8"])
    fragment = report._repr_html_()
    assert fragment.startswith('<div class="sf">') and "<!DOCTYPE" not in fragment and "<html" not in fragment
    tags = parsed(fragment)
    assert set(tags.tags) <= OUR_TAGS and "script" not in tags.tags and tags.tags.count("svg") == 3
    assert "Total forward: ≥ 1.79 KFLOPs — incomplete, 1 unresolved" in "".join(tags.text)
    markdown = report._repr_markdown_()
    assert markdown == render_markdown(report)
    assert markdown.startswith("**`MLP`** (`") and "**≥ 1.79 KFLOPs** forward — incomplete, 1 unresolved" in markdown


def test_html_has_the_training_and_memory_figures(tmp_path):
    """review_helpers' MLP on 2x8 with --training --dtype bfloat16.  Forward: body.0 =
    Linear(8, 16): 2*2*8*16 = 512 FLOPs, body.2 = Linear(16, 4): 2*2*16*4 = 256; 768 in all.
    Backward: weight gradients 512 + 256 = 768; input gradients only for body.2 (body.0's input
    is the model's input): 256; so 1,024 = 1.02 K, and 768 + 1,024 = 1,792 = 1.79 K per step.
    Memory at 2 bytes: params 212*2 = 424 B; activations (2*16 + 2*16 + 2*4)*2 = 144 B."""
    model = tmp_path / "mlp.py"
    model.write_text(MLP)
    result = run("analyze", model, "-i", "2x8", "--training", "--dtype", "bfloat16", "--format", "html")
    assert result.returncode == 0, result.stderr
    tags = parsed(result.stdout)
    text = "".join(tags.text)
    assert ("Training per step: 1.79 KFLOPs = forward 768 FLOPs + backward 1.02 KFLOPs (input gradients 256 FLOPs, "
            "weight gradients 768 FLOPs)") in text
    assert "Memory (bfloat16): params 424 B, activations 144 B (every op output)" in text
    assert "Bwd FLOPs" in text and "Total forward: 768 FLOPs (384 MACs)" in text


def test_html_of_modules_nested_thousands_deep_renders_a_bounded_chart():
    """A chain of 3,000 nested modules (a model can build one recursively): no recursion
    error, and the icicle stops at MAX_ROWS levels.  Each level 10 FLOPs of its own child."""
    from staticflops.report.html_charts import MAX_ROWS, ROW
    from staticflops.report.html_page import render_html
    from staticflops.report.schema import Layer, Report, Totals

    layers = [Layer(name=".".join(["m"] * depth), type="Nest", kind="module", depth=depth, location=f"x.py:{depth}:1",
                    output_shape=[1], forward_flops=10, macs=5, params=0) for depth in range(1, 3_001)]
    report = Report(file="x.py", model="Deep", framework="pytorch", rules="standard", inputs=["1"], outputs=[[1]],
                    totals=Totals(forward_flops=10, macs=5, params=0, trainable_params=0, convention="c", complete=True),
                    layers=layers)
    page = render_html(report)
    chart = page[page.index('id="flops-chart"'):page.index("</svg>", page.index('id="flops-chart"'))]
    assert f'height="{MAX_ROWS * ROW}"' in chart and chart.count("<rect") == MAX_ROWS
    assert page.count("<tr") == 1 + 3_000  # the table still lists every layer


@pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="needs git")
def test_check_github_points_at_the_layer_that_grew(tmp_path):
    """review_helpers: the committed MLP (768 FLOPs, 212 params) under budgets 1K and 300,
    then WIDER inserts Linear(16, 16) at line 11, column 13: 2*16*16*2 = +1,024 FLOPs
    (1,792 > 1,000) and 16*16 + 16 = +272 params (484 > 300)."""
    from review_helpers import WIDER, make_repo

    make_repo(tmp_path, flops="1K", params="300")
    (tmp_path / "models" / "mlp.py").write_text(WIDER)
    result = run("check", "--format", "github", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    # at the budget's key in review_helpers.PYPROJECT, line 8: `budget = { forward_flops = "1K",
    # params = 300 }`: column 11 + 1 = 12, and 11 + len('forward_flops = "1K", ') + 1 = 34
    assert lines[:2] == [
        "::error file=pyproject.toml,line=8,col=12,title=staticflops budget::mlp: forward_flops is over budget: "
        "1,792 > 1,000 (+792)",
        "::error file=pyproject.toml,line=8,col=34,title=staticflops budget::mlp: params is over budget: 484 > 300 "
        "(+184)"]
    base = git(tmp_path, "rev-parse", "HEAD")[:12]  # the commit that wrote the budget line
    assert lines[2] == (f"::warning file=models/mlp.py,line=11,col=13,title=staticflops grew::mlp: body.2 (Linear) "
                        f"+1.02 KFLOPs since {base} (new)")


def test_html_training_section_says_what_the_text_output_says(tmp_path):
    # One wording for both (report/training_lines.py).  The GPT sample at 1x64 tokens:
    # N = 660,992 params - 128,000 token - 8,192 position embedding = 524,800 non-embedding,
    # 6 x 524,800 x 64 = 201,523,200 FLOPs; a device given by --peak-tflops has no name.
    page = tmp_path / "gpt.html"
    args = ("samples/transformer.py", "-i", "1x64:int64", "--training", "--steps", "10",
            "--peak-tflops", "100", "--mfu", "0.5")
    run("analyze", *args, "--format", "html", "-o", str(page))
    text = run("analyze", *args).stdout
    html = page.read_text()
    for sentence in ("Rule of thumb 6·N·T: 201.52 MFLOPs per step", "at a peak of 100.0 TFLOP/s (--peak-tflops), MFU 0.5"):
        assert sentence in text and sentence in html
    assert "None" not in html


def _table_rows(page: str, table_id: str) -> list[list[str]]:
    """The cells' text of each body row of the table with that id."""
    table = page[page.index(f'<table id="{table_id}">'):]
    table = table[:table.index("</table>")]
    return [[re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table[table.index("<tbody>"):])]


def test_html_honours_exact_and_by_type(tmp_path):
    """review_helpers' MLP on 64x8.  body.0 = Linear(8, 16): MACs 64*8*16 = 8,192, FLOPs
    2*8,192 = 16,384, params 8*16 + 16 = 144; body.2 = Linear(16, 4): MACs 64*16*4 = 4,096,
    FLOPs 8,192, params 16*4 + 4 = 68; the two Linear: 24,576 FLOPs, 12,288 MACs, 212 params
    (= 24.58 K, 12.29 K in human units); ReLU is 0 under `standard`."""
    model = tmp_path / "mlp.py"
    model.write_text(MLP)
    exact = run("analyze", model, "-i", "64x8", "--exact", "--format", "html")
    assert exact.returncode == 0, exact.stderr
    rows = {cells[0]: cells for cells in _table_rows(exact.stdout, "layers")}
    assert rows["body.0"][3:6] == ["16,384", "8,192", "144"]
    assert rows["body.2"][3:6] == ["8,192", "4,096", "68"]
    assert rows["body"][3:5] == ["24,576", "12,288"]
    assert 'id="types"' not in exact.stdout
    human_units = run("analyze", model, "-i", "64x8", "--format", "html")
    assert {cells[0]: cells for cells in _table_rows(human_units.stdout, "layers")}["body"][3:5] == ["24.58 K", "12.29 K"]

    for flags, counts in ((["--by-type"], ["24.58 K", "12.29 K"]), (["--by-type", "--exact"], ["24,576", "12,288"])):
        typed = run("analyze", model, "-i", "64x8", *flags, "--format", "html")
        assert typed.returncode == 0, typed.stderr
        assert 'id="layers"' not in typed.stdout  # the type table instead, as in the terminal
        types = {cells[0]: cells for cells in _table_rows(typed.stdout, "types")}
        assert types["Linear"] == ["Linear", "2", *counts, "212", "100.0%"]
        assert types["ReLU"][:4] == ["ReLU", "1", "0", "0"]


GATED = textwrap.dedent('''
    import torch.nn as nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4)

        def forward(self, x):
            if x.shape[1] > 1:
                return self.a(x)
            return x
''')


def test_a_size_compared_with_a_number_gets_a_hint_and_assume_settles_it(tmp_path):
    """`x.shape[1] > 1` with T symbolic cannot be decided: the table and the Markdown say how to
    state T's range; with --assume T>=2 the Linear runs on T rows, 2*T*4*4 = 32*T FLOPs, complete,
    and the totals line says the range."""
    (tmp_path / "m.py").write_text(GATED)
    table = run("analyze", "m.py", "--input", "1xTx4", "--no-cache", cwd=tmp_path)
    assert "hint: T is compared with a number: state its range with --assume" in table.stdout
    markdown = run("analyze", "m.py", "--input", "1xTx4", "--no-cache", "--format", "markdown", cwd=tmp_path)
    assert "state its range with --assume" in markdown.stdout
    settled = run("analyze", "m.py", "--input", "1xTx4", "--assume", "T>=2", "--no-cache", "--format", "json",
                  cwd=tmp_path)
    report = json.loads(settled.stdout)
    assert report["totals"]["forward_flops"] == "32*T" and report["totals"]["complete"]
    assert report["assumed"] == ["2 <= T"] and report["unknown"] == []
    table = run("analyze", "m.py", "--input", "1xTx4", "--assume", "T>=2", "--no-cache", cwd=tmp_path)
    assert "FLOPs·T — for 2 <= T" in table.stdout and "hint:" not in table.stdout
    refused = run("analyze", "m.py", "--input", "1xTx4", "--assume", "S>=2", "--no-cache", cwd=tmp_path)
    assert refused.returncode == 1 and "S is not a size named in --input" in refused.stderr


def test_a_folder_row_says_the_range_its_counts_hold_in(tmp_path):
    """Folder mode with --assume: each row's status names the range (32*T FLOPs as above)."""
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.py").write_text(GATED)
    result = run("analyze", "models", "--input", "1xTx4", "--assume", "T>=2", "--no-cache", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "32 FLOPs·T" in result.stdout and "ok, for 2 <= T" in result.stdout
