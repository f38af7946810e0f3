"""Terminal and markdown renderings of a :class:`Comparison`.  Names, paths and rule
descriptions may come from a pull request: ``escape.py`` (Text, never markup; code spans)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from staticflops.report.compare import Comparison
from staticflops.report.escape import MAX_MESSAGE, md_code, visible
from staticflops.report.grid import fitted_grid
from staticflops.report.units import human, input_texts


def _unit(row) -> str:
    return "FLOPs" if row.headline == "flops" else "MACs"


def _held_in(comparison: Comparison, shown) -> str:
    """", for 2 <= T": the --assume ranges the counts hold in."""
    return f", for {', '.join(shown(r) for r in comparison.assumed)}" if comparison.assumed else ""


def render_compare_table(comparison: Comparison, console: Console) -> None:
    """The layer table's layout (``grid``), fitted to the console: one row per rule set, then
    what each counts (prose that wraps), then the layers where they disagree most."""
    console.print(Text(f"{visible(comparison.model)} ({visible(comparison.file)}), inputs "
                       f"{', '.join(visible(i) for i in input_texts(comparison))}{_held_in(comparison, visible)}: "
                       "one model, every convention\n", style="italic"))
    columns = [("Rule set", "left"), ("Reports", "right"), ("FLOPs", "right"), ("MACs", "right"), ("Params", "right")]
    rows = [[visible(row.rules), f"{human(row.headline_value, _unit(row))}{'' if row.complete else ' *'}",
             human(row.forward_flops), human(row.macs), human(row.params)] for row in comparison.conventions]
    table, dropped = fitted_grid(None, columns, rows, [None] * len(rows), console.width, ["Params", "MACs", "FLOPs"])
    console.print(table, soft_wrap=True, highlight=False)
    _left_out(dropped, console)
    console.print("Reports: the number that convention's tool prints (its unit).  FLOPs/MACs columns: both "
                  "numbers under that convention.  * = something could not be resolved (a lower bound).")
    console.print(Text("\nWhat each rule set counts:", style="bold"))
    for row in comparison.conventions:
        console.print(Text.assemble(("  " + visible(row.rules), "bold"), ": " + visible(row.description, MAX_MESSAGE)))
    if comparison.disagreements:
        units = {row.rules: _unit(row) for row in comparison.conventions}
        names = [row.rules for row in comparison.conventions]
        columns = [("Layer", "left"), ("Type", "left")] + [(visible(name), "right") for name in names]
        rows = [["", ""] + [f"({units[name]})" for name in names]]
        rows += [[visible(d.name), visible(d.type), *[f"{v:,}" if isinstance(v, int) else visible(v)
                                                      for v in d.values.values()]] for d in comparison.disagreements]
        console.print()
        table, dropped = fitted_grid("Layers where the conventions disagree most", columns, rows,
                                     ["dim"] + [None] * (len(rows) - 1), console.width,
                                     [visible(name) for name in reversed(names)] + ["Type"])
        console.print(table, soft_wrap=True, highlight=False)
        _left_out(dropped, console)


def _left_out(dropped: list, console: Console) -> None:
    if dropped:
        console.print(Text(f"Left out to fit {console.width} columns: {', '.join(dropped)} (a wider COLUMNS, "
                           "or --format json).", style="dim"))


def render_compare_markdown(comparison: Comparison) -> str:
    lines = [f"### {md_code(comparison.model)}, inputs {', '.join(md_code(i) for i in input_texts(comparison))}"
             f"{_held_in(comparison, md_code)}", "",
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
