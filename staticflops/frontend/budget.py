"""Bounds that keep the interpreter finite on any input (``while True:``, ``range(10**12)``,
a module that builds itself).  Hitting one stops the analysis with a message naming the
construct and its location."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from staticflops.diagnostics import BudgetExceeded
from staticflops.limits import DEFAULT_LIMITS, LIMIT_NAMES, checked_limits  # noqa: F401  (LIMIT_NAMES: its old home)
from staticflops.shapes.growth import built_length, method_length, result_bits, result_terms, text_length

MAX_FILE_BYTES = DEFAULT_LIMITS["max_file_bytes"]
PARSE_LIMITS = DEFAULT_LIMITS["max_tokens"], DEFAULT_LIMITS["max_expr_depth"]  # checked before parsing a file


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
    max_expr_depth: int = DEFAULT_LIMITS["max_expr_depth"]
    max_tokens: int = DEFAULT_LIMITS["max_tokens"]
    max_value_bytes: int = DEFAULT_LIMITS["max_value_bytes"]
    max_seconds: int = DEFAULT_LIMITS["max_seconds"]
    max_modules: int = DEFAULT_LIMITS["max_modules"]

    steps: int = 0
    iterations: int = 0
    depth: int = 0
    value_bytes: int = 0  # of strings and containers built so far (never given back: a bound, not a count)
    modules: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def parse_limits(self) -> tuple[int, int]:
        return self.max_tokens, self.max_expr_depth

    def step(self, interp, node) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            error = BudgetExceeded(f"evaluation step budget of {self.max_steps:,} exhausted (--max-steps)",
                                   interp.location(node))
            error.in_loop = False  # not yet blamed on a loop: see `blame_loop`
            raise error
        if not self.steps & _CLOCK_EVERY:
            self.check_time(interp, node)

    def check_time(self, interp, node) -> None:
        if time.monotonic() - self.started > self.max_seconds:
            error = BudgetExceeded(f"wall-time budget of {self.max_seconds:,} s exhausted (--max-seconds)",
                                   interp.location(node))
            error.in_loop = False  # blamed on the innermost loop, as steps are
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
        if not self.iterations & _CLOCK_EVERY:  # a comprehension runs no statements
            self.check_time(interp, node)

    def enter(self, interp, node) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            self.depth = 0
            self.refuse(interp, f"call depth over {self.max_depth} (recursion? --max-depth)", node)

    def leave(self) -> None:
        self.depth = max(0, self.depth - 1)

    def container(self, interp, items: list, node) -> list:
        self.build(interp, len(items), _POINTER * len(items), node, "container")
        return items

    def check_built(self, interp, op: str, left, right, node) -> None:
        """``[0] * 10**10``, ``s + s`` doubling, ``'%0999999999d' % 1``: refuse before Python
        builds it, from its length (--max-container) and the bytes built so far (--max-value-bytes)."""
        length = built_length(op, left, right)
        if length:
            self.build(interp, length, length * _item_bytes(left if isinstance(left, (str, list, tuple)) else right),
                       node, _BUILDERS[op])

    def check_method(self, interp, value, name: str, args: list, kwargs: dict, node) -> None:
        """``''.join``, ``str.replace``, ``str.format`` widths, ``list.extend``: as ``check_built``."""
        length = method_length(value, name, args, kwargs)
        if length:
            grown = length if isinstance(value, str) else length - len(value)  # a list grows in place
            self.build(interp, length, grown * _item_bytes(value), node, f"`.{name}()`")

    def check_text(self, interp, value, node) -> None:
        """``str(x)`` or an f-string of ``x``: a list holding one long string a million times is
        cheap to build and a terabyte to print."""
        if isinstance(value, (str, int, float, bool)) or value is None:
            return
        length = text_length(value, self.max_container)
        self.build(interp, length, length, node, "the value's text")

    def check_new_entry(self, interp, container, key, node) -> None:
        """``d[i] = ...``: a dict grows by one entry per new key."""
        if isinstance(container, dict) and key not in container:
            self.build(interp, len(container) + 1, _ENTRY, node, "item assignment")

    def build(self, interp, length: int, nbytes: int, node, what: str) -> None:
        if length > self.max_container:
            self.refuse(interp, f"{what} builds {length:,} items, over the limit of {self.max_container:,} "
                                "(--max-container)", node)
        self.value_bytes += nbytes
        if self.value_bytes > self.max_value_bytes:
            self.refuse(interp, f"strings and containers built reach {self.value_bytes:,} bytes, over the budget "
                                f"of {self.max_value_bytes:,} (--max-value-bytes)", node)

    def check_class(self, interp, cls, node) -> None:
        """A class keeps its method resolution order: 3,000 classes deriving each from the last
        keep 4.5 million entries between them."""
        length = len(cls.mro())
        self.build(interp, length, _POINTER * length, node, "the class's bases")

    def module(self, interp, node) -> None:
        self.modules += 1
        if self.modules > self.max_modules:
            self.refuse(interp, f"over {self.max_modules:,} modules constructed (--max-modules)", node)

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


_CLOCK_EVERY = 1023  # the clock is read once per 1,024 steps or loop turns (~1 ms of work)
CLOCK_EVERY = _CLOCK_EVERY  # for the interpreter's inline copy of `step` (statements.exec_statement)
_POINTER = 8  # bytes a list, tuple or dict spends per item (the items themselves are charged when built)
_ENTRY = 100  # a dict entry with its key
_BUILDERS = {"Multiply": "repetition", "Add": "concatenation", "Modulo": "`%` formatting"}


def _item_bytes(value) -> int:
    return 1 if isinstance(value, str) else _POINTER


def make_budget(limits: dict | None) -> Budget:
    """A fresh budget with the caller's overrides (``{"max_steps": 10_000_000}``)."""
    return Budget(**checked_limits(limits))
