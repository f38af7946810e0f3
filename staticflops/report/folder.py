"""Folder mode output: one row per file, then files per second (table or markdown).
File paths, model names and error messages come from the analysed folder: ``escape.py``."""

from __future__ import annotations

from staticflops.report.escape import MAX_MESSAGE, md_code, visible
from staticflops.report.grid import fitted_grid
from staticflops.report.units import count_text


def _row(entry: dict, name, message) -> tuple:
    """The cells of one file; ``name`` renders its path and model, ``message`` an error."""
    report = entry.get("report")
    if entry.get("skipped") is not None:
        return name(entry["path"]), "-", "-", "-", "-", f"skipped: {message(entry['skipped'])}"
    if report is None:
        return name(entry["path"]), "-", "-", "-", "-", f"error: {message(entry['error'])}"
    totals = report["totals"]
    status = ("cached" if entry["cached"] else "ok") + ("" if totals["complete"] else ", has unknowns (lower bound)")
    if report.get("assumed"):  # --assume: the counts hold in that range
        status += f", for {message(', '.join(report['assumed']))}"
    if entry.get("partial"):
        status = f"PARTIAL (lower bound): {message(entry['error'])}"
    return (name(entry["path"]), name(report["model"]), count_text(totals["params"]),
            count_text(totals["forward_flops"], "FLOPs"), count_text(totals["macs"], "MACs"), status)


_HEADER = ("file", "model", "params", "forward FLOPs", "MACs", "status")


def summary_line(data: dict) -> str:
    s = data["summary"]
    skipped = f", {s['skipped']} skipped" if s.get("skipped") else ""
    return (f"{s['files']} files ({s['analysed']} analysed, {s['errors']} errors{skipped}, {s['cached']} from cache) "
            f"in {s['seconds']:.2f} s: {s['files_per_second']:.1f} files/s, {s['jobs']} process(es)")


# Columns that give way first when the table is wider than the terminal (see text.DROP_ORDER).
_DROP_ORDER = ["MACs", "params", "model"]
_RIGHT = {"params", "forward FLOPs", "MACs"}


def render_folder_table(data: dict, console) -> None:
    """The layer table's layout (``grid``): one row per file, fitted to the console's width;
    a long status (an error message) wraps in the terminal rather than being cut."""
    from rich.text import Text

    rows = [list(_row(entry, visible, lambda text: visible(text, MAX_MESSAGE))) for entry in data["files"]]
    columns = [(header, "right" if header in _RIGHT else "left") for header in _HEADER]
    console.print(Text("forward FLOPs: the rule set's convention (standard: 2 FLOPs per MAC)\n", style="italic"))
    table, dropped = fitted_grid(None, columns, rows, [None] * len(rows), console.width, _DROP_ORDER, free_last=True)
    console.print(table, soft_wrap=True, highlight=False)
    if dropped:
        console.print(Text(f"Left out to fit {console.width} columns: {', '.join(dropped)}.", style="dim"))
    console.print(summary_line(data))


def render_folder_markdown(data: dict) -> str:
    lines = ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    for entry in data["files"]:
        cells = _row(entry, lambda text: md_code(text, table=True),
                     lambda text: md_code(text, table=True, limit=MAX_MESSAGE))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{summary_line(data)}\n"
