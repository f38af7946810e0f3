"""The built-in rule sets compiled when the wheel is built: what ``.pyc`` files are to Python
modules, for rule files, without writing anything at run time.

Reading a rule set from YAML costs a cold run ~30 ms: importing PyYAML (~17 ms), building the
rule-file schema's validators (~10 ms), composing and validating the files.  The wheel's build
hook (``hatch_build.py``) runs the loader (``loader.compile_builtin``) over ``rules/*.yaml`` and writes each built-in
rule set, merged and checked, as ``rules_data/compiled/<name>.json`` beside the YAML.

A compiled copy is used only for a built-in rule set named by its name, and only while it is
fresh: the SHA-256 of every YAML file it came from and of the modules that compile rule files
(``loader.py``, ``compiled.py``, ``schema.py``, ``prebuilt.py``) must be as recorded.  An editable install or a
source checkout has no copy (or an edited file makes it stale): the YAML is read, as before,
and nothing is written anywhere.  Nothing in a copy is trusted more than the YAML it came
from: its formulas are parsed and checked again, each when first read (before it is ever
evaluated), as every formula is.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from staticflops.diagnostics import Location
from staticflops.rulesets.compiled import MAX_RULE_FILE_BYTES, CompiledRule, RuleSet, builtin_rules_dir
from staticflops.rulesets.formula import Formula

FORMAT = 1
FOLDER = "compiled"  # under the built-in rules folder
PLACEHOLDER = "<builtin-rules>"  # the built-in folder in stored paths: the build's and the install's differ
_FORMULAS = ("macs", "flops", "params", "input_grad", "weight_grad", "state_grad", "mem_read", "mem_write", "saved")
_COMPILING_MODULES = ("loader.py", "compiled.py", "schema.py", "prebuilt.py")
MAX_COMPILED_BYTES = 16 * 1024 * 1024


def entry(ruleset, folder: Path) -> dict:
    """The compiled copy of one built-in rule set (``loader.compile_builtin`` writes it)."""
    return {
        "format": FORMAT, "code": _code_stamp(),
        "digests": [[_portable(file, folder), _digest(Path(file))] for file in ruleset.files],
        "name": ruleset.name, "description": ruleset.description, "convention": ruleset.convention,
        "headline": ruleset.headline, "files": [_portable(file, folder) for file in ruleset.files],
        "options": ruleset.options,
        "rules": {kind: _rule(rule, folder) for kind, rule in ruleset.rules.items()},
        "classes": {kind: _rule(rule, folder) for kind, rule in ruleset.classes.items()},
    }


def read(path: Path):
    """The compiled copy of the built-in rule file ``path`` (as ``loader._resolve`` gives a
    built-in name), or None: not a built-in, no copy, or a stale one."""
    folder = builtin_rules_dir()
    if path.parent != folder or path.suffix != ".yaml":
        return None  # a rule file named by its path: read as YAML
    try:
        raw = (folder / FOLDER / f"{path.stem}.json").read_bytes()
        if len(raw) > MAX_COMPILED_BYTES:
            return None
        entry = json.loads(raw)
        if entry.get("format") != FORMAT or entry.get("code") != _code_stamp():
            return None
        if any(_digest(Path(_local(name, folder))) != digest for name, digest in entry["digests"]):
            return None
        ruleset = RuleSet(entry["name"], entry["description"], entry["convention"], entry["headline"],
                          files=[_local(name, folder) for name in entry["files"]], options=dict(entry["options"]))
        for table, rules in (("rules", ruleset.rules), ("classes", ruleset.classes)):
            for kind, fields in entry[table].items():
                formulas = {name: Formula.checked_on_first_use(fields[name]) if fields[name] is not None else None
                            for name in _FORMULAS}
                where, line, column = fields["origin"]
                rules[kind] = CompiledRule(kind=kind, note=fields["note"], origin=Location(_local(where, folder), line,
                                                                                         column), **formulas)
    except Exception:  # absent, damaged or from another build: compile the YAML instead
        return None
    return ruleset


def _rule(rule, folder: Path) -> dict:
    fields = {name: getattr(rule, name).text if getattr(rule, name) is not None else None for name in _FORMULAS}
    return {**fields, "note": rule.note, "origin": [_portable(rule.origin.path, folder), rule.origin.line,
                                                    rule.origin.col]}


def _portable(path: str, folder: Path) -> str:
    prefix = str(folder)
    return PLACEHOLDER + path[len(prefix):] if str(path).startswith(prefix) else str(path)


def _local(path: str, folder: Path) -> str:
    return str(folder) + path[len(PLACEHOLDER):] if path.startswith(PLACEHOLDER) else path


def _digest(path: Path) -> str:
    from staticflops.files import read_file

    return hashlib.sha256(read_file(path, max_bytes=MAX_RULE_FILE_BYTES)).hexdigest()  # regular, bounded


def _code_stamp() -> str:
    """Our version and the content of the code that compiles rule files."""
    from staticflops.version import __version__

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(__version__.encode())
    for name in _COMPILING_MODULES:
        digest.update(b"\0" + name.encode() + b"\0" + (here / name).read_bytes())
    return digest.hexdigest()
