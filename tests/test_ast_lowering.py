"""Library source lowered from Python's parser (ast_lowering.py) must be the tree libcst's route
makes (lowering.py + positions.py): same classes, same fields and values, same start position on
every node; and the parse limits must refuse hostile library text with the same located message."""

from pathlib import Path

import libcst as cst
import pytest

import wheels
from staticflops.diagnostics import AnalysisError
from staticflops.frontend import ast_lowering
from staticflops.frontend.ast_lowering import Unsupported, lower_library_source
from staticflops.frontend.identifiers import needs_normalising
from staticflops.frontend.lowering import _kept_fields, lower
from staticflops.frontend.positions import start_positions
from staticflops.frontend.source import parse_source
from staticflops.frontend.syntax import CSTNode

HERE = Path(__file__).parent
CORPUS = sorted((HERE.parent / "samples").glob("*.py")) + sorted((HERE / "fixtures").rglob("*.py"))
TRANSFORMERS = {"transformers": "5.23.0", "huggingface_hub": "2.4.0"}  # the versions test_transformers reads
# What a Llama/BERT/T5/Whisper/Mixtral analysis reads, and the shared machinery around it.
TRANSFORMERS_FILES = ("transformers/*.py", "transformers/utils/*.py", "transformers/integrations/*.py",
                      "transformers/models/llama/*.py", "transformers/models/bert/*.py", "transformers/models/t5/*.py",
                      "transformers/models/whisper/*.py", "transformers/models/mixtral/*.py",
                      "transformers/models/auto/*.py", "huggingface_hub/*.py", "huggingface_hub/utils/*.py")


def _differences(text: str, limit: int = 5) -> list[str]:
    """Where the two routes' trees differ (empty: identical), walking both in step."""
    module = cst.parse_module(text)
    expected, expected_at = lower(module, start_positions(module).by_id, normalise=needs_normalising(text))
    actual, actual_at = lower_library_source(text)
    found = []

    def walk(one, other, path):
        if len(found) >= limit:
            return
        if isinstance(one, CSTNode):
            if type(one) is not type(other):
                found.append(f"{path}: {type(one).__name__} vs {type(other).__name__}")
                return
            if expected_at.get(one) != actual_at.get(other):
                found.append(f"{path}: {type(one).__name__} at {expected_at.get(one)} vs {actual_at.get(other)}")
            for name in type(one)._fields:
                walk(getattr(one, name), getattr(other, name), f"{path}.{type(one).__name__}.{name}")
        elif type(one) is tuple:
            if type(other) is not tuple or len(one) != len(other):
                found.append(f"{path}: {len(one)} items vs {other!r:.60}")
                return
            for index, (a, b) in enumerate(zip(one, other)):
                walk(a, b, f"{path}[{index}]")
        elif type(one) is not type(other) or one != other:
            found.append(f"{path}: {one!r:.60} vs {other!r:.60}")

    walk(expected, actual, "")
    return found


def test_field_table_is_libcsts():
    for name, fields in ast_lowering.FIELDS.items():
        assert _kept_fields(getattr(cst, name)) == fields, name


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(HERE.parent)))
def test_samples_and_fixtures_lower_alike(path):
    assert _differences(path.read_text(encoding="utf-8")) == []


TRICKY = [
    "x = 1\r\ny = (\r\n  2)\r\n",  # Windows newlines
    "def f():\n\tif x:\n\t\treturn 'a\\\nb'\n",  # tabs, a continuation inside a string
    's = """one\ntwo"""; t = s  # c\n',
    "é = 'ü'; f(é, b=ｗ)  # ｗ is w to Python\n",  # columns in characters, identifiers normalised
    'x = f"{a!r:{b}.{c}}" f"""{d=}\n{e}""" "x"\n',
    "x = (f'a{b}'\n    'c')\nprint(f'{x!r}', f'{y:>10}', f'{{}}{z}', f'{a[\"b\"]}')\n",
    "x=[*a, *b]; y = {**a, 'k': (1)}\nz = a[1:, ...][::2]\nw = a[b, c]; v = a[(b, c)]; u = a[*b]\n",
    "async def f():\n    async with a as (b, c):\n        await x\n    async for i in y: pass\n"
    "    return [i async for i in z]\n",
    "def f(a, /, *, b, c=1, **d): pass\ndef g(*, a): pass\ndef h(a, /): pass\ndef k(a=1, /, b=2): pass\n",
    "def f(\n    a,\n    *,  # keyword-only\n    b: int = (1),\n) -> (X):\n    pass\n",
    "@ dec\n@other(1)\nclass A(B, *c, d=1, **e):\n    '''doc'''\n    x: int = 3\n    def g(self): ...\n",
    "x = ((a, b))\ny = ()\nz = (a)[0]\nw = -(-a) ** ~b\nq = a if (b) else c\n",
    "while x:\n    break\nelse:\n    pass\nfor a in b:\n    continue\n# c\nelse:  # d\n    pass\n",
    "if a:\n  pass\nelif b:\n  pass\nelse:\n  if c: pass\n",
    "if x:\n    pass\n\n\n\nelse :\n    pass\n",
    "x = lambda: (yield)\ndel (a), b[0]\nassert x, 'm'\nimport a.b.c as d, e\n"
    "from .a import (b,\n  c as d,  # x\n)\nfrom .. import *\nglobal g, h\n",
    "x = 0x1F + 1_000 + 1e3 + 2j + 0o7\nif (a := 3) > 2 and not b or c in d and e not in f and g is not h: pass\n",
    "x = f(a)(b)[c](d)\ny = (a).b .c\nz = f((x for x in y))\nw = f(x for x in y)\nv = sum(p for p in q)\n",
    "x = {1, 2}\ny = {a: b for a, b in c if a if b}\nz = [(a) for (a) in (b) for c in d]\n",
    "try:\n    pass\nexcept (A, B) as e:\n    raise X from  e\nexcept:\n    pass\nelse:\n    pass\nfinally:\n    pass\n",
    "with (a as b, c as d):\n    pass\nwith (a, b):\n    pass\nwith (a), (b): pass\n",
    "x = u'a' 'b' if c else R'd\\\\'\ny = not not a\nz = a < b < c != d\n",
    "def f():\n      return\nclass A:\n  x = 1\n",  # blocks indented unlike the first one
    "x = 1",  # no newline at the end
    # grouping parentheses found without the bracket table: across lines, comments, continuations
    "x = f(\n    (a)\n)\ny = (  # (\n    b\n)\nz = (\n    # )\n    c)\nw = ( \\\n  d)\nv = g(e\n  )\n",
    "x = (a), (b)\ny = ((a), b)\nz = (a)(b), (c)\nw = (a).b, c\nv = s[(a), b]; u = s[(a, b)]; t = s[((a), b)]\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_text_lowers_alike(text):
    assert _differences(text) == []


@pytest.mark.parametrize("text", ["match x:\n    case 1:\n        pass\n", "a = 1\rb = 2\r", "\ufeffx = 1\n",
                                  "x = (1 +\n"])
def test_what_the_route_does_not_model_goes_to_libcst(text):
    with pytest.raises(Unsupported):
        lower_library_source(text)
    try:
        expected = parse_source(text, "lib.py")
    except AnalysisError as error:  # a syntax error: the same located message either way
        with pytest.raises(AnalysisError) as library:
            parse_source(text, "lib.py", library=True)
        assert str(library.value) == str(error) and library.value.location == error.location
    else:
        assert type(parse_source(text, "lib.py", library=True).module) is type(expected.module)


STUBS = sorted((HERE.parent / "staticflops").rglob("stubs/*.pyi"))


@pytest.mark.parametrize("path", STUBS, ids=[p.name for p in STUBS])
def test_our_stub_sources_lower_alike(path):
    """Our own stub code goes through this route too (no libcst import for it)."""
    text = path.read_text(encoding="utf-8")
    assert _differences(text) == []
    module, positions = ast_lowering.lower_library_source(text, lazy_bodies=False)
    assert not any("_pending" in node.__dict__ for node in positions), "every body lowered at once"


def test_function_bodies_are_lowered_on_first_read():
    module, positions = lower_library_source("def f():\n    x = 1\n    return x\n")
    before = len(positions)
    body = module.body[0].body.body  # reading the block's fields lowers them
    assert len(body) == 2 and len(positions) > before
    assert positions[body[1]] == (3, 4)


HOSTILE = [
    ("x = " + "-" * 1_500 + "1\n", "unary operators"),
    ("x = " + "(" * 1_200 + "1" + ")" * 1_200 + "\n", "brackets nest"),
    ("x = 1" + " + 1" * 1_500 + "\n", "--max-expr-depth"),
    ("x = 1\n" * 30_000, "--max-tokens"),
    # a docstring-looking line of 1,500 concatenated strings: each concatenation nests one deeper
    ('"""a"""' + ' """a"""' * 1_500 + "\n", "--max-expr-depth"),
]


@pytest.mark.parametrize("text, message", HOSTILE, ids=[m for _, m in HOSTILE])
def test_library_text_meets_the_same_parse_limits(text, message):
    limits = (100_000, 1_000)  # --max-tokens 100,000 (30,000 lines of 4 tokens pass it), --max-expr-depth 1,000
    with pytest.raises(AnalysisError) as project:
        parse_source(text, "lib.py", parse_limits=limits)
    with pytest.raises(AnalysisError) as library:
        parse_source(text, "lib.py", parse_limits=limits, library=True)
    assert message in str(project.value)
    assert str(library.value) == str(project.value) and library.value.location == project.value.location


@pytest.fixture(scope="module")
def transformers_source(request, tmp_path_factory) -> Path:
    """The same download as test_transformers.py (pytest's cache folder; skipped without PyPI)."""
    return wheels.unpacked_side_by_side(request, tmp_path_factory, "transformers", TRANSFORMERS)


def test_transformers_files_lower_alike(transformers_source):
    files = sorted({path for pattern in TRANSFORMERS_FILES for path in transformers_source.glob(pattern)})
    assert len(files) > 150
    modelled = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            assert _differences(text) == [], path
            modelled += 1
        except Unsupported:
            assert "match " in text or "case " in text, path  # only `match` statements are left to libcst here
    assert modelled >= len(files) - 10


@pytest.mark.parametrize("limits", [(2_000, 12), (20_000, 40), (500_000, 1_000)])
def test_a_text_proven_within_the_limits_passes_the_guard(limits):
    """within_limits is only ever a shortcut: whatever it proves, the tokenizer walk agrees with."""
    import ast

    from staticflops.frontend.parse_guard import check_parse_cost

    proven = 0
    for text in [path.read_text(encoding="utf-8") for path in CORPUS] + TRICKY + [text for text, _ in HOSTILE]:
        lowerer = ast_lowering._Lowerer(text)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        if lowerer.within_limits(tree, *limits):
            proven += 1
            check_parse_cost(text, "lib.py", *limits)  # raises if the shortcut was wrong
    assert proven > 10
