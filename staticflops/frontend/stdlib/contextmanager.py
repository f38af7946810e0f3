"""``contextlib.contextmanager``: the code before the ``yield`` runs when the ``with`` block is
entered, the ``as`` name gets the yielded value, and the code after the ``yield`` runs when the
block is left, in that order.

Our generators run to the end when called (values.Generated), so a ``@contextmanager``
function called as a plain generator would run its clean-up *before* the block and bind the
list of what it yielded: ``owner.width = 8; yield; owner.width = 4`` would build the block's
layers with width 4.  Instead the function's body is split at its ``yield``, which must be a
statement of its own at the top level of the body, or at the top level of a ``try`` body whose
only handler is ``finally`` (``try: yield x finally: restore()``): the shapes nearly every
context manager in model code has.  Both halves run in one frame, so names bound before the
``yield`` are there after it.  An exception from the block is thrown in at the ``yield``: it
runs the ``finally`` and goes on (it is not swallowed).

Any other shape (a ``yield`` inside a loop, an ``if`` or an ``except``; two of them) is run
as before, to the end when the block is entered, and the report says so (SF131): the order of
its clean-up and the block is then not followed.
"""

from __future__ import annotations

from dataclasses import dataclass

from staticflops.frontend import syntax as cst
from staticflops.frontend.statements import Raised
from staticflops.frontend.values import Builtin, Class, Function, Instance, has_yield


@dataclass
class _Split:
    """A generator function's body cut at its one ``yield``."""

    before: list  # statements run on entering
    value: object  # the yielded expression (None: `yield` alone)
    after: list  # statements run on leaving normally
    final: list  # a `finally` around the yield: run on leaving either way
    rest: list  # statements after that `try`: run on leaving normally, after `final`


def contextmanager_builtin(interp) -> Builtin:
    """The ``contextlib.contextmanager`` decorator."""
    manager_class = Class("_GeneratorContextManager", (interp.builtins["object"],), {})
    frames: dict = {}  # id(manager) -> [manager, function, args, kwargs, split, frame]

    def decorate(interp, args, kwargs, node):
        function = args[0] if args else None
        if not isinstance(function, Function):
            return function  # a builtin or an unknown: left as it is

        def make(interp, call_args, call_kwargs, call_node):
            manager = Instance(manager_class, {}, interp.location(call_node))
            frames[id(manager)] = [manager, function, list(call_args), dict(call_kwargs), None, None]
            return manager
        made = Builtin(function.name, make)  # bound as a method when it is one, as the function would be
        made.wrapped = function
        return made

    def enter(interp, args, kwargs, node):
        state = frames[id(args[0])]
        _, function, call_args, call_kwargs, _, _ = state
        split = _split(function.node.body)
        if split is None:
            interp.note("SF131", f"the @contextmanager function {function.name} has its yield inside a loop, a "
                        "branch or an except: it ran to its end before the with block (the order of its "
                        "clean-up and the block is not followed)", interp.location(node), severity="warning")
            items = interp.call(function, call_args, call_kwargs, node)
            if isinstance(items, list) and items:
                return items[0]
            raise interp.fail("generator didn't yield", node, python="RuntimeError")
        frame = interp.open_frame(function, call_args, call_kwargs, node)
        state[4], state[5] = split, frame
        if interp.run_in_frame(function, frame, split.before, node):
            raise interp.fail("generator didn't yield", node, python="RuntimeError")
        return interp.evaluate_in_frame(function, frame, split.value, node) if split.value is not None else None

    def leave(interp, args, kwargs, node):
        state = frames.pop(id(args[0]), None)
        if state is None or state[4] is None:
            return None
        function, split, frame = state[1], state[4], state[5]
        raised = len(args) > 1 and args[1] is not None
        if raised:  # thrown in at the yield: only a `finally` around it runs, and it propagates
            interp.run_in_frame(function, frame, split.final, node)
            return False
        try:
            returned = interp.run_in_frame(function, frame, split.after, node)
        except Raised:  # an exception of the analysed code: its `finally` runs, then it goes on
            interp.run_in_frame(function, frame, split.final, node)
            raise
        interp.run_in_frame(function, frame, split.final, node)
        if not returned:
            interp.run_in_frame(function, frame, split.rest, node)
        return None

    manager_class.namespace["__enter__"] = Builtin("_GeneratorContextManager.__enter__", enter)
    manager_class.namespace["__exit__"] = Builtin("_GeneratorContextManager.__exit__", leave)
    return Builtin("contextmanager", decorate, bind_self=False)


def _split(body) -> _Split | None:
    statements = list(getattr(body, "body", ()))
    for index, statement in enumerate(statements):
        value = _yielded(statement)
        if value is not False:
            rest = statements[index + 1:]
            if _yields(statements[:index]) or _yields(rest):
                return None
            return _Split(statements[:index], value, rest, [], [])
        if isinstance(statement, cst.Try) and not statement.handlers and statement.orelse is None \
                and statement.finalbody is not None:
            inner = list(statement.body.body)
            for at, candidate in enumerate(inner):
                value = _yielded(candidate)
                if value is not False:
                    before, after = statements[:index] + inner[:at], inner[at + 1:]
                    final, rest = list(statement.finalbody.body.body), statements[index + 1:]
                    if any(_yields(part) for part in (before, after, final, rest)):
                        return None
                    return _Split(before, value, after, final, rest)
        if _yields([statement]):
            return None
    return None


def _yielded(statement):
    """The value expression of a statement that is just ``yield [value]`` (None for a bare
    yield), else False."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Yield):
            if small.value.value is not None and isinstance(small.value.value, cst.From):
                return False  # `yield from`: not one value
            return small.value.value
    return False


def _yields(statements) -> bool:
    """Whether a yield is anywhere in these statements (not counting nested functions)."""
    return any(has_yield(statement) for statement in statements)
