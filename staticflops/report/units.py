"""Human-readable counts: ``8.18 GFLOPs``, ``25.56 M``, ``8.18 GFLOPs·B``."""

from __future__ import annotations

import re
from decimal import Decimal

_PREFIXES = ((10**24, "Y"), (10**21, "Z"), (10**18, "E"), (10**15, "P"), (10**12, "T"), (10**9, "G"), (10**6, "M"),
             (10**3, "K"))
_SCIENTIFIC = 10**27  # past the last prefix; a number this large may also overflow a float


def human(value: int | str, unit: str = "") -> str:
    """An int gets an SI prefix; a single-term formula gets its coefficient scaled."""
    if isinstance(value, int):
        return _scaled(value, unit)
    match = re.fullmatch(r"(\d+)\*(.+)", value)
    if match and "+" not in value and " - " not in value:
        return f"{_scaled(int(match.group(1)), unit)}·{match.group(2)}"
    return f"{value} {unit}".strip()


def _scaled(number: int, unit: str) -> str:
    if abs(number) >= _SCIENTIFIC:
        return f"{Decimal(number):.2e} {unit}".rstrip()
    for size, prefix in _PREFIXES:
        if abs(number) >= size:
            return f"{number / size:.2f} {prefix}{unit}".rstrip()
    return f"{number} {unit}".rstrip()


def share(part: int | str, whole: int | str) -> str:
    if isinstance(part, int) and isinstance(whole, int) and whole:
        return f"{100 * part / whole:.1f}%"
    return ""


def count_text(value: int | str | None, unit: str = "", exact: bool = False) -> str:
    """``human`` or, with ``exact``, the raw integer; ``-`` for a missing value."""
    if value is None:
        return "-"
    if exact:
        return f"{value} {unit}".strip()
    return human(value, unit)


def signed(delta: int | str | None, reference: int | str | None = None, unit: str = "", exact: bool = False) -> str:
    """A change with its sign, in the SI prefix of ``reference`` (the total it changes), so a
    +410 M change of an 8.6 G total reads ``+0.41 GFLOPs``; a change too small to show there
    (under 0.01 of that unit) gets its own prefix: ``+8.43 MFLOPs``."""
    if delta is None:
        return "?"
    if isinstance(delta, str):
        return delta if delta.startswith("-") else f"+{delta} {unit}".strip()
    if exact or delta == 0:
        return f"{delta:+d} {unit}".strip()
    scale = abs(reference) if isinstance(reference, int) and reference else abs(delta)
    if abs(delta) * 100 < scale:
        scale = abs(delta)
    for size, prefix in _PREFIXES:
        if scale >= size:
            return f"{delta / size:+.2f} {prefix}{unit}".rstrip()
    return f"{delta:+d} {unit}".strip()


def partial_banner(report, show=str) -> str:
    """What table and Markdown output say first when a budget stopped the analysis; ``show``
    renders the location and message (they quote the analysed code: ``escape.py``)."""
    stop = report.stopped
    where = f" at {show(stop.location)}" if stop and stop.location else ""
    why = f": {show(stop.message)}" if stop else ""
    return (f"PARTIAL RESULT: the analysis stopped{where}{why}. The figures below cover only what was "
            "built and traced before that point: lower bounds.")


def completeness(report) -> tuple[str, str]:
    """What the totals line puts before and after the forward count when it is a lower bound:
    ``("≥ ", " — incomplete, 3 unresolved")``; ``("", "")`` for a complete count.  Suppressed
    unknowns (ignore comments) are accepted, not counted: the count is still a lower bound.
    Counts that hold only in ``--assume``'s ranges say so too: ``" — for 2 <= T"``."""
    unresolved, accepted = len(report.unknown), sum(s.kind == "unknown" for s in report.suppressed)
    ranges = [f"for {', '.join(report.assumed)}"] if report.assumed else []
    if report.totals.complete and not unresolved:
        return "", " — " + ranges[0] if ranges else ""
    if unresolved:
        words = [f"incomplete, {unresolved} unresolved"]
    elif report.partial:
        words = ["incomplete, stopped early"]
    else:
        words = ["lower bound"]
    if accepted:
        words.append(f"{accepted} suppressed")
    return "≥ ", " — " + ", ".join(words + ranges)


def notes(report) -> list:
    """The warnings and notes that text output lists after the unknowns: each diagnostic but
    the budget stop (said at the top) and those an unknown already says (same place and words)."""
    said = {(u.location, u.what) for u in report.unknown}
    return [d for d in report.diagnostics
            if d is not report.stopped and d.severity != "error" and (d.location, d.message) not in said]


def input_texts(report) -> list[str]:
    """The inputs a report (or comparison) was given, as printed: forward's positional ones in
    order, then its keyword ones as ``name=spec``."""
    return [*report.inputs, *(f"{name}={spec}" for name, spec in report.keyword_inputs.items())]


def generation_line(report, code=str) -> str | None:
    """With --past-tokens: what the forward priced is, and the cache it leaves: keys and values,
    or a state-space model's state (``code`` marks up the size name, as each format shows names)."""
    step = report.generation
    if step is None:
        return None
    return (f"Generation step over the cache of {code(str(step.past_tokens))} earlier tokens (the forward "
            f"filling it not counted); cache after the step: {human(step.kv_cache_bytes, 'B')} "
            f"({report.totals.dtype}, {step.kv_cache_tensors} tensors)")


def range_hint(report) -> str | None:
    """A line for the unresolved list when the code compared a symbolic size of the inputs with
    a number (`q_length > 1`): a range given with ``--assume`` decides such a comparison."""
    specs = [*report.inputs, *report.keyword_inputs.values()]
    if report.generation is not None:
        specs.append(str(report.generation.past_tokens))
    named = {part for spec in specs for part in re.split(r"[x,×]", spec.split(":")[0].split("=")[0])
             if _SIZE_NAMES.fullmatch(part)}
    for unknown in report.unknown:
        found = _COMPARED.search(unknown.what)
        if found and found.group(1) in named:
            size = found.group(1)
            return (f"{size} is compared with a number: state its range with --assume "
                    f"(e.g. --assume '{size}>={int(found.group(2)) + 1}' or '{size}<={found.group(2)}') to decide it.")
    return None


_COMPARED = re.compile(r"cannot compare ([A-Za-z_][A-Za-z0-9_]*) with (\d{1,18})\b")
_SIZE_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

