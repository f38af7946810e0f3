"""Issue 17, findings 9, 10, 11 and 14: what a pull request's names and files can do to our
output.  Each test is a minimal reproduction of what a PR author controls (a model file, a
config, a rule file) run through the command line, as CI runs it."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

NFKC_MODEL = textwrap.dedent('''
    import torch.nn as ｎｎ

    width = 8
    ｗｉｄｔｈ = 64
    depth = 1


    def ｓｅｔ_depth():
        global ｄｅｐｔｈ
        ｄｅｐｔｈ = 2


    set_depth()


    class ＭＬＰ(nn.Module):
        def __init__(self, ｈｉｄｄｅｎ=4):
            super().__init__()
            scale = 1

            def ｂｕｍｐ():
                nonlocal ｓｃａｌｅ
                ｓｃａｌｅ = 2

            bump()
            self.ｆｃ = nn.Linear(width, hidden * scale)
            self.fc2 = nn.Linear(in_features=hidden * scale, ｏｕｔ_ｆｅａｔｕｒｅｓ=width)

        def forward(self, x):
            for _ in range(depth):
                x = self.fc2(self.ｆｃ(x))
            return x


    def build():
        return ＭＬＰ(ｈｉｄｄｅｎ=16)
''')


def run(*args, cwd=None, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "staticflops", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


# ---- finding 9: identifiers are NFKC-normalised, as Python does -----------------------------

def test_full_width_identifiers_are_the_names_python_binds(tmp_path):
    """Every kind of name in full-width letters: an import alias (`ｎｎ`), a module variable
    (`ｗｉｄｔｈ = 64` rebinds `width`), `global`, a function and a class name, a parameter
    (`ｈｉｄｄｅｎ`), `nonlocal`, attributes (`self.ｆｃ`) and keyword arguments, in a definition
    and in calls (`ＭＬＰ(ｈｉｄｄｅｎ=16)`, `ｏｕｔ_ｆｅａｔｕｒｅｓ=width`).
    By hand, as Python runs it: width = 64, depth = 2, hidden = 16, scale = 2:
      fc  = Linear(64, 32): 64*32 = 2,048 MACs, 64*32 + 32 = 2,080 params
      fc2 = Linear(32, 64): 32*64 = 2,048 MACs, 32*64 + 64 = 2,112 params
      forward: depth 2 x (2,048 + 2,048) = 8,192 MACs = 16,384 FLOPs (standard: 2 per MAC)
      params: 2,080 + 2,112 = 4,192.
    (torch 2.13.0's FlopCounterMode on this file, run by Python: 16384 FLOPs, 4192 params.)
    Before: `ｗｉｄｔｈ` and `width` were two names; the model could not be chosen or was priced
    at width 8."""
    import json

    path = tmp_path / "model.py"
    path.write_text(NFKC_MODEL, encoding="utf-8")
    result = run("analyze", path, "--input", "1x64", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["model"] == "build"
    assert report["totals"]["forward_flops"] == 16_384
    assert report["totals"]["macs"] == 8_192
    assert report["totals"]["params"] == 4_192
    assert report["totals"]["complete"] is True
    # Rewritten names keep their places: `nn.Linear` of line 27 starts after 8 spaces, `self.`
    # and the two characters `ｆｃ` and ` = ` (column 19); line 28's after `self.fc2 = ` (20).
    assert [(layer["name"], layer["location"]) for layer in report["layers"]] == [
        ("fc", f"{path}:27:19"), ("fc2", f"{path}:28:20")]


# ---- finding 10: Markdown for the pull-request comment -------------------------------------

# What a pull request can name a layer, a model, a rule set's convention or a file: each was
# raw in the comment, or inside a backtick span its own backtick closed.
HOSTILE = [
    "![pixel](https://evil.example/p.png)",
    "[click me](https://evil.example)",
    "<img src=x onerror=alert(1)>",
    "a`b``c` <a href='https://evil.example'>x</a>",
    "x\n\n# All budgets met\n\n<!-- staticflops-diff -->",
    "``` <!-- staticflops-diff --> ```",
    "| fake | cell |",
    "\x1b[31mred\x1b[0m\r**staticflops check**: All budgets met",
    "trailing backslash\\",
    "oops[/bold] [link=https://evil.example]x[/link]",
    "\u202eevil bidi",
    "L" * 1_000,  # cut at MAX_SHOWN (300) characters with an ellipsis
]
MARKER = "<!-- staticflops-diff -->"
OUR_TAGS = {"<details>", "</details>", "<summary>", "</summary>", "<code>", "</code>", MARKER}


def render_markdown(text: str) -> tuple[str, list]:
    """HTML as a CommonMark renderer with GitHub's tables makes it, and the block tokens."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    return md.render(text), md.parse(text)


def raw_html_pieces(tokens) -> list[str]:
    """Every tag written as raw HTML in the Markdown (not produced by Markdown syntax)."""
    import re

    pieces = []
    for token in tokens:
        for inner in [token, *(token.children or [])]:
            if inner.type in ("html_block", "html_inline"):
                pieces += re.findall(r"<!--.*?-->|<[^>]*>", inner.content)
    return pieces


def assert_safe_markdown(markdown: str, headings: tuple = ()) -> str:
    """``headings``: the tags of our own headings, in order."""
    import re

    html, tokens = render_markdown(markdown)
    assert "<img" not in html and "<a " not in html and "<script" not in html.lower()
    assert tuple(t.tag for t in tokens if t.type == "heading_open") == headings  # only ours
    assert set(raw_html_pieces(tokens)) <= OUR_TAGS
    assert html.count(MARKER) == (1 if MARKER in markdown.splitlines()[-1:] else 0)  # ours, the last line
    outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
    assert "All budgets met" not in outside_code  # no fake verdict (none of these projects passes)
    assert outside_code.count("staticflops check") == markdown.startswith("**staticflops check**")
    assert "\x1b" not in markdown and "\r" not in markdown and "\u202e" not in markdown
    return html


def shown_in_code(text: str) -> str:
    """How a name reads inside <code> of the rendered HTML (markdown-it escapes &, <, >, ")."""
    from staticflops.report.escape import visible

    shown = visible(text)
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;")):
        shown = shown.replace(char, entity)
    return shown


@pytest.mark.parametrize("text", HOSTILE)
def test_a_code_span_shows_any_text_literally(text):
    from staticflops.report.escape import md_code

    html, _ = render_markdown(f"before {md_code(text)} after\n")
    assert html == f"<p>before <code>{shown_in_code(text)}</code> after</p>\n"
    table = f"| a | b |\n|---|---|\n| {md_code(text, table=True)} | 2 |\n"
    html, _ = render_markdown(table)
    assert f"<td><code>{shown_in_code(text)}</code></td>\n<td>2</td>" in html


def test_escaping_cuts_long_text_and_spells_out_control_characters():
    from staticflops.report.escape import MAX_MESSAGE, MAX_SHOWN, md_code, visible

    assert (MAX_SHOWN, MAX_MESSAGE) == (300, 2_000)  # the lengths the README documents
    assert md_code("L" * 1_000) == "`" + "L" * 299 + "…`"
    assert visible("a\nb\tc\x1b[2J\u202ed\u00a0e\U000e0001") == "a\\nb\\tc\\x1b[2J\\u202ed\\xa0e\\U000e0001"
    assert visible("é" * 2_500, MAX_MESSAGE) == "é" * 1_999 + "…"
    assert md_code("`x`") == "`` `x` ``" and md_code("") == "`  `"


HOSTILE_MODEL = textwrap.dedent('''
    import torch
    from torch import nn

    NAMES = {names!r}


    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = nn.Linear(8, 8)
            for name in NAMES:
                self.add_module(name, nn.Linear(8, 8))
            self.extra = getattr(nn, "<img src=x>\\n# Head `x` [l](https://evil.example)")

        def forward(self, x):
            for layer in self.children():
                x = layer(x)
            return x
''')
PLAIN_MODEL = HOSTILE_MODEL.replace("            for name in NAMES:\n                self.add_module(name, nn.Linear(8, 8))\n", "")
HOSTILE_FILE = "m`<img src=x>`[l](https:evil.example).py"


def toml_string(text: str) -> str:
    import json

    return json.dumps(text)  # a JSON string with \\uXXXX escapes is a TOML basic string


def hostile_project(root, hostile_convention="c [/bold] <img src=x> ``` [l](https://evil.example)\n# H"):
    """A git repository whose first commit has a plain model with a small budget; the working
    tree then names its layers, its model, its file and its rule set's convention hostilely."""
    from review_helpers import commit, git

    models = root / "models"
    models.mkdir(parents=True)
    (models / HOSTILE_FILE).write_text(PLAIN_MODEL.format(names=[]))
    (root / "hostile.yaml").write_text(f"name: hostile\nextends: standard\nconvention: {toml_string(hostile_convention)}\n")
    name = toml_string("mlp ![x](https://evil.example/x.png)\n# Heading <!-- staticflops-diff -->")
    (root / "pyproject.toml").write_text(textwrap.dedent(f'''\
        [[tool.staticflops.models]]
        name = {name}
        path = {toml_string("models/" + HOSTILE_FILE)}
        inputs = ["2x8"]
        rules = "hostile.yaml"
        budget = {{ forward_flops = 300, params = 100 }}
    '''))
    git(root, "init", "-q")
    for key, value in (("user.email", "t@example.com"), ("user.name", "t"), ("commit.gpgsign", "false")):
        git(root, "config", key, value)
    commit(root, "plain")
    (models / HOSTILE_FILE).write_text(HOSTILE_MODEL.format(names=HOSTILE))
    return root


needs_git = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                               reason="needs git")


@needs_git
def test_pr_comment_markdown_has_no_injected_html_links_images_headings_or_marker(tmp_path):
    """`diff` and `check` as the example workflow posts them, `analyze` and folder mode as a
    user might: every hostile name still shows (in a code span), nothing of it renders."""
    repo = hostile_project(tmp_path)
    diff = run("diff", "--base", "HEAD", "--format", "markdown", "--no-cache", cwd=repo)
    assert diff.returncode == 0, diff.stderr
    assert diff.stdout.splitlines()[-1] == MARKER
    html = assert_safe_markdown(diff.stdout, headings=("h4",))  # the one changed model's #### heading
    for name in HOSTILE:
        assert f"<code>{shown_in_code(name)}</code>" in html  # every added layer is listed, readable
    assert f"<code>{shown_in_code('models/' + HOSTILE_FILE)}</code>" in html

    check = run("check", "--format", "markdown", "--no-cache", cwd=repo)
    assert check.returncode == 1, check.stderr  # over budget: 8 layers of Linear(8, 8) on 2x8
    assert check.stdout.startswith("**staticflops check**: Budget check failed: `mlp ![x](https://evil.example/x.png)\\n# Heading")
    assert_safe_markdown(check.stdout)

    analyze = run("analyze", "models/" + HOSTILE_FILE, "-i", "2x8", "-r", "hostile.yaml", "--format", "markdown",
                  cwd=repo)
    assert analyze.returncode == 0, analyze.stderr
    html = assert_safe_markdown(analyze.stdout)
    assert "&lt;img src=x&gt;\\n# Head `x` [l](https://evil.example)" in html  # the unknown, in <code>

    folder = run("analyze", "models", "-i", "2x8", "--format", "markdown", "--no-cache", cwd=repo)
    assert folder.returncode == 0, folder.stderr
    assert_safe_markdown(folder.stdout)


def test_compare_markdown_escapes_the_model_and_layer_names(tmp_path):
    path = tmp_path / HOSTILE_FILE
    path.write_text(HOSTILE_MODEL.format(names=HOSTILE[:4]))
    result = run("compare", path, "-i", "2x8", "--rules", "standard", "--rules", "ptflops", "--format", "markdown")
    assert result.returncode == 0, result.stderr
    assert_safe_markdown(result.stdout, headings=("h3",))  # `### model, inputs ...`


# ---- finding 11: terminal output and CI logs -----------------------------------------------

@needs_git
def test_rich_markup_in_names_is_shown_as_written_never_interpreted(tmp_path):
    """A layer `oops[/bold]`, a model `mlp[/x]` and a convention `c [/bold]` were MarkupError
    tracebacks; ESC sequences in names reached the terminal and the CI log."""
    repo = hostile_project(tmp_path, hostile_convention="c [/bold]")
    config = repo / "pyproject.toml"
    config.write_text(config.read_text().replace("mlp ![x]", "mlp[/x] ![x]"))
    results = [run("check", "--no-cache", cwd=repo), run("diff", "--no-cache", cwd=repo),
               run("analyze", "models/" + HOSTILE_FILE, "-i", "2x8", "-r", "hostile.yaml", cwd=repo),
               run("compare", "models/" + HOSTILE_FILE, "-i", "2x8", "-r", "hostile.yaml", "-r", "ptflops", cwd=repo)]
    assert [r.returncode for r in results] == [1, 0, 0, 0]  # check: over budget
    for result in results:
        out = result.stdout + result.stderr
        assert "Traceback" not in out and "MarkupError" not in out
        assert "\x1b" not in out and "\r" not in out and "\u202e" not in out  # escaped, not sent
    check, diff, analyze, compare = (r.stdout for r in results)
    assert "mlp[/x] ![x](https://evil.example/x.png)\\n# Heading" in check
    assert "oops[/bold] [link=https://evil.example]x[/link]" in diff and "\\x1b[31mred\\x1b[0m\\r**" in diff
    assert "Convention (hostile): c [/bold]" in analyze
    assert "  example]x[/link]  " in analyze  # the table shows a layer's last dotted part
    assert "\\x1b[31mred\\x1b[0m\\r**staticflops check**: All budgets met" in compare  # a disagreeing layer


def test_a_terminal_gets_no_link_and_no_escape_sequence_from_a_name():
    """What a colour terminal receives: rich's own styles only; `[link=...]` is text, not an
    OSC 8 hyperlink, and the name's ESC bytes arrive as the four characters `\\x1b`."""
    import io

    from rich.console import Console

    import staticflops
    from staticflops.report.text import render_table

    report = staticflops.analyze("samples/lenet5.py", inputs=["1x1x28x28"])
    hostile = "x[link=https://evil.example]click[/link] \x1b]8;;https://evil.example\x07y\x1b[2J"
    report.layers[1].name, report.model = f"features.{hostile}", hostile
    out = io.StringIO()
    render_table(report, Console(file=out, force_terminal=True, color_system="truecolor", width=200))
    text = out.getvalue()
    assert "\x1b]8;" not in text and "\x07" not in text and "\x1b[2J" not in text
    assert "[link=https://evil.example]click[/link] \\x1b]8;;https://evil.example\\x07y\\x1b[2J" in text


def test_long_names_are_cut_with_an_ellipsis_in_bounded_time(tmp_path):
    """A 60,000-character convention of `<a ` runs took rich's highlighter ~14 s per 20,000
    characters, growing with the square (the issue's 200,000 characters: 256 s); a 50,000-rank
    output shape hung the table (over 100 s).  They are now cut at MAX_MESSAGE (a rule's
    prose) and MAX_SHOWN (a shape) characters."""
    from staticflops.report.escape import MAX_MESSAGE, MAX_SHOWN

    (tmp_path / "long.yaml").write_text('name: long\nextends: standard\nconvention: "' + "<a " * 20_000 + '"\n')
    path = tmp_path / "deep.py"
    path.write_text(textwrap.dedent('''
        from torch import nn


        class Deep(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(1, 1)

            def forward(self, x):
                return self.fc(x).reshape(*([1] * 50000))
    '''))
    result = run("analyze", path, "-i", "1x1", "-r", tmp_path / "long.yaml", timeout=60)
    assert result.returncode == 0, result.stderr
    convention = result.stdout.split("Convention (long): ", 1)[1]  # wrapped at 160 columns: compare without spaces
    assert "".join(convention.split()) == "".join((("<a " * 700)[:MAX_MESSAGE - 1] + "…").split())
    # rich wraps before the long word; the line it leaves ends in "Outputs:" (no trailing space)
    outputs = result.stdout.split("Outputs:", 1)[1].split("Convention")[0].replace("\n", "").strip()
    assert outputs == ("1x" * 150)[:MAX_SHOWN - 1] + "…"  # 50,000 dims of 1, cut


def test_a_located_error_quoting_a_hostile_name_is_escaped_on_stderr(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(NFKC_MODEL, encoding="utf-8")
    result = run("analyze", path, "-i", "1x64", "--kwargs", '{"\\u001b[2Jx": 1}')
    assert result.returncode == 1
    # line 36 is `def build():`, the builder the keyword is passed to (its name at column 5)
    assert result.stderr == f"{path}:36:5: error: build() got an unexpected keyword argument '\\x1b[2Jx'\n"


# ---- finding 14: float budgets; output that depends on PYTHONHASHSEED -------------------------

SMALL_MODEL = textwrap.dedent('''
    from torch import nn


    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x)
''')


@pytest.mark.parametrize("budget, shown", [
    ("inf", "inf"), ("nan", "nan"), ("-inf", "-inf"),
    ("1e400", "inf"),  # past the largest float: TOML reads inf
    ('"1e99999999"', "'1e99999999'"),  # past Decimal's exponent range
    ('"1e999999"', "'1e999999'"),  # a million-digit integer: minutes to build before
])
def test_float_budgets_that_are_no_number_are_located_config_errors(tmp_path, budget, shown):
    (tmp_path / "model.py").write_text(SMALL_MODEL)
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(f'''\
        [[tool.staticflops.models]]
        name = "small"
        path = "model.py"
        inputs = ["1x4"]
        budget = {{ forward_flops = {budget} }}
    '''))
    result = run("check", "--no-cache", cwd=tmp_path, timeout=60)
    assert result.returncode == 1, result.stderr  # was 3: OverflowError / InvalidOperation
    assert result.stderr.startswith(f"staticflops: error: pyproject.toml:5:1: `models.0.budget`: budget {shown} ")
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_yaml_float_budget_inf_is_a_located_config_error(tmp_path):
    (tmp_path / "model.py").write_text(SMALL_MODEL)
    (tmp_path / "staticflops.yaml").write_text("models:\n  - name: small\n    path: model.py\n    inputs: [1x4]\n"
                                               "    budget:\n      params: .inf\n")
    result = run("check", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("staticflops: error: staticflops.yaml:6:7: `models.0.budget`: budget inf is not a")


SET_MODEL = textwrap.dedent('''
    from torch import nn

    NAMES = {"alpha", "beta", "gamma", "delta", "epsilon"}


    class Sets(nn.Module):
        def __init__(self):
            super().__init__()
            for name in NAMES:
                self.add_module(name, nn.Linear(4, 4))
            extra = []
            extra.extend({"k", "j", "i"})
            self.add_module("_".join({"z", "y", "x"}), nn.Linear(4, 4))
            self.heads = nn.ModuleDict({k: nn.Linear(4, 4) for k in set(extra) | {"h"}})
            self.order = [n for n in frozenset(NAMES) - {"beta"}]
            self.width = 4 + hash("abc") % 2

        def forward(self, x):
            for name in self.order:
                x = getattr(self, name)(x)
            for key in {k for k in self.heads}:
                x = self.heads[key](x)
            return getattr(self, "x_y_z")(x)
''')


def test_output_is_the_same_under_every_pythonhashseed(tmp_path):
    """Sets of strings iterate in hash order, which Python changes per process: the layers a
    loop over a set adds, a `"_".join` of a set and `list.extend` of one came out in a
    different order on each run (3 seeds, 3 different JSON reports), so `diff` showed changes
    nobody made.  Now one order (sorted) in every process, and `hash()` of a string is an
    unknown rather than a number that changes per run.
    By hand: 10 Linear(4, 4) of 4*4 + 4 = 20 params = 200 params; forward calls 4 (the names
    but beta) + 4 heads + x_y_z = 9 calls x 16 MACs = 144 MACs = 288 FLOPs."""
    import json
    import os

    path = tmp_path / "sets.py"
    path.write_text(SET_MODEL)
    outputs = []
    for seed in ("1", "2", "3"):
        result = run("analyze", path, "-i", "1x4", "--format", "json", env={**os.environ, "PYTHONHASHSEED": seed})
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    report = json.loads(outputs[0])
    assert [layer["name"] for layer in report["layers"] if "." not in layer["name"]] == [
        "alpha", "beta", "delta", "epsilon", "gamma", "x_y_z", "heads"]
    assert [layer["name"] for layer in report["layers"] if layer["name"].startswith("heads.")] == [
        "heads.h", "heads.i", "heads.j", "heads.k"]
    assert (report["totals"]["forward_flops"], report["totals"]["macs"], report["totals"]["params"]) == (288, 144, 200)
    assert [u["what"] for u in report["unknown"]] == [
        "hash() of a string differs in every Python process (PYTHONHASHSEED)"]


# ---- the example GitHub workflows ---------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "github"


def workflow(name: str) -> dict:
    import yaml

    data = yaml.safe_load((EXAMPLES / name).read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def test_the_pull_request_workflow_holds_no_secret_and_cannot_comment():
    text = (EXAMPLES / "staticflops-diff.yml").read_text()
    flow = workflow("staticflops-diff.yml")
    assert list(flow["on"]) == ["pull_request"]  # never pull_request_target: it would run with a write token
    assert flow["permissions"] == {"contents": "read"}
    assert "secrets." not in text and "github.token" not in text and "GH_TOKEN" not in text
    assert flow["concurrency"]["cancel-in-progress"] is True
    steps = flow["jobs"]["cost"]["steps"]
    assert all("permissions" not in job for job in flow["jobs"].values())
    checkout = next(step for step in steps if step.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["persist-credentials"] is False
    install = next(step["run"] for step in steps if "pip install" in step.get("run", ""))
    assert install == 'pip install "git+https://github.com/OWNER/staticflops@COMMIT_SHA"'  # a commit, not a branch
    assert "Replace OWNER and COMMIT_SHA" in text
    upload = next(step for step in steps if step.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["name"] == "staticflops-comment"
    assert set(upload["with"]["path"].split()) == {"staticflops.md", "pr-number.txt"}
    # the only ${{ }} inside a script would be a place to inject text: values come through env
    assert all("${{" not in step.get("run", "") for step in steps)


def test_the_commenting_workflow_reads_the_artifact_as_data():
    flow = workflow("staticflops-comment.yml")
    assert flow["on"] == {"workflow_run": {"workflows": [workflow("staticflops-diff.yml")["name"]],
                                           "types": ["completed"]}}
    assert flow["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert flow["concurrency"]["group"] and flow["concurrency"]["cancel-in-progress"] is False
    job = flow["jobs"]["comment"]
    assert "github.event.workflow_run.event == 'pull_request'" in job["if"]
    uses = [step.get("uses", "") for step in job["steps"]]
    assert not any(use.startswith("actions/checkout") for use in uses)  # nothing of the PR is checked out
    assert any(use.startswith("actions/download-artifact") for use in uses)
    assert all("${{" not in step.get("run", "") for step in job["steps"])


@pytest.mark.skipif(subprocess.run(["bash", "--version"], capture_output=True).returncode != 0, reason="needs bash")
@pytest.mark.parametrize("number, head, found, expected", [
    ("42\n", "abc123", "", "POST repos/o/r/issues/42/comments"),  # first comment
    ("42\n", "abc123", "7\n9\n", "PATCH repos/o/r/issues/comments/7"),  # ours found: edited
    ("42; touch PWNED\n", "abc123", "", None),  # not a number: nothing posted, nothing run
    ("$(touch PWNED)", "abc123", "", None),
    ("41\n", "other-commit", "", None),  # a number of another pull request: its head differs
])
def test_the_comment_script_validates_the_number_and_edits_its_own_comment(tmp_path, number, head, found, expected):
    """The `run:` script of the commenting workflow, with a stand-in `gh` that answers the pull
    request's head commit and the ids of comments matching author + marker."""
    import os

    script = workflow("staticflops-comment.yml")["jobs"]["comment"]["steps"][1]["run"]
    bin_dir, untrusted = tmp_path / "bin", tmp_path / "untrusted"
    bin_dir.mkdir()
    untrusted.mkdir()
    (untrusted / "pr-number.txt").write_text(number)
    (untrusted / "staticflops.md").write_text("`mlp`: +1 FLOPs\n\n<!-- staticflops-diff -->\n")
    (tmp_path / "found").write_text(found)
    gh = bin_dir / "gh"
    gh.write_text(textwrap.dedent(f'''\
        #!/usr/bin/env bash
        case "$*" in
          "api repos/o/r/pulls/"*) echo "{head}" ;;
          *"--paginate"*) cat "{tmp_path}/found" ;;
          "api -X PATCH "*) echo "PATCH $4" >> "{tmp_path}/posted" ;;
          *) echo "POST $2" >> "{tmp_path}/posted" ;;
        esac
    '''))
    gh.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GH_TOKEN": "x", "REPO": "o/r",
           "HEAD_SHA": "abc123"}
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    posted = (tmp_path / "posted").read_text().splitlines() if (tmp_path / "posted").exists() else []
    assert not (tmp_path / "PWNED").exists()
    if expected is None:
        assert result.returncode == 1 and posted == []
    else:
        assert result.returncode == 0, result.stderr
        assert posted == [expected]
        assert (tmp_path / "body.md").read_text().endswith("<!-- staticflops-diff -->\n")


# ---- str.format on the analyser's own objects --------------------------------------------------

FORMAT_WALK = '''\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # Python's str.format follows `.attr` and `[key]` in a field: from the analyser's own
        # object for `self` to a function's globals, to sys.modules, to os.environ
        name = "{0.__init__.__globals__[field].__globals__[sys].modules[os].environ[CI_TOKEN]}".format(self)
        self.add_module(name, nn.Linear(4, 4))
        self.add_module("block{}_{}".format(1, "a"), nn.Linear(4, 4))  # plain data: evaluated

    def forward(self, x):
        return self.block1_a(x)
'''


def test_str_format_cannot_walk_the_analysers_objects_to_the_environment(tmp_path):
    model = tmp_path / "walk.py"
    model.write_text(FORMAT_WALK)
    secret = "tok-5e3c7a1f"
    env = {**os.environ, "CI_TOKEN": secret}
    for output_format in ("table", "json", "markdown"):
        result = run("analyze", str(model), "-i", "1x4", "--format", output_format, env=env)
        assert result.returncode == 0, result.stderr
        assert secret not in result.stdout + result.stderr
    report = json.loads(run("analyze", str(model), "-i", "1x4", "--format", "json", env=env).stdout)
    # Linear(4, 4): 4*4 weights + 4 biases = 20 params, 1x4 @ 4x4 = 16 MACs = 32 FLOPs
    assert (report["totals"]["params"], report["totals"]["forward_flops"]) == (20, 32)
    assert [u["location"].rsplit(":", 2)[-2:] for u in report["unknown"]] == [["9", "16"]]


def test_the_cache_warning_escapes_a_hostile_cache_dir(tmp_path):
    # cache_dir comes from the config a pull request controls; the warning that a linked
    # cache folder is not used quotes it on stderr (a CI log): ESC must not reach it raw
    (tmp_path / "m.py").write_text("from torch import nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
                                   "        super().__init__()\n        self.fc = nn.Linear(2, 2)\n\n"
                                   "    def forward(self, x):\n        return self.fc(x)\n")
    (tmp_path / "staticflops.yaml").write_text('cache_dir: "c\\e[31mX"\nmodels:\n  - name: m\n    path: m.py\n'
                                               '    inputs: 1x2\n    budget: {params: 100}\n')
    (tmp_path / "c\x1b[31mX").symlink_to(tmp_path.parent)
    env = {**os.environ, "STATICFLOPS_CACHE_DIR": str(tmp_path.parent / "user-cache")}
    result = run("check", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr  # Linear(2, 2): 6 params, within 100
    assert "c\\x1b[31mX is a symbolic link" in result.stderr
    assert "\x1b" not in result.stdout + result.stderr
