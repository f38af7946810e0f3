"""``analyze --format csv``: one row per layer, the JSON layer rows' columns, for a spreadsheet.

Quoting is the ``csv`` module's (RFC 4180: a cell with a comma, quote or line break is
quoted, quotes doubled).  A symbolic count is its formula, as text.  Names, types, paths and
shapes come from the analysed project: their control characters are written as escapes
(``escape.visible``), and a text cell a spreadsheet would read as a formula (starting with
``=``, ``+``, ``-``, ``@``, or a tab or carriage return) gets a leading ``'`` (OWASP's CSV
injection advice), so a layer named ``=HYPERLINK(...)`` is shown, not evaluated."""

from __future__ import annotations

import csv
import io

from staticflops.report.escape import visible
from staticflops.report.schema import Report

COLUMNS = ["name", "type", "depth", "location", "output_shape", "forward_flops", "macs", "params", "calls"]
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_LONGEST = 1_000_000  # a cell is data, not a display: only control characters are rewritten


def cell(value) -> object:
    """An integer as it is; any text made inert for spreadsheets."""
    if value is None:
        return ""
    if isinstance(value, int):
        return value
    text = visible(value, _LONGEST)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _shape(shape) -> str | None:
    return None if shape is None else "x".join(str(d) for d in shape)


def render_csv(report: Report) -> str:
    training = report.totals.training_flops is not None
    header = COLUMNS + (["backward_flops"] if training else [])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180 ends records with CRLF
    writer.writerow(header)
    for layer in report.layers:
        values = [layer.name, layer.type, layer.depth, layer.location, _shape(layer.output_shape),
                  layer.forward_flops, layer.macs, layer.params, layer.calls]
        values += [layer.backward_flops] if training else []
        writer.writerow([cell(value) for value in values])
    return out.getvalue()
