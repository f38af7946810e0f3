"""``fn(module, *plain)`` while a model is built: a call that only read its module, plain data
and definitions, and at most set plain attributes of its module, is not interpreted again for
a module in the same state; its attribute writes are made again instead.

transformers initialises weights by a recursion over the module tree that calls
``self._initialize_weights(module, flag)`` for every module (~420 calls for Llama-3-8B, each
an isinstance chain, ``init.normal_(module.weight, std=self.config.initializer_range)`` and
``module._is_hf_initialized = True``).  ``Module.apply(fn)`` has its own memo (apply_memo.py)
for calls that change nothing; this one is for any call of analysed code whose first
positional argument is a module, with or without a bound receiver.

**Key.**  The function (for a bound method: the function, the class it was found on, and the
receiver itself, compared by identity and kept alive by the key), for a plain function the
method frame ``super()`` would use, the other arguments (plain immutable data only, as the
construction memo's keys), the interpreter's modes a call can depend on (whether a missing
attribute raises, whether an import guard is open), and the module's observable state as
apply_memo.py describes it, with its buffers, the class of each child and which children are
the same object (iterating the module hands out its children: ``isinstance`` may be asked of
them; anything else read from them refuses).

**Soundness.**  The second call with a key is recorded with the construction memo's
:class:`Recorder` in a mode that joins apply_memo's and getattribute_memo's: the module and
its tensors are *given* (their state is in the key); the receiver and the instances reached
from it are *outside* objects whose reads are recorded with what their own dict held
(getattribute_memo.py: a config read through its ``__getattribute__``), and a container read
from outside is watched (watched_state.py).  Globals, class, module and function attributes
and default values are recorded with the value they gave.  Builtins may get a given or
outside object only when they read nothing but its type or do nothing (``isinstance``,
``nn.init.*``), or read it through the hooked paths: ``getattr``/``hasattr`` (on an outside
instance the read of its own dict and class is recorded; on a given tensor they read only
the marks the code set on it, which the key holds) and ``setattr`` (a write, as below).
Everything else refuses: any other builtin on such objects, reading a given object's
attribute that is not plain data or its tensor, reading a module other than the given one and
the receiver, reading the receiver's children or framework state, writing any attribute
outside the call but the given module's, building a module, any report, traced op or import.

The one effect allowed is setting an attribute of the given module to a plain value, through
nn.Module's own ``__setattr__`` (no property, no ``__setattr__`` of the analysed code).  Each
such write is recorded in order.  After the recorded call, its module must be exactly what
the key described with those writes made (else something a hook did not see changed it), the
watched containers unchanged, and the result plain data.  A later call with an equal key,
while no class or function was written since (``definition_writes``), every recorded read
gives the same value and every watched container is unchanged, would take the same path:
it is answered by making the same writes (through ``set_attribute``, as the call did) and
returning the same result.  The first call with a key is interpreted plainly (most keys
occur once, and recording costs); a key refused twice, or a function refused four times
without an entry, is no longer recorded.  What a skipped call does not redo is the step
budget (``--max-steps``), as for the other memos.
"""

from __future__ import annotations

from staticflops.frontend.construction_memo import (
    _ATTEMPTS, NotMemoisable, Recorder, _plain_key, _still,
)
from staticflops.frontend.torch.apply_memo import _describe
from staticflops.frontend.values import BoundMethod, Class, Instance, Tensor
from staticflops.frontend.watched_state import unchanged

# A function whose recordings refused this often, none kept, is called plainly from then on.
_FUNCTION_ATTEMPTS = 2 * _ATTEMPTS


class _Call:
    __slots__ = ("reads", "watched", "definitions", "writes", "value")

    def __init__(self, reads, watched, definitions, writes, value):
        self.reads = reads
        self.watched = watched  # [(container, snapshot)]
        self.definitions = definitions
        self.writes = writes  # [(name, plain value)], made again in order on a hit
        self.value = value


def module_call(interp, function, args: list, kwargs: dict, node, run):
    """``function(*args, **kwargs)`` (a Function or a method bound to an analysed Function),
    ``args[0]`` a module: interpreted by ``run()``, recorded, or answered as above."""
    memo = interp.construction_memo
    if not memo.enabled or memo.recorders or interp.framework.tracer.active:
        return run()
    code = function.function if type(function) is BoundMethod else function
    counts = memo.call_functions.get(code)
    if counts is not None and counts[1] >= _FUNCTION_ATTEMPTS and not counts[0]:
        return run()
    key = _key(interp, function, args, kwargs)
    if key is None:
        return run()
    module = args[0]
    try:
        entry = memo.module_calls.get(key)
    except TypeError:  # an unhashable value in the module's description
        return run()
    if entry is not None and (memo.force or (entry.definitions == memo.definition_writes and _valid(entry, interp))):
        memo.call_hits += 1
        for name, value in entry.writes:
            interp.set_attribute(module, name, value, node)
        return entry.value
    if memo.call_refused.get(key, 0) >= _ATTEMPTS:
        return run()
    memo.call_seen[key] = seen = memo.call_seen.get(key, 0) + 1
    if seen == 1:
        return run()
    if counts is None:
        counts = memo.call_functions[code] = [0, 0]  # [entries kept, recordings refused]
    receiver = function.receiver if type(function) is BoundMethod else None
    recorder = Recorder(given=_given(module), watch=True)
    recorder.receiver, recorder.module, recorder.writes = receiver, module, []
    before = dict(module.attrs)
    try:
        value, definitions = memo.recorded(interp, recorder, run)
    except BaseException:
        counts[1] += 1
        memo.call_refused[key] = memo.call_refused.get(key, 0) + 1
        raise
    if recorder.refused is None and not memo.force:
        recorder.refused = _refusal(recorder, module, before, key, value)
    if recorder.refused is not None:
        counts[1] += 1
        memo.call_refused[key] = memo.call_refused.get(key, 0) + 1
        memo.module_calls.pop(key, None)
    else:
        counts[0] += 1
        memo.module_calls[key] = _Call(list(recorder.reads.values()), list(recorder.watched.values()),
                                       definitions, recorder.writes, value)
    return value


def _key(interp, function, args: list, kwargs: dict):
    if type(function) is BoundMethod:
        receiver = function.receiver
        if type(receiver) is not Instance and not isinstance(receiver, Class):
            return None
        code = (function.function, function.owner, receiver)
    else:  # a plain function: super() in it would use the caller's method frame
        receiver = None
        code = (function, interp.frames[-1] if interp.frames else None)
    try:
        plain = tuple([_plain_key(value) for value in args[1:]])
        named = tuple([(name, _plain_key(value)) for name, value in kwargs.items()])
    except NotMemoisable:
        return None
    module = args[0]
    try:
        state = _state(module, module.attrs, receiver)
    except (NotMemoisable, TypeError):  # TypeError: an unhashable field value
        return None
    return code, plain, named, interp.missing_attributes_raise > 0, interp.import_guards > 0, state


def _given(module: Instance) -> set:
    """id() of the module and of the tensors its key describes."""
    state = module.module
    return {id(module), *(id(t) for values in (module.attrs, state.parameters, state.buffers)
                          for t in values.values() if isinstance(t, Tensor))}


def _state(module: Instance, attrs: dict, receiver) -> tuple:
    numbers: dict = {}
    state = module.module
    # children: their class and which are the same object (the module itself: 0, the receiver: 1)
    same = {id(module): 0, id(receiver): 1}
    children = tuple([None if child is None else (child.cls, same.setdefault(id(child), len(same)))
                      for child in state.children.values()])
    return (module.cls, module is receiver, _describe(attrs, module, numbers), state.kind, state.frozen,
            _describe(state.parameters, module, numbers), _describe(state.buffers, module, numbers),
            tuple(state.children), children)


def _refusal(recorder: Recorder, module: Instance, before: dict, key: tuple, value) -> str | None:
    """Why the recorded call cannot be reused, or None."""
    for container, shot in recorder.watched.values():
        if not unchanged(container, shot):
            return "changed a container from outside"
    try:
        _plain_key(value)
    except NotMemoisable:
        return "gives a value that is not plain data"
    # The module must be what the key described, with the recorded writes made.
    expected = dict(before)
    for name, written in recorder.writes:
        expected[name] = written
    attrs = module.attrs
    if list(attrs) != list(expected) or any(attrs[name] is not expected[name] for name in expected):
        return "changed its module other than by the writes recorded"
    try:
        if _state(module, before, recorder.receiver) != key[-1]:
            return "changed its module other than by the writes recorded"
    except (NotMemoisable, TypeError):
        return "changed its module other than by the writes recorded"
    return None


def _valid(entry: _Call, interp) -> bool:
    for container, shot in entry.watched:
        if not unchanged(container, shot):
            return False
    builtins = interp.builtins
    for read in entry.reads:
        if not _still(read, builtins):
            return False
    return True
