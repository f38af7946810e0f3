"""The Python API: ``analyze`` returns the report the CLI prints (pure: no printing, no exit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from staticflops.cost import price
from staticflops.diagnostics import UsageError
from staticflops.frontend.keras_model import analyse_keras, uses_keras
from staticflops.frontend.pytorch import analyse_torch
from staticflops.frontend.source import load_source
from staticflops.report import Report, build_report
from staticflops.rulesets import load_ruleset
from staticflops.shapes import InputSpec, parse_input_spec


def analyze(
    path: str | Path,
    model: str | None = None,
    inputs: Iterable[str | InputSpec] = (),
    kwargs: dict | str | None = None,
    rules: str = "standard",
    batch: int | None = None,
) -> Report:
    """Analyse the model defined in ``path`` without importing or running it.

    ``inputs``: one shape per ``forward`` argument, as ``"1x3x224x224"``, ``"B,3,224,224"``
    or ``"Bx1024:int64"``.  ``kwargs``: constructor arguments (a dict or a JSON object).
    ``batch``: Keras models only: the size of a batch dimension the source leaves open
    (``Input(shape=...)``); without it that dimension is the symbol ``B``.
    Raises ``AnalysisError`` (with a location) when the model cannot be analysed and
    ``UsageError`` for malformed arguments.
    """
    specs = [s if isinstance(s, InputSpec) else parse_input_spec(s) for s in inputs]
    ruleset = load_ruleset(rules)
    source = load_source(path)
    if batch is not None and (not isinstance(batch, int) or batch < 1):
        raise UsageError("--batch must be a positive integer")
    if uses_keras(source):
        ir = analyse_keras(source, model, _kwargs(kwargs), specs, batch)
    else:
        ir = analyse_torch(source, model, _kwargs(kwargs), specs)
    return build_report(ir, price(ir, ruleset), ruleset)


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
