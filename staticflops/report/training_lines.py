"""The training section's sentences, in plain text, for every renderer: the text table prints
them, the HTML page escapes them.  One wording, so a figure added to one output (the 6·N·T
rule, a --peak-tflops device) reaches the others."""

from __future__ import annotations

from typing import TYPE_CHECKING

from staticflops.report.units import human

if TYPE_CHECKING:  # annotations only: schema.py imports this module for Report's own renderers
    from staticflops.report.schema import Report


def _tokens(tokens) -> str:
    """``T = 64 tokens``; a symbolic count is its own name (``T tokens``, ``T = B*T tokens``)."""
    return "T tokens" if tokens == "T" else f"T = {human(tokens)} tokens"


def recomputed(totals) -> object:
    """The forward FLOPs gradient checkpointing runs again (in ``training_flops``), or None when
    there are none."""
    value = totals.recompute_flops
    return None if value in (None, 0, "0") else value


def rule_of_thumb(report: Report) -> str | None:
    """6·N·T beside the exact count (N non-embedding parameters, T tokens), for language models."""
    training, totals = report.training, report.totals
    if training.flops_6nt is not None:
        versus = (f" = {training.flops_per_token_vs_6n:.3f} x the rule"
                  if training.flops_per_token_vs_6n is not None else "")
        again = recomputed(totals)
        exact = (human(totals.training_flops, 'FLOPs') if again is None else
                 f"{human(totals.training_flops, 'FLOPs')} ({human(again, 'FLOPs')} of it recomputed by gradient "
                 "checkpointing, left out of the ratio)")
        return (f"Rule of thumb 6·N·T: {human(training.flops_6nt, 'FLOPs')} per step "
                f"(N = non-embedding parameters, {_tokens(training.tokens_per_step)}); "
                f"exact: {exact}{versus}")
    if training.flops_per_token_vs_6n is not None:
        return (f"Per token ({human(training.tokens_per_step)} tokens/step): {training.flops_per_token_vs_6n:.3f} x "
                "the 6·N approximation (N = non-embedding parameters)")
    return None


def run_line(report: Report) -> str | None:
    """``Run: 1,000 steps = ... = 2.99e-07 GPU-hours on NVIDIA H100 SXM5 (...)``."""
    budget = report.training.budget
    if budget is None:
        return None
    line = f"Run: {budget.steps:,} steps = {human(budget.total_flops, 'FLOPs')}"
    if budget.gpu_hours is not None:
        hours = budget.gpu_hours
        hours = (f"{hours:,.1f}" if hours >= 10 else f"{hours:.3g}") if isinstance(hours, float) else hours
        peak = f"{budget.peak_flops_per_second / 1e12:,.1f} TFLOP/s"
        line += (f" = {hours} GPU-hours on {budget.hardware} ({budget.precision} peak {peak}, MFU {budget.mfu})"
                 if budget.hardware is not None else  # --peak-tflops: the user's device
                 f" = {hours} GPU-hours at a peak of {peak} (--peak-tflops), MFU {budget.mfu}")
    return line
