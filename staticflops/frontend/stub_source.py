"""Library classes and functions written as stub source in the Python subset the interpreter evaluates
(torch.nn's transformer modules, multi_head_attention_forward, einops' layers): parsed once per process, run per analysis."""

from __future__ import annotations

from pathlib import Path

from staticflops.frontend.scope import Scope
from staticflops.frontend.values import Class, Function

_PARSED: dict = {}


def run_stub(interp, path: Path, label: str, bindings: dict) -> dict:
    """The public classes a stub file defines, with ``bindings`` as its globals."""
    from staticflops.frontend.source import parse_source

    if path not in _PARSED:
        _PARSED[path] = parse_source(path.read_text(encoding="utf-8"), label, internal=True)
    source = _PARSED[path]
    scope = Scope()
    scope.vars.update(bindings)
    previous, interp.source = interp.source, source
    try:
        interp.exec_block(source.module.body, scope)
    finally:
        interp.source = previous
    return {k: v for k, v in scope.vars.items() if isinstance(v, (Class, Function)) and not k.startswith("_")}
