"""The analysed code is never imported or executed, and the package imports no ML framework."""

import ast
from pathlib import Path

import staticflops

PACKAGE = Path(staticflops.__file__).resolve().parent
FRAMEWORKS = {"torch", "tensorflow", "keras", "jax"}

HOSTILE = '''
import torch
from torch import nn
open({marker!r} + ".module", "w").write("ran")

def side_effect(tag):
    open({marker!r} + "." + tag, "w").write("ran")
    return 4

WIDTH = side_effect("constant")

class Net(nn.Module):
    open({marker!r} + ".classbody", "w").write("ran")

    def __init__(self, width=side_effect("default")):
        super().__init__()
        open({marker!r} + ".init", "w").write("ran")
        __import__("os").system("touch " + {marker!r} + ".system")
        self.fc = nn.Linear(8, width)

    def forward(self, x):
        open({marker!r} + ".forward", "w").write("ran")
        return self.fc(x)
'''


def test_analysed_code_is_never_executed(tmp_path):
    marker = str(tmp_path / "marker")
    model = tmp_path / "hostile.py"
    model.write_text(HOSTILE.format(marker=marker))
    report = staticflops.analyze(model, inputs=["2x8"])
    # The model still analyses: Linear(8, 4) on 2x8 -> 2*4*8 = 64 MACs = 128 FLOPs.
    assert report.totals.forward_flops == 128
    assert report.totals.params == 8 * 4 + 4
    # besides the model, only staticflops' own cache folder (its parsed-module cache) may appear
    assert [p for p in tmp_path.iterdir() if p.name != ".staticflops_cache"] == [model], "analysed code ran"
    assert {p.name for p in (tmp_path / ".staticflops_cache").iterdir()} <= {"parsed"}


def test_third_party_code_is_never_executed(tmp_path):
    # the same hostile code as an installed package, found through --source-path
    markers = tmp_path / "markers"
    markers.mkdir()
    package = tmp_path / "site-packages" / "hostile_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(HOSTILE.format(marker=str(markers / "m")))
    model = tmp_path / "user.py"
    model.write_text("from hostile_pkg import Net\n")
    report = staticflops.analyze(model, model="Net", inputs=["2x8"], source_path=[tmp_path / "site-packages"])
    assert report.totals.forward_flops == 128  # Linear(8, 4) on 2x8, as above
    assert list(markers.iterdir()) == [], "third-party code ran"


def test_package_never_imports_a_framework():
    offenders = []
    for source in PACKAGE.rglob("*.py"):
        tree = ast.parse(source.read_text(), filename=str(source))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{source}:{node.lineno}" for n in names if n.split(".")[0] in FRAMEWORKS]
    assert offenders == []


# The one exception: the parsed-module cache reads its entries with marshal, only once their
# HMAC (the user's secret, kept outside the project) proves this user's staticflops wrote them
# (frontend/parsed_cache.py; test_parsed_cache.py checks a tampered entry never reaches marshal).
MARSHAL_READER = PACKAGE / "frontend" / "parsed_cache.py"


def test_package_has_no_dynamic_code_execution():
    banned_calls = {"eval", "exec", "compile", "__import__"}
    banned_modules = {"importlib", "runpy", "pickle", "marshal"}
    offenders = []
    for source in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in banned_calls:
                offenders.append(f"{source}:{node.lineno} {node.func.id}()")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                offenders += [f"{source}:{node.lineno} import {n}" for n in names if n.split(".")[0] in banned_modules
                              and not (source == MARSHAL_READER and isinstance(node, ast.Import) and n == "marshal")]
    assert offenders == []


def test_the_marshal_reader_only_loads_and_dumps_plain_data():
    """parsed_cache.py uses marshal.loads (on signed bytes) and marshal.dumps, nothing else of it."""
    used = {node.attr for node in ast.walk(ast.parse(MARSHAL_READER.read_text()))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "marshal"}
    assert used == {"loads", "dumps"}


SIBLING_LAYERS = '''
open({marker!r} + ".layers", "w").write("ran")
from torch import nn

class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        open({marker!r} + ".block", "w").write("ran")
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return self.fc(x)
'''

SIBLING_MODEL = '''
from torch import nn
from .layers import Block
from proj import unused
from proj.helpers import *

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(WIDTH)

    def forward(self, x):
        return self.block(x)
'''


def test_imported_project_files_are_never_executed(tmp_path):
    marker = str(tmp_path / "marker")
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text(f"open({marker!r} + '.init', 'w').write('ran')\n")
    (package / "layers.py").write_text(SIBLING_LAYERS.format(marker=marker))
    (package / "helpers.py").write_text(f"open({marker!r} + '.helpers', 'w').write('ran')\nWIDTH = 6\n")
    (package / "unused.py").write_text(f"open({marker!r} + '.unused', 'w').write('ran')\n")
    model = package / "model.py"
    model.write_text(SIBLING_MODEL)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    report = staticflops.analyze(model, inputs=["2x6"])
    # Linear(6, 6) from layers.py with WIDTH from helpers.py: 2*6*6 = 72 MACs, 36 + 6 params.
    assert report.totals.macs == 72
    assert report.totals.params == 42
    after = sorted(p.name for p in tmp_path.rglob("*") if ".staticflops_cache" not in p.parts)  # our parsed trees
    assert after == before, "an imported file ran"


def test_eval_literal_eval_and_exec_of_hostile_text_run_nothing(tmp_path):
    """The analysed program's eval() is parsed and modelled, never given to Python's eval; a
    string that would run code if evaluated only ever becomes an unknown."""
    marker = str(tmp_path / "marker")
    texts = [f"__import__('os').system('touch {marker}.a')",
             f"open({marker + '.b'!r}, 'w').write('ran')",
             f"(lambda: open({marker + '.c'!r}, 'w'))()",
             f"[open({marker + '.d'!r}, 'w')][0]"]
    lines = "\n".join(f"        eval({t!r})\n        ast.literal_eval({t!r}) if False else None" for t in texts)
    model = tmp_path / "evals.py"
    model.write_text(f'''import ast
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
{lines}
        exec({texts[1]!r})
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x)
''')
    report = staticflops.analyze(model, inputs=["2x8"])
    # Linear(8, 4) on 2x8: 2*4*8 = 64 MACs = 128 FLOPs, 8*4 + 4 = 36 params
    assert (report.totals.forward_flops, report.totals.params) == (128, 36)
    assert [p for p in tmp_path.iterdir() if p.name != ".staticflops_cache"] == [model], "analysed text ran"
    assert report.unknown, "each eval() of such text is an unknown, not a value"
