"""The parsed-module cache (frontend/parsed_cache.py): same reports from a cached tree as from a
fresh parse, no libcst import when every tree is cached, and nothing trusted from the folder
that a pull request controls."""

import dataclasses
import json
import marshal
import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import libcst as cst
import pytest

from cache_helpers import entry_data, stored, stubs_in
from staticflops import cachefolder

import staticflops
from staticflops.frontend import parsed_cache, syntax
from staticflops.frontend.budget import make_budget
from staticflops.frontend.lowering import LAYOUT_FIELDS, lower
from staticflops.frontend.positions import start_positions
from staticflops.frontend.source import parse_source

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PACKAGE = Path(staticflops.__file__).resolve().parent
# (sample, --input): the shapes the other tests analyse them with
CASES = [("resnet50.py", ["1x3x224x224"]), ("mobilenet_v2.py", ["1x3x224x224"]), ("lenet5.py", ["1x1x28x28"]),
         ("seed_conv_gru.py", ["1x1x100x256"]), ("transformer.py", ["1x64:int64"]), ("keras_seed.py", [])]


def _project(tmp_path: Path, name: str) -> Path:
    """A copy of a sample alone in a project folder (its project root: no config, no git)."""
    target = tmp_path / "project" / name
    target.parent.mkdir(exist_ok=True)
    shutil.copy(SAMPLES / name, target)
    return target


def _entries(path: Path) -> list:
    folder = path.parent.joinpath(*parsed_cache.FOLDER)
    return sorted(p for p in folder.glob("*" + parsed_cache.SUFFIX)) if folder.is_dir() else []


@pytest.mark.parametrize("name, inputs", CASES, ids=[c[0] for c in CASES])
def test_cached_tree_gives_the_same_report(tmp_path, name, inputs):
    path = _project(tmp_path, name)
    cold = staticflops.analyze(path, inputs=inputs).to_json()
    assert _entries(path), "the first analysis stores its tree"
    stamps = {p: p.stat().st_mtime_ns for p in _entries(path)}
    warm = staticflops.analyze(path, inputs=inputs).to_json()
    assert warm == cold
    assert {p: p.stat().st_mtime_ns for p in _entries(path)} == stamps  # read, not written again


def test_second_analysis_does_not_import_libcst(tmp_path):
    path = _project(tmp_path, "resnet50.py")
    code = ("import sys; from staticflops import api; r = api.analyze(sys.argv[1], inputs=[sys.argv[2]]); "
            "print(r.totals.forward_flops, 'libcst' in sys.modules)")

    def run(shape):
        done = subprocess.run([sys.executable, "-c", code, str(path), shape], capture_output=True, text=True,
                              check=True, env=os.environ)
        return done.stdout.split()

    first = run("1x3x224x224")
    second = run("1x3x112x112")  # other options: the same file, so the same trees
    assert first[1] == "True"  # a fresh parse needs libcst
    assert second[1] == "False"
    # 224 -> 112 quarters every spatial size; the figure itself is checked by test_samples
    assert int(first[0]) != int(second[0])


def test_round_trip_keeps_tree_and_positions():
    for path in sorted(SAMPLES.glob("*.py")):
        text = path.read_text()
        module = cst.parse_module(text)
        lowered, positions = lower(module, start_positions(module).by_id)
        data = parsed_cache.encode(lowered, positions)
        again = parsed_cache.encode(*parsed_cache.decode(stored(data)))
        assert again == data
        # every statement keeps libcst's start: line 1 is the module's own first node
        starts = start_positions(module)
        for original, copy in zip(module.body, lowered.body):
            assert positions[copy] == starts.get(original)
            assert type(copy).__name__ == type(original).__name__


def test_lowered_classes_are_libcst_classes_with_their_fields(tmp_path):
    for name, inputs in CASES:
        staticflops.analyze(_project(tmp_path, name), inputs=inputs)
    made = syntax.made_classes()
    assert len(made) > 30
    for name, cls in made.items():
        original = getattr(cst, name, None)
        assert isinstance(original, type) and issubclass(original, cst.CSTNode), name
        assert not name.startswith("Base"), f"{name} is abstract: no lowered node is ever one"
        if cls._fields:  # a class used only in an isinstance test has none until a node is made
            kept = [f.name for f in dataclasses.fields(original)
                    if f.name not in LAYOUT_FIELDS and not f.name.startswith("whitespace")]
            assert [f for f in cls._fields if f != "evaluated_value"] == kept


LAYOUT_TYPES = ("Whitespace", "EmptyLine", "Newline", "Comment", "Comma", "Paren", "Bracket", "Brace", "Semicolon",
                "Colon", "AssignEqual", "Dot", "MaybeSentinel", "BitOr", "NoneType")


def test_dropped_fields_hold_only_layout():
    """Every dropped field of every libcst node class is typed as whitespace or punctuation
    (`separator` is MatchOr's `|`, `dot` Attribute's `.`): the interpreter loses nothing."""
    for name in dir(cst):
        node_type = getattr(cst, name)
        if not (isinstance(node_type, type) and issubclass(node_type, cst.CSTNode)
                and dataclasses.is_dataclass(node_type)):
            continue
        hints = typing.get_type_hints(node_type)
        for field in dataclasses.fields(node_type):
            if field.name in LAYOUT_FIELDS or field.name.startswith("whitespace"):
                text = str(hints[field.name])
                named = [part for part in text.replace("[", ",").replace("]", ",").split(",")
                         if ("." in part or "NoneType" in part) and not part.strip().startswith("typing.")]
                assert named and all(any(t in part for t in LAYOUT_TYPES) for part in named), (name, field.name, text)


def test_only_the_parsing_modules_import_libcst():
    """A lowered node never matches a libcst class: a module of the interpreter that imported
    libcst and tested `isinstance(node, libcst.X)` would silently see nothing."""
    parsing = {"source.py", "libcst_route.py", "lowering.py", "positions.py", "identifiers.py"}
    importing = {p.name for p in PACKAGE.rglob("*.py") if "import libcst" in p.read_text()
                 or "from libcst" in p.read_text()}
    assert importing <= parsing


def test_entries_are_signed_and_bound_to_their_key(tmp_path):
    path = _project(tmp_path, "lenet5.py")
    expected = staticflops.analyze(path, inputs=["1x1x28x28"]).to_json()
    entries = _entries(path)
    assert entries
    # A pull request's planted tree: the same key, a valid-looking tree, no valid signature.
    target = max(entries, key=lambda p: p.stat().st_size)  # the model file's tree
    signature, _, payload = target.read_bytes().partition(b"\n")
    data = marshal.loads(payload)
    data["tree"] = [-1]  # whatever it holds, it is not used
    target.write_bytes(b"0" * 64 + b"\n" + marshal.dumps(data))
    assert staticflops.analyze(path, inputs=["1x1x28x28"]).to_json() == expected
    # Another entry's (valid) signature on this key: refused too (the key is signed).
    other = min(entries, key=lambda p: p.stat().st_size)
    target.write_bytes(other.read_bytes())
    assert staticflops.analyze(path, inputs=["1x1x28x28"]).to_json() == expected


def test_symlinked_cache_folder_is_not_used(tmp_path):
    path = _project(tmp_path, "lenet5.py")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (path.parent / ".staticflops_cache").symlink_to(elsewhere, target_is_directory=True)
    staticflops.analyze(path, inputs=["1x1x28x28"])
    assert list(elsewhere.rglob("*")) == []


def test_a_tree_is_reused_only_under_the_limits_it_was_checked_with(tmp_path):
    """--max-tokens refuses a file before parsing; a tree cached under the default limits
    must not let a tighter limit pass."""
    path = _project(tmp_path, "lenet5.py")
    staticflops.analyze(path, inputs=["1x1x28x28"])
    with pytest.raises(staticflops.AnalysisError, match="max-tokens"):
        staticflops.analyze(path, inputs=["1x1x28x28"], limits={"max_tokens": 50})


def test_no_secret_no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STATICFLOPS_CACHE_DIR", "")
    cachefolder.user_secret.cache_clear()
    try:
        path = _project(tmp_path, "lenet5.py")
        staticflops.analyze(path, inputs=["1x1x28x28"])
        assert _entries(path) == []
    finally:
        monkeypatch.undo()
        cachefolder.user_secret.cache_clear()


def test_internal_and_user_text_do_not_share_entries():
    text = "x = 1\n"
    assert parsed_cache.entry_key(text, True, (1, 2)) != parsed_cache.entry_key(text, False, (1, 2))
    assert parsed_cache.entry_key(text, False, (1, 2)) != parsed_cache.entry_key(text, False, (1, 3))
    assert parse_source(text, "<t>").module.body[0].body[0].value.value == "1"


def test_a_module_is_parsed_only_when_the_model_needs_it(tmp_path):
    """Issue 18: imports are lazy; an imported module that nothing uses is never parsed (this one
    would be a syntax error), so it costs nothing and is not cached."""
    (tmp_path / "unused.py").write_text("def f(:\n")
    model = tmp_path / "m.py"
    model.write_text("from torch import nn\nfrom unused import f\nimport unused\n\n"
                     "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                     "        self.fc = nn.Linear(4, 2)\n\n    def forward(self, x):\n        return self.fc(x)\n")
    report = staticflops.analyze(model, inputs=["1x4"])
    assert report.totals.params == 4 * 2 + 2  # Linear(4, 2): weights and biases
    names = {p.stem for p in _entries(model)}
    limits = make_budget(None).parse_limits  # the defaults, as analyze used them
    assert parsed_cache.entry_key(model.read_text(), False, limits) in names
    assert parsed_cache.entry_key((tmp_path / "unused.py").read_text(), False, limits) not in names


# Library source (read-only, lowered by ast_lowering.py): bodies of functions an analysis never
# called are stored as stubs and lowered from the text when a later run reads them.
LIBRARY = '''import functools


class A:
    @functools.cache
    def f(self, x):
        """doc"""
        def inner(y):
          return y + 1  # a body with an indent of its own
        return inner(x) * 2


async def g(é=1):
    await h(f"{é!r:>4}")
    return [i for i in range(3)]
'''


def _read_all(node):
    """Every field of every node read: each lazy body lowered or decoded."""
    if isinstance(node, syntax.CSTNode):
        for name in type(node)._fields:
            _read_all(getattr(node, name))
    elif type(node) is tuple:
        for item in node:
            _read_all(item)


def test_unread_library_bodies_are_stubs_lowered_from_the_text_when_read():
    from staticflops.frontend.ast_lowering import lower_library_source

    module, positions = lower_library_source(LIBRARY)
    data = stored(parsed_cache.encode(module, positions))
    assert stubs_in(data) == {"IndentedBlock": 2}  # A's and g's bodies (f's and inner's are inside A's)
    grown = []
    loaded, loaded_at = parsed_cache.decode(data, LIBRARY, lambda *tree: grown.append(tree))
    assert not grown
    _read_all(loaded)
    assert len(grown) == 2  # A's (with f's and inner's bodies) and g's
    _read_all(module)
    # read through, both trees encode alike: same nodes, fields and positions
    assert parsed_cache.encode(loaded, loaded_at) == parsed_cache.encode(module, positions)
    with pytest.raises(ValueError):  # a stub needs the text it was lowered from
        parsed_cache.decode(data)[0].body[2].body.body  # g's body


def test_a_library_body_first_read_by_a_later_run_is_stored_with_it(tmp_path):
    site = tmp_path / "site"
    (site / "lib").mkdir(parents=True)
    (site / "lib" / "__init__.py").write_text(
        "def width(n):\n    return n * 2\n\n\ndef depth(n):\n    return n + 3\n")
    project = tmp_path / "project"
    project.mkdir()
    model = "from torch import nn\nfrom lib import {0}\n\nclass M(nn.Module):\n    def __init__(self):\n" \
            "        super().__init__()\n        self.fc = nn.Linear({0}(2), 1)\n\n" \
            "    def forward(self, x):\n        return self.fc(x)\n"
    (project / "a.py").write_text(model.format("width"))
    (project / "b.py").write_text(model.format("depth"))

    def library_entry() -> dict:
        entries = [p.read_bytes() for p in _entries(project / "a.py")]
        return next(entry_data(raw) for raw in entries if b"width" in raw and b"depth" in raw)  # lib's defs, no model's

    first = staticflops.analyze(project / "a.py", inputs=["1x4"], source_path=[site])
    assert first.totals.params == 4 * 1 + 1  # Linear(width(2) = 4, 1)
    assert stubs_in(library_entry()) == {"IndentedBlock": 1}  # depth's body: never called
    second = staticflops.analyze(project / "b.py", inputs=["1x5"], source_path=[site])
    assert second.totals.params == 5 * 1 + 1  # Linear(depth(2) = 5, 1)
    assert stubs_in(library_entry()) == {}  # lowered from the text, then stored with the entry
    stamps = {p: p.stat().st_mtime_ns for p in _entries(project / "a.py")}
    assert staticflops.analyze(project / "b.py", inputs=["1x5"], source_path=[site]).to_json() == second.to_json()
    assert {p: p.stat().st_mtime_ns for p in _entries(project / "a.py")} == stamps  # nothing new: nothing written


ANNOTATED = '''from typing import Optional


def scale(x: "Optional[int]" = None, *rest: int, flag: bool = False, **extra: dict) -> list[int]:
    return [x]


class B:
    size: int = 3  # a class field's annotation: lowered with the class

    def width(self, n: int | None) -> Optional[int]:
        match n:
            case None:
                return 0
        return n
'''


def test_unread_signature_annotations_are_stubs_lowered_from_the_text_when_read():
    """A parameter's or return's annotation is lowered on first read, as a body is, and stored as
    a stub (its class and position) until then; read through, the tree is libcst's (the route's
    comparison, tests/test_ast_lowering.py, reads every field)."""
    from staticflops.frontend.ast_lowering import lower_library_source

    module, positions = lower_library_source(ANNOTATED)
    data = stored(parsed_cache.encode(module, positions))
    # scale: x, rest, flag, extra and the return; width's are inside B's body, itself a stub
    assert stubs_in(data) == {"Annotation": 5, "IndentedBlock": 2}  # and scale's and B's bodies
    loaded, loaded_at = parsed_cache.decode(data, ANNOTATED)
    _read_all(loaded)
    expected_module = cst.parse_module(ANNOTATED)
    expected, expected_at = lower(expected_module, start_positions(expected_module).by_id)
    assert parsed_cache.encode(loaded, loaded_at) == parsed_cache.encode(expected, expected_at)


def test_a_lazily_read_body_the_route_cannot_lower_comes_from_libcst():
    """A `match` statement inside a library function: the file's module level goes through
    Python's parser, the body (read in this run, or a stub read by a later one) through libcst,
    never an internal error."""
    from staticflops.frontend.ast_lowering import lower_library_source

    expected_module = cst.parse_module(ANNOTATED)
    expected = parsed_cache.encode(*lower(expected_module, start_positions(expected_module).by_id))
    module, positions = lower_library_source(ANNOTATED)
    stubbed = stored(parsed_cache.encode(module, positions))
    _read_all(module)  # the cold run reads it
    assert parsed_cache.encode(module, positions) == expected
    loaded, loaded_at = parsed_cache.decode(stubbed, ANNOTATED, name="lib.py")  # a later run reads the stub
    _read_all(loaded)
    assert parsed_cache.encode(loaded, loaded_at) == expected


def test_a_library_match_statement_is_analysed_as_in_a_project_file(tmp_path):
    """Same report through either route (the interpreter's handling of `match` is its own)."""
    body = "def width(n):\n    match n:\n        case 1:\n            return 8\n    return n * 2\n"
    site, project = tmp_path / "site", tmp_path / "project"
    (site / "lib").mkdir(parents=True)
    project.mkdir()
    (site / "lib" / "__init__.py").write_text(body)
    (project / "local.py").write_text(body)
    model = "from torch import nn\nfrom {0} import width\n\nclass M(nn.Module):\n    def __init__(self):\n" \
            "        super().__init__()\n        self.fc = nn.Linear(width(2), 1)\n\n" \
            "    def forward(self, x):\n        return self.fc(x)\n"
    (project / "a.py").write_text(model.format("lib"))
    (project / "b.py").write_text(model.format("local"))

    def outcome(name):
        try:
            return staticflops.analyze(project / name, inputs=["1x4"], source_path=[site]).totals.params
        except staticflops.AnalysisError as error:
            return error.message

    expected = outcome("b.py")
    assert outcome("a.py") == expected  # cold: the body lowered by libcst when first read
    assert outcome("a.py") == expected  # warm: from the entry


def test_a_library_text_read_twice_by_one_analysis_is_one_tree(tmp_path):
    """A package's __init__.py is run, then read again for its TYPE_CHECKING imports: one tree,
    so its entry holds the blocks either read lowered (with two, the stored one lacked the
    other's, and every later run lowered those from the text again).  Another thread (another
    analysis) gets its own tree: a lazy node is filled by one reader at a time."""
    import threading

    text = "import os\n\nif os.sep:\n    A = 1\nelse:\n    A = 2\n"
    parsed_cache.use_project(tmp_path)
    try:
        first = parse_source(text, "lib.py", library=True)
        second = parse_source(text, "lib.py", library=True)
        other = []
        worker = threading.Thread(target=lambda: other.append(parse_source(text, "lib.py", library=True)))
        worker.start()
        worker.join()
        assert first.module is second.module and first.positions is second.positions
        assert other[0].module is not first.module
    finally:
        parsed_cache.store_pending()
        parsed_cache.use_project(None)


# The entry's bytes: a signature line, then the marshalled tree, read only once the signature holds.

def _filed(tmp_path, text: str):
    """(key, tree, positions) of ``text`` lowered and filed as an entry in ``tmp_path``'s folder."""
    module = cst.parse_module(text)
    lowered, positions = lower(module, start_positions(module).by_id)
    key = parsed_cache.entry_key(text, False, (1, 2))
    parsed_cache.use_project(tmp_path)
    parsed_cache.store(key, lowered, positions)
    return key, lowered, positions


def _entry_file(tmp_path, key: str) -> Path:
    return tmp_path.joinpath(*parsed_cache.FOLDER) / (key + parsed_cache.SUFFIX)


def test_an_entry_read_back_is_the_tree_it_was_made_from(tmp_path):
    text = (SAMPLES / "transformer.py").read_text()
    try:
        key, lowered, positions = _filed(tmp_path, text)
        loaded = parsed_cache.load(key, text)
        assert loaded is not None
        _read_all(loaded[0])  # every lazy block decoded
        assert parsed_cache.encode(*loaded) == parsed_cache.encode(lowered, positions)
        assert positions[lowered.body[0]] == loaded[1][loaded[0].body[0]] == (1, 0)  # libcst's (line, column)
    finally:
        parsed_cache.use_project(None)


def test_a_tampered_entry_is_a_miss(tmp_path):
    text = "import torch\n\nx = [1, 2.5, b'\\xff', True, None]\n"
    try:
        key, _, _ = _filed(tmp_path, text)
        path = _entry_file(tmp_path, key)
        signature, _, payload = path.read_bytes().partition(b"\n")
        assert parsed_cache.load(key, text) is not None
        for at in (0, len(payload) // 2, len(payload) - 1):  # one byte changed, the signature kept
            changed = bytearray(payload)
            changed[at] ^= 0x01
            path.write_bytes(signature + b"\n" + bytes(changed))
            assert parsed_cache.load(key, text) is None
        path.write_bytes(signature + b"\n" + payload + b"\0")  # a byte added
        assert parsed_cache.load(key, text) is None
    finally:
        parsed_cache.use_project(None)


def test_bytes_reach_marshal_only_once_their_signature_holds(tmp_path, monkeypatch):
    """The entry's bytes are unmarshalled only after the HMAC check (marshal is not safe against
    crafted input; tests/test_never_executes.py allows it in this module alone for that reason)."""
    text = "import torch\n"
    read = []
    real = parsed_cache.marshal.loads
    monkeypatch.setattr(parsed_cache.marshal, "loads", lambda data: (read.append(data), real(data))[1])
    try:
        key, _, _ = _filed(tmp_path, text)
        path = _entry_file(tmp_path, key)
        signature, _, payload = path.read_bytes().partition(b"\n")
        planted = marshal.dumps({"format": parsed_cache.FORMAT, "classes": [], "tree": [[], [], [], [], [], [], [], [],
                                                                                       [], [], [0]]})
        for data in (b"0" * 64 + b"\n" + payload, signature + b"\n" + planted, b"", b"\n", signature):
            path.write_bytes(data)
            assert parsed_cache.load(key, text) is None
        assert read == []
        path.write_bytes(signature + b"\n" + payload)
        assert parsed_cache.load(key, text) is not None and read == [payload]
    finally:
        parsed_cache.use_project(None)


def test_an_entry_of_an_older_format_is_a_miss(tmp_path):
    """The format is in the key (another build files its trees elsewhere) and in the entry: an
    entry of format 2 (JSON) filed under this build's key, even validly signed, is parsed again."""
    text = "import torch\n"
    try:
        key, lowered, positions = _filed(tmp_path, text)
        path = _entry_file(tmp_path, key)
        old = json.dumps({"format": 2, "classes": [["Module", ["body"]]], "tree": [0, 1, 0, [-1]]}).encode()
        path.write_bytes(cachefolder.sign(parsed_cache._DOMAIN, key, old) + b"\n" + old)
        assert parsed_cache.load(key, text) is None
        data = parsed_cache.encode(lowered, positions)
        data["format"] = parsed_cache.FORMAT - 1  # this layout under another format number
        payload = marshal.dumps(data)
        path.write_bytes(cachefolder.sign(parsed_cache._DOMAIN, key, payload) + b"\n" + payload)
        assert parsed_cache.load(key, text) is None
        data["format"] = parsed_cache.FORMAT
        payload = marshal.dumps(data)
        path.write_bytes(cachefolder.sign(parsed_cache._DOMAIN, key, payload) + b"\n" + payload)
        assert parsed_cache.load(key, text) is not None  # the same, signed as this format: read
    finally:
        parsed_cache.use_project(None)


def test_the_build_and_the_python_are_in_the_key(monkeypatch):
    text = "x = 1\n"
    before = parsed_cache.entry_key(text, False, (1, 2))
    for name, value in (("FORMAT", parsed_cache.FORMAT + 1), ("_MARSHAL_VERSION", 3)):
        with monkeypatch.context() as patch:
            patch.setattr(parsed_cache, name, value)
            parsed_cache._build.cache_clear()
            assert parsed_cache.entry_key(text, False, (1, 2)) != before
    parsed_cache._build.cache_clear()
    with monkeypatch.context() as patch:
        patch.setattr(sys.implementation, "cache_tag", "other-311")
        assert parsed_cache.entry_key(text, False, (1, 2)) != before
    parsed_cache._build.cache_clear()
    assert parsed_cache.entry_key(text, False, (1, 2)) == before


def test_values_of_every_kind_and_shared_nodes_decode_as_stored():
    """Strings, None, booleans, numbers, bytes, empty and filled tuples; a tuple inside a tuple
    (which libcst's fields never hold) is not stored rather than stored wrong."""
    text = "x = (1, 2.5, -3j, b'\\x00\\xff', 'é', True, False, None, (), f'{x!r:>{w}}')\n"
    module = cst.parse_module(text)
    lowered, positions = lower(module, start_positions(module).by_id)
    data = parsed_cache.encode(lowered, positions)
    again = parsed_cache.decode(stored(data))
    _read_all(again[0])
    assert parsed_cache.encode(*again) == data
    name = syntax.node_class("Name")
    node = name.__new__(name)
    node.__dict__.update({field: (("a",),) for field in name._fields})
    with pytest.raises(TypeError, match="tuple inside a tuple"):
        parsed_cache.encode(node, {})
    assert parsed_cache.entry_bytes("k", node, {}) is None
