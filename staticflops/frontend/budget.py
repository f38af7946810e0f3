"""Bounds that keep the interpreter finite on any input (``while True:``, ``range(10**12)``,
a module that builds itself).  Hitting one stops the analysis with a message naming the
construct and its location."""

from __future__ import annotations

from dataclasses import dataclass

from staticflops.diagnostics import BudgetExceeded
from staticflops.limits import DEFAULT_LIMITS, LIMIT_NAMES, checked_limits  # noqa: F401  (LIMIT_NAMES: its old home)
from staticflops.shapes.growth import result_bits, result_length, result_terms

MAX_FILE_BYTES = DEFAULT_LIMITS["max_file_bytes"]


@dataclass
class Budget:
    max_steps: int = DEFAULT_LIMITS["max_steps"]
    max_loop_iterations: int = DEFAULT_LIMITS["max_loop_iterations"]
    max_depth: int = DEFAULT_LIMITS["max_depth"]
    max_container: int = DEFAULT_LIMITS["max_container"]
    max_expr_terms: int = DEFAULT_LIMITS["max_expr_terms"]
    max_int_bits: int = DEFAULT_LIMITS["max_int_bits"]
    max_ops: int = DEFAULT_LIMITS["max_ops"]
    max_import_depth: int = DEFAULT_LIMITS["max_import_depth"]
    max_file_bytes: int = DEFAULT_LIMITS["max_file_bytes"]

    steps: int = 0
    iterations: int = 0
    depth: int = 0

    def step(self, interp, node) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            error = BudgetExceeded(f"evaluation step budget of {self.max_steps:,} exhausted (--max-steps)",
                                   interp.location(node))
            error.in_loop = False  # not yet blamed on a loop: see `blame_loop`
            raise error

    def blame_loop(self, interp, error: BudgetExceeded, loop) -> None:
        """Steps run out inside a loop (``while True: pass``): point at the innermost loop, the
        construct to look at, rather than whichever statement of its body came last."""
        if getattr(error, "in_loop", True):
            return
        error.in_loop = True
        error.message = error.message.replace("exhausted", f"exhausted in this `{type(loop).__name__.lower()}` loop")
        error.location = interp.location(loop)

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
            self.refuse(interp, f"container of {len(items):,} items is over the limit of {self.max_container:,} (--max-container)", node)
        return items

    def check_repeat(self, interp, left, right, node) -> None:
        """``[0] * 10**10`` would allocate; refuse before Python does."""
        length = result_length("Multiply", left, right)
        if length > self.max_container:
            self.refuse(interp, f"repetition builds {length:,} items, over the limit of {self.max_container:,} (--max-container)", node)

    def bounded_range(self, interp, value: range, node):
        # len() of a range past 2**63 items raises OverflowError; the arithmetic does not
        length = max(0, (value.stop - value.start + value.step - (1 if value.step > 0 else -1)) // value.step)
        if length > self.max_loop_iterations:
            self.refuse(interp, f"range of {length:,} items is over the loop budget (--max-loop-iterations)", node)
        return iter(value)

    def check_expr(self, interp, op: str, left, right, node) -> None:
        """Symbolic polynomials multiply out: refuse before building one that is too large."""
        if result_terms(op, left, right, self.max_expr_terms) > self.max_expr_terms:
            self.refuse(interp, f"symbolic expression would have over {self.max_expr_terms:,} terms (--max-expr-terms)", node)

    def check_int(self, interp, op: str, left, right, node) -> None:
        """``2 ** 10**9``, ``1 << 10**10``, ``x * x`` in a loop: refuse an integer result over
        ``max_int_bits`` from the operands' sizes, before Python computes it."""
        bits = result_bits(op, left, right)
        if bits > self.max_int_bits:
            self.refuse(interp, f"integer result of about {bits:,} bits is over the limit of {self.max_int_bits:,} "
                                "(--max-int-bits)", node)

    def refuse(self, interp, message: str, node):
        raise BudgetExceeded(message, interp.location(node))


def make_budget(limits: dict | None) -> Budget:
    """A fresh budget with the caller's overrides (``{"max_steps": 10_000_000}``)."""
    return Budget(**checked_limits(limits))
