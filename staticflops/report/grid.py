"""A plain column layout for long tables: one row per layer of a 96-block model is ~1,000 rows.

rich's ``Table`` measures and renders every cell through its renderable protocol (~60 µs a cell:
0.5 s for a 96-layer GPT, more than the analysis).  The layer table needs none of that: its
cells are short strings that never wrap.  This lays them out the way ``box.SIMPLE_HEAD`` does
(a space of edge, a space of padding each side of a cell, a rule under the header) as one rich
``Text``, so styles still reach a terminal and nothing else is measured.  Lines are not cut to
the terminal's width: a too-wide table wraps in the terminal instead of losing digits."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text


def grid(title: str, columns: list[tuple[str, str]], rows: list[list[str]], styles: list[str | None]) -> Text:
    """``columns``: (header, "left" | "right"); ``styles``: one rich style (or None) per row."""
    widths = [cell_len(header) for header, _ in columns]
    for cells in rows:
        for index, cell in enumerate(cells):
            widths[index] = max(widths[index], cell_len(cell))
    right = [justify == "right" for _, justify in columns]

    def line(cells: list[str]) -> str:
        padded = [" " * (width - cell_len(cell)) + cell if at_right else cell + " " * (width - cell_len(cell))
                  for cell, width, at_right in zip(cells, widths, right)]
        return ("  " + "   ".join(padded)).rstrip() + "\n"

    text = Text()
    text.append(title + "\n\n", style="italic")
    text.append(line([header for header, _ in columns]), style="bold")
    text.append(" " + "─" * (sum(widths) + 3 * len(widths) - 1) + "\n")
    for cells, style in zip(rows, styles):
        text.append(line(cells), style=style)
    return text
