"""``module.apply(fn)`` on a model of repeated blocks: a call ``fn(m)`` that changed nothing is
not interpreted again for a module in the same state.

GPT-style models initialise their weights with ``self.apply(self._init_weights)``: ``fn`` runs
on every module of the tree (~1,000 for a 96-block GPT), tests its type and calls
``nn.init.*``, which changes nothing the analysis counts.  Interpreting those calls costs as
much as building the blocks did before the construction memo.

**Key.**  ``fn`` (the function, and for a bound method its receiver and class), and the state
of ``m`` that the call can observe: its class, whether it is ``fn``'s receiver, each attribute
of its own (plain values exactly; tensors by every field, since operators on a tensor read its
shape and dtype, numbered so that aliasing between them shows; instances and containers by
kind only, since the call may not read them), its registered parameters by the same
description (iterating a module without children gives them), its layer kind and frozen flag,
and its children by name and whether they are set (iterating or indexing it gives them, and
its truth is whether it has any).  The rest of its module state is read only by builtins,
which may not get it (below).

**Soundness.**  The call is recorded with the construction memo's :class:`Recorder` (its
hooks, its rules for outside state: globals, class and module attributes and default values
are recorded with the values they gave, mutable outside state refuses) in a mode where ``m``
and its own tensors are *given*: the call may read ``m``'s own attributes (all in the key)
and its Python methods, and hand ``m`` or its tensors to ``isinstance`` or to a builtin that
does nothing (``nn.init.*``), and nothing else - reading anything from a given tensor, a
builtin method of ``m`` (``parameters()``, ``requires_grad_``), writing any attribute of a
given object, handing a given object or an instance the call did not create to any other
builtin, building a module, or any report, traced op or module call refuses.  So the call's
path depends only on its key and its recorded reads, and it changed nothing outside the
objects it created, which the program cannot reach afterwards (the result of ``fn`` is
dropped by ``apply``).  A later call with an equal key, while every recorded read still gives
the same value and no class or function was written since (``definition_writes``), would
run the same path with the same effect - none - and is skipped.  As a last check the key
is computed again after the recorded call: a call that changed its module's observable
state in a way a hook did not see refuses.

What a skipped call does not redo is the step budget (``--max-steps`` counts fewer steps).
The memo lives on the interpreter's construction memo (``apply_calls``, ``apply_hits``).
"""

from __future__ import annotations

from staticflops.frontend.construction_memo import (
    _ATTEMPTS, Entry, NotMemoisable, Recorder, _constant, _plain_key,
)
from staticflops.frontend.values import BoundMethod, Function, Instance, Parameter, Tensor


def apply_call(interp, fn, module: Instance, node, checked: set) -> None:
    """``fn(module)`` for ``Module.apply``: interpreted, recorded, or skipped as above.
    ``checked``: the keys whose entries were found valid since the last call that was
    interpreted, within one ``apply`` (a skipped call runs nothing, so it cannot change what
    they read: checking each once is enough)."""
    memo = interp.construction_memo
    key = _key(fn, module) if memo.enabled and not memo.recorders and not interp.framework.tracer.active else None
    if key is not None and key in checked:
        memo.apply_hits += 1
        return
    if key is None:
        checked.clear()  # it may write what the entries read
        interp.call(fn, [module], {}, node)
        return
    entry = memo.apply_calls.get(key)
    if entry is not None and (memo.force or (entry.definitions == memo.definition_writes and memo._valid(entry, interp))):
        memo.apply_hits += 1
        checked.add(key)
        return
    checked.clear()
    if memo.apply_refused.get(key, 0) >= _ATTEMPTS:
        interp.call(fn, [module], {}, node)
        return
    recorder = Recorder(given=_given(module))
    _, definitions = memo.recorded(interp, recorder, lambda: interp.call(fn, [module], {}, node))
    if recorder.refused is None and not memo.force and _key(fn, module) != key:
        recorder.refused = "changed the module it was given"
    if recorder.refused is not None:
        memo.apply_refused[key] = memo.apply_refused.get(key, 0) + 1
        memo.apply_calls.pop(key, None)
    else:
        memo.apply_calls[key] = Entry(None, list(recorder.reads.values()), definitions)


def _key(fn, module: Instance):
    if isinstance(fn, BoundMethod) and isinstance(fn.function, Function):
        function = (fn.function, fn.receiver, fn.owner)
        receiver = fn.receiver
    elif isinstance(fn, Function):
        function, receiver = (fn,), None
    else:
        return None
    if type(module) is not Instance or module.module is None:
        return None
    try:
        return function, module is receiver, _state(module)
    except (NotMemoisable, TypeError):  # TypeError: an unhashable field value
        return None


def _given(module: Instance) -> set:
    state = module.module
    tensors = [v for values in (module.attrs, state.parameters, state.buffers) for v in values.values()
               if isinstance(v, Tensor)]
    return {id(module), *(id(t) for t in tensors)}


def _state(module: Instance) -> tuple:
    numbers: dict = {}
    state = module.module
    # The rest of the module state (a layer's normalised arguments, buffers, replaced weights)
    # is read only by builtins, which may not get the module.
    return (module.cls, _describe(module.attrs, module, numbers), state.kind, state.frozen,
            _describe(state.parameters, module, numbers),
            tuple(state.children), tuple([child is None for child in state.children.values()]))


_SCALARS = frozenset({int, str, bool, type(None)})  # equal and of the same type: the same value
_TENSORS = frozenset({Tensor, Parameter})
_INT = frozenset({int})


def _describe(values: dict, module: Instance, numbers: dict) -> tuple:
    """A dict's names, value types and values, each value that is not a plain scalar
    replaced by its description (a shape of ints stays as it is)."""
    if not values:
        return ()
    items = tuple(values.values())
    types = tuple(map(type, items))
    if not _SCALARS.issuperset(types):  # (a list only when some value is described otherwise)
        described = list(items)
        for index, kind in enumerate(types):
            if kind not in _SCALARS:
                described[index] = _value(items[index], module, numbers)
        items = tuple(described)
    return tuple(values), types, items


def _plain_dict(value: dict):
    """A dict of plain values (the marks the code set on a tensor: ``_is_hf_initialized``)
    exactly; any other dict by its kind only (reading it refuses)."""
    if all(type(item) in _SCALARS for item in value.values()):
        return dict, tuple(value.items())
    return "other", dict


def _value(value, module: Instance, numbers: dict):
    kind = type(value)
    if kind in _TENSORS:  # most values described here: a layer's weight and bias (as the isinstance test below)
        number = numbers.get(id(value))
        if number is not None:
            return "same", number
        numbers[id(value)] = len(numbers)
        return _describe(value.__dict__, module, numbers)
    if kind is tuple and _INT.issuperset(map(type, value)):  # a shape
        return value
    if value is module:  # a layer's weight.owner
        return "self"
    if isinstance(value, Tensor):
        number = numbers.get(id(value))
        if number is not None:
            return "same", number
        numbers[id(value)] = len(numbers)
        return _describe(value.__dict__, module, numbers)
    if kind is Instance:
        return "instance"  # the call may not read it: reading it refuses
    if kind is list:
        return list, tuple([_value(item, module, numbers) if type(item) not in _SCALARS else (type(item), item)
                            for item in value])
    if kind is dict:
        return _plain_dict(value)
    try:
        return _plain_key(value)
    except NotMemoisable:
        pass
    if _constant(value):  # a definition or an immutable value (a symbolic size): itself
        hash(value)
        return "constant", value
    return "other", kind  # a container or other object: reading it refuses
