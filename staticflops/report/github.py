"""``check --format github``: GitHub Actions workflow commands, so a failed budget or an
unresolved call shows as an annotation on the pull request's files.

One line per finding: ``::error file=F,line=L,col=C,title=T::message`` (``::warning`` for
what does not fail the check).  Names, paths and messages come from the pull request.  Each
is first made one printable line (``escape.visible``: a newline or ESC becomes ``\\n`` or
``\\x1b``, so no text can start a workflow command of its own), then escaped as the runner
reads commands: ``%``, CR and LF in the message, and also ``:`` and ``,`` in a property."""

from __future__ import annotations

from staticflops.report.escape import MAX_MESSAGE, visible
from staticflops.report.review import CheckResult
from staticflops.report.review_text import amount, change

_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_PROPERTY = {**_DATA, ":": "%3A", ",": "%2C"}


def _escaped(text: str, table: dict) -> str:
    return "".join(table.get(char, char) for char in text)


def command(kind: str, message: str, file: str | None = None, line: int | None = None, col: int | None = None,
            title: str | None = None) -> str:
    """One workflow command line (``kind``: error, warning or notice)."""
    properties = [(name, value) for name, value in (("file", file), ("line", line), ("col", col), ("title", title))
                  if value is not None]
    shown = ",".join(f"{name}={_escaped(visible(value), _PROPERTY)}" for name, value in properties)
    return f"::{kind}{' ' + shown if shown else ''}::{_escaped(visible(message, MAX_MESSAGE), _DATA)}\n"


def located(location: str | None) -> dict:
    """``path:line:col`` as the command's properties; a location without numbers is a file."""
    if not location:
        return {}
    parts = location.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return {"file": parts[0], "line": int(parts[1]), "col": int(parts[2])}
    return {"file": location}


def render_check_annotations(result: CheckResult, exact: bool = False) -> str:
    """An error per problem of a model that fails (a failed budget at its line in the config,
    anything else on the model's file), per unresolved call (at its
    line; a warning when the model sets ``allow_unknown``), a warning per budget not checked
    and per layer that grew most since the budget's baseline (at its line); then the verdict
    as a plain line."""
    lines = []
    for model in result.models:
        for budget in model.budgets:
            if budget.status == "not available":
                lines.append(command("warning", f"{model.name}: {budget.metric} budget not checked: {budget.note}",
                                     file=model.file, title="staticflops budget"))
        if model.status != "pass":
            at_budget = set()  # a failed budget is reported where it is set (the config's line)
            for budget in model.budgets:
                if budget.status == "fail" and budget.location:
                    problem = f"{budget.metric} {budget.note}"
                    at_budget.add(problem)
                    lines.append(command("error", f"{model.name}: {problem}", title="staticflops budget",
                                         **located(budget.location)))
            for problem in model.problems:
                if problem not in at_budget:
                    lines.append(command("error", f"{model.name}: {problem}", file=model.file,
                                         title="staticflops budget"))
        for layer in model.grew:  # where an overrun comes from, at the layer's line
            was = "new" if layer.before is None else f"was {amount(layer.before, layer.metric, exact)}"
            lines.append(command("warning", f"{model.name}: {layer.name} ({layer.type}) "
                                 f"{change(layer.delta, layer.after, layer.metric, exact)} since {model.baseline} ({was})",
                                 title="staticflops grew", **located(layer.location)))
        for unknown in model.unknown:
            kind = "warning" if model.allow_unknown else "error"
            lines.append(command(kind, f"{model.name}: not resolved: {unknown.what} [{unknown.code}]",
                                 title=f"staticflops {unknown.code}", **located(unknown.location)))
    passed = sum(m.status == "pass" for m in result.models)
    verdict = "all budgets met" if result.passed else "budget check failed"
    lines.append(f"staticflops check: {verdict}: {passed} of {len(result.models)} model(s) pass\n")
    return "".join(lines)
