"""The interpreter's bounds by name, with their defaults: one table that the interpreter's
budget (``frontend/budget.py``), the ``--max-*`` flags and the config's ``limits`` all read.
Light (no analyser imports), so the CLI lists the flags and a cached ``check`` validates the
config's limits without loading the analyser."""

from __future__ import annotations

from staticflops.diagnostics import UsageError

DEFAULT_LIMITS = {
    "max_steps": 2_000_000,  # evaluation steps in all
    "max_loop_iterations": 1_000_000,  # loop iterations in all
    "max_depth": 150,  # nested calls
    "max_container": 1_000_000,  # items in one list, tuple or string
    "max_expr_terms": 10_000,  # terms of one symbolic polynomial, e.g. (B + S) ** 200
    "max_int_bits": 100_000,  # bits of one integer: `2 ** 10**9` would take minutes and gigabytes
    "max_ops": 100_000,  # ops traced in the forward pass: each is kept, priced and reported
    "max_import_depth": 50,  # project files importing each other in a chain
    "max_file_bytes": 5_000_000,  # size of one analysed file
    # libcst's parser needs time and memory growing with the square of an expression's depth
    # (1,000 nested `if else` ~0.5 s and ~200 MB) and ~2 KB per token: both checked before parsing
    "max_expr_depth": 1_000,  # operators, calls, attributes, conditionals... nested in one expression
    "max_tokens": 500_000,  # tokens of one analysed file (a 20,000-line model has ~220,000)
    "max_value_bytes": 500_000_000,  # bytes of strings and containers the model's code builds, in all
    "max_seconds": 300,  # wall time of one analysis
    "max_modules": 50_000,  # modules (layers) constructed
}
LIMIT_NAMES = tuple(DEFAULT_LIMITS)


def checked_limits(limits: dict | None) -> dict:
    """The caller's overrides (None values dropped), or a UsageError naming the bad one."""
    limits = {k: v for k, v in (limits or {}).items() if v is not None}
    for name, value in limits.items():
        if name not in DEFAULT_LIMITS:
            raise UsageError(f"unknown limit `{name}`; known: {', '.join(LIMIT_NAMES)}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UsageError(f"limit `{name}` must be a positive integer, got {value!r}")
    return limits
