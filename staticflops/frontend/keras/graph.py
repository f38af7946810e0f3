"""Symbolic Keras tensors and the graph a Functional model is: every layer call or op on a
KerasTensor becomes a :class:`Node`; a model replays its nodes on whatever inputs it is
called with (Keras's own semantics), so nested models, shared layers and ``--input``
overrides all go through the same path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

from staticflops.frontend.values import Tensor, Unknown

_NODE_IDS = count()


@dataclass(eq=False)
class KerasTensor(Tensor):
    history: object = None  # (Node, output index) that produced it; None for Input() and constants
    input_name: str | None = None  # set on the tensors keras.Input() returns


@dataclass(eq=False)
class Node:
    fn: object  # what to call on replay: a layer Instance or a Builtin
    args: list
    kwargs: dict
    site: object  # the call's syntax node (locations on replay)
    outputs: list = field(default_factory=list)
    index: int = field(default_factory=lambda: next(_NODE_IDS))  # creation order = a topological order


def tensors_in(value) -> list:
    """The tensors inside a (nested) list/tuple/dict value, depth first."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in tensors_in(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in tensors_in(item)]
    return []


def map_tensors(value, fn):
    if isinstance(value, Tensor):
        return fn(value)
    if isinstance(value, list):
        return [map_tensors(v, fn) for v in value]
    if isinstance(value, tuple):
        return tuple(map_tensors(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: map_tensors(v, fn) for k, v in value.items()}
    return value


def adopt(result, fn, args: list, kwargs: dict, site):
    """Give ``result``'s tensors fresh KerasTensors whose history is this call (a graph node)."""
    node = Node(fn, list(args), dict(kwargs), site)

    def fresh(tensor):
        out = KerasTensor(tensor.shape, tensor.dtype, tensor.requires_grad, history=(node, len(node.outputs)))
        node.outputs.append(out)
        return out
    return map_tensors(result, fresh)


def unknown_shape(value) -> bool:
    """A KerasTensor of unknown shape: the output of an unmodelled layer or op, or of what
    follows one.  What it feeds gets an unknown shape too (that op is reported already)."""
    return isinstance(value, KerasTensor) and value.shape is None


def keep_in_graph(interp, result, args):
    """An unresolved result of a layer or op on symbolic tensors stays in the model's graph as
    a tensor of unknown shape (the reason is reported, at its place), so one unresolved op
    does not cut the model off from its outputs."""
    if isinstance(result, Unknown) and any(isinstance(t, KerasTensor) for t in tensors_in(args)):
        interp.unknown(result.reason, location=result.location)  # reported once per place and reason
        return Tensor(None)
    return result


def graph_nodes(inputs: list, outputs) -> list:
    """Nodes between ``inputs`` and ``outputs``, in creation (= topological) order."""
    stop = {id(t) for t in inputs}
    seen: dict = {}
    pending = [t for t in tensors_in(outputs)]
    while pending:
        tensor = pending.pop()
        if id(tensor) in stop or not isinstance(tensor, KerasTensor) or tensor.history is None:
            continue
        node = tensor.history[0]
        if node.index in seen:
            continue
        seen[node.index] = node
        pending.extend(tensors_in(node.args))
        pending.extend(tensors_in(node.kwargs))
    return [seen[i] for i in sorted(seen)]


def replay(interp, nodes: list, inputs: list, values: list, outputs):
    """Run ``nodes`` with ``inputs`` bound to ``values``; returns ``outputs``' new values."""
    env = {id(t): v for t, v in zip(inputs, values)}

    def lookup(tensor):
        return env.get(id(tensor), tensor)
    for node in nodes:
        args = map_tensors(node.args, lookup)
        kwargs = map_tensors(node.kwargs, lookup)
        result = interp.call(node.fn, args, kwargs, node.site)
        if isinstance(result, Unknown):
            env.update({id(old): result for old in node.outputs})
            continue
        for old, new in zip(node.outputs, tensors_in(result)):
            env[id(old)] = new
    return map_tensors(outputs, lookup)
