"""Statements of the analysed program: assignment, control flow, definitions, imports."""

from __future__ import annotations

import libcst as cst

from staticflops.diagnostics import BudgetExceeded
from staticflops.frontend import pyclasses
from staticflops.frontend.imports import all_members
from staticflops.frontend.scope import Scope
from staticflops.frontend.values import Class, Function, Namespace, Unknown, dotted_name


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


_AUGMENTED = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply, cst.BitOrAssign: cst.BitOr,
    cst.BitAndAssign: cst.BitAnd, cst.BitXorAssign: cst.BitXor, cst.LeftShiftAssign: cst.LeftShift,
    cst.RightShiftAssign: cst.RightShift,
}


class Statements:
    """Mixed into :class:`Interpreter`: one ``_exec_<Node>`` method per statement kind."""

    def exec_block(self, statements, scope: Scope) -> None:
        for statement in statements:
            self.exec_statement(statement, scope)

    def exec_statement(self, node, scope: Scope) -> None:
        self.budget.step(self, node)
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
        self.exec_block(node.body, scope)

    def _exec_Expr(self, node, scope):
        self.evaluate_node(node.value, scope)

    def _exec_Pass(self, node, scope):
        pass

    def _exec_Assert(self, node, scope):
        pass  # asserts guard inputs; they never change shapes or cost

    def _exec_Global(self, node, scope):
        scope.globals_declared.update(n.name.value for n in node.names)

    def _exec_Nonlocal(self, node, scope):
        scope.nonlocals_declared.update(n.name.value for n in node.names)

    def _exec_Del(self, node, scope):
        target = node.target
        if isinstance(target, cst.Name):
            scope.vars.pop(target.value, None)

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
        # Reaching a `raise` means the model's own checks reject the arguments.
        detail = ""
        if node.exc is not None:
            exc = node.exc
            if isinstance(exc, cst.Call) and exc.args:
                message = self.evaluate_node(exc.args[0].value, scope)
                if isinstance(message, str):
                    detail = f": {message}"
        raise self.fail(f"the model raises an error here{detail}", node, code="SF111")

    def _exec_Assign(self, node, scope):
        value = self.evaluate_node(node.value, scope)
        for target in node.targets:
            self.assign(target.target, value, scope)

    def _exec_AnnAssign(self, node, scope):
        if scope.is_class and isinstance(node.target, cst.Name) and "__annotations__" in scope.vars:
            scope.vars["__annotations__"][node.target.value] = node.annotation
        if node.value is not None:
            self.assign(node.target, self.evaluate_node(node.value, scope), scope)

    def _exec_AugAssign(self, node, scope):
        current = self.evaluate_node(node.target, scope)
        operation = _AUGMENTED[type(node.operator)]
        value = self.binary(operation, current, self.evaluate_node(node.value, scope), node)
        self.assign(node.target, value, scope)

    def _exec_If(self, node, scope):
        branch = self.decide(node.test, scope)
        if branch:
            self.exec_statement(node.body, scope)
        elif node.orelse is not None:
            orelse = node.orelse
            if isinstance(orelse, cst.If):
                self._exec_If(orelse, scope)
            else:
                self.exec_statement(orelse.body, scope)

    def _exec_For(self, node, scope):
        iterable = self.evaluate_node(node.iter, scope)
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

    def _exec_While(self, node, scope):
        try:
            while self.decide(node.test, scope):
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

    def _exec_With(self, node, scope):
        for item in node.items:
            value = self.evaluate_node(item.item, scope)
            if item.asname is not None:
                self.assign(item.asname.name, value, scope)
        self.exec_statement(node.body, scope)

    def _exec_Try(self, node, scope):
        # The analysed code's error paths are not followed: we take the `try` body
        # (our own errors are not Python exceptions of theirs), then `else`/`finally`.
        self.exec_statement(node.body, scope)
        if node.orelse is not None:
            self.exec_statement(node.orelse.body, scope)
        if node.finalbody is not None:
            self.exec_statement(node.finalbody.body, scope)

    def _exec_FunctionDef(self, node, scope):
        decorators = []
        for decorator in node.decorators:
            expression = decorator.decorator
            name = dotted_name(expression.func if isinstance(expression, cst.Call) else expression)
            decorators.append(name.rsplit(".", 1)[-1] if name else "?")
        function = Function(
            name=node.name.value, node=node, scope=scope, source=self.source,
            defaults=self._defaults(node.params, scope), decorators=tuple(decorators),
        )
        scope.assign(node.name.value, function)

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
            if isinstance(base, Class):
                bases.append(base)
            elif not isinstance(base, Unknown):
                bases.append(self.framework.object_class)
            else:
                held.append((self.location(arg), f"base class of {node.name.value} is unknown ({base.reason})"))
        body_scope = scope.child(is_class=True)
        cls = Class(node.name.value, tuple(bases), body_scope.vars, self.location(node))
        self.budget.check_class(self, cls, node)
        body_scope.vars.update({"__qualname__": node.name.value, "__module__": scope.module.vars.get("__name__"),
                                "__annotations__": {}})
        if held:
            body_scope.vars["__held_reports__"] = held
        statements = node.body.body
        try:
            if pyclasses.is_enum(cls):
                pyclasses.exec_enum_body(self, cls, statements, body_scope)
            else:
                self.exec_block(statements, body_scope)
        except _Jump as jump:  # a class body is neither a function nor a loop
            raise self.misplaced(jump) from None
        if any("__namedtuple__" in base.namespace for base in bases):
            names = list(body_scope.vars["__annotations__"])
            defaults = {n: body_scope.vars[n] for n in names if n in body_scope.vars}
            plain = tuple(b for b in bases if "__namedtuple__" not in b.namespace) or (self.framework.object_class,)
            cls = pyclasses.make_record_class(cls.name, names, defaults, plain, body_scope.vars)
            cls.location = self.location(node)
        for decorator in reversed(node.decorators):
            expression = decorator.decorator
            name = dotted_name(expression.func if isinstance(expression, cst.Call) else expression)
            if name.rsplit(".", 1)[-1] == "dataclass":  # other class decorators only register or document
                cls = self.call(self.evaluate_node(expression, scope), [cls], {}, decorator)
        scope.assign(node.name.value, cls)

    def _exec_Import(self, node, scope):
        for alias in node.names:
            dotted = dotted_name(alias.name)
            if alias.asname is not None:
                name, wanted = alias.asname.name.value, dotted
            else:
                name = wanted = dotted.split(".")[0]
            scope.assign(name, self.deferred(lambda wanted=wanted: self.import_module(wanted, node)))

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
            scope.assign(target, self.deferred(lambda name=name: self._imported_name(dotted, name, node)))

    def _imported_name(self, dotted, name, node):
        module = self.import_module(dotted, node)
        return self.get_attribute(module, name, node) if not isinstance(module, Unknown) else module

    def assign(self, target, value, scope: Scope) -> None:
        if isinstance(target, cst.Name):
            scope.assign(target.value, value)
        elif isinstance(target, cst.Attribute):
            receiver = self.evaluate_node(target.value, scope)
            self.set_attribute(receiver, target.attr.value, value, target)
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
        items = list(self.iterate(value, node))
        starred = [i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)]
        if starred:
            s = starred[0]
            after = len(elements) - s - 1
            if len(items) < len(elements) - 1:
                raise self.fail(f"cannot unpack {len(items)} values into {len(elements)} targets", node)
            groups = items[:s] + [list(items[s:len(items) - after])] + items[len(items) - after:]
        else:
            if len(items) != len(elements):
                raise self.fail(f"cannot unpack {len(items)} values into {len(elements)} targets", node, "SF301")
            groups = items
        for element, item in zip(elements, groups):
            self.assign(element.value, item, scope)
