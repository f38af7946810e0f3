"""Our one-pass start positions must equal libcst's PositionProvider on every node."""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from staticflops.frontend.positions import start_positions

FILES = sorted(Path("samples").glob("*.py")) + sorted(Path("tests/fixtures/torch_cases").glob("*.py"))


def _reference(module: cst.Module) -> dict:
    ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {node: (r.start.line, r.start.column) for node, r in ranges.items()}


def _assert_same(module: cst.Module) -> None:
    """Every node PositionProvider places, at the same start, and no other node."""
    ours, reference = start_positions(module), _reference(module)
    assert len(ours) == len(reference)
    assert {node: ours.get(node) for node in reference} == reference


@pytest.mark.parametrize("path", FILES[:40], ids=str)
def test_same_start_as_position_provider(path):
    _assert_same(cst.parse_module(path.read_text()))


@pytest.mark.parametrize("text", [
    "x = 1\r\ny = (\r\n  2)\r\n",          # Windows newlines
    "a = 1\rb = 2\r",                       # old Mac newlines
    "def f():\n\tif x:\n\t\treturn 'a\\\nb'\n",  # tabs, line continuation inside a string
    's = """one\ntwo"""; t = s  # c\n',   # multi-line string, then a node after it
    "@dec\nclass A(B, metaclass=M):\n    x: int = 3\n",
])
def test_tricky_text(text):
    module = cst.parse_module(text)
    _assert_same(module)
    assert len(start_positions(module)) > 3


@pytest.mark.parametrize("path", FILES[:40], ids=str)
def test_name_walk_finds_what_libcst_visitor_finds(path):
    from staticflops.frontend import syntax
    from staticflops.frontend.source import parse_source
    from staticflops.frontend.treewalk import names_in

    module = cst.parse_module(path.read_text())
    lowered = parse_source(path.read_text(), str(path)).module  # the tree the interpreter walks
    seen = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, node):
            seen.append(node)

        def visit_Decorator(self, node):
            return False

    module.visit(Names())
    found = list(names_in(lowered, skip=(syntax.Decorator,)))
    assert sorted(n.value for n in found) == sorted(n.value for n in seen)
    assert len(found) == len(set(map(id, found))) > 0
