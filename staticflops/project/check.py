"""Budgets: each configured model's totals against the caps in its config.

A model fails when a measured total is over its budget, when it cannot be analysed, or when
something in it was not resolved (its totals are then lower bounds) unless ``allow_unknown``.
An overrun is compared with the model at its baseline revision (``baseline`` in the config,
else the commit that last changed the budget line) to name the layers that grew most.
"""

from __future__ import annotations

from pathlib import Path

from staticflops.project.budget import METRICS, TRAINING_METRICS
from staticflops.project.config import ModelConfig, ProjectConfig, display_path
from staticflops.project.diff import layer_changes
from staticflops.project.run import Outcome, analyse_models, verdict_dependencies
from staticflops.project.sources import DiskReader, git_reader, last_commit_of_line, resolve_revision
from staticflops.diagnostics import UsageError
from staticflops.report import Report
from staticflops.report.review import BudgetLine, CheckResult, LayerGrowth, ModelCheck

MOST_GROWN = 3
_LAYER_METRIC = {"flops": "forward_flops", "macs": "macs", "params": "params"}


def select_models(config: ProjectConfig, paths: list[str], known_files: dict | None = None) -> list[ModelConfig]:
    """The models a change to ``paths`` can affect: those whose own file, or a file their last
    analysis read (imports), is among them; all of them when the config itself changed."""
    if not paths:
        return list(config.models)
    given = {Path(p).resolve() for p in paths}
    if config.file in given:
        return list(config.models)
    chosen = []
    for model in config.models:
        files = {config.model_file(model).resolve()}
        files |= {(config.root / f).resolve() for f in (known_files or {}).get(model.name, [])}
        if files & given:
            chosen.append(model)
    return chosen


def check_project(config: ProjectConfig, models: list[ModelConfig], use_cache: bool = True,
                  jobs: int | None = None, trace: dict | None = None) -> CheckResult:
    """``trace``: filled with what the verdict depends on (run.verdict_dependencies)."""
    outcomes = analyse_models(config, models, DiskReader(config.root), use_cache, jobs)
    if trace is not None and use_cache:
        trace.update(verdict_dependencies(config, outcomes))
    checks = [check_model(config, model, outcomes[model.name], use_cache) for model in models]
    return CheckResult(config=str(display_path(config.file)), passed=all(c.status == "pass" for c in checks),
                       models=checks)


def check_model(config: ProjectConfig, model: ModelConfig, outcome: Outcome, use_cache: bool = True) -> ModelCheck:
    allow_unknown = config.allows_unknown(model)
    if outcome.report is None:
        return ModelCheck(name=model.name, file=model.path, status="error", problems=[outcome.error or "not analysed"],
                          allow_unknown=allow_unknown, cached=outcome.cached)
    report = outcome.report
    lines = [budget_line(report, metric, model.budget[metric]) for metric in METRICS if metric in model.budget]
    for line in lines:
        line.location = config.budget_location(model, line.metric)
    problems = [f"{line.metric} {line.note}" for line in lines if line.status == "fail"]
    if report.unknown and not allow_unknown:
        problems.append(f"{len(report.unknown)} thing(s) could not be resolved, so the counts are lower bounds "
                        "(set allow_unknown = true to accept that)")
    check = ModelCheck(name=model.name, file=model.path, status="fail" if problems else "pass", budgets=lines,
                       unknown=report.unknown, allow_unknown=allow_unknown, incomplete=bool(report.unknown),
                       problems=problems, cached=outcome.cached)
    over = [line.metric for line in lines if line.status == "fail" and isinstance(line.measured, int)]
    if over:
        _explain_growth(config, model, report, over[0], check, use_cache)
    return check


def budget_line(report: Report, metric: str, budget: int) -> BudgetLine:
    measured = getattr(report.totals, metric, None)
    if measured is None:
        why = ("this version of staticflops does not compute training FLOPs" if metric in TRAINING_METRICS
               else "the analysis did not produce it")
        return BudgetLine(metric=metric, budget=budget, status="not available", note=why)
    if not isinstance(measured, int):
        return BudgetLine(metric=metric, budget=budget, measured=measured, status="fail",
                          note=f"is a formula ({measured}): give every input dimension a number to check a budget")
    headroom = 100 * (budget - measured) / budget if budget else (0.0 if measured == 0 else -100.0)
    if measured > budget:
        return BudgetLine(metric=metric, budget=budget, measured=measured, headroom_percent=headroom, status="fail",
                          note=f"is over budget: {measured:,} > {budget:,} (+{measured - budget:,})")
    return BudgetLine(metric=metric, budget=budget, measured=measured, headroom_percent=headroom, status="pass")


def _explain_growth(config, model, report, metric, check: ModelCheck, use_cache: bool) -> None:
    """Best effort: no git, an uncommitted budget or a model that did not exist yet -> say nothing."""
    try:
        revision = model.baseline or _budget_commit(config, model, metric)
        if revision is None:
            return
        commit = resolve_revision(config.root, revision)
        before = analyse_models(config, [model], git_reader(config.root, commit), use_cache)[model.name].report
    except UsageError:
        return
    if before is None:
        return
    check.baseline = model.baseline or commit[:12]
    field = {"forward_flops": "flops", "macs": "macs"}.get(metric, "params" if "params" in metric else "flops")
    grown = []
    for change in layer_changes(before, report):
        delta = getattr(change, f"delta_{field}")
        if change.change != "removed" and isinstance(delta, int) and delta > 0:
            grown.append(LayerGrowth(name=change.name, type=change.type, location=change.location,
                                     metric=_LAYER_METRIC[field], before=getattr(change, f"before_{field}"),
                                     after=getattr(change, f"after_{field}"), delta=delta))
    check.grew = sorted(grown, key=lambda g: -g.delta)[:MOST_GROWN]


def _budget_commit(config: ProjectConfig, model: ModelConfig, metric: str) -> str | None:
    line = config.budget_line(model, metric)
    return last_commit_of_line(config.root, config.file, line) if line else None
