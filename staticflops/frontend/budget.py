"""Bounds that keep the interpreter finite on any input (``while True:``, ``range(10**12)``,
a module that builds itself).  Hitting one stops the analysis with a message naming the
construct and its location."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from staticflops.diagnostics import AnalysisError, UsageError

MAX_FILE_BYTES = 5_000_000


@dataclass
class Budget:
    max_steps: int = 2_000_000
    max_loop_iterations: int = 1_000_000
    max_depth: int = 150
    max_container: int = 1_000_000
    max_expr_terms: int = 10_000  # terms of one symbolic polynomial, e.g. (B + S) ** 200
    max_import_depth: int = 50  # project files importing each other in a chain
    max_file_bytes: int = MAX_FILE_BYTES

    steps: int = 0
    iterations: int = 0
    depth: int = 0

    def step(self, interp, node) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            self.refuse(interp, f"evaluation step budget of {self.max_steps:,} exhausted (--max-steps)", node)

    def loop(self, interp, node) -> None:
        self.iterations += 1
        if self.iterations > self.max_loop_iterations:
            self.refuse(interp, f"loop iteration budget of {self.max_loop_iterations:,} exhausted (--max-loop-iterations)", node)

    def enter(self, interp, node) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            self.depth = 0
            self.refuse(interp, f"call depth over {self.max_depth} (recursion? --max-depth)", node)

    def leave(self) -> None:
        self.depth = max(0, self.depth - 1)

    def container(self, interp, items: list, node) -> list:
        if len(items) > self.max_container:
            self.refuse(interp, f"container of {len(items):,} items is over the limit", node)
        return items

    def check_repeat(self, interp, left, right, node) -> None:
        """``[0] * 10**10`` would allocate; refuse before Python does."""
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, (list, tuple, str)) and isinstance(count, int):
                if len(sequence) * count > self.max_container:
                    self.refuse(interp, f"repetition builds {len(sequence) * count:,} items, over the limit", node)

    def bounded_range(self, interp, value: range, node):
        # len() of a range past 2**63 items raises OverflowError; the arithmetic does not
        length = max(0, (value.stop - value.start + value.step - (1 if value.step > 0 else -1)) // value.step)
        if length > self.max_loop_iterations:
            self.refuse(interp, f"range of {length:,} items is over the loop budget (--max-loop-iterations)", node)
        return iter(value)

    def check_expr(self, interp, op: str, left, right, node) -> None:
        """Symbolic polynomials multiply out: refuse before building one that is too large."""
        size = _terms(left), _terms(right)
        if op == "Power" and isinstance(right, int) and size[0] > 1:
            estimate = math.comb(size[0] + right - 1, right) if right <= self.max_expr_terms else math.inf
        elif op == "Multiply":
            estimate = size[0] * size[1] if min(size) > 1 else 0
        else:
            return
        if estimate > self.max_expr_terms:
            self.refuse(interp, f"symbolic expression would have over {self.max_expr_terms:,} terms", node)

    def refuse(self, interp, message: str, node):
        raise AnalysisError(message, interp.location(node), code="SF120")


def _terms(value) -> int:
    terms = getattr(value, "terms", None)
    return len(terms) if isinstance(terms, dict) else 1


LIMIT_NAMES = tuple(f.name for f in fields(Budget) if f.name.startswith("max_"))


def make_budget(limits: dict | None) -> Budget:
    """A fresh budget with the caller's overrides (``{"max_steps": 10_000_000}``)."""
    limits = {k: v for k, v in (limits or {}).items() if v is not None}
    for name, value in limits.items():
        if name not in LIMIT_NAMES:
            raise UsageError(f"unknown limit `{name}`; known: {', '.join(LIMIT_NAMES)}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UsageError(f"limit `{name}` must be a positive integer, got {value!r}")
    return Budget(**limits)
