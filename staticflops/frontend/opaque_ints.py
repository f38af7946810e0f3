"""Integer arguments a construction only passes along: one recording for every value.

``[Layer(config, i) for i in range(32)]`` gives the construction memo (construction_memo.py)
32 different keys: ``i`` is part of each.  Most layers only keep it (``self.layer_idx = i``,
for a cache looked up later), some compute with it (``config.layer_types[i]``, ``if i % 2``),
where the layers really differ.  This module tells the two apart soundly.

**Speculative run.**  When a family of constructions (same class, call site and arguments
except some ``int`` ones) comes with a different value in some ``int`` slots, the memo first
interprets that construction plainly and records it as usual.  Only if that recording is
memoisable (it read only recorded state and changed, reported and imported nothing) is the
construction run once more, with a placeholder (:class:`OpaqueInt`) bound in each varying
slot.  A placeholder may only be *moved*: bound to a parameter, read by name where the value
goes straight into a call argument or into an assignment to a name or an attribute of an
object the run created, and stored there.  Every other use stops the run at once with
:class:`Touched`:

- a read of the name anywhere else (an operand, a test, a subscript, a return, a default,
  an f-string, a class body), a read of an attribute that gives a placeholder (or a container
  holding one, ``self.__dict__`` included), a name read giving a container that holds one
  (``*args``), ``locals()``;
- a builtin given anything that reaches a placeholder (through containers, the attributes of
  objects the run created, bound methods, functions it defined): builtins read their
  arguments without the interpreter's hooks;
- an attribute store of a placeholder anywhere but the plain instance dict of an object the
  run created;
- every Python operation on the placeholder object itself (``==``, ``hash``, ``bool``,
  ``int``, ``repr``...): it raises, whatever interpreter code tried it;
- anything the recording refuses (a read of outside mutable state, a write outside), and an
  import.

Up to its first use of a placeholder, the speculative run does exactly what the recorded run
did (the interpreter is deterministic, its inputs are those the recording validated a moment
ago, and a moved value is not looked at), so it changes nothing outside itself: it stops on
the first use, and what it reported is taken back.  If it completes, no step of it depended
on the values in the varying slots, so for any ints there, plain interpretation takes the
same steps and builds the same tree with those ints where the placeholders are.  The memo
then keeps that tree as a plan (construction_memo.Plan) whose placeholders are filled with a
later construction's ints; the tree built with placeholders is never handed to the program.
A run that stops leaves the family to the ordinary exact keys (``int`` values in the key).

The speculative run costs one more construction per family and call site; the step budget it
used is given back.
"""

from __future__ import annotations

from staticflops.frontend import syntax as cst
from staticflops.frontend.values import Function, Instance, reachable


class Touched(BaseException):
    """A placeholder was used for more than being passed along: the speculative run stops.
    (A BaseException: neither the analysed code's ``except`` nor the interpreter's own
    fallbacks may catch it.)"""


class OpaqueInt:
    """Stands for the ``int`` in varying slot ``slot`` during a speculative run: any
    operation on it raises :class:`Touched`."""

    __slots__ = ("slot",)

    def __init__(self, slot: int):
        object.__setattr__(self, "slot", slot)

    def _touched(self, *args, **kwargs):
        raise Touched

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = __bool__ = _touched
    __int__ = __index__ = __float__ = __complex__ = __round__ = __trunc__ = __floor__ = __ceil__ = _touched
    __repr__ = __str__ = __format__ = __bytes__ = __len__ = __iter__ = __contains__ = _touched
    __getitem__ = __setitem__ = __delitem__ = __call__ = __setattr__ = __delattr__ = _touched
    __copy__ = __deepcopy__ = __reduce__ = __reduce_ex__ = __getstate__ = _touched
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _touched
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __divmod__ = __rdivmod__ = _touched
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = __and__ = __rand__ = __or__ = __ror__ = _touched
    __xor__ = __rxor__ = __neg__ = __pos__ = __abs__ = __invert__ = __matmul__ = __rmatmul__ = _touched


def is_opaque(value) -> bool:
    return type(value) is OpaqueInt


class Speculation:
    """The checks of one speculative run; the memo calls them from its hooks."""

    def __init__(self, recorder):
        self.recorder = recorder  # the run's own (its objects and frames)
        self.frames: dict = {}  # id(frame scope) -> the function node it runs
        self.passing: dict = {}  # id(function node) -> (node, ids of the Name nodes whose value is only passed)

    def frame(self, scope, function) -> None:
        self.frames[id(scope)] = function.node

    def name_read(self, scope, value, node) -> None:
        if type(value) is OpaqueInt:
            if scope.is_class or id(node) not in self._passing(scope):
                raise Touched
        elif type(value) in _CONTAINERS and self.reaches(value):
            raise Touched

    def attribute_read(self, value) -> None:
        if type(value) is OpaqueInt or (type(value) in _CONTAINERS or isinstance(value, dict)) and self.reaches(value):
            raise Touched

    def arguments(self, args, kwargs) -> None:
        """A builtin is about to get these."""
        for value in args:
            if self.reaches(value):
                raise Touched
        for value in kwargs.values():
            if self.reaches(value):
                raise Touched

    def stored(self, receiver, value) -> None:
        """``receiver.<name> = value`` is about to run."""
        if not self.reaches(value):
            return
        if type(receiver) is not Instance or id(receiver) not in self.recorder.objects:
            raise Touched
        try:
            hook = receiver.cls.lookup("__setattr__")
        except KeyError:
            return
        if not isinstance(hook, Function) and getattr(hook, "name", None) not in _PLAIN_STORES:
            raise Touched

    def reaches(self, value) -> bool:
        """Whether ``value`` is or holds a placeholder, through containers, objects the run
        created, bound methods and partials; a function it defined counts as holding one."""
        recorder = self.recorder
        for item in reachable(value, recorder.objects):
            if type(item) is OpaqueInt or (type(item) is Function and recorder.inside(item.scope)):
                return True
        return False

    def _passing(self, scope) -> frozenset:
        while scope is not None and id(scope) not in self.frames:
            scope = scope.parent
        if scope is None:
            return frozenset()
        function = self.frames[id(scope)]
        known = self.passing.get(id(function))
        if known is None:
            known = self.passing[id(function)] = (function, passing_names(function))
        return known[1]


_CONTAINERS = frozenset({tuple, list, dict, set, frozenset})
# ``__setattr__`` builtins that store any value that is not a module, parameter or tensor in the
# instance dict, looking at nothing but its type (framework.py, torch/modules.py, stdlib/containers.py)
_PLAIN_STORES = frozenset({"object.__setattr__", "Module.__setattr__", "__setattr__"})
_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def passing_names(function) -> frozenset:
    """id() of the ``Name`` nodes in ``function``'s own code (not in functions or classes
    defined inside) whose value only moves: a call's plain or keyword argument, or the value
    of an assignment whose targets are names or attributes."""
    found = []
    stack = [function.body] if isinstance(function, cst.Lambda) else list(_body(function))
    name_type = cst.Name
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _NESTED_TYPES:
            continue
        if kind is cst.Call:
            found.extend(id(arg.value) for arg in node.args if not arg.star and type(arg.value) is name_type)
        elif kind is cst.Assign:
            if type(node.value) is name_type and all(type(t.target) in _TARGETS for t in node.targets):
                found.append(id(node.value))
        elif kind is cst.AnnAssign:
            if type(node.value) is name_type and type(node.target) in _TARGETS:
                found.append(id(node.value))
        for field in kind._fields:
            value = getattr(node, field)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif type(value) in (list, tuple):
                stack.extend(item for item in value if isinstance(item, cst.CSTNode))
    return frozenset(found)


def _body(function):
    body = function.body
    return [body] if isinstance(body, cst.CSTNode) else list(body)


_NESTED_TYPES = frozenset(_NESTED)
_TARGETS = frozenset({cst.Name, cst.Attribute})
