"""Statements of the analysed program: assignment, control flow, definitions, imports."""

from __future__ import annotations

from staticflops.frontend import syntax as cst

from staticflops.diagnostics import AnalysisError, BudgetExceeded, Diagnostic
from staticflops.frontend import inert_branch, pyclasses
from staticflops.frontend.bindings import always_raises, bound_names
from staticflops.frontend.budget import CLOCK_EVERY
from staticflops.frontend.imports import all_members
from staticflops.frontend.opaque_ints import Touched
from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend.stdlib import typing_
from staticflops.frontend.values import (
    Class, Function, GenericAlias, Instance, LazyValue, MethodWrapper, Namespace, Tensor, Unknown, dotted_name,
)


def _names_attribute_error(node) -> bool:
    """An ``except`` clause's type written as ``AttributeError`` (alone or in a tuple)."""
    if isinstance(node, cst.Tuple):
        return any(_names_attribute_error(element.value) for element in node.elements)
    return isinstance(node, cst.Name) and node.value == "AttributeError"


class _Jump(Exception):
    """`return`/`break`/`continue` unwinding to their function or loop; ``node`` is the
    statement, for the message when none encloses it (Python's compiler rejects that)."""

    outside = ""

    def __init__(self, node):
        self.node = node


class _Return(_Jump):
    outside = "'return' outside function"

    def __init__(self, value, node=None):
        super().__init__(node)
        self.value = value


class _Break(_Jump):
    outside = "'break' outside loop"


class _Continue(_Jump):
    outside = "'continue' not properly in loop"


_PLAIN_TEST = (cst.Name, cst.Attribute, cst.Comparison, cst.ComparisonTarget, cst.BooleanOperation, cst.UnaryOperation,
               cst.BinaryOperation, cst.Integer, cst.Float, cst.SimpleString, cst.Subscript, cst.SubscriptElement,
               cst.Index)


def _plain_test(node) -> bool:
    """An expression of names, attributes, constants, subscripts and operators only (no call, no
    f-string, no lambda): what an assert is taken at its word for."""
    if node is None:
        return False
    stack = [node]
    while stack:
        item = stack.pop()
        if not isinstance(item, _PLAIN_TEST) and not _is_operator(item):
            return False
        stack.extend(item.children)
    return True


_OPERATOR_NODES = frozenset({
    "Equal", "NotEqual", "LessThan", "LessThanEqual", "GreaterThan", "GreaterThanEqual", "Is", "IsNot", "In",
    "NotIn", "And", "Or", "Not", "Minus", "Plus", "Add", "Subtract", "Multiply", "Divide", "FloorDivide",
    "Modulo", "Power"})


def _is_operator(node) -> bool:
    return type(node).__name__ in _OPERATOR_NODES


class Raised(AnalysisError):
    """A Python exception raised by the analysed code (an interpreted ``raise``, or one of the
    errors our builtins model, e.g. ``IndexError``): its ``try``/``except`` may catch it, and
    uncaught it is the located error it always was.  ``exception`` is the exception instance."""

    def __init__(self, message, location, code, exception):
        super().__init__(message, location, code)
        self.exception = exception


# Errors that end the analysis whatever the analysed code does: a spent budget, and what
# Python's compiler rejects (the file would not import at all).
_NEVER_SKIPPED = ("SF004",)


_AUGMENTED = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply, cst.BitOrAssign: cst.BitOr,
    cst.BitAndAssign: cst.BitAnd, cst.BitXorAssign: cst.BitXor, cst.LeftShiftAssign: cst.LeftShift,
    cst.RightShiftAssign: cst.RightShift,
}


_IN_PLACE = {cst.Add: "__iadd__", cst.Subtract: "__isub__", cst.Multiply: "__imul__", cst.BitOr: "__ior__"}
# Python's containers whose augmented assignment changes them in place, as the method that does it.
_UPDATING = {(list, cst.Add): "extend", (dict, cst.BitOr): "update", (set, cst.BitOr): "update",
             (set, cst.BitAnd): "intersection_update", (set, cst.Subtract): "difference_update",
             (set, cst.BitXor): "symmetric_difference_update"}


# Module-level statements whose assumed branch only matters through the names they bind.
_BINDS_ONLY = (cst.If, cst.SimpleStatementLine)
# Small statements that act by themselves (a call's side effect, a store into another object).
_ACTS = (cst.Expr, cst.AugAssign, cst.Del, cst.Global, cst.Nonlocal, cst.Raise, cst.Assert)


def _small_statements(statement):
    """The small statements of a simple line, or of every branch of an `if` (nested ones too);
    a loop, `with` or `try` inside counts as acting (yielded as a marker Expr)."""
    if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        yield from statement.body
    elif isinstance(statement, cst.If):
        yield from _block_statements(statement.body)
        if isinstance(statement.orelse, cst.If):
            yield from _small_statements(statement.orelse)
        elif statement.orelse is not None:
            yield from _block_statements(statement.orelse.body)
    elif not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        yield _ACTING


def _block_statements(block):
    if isinstance(block, cst.SimpleStatementSuite):
        yield from block.body
        return
    for child in block.body:
        yield from _small_statements(child)


_ACTING = cst.Expr()  # a marker: an Expr acts by itself


class _ReadReports(LazyValue):
    """A module-level name bound under an assumption: every read reports it (a read inside
    another deferred statement is held there, so the plain value is never cached).  Model
    selection looks for classes and builders among them (``assumed_value``)."""

    def __init__(self, load, value):
        super().__init__(load)
        self.assumed_value = value

    def force(self):
        return self.load()


def _name_targets(elements) -> tuple:
    """The names of an unpacking target made only of plain names (``pn, p``), else ()."""
    if all(type(e) is cst.Element and type(e.value) is cst.Name for e in elements):
        return tuple(e.value.value for e in elements)
    return ()


class Statements:
    """Mixed into :class:`Interpreter`: one ``_exec_<Node>`` method per statement kind."""

    def exec_block(self, statements, scope: Scope) -> None:
        for statement in statements:
            self.exec_statement(statement, scope)

    def exec_module_body(self, statements, scope: Scope) -> None:
        """A module's top level, statement by statement.  A statement we cannot follow (argparse,
        an environment probe, a loop over an unknown) does not stop the analysis: the names it
        would bind become unknowns that name the first cause, reported only if the model uses
        them.  When the model is built after the module level (``demand_driven``: PyTorch),
        what the statements report as unknown is held back for the same reason (values carry
        their reasons to where the model needs them), except assumed branches."""
        for statement in statements:
            if not self.demand_driven:  # Keras: the module level may be the model's construction
                self._tolerant(statement, scope)
                continue
            _, held = self.quietly(lambda statement=statement: self._tolerant(statement, scope))
            self._report_assumptions([report for report in held if report in self.assumptions], statement, scope)

    def _report_assumptions(self, held: list, statement, scope: Scope) -> None:
        """An `if` assumed true at the module level (or a statement reading a name such an `if`
        bound) matters only if the model uses what it bound: the assumption is reported when
        one of those names is first read (timm/data/transforms.py's PIL probe is never read by a
        model).  Statements that may act by their side effects alone (calls, item and attribute
        assignments, loops) report it at once."""
        if not held:  # most statements: nothing assumed (and no names to collect)
            return
        names = bound_names(statement) if isinstance(statement, _BINDS_ONLY) else []
        if not names or any(isinstance(small, _ACTS) for small in _small_statements(statement)):
            self.report_held(held)
            return
        for name in names:
            value = scope.vars.get(name, MISSING)
            if value is MISSING:
                continue

            def when_read(value=value):
                self.report_held(held)
                return value.force() if isinstance(value, LazyValue) else value
            scope.vars[name] = _ReadReports(when_read, value)

    def _tolerant(self, statement, scope: Scope, skip_raised: bool = True) -> None:
        try:
            self.exec_statement(statement, scope)
        except BudgetExceeded:
            raise
        except AnalysisError as error:
            if error.code in _NEVER_SKIPPED or (isinstance(error, Raised) and not skip_raised):
                raise
            cause = f"{error.location}: {error.message}" if error.location else error.message
            for name in bound_names(statement):
                scope.assign(name, Unknown(cause, error.location))
            self.note("SF130", f"statement skipped, the names it binds left unknown: {cause}",
                      self.location(statement))

    def note(self, code: str, message: str, where, severity: str = "info") -> None:
        """An assumption or a skipped statement, for the report's diagnostics (once per place)."""
        diagnostic = Diagnostic(severity, code, where, message)
        if diagnostic not in self.noted:  # a set: the same assumption is met thousands of times in a library
            self.noted.add(diagnostic)
            self.diagnostics.append(diagnostic)

    def exec_statement(self, node, scope: Scope) -> None:
        budget = self.budget
        steps = budget.steps + 1
        if steps > budget.max_steps or not steps & CLOCK_EVERY:
            budget.step(self, node)  # over the budget, or time to read the clock: the full check
        else:
            budget.steps = steps  # the common case of Budget.step, inline (once per statement)
        handler = self.statement_handlers.get(type(node))
        if handler is None:
            handler = self.statement_handlers[type(node)] = self.handler_for(type(node), "_exec_")
            if handler is None:
                self.unknown(f"statement `{type(node).__name__}` is not interpreted", node)
                return
        try:
            handler(node, scope)
        except MemoryError:  # past every estimate: still the statement's place, never a crash
            raise BudgetExceeded("out of memory in this statement (values too large? --max-value-bytes)",
                                 self.location(node)) from None
        except RecursionError:  # the expression nests deeper than the interpreter's stack
            raise BudgetExceeded("this statement nests too deeply to interpret (--max-expr-depth, --max-depth)",
                                 self.location(node)) from None

    def _body(self, block) -> list:
        return list(block.body)

    def _exec_SimpleStatementLine(self, node, scope):
        for small in node.body:
            self.exec_statement(small, scope)

    _exec_SimpleStatementSuite = _exec_SimpleStatementLine

    def _exec_IndentedBlock(self, node, scope):
        for statement in node.body:  # exec_block, inline (every loop turn and branch runs one)
            self.exec_statement(statement, scope)

    def _exec_Expr(self, node, scope):
        self.evaluate_node(node.value, scope)

    def _exec_Pass(self, node, scope):
        pass

    def _exec_Assert(self, node, scope):
        """Python raises AssertionError when the test is false.  Asserts guard what a model is
        given and never change a shape or a cost, so one is taken at its word only when its test
        is made of plain reads and comparisons (no call) and comes out a Python ``False``
        (``assert config.is_decoder``: the model cannot be built, as in Python).  Anything else
        (a call, an undecidable or tensor-valued test, an error while evaluating it) is passed
        over as before, and what evaluating it reported or traced is taken back: it decided
        nothing."""
        if not _plain_test(node.test):
            return
        marks = (len(self.unknowns), set(self._seen_unknowns), len(self.diagnostics), set(self.noted),
                 set(self.assumptions), len(self.framework.tracer.ops))
        try:
            verdict = self.evaluate_node(node.test, scope)
        except BudgetExceeded:
            raise
        except AnalysisError:
            verdict = None
        unknowns, seen, diagnostics, noted, assumptions, ops = marks
        del self.unknowns[unknowns:], self.diagnostics[diagnostics:], self.framework.tracer.ops[ops:]
        self._seen_unknowns, self.noted, self.assumptions = seen, noted, assumptions
        if verdict is not False:
            return
        message = self.evaluate_node(node.msg, scope) if _plain_test(node.msg) else None
        detail = f": {message}" if isinstance(message, str) else ""
        raise self.fail(f"the model raises an error here (an assert fails){detail}", node, code="SF111",
                        python="AssertionError")

    def _exec_Global(self, node, scope):
        if self.construction_memo.recorders:  # it writes outside itself (construction_memo.py)
            self.construction_memo.refuse("declares a global")
        scope.globals_declared = scope.globals_declared.union(n.name.value for n in node.names)

    def _exec_Nonlocal(self, node, scope):
        if self.construction_memo.recorders:
            self.construction_memo.refuse("declares a nonlocal")
        scope.nonlocals_declared = scope.nonlocals_declared.union(n.name.value for n in node.names)

    def _exec_Del(self, node, scope):
        targets = node.target.elements if isinstance(node.target, cst.Tuple) else [node.target]
        for target in targets:
            target = getattr(target, "value", target) if isinstance(node.target, cst.Tuple) else target
            if isinstance(target, cst.Name):
                scope.vars.pop(scope.mangle(target.value), None)
            elif isinstance(target, cst.Subscript):
                self.delete_item(self.evaluate_node(target.value, scope), self._subscript_key(target, scope), target)
            elif isinstance(target, cst.Attribute):
                self.delete_attribute(self.evaluate_node(target.value, scope), scope.mangle(target.attr.value), target)

    def _exec_Break(self, node, scope):
        raise _Break(node)

    def _exec_Continue(self, node, scope):
        raise _Continue(node)

    def _exec_Return(self, node, scope):
        raise _Return(None if node.value is None else self.evaluate_node(node.value, scope), node)

    def misplaced(self, jump: _Jump):
        """The error for a `return`/`break`/`continue` that nothing encloses."""
        return self.fail(f"syntax error: {jump.outside}", jump.node, code="SF004")

    def _exec_Raise(self, node, scope):
        # Reaching a `raise` means the analysed code rejects what it was given, unless a
        # `try` of its own catches the exception.
        if node.exc is None:  # a bare `raise` re-raises the exception being handled
            if self.handling:
                raise self.handling[-1]
            raise self.fail("the model raises an error here", node, code="SF111")
        exception = self.evaluate_node(node.exc, scope)
        if isinstance(exception, Class):
            exception = self.call(exception, [], {}, node.exc)
        if not isinstance(exception, Instance):  # an exception we cannot see: still an Exception
            exception = self._plain_exception(node.exc, scope)
        args = exception.attrs.get("args")
        message = args[0] if isinstance(args, tuple) and args and isinstance(args[0], str) else None
        if isinstance(args, tuple) and len(args) in (2, 3) and type(args[0]) is int and isinstance(args[1], str) \
                and exception.cls.is_subclass_of(self.builtins["OSError"]):
            # OSError(errno, strerror[, filename]): as CPython prints it
            message = f"[Errno {args[0]}] {args[1]}" + (f": {args[2]!r}" if len(args) == 3 else "")
        detail = f": {message}" if message is not None else ""
        raise Raised(f"the model raises an error here{detail}", self.location(node), "SF111", exception)

    def _plain_exception(self, expression, scope):
        """``Exception(message)`` for ``raise Unfollowed("message")``: its message kept."""
        message = None
        if isinstance(expression, cst.Call) and expression.args:
            message = self.evaluate_node(expression.args[0].value, scope)
        args = [message] if isinstance(message, str) else []
        return self.call(self.builtins["Exception"], args, {}, expression)

    def _exec_Assign(self, node, scope):
        value = self.evaluate_node(node.value, scope)
        for target in node.targets:
            self.assign(target.target, value, scope)

    def _exec_AnnAssign(self, node, scope):
        if scope.is_class and isinstance(node.target, cst.Name) and "__annotations__" in scope.vars:
            scope.vars["__annotations__"][node.target.value] = node.annotation
            scope.vars.setdefault("__annotation_scope__", scope)  # where inspect.get_annotations evaluates them
        if node.value is not None:
            self.assign(node.target, self.evaluate_node(node.value, scope), scope)

    def _exec_AugAssign(self, node, scope):
        current = self.evaluate_node(node.target, scope)
        operation = _AUGMENTED[type(node.operator)]
        operand = self.evaluate_node(node.value, scope)
        in_place = _IN_PLACE.get(operation)
        if isinstance(current, Instance) and in_place is not None and self._has_member(current.cls, in_place):
            # `x += y` calls x.__iadd__(y) when the class has one (nn.ModuleList extends itself)
            value = self.call(self.get_attribute(current, in_place, node), [operand], {}, node)
        elif (method := _UPDATING.get((type(current), operation))) is not None:
            # a list, dict or set changes in place: every other name for it sees the change
            self.call(self.get_attribute(current, method, node), [operand], {}, node)
            value = current
        else:
            value = self.binary(operation, current, operand, node)
            if type(current) is Tensor and isinstance(value, Tensor) and value.shape == current.shape and (
                    current.values is not None or current.progression is not None) and \
                    getattr(self.framework, "augmented_assignment_in_place", False):
                # torch's `t += y` writes into t: what another name for it knows follows
                current.values, current.progression = value.values, value.progression
                current.requires_grad = current.requires_grad or value.requires_grad
                value = current
        self.assign(node.target, value, scope)

    @staticmethod
    def _has_member(cls: Class, name: str) -> bool:
        try:
            cls.lookup(name)
        except KeyError:
            return False
        return True

    def _exec_If(self, node, scope):
        mark = len(self.unknowns)
        truth = self.truth(self.evaluate_node(node.test, scope), node.test)
        if type(truth) is bool:  # most tests: decided (no unknown to assume a branch for)
            branch = truth
        elif isinstance(truth, Unknown) and inert_branch.applies(self, node) and not always_raises(node.body):
            inert_branch.run(self, node, truth, scope, mark, _ReadReports)  # (runs the body; an assumption only if it acts)
            return
        else:
            branch = self.assume_branch(node, truth) if isinstance(truth, Unknown) else truth
        if branch and type(truth) is not bool and isinstance(truth, Unknown):
            self.exec_assumed(node, truth)(node.body, scope)
        elif branch:
            self.exec_statement(node.body, scope)
        elif node.orelse is not None:
            orelse = node.orelse
            if isinstance(orelse, cst.If):
                self._exec_If(orelse, scope)
            else:
                self.exec_statement(orelse.body, scope)

    def exec_assumed(self, node, truth: Unknown):
        """Run a branch taken on an undecidable test: an error inside it may only be the
        assumption's consequence, so its message names the test and the test's first cause."""
        def run(body, scope):
            try:
                self.exec_statement(body, scope)
            except BudgetExceeded:
                raise
            except AnalysisError as error:
                if getattr(error, "names_assumption", False):
                    raise  # an inner assumed branch named its own (the nearest) already
                cause = f"{truth.location}: {truth.reason}" if truth.location else truth.reason
                message = (f"{error.message} (in a branch taken on an assumption: the condition at "
                           f"{self.location(node.test)} could not be decided ({cause}))")
                # an exception of the analysed code stays one (a `try` around may catch it)
                named = (Raised(message, error.location, error.code, error.exception) if isinstance(error, Raised)
                         else AnalysisError(message, error.location, error.code))
                named.names_assumption = True
                raise named from None
        return run

    def assume_branch(self, node, truth: Unknown) -> bool:
        """The branch of an `if` whose test cannot be decided.  When exactly one side surely
        raises, the other is taken: the module imported and the model was built, so that
        `raise` did not happen.  Otherwise the test is assumed true, as before."""
        body_raises, else_raises = always_raises(node.body), always_raises(node.orelse)
        where = self.location(node.test)
        if body_raises != else_raises:
            taken = "false" if body_raises else "true"
            self.note("SF131", f"condition could not be decided ({truth.reason}); assumed {taken}, "
                               f"the other branch raises", where)
            return not body_raises
        self.unknown(f"condition could not be decided ({truth.reason}); assumed true", node.test, code="SF131")
        self.assumptions.add((where, f"condition could not be decided ({truth.reason}); assumed true"))
        self.note("SF131", f"condition could not be decided ({truth.reason}); assumed true", where, "warning")
        return True

    def _exec_For(self, node, scope):
        iterable = self.evaluate_node(node.iter, scope)
        runner = getattr(type(iterable), "run_for", None)
        if runner is not None:  # a data-dependent set that knows how to run a loop over it (torch/routing.py)
            return runner(iterable, self, node, scope)
        broke = False
        try:
            for item in self.iterate(iterable, node.iter):
                self.budget.loop(self, node)
                self.assign(node.target, item, scope)
                try:
                    self.exec_statement(node.body, scope)
                except _Break:
                    broke = True
                    break
                except _Continue:
                    continue
        except BudgetExceeded as error:
            self.budget.blame_loop(self, error, node)
            raise
        if not broke and node.orelse is not None:
            self.exec_statement(node.orelse.body, scope)

    def loop_turn(self, node, item, scope) -> bool:
        """One turn of a `for` body with its target bound to ``item``: True when it breaks."""
        self.budget.loop(self, node)
        self.assign(node.target, item, scope)
        try:
            self.exec_statement(node.body, scope)
        except _Break:
            return True
        except _Continue:
            pass
        return False

    def _exec_While(self, node, scope):
        assumed = [False]  # this run of the loop took a turn on an undecidable test
        try:
            while self._while_test(node, scope, assumed):
                self.budget.loop(self, node)
                try:
                    self.exec_statement(node.body, scope)
                except _Break:
                    return
                except _Continue:
                    continue
        except BudgetExceeded as error:
            self.budget.blame_loop(self, error, node)
            raise
        if node.orelse is not None:
            self.exec_statement(node.orelse.body, scope)

    def _while_test(self, node, scope, assumed: list) -> bool:
        """A `while` test; an undecidable one is assumed true for one turn, and if it is still
        undecidable after it, false: assumed true every time, a test on an unknown value (`while
        len(lines[i]) == 0:`) would turn until the step budget stopped the whole analysis.
        Both assumptions are reported (the totals say they are a lower bound)."""
        truth = self.truth(self.evaluate_node(node.test, scope), node.test)
        if not isinstance(truth, Unknown):
            return truth
        if assumed[0]:
            self.unknown(f"condition could not be decided ({truth.reason}) after an assumed turn; "
                         f"the loop ends (assumed false)", node.test)
            return False
        assumed[0] = True
        self.unknown(f"condition could not be decided ({truth.reason}); assumed true", node.test)
        return True

    def _exec_With(self, node, scope, index: int = 0):
        # As Python: a plain object's `__enter__` gives the `as` value and its `__exit__` runs
        # after the body; a true `__exit__` result swallows the body's exception
        # (`contextlib.suppress`).  Other values (torch.no_grad(), unknowns) just bind.
        if index == len(node.items):
            self.exec_statement(node.body, scope)
            return
        item = node.items[index]
        manager = self.evaluate_node(item.item, scope)
        enter = self.special_method(manager, "__enter__") if isinstance(manager, Instance) else None
        leave = self.special_method(manager, "__exit__") if enter is not None else None
        value = self.call(enter, [], {}, item.item) if enter is not None else manager
        if item.asname is not None:
            self.assign(item.asname.name, value, scope)
        if leave is None:
            with self.framework.with_block(manager):  # `with torch.device("meta"):` (else nothing)
                self._exec_With(node, scope, index + 1)
            return
        try:
            self._exec_With(node, scope, index + 1)
        except Raised as error:
            exception = error.exception
            swallowed = self.call(leave, [exception.cls, exception, None], {}, item.item)
            if self.truth(swallowed, item.item) is not True:
                raise
            return
        except _Jump:
            self.call(leave, [None, None, None], {}, item.item)
            raise
        self.call(leave, [None, None, None], {}, item.item)

    def _exec_Try(self, node, scope):
        # As Python: an exception of the analysed code (see `Raised`) goes to the first matching
        # `except`; `else` runs when none was raised, `finally` always.  An unknown is not an
        # exception: the body goes on with it, and the `except` blocks do not run.
        try:
            self._try_and_handle(node, scope)
        except (BudgetExceeded, Touched):
            raise  # a spent budget ends the analysis, a used placeholder the speculative run: no more code runs
        except BaseException:
            if node.finalbody is not None:
                self.exec_statement(node.finalbody.body, scope)
            raise
        if node.finalbody is not None:
            self.exec_statement(node.finalbody.body, scope)

    def _try_and_handle(self, node, scope):
        guarded = bool(node.handlers)
        # `except AttributeError:` written: the body expects a missing attribute to raise, as
        # Python's does (`operator.attrgetter("a.b")(model)` probing an optional attribute)
        probing = any(_names_attribute_error(handler.type) for handler in node.handlers)
        self.import_guards += guarded
        self.missing_attributes_raise += probing
        try:
            self.exec_statement(node.body, scope)
            caught = None
        except Raised as error:
            caught = error
        finally:
            self.import_guards -= guarded
            self.missing_attributes_raise -= probing
        if caught is None:
            if node.orelse is not None:
                self.exec_statement(node.orelse.body, scope)
            return
        handler = self._handler_for(node.handlers, caught.exception, scope)
        if handler is None:
            raise caught
        if handler.name is not None:
            self.assign(handler.name.name, caught.exception, scope)
        self.handling.append(caught)
        try:
            self.exec_statement(handler.body, scope)
        finally:
            self.handling.pop()

    def _handler_for(self, handlers, exception: Instance, scope):
        """The first `except` clause whose class (or tuple of classes) the exception is an
        instance of; a bare `except:` catches everything.  An unknown class matches nothing."""
        for handler in handlers:
            if handler.type is None:
                return handler
            kinds = self.evaluate_node(handler.type, scope)
            for kind in kinds if isinstance(kinds, tuple) else (kinds,):
                if isinstance(kind, Class) and exception.cls.is_subclass_of(kind):
                    return handler
        return None

    def _exec_FunctionDef(self, node, scope):
        function = Function(name=node.name.value, node=node, scope=scope, source=self.source,
                            defaults=self._defaults(node.params, scope), qualname=scope.qualified(node.name.value),
                            defining_class=scope.defining_class if scope.is_class else None)
        scope.assign(scope.mangle(node.name.value), self.decorate(function, node.decorators, scope))

    def decorate(self, value, decorators, scope):
        """Apply decorators bottom-up, as Python does: ``@a @b def f`` binds ``a(b(f))``.
        A decorator we cannot resolve (an unknown import, a call we do not model) leaves the
        function as written — the policy type checkers such as pyright follow for untyped
        decorators — and its reports are dropped: it would otherwise warn on every
        ``@torch.jit.script`` or third-party decorator the model never depends on.
        The same policy covers a decorator that returned the very object it was given, having
        set no attribute of it but its docstring, along a branch taken on an assumption
        (transformers' ``auto_docstring`` probing source files): the object stays as written
        and the assumption stays a warning of the report, not a doubt on every use of it."""
        for decorator in reversed(decorators):
            watch = [value, set()]
            self.decorating.append(watch)
            try:
                decorated, held = self.quietly(
                    lambda decorator=decorator: self._apply_decorator(decorator, value, scope))
            finally:
                self.decorating.pop()
            if not isinstance(decorated, Unknown):
                if decorated is value and watch[1] <= {"__doc__"}:
                    held = [report for report in held if report not in self.assumptions]
                self.report_held(held)
                value = decorated
        return value

    def _apply_decorator(self, decorator, value, scope):
        """One decorator's result; one that stops on something we do not follow (it iterates an
        unknown, or raises where Python did not: the module imported, so the decorator returned)
        is an unknown, so the object stays as written — library decorators that only write
        documentation (transformers' ``auto_docstring``) or validate their input fall here."""
        try:
            return self.call(self.evaluate_node(decorator.decorator, scope), [value], {}, decorator)
        except BudgetExceeded:
            raise
        except AnalysisError as error:
            if error.code in _NEVER_SKIPPED:
                raise
            return Unknown(error.message, error.location)

    def _defaults(self, params: cst.Parameters, scope: Scope) -> dict:
        defaults = {}
        for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
            if param.default is not None:
                defaults[param.name.value] = self.evaluate_node(param.default, scope)
        return defaults

    def _exec_ClassDef(self, node, scope):
        bases, held = [], []
        for arg in node.bases:
            # Reported only if the class is used: a file may define classes on top of
            # third-party ones (PIL's ImageDraw) next to the layers a model needs.
            base, reports = self.quietly(lambda arg=arg: self.evaluate_node(arg.value, scope))
            held += reports
            if isinstance(base, GenericAlias):  # class A(Generic[T]), class A(Dict[str, int]): its origin
                base = typing_.class_base(base)
            if isinstance(base, Class):
                bases.append(base)
            elif getattr(base, "base_class", None) is not None:  # class X(dict), class X(OrderedDict)
                bases.append(base.base_class)
            elif base is self.builtins.get("str"):  # class X(str, Enum): its members are strings
                bases.append(pyclasses.str_mixin(self.framework.object_class))
            elif not isinstance(base, Unknown):
                bases.append(self.framework.object_class)
            else:
                held.append((self.location(arg), f"base class of {node.name.value} is unknown ({base.reason})"))
        body_scope = scope.child(is_class=True)
        body_scope.class_name = node.name.value
        body_scope.qualname = scope.qualified(node.name.value)
        # every class derives from object (its __init__, and __init_subclass__ ending super() chains)
        cls = Class(node.name.value, tuple(bases) or (self.framework.object_class,), body_scope.vars, self.location(node))
        body_scope.defining_class = cls
        self.budget.check_class(self, cls, node)
        statements = node.body.body
        # as CPython: every class body binds __doc__ (None without a docstring: not inherited)
        body_scope.vars.update({"__qualname__": body_scope.qualname, "__module__": scope.module.vars.get("__name__"),
                                "__annotations__": {}, "__doc__": self._docstring(statements, body_scope)})
        if held:
            body_scope.vars["__held_reports__"] = held
        try:
            if pyclasses.is_enum(cls):
                pyclasses.exec_enum_body(self, cls, statements, body_scope)
            else:  # a class body is top-level code too: a statement we cannot follow is skipped,
                for statement in statements:  # an exception it raises propagates (a `try` may catch it)
                    self._tolerant(statement, body_scope, skip_raised=False)
        except _Jump as jump:  # a class body is neither a function nor a loop
            raise self.misplaced(jump) from None
        if any("__namedtuple__" in base.namespace for base in bases):
            names = list(body_scope.vars["__annotations__"])
            defaults = {n: body_scope.vars[n] for n in names if n in body_scope.vars}
            plain = tuple(b for b in bases if "__namedtuple__" not in b.namespace) or (self.framework.object_class,)
            cls = pyclasses.make_record_class(cls.name, names, defaults, plain, body_scope.vars)
            cls.location = self.location(node)
        for arg in node.keywords:
            if arg.keyword is not None and arg.keyword.value == "metaclass":
                cls.namespace["__metaclass__"] = self.evaluate_node(arg.value, scope)
        self._init_subclass(cls, node, scope)
        scope.assign(scope.mangle(node.name.value), self.decorate(cls, node.decorators, scope))

    def _docstring(self, statements, scope):
        """The string literal a body opens with, or None (an f-string is no docstring)."""
        first = statements[0] if statements else None
        if not isinstance(first, cst.SimpleStatementLine) or not isinstance(first.body[0], cst.Expr):
            return None
        if not isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            return None
        value = self.evaluate_node(first.body[0].value, scope)
        return value if isinstance(value, str) else None

    def _init_subclass(self, cls, node, scope) -> None:
        """``__init_subclass__`` of the nearest base defining it, called with the class keywords
        (``class A(Base, flag=True)``), an implicit classmethod as in CPython; ``metaclass=``
        is not passed on."""
        keywords = {arg.keyword.value: self.evaluate_node(arg.value, scope)
                    for arg in node.keywords if arg.keyword is not None and arg.keyword.value != "metaclass"}
        for base in cls.mro()[1:]:
            hook = base.namespace.get("__init_subclass__")
            if hook is None:
                continue
            hook = hook.function if isinstance(hook, MethodWrapper) else hook
            if isinstance(hook, Function):
                self.frames.append((base, cls))
                try:
                    self.call_function(hook, [cls], keywords, node)
                finally:
                    self.frames.pop()
            return

    def _exec_Import(self, node, scope):
        for alias in node.names:
            dotted = dotted_name(alias.name)
            if alias.asname is not None:
                name, wanted = alias.asname.name.value, dotted
            else:
                name = wanted = dotted.split(".")[0]
            self._bind_import(scope, name, lambda wanted=wanted: self.import_module(wanted, node))

    def _bind_import(self, scope, name, load) -> None:
        # Inside a `try` with handlers the import happens now, as in Python, so a module that
        # cannot be found raises ModuleNotFoundError there (see `import_module`).  Elsewhere,
        # and for a module that exists but is not followed, it is lazy: resolved, and
        # reported, only if the name is used.
        if self.import_guards:
            value, held = self.quietly(load)
            if not held:
                scope.assign(name, value)
                return
        deferred = self.deferred(load)
        deferred.imported = True  # a name an import binds (imports.complete_package forces these)
        scope.assign(name, deferred)

    def _exec_ImportFrom(self, node, scope):
        dotted = ("." * len(node.relative)) + (dotted_name(node.module) if node.module else "")
        if isinstance(node.names, cst.ImportStar):
            module = self.import_module(dotted, node)
            if isinstance(module, Namespace):
                for name, value in all_members(module).items():
                    scope.assign(name, value)
            return
        for alias in node.names:
            name = alias.name.value
            target = alias.asname.name.value if alias.asname is not None else name
            self._bind_import(scope, target, lambda name=name: self._imported_name(dotted, name, node))

    def _imported_name(self, dotted, name, node):
        module = self.import_module(dotted, node)
        return self.get_attribute(module, name, node) if not isinstance(module, Unknown) else module

    def assign(self, target, value, scope: Scope) -> None:
        if isinstance(target, cst.Name):
            scope.assign(scope.mangle(target.value), value)
        elif isinstance(target, cst.Attribute):
            receiver = self.evaluate_node(target.value, scope)
            self.set_attribute(receiver, scope.mangle(target.attr.value), value, target)
        elif isinstance(target, cst.Subscript):
            container = self.evaluate_node(target.value, scope)
            key = self._subscript_key(target, scope)
            self.set_item(container, key, value, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self._unpack(target.elements, value, scope, target)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, value, scope)
        else:
            self.unknown(f"assignment to `{type(target).__name__}` is not interpreted", target)

    def _unpack(self, elements, value, scope, node) -> None:
        if isinstance(value, Unknown):
            for element in elements:
                self.assign(element.value, value, scope)
            return
        if type(value) is tuple and len(value) == len(elements):  # `for name, p in pairs`: as below, without copies
            names = self.name_targets.get(node)
            if names is None:
                names = self.name_targets[node] = _name_targets(elements)
            if names:  # only names: bound as `assign` binds a name (once per turn of a loop)
                for name, item in zip(names, value):
                    scope.assign(name if not name.startswith("__") else scope.mangle(name), item)
                return
            if not any(isinstance(e, cst.StarredElement) for e in elements):
                for element, item in zip(elements, value):
                    self.assign(element.value, item, scope)
                return
        items = list(self.iterate(value, node))
        starred = [i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)]
        if starred:
            s = starred[0]
            after = len(elements) - s - 1
            if len(items) < len(elements) - 1:
                raise self.fail(f"cannot unpack {len(items)} values into {len(elements)} targets", node,
                                python="ValueError")
            groups = items[:s] + [list(items[s:len(items) - after])] + items[len(items) - after:]
        else:
            if len(items) != len(elements):
                raise self.fail(f"cannot unpack {len(items)} values into {len(elements)} targets", node, "SF301",
                                python="ValueError")
            groups = items
        for element, item in zip(elements, groups):
            self.assign(element.value, item, scope)
