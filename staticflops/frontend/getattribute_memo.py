"""Attribute reads through a ``__getattribute__`` of the analysed code: a read whose inputs have
not changed gives the value it gave before, without being interpreted again.

transformers' configs define ``__getattribute__`` (an alias table, ``attribute_map``, and a
per-layer check of heterogeneous configs) and models read their config ~2,000 times while
they are built and traced (Llama-3-8B: ``initializer_range`` once per weight, ``hidden_size``
once per layer...).  Interpreting the override and the ``super().__getattribute__`` calls it
makes cost ~130 µs a read, a quarter of the analysis; 63 distinct reads answer all of them.

**Key.**  The override (function and the class it was found on), the instance (by identity,
kept alive by the entry), the name, and the interpreter's modes a read can depend on (whether
a missing attribute raises, whether an import guard is open).

**Soundness.**  The read is recorded with the construction memo's :class:`Recorder` in watch
mode (construction_memo.py): as for a construction, every read of a name, class, module,
function or default value from outside is recorded with the value it gave, and every write
outside, module construction, report, traced op or import refuses.  Unlike a construction,
it may read instances from outside: each such read is recorded with what the instance's own
dict held (its value, or that it held nothing), and such an instance may be given only to
builtins that read nothing but its type or read through the same hooks
(``object.__getattribute__``).  Containers from outside (the instance's ``__dict__``, a class's
alias table) are watched (watched_state.py): a later read is valid only while each holds the
same objects as when it was recorded, so whatever the code asked of them gets the same
answer.  The value read must be one the read did not create (immutable, a definition, an
instance or a watched container from outside): handing it out again is what interpreting
would do.  A recorded read that raised (AttributeError: ``hasattr`` asks this way) or refused
is not kept.

So a later read with an equal key, while no class or function was written since
(``definition_writes``), every recorded read gives the same value and every watched container
is unchanged, would take the same path to the same object, with no effect: it is answered
from the memo.  What is not redone is the step budget (``--max-steps``), as for the other memos.
Nothing is memoised while a construction or an apply call is recorded (the outer recording
must see the reads), nor reused while an apply call is; a read reused while constructions
are recorded hands them its recorded reads and watched containers (construction_memo.py), and
inside a recorded module call (torch/call_memo.py) an entry is reused and its reads and watched
containers handed to that recording, which then holds what interpreting the read would have
recorded.
"""

from __future__ import annotations

from staticflops.frontend.construction_memo import _ATTEMPTS, Recorder, _constant, _read_key, _still
from staticflops.frontend.values import BoundMethod, Instance
from staticflops.frontend.watched_state import unchanged


class _Read:
    __slots__ = ("receiver", "value", "reads", "watched", "definitions")

    def __init__(self, receiver, value, reads, watched, definitions):
        self.receiver = receiver  # kept: the key holds its id()
        self.value = value
        self.reads = reads
        self.watched = watched  # [(container, snapshot)]
        self.definitions = definitions


def read(interp, hook: BoundMethod, receiver: Instance, name, node):
    """``receiver.name`` answered by ``hook`` (the bound ``__getattribute__``): interpreted,
    recorded, or given from the memo as above."""
    memo = interp.construction_memo
    if not memo.enabled or type(name) is not str:
        return interp.call(hook, [name], {}, node)
    key = (hook.function, hook.owner, id(receiver), name, interp.missing_attributes_raise > 0,
           interp.import_guards > 0)
    if memo.recorders:
        if memo.constructions_only():
            entry = memo.hook_reads.get(key)
            if entry is not None and entry.receiver is receiver and entry.definitions == memo.definition_writes \
                    and _valid(entry, interp.builtins):
                memo.hook_hits += 1
                memo.read_reused(entry.reads, entry.watched, entry.value)
                return entry.value
            return interp.call(hook, [name], {}, node)
        return _inside_module_call(interp, memo, key, hook, receiver, name, node)
    entry = memo.hook_reads.get(key)
    if entry is not None and entry.receiver is receiver and entry.definitions == memo.definition_writes \
            and _valid(entry, interp.builtins):
        memo.hook_hits += 1
        return entry.value
    if memo.hook_refused.get(key, 0) >= _ATTEMPTS:
        return interp.call(hook, [name], {}, node)
    recorder = Recorder(watch=True)
    value, definitions = memo.recorded(interp, recorder, lambda: interp.call(hook, [name], {}, node))
    if recorder.refused is None:
        recorder.refused = _refusal(recorder, value)
    if recorder.refused is not None:
        memo.hook_refused[key] = memo.hook_refused.get(key, 0) + 1
        memo.hook_reads.pop(key, None)
    else:
        memo.hook_reads[key] = _Read(receiver, value, list(recorder.reads.values()),
                                     list(recorder.watched.values()), definitions)
    return value


def _inside_module_call(interp, memo, key, hook: BoundMethod, receiver: Instance, name, node):
    """A read while something is recorded: interpreted (the recording sees its reads), except
    inside a recorded module call (torch/call_memo.py), whose recorder has the same rules for
    outside state as this memo's: a valid entry answers, and its reads and watched containers
    are handed to that recorder, as interpreting the read would have recorded them."""
    outer = memo.recorders[0]
    if len(memo.recorders) > 1 or outer.call is None:
        return interp.call(hook, [name], {}, node)
    entry = memo.hook_reads.get(key)
    if entry is None or entry.receiver is not receiver or entry.definitions != memo.definition_writes \
            or not _valid(entry, interp.builtins):
        return interp.call(hook, [name], {}, node)
    memo.hook_hits += 1
    for one in entry.reads:
        outer.reads.setdefault(_read_key(one), one)
    for container, shot in entry.watched:
        outer.watched.setdefault(id(container), (container, shot))
    outer.watch(entry.value)
    return entry.value


def _refusal(recorder: Recorder, value) -> str | None:
    """Why the recorded read cannot be reused, or None."""
    for container, shot in recorder.watched.values():
        if not unchanged(container, shot):
            return "changed a container from outside"
    if _constant(value) or id(value) in recorder.watched:
        return None
    if type(value) is Instance and id(value) not in recorder.objects:
        return None
    return "gives a value it made"


def _valid(entry: _Read, builtins: dict) -> bool:
    for container, shot in entry.watched:
        if not unchanged(container, shot):
            return False
    for one in entry.reads:
        if not _still(one, builtins):
            return False
    return True
