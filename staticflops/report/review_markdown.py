"""Markdown for a pull-request comment: one summary line per model first, details folded.
Names, paths and messages come from the pull request: each is a code span (``escape.py``)."""

from __future__ import annotations

from staticflops.report.escape import MAX_MESSAGE, html_text, md_code, visible
from staticflops.report.review import CheckResult, DiffResult, ModelDiff
from staticflops.report.review_text import (amount, change, layer_flops, layer_params, layer_shape, shown_status,
                                             summary_line)

MARKER = "<!-- staticflops-diff -->"  # lets a CI job find and update its own comment


def render_diff_markdown(result: DiffResult, exact: bool = False) -> str:
    lines = [summary_line(model, exact, md_code) for model in result.models] or ["no models configured"]
    lines = [lines[0]] + [f"\n{line}" for line in lines[1:]]  # Markdown needs blank lines between them
    lines += ["", f"<details><summary>staticflops: details vs <code>{html_text(result.base)}</code> "
                  f"({html_text(result.base_commit[:12])})</summary>", ""]
    for model in result.models:
        if model.status != "unchanged":
            lines += _model_details(model, exact)
    conventions = sorted({(m.rules, m.convention) for m in result.models if m.convention})
    lines += [f"Convention ({md_code(rules)}): {_message(convention)}." for rules, convention in conventions]
    lines += ["", "Read from source by staticflops: nothing was imported or run.", "", "</details>", "", MARKER]
    return "\n".join(lines) + "\n"


def _model_details(model: ModelDiff, exact: bool) -> list[str]:
    lines = [f"#### {md_code(model.name)} ({md_code(model.file)})", ""]
    lines += [f"- {_message(error)}" for error in model.errors]
    if model.totals and model.status == "changed":
        lines += ["| total | before | after | change | % |", "|---|---:|---:|---:|---:|"]
        for total in model.totals:
            percent = "" if total.percent is None else f"{total.percent:+.1f}%"
            lines.append(f"| {total.metric} | {amount(total.before, total.metric, exact)} | "
                         f"{amount(total.after, total.metric, exact)} | "
                         f"{change(total.delta, total.after, total.metric, exact)} | {percent} |")
        lines.append("")
    if model.layers:
        lines += ["| layer | type | change | FLOPs | params | output | where |", "|---|---|---|---:|---:|---|---|"]
        for layer in model.layers:
            lines.append(f"| {md_code(layer.name, table=True)} | {md_code(layer.type, table=True)} | {layer.change} | "
                         f"{layer_flops(layer, exact)} | {layer_params(layer, exact)} | {visible(layer_shape(layer))} | "
                         f"{md_code(layer.location, table=True)} |")
        lines.append("")
    if not model.complete:
        lines += ["Some operations were not resolved: counts are lower bounds.", ""]
    return lines


def render_check_markdown(result: CheckResult, exact: bool = False) -> str:
    failed = [m for m in result.models if m.status != "pass"]
    head = ("All budgets met" if result.passed else f"Budget check failed: {', '.join(md_code(m.name) for m in failed)}")
    lines = [f"**staticflops check**: {head} ({len(result.models) - len(failed)} of {len(result.models)} pass)", "",
             "<details><summary>Budgets</summary>", "",
             "| model | metric | measured | budget | headroom | result |", "|---|---|---:|---:|---:|---|"]
    for model in result.models:
        for line in model.budgets:
            headroom = "" if line.headroom_percent is None else f"{line.headroom_percent:+.1f}%"
            measured = amount(line.measured, line.metric, exact) if line.measured is not None else "not available"
            lines.append(f"| {md_code(model.name, table=True)} | {line.metric} | {measured} | "
                         f"{amount(line.budget, line.metric, exact)} | {headroom} | {shown_status(model, line.status)} |")
    lines.append("")
    for model in failed:
        lines += [f"- **{md_code(model.name)}**: {_message(problem)}" for problem in model.problems]
        lines += [f"  - {md_code(g.location)} {md_code(g.name)} ({md_code(g.type)}): "
                  f"{change(g.delta, g.after, g.metric, exact)}" for g in model.grew]
    lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def _message(text) -> str:
    return md_code(text, limit=MAX_MESSAGE)
