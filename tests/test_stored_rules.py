"""Compiled rule sets stored between runs (rulesets/stored.py), like .pyc files: a stored copy
gives the same rule set as reading the YAML, and is not used once a file it came from changes."""

import os
import subprocess
import sys

import pytest

from staticflops.rulesets import loader, stored


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("STATICFLOPS_CACHE_DIR", str(tmp_path / "cache"))
    loader._LOADED.clear()  # the in-process cache would answer first
    yield tmp_path / "cache"
    loader._LOADED.clear()


def _fields(ruleset) -> tuple:
    def rule(r):
        return (r.kind, r.note, r.origin, *((getattr(r, f).text if getattr(r, f) else None) for f in stored._FORMULAS))
    return (ruleset.name, ruleset.description, ruleset.convention, ruleset.headline, ruleset.files,
            ruleset.options, sorted(rule(r) for r in ruleset.rules.values()),
            sorted(rule(r) for r in ruleset.classes.values()))


@pytest.mark.parametrize("name", loader.builtin_names())
def test_stored_copy_equals_the_yaml(store, name):
    from_yaml = loader.load_ruleset(name)  # first load: compiled from YAML and stored
    assert list(store.glob("rulesets/*.json"))
    loader._LOADED.clear()
    again = stored.read(loader._resolve(name, None))
    assert again is not None
    assert _fields(again) == _fields(from_yaml)


def test_an_edited_file_is_read_again(store, tmp_path):
    base = tmp_path / "base.yaml"
    base.write_text("name: base\nrules:\n  linear:\n    macs: 1\n")
    child = tmp_path / "child.yaml"
    child.write_text(f"name: child\nextends: {base}\nrules:\n  conv:\n    macs: 2\n")
    assert loader.load_ruleset(str(child)).get("linear").macs.text == "1"
    assert stored.read(child) is not None
    # the file it extends changes (same size, so a size check alone would miss it): not reused
    base.write_text("name: base\nrules:\n  linear:\n    macs: 7\n")
    assert stored.read(child) is None
    loader._LOADED.clear()
    assert loader.load_ruleset(str(child)).get("linear").macs.text == "7"


def test_a_damaged_store_is_ignored(store):
    loader.load_ruleset("standard")
    for entry in store.glob("rulesets/*.json"):
        entry.write_text('{"format": 1, "code": "x"')  # cut short
    loader._LOADED.clear()
    assert stored.read(loader._resolve("standard", None)) is None
    assert loader.load_ruleset("standard").get("linear") is not None


def test_turned_off_with_an_empty_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("STATICFLOPS_CACHE_DIR", "")
    loader._LOADED.clear()
    assert loader.load_ruleset("standard").get("linear") is not None
    assert stored.cache_dir() is None
    loader._LOADED.clear()


def test_a_run_with_a_stored_copy_imports_no_yaml(store):
    # what the store is for: a later process analyses without PyYAML or the rule-file schema
    code = ("import sys, staticflops; staticflops.analyze('samples/lenet5.py', inputs=['1x1x28x28']); "
            "print('yaml' in sys.modules, 'staticflops.rulesets.schema' in sys.modules)")
    env = {**os.environ, "STATICFLOPS_CACHE_DIR": str(store)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert first.stdout.split() == ["True", "True"]
    assert second.stdout.split() == ["False", "False"]
