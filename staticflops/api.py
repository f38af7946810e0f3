"""The Python API: ``analyze`` returns the report the CLI prints (pure: no printing, no exit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from staticflops.cost import price
from staticflops.diagnostics import UsageError
from staticflops.frontend.pytorch import analyse_torch
from staticflops.frontend.source import FileReader, load_source
from staticflops.report import Report, build_report
from staticflops.rulesets import load_ruleset
from staticflops.shapes import InputSpec, parse_input_spec


def analyze(
    path: str | Path,
    model: str | None = None,
    inputs: Iterable[str | InputSpec] = (),
    kwargs: dict | str | None = None,
    rules: str = "standard",
    reader: FileReader | None = None,
) -> Report:
    """Analyse the model defined in ``path`` without importing or running it.

    ``inputs``: one shape per ``forward`` argument, as ``"1x3x224x224"``, ``"B,3,224,224"``
    or ``"Bx1024:int64"``.  ``kwargs``: constructor arguments (a dict or a JSON object).
    ``reader``: reads the analysed files' bytes by path (default: the filesystem), e.g. from
    a git revision; every location still names ``path`` as given.
    Raises ``AnalysisError`` (with a location) when the model cannot be analysed and
    ``UsageError`` for malformed arguments.
    """
    specs = [s if isinstance(s, InputSpec) else parse_input_spec(s) for s in inputs]
    ruleset = load_ruleset(rules)
    source = load_source(path, reader=reader)
    ir = analyse_torch(source, model, _kwargs(kwargs), specs)
    return build_report(ir, price(ir, ruleset), ruleset)


def analyze_text(text: str, path: str | Path, **options) -> Report:
    """Analyse source ``text`` as if it were the file ``path`` (which need not exist);
    ``options`` are those of :func:`analyze`."""
    wanted = str(path)

    def reader(name: str) -> bytes:
        if name != wanted:
            raise FileNotFoundError(2, "only the given text can be read", name)
        return text.encode("utf-8")

    return analyze(path, reader=reader, **options)


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
