"""``analyze --format html``: one self-contained page (no script, no network: inline CSS and
SVG only) with the title, the totals line, the pictures (``html_charts.py``), the layer
table, the unknowns and the notes.  ``Report._repr_html_`` shows the same content in Jupyter.

Every name, type, path, shape and message comes from the analysed project and reaches the
page only through ``escape.html_text`` (control characters as escapes, then ``< > & " '``
as entities).  The page's Content-Security-Policy allows no script and no request at all,
so even a rendering bug could not make it run code or call out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from staticflops.report.by_type import COLUMNS as TYPE_COLUMNS, type_cells
from staticflops.report.escape import MAX_MESSAGE, html_text
from staticflops.report.html_charts import icicle, is_symbolic, type_bars
from staticflops.report.training_lines import recomputed, rule_of_thumb, run_line
from staticflops.report.units import completeness, generation_line, human, input_texts, notes, partial_banner, share

if TYPE_CHECKING:  # annotations only: schema.py imports this module for Report's own renderers
    from staticflops.report.schema import Report

POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

STYLE = """
.sf{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;max-width:1200px}
.sf h1{font-size:22px;margin:0 0 4px}.sf h2{font-size:17px;margin:22px 0 6px}
.sf .sub,.sf .note{color:#59636e}.sf .totals{font-size:16px;font-weight:600}
.sf .incomplete{color:#b35900}.sf .partial{color:#c62828;font-weight:600}
.sf svg.chart{display:block;max-width:100%;height:auto;font-size:11px}
.sf svg.chart text{fill:#1f2328}
.sf table{border-collapse:collapse;font-size:12.5px}
.sf th,.sf td{padding:2px 8px;border-bottom:1px solid #d8dee4;text-align:left;vertical-align:top}
.sf th{white-space:nowrap}.sf td code{white-space:nowrap}.sf .scroll{overflow-x:auto}
.sf td.n{text-align:right;white-space:nowrap}.sf tr.op td{color:#59636e}
.sf code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
"""


def _t(text, limit: int = 300) -> str:
    return html_text(text, limit)


def _message(text) -> str:
    return html_text(text, MAX_MESSAGE)


def _count(value, unit: str = "", exact: bool = False) -> str:
    """``8.18 G`` (``exact``: ``8,178,368,512``) for an integer; a formula as written (in
    code type), ``unknown`` as is."""
    if value is None:
        return ""
    if exact and isinstance(value, int):
        return _t(f"{value:,} {unit}".strip())
    if is_symbolic(value):
        return f"<code>{_t(human(value, unit), MAX_MESSAGE)}</code>"
    return _t(human(value, unit)) if value != "unknown" else "unknown"


def _shape(shape, calls: int = 1) -> str:
    if shape is None:
        return "-" if calls == 0 else "?"
    return "x".join(str(d) for d in shape) or "scalar"


def totals_line(report: Report) -> str:
    """The text output's totals line, in the same words (``units.completeness``)."""
    totals = report.totals
    bound, incomplete = completeness(report)
    prefix = '<span class="partial">PARTIAL (lower bound)</span> ' if report.partial else ""
    flops = human(totals.forward_flops, "FLOPs")
    flops = f"<code>{_t(flops, MAX_MESSAGE)}</code>" if is_symbolic(totals.forward_flops) else _t(flops)
    return (f'<p class="totals" id="totals">{prefix}Total forward: {bound}{flops}'
            f'{f"""<span class="incomplete">{_t(incomplete)}</span>""" if incomplete else ""} '
            f"({_count(totals.macs, 'MACs')}) &nbsp; Params: {_count(totals.params)} "
            f"(trainable {_count(totals.trainable_params)})</p>")


def render_html(report: Report, depth: int | None = None, page: bool = True, exact: bool = False,
                by_type: bool = False) -> str:
    """The report as HTML: a whole page, or (``page=False``, for Jupyter) one ``<div>``.
    As in the terminal table, ``exact`` writes the table's counts as whole numbers with
    separators, and ``by_type`` shows the table by layer or op type instead of by layer."""
    body = "\n".join(_sections(report, depth, exact, by_type))
    fragment = f'<div class="sf"><style>{STYLE}</style>\n{body}\n</div>'
    if not page:
        return fragment
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>staticflops: {_t(report.model)} ({_t(report.file)})</title></head>\n"
            f'<body style="margin:16px">\n{fragment}\n</body></html>\n')


def _sections(report: Report, depth: int | None, exact: bool = False, by_type: bool = False) -> list[str]:
    totals = report.totals
    parts = [f'<h1 id="title">{_t(report.model)}</h1>',
             f'<p class="sub">{_t(report.file)} · rules {_t(report.rules)}'
             + (f" · staticflops {_t(report.tool_version)}" if report.tool_version else "") + "</p>"]
    if report.partial:
        parts.append(f'<p class="partial">{partial_banner(report, _message)}</p>')
    parts.append(totals_line(report))
    training = totals.training_flops is not None
    if training:
        parts.append(f"<p>Training per step: <b>{_count(totals.training_flops, 'FLOPs')}</b> = forward "
                     f"{_count(totals.forward_flops, 'FLOPs')} + backward {_count(totals.backward_flops, 'FLOPs')} "
                     f"(input gradients {_count(totals.input_grad_flops, 'FLOPs')}, weight gradients "
                     f"{_count(totals.weight_grad_flops, 'FLOPs')})"
                     + ("" if (again := recomputed(totals)) is None else
                        f" + forward recomputed in backward {_count(again, 'FLOPs')} (gradient checkpointing)")
                     + "</p>")
        parts += _training_details(report)
    parts.append(f"<p>Memory ({_t(totals.dtype)}): params {_count(totals.param_bytes, 'B')}, activations "
                 f"{_count(totals.activation_bytes, 'B')} (every op output), "
                 f"read {_count(totals.mem_read_bytes, 'B')}, "
                 f"write {_count(totals.mem_write_bytes, 'B')} ({_t(report.rules)} convention)"
                 + (f", saved for backward {_count(totals.saved_activation_bytes, 'B')}" if training else "") + "</p>")
    outputs = ", ".join(_t(_shape(s)) for s in report.outputs) or ("?" if report.partial else "")
    parts.append(f"<p>Inputs: {', '.join(_t(i) for i in input_texts(report))} &nbsp; Outputs: {outputs}<br>"
                 + ("" if (step := generation_line(report, _t)) is None else f"{step}<br>")
                 + f"Convention ({_t(report.rules)}): {_message(totals.convention)}</p>")
    symbolic = is_symbolic(totals.forward_flops) or is_symbolic(totals.params)
    parts += ["<h2>Where the FLOPs go</h2>",
              '<p class="note">Forward FLOPs by module: each box spans its children; hover for the name and count.'
              + (" Symbolic counts are drawn by their leading terms with every symbol = 1 (exact when every count "
                 "is linear in the same symbols, such as B; otherwise each layer's share as the sizes grow); the "
                 "table shows the formulas." if symbolic else "") + "</p>",
              icicle(report, "forward_flops", "flops-chart", "FLOPs"),
              "<h2>Where the parameters are</h2>", icicle(report, "params", "params-chart"),
              "<h2>FLOPs by layer or op type</h2>", type_bars(report, "type-chart")]
    parts += _type_table(report, exact) if by_type else _layer_table(report, depth, training, exact)
    if report.unknown:
        parts += [f'<h2 class="incomplete">Not resolved ({len(report.unknown)}); totals are lower bounds</h2>', "<ul>"]
        parts += [f"<li><code>{_t(u.location)}</code>: {_message(u.what)} [{_t(u.code)}]</li>" for u in report.unknown]
        parts.append("</ul>")
    listed = notes(report)
    if listed:
        parts += [f"<h2>Notes ({len(listed)})</h2>", "<ul>"]
        parts += [f"<li><code>{_t(n.location or report.file)}</code>: {_t(n.severity)}: {_message(n.message)} "
                  f"[{_t(n.code)}]</li>" for n in listed]
        parts.append("</ul>")
    parts.append('<p class="note">Read from source by staticflops: nothing was imported or run.</p>')
    return parts


def _training_details(report: Report) -> list[str]:
    """What the text output says under the training line, in its words (``text._print_training``)."""
    training = report.training
    lines = []
    if training.backward_forward_ratio:
        lines.append(f"backward/forward = {training.backward_forward_ratio:.3f}")
    if training.frozen:
        lines.append("Frozen: " + ", ".join(f"<code>{_t(p)}</code>" for p in training.frozen))
    thumb = rule_of_thumb(report)
    if thumb is not None:
        lines.append(_t(thumb))
    run = run_line(report)
    if run is not None:
        lines.append(f'{_t(run)} <span class="note">({_message(training.budget.formula)})</span>')
    lines += [_message(note) for note in training.notes]
    return ["<ul>" + "".join(f"<li>{line}</li>" for line in lines) + "</ul>"] if lines else []


def _where(location: str, main_file: str) -> str:
    """The line alone in the analysed file, ``file:line`` elsewhere (the tooltip has it all)."""
    path, line, _col = location.rsplit(":", 2) if location.count(":") >= 2 else (location, "", "")
    return line if path == main_file else f"{path.rsplit('/', 1)[-1]}:{line}".rstrip(":")


def _type_table(report: Report, exact: bool) -> list[str]:
    """``--by-type``: the terminal's type table (``by_type.type_cells``), as HTML."""
    amount = (lambda value: f"{value:,}") if exact else human
    rows = ["<h2>By layer or op type</h2>", '<div class="scroll"><table id="types"><thead><tr>'
            + "".join(f"<th>{header}</th>" for header, _ in TYPE_COLUMNS) + "</tr></thead><tbody>"]
    for cells in type_cells(report, amount):
        rows.append("<tr>" + "".join(f'<td class="n">{_t(cell)}</td>' if justify == "right" else f"<td>{_t(cell)}</td>"
                                     for cell, (_, justify) in zip(cells, TYPE_COLUMNS)) + "</tr>")
    rows.append("</tbody></table></div>")
    return rows


def _bound(row) -> str:
    """``≥ `` before the counts of a module called with an output left unknown (a lower bound)."""
    return "≥ " if row.lower_bound and row.forward_flops != "unknown" else ""


def _layer_table(report: Report, depth: int | None, training: bool, exact: bool = False) -> list[str]:
    totals = report.totals
    head = ["Layer", "Type", "Output", "FLOPs", "MACs"] + (["Bwd FLOPs"] if training else [])
    head += ["Params", "%FLOPs", "Line"]
    rows = ["<h2>Layers</h2>", '<div class="scroll"><table id="layers"><thead><tr>'
            + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    for row in report.layers:
        if depth is not None and row.depth > depth:
            continue
        indent = f' style="padding-left:{8 + 14 * (row.depth - 1)}px"'
        cells = [f"<td{indent}>{_t(row.name)}</td>", f"<td>{_t(row.type)}</td>",
                 f"<td><code>{_t(_shape(row.output_shape, row.calls), MAX_MESSAGE)}</code></td>",
                 f'<td class="n">{_bound(row)}{_count(row.forward_flops, exact=exact)}</td>',
                 f'<td class="n">{_bound(row)}{_count(row.macs, exact=exact)}</td>']
        cells += [f'<td class="n">{_count(row.backward_flops, exact=exact)}</td>'] if training else []
        cells += [f'<td class="n">{_count(row.params, exact=exact) if row.params else ""}</td>',
                  f'<td class="n">{share(row.forward_flops, totals.forward_flops)}</td>',
                  f'<td title="{_t(row.location)}"><code>{_t(_where(row.location, report.file))}</code></td>']
        rows.append(f'<tr{" class=op" if row.kind == "op" else ""}>' + "".join(cells) + "</tr>")
    rows.append("</tbody></table></div>")
    return rows
