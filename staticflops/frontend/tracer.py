"""Records the ops that ``forward`` executes, charged to the module that was running."""

from __future__ import annotations

from dataclasses import dataclass, field

from staticflops.diagnostics import BudgetExceeded, Location


@dataclass(eq=False)
class TracedOp:
    kind: str
    label: str
    attrs: dict
    facts: dict
    inputs: list
    outputs: list
    module: object  # the Instance charged with this op
    is_layer_call: bool
    location: Location
    needs_grad: list = field(default_factory=list)  # per activation input: does it require grad?
    trainable_inputs: int = 0  # trainable weights used: the layer's own, or Parameters passed in
    checkpoint: object = None  # the torch.utils.checkpoint region it ran in (torch/checkpointing.py), if any


@dataclass
class Tracer:
    ops: list = field(default_factory=list)
    stack: list = field(default_factory=list)  # module Instances whose forward is running
    module_outputs: dict = field(default_factory=dict)  # id(module) -> value its last call returned
    module_calls: dict = field(default_factory=dict)  # id(module) -> number of calls
    # Only the traced forward call counts: tensor maths while the model is being built
    # (RegNet's width schedule, a dummy forward in __init__ to size a layer) is not its cost.
    active: bool = False
    module_call_inputs: dict = field(default_factory=dict)  # id(module) -> [input values per call]
    # `while True: x = x + 1` traces an op per turn; each is kept, priced and reported, so
    # the count is bounded like the interpreter's steps (0: no bound).
    max_ops: int = 0
    regions: object = None  # torch/checkpointing.py's Regions: the checkpoint region ops run in

    def current_module(self):
        return self.stack[-1] if self.stack else None

    def record(self, op: TracedOp, replayed: bool = False) -> None:
        """``replayed``: a copy of an op already tagged with its region (torch/replay.py)."""
        if self.active:
            if self.max_ops and len(self.ops) >= self.max_ops:
                raise BudgetExceeded(f"traced op budget of {self.max_ops:,} exhausted (--max-ops)", op.location)
            if not replayed and self.regions is not None:
                op.checkpoint = self.regions.current()
            self.ops.append(op)
