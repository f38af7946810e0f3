"""Folder mode output: one row per file, then files per second (table or markdown).
File paths, model names and error messages come from the analysed folder: ``escape.py``."""

from __future__ import annotations

from staticflops.report.escape import MAX_MESSAGE, md_code, visible
from staticflops.report.units import count_text


def _row(entry: dict, name, message) -> tuple:
    """The cells of one file; ``name`` renders its path and model, ``message`` an error."""
    report = entry.get("report")
    if report is None:
        return name(entry["path"]), "-", "-", "-", "-", f"error: {message(entry['error'])}"
    totals = report["totals"]
    status = ("cached" if entry["cached"] else "ok") + ("" if totals["complete"] else ", has unknowns (lower bound)")
    if entry.get("partial"):
        status = f"PARTIAL (lower bound): {message(entry['error'])}"
    return (name(entry["path"]), name(report["model"]), count_text(totals["params"]),
            count_text(totals["forward_flops"], "FLOPs"), count_text(totals["macs"], "MACs"), status)


_HEADER = ("file", "model", "params", "forward FLOPs", "MACs", "status")


def summary_line(data: dict) -> str:
    s = data["summary"]
    return (f"{s['files']} files ({s['analysed']} analysed, {s['errors']} errors, {s['cached']} from cache) "
            f"in {s['seconds']:.2f} s: {s['files_per_second']:.1f} files/s, {s['jobs']} process(es)")


def render_folder_table(data: dict, console) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(*_HEADER, title="forward FLOPs: the rule set's convention (standard: 2 FLOPs per MAC)")
    for entry in data["files"]:
        table.add_row(*map(Text, _row(entry, visible, lambda text: visible(text, MAX_MESSAGE))))
    console.print(table)
    console.print(summary_line(data))


def render_folder_markdown(data: dict) -> str:
    lines = ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    for entry in data["files"]:
        cells = _row(entry, lambda text: md_code(text, table=True),
                     lambda text: md_code(text, table=True, limit=MAX_MESSAGE))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{summary_line(data)}\n"
