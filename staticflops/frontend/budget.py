"""Bounds that keep the interpreter finite on any input (``while True:``, ``range(10**12)``,
a module that builds itself).  Hitting one stops the analysis with a message naming the
construct and its location."""

from __future__ import annotations

from dataclasses import dataclass

from staticflops.diagnostics import AnalysisError


@dataclass
class Budget:
    max_steps: int = 2_000_000
    max_loop_iterations: int = 1_000_000
    max_depth: int = 150
    max_container: int = 1_000_000

    steps: int = 0
    iterations: int = 0
    depth: int = 0

    def step(self, interp, node) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            self.refuse(interp, f"evaluation step budget of {self.max_steps:,} exhausted", node)

    def loop(self, interp, node) -> None:
        self.iterations += 1
        if self.iterations > self.max_loop_iterations:
            self.refuse(interp, f"loop iteration budget of {self.max_loop_iterations:,} exhausted", node)

    def enter(self, interp, node) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            self.depth = 0
            self.refuse(interp, f"call depth over {self.max_depth} (recursion?)", node)

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
        if len(value) > self.max_loop_iterations:
            self.refuse(interp, f"range of {len(value):,} items is over the loop budget", node)
        return iter(value)

    def refuse(self, interp, message: str, node):
        raise AnalysisError(message, interp.location(node), code="SF120")
