"""``fn(module, ...)`` while a model is built: a call that only read its module (or the
module's subtree), plain data and definitions, and at most set plain attributes of those
modules, is not interpreted again for modules in the same state; its writes are made again.

transformers initialises weights with ``smart_apply(module, fn, flag)``, a recursion over the
module tree that calls ``fn(module, flag)`` = ``self._initialize_weights(module, flag)`` for
every module (~420 calls per pass for Llama-3-8B, two passes: an isinstance chain,
``init.normal_(module.weight, std=self.config.initializer_range)``, then
``module._is_hf_initialized = True``).  ``Module.apply(fn)`` has its own memo for calls that
change nothing (apply_memo.py); this one is for any call of analysed code whose first
positional argument is a module, made while the model is built (not while it is traced).

**Key.**  The function (for a bound method: the function, the class it was found on and the
receiver itself, compared by identity and kept alive by the key); for a plain function the
method frame ``super()`` would use; the other arguments: plain immutable data as in the
construction memo's keys, functions of the analysed code and methods of it bound to an
instance or class (by identity, as the called function); the interpreter's modes a call can
depend on (a missing attribute raises, an import guard is open); and the given modules'
observable state as apply_memo.py describes it, with their buffers, except that a plain value
(int, float, str, bool, None) of a module's own dict gives only its name and type: each one
the call reads is recorded with its value and compared before an entry is reused (up to four
entries per key), so an attribute the call does not read (a layer index) does not split the
key.  The given modules are the module alone, with its children by class and by which are
the same object (iterating it or ``children()`` hands them out: ``isinstance`` may be asked of
them, nothing else); or, for a function whose recorded call read a child, the module's whole
subtree (up to 64 modules), each module with its children's places in it.

**Soundness.**  The second call with a key is recorded with the construction memo's
:class:`Recorder` in a mode that joins apply_memo's and getattribute_memo's: the given modules
and their tensors are *given* (their state is in the key or their reads checked); the
receivers (of the function and of bound-method arguments) and the instances reached from
them are *outside* objects whose reads are recorded with what their own dict held, a
receiver's children and framework state excepted (getattribute_memo.py: a config read through
its ``__getattribute__``, whose memo entries are reused inside such a recording, their reads
handed to it); a container read from outside is watched (watched_state.py).  Globals, class,
module and function attributes and default values are recorded with the value they gave.
Builtins may get a given or outside object only when they read nothing but its type or do
nothing (``isinstance``, ``nn.init.*``), or read it through the hooked paths:
``getattr``/``hasattr`` (on an outside instance, class, module or function the presence of the
name is recorded; on a given tensor they read only the marks the code set on it, which the
key holds), ``setattr`` (a write, as below), and a given module's ``children()`` /
``named_children()`` (``modules()`` / ``named_modules()`` when its subtree is given).
Everything else refuses: any other builtin on such objects, reading a given object's
attribute that is not plain data, a given module or its tensor, reading any other module,
writing any attribute outside the call but a given module's, building a module, any report,
traced op or import.

The one effect allowed is setting an attribute of a given module to plain data through
nn.Module's own ``__setattr__`` (no property, no ``__setattr__`` of the analysed code): each
such write is recorded in order.  After the recorded call, each given module must be exactly
what the key described with those writes made (else something a hook did not see changed
it), the subtree the same, the watched containers unchanged, and the result plain data or a
given module.  A later call with an equal key, while no class or function was written since
(``definition_writes``), every recorded read gives the same value, every plain value read
from a given module is equal and every watched container is unchanged, would take the same
path: it is answered by making the same writes on the corresponding modules (through
``set_attribute``, as the call did) and returning the same result.  The first call with a key
is interpreted plainly (most keys occur once, and recording costs), unless the function's
recordings were mostly kept and the call is given all it may read (a module without children,
or its subtree); a key refused twice, or a function refused four times without an entry, is
no longer recorded.  What a skipped call
does not redo is the step budget (``--max-steps``), as for the other memos.
"""

from __future__ import annotations

from staticflops.frontend.construction_memo import (
    _ATTEMPTS, _READ_CHECKED, CallRecord, NotMemoisable, Recorder, _plain_key, _same, _still,
)
from staticflops.frontend.scope import MISSING
from staticflops.frontend.torch.apply_memo import _value
from staticflops.frontend.values import BoundMethod, Class, Function, Instance, Tensor
from staticflops.frontend.watched_state import unchanged

# A function whose recordings refused this often, none kept, is called plainly from then on.
_FUNCTION_ATTEMPTS = 2 * _ATTEMPTS
# Entries kept per key (calls that read different values of the module's own plain attributes).
_ENTRIES = 4
# A subtree larger than this is not described: a call given one is interpreted.
_SUBTREE = 64


class _Call:
    __slots__ = ("reads", "given_reads", "watched", "definitions", "writes", "value", "returns")

    def __init__(self, reads, given_reads, watched, definitions, writes, value, returns):
        self.reads = reads
        self.given_reads = given_reads  # [((place, name), value)] read from the given modules' own dicts
        self.watched = watched  # [(container, snapshot)]
        self.definitions = definitions
        self.writes = writes  # [(place, name, plain value)], made again in order on a hit
        self.value = value
        self.returns = returns  # the place of the given module it returned (None: it returned value)


class _Function:
    """What the memo learnt of one function: entries kept, recordings refused, and whether its
    calls read the module's children (then the whole subtree is given and keyed)."""
    __slots__ = ("kept", "refused", "deep")

    def __init__(self):
        self.kept = 0
        self.refused = 0
        self.deep = False


def module_call(interp, function, args: list, kwargs: dict, node, run):
    """``function(*args, **kwargs)`` (a Function or a method bound to an analysed Function),
    ``args[0]`` a module: interpreted by ``run()``, recorded, or answered as above."""
    memo = interp.construction_memo
    if not memo.enabled or memo.recorders or interp.framework.tracer.active:
        return run()
    code = function.function if type(function) is BoundMethod else function
    learnt = memo.call_functions.get(code)
    if learnt is not None and learnt.refused >= _FUNCTION_ATTEMPTS and not learnt.kept:
        return run()
    deep = learnt is not None and learnt.deep
    modules = _subtree(args[0]) if deep else [args[0]]
    if modules is None:
        return run()
    receivers = _receivers(function, args, kwargs)
    key = None if receivers is None else _key(interp, function, args, kwargs, modules, receivers, deep)
    if key is None:
        return run()
    try:
        entries = memo.module_calls.get(key)
    except TypeError:  # an unhashable value in the module's description
        return run()
    if entries:
        for entry in entries:
            if memo.force or (entry.definitions == memo.definition_writes and _valid(entry, modules, interp)):
                memo.call_hits += 1
                for place, name, value in entry.writes:
                    interp.set_attribute(modules[place], name, value, node)
                return entry.value if entry.returns is None else modules[entry.returns]
    if memo.call_refused.get(key, 0) >= _ATTEMPTS:
        return run()
    memo.call_seen[key] = seen = memo.call_seen.get(key, 0) + 1
    if seen == 1 and not _eager(learnt, deep, args[0]) or entries and len(entries) >= _ENTRIES:
        return run()
    if learnt is None:
        learnt = memo.call_functions[code] = _Function()
    given = _given(modules)
    recorder = Recorder(given=given, watch=True)
    recorder.call = call = CallRecord({id(m): place for place, m in enumerate(modules)}, set(map(id, receivers)),
                                      deep)
    before = [dict(m.attrs) for m in modules]
    try:
        value, definitions = memo.recorded(interp, recorder, run)
    except BaseException:
        _refused(memo, learnt, key, call, deep)
        raise
    if recorder.refused is None and not memo.force:
        recorder.refused = _refusal(recorder, modules, before, receivers, key, value)
    if recorder.refused is not None:
        _refused(memo, learnt, key, call, deep)
    else:
        learnt.kept += 1
        returns = call.index.get(id(value)) if type(value) is Instance else None
        entry = _Call(list(recorder.reads.values()), list(call.reads.items()), list(recorder.watched.values()),
                      definitions, call.writes, None if returns is not None else value, returns)
        memo.module_calls.setdefault(key, []).append(entry)
    return value


def _eager(learnt: _Function | None, deep: bool, module: Instance) -> bool:
    """Whether to record the first call with a key: when the function's recordings were mostly
    kept, and the call cannot read modules it is not given (a recording that refuses would
    interpret every call inside it too)."""
    return learnt is not None and learnt.kept > 2 * learnt.refused and (deep or not module.module.children)


def _refused(memo, learnt: _Function, key, call: CallRecord, deep: bool) -> None:
    learnt.refused += 1
    memo.call_refused[key] = memo.call_refused.get(key, 0) + 1
    if call.wants_subtree and not deep:
        learnt.deep = True  # it reads the module's children: from now on the subtree is given


def _receivers(function, args: list, kwargs: dict) -> list | None:
    """The receivers of the bound method called and of bound methods passed to it (their reads
    are recorded); None when one is not an instance or a class."""
    found = []
    for value in (function, *args, *kwargs.values()):
        if type(value) is BoundMethod:
            if type(value.receiver) is not Instance and not isinstance(value.receiver, Class):
                return None
            found.append(value.receiver)
    return found


def _key(interp, function, args: list, kwargs: dict, modules: list, receivers: list, deep: bool):
    if type(function) is BoundMethod:
        code = (function.function, function.owner, function.receiver)
    else:  # a plain function: super() in it would use the caller's method frame
        code = (function, interp.frames[-1] if interp.frames else None)
    try:
        plain = tuple([_argument(value) for value in args[1:]])
        named = tuple([(name, _argument(value)) for name, value in kwargs.items()])
    except NotMemoisable:
        return None
    index = {id(m): place for place, m in enumerate(modules)}
    try:
        states = tuple([_state(m, m.attrs, index, receivers, deep) for m in modules])
    except (NotMemoisable, TypeError):  # TypeError: an unhashable field value
        return None
    places = tuple([index.get(id(r)) for r in receivers])  # a receiver may be one of the modules
    return code, plain, named, interp.missing_attributes_raise > 0, interp.import_guards > 0, deep, places, states


def _argument(value):
    """An argument besides the module in the key: plain data, a function of the analysed code
    (itself: what it reads from its closure is recorded), or such a function bound to an
    instance or class (the function, class and receiver: the receiver's reads are recorded)."""
    kind = type(value)
    if kind is Function:
        return "function", value
    if kind is BoundMethod and type(value.function) is Function:
        return "bound", value.function, value.owner, value.receiver
    return _plain_key(value)


def _subtree(root: Instance) -> list | None:
    """The module and its descendants, each once, in breadth-first order; None if too large."""
    order = [root]
    seen = {id(root)}
    for module in order:
        for child in module.module.children.values():
            if child is not None and id(child) not in seen:
                if type(child) is not Instance or child.module is None:
                    return None
                seen.add(id(child))
                order.append(child)
                if len(order) > _SUBTREE:
                    return None
    return order


def _given(modules: list) -> set:
    """id() of the modules and of the tensors their key describes."""
    given = set()
    for module in modules:
        state = module.module
        given.add(id(module))
        for values in (module.attrs, state.parameters, state.buffers):
            for value in values.values():
                if isinstance(value, Tensor):
                    given.add(id(value))
    return given


def _state(module: Instance, attrs: dict, index: dict, receivers: list, deep: bool) -> tuple:
    """A module as the key describes it: apply_memo's description, except that plain values of
    its own dict give only their type (each one read is checked when reused), and its children
    by their place among the given modules (deep) or by their class and which are the same."""
    numbers: dict = {}
    state = module.module
    if deep:
        children = tuple([None if child is None else index[id(child)] for child in state.children.values()])
    else:  # iterating the module hands them out: isinstance may be asked of them, nothing else
        same = {id(module): 0}
        for receiver in receivers:  # (a child may be one)
            same.setdefault(id(receiver), len(same))
        children = tuple([None if child is None else (child.cls, same.setdefault(id(child), len(same)))
                          for child in state.children.values()])
    return (module.cls, tuple([module is r for r in receivers]), _own(attrs, module, numbers, index),
            state.kind, state.frozen, _own(state.parameters, module, numbers, index),
            _own(state.buffers, module, numbers, index), tuple(state.children), children)


def _own(values: dict, module: Instance, numbers: dict, index: dict) -> tuple:
    if not values:
        return ()
    described = []
    for value in values.values():
        kind = type(value)
        if kind in _READ_CHECKED:
            described.append(kind)
        elif kind is Instance and id(value) in index:
            described.append(("module", index[id(value)]))
        else:
            described.append(_value(value, module, numbers))
    return tuple(values), tuple(described)


def _refusal(recorder: Recorder, modules: list, before: list, receivers: list, key: tuple, value) -> str | None:
    """Why the recorded call cannot be reused, or None."""
    for container, shot in recorder.watched.values():
        if not unchanged(container, shot):
            return "changed a container from outside"
    if type(value) is not Instance or id(value) not in recorder.call.index:  # (it may return a given module)
        try:
            _plain_key(value)
        except NotMemoisable:
            return "gives a value that is not plain data"
    # Each module must be what the key described, with the recorded writes made.
    expected = [dict(attrs) for attrs in before]
    for place, name, written in recorder.call.writes:
        expected[place][name] = written
    for module, attrs in zip(modules, expected):
        if list(module.attrs) != list(attrs) or any(module.attrs[name] is not attrs[name] for name in attrs):
            return "changed a module other than by the writes recorded"
    index = {id(m): place for place, m in enumerate(modules)}
    deep = recorder.call.deep
    try:
        if _subtree(modules[0]) != modules if deep else False:
            return "changed the modules' tree"
        states = tuple([_state(m, attrs, index, receivers, deep) for m, attrs in zip(modules, before)])
    except (NotMemoisable, TypeError):
        return "changed a module other than by the writes recorded"
    if states != key[-1]:
        return "changed a module other than by the writes recorded"
    return None


def _valid(entry: _Call, modules: list, interp) -> bool:
    for (place, name), value in entry.given_reads:
        if not _same(modules[place].attrs.get(name, MISSING), value):
            return False
    for container, shot in entry.watched:
        if not unchanged(container, shot):
            return False
    builtins = interp.builtins
    for read in entry.reads:
        if not _still(read, builtins):
            return False
    return True
