"""An ``if`` whose test cannot be decided, and whose branch changes nothing that matters.

``if self.config.pad_token_id in input_ids[:, [-1, 0]]: logger.warning_once(...)``
(transformers' padding warning, in 21 models' forward) tests the values of the input, which
a static analysis does not have.  Taking the branch or not leads to the same model and the
same costs: the test is not an assumption the report depends on, and such a model's report
is complete.

How that is known, rather than guessed from names such as ``logger``: an ``if`` without
``else`` whose test is undecidable runs its body, as an assumed branch always did, but under
the construction memo's :class:`Recorder` in an effects-only watch mode.  Every write outside
the branch is one of its hooks: an attribute set on an object the branch did not create, on a
class, module or function; a ``global``/``nonlocal`` statement; a module built; an op traced
or a module called; a report (unknown, warning, assumption); an import; a builtin handed an
instance from outside or a tensor (``requires_grad_``, ``register_buffer``); a container from
outside (read through a name, an attribute or a default) that holds other objects at the end
than when it was first read (``items.append(x)``); a ``yield``.  Names the branch binds in the running
frame are the one write left: each keeps the value the branch gave it, and a later read of it
reports the test as assumed true (the report is then incomplete, as before; the module level
defers its assumptions the same way).

A branch that wrote nothing else ran exactly as skipping it would have, but for those names:
what evaluating its test reported is held back (it decided nothing) and an info note says
why; a later read of a name it bound reports both, and the note goes.  Otherwise, or when the
branch raised, left the frame (``return``, ``break``) or deleted a name, the test is reported
as assumed true, as before, in the place it had in the report.  Nothing is tried while a
construction or an apply call is being recorded (one recorder at a time).
"""

from __future__ import annotations

from staticflops.diagnostics import Diagnostic
from staticflops.frontend.construction_memo import Recorder
from staticflops.frontend.scope import MISSING
from staticflops.frontend.values import LazyValue, Unknown
from staticflops.frontend.watched_state import unchanged


def applies(interp, node) -> bool:
    """Whether the undecidable ``if`` at ``node`` may be tried as inert."""
    return node.orelse is None and not interp.construction_memo.recorders


def run(interp, node, truth: Unknown, scope, mark: int, deferred) -> None:
    """Run the body of ``node`` (an ``if`` without ``else`` whose test gave ``truth``),
    deciding whether its test was an assumption; ``mark``: how many unknowns were reported
    before the test was evaluated; ``deferred(load, value)``: a binding whose reads call
    ``load`` (statements._ReadReports)."""
    # What evaluating the test reported is held back, as if it had been evaluated `quietly`:
    # it matters only if the branch does.
    held = interp.hold_back(mark)
    recorder = Recorder(effects_only=True)
    bound = dict(scope.vars)
    yielded = len(interp.generators[-1]) if interp.generators else 0
    at = (len(interp.unknowns), len(interp.diagnostics))
    try:
        interp.construction_memo.recorded(interp, recorder,
                                          lambda: interp.exec_assumed(node, truth)(node.body, scope))
    except BaseException:
        _assumed(interp, node, truth, at, held)
        raise
    if recorder.refused is None and any(not unchanged(container, shot) for container, shot in recorder.watched.values()):
        recorder.refused = "changed a container from outside"
    if interp.generators and len(interp.generators[-1]) != yielded:
        recorder.refused = "yielded"  # what the generator gives depends on the branch
    if recorder.refused is not None or any(name not in scope.vars for name in bound):  # (`del name`)
        _assumed(interp, node, truth, at, held)
        return
    where = interp.location(node.test)
    note = Diagnostic("info", "SF131", where, f"condition could not be decided ({truth.reason}); the branch changes "
                                              f"nothing outside itself, so taking it or not gives the same model")
    if note not in interp.noted:
        interp.noted.add(note)
        interp.diagnostics.append(note)
    reported = []

    def report() -> None:
        """A name the branch bound is read: the test was an assumption after all."""
        if not reported:
            reported.append(True)
            if note in interp.diagnostics:
                interp.diagnostics.remove(note)
                interp.noted.discard(note)
            interp.report_held(held)
            interp.assume_branch(node, truth)

    for name, value in list(scope.vars.items()):
        if bound.get(name, MISSING) is not value:
            scope.vars[name] = deferred(lambda value=value: report() or _plain(value), value)


def _plain(value):
    return value.force() if isinstance(value, LazyValue) else value


def _assumed(interp, node, truth: Unknown, at: tuple, held: list) -> None:
    """Report the test as assumed true (and what evaluating it reported) where it would have
    been reported before the branch ran."""
    unknowns, diagnostics = at
    ran_unknowns, ran_diagnostics = interp.unknowns[unknowns:], interp.diagnostics[diagnostics:]
    del interp.unknowns[unknowns:], interp.diagnostics[diagnostics:]
    interp.report_held(held)
    interp.assume_branch(node, truth)
    interp.unknowns.extend(ran_unknowns)
    interp.diagnostics.extend(ran_diagnostics)
