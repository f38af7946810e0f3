"""The terminal table: module tree by depth, human units, totals, then unknowns.
Names, paths and messages come from the analysed project: they reach rich only as ``Text``
(never markup), through ``escape.visible``."""

from __future__ import annotations

from rich.console import Console
from rich.text import Span, Text

from staticflops.report.by_type import COLUMNS as TYPE_COLUMNS, type_cells
from staticflops.report.escape import MAX_MESSAGE, visible
from staticflops.report.grid import fitted_grid
from staticflops.report.repeats import Shown, collapsed
from staticflops.report.schema import Report
from staticflops.report.symbolic import APPROXIMATE, short_count, short_dim
from staticflops.report.training_lines import recomputed, rule_of_thumb, run_line
from staticflops.report.units import completeness, generation_line, human, input_texts, notes, partial_banner, range_hint, share


def _shape(shape, calls: int = 1, short=str) -> str:
    if shape is None:
        return "-" if calls == 0 else "?"  # never called (a container) vs. not known
    return "x".join(str(d) if isinstance(d, int) else short(d) for d in shape) or "scalar"


# Which columns give way first when the table is wider than the terminal (after the gap
# between columns narrows): MACs repeat FLOPs under most conventions and are in the totals;
# the source line and type are one step from the name; the share, params, backward FLOPs
# and output shape follow.  Layer and FLOPs always stay.
DROP_ORDER = ["MACs", "Line", "Type", "%FLOPs", "Params", "Bwd FLOPs", "Output"]


def _amount(value, exact: bool) -> str:
    """A table cell's count: ``12.61 M``, or ``12,614,656`` with ``exact``; a symbolic count
    by its leading term (``≈ 4.70 K·B·H·W``; the JSON keeps the formula)."""
    if value == "unknown":
        return value
    if isinstance(value, int):
        return f"{value:,}" if exact else human(value)
    return short_count(value, human) or human(value)


def _where(location: str, main_file: str) -> str:
    """Line number alone for the analysed file; ``file:line`` for code from elsewhere."""
    path, line, _col = location.rsplit(":", 2)
    return line if path == main_file else f"{path.rsplit('/', 1)[-1]}:{line}"


def render_table(report: Report, console: Console, max_depth: int | None = None, exact: bool = False,
                 by_type: bool = False, expand: bool = False) -> None:
    """The layer table fitted to ``console.width`` (``DROP_ORDER``), then the totals;
    ``by_type``: one row per layer or op type instead of one per layer; ``expand``: every
    repeated block on its own rows instead of one folded row (``repeats.py``)."""
    totals = report.totals
    if report.partial:
        console.print(Text(partial_banner(report, _message), style="bold red"))
    training = totals.training_flops is not None
    columns = [("Layer", "left"), ("Type", "left"), ("Output", "left"), ("FLOPs", "right"), ("MACs", "right")]
    columns += [("Bwd FLOPs", "right")] if training else []
    columns += [("Params", "right"), ("%FLOPs", "right"), ("Line", "right")]
    rows, styles, shortened, folded = [], [], False, None
    shown = [] if by_type else [Shown(row) for row in report.layers] if expand else collapsed(report.layers)
    for row, repeats, span in ((item.row, item.repeats, item.label) for item in shown):
        if max_depth is not None and row.depth > max_depth:
            continue
        label = visible(row.name.rsplit(".", 1)[-1]) if row.kind == "module" else "↳ " + visible(row.type)
        if span is not None:  # a folded run: `0-11 ×12`, its figures the sum of the 12
            label = f"{visible(span)} ×{repeats}"
            folded = folded or (label, repeats)
        shape = visible(_shape(row.output_shape, row.calls, short_dim))
        shortened = shortened or shape != visible(_shape(row.output_shape, row.calls))
        bound = "≥ " if row.lower_bound and row.forward_flops != "unknown" else ""
        cells = ["  " * (row.depth - 1) + label, visible(row.type), shape,
                 bound + visible(_amount(row.forward_flops, exact)), bound + visible(_amount(row.macs, exact))]
        cells += [visible(_amount(row.backward_flops, exact))] if training else []
        cells += [visible(_amount(row.params, exact)) if row.params else "", share(row.forward_flops, totals.forward_flops),
                  visible(_where(row.location, report.file))]
        rows.append(cells)
        styles.append("dim" if row.kind == "op" else None)
    console.print(Text(f"{visible(report.model)} ({visible(report.file)}) — rules: {visible(report.rules)}\n",
                       style="italic"))
    if by_type:
        columns, rows, styles = _type_rows(report, exact)
    table, dropped = fitted_grid(None, columns, rows, styles, console.width, DROP_ORDER)
    console.print(table, soft_wrap=True, highlight=False)
    shortened = shortened or any(cell.startswith(APPROXIMATE) for cells in rows for cell in cells)
    _print_layout_notes(shortened, dropped, console)
    if folded:
        console.print(Text(f"{folded[0]}: {folded[1]} identical blocks in one row, its figures their sum; the rows "
                           "under it are one block's (--expand shows every block).", style="dim"))
    prefix = "[bold red]PARTIAL (lower bound)[/bold red] " if report.partial else ""
    bound, incomplete = completeness(report)
    console.print(f"{prefix}[bold]Total forward:[/bold] {bound}{human(totals.forward_flops, 'FLOPs')}"
                  f"{f'[bold yellow]{incomplete}[/bold yellow]' if incomplete else ''}  "
                  f"({human(totals.macs, 'MACs')})   [bold]Params:[/bold] {human(totals.params)} "
                  f"(trainable {human(totals.trainable_params)})")
    console.print(Text.assemble(("Memory", "bold"), f" ({totals.dtype}): params {human(totals.param_bytes, 'B')}, "
                  f"activations {human(totals.activation_bytes, 'B')} (every op output), "
                  f"read {human(totals.mem_read_bytes, 'B')}, write {human(totals.mem_write_bytes, 'B')} "
                  f"({visible(report.rules)} convention)"
                  + (f", saved for backward {human(totals.saved_activation_bytes, 'B')}" if training else "")))
    outputs = ", ".join(visible(_shape(s)) for s in report.outputs) or ("? (stopped before the end)" if report.partial else "")
    console.print(Text(f"Inputs: {', '.join(visible(i) for i in input_texts(report))}   Outputs: {outputs}"))
    if (step := generation_line(report, visible)) is not None:
        console.print(Text(step))
    console.print(Text(f"Convention ({visible(report.rules)}): {_message(totals.convention)}"))
    if training:
        _print_training(report, console)
    if report.unknown:
        console.print(f"\n[bold yellow]Not resolved ({len(report.unknown)}); totals are lower bounds:[/bold yellow]")
        for entry in report.unknown:
            console.print(Text(f"  {visible(entry.location)}: {_message(entry.what)} [{visible(entry.code)}]"))
        hint = range_hint(report)
        if hint:
            console.print(Text(f"  hint: {visible(hint)}"))
    listed = notes(report)
    if listed:
        console.print(f"\n[bold]Notes ({len(listed)}):[/bold]")
        for note in listed:
            console.print(Text(f"  {visible(note.location or report.file)}: {note.severity}: {_message(note.message)} "
                               f"[{visible(note.code)}]"))


def _type_rows(report: Report, exact: bool) -> tuple[list, list, list]:
    """``--by-type``: the leaves of the layer tree summed per type (``by_type.py``)."""
    rows = [[visible(cell) for cell in cells] for cells in type_cells(report, lambda value: _amount(value, exact))]
    return TYPE_COLUMNS, rows, [None] * len(rows)


def _print_layout_notes(shortened: bool, dropped: list, console: Console) -> None:
    """Say what the table shortened, so no one reads ``H/2`` as exact or misses a column."""
    if shortened:
        console.print(Text("≈ and H/2-style shapes: leading terms of symbolic formulas (rounding dropped); "
                           "--format json has them exactly.", style="dim"))
    if dropped:
        console.print(Text(f"Left out to fit {console.width} columns: {', '.join(dropped)} "
                           "(a wider COLUMNS, or --format json).", style="dim"))


def _message(text) -> str:
    return visible(text, MAX_MESSAGE)


def _print_training(report: Report, console: Console) -> None:
    totals, training = report.totals, report.training
    console.print(f"[bold]Backward:[/bold] {human(totals.backward_flops, 'FLOPs')} = input gradients "
                  f"{human(totals.input_grad_flops, 'FLOPs')} + weight gradients {human(totals.weight_grad_flops, 'FLOPs')}")
    ratio = f"   backward/forward = {training.backward_forward_ratio:.3f}" if training.backward_forward_ratio else ""
    again = recomputed(totals)
    parts = "forward + backward" if again is None else \
        f"forward + backward + {human(again, 'FLOPs')} recomputed by gradient checkpointing"
    console.print(f"[bold]Training per step:[/bold] {human(totals.training_flops, 'FLOPs')} ({parts}){ratio}")
    if training.frozen:
        console.print(Text(f"Frozen: {', '.join(visible(glob) for glob in training.frozen)}"))
    for note in training.notes:
        console.print(Text(f"  - {_message(note)}"))
    thumb = rule_of_thumb(report)
    if thumb is not None:
        console.print(Text(thumb))
    run = run_line(report)
    if run is not None:
        console.print(Text(run, spans=[Span(0, 4, "bold")]))
        console.print(Text(f"  {_message(training.budget.formula)}"))
