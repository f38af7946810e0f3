"""Analyse repeated blocks once: a module call whose structure and inputs equal an earlier
call's replays that call's ops onto the corresponding submodules instead of interpreting
``forward`` again.  This is what makes a 96-layer model cost about as much as a 2-layer one.

A call is reused only when nothing in it was unknown, its arguments are tensors or plain
values, it returns tensors, and every op it recorded belongs to its own subtree.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from staticflops.frontend.torch.checkpointing import Region
from staticflops.frontend.tracer import TracedOp
from staticflops.frontend.values import Instance, Parameter, Tensor

_PLAIN = (int, float, str, bool, type(None))
_SCALARS = frozenset(_PLAIN)  # hashable as they are (no call to _hashable)


@dataclass
class CachedCall:
    ops: list  # (relative module path, TracedOp)
    calls: dict  # relative path -> how many times that submodule was called
    outputs: dict  # relative path -> output template of its last call
    inputs: dict  # relative path -> [(argument templates, output template)] of its calls
    result: object  # output template
    # relative path -> (its last output, [(arguments, output)] of its calls), made from the
    # templates on the first replay and recorded again by every later one: what a replay
    # records for the modules inside the block is read by the IR only (the program gets the
    # block's result, made anew each time), so the copies of one block can share them.
    recorded: dict = field(default_factory=dict)
    # The checkpoint region the call ran in (torch/checkpointing.py): its ops are in the region
    # the replaying call runs in; a region begun inside the call is a new one per replay.
    region: object = None


def structure(module: Instance, memo: dict, numbers: dict) -> int:
    """A module subtree's description (classes, layer attributes, plain settings), as a number.
    (List comprehensions, not generators: every module of a 96-block model is described once.)

    ``numbers`` maps each distinct description tuple to a number, handed out in order and kept
    for the whole analysis (with the call cache), so equal numbers are equal descriptions: a
    module's tuple holds its children's numbers, which by the same argument stand for their
    whole subtrees.  The call key is then a short tuple: nested description tuples were hashed
    and compared element by element on every lookup (three hashes and a deep comparison per
    replayed block), a number once per module."""
    key = id(module)
    found = memo.get(key)
    if found is not None:
        return found
    state = module.module
    attrs = module.attrs
    # (most values are exact scalars: a set lookup before the isinstance test)
    settings = tuple(sorted([(k, v) for k, v in attrs.items() if type(v) in _SCALARS or isinstance(v, _PLAIN)]))
    layer = tuple(sorted([(k, v if type(v) in _SCALARS else _hashable(v)) for k, v in state.attrs.items()])
                  ) if state.kind else ()
    params = tuple([(n, p.shape, p.trainable) for n, p in state.parameters.items()]) if state.parameters else ()
    weights = tuple([p.trainable for n in ("weight", "bias")
                     if isinstance(p := attrs.get(n), Parameter) and p.owner is module])
    children = tuple([(n, structure(c, memo, numbers) if c is not None else None)
                      for n, c in state.children.items()]) if state.children else ()
    description = (id(module.cls), state.kind, state.frozen, settings, layer, params, weights, children)
    found = memo[key] = numbers.setdefault(description, len(numbers))  # unhashable: TypeError, no key
    return found


def call_key(module: Instance, args: list, kwargs: dict, memo: dict, numbers: dict):
    parts = []
    for name, value in [*((None, a) for a in args), *sorted(kwargs.items())]:
        if isinstance(value, Tensor) and not isinstance(value, Parameter) and value.shape is not None:
            parts.append((name, "tensor", value.shape, value.dtype, value.requires_grad))
        elif isinstance(value, _PLAIN):
            parts.append((name, value))
        else:
            return None
    try:
        key = (structure(module, memo, numbers), tuple(parts))
        hash(key)
    except TypeError:
        return None
    return key


def capture(module: Instance, tracer, first_op: int, calls_before: dict, result, subtree: dict):
    """What a completed call did, relative to ``module``; None when it cannot be replayed."""
    cached = _capture(tracer, first_op, calls_before, result, subtree)
    if cached is None:
        return None
    cached.region = tracer.regions.current() if tracer.regions is not None else None
    for child_id, path in subtree.items():
        delta = cached.calls.get(path, 0)
        if delta:
            recent = tracer.module_call_inputs.get(child_id, [])[-delta:]
            calls = [([_template(a) for a in args], _template(out)) for args, out in recent]
            if any(out is None or any(a is None for a in args) for args, out in calls):
                return None
            cached.inputs[path] = calls
    return cached


def _capture(tracer, first_op: int, calls_before: dict, result, subtree: dict):
    template = _template(result)
    if template is None:
        return None
    ops = []
    for op in tracer.ops[first_op:]:
        path = subtree.get(id(op.module))
        if path is None:
            return None
        ops.append((path, op))
    calls, outputs = {}, {}
    for child_id, path in subtree.items():
        delta = tracer.module_calls.get(child_id, 0) - calls_before.get(child_id, 0)
        if delta:
            calls[path] = delta
            template_out = _template(tracer.module_outputs.get(child_id))
            if template_out is None:
                return None
            outputs[path] = template_out
    return CachedCall(ops, calls, outputs, {}, template)


def replay(cached: CachedCall, module: Instance, tracer, subtree_by_path: dict, location):
    region = _regions(cached.region, tracer.regions.current() if tracer.regions is not None else None)
    for path, op in cached.ops:
        copy = _recharged(op, subtree_by_path[path])
        copy.checkpoint = region(op.checkpoint)
        tracer.record(copy, replayed=True)
    recorded = cached.recorded
    for path, delta in cached.calls.items():
        target = id(subtree_by_path[path])
        tracer.module_calls[target] = tracer.module_calls.get(target, 0) + delta
        values = recorded.get(path)
        if values is None:
            values = recorded[path] = (_instantiate(cached.outputs[path]), [
                ([_instantiate(a) for a in args], _instantiate(out)) for args, out in cached.inputs.get(path, [])])
        tracer.module_outputs[target] = values[0]
        tracer.module_call_inputs.setdefault(target, []).extend(values[1])
    return _instantiate(cached.result)


def _regions(captured, current):
    """Maps the checkpoint region of a captured op to the replay's: the region the captured call
    ran in becomes the one the replay runs in; one begun inside it, a new region (the same kind)."""
    made: dict = {}

    def region(old):
        if old is captured or old is None:
            return current
        new = made.get(id(old))
        if new is None:
            new = made[id(old)] = Region(old.whole, region(old.parent), old.inputs)
        return new
    return region


def _recharged(op: TracedOp, module: Instance) -> TracedOp:
    """``dataclasses.replace(op, module=module)`` (the other fields shared, as replace shares
    them) without its per-field __init__ call: a 96-layer GPT replays ~1,000 ops."""
    copy = object.__new__(TracedOp)
    copy.__dict__ = op.__dict__.copy()
    copy.module = module
    return copy


def _template(value):
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        if type(value) is not Tensor:  # a tensor with facts (routing.IndexBound: its values' bound) keeps them
            return ("like", copy.copy(value))
        return ("tensor", value.shape, value.dtype, value.requires_grad)
    if isinstance(value, tuple):
        items = [_template(v) for v in value]
        return None if any(i is None for i in items) else ("tuple", tuple(items))
    if value is None:
        return ("none",)
    if isinstance(value, (int, float, str, bool)):
        return ("plain", value)
    return None


def _instantiate(template):
    if template[0] == "tensor":
        return Tensor(template[1], template[2], requires_grad=template[3])
    if template[0] == "like":
        return copy.copy(template[1])
    if template[0] == "tuple":
        return tuple(_instantiate(t) for t in template[1])
    if template[0] == "plain":
        return template[1]
    return None


def _hashable(value):
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value
