"""Gradient checkpointing: which forward ops backward runs a second time.

An op traced inside a ``torch.utils.checkpoint`` region (frontend/torch/checkpointing.py)
keeps nothing for backward; when backward reaches the region, torch runs its forward again
to get back what the ops saved.  How much of it, as torch 2.13 does (measured with
FlopCounterMode by tools/record_checkpointing.py):

* reentrant checkpointing, or ``early_stop=False``: the whole region;
* otherwise (``use_reentrant=False``, transformers' default) torch stops as soon as every
  saved tensor is back.  The last op of the region that saves anything is the last to run,
  and of it only what saving needs: an op that keeps its inputs (a linear: its input for the
  weight gradient) has them packed before its kernel runs, so the kernel is not run again;
  one that keeps its output (relu, tanh, softmax, a norm's statistics, dropout's mask) runs.
  A region ending ``x + down(act(up(x)))`` therefore runs everything again but ``down``
  (a Llama decoder layer: all but ``down_proj``).

An op saves something only if it is part of the graph (an input needing a gradient or a
trainable weight) and its kind keeps a tensor: the kinds below keep none (their gradients need
no values: sums, differences, copies, a product with a Python number...).  Nested regions each
run again, the inner one inside the outer one's second forward too.
"""

from __future__ import annotations

from staticflops.cost.memory import elements
from staticflops.ir import ModelIR, OpCall

# Kinds whose backward needs no tensor of the forward (torch's derivatives.yaml: add, sub, neg,
# mean/sum reductions, concatenation, copies and reshapes save only sizes).
SAVES_NOTHING = frozenset({"add", "sub", "neg", "identity", "reduce", "concat", "flatten", "unflatten", "reshape",
                           "permute", "pad", "repeat", "same_shape", "select", "axis_split", "stack_axis"})
# Kinds that keep their own output for backward: torch must run them to get it back.
SAVES_OUTPUT = frozenset({"relu", "relu6", "tanh", "sigmoid", "softmax", "log_softmax", "softmin", "exp", "sqrt",
                          "rsqrt", "elu", "selu", "celu", "hardtanh", "leaky_relu", "threshold", "dropout",
                          "batch_norm", "layer_norm", "rms_norm", "group_norm", "instance_norm", "max_pool",
                          "adaptive_max_pool", "lstm", "gru", "rnn"})


def reruns(ir: ModelIR) -> list[int]:
    """Per op of ``ir.ops``: how many times backward runs its forward again (0 outside every
    checkpoint region)."""
    counts = [0] * len(ir.ops)
    if not ir.checkpoints:
        return counts
    members: dict = {}  # region index -> the indexes of its ops (its inner regions' included), in order
    for index, op in enumerate(ir.ops):
        region = op.checkpoint
        while region is not None:
            members.setdefault(region, []).append(index)
            region = ir.checkpoints[region]["parent"]
    for region, indexes in members.items():
        for index in _run_again(ir.ops, indexes, ir.checkpoints[region]["whole"]):
            counts[index] += 1
    return counts


def kept_instead(ir: ModelIR) -> tuple[list[bool], object]:
    """Activation memory under checkpointing: per op, whether it runs inside a region (which
    keeps none of its ops' tensors for backward), and the elements the outermost regions keep
    instead: their tensor arguments, to run their forward again from (a region never asked
    for again keeps nothing)."""
    inside = [op.checkpoint is not None for op in ir.ops]
    asked: set = set()
    for op in ir.ops:
        if op.checkpoint is not None and _saves(op):
            region = op.checkpoint
            while ir.checkpoints[region]["parent"] is not None:
                region = ir.checkpoints[region]["parent"]
            asked.add(region)
    return inside, sum((elements(ir.checkpoints[region]["inputs"]) for region in sorted(asked)), 0)


def _run_again(ops: list, indexes: list, whole: bool) -> list:
    saving = [i for i in indexes if _saves(ops[i])]
    if not saving:  # nothing kept for backward: backward never asks for this region again
        return []
    if whole:
        return indexes
    last = saving[-1]
    return [i for i in indexes if i < last or (i == last and ops[i].kind in SAVES_OUTPUT)]


def _saves(op: OpCall) -> bool:
    """Whether autograd keeps a tensor for this op's backward."""
    if not any(op.needs_grad) and not op.trainable_inputs:
        return False  # not in the graph
    kind = op.kind
    if kind in SAVES_NOTHING:
        return False
    if kind in ("mul", "div"):  # by a Python number: its gradient is that number times grad
        return len(op.needs_grad) + op.trainable_inputs >= 2
    if kind == "dropout":  # a mask only when it drops anything
        return op.attrs.get("training", True) is not False and op.attrs.get("p") != 0
    return True
