"""The Python API: ``analyze`` returns the report the CLI prints (pure: no printing, no exit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from staticflops.cost import price
from staticflops.cost.compare import price_all
from staticflops.diagnostics import UsageError
from staticflops.frontend.pytorch import analyse_torch
from staticflops.frontend.source import load_source
from staticflops.report import Report, build_report
from staticflops.report.compare import Comparison, build_comparison
from staticflops.rulesets import builtin_names, load_ruleset
from staticflops.shapes import InputSpec, parse_input_spec


def analyze(
    path: str | Path,
    model: str | None = None,
    inputs: Iterable[str | InputSpec] = (),
    kwargs: dict | str | None = None,
    rules: str = "standard",
) -> Report:
    """Analyse the model defined in ``path`` without importing or running it.

    ``inputs``: one shape per ``forward`` argument, as ``"1x3x224x224"``, ``"B,3,224,224"``
    or ``"Bx1024:int64"``.  ``kwargs``: constructor arguments (a dict or a JSON object).
    Raises ``AnalysisError`` (with a location) when the model cannot be analysed and
    ``UsageError`` for malformed arguments.
    """
    specs = [s if isinstance(s, InputSpec) else parse_input_spec(s) for s in inputs]
    ruleset = load_ruleset(rules)
    source = load_source(path)
    ir = analyse_torch(source, model, _kwargs(kwargs), specs)
    return build_report(ir, price(ir, ruleset), ruleset)


# The built-in conventions `compare` shows, in this order (others found on disk follow).
COMPARE_ORDER = ("standard", "full", "torch", "fvcore", "thop", "ptflops", "torchinfo", "torchstat", "tf-profiler")


def compare(
    path: str | Path,
    model: str | None = None,
    inputs: Iterable[str | InputSpec] = (),
    kwargs: dict | str | None = None,
    rules: Iterable[str] | None = None,
    top: int = 5,
) -> Comparison:
    """Analyse once, price under several rule sets (default: every built-in one), and list
    the ``top`` layers where they disagree most."""
    names = list(rules) if rules else _builtin_order()
    rulesets = [load_ruleset(name) for name in names]
    specs = [s if isinstance(s, InputSpec) else parse_input_spec(s) for s in inputs]
    ir = analyse_torch(load_source(path), model, _kwargs(kwargs), specs)
    return build_comparison(ir, price_all(ir, rulesets), top)


def _builtin_order() -> list[str]:
    available = builtin_names()
    return [n for n in COMPARE_ORDER if n in available] + sorted(set(available) - set(COMPARE_ORDER))


def _kwargs(kwargs: dict | str | None) -> dict:
    if kwargs is None:
        return {}
    if isinstance(kwargs, str):
        try:
            kwargs = json.loads(kwargs)
        except json.JSONDecodeError as error:
            raise UsageError(f"--kwargs is not valid JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(kwargs, dict):
        raise UsageError("--kwargs must be a JSON object, e.g. '{\"num_classes\": 10}'")
    return kwargs


def load_rules(name_or_path: str):
    """A compiled rule set (built-in name or YAML path); raises AnalysisError with file:line:col."""
    return load_ruleset(name_or_path)


def rule_sets() -> list:
    return [load_ruleset(name) for name in _builtin_order()]


def describe_rules(name_or_path: str) -> str:
    """A readable listing of a rule set: header, options, then each rule's formulas and note."""
    ruleset = load_ruleset(name_or_path)
    lines = [f"# {ruleset.name}: headline {ruleset.headline}", f"# {ruleset.convention}",
             *("# " + line for line in _wrap(" ".join(ruleset.description.split()))),
             f"# files: {', '.join(ruleset.files)}",
             f"# options: {', '.join(f'{k}={v}' for k, v in sorted(ruleset.options.items()))}", ""]
    for title, table in (("rules", ruleset.rules), ("classes", ruleset.classes)):
        if not table:
            continue
        lines.append(f"{title}:")
        for kind in sorted(table):
            rule = table[kind]
            lines.append(f"  {kind}:")
            for field in ("macs", "flops", "params", "mem_read", "mem_write", "input_grad", "weight_grad"):
                formula = getattr(rule, field)
                if formula is not None:
                    lines.append(f"    {field}: {' '.join(formula.text.split())}")
            if rule.note:
                lines.append(f"    note: {rule.note}")
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int = 96) -> list:
    import textwrap
    return textwrap.wrap(text, width) or [""]
