"""Construction memo: build a repeated block once, copy it for the other constructions.

``Block(768, 12)`` called 96 times in a list comprehension interprets the same ``__init__``
96 times with the same arguments.  This memo interprets the first construction and, for a
later one with an equal key, hands out a fresh copy of the module tree it built (new
``Instance``/``ModuleState``/``Parameter`` objects, so that mutating one block later, e.g.
weight tying or ``requires_grad_(False)``, cannot affect another).

**Key.**  The class object, the call site's location (it is each built module's ``location``;
inside staticflops' own stub code it is the user's call site), and the arguments, which must
all be plain immutable values: ``int``, ``str``, ``bool``, ``None``, ``float`` (by ``repr``, so
``-0.0`` and ``0.0`` differ) and tuples of them, each with its exact type (``1``, ``1.0`` and
``True`` are different keys), or instances that are not modules (a configuration object), by
identity.  Only ``nn.Module`` classes whose ``__init__`` is code of the
analysed program or of a library are memoised; framework layers (``nn.Linear``) are built
directly, and nothing is memoised while the forward pass is traced.

**Families.**  ``[Layer(config, i) for i in range(32)]`` has 32 keys.  Keys equal but for some
``int`` arguments form a family; when a construction's ints differ from its family's first
one, it is recorded and then run again with placeholders in the slots that differ
(opaque_ints.py, which argues why): if the placeholders were only passed along and stored,
the family's entry fills a copy with each later construction's ints; otherwise the exact
keys decide, as above.

**When.**  The first construction with a key is interpreted plainly (most keys occur once, a
model's root among them, and recording costs); the second is interpreted and recorded; from
the third on, a valid entry is copied.  A key whose recording refused twice is no longer
recorded.

**Soundness.**  The interpreter is deterministic: a construction's result is a function of
its key and of the state it *reads* outside itself, and its only effect on the rest of the
program is the object it returns, unless it *writes* state outside itself.  So while the
first construction with a key is interpreted, a :class:`Recorder` watches every place where
state from outside the construction can enter it, and every write outside:

- *reads* of a name that resolves outside the construction's own frames (a module global,
  a builtin, a closure cell of a function that is not running inside it) - hooked in
  ``_eval_Name``; of an attribute of a class (also ``self.x`` falling through to the class: a
  method, a class attribute), of a module namespace or of a function object - hooked in
  ``plain_attribute``; and of a function's default argument values - hooked in
  ``bind_arguments``.  Each is recorded with the value it gave.  The value must be immutable
  (plain data as above) or a definition (class, function, module namespace, builtin without
  captured program data, a method bound to a class), an instance that is not a module (an
  argument of the key, a config or registry object found as a global: what is read of it is
  recorded as below), or a list, dict or tuple (of such values), which is *watched*
  (watched_state.py: a snapshot of the very objects it holds, checked unchanged at the end of
  the recording and before each reuse, so whatever the code asked of it gets the same
  answer); anything else (a tensor, a module, an unknown) makes the key non-memoisable.
  ``globals()`` and ``vars()`` (which hand out a namespace's own dict) do too.
- *reads of an instance from outside*: each attribute read (hooked in ``plain_attribute``,
  misses included, and ``getattr``/``hasattr`` on it) is recorded with what the instance's own
  dict held for the name (or that it held nothing), and what it gave is let in as above.  As
  builtins read their arguments without these hooks, a builtin may be handed something that
  leads to such an instance (through containers and the objects the construction made) only
  if it reads nothing but the type or reads through the hooks (``isinstance``, ``super``,
  ``object.__getattribute__``, ``getattr``, ``hasattr``) or is a read-only dict method of a
  watched dict-derived instance (``super().__getitem__`` of a registry).  A copy shares these
  instances and containers, as interpreting would: only what the construction made is copied.
- *writes* outside: ``global``/``nonlocal`` statements, setting an attribute on a class, a
  module namespace or a function, or on an object the construction did not create
  (``Block.count += 1``, ``type(self).count += 1``) make the key non-memoisable; so does a
  watched container found changed at the end of the recording.
- *other effects*: a new unknown, warning or assumed branch, an op traced or a module call
  recorded while building (a dummy forward in ``__init__``), a ``sys.modules`` entry: the key
  is non-memoisable (the reports would otherwise be lost or misplaced).
- objects created by the construction (instances, frames) are registered as its own, so the
  recorder can tell its own state from outside state; a function object created inside it
  (a closure over its frame) makes the result non-copyable, hence non-memoisable.

The interpreter also looks methods up on classes by itself (the ``__init__`` of a class built
inside, ``__setattr__``, special methods): those reads are not recorded one by one.  Instead
any attribute write on a class or function, anywhere and at any time (``Base.__init__ =
other``, ``setattr(cls, ...)``), makes every entry recorded before it stale.  (Writes through
``vars(cls)`` or ``cls.__dict__`` are not seen; CPython refuses them, both are read-only.)

A later construction with the same key reuses the copy only if no such write happened since,
every recorded read still gives the identical value (the same object, or equal plain data of
the same type) looked up the same way and every watched container still holds the same
objects - a module-level width changed between two constructions, a config attribute set or
a list of the config appended to, or a method replaced on the class, is a miss and the
construction is interpreted again.  Since no write happened
outside, reading the same inputs gives the same result: the copy is what interpreting would
have built.  A construction nested in a recorded one passes its records up, so the outer key
is validated against everything the inner ones read.  What a reuse does not redo is the step
budget (``--max-steps`` counts interpreted steps, and a reuse interprets none); the module
budget (``--max-modules``) is charged for every copied module.

A read through a ``__getattribute__`` of the analysed code (getattribute_memo.py) made while
constructions are recorded is answered from that memo when it can be, its recorded reads and
watched containers passed to the recorders as theirs.

The memo lives on the interpreter (one analysis); ``hits`` counts reuses, for tests.  The same
:class:`Recorder` and hooks also record the calls of ``Module.apply(fn)``, with the module the
call is given as the one outside object it may read (``torch/apply_memo.py``); while one is
recorded, no construction is.
"""

from __future__ import annotations

from fractions import Fraction

from staticflops.diagnostics import Location
from staticflops.frontend import opaque_ints
from staticflops.frontend.opaque_ints import OpaqueInt, Touched
from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend.watched_state import Unwatchable, snapshot, unchanged
from staticflops.frontend.values import (
    BoundMethod, Builtin, Class, Function, Instance, LazyValue, MethodWrapper, ModuleState, Namespace, Parameter,
    Partial, Record, SuperProxy, Tensor, Unknown, reachable,
)
from staticflops.shapes import Expr


# A key refused this often is interpreted from then on without recording.  Not once: a first
# construction may refuse for a reason that does not recur (a package member loaded on first use).
_ATTEMPTS = 2


class NotMemoisable(Exception):
    """Raised while keying or copying: this construction is interpreted, not reused."""


class Recorder:
    """What one construction being interpreted for the first time read, made and did."""

    __slots__ = ("reads", "scopes", "objects", "_refused", "given", "watched", "effects_only", "outside",
                 "reaches_outside", "speculative", "call")

    def __init__(self, given: set | None = None, watch: bool = False, effects_only: bool = False):
        self.reads: dict = {}  # (kind, id(container), name) -> the read, as Entry.valid checks it
        self.scopes: set = set()  # id() of the frames created inside the construction
        self.objects: set = set()  # id() of the instances created inside it
        self.speculative = False  # a run with placeholders (opaque_ints.py): it stops when refused
        self._refused: str | None = None  # why it cannot be memoised (None: it can)
        # A construction given or reading instances from outside (an argument, a global): the
        # containers read from them, watched (watched_state.py): id() -> (container, snapshot,
        # whether the snapshot is of a dict subclass's items); and whether any such instance
        # was let in (builtins are then checked for reaching one).
        self.outside: dict = {}
        self.reaches_outside = False
        # Recording a call ``fn(module)`` of ``Module.apply`` (torch/apply_memo.py) instead of a
        # construction: id() of the module and of its own tensors, which the call may read
        # (they are in its key) but neither change nor hand to code that could.
        self.given = given
        # Recording a read through a ``__getattribute__`` of the analysed code instead
        # (getattribute_memo.py): outside instances may be read (each read recorded with its
        # value) and outside containers are watched (watched_state.py) rather than refused:
        # id() -> (container, snapshot).  None: not in that mode.
        self.watched: dict | None = {} if watch or effects_only else None
        # Watch mode for a branch run on an undecidable test (inert_branch.py): what matters
        # is only whether it changed anything outside, not what it read, so reads are not
        # recorded, modules and tensors may be read, and only containers are watched (to see
        # a change through a builtin method, `items.append(x)`).
        self.effects_only = effects_only
        # Recording a call ``fn(module, ...)`` (torch/call_memo.py): given and watched both set,
        # and what is particular to such a call here (None: not in that mode).
        self.call: CallRecord | None = None

    @property
    def refused(self) -> str | None:
        return self._refused

    @refused.setter
    def refused(self, why: str | None) -> None:
        self._refused = why
        if why is not None and self.speculative:
            raise Touched  # before whatever it refused happens

    def admit(self, value) -> None:
        """Let ``value``, read from an instance from outside or found as a global, into a
        construction: plain data and definitions as they are, an instance (its reads are
        hooks; not a module, whose state framework code reads without them), a container
        (watched), else refuse."""
        if _constant(value):
            return
        self.reaches_outside = True
        if isinstance(value, Instance):
            if value.module is not None:
                self.refused = self.refused or "reads a module it did not create"
                return
            if isinstance(value, dict) and id(value) not in self.outside:  # a dict subclass: its items too
                self._watch_outside(value, True)
            return
        if id(value) not in self.outside:
            self._watch_outside(value, False)

    def _watch_outside(self, value, items: bool) -> None:
        try:
            self.outside[id(value)] = (value, snapshot(dict(value) if items else value, _watch_plain), items)
        except Unwatchable as why:
            self.refused = self.refused or f"reads outside state that cannot be watched ({why})"

    def watch(self, value) -> None:
        """Let ``value``, read from outside, into a call recorded in watch mode: an instance
        (its own reads are hooks), a container (watched), or refuse."""
        kind = type(value)
        if kind is Instance:
            if value.module is not None and not self.effects_only:  # framework code reads module state without hooks
                self.refused = self.refused or "reads a module it did not create"
            return
        if id(value) in self.watched or _constant(value):
            return
        if self.effects_only and kind not in _CONTAINERS and not isinstance(value, _CONTAINER_LIKE):
            return  # (a tensor or another object: changed only through hooked writes or builtins)
        try:
            plain = _effects_plain if self.effects_only else _watch_plain
            self.watched[id(value)] = (value, snapshot(value, plain, reads=not self.effects_only))
        except Unwatchable as why:
            self.refused = self.refused or f"reads outside state that cannot be watched ({why})"

    def inside(self, scope) -> bool:
        """A scope the construction created (a frame, or a comprehension or class body in one)."""
        while scope is not None:
            if id(scope) in self.scopes:
                return True
            scope = scope.parent
        return False


class CallRecord:
    """What a module call being recorded (torch/call_memo.py) may read and write, and did."""

    __slots__ = ("index", "receivers", "reads", "writes", "deep", "wants_subtree")

    def __init__(self, index: dict, receivers: set, deep: bool):
        self.index = index  # id() of each given module -> its place in the key's list of modules
        self.receivers = receivers  # id() of the bound receivers: outside modules whose own dict may be read
        self.reads: dict = {}  # (place, name) -> the plain value a given module's own dict gave (not in the key)
        self.writes: list = []  # (place, name, plain value) set on a given module, in order
        self.deep = deep  # the module's whole subtree is given (else only the module)
        self.wants_subtree = False  # it read a module it was not given (a child, when not deep)


class Entry:
    __slots__ = ("plan", "reads", "definitions", "outside")

    def __init__(self, plan: "Plan", reads: list, definitions: int, outside: list = ()):
        self.plan = plan  # how to build a copy; it holds no object of the first result
        self.reads = reads
        self.definitions = definitions  # ConstructionMemo.definition_writes when recorded
        self.outside = outside  # [(container, snapshot, items)]: Recorder.outside


class ConstructionMemo:
    def __init__(self):
        self.entries: dict = {}
        self.refused: dict = {}  # key -> how many of its constructions were not memoisable
        self.seen: dict = {}  # key -> constructions so far
        self.recorders: list = []  # innermost last; empty: nothing is being recorded (the hooks' fast path)
        self.hits = 0  # reuses (tests)
        # Families: keys equal but for their ``int`` arguments (opaque_ints.py).  The int values
        # of a family's first construction; a family's entry built with placeholders in the
        # slots that varied, as (those slots, the int values it was recorded with, Entry); the
        # (family, slots) whose speculative run stopped.
        self.family_first: dict = {}
        self.family_entries: dict = {}
        self.family_refused: set = set()
        self.speculation = None  # opaque_ints.Speculation while a speculative run is under way
        # Module.apply's calls that changed nothing, by key (torch/apply_memo.py)
        self.apply_calls: dict = {}
        self.apply_refused: dict = {}
        self.apply_hits = 0  # calls skipped (tests)
        # Reads through a __getattribute__ of the analysed code (getattribute_memo.py)
        self.hook_reads: dict = {}
        self.hook_refused: dict = {}
        self.hook_hits = 0  # reads answered from the memo (tests)
        # Calls fn(module, *plain) made while building (torch/call_memo.py)
        self.module_calls: dict = {}
        self.call_refused: dict = {}
        self.call_seen: dict = {}
        self.call_functions: dict = {}  # function -> what was learnt of its calls
        self.call_hits = 0  # calls answered from the memo (tests)
        # Attribute writes on any class or function, ever: the interpreter also looks methods
        # up on its own (``__init__`` of a class built inside, ``__setattr__``, special
        # methods), not only through the reads recorded below, so an entry recorded before
        # such a write is not reused after it.  Programs write classes while defining them,
        # rarely once models are built.
        self.definition_writes = 0

    enabled = True  # tests compare with it off
    # Tests only: reuse without any check, to show that the tests would catch a wrong reuse
    # (a family's int arguments are then ignored, as a memo without placeholders would).
    force = False

    # ---- keys ---------------------------------------------------------------------
    def key(self, interp, cls: Class, args, kwargs, node):
        """The memo key of ``cls(*args, **kwargs)`` at ``node``, or None: not a candidate."""
        if not self.enabled or interp.framework.tracer.active:
            return None
        try:
            init = cls.lookup("__init__")
        except KeyError:
            return None
        if not isinstance(init, Function) or not interp.framework.is_module_class(cls):
            return None
        try:
            plain_args = tuple(_argument_key(a) for a in args)
            plain_kwargs = tuple((k, _argument_key(v)) for k, v in kwargs.items())  # in order: **kwargs sees it
        except NotMemoisable:
            return None
        return (cls, interp.location(node), interp.import_guards > 0, plain_args, plain_kwargs)

    # ---- construction -------------------------------------------------------------------
    def construct(self, interp, key, build, node, args: list = (), kwargs: dict | None = None):
        """``build()`` interpreted and recorded, or a copy of an earlier result with ``key``.
        ``build(args, kwargs)`` builds with other arguments (placeholders, opaque_ints.py)."""
        if self.recorders and (self.recorders[0].given is not None or self.recorders[0].watched is not None):
            self.refuse("builds a module")  # inside a recorded apply call or attribute read
            return build()
        entry = self.entries.get(key)
        if entry is not None and (self.force or (entry.definitions == self.definition_writes
                                                 and self._valid(entry, interp))):
            return self._reuse(entry, interp, node)
        if self.speculation is None:
            family, values = _family(key)
            if family is not None:
                found = self._family_construct(interp, key, family, values, build, node, args, kwargs or {})
                if found is not None:
                    return found
        if self.refused.get(key, 0) >= _ATTEMPTS:
            return build()
        self.seen[key] = seen = self.seen.get(key, 0) + 1
        if seen == 1:  # recording costs (hooks, a copy): a key is recorded when it comes again
            return build()
        return self._record_construction(interp, key, build)

    def _record_construction(self, interp, key, build):
        """``build()`` interpreted and recorded: its entry under ``key`` if memoisable."""
        recorder = Recorder()
        recorder.reaches_outside = _given_instances(key)
        instance, definitions = self.recorded(interp, recorder, build)
        plan = self._plan(instance, recorder)
        if recorder.refused is not None:
            self.refused[key] = self.refused.get(key, 0) + 1
            self.entries.pop(key, None)
        else:
            self.entries[key] = Entry(plan, list(recorder.reads.values()), definitions, list(recorder.outside.values()))
        return instance

    def _plan(self, instance, recorder: Recorder, placeholders: tuple = ()) -> "Plan | None":
        """The plan of a recorded construction's result, or None (``recorder`` refused)."""
        if recorder.refused is None and not self.force and any(not _unchanged(*watched)
                                                               for watched in recorder.outside.values()):
            recorder.refused = "changed a container from outside"
        if recorder.refused is None:
            try:
                return Plan(instance, recorder, placeholders)
            except NotMemoisable as why:
                recorder.refused = str(why)
        return None

    def _family_construct(self, interp, key, family, values: tuple, build, node, args, kwargs):
        """A construction with ``int`` arguments (``values``), by its ``family`` (opaque_ints.py):
        a copy of the family's entry with these ints, the construction recorded and run with
        placeholders (``_record_family``) when its ints differ from the family's first one, or
        None (the exact key decides)."""
        held = self.family_entries.get(family)
        if held is not None:
            slots, recorded, entry = held
            if all(values[i] == recorded[i] or i in slots for i in range(len(values))) and (
                    self.force or (entry.definitions == self.definition_writes and self._valid(entry, interp))):
                return self._reuse(entry, interp, node, [values[i] for i in slots])
            return None
        first = self.family_first.setdefault(family, values)
        slots = tuple(i for i in range(len(values)) if values[i] != first[i])
        if not slots or (family, slots) in self.family_refused:
            return None
        return self._record_family(interp, key, family, slots, values, build, args, kwargs)

    def _record_family(self, interp, key, family, slots: tuple, values: tuple, build, args, kwargs):
        """A construction of ``family`` whose ints differ from its first one in ``slots``:
        interpreted and recorded, then, if memoisable, run again with placeholders in
        ``slots`` (opaque_ints.py); the family's entry if that run completes."""
        recorder = Recorder()
        recorder.reaches_outside = _given_instances(key)
        instance, definitions = self.recorded(interp, recorder, build)
        plan = self._plan(instance, recorder)
        if plan is None:
            self.family_refused.add((family, slots))
            return instance
        if self.force:  # tests only: the ints ignored, as a memo without placeholders would
            self.family_entries[family] = (slots, values, Entry(plan, [], definitions))
            return instance
        found = self._speculate(interp, [_int_slots(key)[i] for i in slots], build, args, kwargs)
        if found is None:
            self.family_refused.add((family, slots))
            self.entries[key] = Entry(plan, list(recorder.reads.values()), definitions, list(recorder.outside.values()))
        else:
            plan, spec = found
            self.family_entries[family] = (slots, values, Entry(plan, list(spec.reads.values()), definitions,
                                                                list(spec.outside.values())))
        return instance

    def _speculate(self, interp, slots: list, build, args, kwargs):
        """The construction run again with a placeholder in each of ``slots`` (opaque_ints.py):
        (its plan, its recorder) if it completes using them only as values to pass along,
        else None, with what it reported taken back and the steps it took given back."""
        args, kwargs = list(args), dict(kwargs)
        placeholders = tuple(OpaqueInt(number) for number in range(len(slots)))
        for (where, at), placeholder in zip(slots, placeholders):
            (args if where == "arg" else kwargs)[at] = placeholder
        recorder = Recorder()
        recorder.reaches_outside = True
        recorder.speculative = True
        marks, budget = _marks(interp), dict(vars(interp.budget))
        outer, self.recorders = self.recorders, []  # an enclosing recording is not told of this run
        self.speculation = opaque_ints.Speculation(recorder)
        instance = None
        try:
            instance, _ = self.recorded(interp, recorder, lambda: build(args, kwargs))
        except Touched:
            instance = None
        except Exception:  # (an error Python would raise, a budget): a path the recorded run did not take
            instance = None
        finally:
            self.recorders, self.speculation = outer, None
            vars(interp.budget).update(budget)
            _take_back(interp, marks)
        if instance is None:
            return None
        recorder.speculative = False
        plan = self._plan(instance, recorder, placeholders)
        return None if plan is None else (plan, recorder)

    def recorded(self, interp, recorder: Recorder, run) -> tuple:
        """``run()`` with ``recorder`` listening: (its result, the definition writes it started
        from).  The recorder is refused when the run reported, traced or imported anything (a
        reuse could not repeat that), unless a test forces the memo."""
        before = _effects(interp)
        definitions = self.definition_writes
        self.recorders.append(recorder)
        try:
            result = run()
        finally:
            self.recorders.pop()
        if self.force:  # tests only: what an unchecked memo would do
            recorder.refused = None
        elif recorder.refused is None and _effects(interp) != before:
            recorder.refused = "reported, traced or imported something"
        return result, definitions

    def _reuse(self, entry: Entry, interp, node, values: list = ()) -> Instance:
        self.hits += 1
        instance, made = entry.plan.build(values)
        for new in made:
            if new.module is not None:
                interp.budget.module(interp, node)  # --max-modules bounds what is built, copied or not
        for recorder in self.recorders:  # an enclosing construction being recorded read all this too
            recorder.objects.update(id(new) for new in made)
            for read in entry.reads:
                if not (read[0] == "name" and isinstance(read[1], Scope) and recorder.inside(read[1])):
                    recorder.reads.setdefault(_read_key(read), read)
            for watched in entry.outside:
                recorder.outside.setdefault(id(watched[0]), watched)
            if entry.plan.shares_outside or entry.outside:
                recorder.reaches_outside = True
        return instance

    def _valid(self, entry: Entry, interp) -> bool:
        builtins = interp.builtins
        for read in entry.reads:  # (a loop, not all() over a generator: ~20 reads per reuse of a block)
            if not _still(read, builtins):
                return False
        for watched in entry.outside:
            if not _unchanged(*watched):
                return False
        return True

    # ---- hooks (called only while self.recorders is not empty) ---------------------------
    def constructions_only(self) -> bool:
        """Whether every call being recorded is a construction (not an apply call or a read)."""
        for recorder in self.recorders:
            if recorder.given is not None or recorder.watched is not None:
                return False
        return True

    def read_reused(self, reads: list, watched: list, value) -> None:
        """A read through a ``__getattribute__`` answered from its memo (getattribute_memo.py)
        while constructions are recorded: each recorder takes its reads and watched
        containers as its own, and lets the value in."""
        for recorder in self.recorders:
            for read in reads:
                recorder.reads.setdefault(_read_key(read), read)
            for container, shot in watched:
                recorder.outside.setdefault(id(container), (container, shot, False))
            recorder.reaches_outside = True
            recorder.admit(value)

    def created(self, instance: Instance) -> None:
        for recorder in self.recorders:
            recorder.objects.add(id(instance))

    def frame(self, scope: Scope, function: Function) -> None:
        for recorder in self.recorders:
            recorder.scopes.add(id(scope))
        if self.speculation is not None:
            self.speculation.frame(scope, function)

    def frame_handed_out(self) -> None:
        """``locals()``: the running frame's names, read without the name hooks."""
        if self.speculation is not None:
            raise Touched

    def module_run(self) -> None:
        """A module's code is about to run (an import)."""
        if self.speculation is not None:
            raise Touched  # its effects could not be taken back

    def refuse(self, why: str) -> None:
        """Something outside every construction being recorded was written (or may be)."""
        for recorder in self.recorders:
            if recorder.refused is None:
                recorder.refused = why

    def name_read(self, scope: Scope, name: str, value, builtins: dict, node=None) -> None:
        """``name`` evaluated in ``scope`` (a frame running inside the construction) gave ``value``."""
        if self.speculation is not None:
            self.speculation.name_read(scope, value, node)
        if name.startswith("__") and not name.endswith("__"):  # private-name mangling looks twice: keep it simple
            self.refuse(f"reads mangled name {name}")
            return
        between, found, current = [], None, scope.parent
        if name in scope.vars:
            found, current = scope, None
        while current is not None:
            if not current.is_class:
                if name in current.vars:
                    found = current
                    break
                between.append(current)
            current = current.parent
        if found is None and name in scope.module.vars:
            found = scope.module
        read = ("name", found, tuple(between), scope.module, name, value)
        for recorder in reversed(self.recorders):
            if found is not None and recorder.inside(found):
                break  # a local of an enclosing frame of the construction (and of the outer ones)
            self._record(recorder, read, value, f"reads global or closure variable `{name}`")

    def attribute_read(self, receiver, name: str, value) -> None:
        if self.speculation is not None:
            self.speculation.attribute_read(value)
        if self.recorders[0].given is not None and _given_read(self.recorders[0], receiver, name, value):
            return
        if type(receiver) is Instance:
            if self.recorders[0].watched is not None:
                self._watched_instance_read(receiver, name, value)
                if name in receiver.attrs:
                    return
            else:
                for recorder in self.recorders:
                    if id(receiver) not in recorder.objects and recorder.refused is None:
                        if recorder.given is None:  # a construction: recorded, as a global is
                            _outside_attribute(recorder, receiver, name, value)
                        elif name in receiver.attrs:
                            recorder.refused = "reads an object it did not create"
                if name in receiver.attrs:
                    return
            try:
                raw = receiver.cls.lookup(name)
            except KeyError:
                raw = MISSING
            read = ("class", receiver.cls, name, raw)
        elif isinstance(receiver, Class):
            try:
                raw = receiver.lookup(name)
            except KeyError:
                if name == "__dict__":
                    self.refuse("reads a class's __dict__")
                    return
                raw = MISSING
            read = ("class", receiver, name, raw)
        elif isinstance(receiver, Namespace):
            if receiver.replaced_by is not None or name not in receiver.members:
                self.refuse(f"reads module attribute `{name}` not (yet) bound")
                return
            raw = receiver.members[name]
            read = ("namespace", receiver, name, raw)
        elif isinstance(receiver, SuperProxy):
            if not isinstance(receiver.receiver, Instance):
                self.refuse("reads through super() outside an instance method")
                return
            raw = _after(receiver.receiver.cls, receiver.start_after, name)
            read = ("super", receiver.receiver.cls, name, raw, receiver.start_after)
        elif isinstance(receiver, Function):
            if name == "__dict__":
                self.refuse("reads a function's __dict__")
                return
            raw = receiver.attrs.get(name, MISSING)
            read = ("function", receiver, name, raw)
        else:
            return  # data the construction made or immutable values (tensors, lists, tuples, strings)
        for recorder in self.recorders:
            self._record(recorder, read, raw, f"reads attribute `{name}`")

    def _watched_instance_read(self, receiver: Instance, name: str, value) -> None:
        """Watch mode (the only recorder then, getattribute_memo.py): an instance read from
        outside is recorded with what its own dict held for ``name`` (MISSING: the class
        answered), and what the read gave is let in."""
        recorder = self.recorders[0]
        if id(receiver) in recorder.objects or recorder.refused is not None:
            return
        if recorder.given is not None and id(receiver) in recorder.given:
            return  # a module call's given module (torch/call_memo.py): its state is in the key
        if receiver.module is not None and not recorder.effects_only:
            call = recorder.call
            if call is None or id(receiver) not in call.receivers or name not in receiver.attrs \
                    and not _on_class(receiver, name):
                # (a receiver's own dict and class are read here; its children and framework state are not)
                recorder.refused = "reads a module it did not create"
                if call is not None:
                    call.wants_subtree = True
                return
        own = receiver.attrs.get(name, MISSING)
        if not recorder.effects_only:
            read = ("attr", receiver, name, own)
            recorder.reads.setdefault(_read_key(read), read)
        if own is not MISSING or value is receiver.attrs:  # (else the class answered: recorded below)
            recorder.watch(value)

    def attribute_missed(self, receiver, name: str) -> None:
        """``receiver.name`` raised AttributeError: for an instance from outside, that it held
        no such attribute is a read too (``getattr(config, "x", default)``)."""
        if type(receiver) is Instance:
            for recorder in self.recorders:
                if id(receiver) not in recorder.objects and recorder.given is None and recorder.watched is None:
                    _outside_attribute(recorder, receiver, name, MISSING)

    def default_read(self, function: Function, name: str, value) -> None:
        read = ("default", function, name, value)
        for recorder in self.recorders:
            self._record(recorder, read, value, f"uses the default value of `{name}`")

    def definition_written(self) -> None:
        """A class's or function's attribute was set (called whether recording or not)."""
        self.definition_writes += 1
        self.refuse("writes an attribute of a class or function")

    def attribute_write(self, receiver, name=None, value=None) -> None:
        if self.speculation is not None:
            self.speculation.stored(receiver, value)
        recorder = self.recorders[0]
        if recorder.call is not None and _plain_write(recorder.call, receiver, name, value):
            return  # the one effect a module call may have, made again when it is reused
        given = recorder.given
        if given is not None and id(receiver) in given:
            self.refuse("writes to the module it was given")
        if type(receiver) is Instance:
            for recorder in self.recorders:
                if id(receiver) not in recorder.objects and recorder.refused is None:
                    recorder.refused = "writes an attribute of an object it did not create"
        elif isinstance(receiver, Namespace):  # classes and functions: definition_written
            self.refuse("writes an attribute of a module")

    def builtin_called(self, builtin: Builtin, args, kwargs) -> None:
        """A builtin's Python code can change what it is handed without any hook seeing it: a
        recorded apply call may hand its module or tensors only to builtins known to read
        nothing but their type (``isinstance``) or to do nothing (``nn.init.*``), and no
        builtin may get an instance from outside it (a child reached by iterating the module)."""
        if self.speculation is not None:
            self.speculation.arguments(args, kwargs)
        recorder = self.recorders[0]
        if recorder.call is not None:
            self._module_call_builtin(recorder, builtin, args, kwargs)
            return
        if recorder.watched is None and recorder.given is None:
            for recorder in self.recorders:
                if recorder.reaches_outside and recorder.refused is None:
                    _builtin_outside(recorder, builtin, args, kwargs)
            return
        if recorder.watched is not None:
            # watch mode: a builtin may read a watched container (checked when reused) but not
            # an instance from outside, whose attributes it would read without the hooks
            allowed = _READ_ONLY_BUILTINS if recorder.effects_only else _READING_BUILTINS
            if builtin.name not in allowed and any(
                    _outside_instance(recorder, value) for value in (*args, *kwargs.values())):
                self.refuse(f"hands an object from outside to {builtin.name}()")
            return
        if recorder.given is None or builtin.name in _HARMLESS_BUILTINS:
            return
        if any(_outside(recorder, value) for value in (*args, *kwargs.values())):
            self.refuse(f"hands what it was given to {builtin.name}()")

    def _module_call_builtin(self, recorder: Recorder, builtin: Builtin, args, kwargs) -> None:
        """A builtin called in a recorded module call (torch/call_memo.py): it may get the given
        objects or an outside instance only if it reads nothing but their type or does nothing,
        or reads and writes them through the hooked paths (``getattr``/``hasattr``: what they
        ask of an outside instance's own dict and class is recorded here; ``setattr``)."""
        name = builtin.name
        if name in _HARMLESS_BUILTINS or name in _READING_BUILTINS or name == "setattr":
            return
        if name in _walks(recorder.call) and args and id(args[0]) in recorder.given:
            return  # the given module's children (or subtree): their places and classes are in the key
        if name in ("getattr", "hasattr") and len(args) >= 2 and type(args[1]) is str and not kwargs:
            self._probed(recorder, args[0], args[1])
            return
        if any(_outside(recorder, value) or _holds(value, _is_tensor) for value in (*args, *kwargs.values())):
            self.refuse(f"hands what it was given or an object from outside to {name}()")

    def _probed(self, recorder: Recorder, target, name: str) -> None:
        """``getattr``/``hasattr(target, name)``: whether ``hasattr`` finds the name depends on
        the instance's own dict and its class, which it reads without the hooks."""
        if id(target) in recorder.given or id(target) in recorder.objects:
            return  # the given module's or tensor's state is in the key; the call's own objects
        if type(target) is Instance:
            own = target.attrs.get(name, MISSING)
            try:
                member = target.cls.lookup(name)
            except KeyError:
                member = MISSING
            if target.module is not None and (id(target) not in recorder.call.receivers or own is MISSING):
                self.refuse("asks a module it did not create for an attribute")
                recorder.call.wants_subtree = True
                return
            # (recorded as found, not let in: hasattr only asks whether it is there, and a
            # getattr reads it again through the hooks)
            for read in (("attr", target, name, own), ("class", target.cls, name, member)):
                recorder.reads.setdefault(_read_key(read), read)
        elif isinstance(target, Class):
            try:
                member = target.lookup(name)
            except KeyError:
                member = MISSING
            read = ("class", target, name, member)
            recorder.reads.setdefault(_read_key(read), read)
        elif isinstance(target, Namespace) and target.replaced_by is None and name in target.members:
            read = ("namespace", target, name, target.members[name])
            self._record(recorder, read, read[3], f"reads module attribute `{name}`")
        elif isinstance(target, Function):
            read = ("function", target, name, target.attrs.get(name, MISSING))
            self._record(recorder, read, read[3], f"reads attribute `{name}`")
        elif isinstance(target, Namespace) or not _constant(target):
            self.refuse("asks an object from outside for an attribute")

    def _record(self, recorder: Recorder, read: tuple, value, why: str) -> None:
        if recorder.refused is not None:
            return
        if recorder.watched is not None:
            recorder.watch(value)
            if recorder.effects_only:
                return
        elif not _constant(value):
            if recorder.given is not None:
                recorder.refused = why + " holding mutable state"
                return
            recorder.admit(value)  # an instance (read through the hooks, as an argument is) or a watched container
        recorder.reads.setdefault(_read_key(read), read)


# Builtins that may get an apply call's module or tensors: they look at nothing but the type,
# or do nothing (``nn.init.normal_`` and the other members of framework._passive).
_HARMLESS_BUILTINS = frozenset({"isinstance", "no-op"})
# Builtins that may get an instance from outside in watch mode: they read its attributes only
# through the hooked attribute reads (``object.__getattribute__``), or nothing but its type.
_READING_BUILTINS = frozenset({"isinstance", "type", "super", "object.__getattribute__"})
# ... and in the effects-only mode (inert_branch.py), where what is read does not matter:
# builtins that read and change nothing (attributes they read through a hook run as code
# the recorder sees).
_READ_ONLY_BUILTINS = _READING_BUILTINS | {"getattr", "hasattr", "issubclass", "callable", "len", "str", "repr",
                                           "id", "bool", "print"}


def _outside_attribute(recorder: Recorder, receiver: Instance, name: str, value) -> None:
    """A construction read ``receiver.name`` (``value``), ``receiver`` from outside it: recorded
    with what the instance's own dict held (MISSING: the class answered, a read recorded on
    its own), and what it gave let in."""
    if receiver.module is not None:
        recorder.refused = "reads a module it did not create"
        return
    own = receiver.attrs.get(name, MISSING)
    read = ("attr", receiver, name, own)
    recorder.reads.setdefault(_read_key(read), read)
    recorder.reaches_outside = True
    if own is not MISSING or value is receiver.attrs:  # (`__dict__`: the live dict, watched)
        recorder.admit(value)


def _builtin_outside(recorder: Recorder, builtin: Builtin, args, kwargs) -> None:
    """A construction that let instances from outside in calls ``builtin``: builtins read
    their arguments without the hooks, so none may be handed anything that reaches such an
    instance, but those that read only the type or read through the hooks, ``getattr`` and
    ``hasattr`` (their direct read of the instance's dict recorded here), and the read-only
    dict methods of a watched dict-derived instance."""
    name = builtin.name
    if name in _READING_BUILTINS:
        return
    first = args[0] if args else None
    if name in ("getattr", "hasattr") and len(args) >= 2 and type(args[1]) is str and isinstance(first, Instance) \
            and id(first) not in recorder.objects:
        _outside_attribute(recorder, first, args[1], MISSING)
        try:
            member = first.cls.lookup(args[1])
        except KeyError:
            member = MISSING
        if _constant(member):
            read = ("class", first.cls, args[1], member)
            recorder.reads.setdefault(_read_key(read), read)
        else:
            recorder.refused = recorder.refused or f"reads attribute `{args[1]}` holding mutable state"
        args = args[2:]
    elif name in _DICT_READS and isinstance(first, dict) and isinstance(first, Instance) and id(first) in recorder.outside \
            and any(cls.namespace.get(name) is builtin for cls in first.cls.mro()):  # (its dict base's own)
        args = args[1:]
    for value in (*args, *kwargs.values()):
        if _reaches_outside(recorder, value):
            recorder.refused = recorder.refused or f"hands an object from outside to {name}()"
            return


_DICT_READS = frozenset({"__getitem__", "__contains__", "__iter__", "__len__", "get", "items", "keys", "values"})


def _reaches_outside(recorder: Recorder, value) -> bool:
    """Whether ``value`` is or leads to an instance from outside, through containers, the
    objects the construction made, bound methods and partials; a function it defined counts
    as leading to one (its frame may)."""
    objects = recorder.objects
    for count, item in enumerate(reachable(value, objects)):
        if isinstance(item, Instance) and id(item) not in objects:
            return True
        if (type(item) is Function and recorder.inside(item.scope)) or count > 5000:
            return True
    return False


def _outside_instance(recorder: Recorder, value) -> bool:
    """Whether ``value`` is, or holds, an instance the recorded call did not create, or a
    tensor (a builtin may change its fields: ``requires_grad_``)."""
    return _holds(value, lambda item: (id(item) not in recorder.objects) if type(item) is Instance
                  else isinstance(item, Tensor))


def _holds(value, test, depth: int = 0) -> bool:
    """Whether ``test`` is true of ``value`` or of anything its containers hold."""
    if test(value):
        return True
    if depth < 20 and type(value) in (list, tuple, set, frozenset):
        return any(_holds(item, test, depth + 1) for item in value)
    if depth < 20 and type(value) is dict:
        return any(_holds(item, test, depth + 1) for pair in value.items() for item in pair)
    return False


_CONTAINERS = frozenset({dict, list, tuple, set})
_CONTAINER_LIKE = (dict, list, set, bytearray)  # subclasses (our own partial dicts...): refused


def _effects_plain(item) -> bool:
    """An item of a container watched for changes only: containers are snapshotted with it."""
    kind = type(item)
    if kind in _CONTAINERS:
        return False
    if isinstance(item, _CONTAINER_LIKE):
        raise Unwatchable(f"holds a {kind.__name__}")
    return True


def _watch_plain(item) -> bool:
    """An item of a watched container that needs no snapshot of its own (watched_state.py):
    immutable, a definition, or an instance (read through the hooks); a container is
    snapshotted with it; anything else cannot be watched."""
    if type(item) is Instance:
        if item.module is not None:
            raise Unwatchable("holds a module")
        return True
    if _constant(item):
        return True
    if type(item) in (dict, list, tuple):
        return False
    raise Unwatchable(f"holds a {type(item).__name__}")


def _on_class(instance: Instance, name: str) -> bool:
    try:
        instance.cls.lookup(name)
    except KeyError:
        return False
    return True


# Module methods that hand out a module's children, and its whole subtree: a recorded module
# call may call them on a given module (its children's places and classes are in the key; the
# subtree only when it is all given).
_CHILDREN_WALKS = frozenset({"Module.children", "Module.named_children"})
_SUBTREE_WALKS = _CHILDREN_WALKS | {"Module.modules", "Module.named_modules"}


def _walks(call: CallRecord) -> frozenset:
    return _SUBTREE_WALKS if call.deep else _CHILDREN_WALKS


# Marks the code set on a tensor that a module call's key holds exactly (apply_memo._plain_dict).
_MARKS = frozenset({int, str, bool, type(None)})

# Values of a given module's own dict left out of a module call's key: each one read is
# recorded with its value and compared when the entry is reused.
_READ_CHECKED = frozenset({int, float, str, bool, type(None)})


def _plain_write(call: CallRecord, receiver, name, value) -> bool:
    """Whether ``receiver.name = value`` in a recorded module call (torch/call_memo.py) is the
    write it may make (recorded then): to a given module, of plain data, through nn.Module's
    own ``__setattr__`` (no ``__setattr__`` of the analysed code, no descriptor on the class)."""
    place = call.index.get(id(receiver))
    if place is None or type(receiver) is not Instance or type(name) is not str:
        return False
    try:
        _plain_key(value)
    except NotMemoisable:
        return False
    cls = receiver.cls
    try:
        if isinstance(cls.lookup("__setattr__"), Function):
            return False
    except KeyError:
        pass
    try:
        member = cls.lookup(name)
    except KeyError:
        member = MISSING
    if member is not MISSING and (isinstance(member, (MethodWrapper, Instance)) or not _constant(member)):
        return False  # a descriptor decides what the write does
    call.writes.append((place, name, value))
    return True


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor)


def _outside(recorder: Recorder, value) -> bool:
    """Whether ``value`` is, or holds, a given object or an instance the call did not create."""
    return _holds(value, lambda item: id(item) in recorder.given
                  or (type(item) is Instance and id(item) not in recorder.objects))


def _given_read(recorder: Recorder, receiver, name: str, value) -> bool:
    """An attribute read while an apply call is recorded; True when handled here.  The given
    module's own attributes are in the key: plain values and its tensors may be read (a
    tensor read becomes given too); an instance, container or other object may not.  Its
    class's Python methods are recorded as usual; its builtin methods (``parameters``,
    ``requires_grad_``...) are refused, as is anything read from a given tensor and any
    builtin method of an instance from outside (the bound method's receiver)."""
    if id(receiver) in recorder.given:
        if type(receiver) is not Instance:
            marks = receiver.python_attrs
            if recorder.call is not None and marks and name in marks and value is marks[name] \
                    and all(type(item) in _MARKS for item in marks.values()):
                return True  # a module call's key holds these marks set on its module's tensors
            recorder.refused = recorder.refused or f"reads `.{name}` of a tensor it was given"
            return True
        call = recorder.call
        if name in receiver.attrs:
            if isinstance(value, Tensor) and value is receiver.attrs[name]:
                recorder.given.add(id(value))
            elif call is not None and value is receiver.attrs[name] and (
                    type(value) in _READ_CHECKED or type(value) is Instance and id(value) in recorder.given):
                # a module call: a plain value is checked when reused (the key has its type);
                # a module of the given subtree has its place in the key
                if type(value) is not Instance:
                    call.reads.setdefault((call.index[id(receiver)], name), value)
            elif not _constant(value):
                recorder.refused = recorder.refused or f"reads `.{name}` of the module it was given"
            return True
        try:
            member = receiver.cls.lookup(name)
        except KeyError:
            member = MISSING
        if member is MISSING and not _constant(value) or isinstance(member, Builtin) and not (
                call is not None and member.name in _walks(call)):
            recorder.refused = recorder.refused or f"reads `.{name}` of the module it was given"
            return True
        return False  # a method or class attribute: recorded below as any class read
    if recorder.watched is not None:
        return False  # a module call (torch/call_memo.py): outside instances are read as in watch mode
    if type(receiver) is Instance and id(receiver) not in recorder.objects and name not in receiver.attrs:
        try:
            member = receiver.cls.lookup(name)
        except KeyError:
            member = MISSING
        if isinstance(member, Builtin) or member is MISSING:
            recorder.refused = recorder.refused or f"reads `.{name}` of an instance from outside"
            return True
    return False


# What outside-visible state a construction may change as a side effect: reports, the tracer,
# sys.modules.  Compared before and after the first construction.
def _effects(interp) -> tuple:
    tracer = interp.framework.tracer
    return (len(interp.unknowns), len(interp.diagnostics), len(interp.assumptions), len(tracer.ops),
            len(tracer.module_outputs), len(tracer.module_calls), len(tracer.module_call_inputs),
            len(interp.framework.call_cache.calls), len(interp.sys_modules))


def _read_key(read: tuple) -> tuple:
    if read[0] == "name":
        _, found, between, module, name, _ = read
        return "name", id(found), id(module), name, tuple(id(scope) for scope in between)
    if read[0] == "super":
        return "super", id(read[1]), read[2], id(read[4])
    return read[0], id(read[1]), read[2]


def _still(read: tuple, builtins: dict) -> bool:
    """Whether a recorded read gives the same value now."""
    kind = read[0]
    if kind == "name":
        _, found, between, module, name, value = read
        if between and any(name in scope.vars for scope in between):  # (most reads pass no frame between)
            return False
        now = found.vars.get(name, MISSING) if found is not None else builtins.get(name, MISSING)
        if isinstance(now, LazyValue):  # an import binding: the name read gave what it resolved to
            now = now.resolved if now.done else MISSING
        return (found is not None or name not in module.vars) and _same(now, value)
    if kind == "super":
        _, cls, name, value, start_after = read
        return _same(_after(cls, start_after, name), value)
    _, container, name, value = read
    if kind == "class":
        try:
            now = container.lookup(name)
        except KeyError:
            now = MISSING
    elif kind == "namespace":
        now = container.members.get(name, MISSING) if container.replaced_by is None else MISSING
    elif kind == "function":
        now = container.attrs.get(name, MISSING)
    elif kind == "attr":  # an outside instance's own dict (watch mode)
        return container.attrs.get(name, MISSING) is value
    else:  # "default"
        now = container.defaults.get(name, MISSING)
    return _same(now, value)


def _after(cls: Class, start_after: Class, name: str):
    """What ``super(start_after, instance of cls).name`` finds (as ``plain_attribute`` looks)."""
    mro = cls.mro()
    start = mro.index(start_after) + 1 if start_after in mro else 1
    for owner in mro[start:]:
        if name in owner.namespace:
            return owner.namespace[name]
    return MISSING


def _same(now, then) -> bool:
    if now is then:
        return True
    try:
        return _plain_key(now) == _plain_key(then)
    except NotMemoisable:
        return False


_PLAIN_SCALARS = (int, str, bool, type(None), bytes)


def _plain_key(value):
    """``value`` as an exactly comparable key: plain immutable data only."""
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return kind, value
    if kind is float:
        return kind, repr(value)
    if kind is tuple:
        return kind, tuple(_plain_key(item) for item in value)
    raise NotMemoisable(f"argument of type {kind.__name__}")


def _argument_key(value):
    """A construction's argument as part of its key: plain data by value, an instance that is
    not a module by identity (its reads are recorded and checked, as globals are)."""
    if type(value) is Instance and value.module is None:
        return Instance, value  # (hashed by identity: Instance compares by identity)
    return _plain_key(value)


def _given_instances(key) -> bool:
    return any(part[0] is Instance for part in key[3]) or any(part[1][0] is Instance for part in key[4])


def _int_slots(key) -> list:
    """Where a key's ``int`` arguments are: ("arg", position) or ("kw", name), in order."""
    slots = [("arg", i) for i, part in enumerate(key[3]) if part[0] is int]
    return slots + [("kw", name) for name, part in key[4] if part[0] is int]


_ANY_INT = (int, None)


def _family(key) -> tuple:
    """(the key with its ``int`` arguments left out, their values), or (None, None) without any."""
    args, kwargs = key[3], key[4]
    values = tuple(part[1] for part in args if part[0] is int) + tuple(part[1] for _, part in kwargs if part[0] is int)
    if not values:
        return None, None
    family = (*key[:3], tuple(_ANY_INT if part[0] is int else part for part in args),
              tuple((name, _ANY_INT if part[0] is int else part) for name, part in kwargs))
    return family, values


def _unchanged(container, shot, items: bool) -> bool:
    return unchanged(dict(container) if items else container, shot)


# Values that cannot change: reading them from outside is recorded, not refused.
_DEFINITIONS = (Class, Function, Namespace, MethodWrapper)
_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), Fraction, Expr, range, slice, Location)
# The analysed program's mutable data: a builtin that closes over one (``REGISTRY.append``) writes outside.
_PROGRAM_DATA = (list, dict, set, bytearray, Instance, Tensor)


def _constant(value, depth: int = 0) -> bool:
    if isinstance(value, _IMMUTABLE) or value is MISSING or isinstance(value, _DEFINITIONS):
        return True
    if depth > 20:
        return False
    if type(value) is tuple or type(value) is frozenset or type(value) is Record:
        return all(_constant(item, depth + 1) for item in value)
    if isinstance(value, Builtin):
        cells = getattr(value.fn, "__closure__", None) or ()
        return not any(isinstance(cell.cell_contents, _PROGRAM_DATA) for cell in cells if _filled(cell))
    if isinstance(value, BoundMethod):  # a classmethod bound to its class
        return isinstance(value.receiver, Class) and _constant(value.function, depth + 1)
    if isinstance(value, LazyValue):
        return value.done and _constant(value.resolved, depth + 1)
    return False


def _container_ids(container, shot):
    """id() of ``container``'s nested containers that ``shot`` (its snapshot) covers."""
    kind, items, nested = shot
    inner = items[1] if kind is dict else items
    for index, inner_shot in nested:
        yield id(inner[index])
        yield from _container_ids(inner[index], inner_shot)


def _marks(interp) -> tuple:
    """What a speculative run could report, to take back: sizes and copies (small while building)."""
    tracer, cache = interp.framework.tracer, interp.framework.call_cache
    return (len(interp.unknowns), len(interp.diagnostics), set(interp.noted), set(interp.assumptions),
            dict(tracer.module_outputs), dict(tracer.module_calls), dict(tracer.module_call_inputs),
            dict(cache.calls), len(tracer.ops))


def _take_back(interp, marks: tuple) -> None:
    unknowns, diagnostics, noted, assumptions, outputs, calls, inputs, cached, ops = marks
    tracer, cache = interp.framework.tracer, interp.framework.call_cache
    interp.hold_back(unknowns)
    del interp.diagnostics[diagnostics:], tracer.ops[ops:]
    for target, saved in ((interp.noted, noted), (interp.assumptions, assumptions), (tracer.module_outputs, outputs),
                          (tracer.module_calls, calls), (tracer.module_call_inputs, inputs), (cache.calls, cached)):
        target.clear()
        target.update(saved)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


# Copied field by field: our own value classes whose fields are values again.
_COPIED_OBJECTS = (Instance, ModuleState, Tensor, Parameter, BoundMethod, Partial, SuperProxy)
_SHARED = (Class, Namespace, Builtin, MethodWrapper, LazyValue) + _IMMUTABLE
_TUPLES = (tuple, frozenset, Record)


class Plan:
    """How to rebuild a module tree: compiled once from the first construction's result, run
    for each reuse.  Every mutable object in the tree (instances, their module state, tensors,
    lists, dicts...) becomes a numbered node: a prefilled copy of its contents (its ``__dict__``
    for our value objects) in which the slots that hold another node are filled in after all
    nodes exist; everything else (immutable values, definitions) is shared.  Building a copy
    is then C-level dict/list copies plus one store per reference, several times faster than a
    recursive deep copy.  With a recorder (compiling): a function created inside the
    construction refuses, since it closes over the construction's frame and would be shared
    between the copies."""

    def __init__(self, root, recorder: Recorder | None = None, placeholders: tuple = ()):
        self.recorder = recorder
        # Objects from outside the construction, shared by every copy as plain interpretation
        # shares them: the instances it did not create, and the containers read from them
        # (with those nested in them).
        self.outside = set()
        if recorder is not None:
            for container, shot, items in recorder.outside.values():
                self.outside.update(_container_ids(dict(container) if items else container, shot))
                self.outside.add(id(container))
        self.shares_outside = False
        self.slots: list = []  # (node number, placeholder number): filled with a copy's ints
        self.index: dict = {}  # id(object) -> node number
        self.nodes: list = []  # per node: (kind, prefilled contents)
        self.refs: list = []  # (node number, is an object (fill its __dict__), [(slot, node number)])
        self.tuple_order: list = []  # tuple-like nodes, inner ones first: (node number, kind, items, record)
        self.instances: list = []  # node numbers of Instances
        for placeholder in placeholders:
            number = self._node(placeholder)
            self.nodes[number] = (OpaqueInt, None)
            self.slots.append((number, placeholder.slot))
        self.root = self._encode(root)[0]
        del self.index, self.recorder, self.outside  # the plan keeps no reference to the original objects

    def _encode(self, value) -> tuple:
        """(node number, None) for an object rebuilt per copy, (-1, value) for a shared one."""
        kind = type(value)
        if kind in _PLAIN_SCALARS or kind is float:
            return -1, value
        known = self.index.get(id(value))
        if known is not None:
            return known, None
        if self.recorder is not None and (id(value) in self.outside or kind is Instance
                                          and id(value) not in self.recorder.objects):
            self.shares_outside = True
            return -1, value
        if kind in _COPIED_OBJECTS or kind is list or kind is dict:
            number = self._node(value)
            if kind is Instance:
                self.instances.append(number)
            if kind is list:
                items = list(enumerate(value))
            elif kind is dict and all(type(k) is str for k in value):
                items = list(value.items())
            elif kind is dict:  # other keys (rare): rebuilt from encoded pairs as a tuple-like node
                self.nodes[number] = (dict, None)
                pairs = [(self._encode(k), self._encode(v)) for k, v in value.items()]
                self.tuple_order.append((number, dict, pairs, None))
                return number, None
            else:
                items = list(value.__dict__.items())
            prefilled = [] if kind is list else {}
            refs = []
            for slot, item in items:
                number_of_item, shared = self._encode(item)
                if kind is list:
                    prefilled.append(shared)
                else:
                    prefilled[slot] = shared
                if number_of_item >= 0:
                    refs.append((slot, number_of_item))
            self.nodes[number] = (kind, prefilled)
            if refs:
                self.refs.append((number, kind is not list and kind is not dict, refs))
            return number, None
        if kind in _TUPLES or kind is set:
            items = [self._encode(item) for item in value]
            if kind is not set and all(n < 0 for n, _ in items):
                return -1, value  # nothing inside it is rebuilt: the tuple itself is shared
            number = self._node(value)
            self.nodes[number] = (kind, None)
            self.tuple_order.append((number, kind, items, (value.cls, value.fields) if kind is Record else None))
            return number, None
        if kind is Function:
            if self.recorder is not None and self.recorder.inside(value.scope):
                raise NotMemoisable("keeps a function defined inside the construction")
            return -1, value
        if isinstance(value, _SHARED) or value is MISSING or kind is Unknown:  # not PartialDict: it fills in
            return -1, value
        raise NotMemoisable(f"holds a {kind.__name__}")

    def _node(self, value) -> int:
        number = self.index[id(value)] = len(self.nodes)
        self.nodes.append(None)
        return number

    def build(self, values=()) -> tuple:
        """(a new copy of the tree's root, its new Instances), with ``values[n]`` where
        placeholder ``n`` was."""
        made = []
        append = made.append  # (~90 nodes per copy of a transformer block)
        new = object.__new__
        for kind, prefilled in self.nodes:
            if prefilled is None:  # built below, from the nodes it holds
                append(None)
            elif kind is list or kind is dict:
                append(prefilled.copy())
            else:
                obj = new(kind)
                obj.__dict__ = prefilled.copy()
                append(obj)
        for number, slot in self.slots:
            made[number] = values[slot]
        for number, kind, items, record in self.tuple_order:
            if kind is dict:
                made[number] = {(made[kn] if kn >= 0 else k): (made[vn] if vn >= 0 else v)
                                for (kn, k), (vn, v) in items}
            else:
                values = [made[n] if n >= 0 else v for n, v in items]
                made[number] = Record.make(*record, values) if record else kind(values)
        for number, is_object, refs in self.refs:
            target = made[number].__dict__ if is_object else made[number]
            for slot, item in refs:
                target[slot] = made[item]
        return made[self.root], [made[n] for n in self.instances]
