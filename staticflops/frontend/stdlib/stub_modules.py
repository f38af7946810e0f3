"""Stand-in modules written as Python source (``stubs/``) and run by our interpreter: the
package's modules and ``system.py`` both load them, so it is a module of its own."""

from __future__ import annotations

from pathlib import Path

from staticflops.frontend.scope import Scope

_STUB_CACHE: dict = {}


def run_stub(interp, name: str, scope: Scope | None = None) -> Scope:
    """Run ``stubs/<name>`` (parsed once per process) in a fresh module scope."""
    from staticflops.frontend.source import parse_source

    if name not in _STUB_CACHE:
        text = (Path(__file__).parent / "stubs" / name).read_text(encoding="utf-8")
        _STUB_CACHE[name] = parse_source(text, f"<stdlib:{name}>", internal=True)
    scope = scope or Scope()
    previous, interp.source = interp.source, _STUB_CACHE[name]
    try:
        interp.exec_block(_STUB_CACHE[name].module.body, scope)
    finally:
        interp.source = previous
    return scope
