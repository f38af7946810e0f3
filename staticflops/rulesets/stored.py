"""Compiled rule sets kept as JSON in the user's cache directory: what ``.pyc`` files are to
Python modules, for rule files.

Reading a rule set from YAML costs a cold run ~30 ms: importing PyYAML (~17 ms), building the
rule-file schema's validators (~10 ms), composing and validating the files.  A stored copy is
reused only while every file it was compiled from has the same bytes (SHA-256) and the
compiling code is the same; otherwise the YAML is read again and the copy replaced.  Nothing
in it is trusted more than the YAML it came from: its formulas are parsed and checked again,
as every formula is.  Failing to read or write the store is never an error: the YAML is read.
``STATICFLOPS_CACHE_DIR`` (default ``$XDG_CACHE_HOME/staticflops`` or ``~/.cache/staticflops``)
says where it lives; set it to an empty string to turn the store off.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from staticflops.cachefolder import user_cache_dir
from staticflops.diagnostics import Location
from staticflops.files import read_file
from staticflops.rulesets.formula import Formula

FORMAT = 1
_FORMULAS = ("macs", "flops", "params", "input_grad", "weight_grad", "state_grad", "mem_read", "mem_write", "saved")


def cache_dir() -> Path | None:
    return user_cache_dir()


def read(path: Path):
    """The stored compiled rule set for the rule file ``path``, or None (absent or stale)."""
    from staticflops.rulesets.loader import CompiledRule, RuleSet

    entry = _load(_entry_path(path))
    if entry is None or entry.get("format") != FORMAT or entry.get("code") != _code_stamp():
        return None
    try:
        if any(_digest(Path(name)) != digest for name, digest in entry["digests"]):
            return None
        ruleset = RuleSet(entry["name"], entry["description"], entry["convention"], entry["headline"],
                          files=list(entry["files"]), options=dict(entry["options"]))
        for table, rules in (("rules", ruleset.rules), ("classes", ruleset.classes)):
            for kind, fields in entry[table].items():
                formulas = {name: Formula(fields[name]) if fields[name] is not None else None for name in _FORMULAS}
                rules[kind] = CompiledRule(kind=kind, note=fields["note"], origin=Location(*fields["origin"]),
                                           **formulas)
    except Exception:  # anything wrong with a stored entry (damaged, edited): compile again
        return None
    return ruleset


def write(path: Path, ruleset) -> None:
    """Store ``ruleset`` (compiled from ``path`` and the files it extends) for later runs."""
    target = _entry_path(path)
    if target is None:
        return
    try:
        entry = {
            "format": FORMAT, "code": _code_stamp(),
            "digests": [[name, _digest(Path(name))] for name in ruleset.files],
            "name": ruleset.name, "description": ruleset.description, "convention": ruleset.convention,
            "headline": ruleset.headline, "files": ruleset.files, "options": ruleset.options,
            "rules": {kind: _rule(rule) for kind, rule in ruleset.rules.items()},
            "classes": {kind: _rule(rule) for kind, rule in ruleset.classes.items()},
        }
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(entry))
        os.replace(temporary, target)  # atomic: a concurrent run reads the old entry or the new one
    except (OSError, TypeError, ValueError):
        pass


def _rule(rule) -> dict:
    fields = {name: getattr(rule, name).text if getattr(rule, name) is not None else None for name in _FORMULAS}
    return {**fields, "note": rule.note, "origin": [rule.origin.path, rule.origin.line, rule.origin.col]}


def _entry_path(path: Path) -> Path | None:
    directory = cache_dir()
    if directory is None:
        return None
    # the path as given too: the files and origins it stores are written as they were given
    key = hashlib.sha256(f"{path}\0{path.resolve()}".encode()).hexdigest()[:24]
    return directory / "rulesets" / f"{key}.json"


def _load(target: Path | None):
    if target is None:
        return None
    try:
        return json.loads(target.read_text())
    except (OSError, ValueError):
        return None


def _digest(path: Path) -> str:
    from staticflops.rulesets.loader import MAX_RULE_FILE_BYTES

    return hashlib.sha256(read_file(path, max_bytes=MAX_RULE_FILE_BYTES)).hexdigest()  # regular, bounded


def _code_stamp() -> str:
    """Our version and the size and modification time of the code that compiles rule files."""
    import staticflops

    here = Path(__file__).resolve().parent
    stats = [staticflops.__version__]
    for name in ("loader.py", "schema.py", "formula.py", "stored.py"):
        status = (here / name).stat()
        stats.append(f"{name}:{status.st_size}:{status.st_mtime_ns}")
    return "|".join(stats)
