"""Analyse repeated blocks once: a module call whose structure and inputs equal an earlier
call's replays that call's ops onto the corresponding submodules instead of interpreting
``forward`` again.  This is what makes a 96-layer model cost about as much as a 2-layer one.

A call is reused only when nothing in it was unknown, its arguments are tensors or plain
values, it returns tensors, and every op it recorded belongs to its own subtree.

**Integer attributes** of the subtree's modules are described by name only: a decoder layer
keeps its ``layer_idx``, which its forward reads only to index a cache (none in a plain
forward), and keyed by value it made each of 32 layers a call of its own.  Instead the first
call logs every integer it reads from its subtree's attributes (``Interpreter.plain_attribute``,
``int_reads``), and a later call replays it only while each of those holds the same value in
the corresponding module; a call that reads another value is interpreted and kept beside it
(up to ``_ENTRIES`` per key).  Reading a module's whole ``__dict__`` (``vars``) or copying one
stands for reading every attribute: then every integer of the subtree must be equal.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from staticflops.frontend.torch.checkpointing import Region
from staticflops.frontend.tracer import TracedOp
from staticflops.frontend.values import Instance, Parameter, Tensor

_PLAIN = (int, float, str, bool, type(None))
_SCALARS = frozenset(_PLAIN)  # hashable as they are (no call to _hashable)
_ENTRIES = 4  # calls kept per key, each with the integers it read


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
    # (relative module path, attribute, value): the integers the call read from its subtree
    int_reads: tuple = ()


class IntReads:
    """The integers read from module attributes while a call runs (``Interpreter.int_reads``)."""

    __slots__ = ("values", "everything")

    def __init__(self):
        self.values: dict = {}  # (id(instance), attribute) -> the value first read
        self.everything = False  # a whole __dict__ was read (vars, a copy)

    def read(self, instance, name: str, value: int) -> None:
        self.values.setdefault((id(instance), name), value)


def reused(entries: tuple, subtree_by_path: dict):
    """The kept call whose integer reads all hold in this subtree, or None."""
    for cached in entries:
        if all(_holds(subtree_by_path.get(path), name, value) for path, name, value in cached.int_reads):
            return cached
    return None


def _holds(module, name: str, value: int) -> bool:
    if module is None:
        return False
    found = module.attrs.get(name)
    return type(found) is int and found == value


def kept(entries: tuple | None, cached: CachedCall) -> tuple:
    """The entries of a key with ``cached`` added (a new tuple: a speculative run's take-back
    restores the table by a shallow copy); the oldest dropped past ``_ENTRIES``."""
    return (*(entries or ())[-(_ENTRIES - 1):], cached)


def int_reads_of(log: IntReads, named: list) -> tuple:
    """(path, attribute, value) for the logged reads of the subtree's modules, ``named`` its
    (path, module) pairs; every integer of the subtree when a whole namespace was read."""
    if log.everything:
        return tuple((path, name, value) for path, module in named
                     for name, value in module.attrs.items() if type(value) is int)
    paths = {id(module): path for path, module in named}
    return tuple((paths[module_id], name, value) for (module_id, name), value in log.values.items()
                 if module_id in paths)


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
    # an integer by name only: the call logs those it reads (module docstring)
    settings = tuple(sorted([(k, int if type(v) is int else v) for k, v in attrs.items()
                             if type(v) in _SCALARS or isinstance(v, _PLAIN)]))
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
        elif type(value) is tuple and (items := _tuple_key(value)) is not None:
            parts.append((name, "tuple", items))  # rotary (cos, sin): every transformers decoder layer
        else:
            return None
    try:
        key = (structure(module, memo, numbers), tuple(parts))
        hash(key)
    except TypeError:
        return None
    return key


def _tuple_key(value: tuple):
    """A tuple argument's key: its items' shapes, dtypes and plain values; None (no key) for any
    other item, or a tensor whose contents or progression are known (the call could read them)."""
    parts = []
    for item in value:
        if type(item) is Tensor and item.shape is not None and item.values is None and item.progression is None:
            parts.append(("tensor", item.shape, item.dtype, item.requires_grad))
        elif isinstance(item, _PLAIN):
            parts.append(item)
        elif type(item) is tuple and (inner := _tuple_key(item)) is not None:
            parts.append(("tuple", inner))
        else:
            return None
    return tuple(parts)


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


def replay(cached: CachedCall, module: Instance, tracer, subtree_by_path: dict, location, logs: list = ()):
    for log in logs:  # an enclosing call being logged reads, through this one, what it read
        for path, name, value in cached.int_reads:
            log.read(subtree_by_path[path], name, value)
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
