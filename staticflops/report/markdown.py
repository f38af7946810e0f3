"""Markdown for pull requests and docs: totals first, the layer table in a details block."""

from __future__ import annotations

from typing import TYPE_CHECKING

from staticflops.report.escape import MAX_MESSAGE, md_code, visible
from staticflops.report.units import completeness, generation_line, human, input_texts, notes, partial_banner, range_hint, share
from staticflops.report.training_lines import recomputed

if TYPE_CHECKING:  # annotations only: schema.py imports this module for Report's own renderers
    from staticflops.report.schema import Report


def render_markdown(report: Report, max_depth: int | None = None) -> str:
    """Every name, path and message of the analysed project is a code span (``escape.py``)."""
    totals = report.totals
    bound, incomplete = completeness(report)
    lines = [f"> **{partial_banner(report, _message)}**", ""] if report.partial else []
    lines += [
        f"**{'PARTIAL (lower bound) ' if report.partial else ''}{md_code(report.model)}** ({md_code(report.file)}, "
        f"rules {md_code(report.rules)}): "
        f"**{bound}{human(totals.forward_flops, 'FLOPs')}** forward{incomplete} ({human(totals.macs, 'MACs')}), "
        f"**{human(totals.params)}** params",
        "",
        f"Convention: {_message(totals.convention)}. Inputs: {', '.join(md_code(i) for i in input_texts(report))}.",
        "",
        *([] if (step := generation_line(report, md_code)) is None else [step + ".", ""]),
        *_training_lines(report),
        f"Memory ({totals.dtype}): params {human(totals.param_bytes, 'B')}, activations "
        f"{human(totals.activation_bytes, 'B')} (every op output), read {human(totals.mem_read_bytes, 'B')}, "
        f"write {human(totals.mem_write_bytes, 'B')} ({md_code(report.rules)} convention)"
        + (f", saved for backward {human(totals.saved_activation_bytes, 'B')}" if report.training else "") + ".",
        "",
        "<details><summary>Layers</summary>",
        "",
        "| Layer | Type | Output | FLOPs | MACs | Params | % | Where |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for row in report.layers:
        if max_depth is not None and row.depth > max_depth:
            continue
        shape = ("-" if row.calls == 0 else "?") if row.output_shape is None else "x".join(str(d) for d in row.output_shape)
        bound = "≥ " if row.lower_bound else ""  # called, output unknown: counted up to there
        flops = row.forward_flops if row.forward_flops == "unknown" else bound + human(row.forward_flops)
        macs = row.macs if row.macs == "unknown" else bound + human(row.macs)
        lines.append(f"| {md_code(row.name, table=True)} | {md_code(row.type, table=True)} | {visible(shape)} | "
                     f"{flops} | {macs} | {human(row.params) if row.params else ''} | "
                     f"{share(row.forward_flops, totals.forward_flops)} | {md_code(row.location, table=True)} |")
    lines += ["", "</details>"]
    if report.unknown:
        lines += ["", f"**Not resolved ({len(report.unknown)})** — totals are lower bounds:", ""]
        lines += [f"- {md_code(u.location)}: {_message(u.what)} [{md_code(u.code)}]" for u in report.unknown]
        hint = range_hint(report)
        if hint:
            lines += ["", f"Hint: {_message(hint)}"]
    listed = notes(report)
    if listed:
        lines += ["", f"**Notes ({len(listed)})**:", ""]
        lines += [f"- {md_code(n.location or report.file)}: {n.severity}: {_message(n.message)} [{md_code(n.code)}]"
                  for n in listed]
    return "\n".join(lines) + "\n"


def _message(text) -> str:
    return md_code(text, limit=MAX_MESSAGE)


def _training_lines(report: Report) -> list[str]:
    if report.training is None:
        return []
    totals = report.totals
    return [f"Training per step: **{human(totals.training_flops, 'FLOPs')}** = forward "
            f"{human(totals.forward_flops, 'FLOPs')} + backward {human(totals.backward_flops, 'FLOPs')} (input gradients "
            f"{human(totals.input_grad_flops, 'FLOPs')}, weight gradients {human(totals.weight_grad_flops, 'FLOPs')})"
            + ("" if (again := recomputed(totals)) is None else
               f" + forward recomputed in backward {human(again, 'FLOPs')} (gradient checkpointing)") + ".", ""]
