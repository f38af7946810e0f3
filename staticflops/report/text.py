"""The terminal table: module tree by depth, human units, totals, then unknowns."""

from __future__ import annotations

from rich.console import Console

from staticflops.report.grid import grid
from staticflops.report.schema import Report
from staticflops.report.units import human, partial_banner, share


def _shape(shape, calls: int = 1) -> str:
    if shape is None:
        return "-" if calls == 0 else "?"  # never called (a container) vs. not known
    return "x".join(str(d) for d in shape) or "scalar"


def _where(location: str, main_file: str) -> str:
    """Line number alone for the analysed file; ``file:line`` for code from elsewhere."""
    path, line, _col = location.rsplit(":", 2)
    return line if path == main_file else f"{path.rsplit('/', 1)[-1]}:{line}"


def render_table(report: Report, console: Console, max_depth: int | None = None) -> None:
    totals = report.totals
    if report.partial:
        console.print(f"[bold red]{partial_banner(report)}[/bold red]", highlight=False)
    training = totals.training_flops is not None
    columns = [("Layer", "left"), ("Type", "left"), ("Output", "left"), ("FLOPs", "right"), ("MACs", "right")]
    columns += [("Bwd FLOPs", "right")] if training else []
    columns += [("Params", "right"), ("%FLOPs", "right"), ("Line", "right")]
    rows, styles = [], []
    for row in report.layers:
        if max_depth is not None and row.depth > max_depth:
            continue
        name = "  " * (row.depth - 1) + row.name.rsplit(".", 1)[-1] if row.kind == "module" else "  " * (row.depth - 1) + "↳ " + row.type
        flops = row.forward_flops if row.forward_flops == "unknown" else human(row.forward_flops)
        macs = row.macs if row.macs == "unknown" else human(row.macs)
        cells = [name, row.type, _shape(row.output_shape, row.calls), flops, macs]
        cells += [human(row.backward_flops)] if training else []
        cells += [human(row.params) if row.params else "", share(row.forward_flops, totals.forward_flops),
                  _where(row.location, report.file)]
        rows.append(cells)
        styles.append("dim" if row.kind == "op" else None)
    console.print(grid(f"{report.model} ({report.file}) — rules: {report.rules}", columns, rows, styles),
                  soft_wrap=True, highlight=False)
    prefix = "[bold red]PARTIAL (lower bound)[/bold red] " if report.partial else ""
    console.print(f"{prefix}[bold]Total forward:[/bold] {human(totals.forward_flops, 'FLOPs')}  "
                  f"({human(totals.macs, 'MACs')})   [bold]Params:[/bold] {human(totals.params)} "
                  f"(trainable {human(totals.trainable_params)})")
    console.print(f"[bold]Memory[/bold] ({totals.dtype}): params {human(totals.param_bytes, 'B')}, "
                  f"activations {human(totals.activation_bytes, 'B')} (every op output), "
                  f"read {human(totals.mem_read_bytes, 'B')}, write {human(totals.mem_write_bytes, 'B')} "
                  f"({report.rules} convention)"
                  + (f", saved for backward {human(totals.saved_activation_bytes, 'B')}" if training else ""))
    outputs = ", ".join(_shape(s) for s in report.outputs) or ("? (stopped before the end)" if report.partial else "")
    console.print(f"Inputs: {', '.join(report.inputs)}   Outputs: {outputs}")
    console.print(f"Convention ({report.rules}): {totals.convention}")
    if training:
        _print_training(report, console)
    if report.unknown:
        console.print(f"\n[bold yellow]Not resolved ({len(report.unknown)}); totals are lower bounds:[/bold yellow]")
        for entry in report.unknown:
            console.print(f"  {entry.location}: {entry.what}", markup=False, highlight=False)


def _print_training(report: Report, console: Console) -> None:
    totals, training = report.totals, report.training
    console.print(f"[bold]Backward:[/bold] {human(totals.backward_flops, 'FLOPs')} = input gradients "
                  f"{human(totals.input_grad_flops, 'FLOPs')} + weight gradients {human(totals.weight_grad_flops, 'FLOPs')}")
    ratio = f"   backward/forward = {training.backward_forward_ratio:.3f}" if training.backward_forward_ratio else ""
    console.print(f"[bold]Training per step:[/bold] {human(totals.training_flops, 'FLOPs')} (forward + backward){ratio}")
    if training.frozen:
        console.print(f"Frozen: {', '.join(training.frozen)}")
    for note in training.notes:
        console.print(f"  - {note}", markup=False, highlight=False)
    if training.flops_per_token_vs_6n is not None:
        console.print(f"Per token ({human(training.tokens_per_step)} tokens/step): {training.flops_per_token_vs_6n:.3f} x "
                      "the 6·N approximation (N = non-embedding parameters)")
    budget = training.budget
    if budget is not None:
        line = f"[bold]Run:[/bold] {budget.steps:,} steps = {human(budget.total_flops, 'FLOPs')}"
        if budget.gpu_hours is not None:
            hours = budget.gpu_hours
            hours = (f"{hours:,.1f}" if hours >= 10 else f"{hours:.3g}") if isinstance(hours, float) else hours
            line += (f" = {hours} GPU-hours on {budget.hardware} ({budget.precision} peak "
                     f"{budget.peak_flops_per_second / 1e12:,.1f} TFLOP/s, MFU {budget.mfu})")
        console.print(line)
        console.print(f"  {budget.formula}", markup=False, highlight=False)
