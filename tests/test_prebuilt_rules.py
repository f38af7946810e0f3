"""Built-in rule sets compiled when the wheel is built (rulesets/prebuilt.py, hatch_build.py):
a compiled copy gives the same rule set as reading the YAML, is not used once a file it came
from changes, and nothing is written at start-up (tests/test_packaging.py: the real wheel)."""

import json
import shutil
from pathlib import Path

import pytest

from staticflops.rulesets import compiled, loader, prebuilt

RULES = Path(__file__).resolve().parent.parent / "rules"


@pytest.fixture()
def builtin(tmp_path, monkeypatch):
    """A copy of the built-in rules folder, compiled as the build hook does."""
    folder = tmp_path / "rules_data"
    shutil.copytree(RULES, folder)
    for module in (compiled, loader, prebuilt):  # each reads the folder by the name it imported
        monkeypatch.setattr(module, "builtin_rules_dir", lambda: folder)
    loader._LOADED.clear()  # the in-process cache would answer first
    loader.compile_builtin(folder / prebuilt.FOLDER)
    yield folder
    loader._LOADED.clear()


def fields(ruleset) -> tuple:
    def rule(r):
        return (r.kind, r.note, r.origin, *((getattr(r, f).text if getattr(r, f) else None) for f in prebuilt._FORMULAS))
    return (ruleset.name, ruleset.description, ruleset.convention, ruleset.headline, ruleset.files,
            ruleset.options, sorted(rule(r) for r in ruleset.rules.values()),
            sorted(rule(r) for r in ruleset.classes.values()))


@pytest.mark.parametrize("name", loader.builtin_names())
def test_compiled_copy_equals_the_yaml(builtin, name):
    path = loader._resolve(name, None)
    copy = prebuilt.read(path)
    assert copy is not None
    assert fields(copy) == fields(loader._load(path, chain=(), named=path))
    assert str(copy.files[-1]).startswith(str(builtin))  # paths are the installed folder's, not the build's


def test_an_edited_file_is_read_again(builtin):
    # torch.yaml extends standard.yaml: an edit of the file it extends makes its copy stale
    standard = builtin / "standard.yaml"
    assert prebuilt.read(loader._resolve("torch", None)) is not None
    standard.write_text(standard.read_text().replace("linear:", "linear:  # edited", 1))
    assert prebuilt.read(loader._resolve("torch", None)) is None
    assert prebuilt.read(loader._resolve("standard", None)) is None
    assert prebuilt.read(loader._resolve("thop", None)) is None
    assert prebuilt.read(loader._resolve("fvcore", None)) is None  # extends standard too


def test_a_damaged_copy_is_ignored(builtin):
    (builtin / prebuilt.FOLDER / "standard.json").write_text('{"format": 1, "code": "x"')  # cut short
    assert prebuilt.read(loader._resolve("standard", None)) is None
    assert loader.load_ruleset("standard").get("linear") is not None


def test_a_rule_file_named_by_its_path_is_read_as_yaml(builtin):
    assert prebuilt.read(builtin / "standard.yaml") is not None  # what the name `standard` resolves to
    assert prebuilt.read(RULES / "standard.yaml") is None  # another folder: its own YAML


def test_a_source_checkout_has_no_copy_and_writes_none(tmp_path):
    # the repository's rules/ (an editable install): compiled from YAML, nothing written beside it
    before = sorted(p.name for p in RULES.iterdir())
    assert not (RULES / prebuilt.FOLDER).exists()
    loader._LOADED.clear()
    assert loader.load_ruleset("standard").get("linear") is not None
    assert sorted(p.name for p in RULES.iterdir()) == before


def test_a_compiled_formula_is_checked_before_its_first_use(builtin):
    """The copy's formulas are parsed and checked when first read, not at load (a run prices a
    few kinds): one that is not a formula still never runs, it fails its check with the same
    FormulaError the YAML route gives at load."""
    from staticflops.rulesets.formula import FormulaError

    copy_file = builtin / prebuilt.FOLDER / "standard.json"
    entry = json.loads(copy_file.read_text())
    entry["rules"]["linear"]["macs"] = "__import__('os').getcwd()"
    copy_file.write_text(json.dumps(entry))
    ruleset = prebuilt.read(loader._resolve("standard", None))
    assert ruleset is not None  # loaded: nothing was parsed yet
    with pytest.raises(FormulaError, match="not allowed in a formula|only these functions"):
        ruleset.rules["linear"].macs.evaluate({})
    # every untouched one, checked when read, names the variables the YAML's does
    yaml = loader._load(builtin / "standard.yaml", chain=(), named=builtin / "standard.yaml")
    for kind, rule in yaml.rules.items():
        if kind != "linear":
            for field in prebuilt._FORMULAS:
                mine, theirs = getattr(ruleset.rules[kind], field), getattr(rule, field)
                assert (mine is None) == (theirs is None) and (mine is None or mine.names == theirs.names), kind
