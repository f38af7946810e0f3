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


def grid(title: str | None, columns: list[tuple[str, str]], rows: list[list[str]], styles: list[str | None],
         gap: int = 3, free_last: bool = False) -> Text:
    """``columns``: (header, "left" | "right"); ``styles``: one rich style (or None) per row;
    ``title``: None for none; ``gap``: spaces between two columns; ``free_last``: the rule
    ends at the last column's header (its cells are prose of any length)."""
    widths = _widths(columns, rows)
    right = [justify == "right" for _, justify in columns]
    between = " " * gap

    def line(cells: list[str]) -> str:
        padded = [" " * (width - cell_len(cell)) + cell if at_right else cell + " " * (width - cell_len(cell))
                  for cell, width, at_right in zip(cells, widths, right)]
        return ("  " + between.join(padded)).rstrip() + "\n"

    text = Text()
    if title is not None:
        text.append(title + "\n\n", style="italic")
    text.append(line([header for header, _ in columns]), style="bold")
    ruled = widths[:-1] + [cell_len(columns[-1][0])] if free_last and widths else widths
    text.append(" " + "─" * (sum(ruled) + gap * len(ruled) - 1) + "\n")
    for cells, style in zip(rows, styles):
        text.append(line(cells), style=style)
    return text


def _widths(columns, rows) -> list[int]:
    widths = [cell_len(header) for header, _ in columns]
    for cells in rows:
        for index, cell in enumerate(cells):
            widths[index] = max(widths[index], cell_len(cell))
    return widths


def _span(widths: list[int], gap: int) -> int:
    """Columns the widest line takes: the rule under the header (a space, then dashes)."""
    return sum(widths) + gap * len(widths)


def fitted_grid(title: str | None, columns: list[tuple[str, str]], rows: list[list[str]], styles: list[str | None],
                width: int, drop_order: list[str], free_last: bool = False) -> tuple[Text, list[str]]:
    """The table in ``width`` columns: first the gap between columns narrows from 3 spaces
    to 2, then columns are left out in ``drop_order`` (headers, least useful first) until
    it fits.  Returns the table and the headers left out.  A table that still does not fit
    is printed whole (digits are never cut).  ``free_last``: the last column is prose (a
    status, a message) that may wrap; only its header counts towards the fit."""
    kept = list(range(len(columns)))
    widths = _widths(columns, rows)
    if free_last:
        widths[-1] = cell_len(columns[-1][0])
    dropped: list[str] = []
    gap = 3 if _span(widths, 3) <= width else 2
    for header in drop_order:
        if _span([widths[i] for i in kept], gap) <= width:
            break
        index = next((i for i in kept if columns[i][0] == header), None)
        if index is not None:
            kept.remove(index)
            dropped.append(header)
    return grid(title, [columns[i] for i in kept], [[cells[i] for i in kept] for cells in rows], styles, gap,
                free_last), dropped
