"""Terminal and markdown renderings of a :class:`Comparison`.  Names, paths and rule
descriptions may come from a pull request: ``escape.py`` (Text, never markup; code spans)."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from staticflops.report.compare import Comparison
from staticflops.report.escape import MAX_MESSAGE, md_code, visible
from staticflops.report.units import human


def _unit(row) -> str:
    return "FLOPs" if row.headline == "flops" else "MACs"


def render_compare_table(comparison: Comparison, console: Console) -> None:
    table = Table(box=box.SIMPLE_HEAD, title_justify="left",
                  title=Text(f"{visible(comparison.model)} ({visible(comparison.file)}), inputs "
                             f"{', '.join(visible(i) for i in comparison.inputs)}: one model, every convention"))
    for column, justify in (("Rule set", "left"), ("Reports", "right"), ("FLOPs", "right"), ("MACs", "right"),
                            ("Params", "right"), ("What it counts", "left")):
        table.add_column(column, justify=justify, no_wrap=column != "What it counts")
    for row in comparison.conventions:
        mark = "" if row.complete else " *"
        table.add_row(Text(visible(row.rules)), f"{human(row.headline_value, _unit(row))}{mark}", human(row.forward_flops),
                      human(row.macs), human(row.params), Text(visible(row.description, MAX_MESSAGE)))
    console.print(table)
    console.print("Reports: the number that convention's tool prints (its unit).  FLOPs/MACs columns: both "
                  "numbers under that convention.  * = something could not be resolved (a lower bound).")
    if comparison.disagreements:
        units = {row.rules: _unit(row) for row in comparison.conventions}
        layers = Table(box=box.SIMPLE_HEAD, title="Layers where the conventions disagree most", title_justify="left")
        layers.add_column("Layer", no_wrap=True)
        layers.add_column("Type", no_wrap=True)
        for row in comparison.conventions:
            layers.add_column(Text(f"{visible(row.rules)}\n({units[row.rules]})"), justify="right", no_wrap=True)
        for d in comparison.disagreements:
            layers.add_row(Text(visible(d.name)), Text(visible(d.type)),
                           *[f"{v:,}" if isinstance(v, int) else visible(v) for v in d.values.values()])
        console.print(layers)


def render_compare_markdown(comparison: Comparison) -> str:
    lines = [f"### {md_code(comparison.model)}, inputs {', '.join(md_code(i) for i in comparison.inputs)}", "",
             "| Rule set | Reports | FLOPs | MACs | Params | What it counts |", "|---|---:|---:|---:|---:|---|"]
    for row in comparison.conventions:
        lines.append(f"| {md_code(row.rules, table=True)} | {_fmt(row.headline_value)} {_unit(row)} | "
                     f"{_fmt(row.forward_flops)} | {_fmt(row.macs)} | {_fmt(row.params)} | "
                     f"{md_code(row.description, table=True, limit=MAX_MESSAGE)} |")
    if comparison.disagreements:
        names = [row.rules for row in comparison.conventions]
        lines += ["", "| Layer | Type | " + " | ".join(md_code(n, table=True) for n in names) + " |",
                  "|---|---|" + "---:|" * len(names)]
        for d in comparison.disagreements:
            lines.append(f"| {md_code(d.name, table=True)} | {md_code(d.type, table=True)} | "
                         + " | ".join(_fmt(d.values[n]) for n in names) + " |")
    return "\n".join(lines) + "\n"


def _fmt(value) -> str:
    return f"{value:,}" if isinstance(value, int) else visible(value)
