"""Terminal tables for ``check`` and ``diff``.  Names, paths and messages come from the
pull request: they reach rich only as ``Text`` (never markup), through ``escape.visible``."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from staticflops.report.escape import MAX_MESSAGE, visible
from staticflops.report.review import CheckResult, DiffResult, ModelDiff
from staticflops.report.units import count_text, signed

UNITS = {"forward_flops": "FLOPs", "macs": "MACs", "params": "params", "trainable_params": "params",
         "backward_flops": "FLOPs", "training_flops": "FLOPs"}


def unit_of(metric: str) -> str:
    return UNITS.get(metric, "")


def amount(value, metric: str, exact: bool = False) -> str:
    """``8.18 GFLOPs``, ``25.56 M params`` (or raw integers with ``exact``)."""
    unit = unit_of(metric)
    if unit == "params":
        return f"{count_text(value, '', exact)} params" if value is not None else "-"
    return count_text(value, unit, exact)


def change(delta, reference, metric: str, exact: bool = False) -> str:
    unit = unit_of(metric)
    if unit == "params":
        return f"{signed(delta, reference, '', exact)} params"
    return signed(delta, reference, unit, exact)


def render_check(result: CheckResult, console: Console, exact: bool = False) -> None:
    table = Table(box=box.SIMPLE_HEAD, title=Text(f"staticflops check ({visible(result.config)})"), title_justify="left")
    for column, justify in (("Model", "left"), ("Metric", "left"), ("Measured", "right"), ("Budget", "right"),
                            ("Headroom", "right"), ("Result", "left")):
        table.add_column(column, justify=justify, no_wrap=True)
    for model in result.models:
        label = Text(f"{visible(model.name)}{' (cached)' if model.cached else ''}")
        if model.status == "error":
            table.add_row(label, "-", "-", "-", "-", "[red]ERROR[/red]")
        if not model.budgets and model.status != "error":
            table.add_row(label, "(no budget)", "", "", "", _status(shown_status(model, model.status)))
        for index, line in enumerate(model.budgets):
            headroom = "" if line.headroom_percent is None else f"{line.headroom_percent:+.1f}%"
            table.add_row(label if index == 0 else "", line.metric, amount(line.measured, line.metric, exact)
                          if line.measured is not None else "not available", amount(line.budget, line.metric, exact),
                          headroom, _status(shown_status(model, line.status)))
    console.print(table)
    for model in result.models:
        _problems(model, console, exact)
    verdict = "[green]all budgets met[/green]" if result.passed else "[bold red]budget check failed[/bold red]"
    console.print(f"{verdict}: {sum(m.status == 'pass' for m in result.models)} of {len(result.models)} model(s) pass")


def _status(status: str) -> str:
    return {"pass": "[green]pass[/green]", "fail": "[bold red]FAIL[/bold red]",
            "not available": "[yellow]not available[/yellow]", "incomplete": "[bold red]incomplete[/bold red]",
            "incomplete (allowed)": "[yellow]incomplete (allowed)[/yellow]"}.get(status, status)


def shown_status(model, status: str) -> str:
    """A budget a lower bound meets is not met: such a line reads `incomplete` (a failure unless
    the model sets allow_unknown, then `incomplete (allowed)`)."""
    if model.incomplete and status == "pass":
        return "incomplete (allowed)" if model.allow_unknown else "incomplete"
    return status



def _problems(model, console: Console, exact: bool) -> None:
    for line in model.budgets:
        if line.status == "not available":
            console.print(_line(f"{model.name}: {line.metric} budget not checked: {line.note}"))
    if model.status == "pass":
        return
    for problem in model.problems:
        text = f"{problem} (model {model.name})" if model.status == "error" else f"{model.file}: {model.name}: {problem}"
        console.print(_line(text))
    if model.unknown and not model.allow_unknown:
        for entry in model.unknown:
            console.print(_line(f"  {entry.location}: not resolved: {entry.what} [{entry.code}]"))
    if model.grew:
        console.print(_line(f"  grew most since {model.baseline}:"))
        for layer in model.grew:
            was = "new" if layer.before is None else f"was {amount(layer.before, layer.metric, exact)}"
            console.print(_line(f"    {layer.location}: {layer.name} ({layer.type}) "
                                f"{change(layer.delta, layer.after, layer.metric, exact)} ({was})"))


def _line(text: str) -> Text:
    """One line of output that quotes the analysed project: escaped, cut at MAX_MESSAGE."""
    return Text(visible(text, MAX_MESSAGE))


def render_diff(result: DiffResult, console: Console, exact: bool = False) -> None:
    console.print(_line(f"staticflops diff: {result.base} ({result.base_commit[:12]}) -> working tree"))
    for model in result.models:
        console.print()
        console.print(Text(summary_line(model, exact), style="bold"))
        for error in model.errors:
            console.print(_line(f"  {error}"))
        if model.totals and model.status == "changed":
            console.print(_totals_table(model, exact))
        if model.layers:
            console.print(_layers_table(model, exact))
        if not model.complete:
            console.print("  some operations were not resolved: counts are lower bounds")
    conventions = sorted({(m.rules, m.convention) for m in result.models if m.convention})
    for rules, convention in conventions:
        console.print(Text(f"Convention ({visible(rules)}): {visible(convention, MAX_MESSAGE)}"))


def _totals_table(model: ModelDiff, exact: bool) -> Table:
    table = Table(box=box.SIMPLE_HEAD)
    for column, justify in (("Total", "left"), ("Before", "right"), ("After", "right"), ("Change", "right"),
                            ("%", "right")):
        table.add_column(column, justify=justify, no_wrap=True)
    for total in model.totals:
        table.add_row(total.metric, amount(total.before, total.metric, exact), amount(total.after, total.metric, exact),
                      change(total.delta, total.after, total.metric, exact),
                      "" if total.percent is None else f"{total.percent:+.1f}%")
    return table


def _layers_table(model: ModelDiff, exact: bool) -> Table:
    table = Table(box=box.SIMPLE_HEAD)
    for column, justify in (("Layer", "left"), ("Type", "left"), ("Change", "left"), ("FLOPs", "right"),
                            ("Params", "right"), ("Output", "left"), ("Where", "left")):
        table.add_column(column, justify=justify, no_wrap=True)
    for layer in model.layers:
        table.add_row(Text(visible(layer.name)), Text(visible(layer.type)), layer.change, layer_flops(layer, exact),
                      layer_params(layer, exact), Text(visible(layer_shape(layer))), Text(visible(layer.location)))
    return table


def layer_flops(layer, exact: bool = False) -> str:
    delta = change(layer.delta_flops, layer.after_flops or layer.before_flops, "forward_flops", exact)
    if layer.change != "changed":
        return delta
    return f"{count_text(layer.before_flops, '', exact)} -> {count_text(layer.after_flops, '', exact)} ({delta})"


def layer_params(layer, exact: bool = False) -> str:
    if layer.delta_params == 0:
        return "unchanged" if layer.change == "changed" else "0 params"
    return change(layer.delta_params, layer.after_params or layer.before_params, "params", exact)


def layer_shape(layer) -> str:
    def text(shape):
        return "-" if shape is None else "x".join(str(d) for d in shape)
    if layer.before_shape == layer.after_shape or layer.change != "changed":
        return text(layer.after_shape if layer.change != "removed" else layer.before_shape)
    return f"{text(layer.before_shape)} -> {text(layer.after_shape)}"


def summary_line(model: ModelDiff, exact: bool = False, show=visible) -> str:
    """``classifier: +0.41 GFLOPs (+5.0%), params unchanged``; ``show`` renders the model's
    name (it comes from the config: ``escape.py``)."""
    totals = {t.metric: t for t in model.totals}
    flops, params = totals.get("forward_flops"), totals.get("params")
    name = show(model.name)
    if model.status == "error":
        return f"{name}: could not be analysed"
    if model.status == "added":
        return (f"{name}: new model, {amount(flops.after if flops else None, 'forward_flops', exact)}, "
                f"{amount(params.after if params else None, 'params', exact)}")
    if model.status == "removed":
        return f"{name}: removed (was {amount(flops.before if flops else None, 'forward_flops', exact)})"
    if model.status == "unchanged":
        return (f"{name}: unchanged ({amount(flops.after if flops else None, 'forward_flops', exact)}, "
                f"{amount(params.after if params else None, 'params', exact)})")
    parts = []
    if flops is None or flops.delta == 0:
        parts.append(f"FLOPs unchanged ({amount(flops.after if flops else None, 'forward_flops', exact)})")
    else:
        percent = "" if flops.percent is None else f" ({flops.percent:+.1f}%)"
        parts.append(f"{change(flops.delta, flops.after, 'forward_flops', exact)}{percent}")
    if params is None or params.delta == 0:
        parts.append("params unchanged")
    else:
        percent = "" if params.percent is None else f" ({params.percent:+.1f}%)"
        parts.append(f"{change(params.delta, params.after, 'params', exact)}{percent}")
    return f"{name}: {', '.join(parts)}"
