"""What a compiled rule set is (``RuleSet``, ``CompiledRule``) and where the built-in rule
files are: shared by the loader, which compiles YAML into these, and ``prebuilt.py``, which
reads the wheel's compiled copies into them, so that neither needs the other's module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from staticflops.diagnostics import Location
from staticflops.rulesets.formula import Formula

MAX_RULE_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class CompiledRule:
    kind: str
    macs: Formula
    flops: Formula
    params: Formula | None
    input_grad: Formula | None
    weight_grad: Formula | None
    state_grad: Formula | None
    note: str | None
    origin: Location
    mem_read: Formula | None = None
    mem_write: Formula | None = None
    saved: Formula | None = None


DEFAULT_OPTIONS = {"functional": True, "declared_params": True, "repeated_calls": "sum", "memory": "io"}


@dataclass
class RuleSet:
    name: str
    description: str
    convention: str
    headline: str
    rules: dict = field(default_factory=dict)  # kind -> CompiledRule
    files: list = field(default_factory=list)
    options: dict = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    classes: dict = field(default_factory=dict)  # user class name -> CompiledRule

    def get(self, kind: str) -> CompiledRule | None:
        return self.rules.get(kind)

    def for_class(self, name: str, qualified: str | None) -> CompiledRule | None:
        return self.classes.get(qualified) if qualified in self.classes else self.classes.get(name)


def builtin_rules_dir() -> Path:
    installed = Path(__file__).resolve().parent.parent / "rules_data"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "rules"  # a source checkout


DATA_FILES = {"hardware"}  # YAML beside the rule sets that is not one (device peaks)


def builtin_names() -> list[str]:
    return sorted(p.stem for p in builtin_rules_dir().glob("*.yaml") if p.stem not in DATA_FILES)
