"""A small, safe abstract interpreter over libcst syntax trees.

It evaluates the analysed program's module level, ``__init__`` and ``forward`` with our own
value model (``values.py``): nothing of the analysed code is ever imported, compiled or run
by Python.  Framework behaviour (tensors, layers) is supplied by a *framework model*
(``frontend/torch``); this file knows only Python.  Whatever cannot be known becomes an
``Unknown`` that is reported with its location, never a silent zero.
"""

from __future__ import annotations

import operator
from fractions import Fraction

import libcst as cst

from staticflops.diagnostics import AnalysisError, Location
from staticflops.frontend.budget import Budget
from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend.source import SourceFile
from staticflops.frontend.values import (
    BoundMethod, Builtin, CannotKnow, Class, Function, Instance, Namespace, Partial, SuperProxy, Tensor, Unknown,
)
from staticflops.shapes import Expr, Undecidable


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_BINARY = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
    cst.Power: operator.pow, cst.MatrixMultiply: operator.matmul, cst.BitOr: operator.or_,
    cst.BitAnd: operator.and_, cst.BitXor: operator.xor, cst.LeftShift: operator.lshift,
    cst.RightShift: operator.rshift,
}
_AUGMENTED = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply, cst.BitOrAssign: cst.BitOr,
    cst.BitAndAssign: cst.BitAnd, cst.BitXorAssign: cst.BitXor, cst.LeftShiftAssign: cst.LeftShift,
    cst.RightShiftAssign: cst.RightShift,
}
_COMPARE = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
    cst.Is: operator.is_, cst.IsNot: operator.is_not,
}
_SAFE_PLAIN = (int, float, Fraction, str, bool, type(None), tuple, list, dict, set, frozenset, range, Expr, slice)


class Interpreter:
    def __init__(self, framework, budget: Budget | None = None):
        self.framework = framework  # tensors, layers and the namespaces of torch/keras
        self.budget = budget or Budget()
        self.builtins: dict = {}
        self.unknowns: list[tuple[Location, str]] = []
        self._seen_unknowns: set = set()
        self.diagnostics: list = []
        self.source: SourceFile | None = None  # file whose code is running now
        self.frames: list = []  # (defining class, receiver) of running methods, for super()
        self.anchor: Location | None = None  # user call site while our stub code runs

    # ---- reporting -------------------------------------------------------------
    def location(self, node) -> Location:
        if self.source is None:
            return Location("<unknown>", 1, 1)
        if self.source.internal:
            return self.anchor or Location("<unknown>", 1, 1)
        return self.source.location(node)

    def unknown(self, reason: str, node=None, location: Location | None = None) -> Unknown:
        where = location or self.location(node)
        key = (where, reason)
        if key not in self._seen_unknowns:
            self._seen_unknowns.add(key)
            self.unknowns.append((where, reason))
        return Unknown(reason, where)

    def fail(self, message: str, node, code: str = "SF110") -> AnalysisError:
        return AnalysisError(message, self.location(node), code)

    # ---- modules -----------------------------------------------------------------
    def run_module(self, source: SourceFile) -> Scope:
        scope = Scope()
        scope.vars["__name__"] = "__analysed__"
        previous, self.source = self.source, source
        try:
            self.exec_block(source.module.body, scope)
        finally:
            self.source = previous
        return scope

    # ---- statements ----------------------------------------------------------------
    def exec_block(self, statements, scope: Scope) -> None:
        for statement in statements:
            self.exec_statement(statement, scope)

    def exec_statement(self, node, scope: Scope) -> None:
        self.budget.step(self, node)
        handler = getattr(self, "_exec_" + type(node).__name__, None)
        if handler is None:
            self.unknown(f"statement `{type(node).__name__}` is not interpreted", node)
            return
        handler(node, scope)

    def _body(self, block) -> list:
        return list(block.body)

    def _exec_SimpleStatementLine(self, node, scope):
        for small in node.body:
            self.exec_statement(small, scope)

    _exec_SimpleStatementSuite = _exec_SimpleStatementLine

    def _exec_IndentedBlock(self, node, scope):
        self.exec_block(node.body, scope)

    def _exec_Expr(self, node, scope):
        self.eval(node.value, scope)

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
        raise _Break()

    def _exec_Continue(self, node, scope):
        raise _Continue()

    def _exec_Return(self, node, scope):
        raise _Return(None if node.value is None else self.eval(node.value, scope))

    def _exec_Raise(self, node, scope):
        # Reaching a `raise` means the model's own checks reject the arguments.
        detail = ""
        if node.exc is not None:
            exc = node.exc
            if isinstance(exc, cst.Call) and exc.args:
                message = self.eval(exc.args[0].value, scope)
                if isinstance(message, str):
                    detail = f": {message}"
        raise self.fail(f"the model raises an error here{detail}", node, code="SF111")

    def _exec_Assign(self, node, scope):
        value = self.eval(node.value, scope)
        for target in node.targets:
            self.assign(target.target, value, scope)

    def _exec_AnnAssign(self, node, scope):
        if node.value is not None:
            self.assign(node.target, self.eval(node.value, scope), scope)

    def _exec_AugAssign(self, node, scope):
        current = self.eval(node.target, scope)
        operation = _AUGMENTED[type(node.operator)]
        value = self.binary(operation, current, self.eval(node.value, scope), node)
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
        iterable = self.eval(node.iter, scope)
        broke = False
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
        if not broke and node.orelse is not None:
            self.exec_statement(node.orelse.body, scope)

    def _exec_While(self, node, scope):
        while self.decide(node.test, scope):
            self.budget.loop(self, node)
            try:
                self.exec_statement(node.body, scope)
            except _Break:
                return
            except _Continue:
                continue
        if node.orelse is not None:
            self.exec_statement(node.orelse.body, scope)

    def _exec_With(self, node, scope):
        for item in node.items:
            value = self.eval(item.item, scope)
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
            name = _dotted_name(expression.func if isinstance(expression, cst.Call) else expression)
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
                defaults[param.name.value] = self.eval(param.default, scope)
        return defaults

    def _exec_ClassDef(self, node, scope):
        bases = []
        for arg in node.bases:
            base = self.eval(arg.value, scope)
            if isinstance(base, Class):
                bases.append(base)
            elif not isinstance(base, Unknown):
                bases.append(self.framework.object_class)
        body_scope = scope.child(is_class=True)
        cls = Class(node.name.value, tuple(bases), body_scope.vars, self.location(node))
        body_scope.vars["__qualname__"] = node.name.value
        self.exec_statement(node.body, body_scope)
        scope.assign(node.name.value, cls)

    def _exec_Import(self, node, scope):
        for alias in node.names:
            dotted = _dotted_name(alias.name)
            if alias.asname is not None:
                scope.assign(alias.asname.name.value, self.framework.import_module(self, dotted, node))
            else:
                top = dotted.split(".")[0]
                scope.assign(top, self.framework.import_module(self, top, node))

    def _exec_ImportFrom(self, node, scope):
        dotted = ("." * len(node.relative)) + (_dotted_name(node.module) if node.module else "")
        module = self.framework.import_module(self, dotted, node)
        if isinstance(node.names, cst.ImportStar):
            if isinstance(module, Namespace):
                for name, value in module.members.items():
                    if not name.startswith("_"):
                        scope.assign(name, value)
            return
        for alias in node.names:
            name = alias.name.value
            value = self.get_attribute(module, name, node) if not isinstance(module, Unknown) else module
            target = alias.asname.name.value if alias.asname is not None else name
            scope.assign(target, value)

    # ---- assignment ----------------------------------------------------------------
    def assign(self, target, value, scope: Scope) -> None:
        if isinstance(target, cst.Name):
            scope.assign(target.value, value)
        elif isinstance(target, cst.Attribute):
            receiver = self.eval(target.value, scope)
            self.set_attribute(receiver, target.attr.value, value, target)
        elif isinstance(target, cst.Subscript):
            container = self.eval(target.value, scope)
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

    def set_attribute(self, receiver, name: str, value, node) -> None:
        if isinstance(receiver, Instance):
            try:
                hook = receiver.cls.lookup("__setattr__")
            except KeyError:
                hook = None
            if isinstance(hook, Builtin):
                hook.fn(self, [receiver, name, value], {}, node)
            else:
                receiver.attrs[name] = value
        elif isinstance(receiver, (Class, Namespace)):
            (receiver.namespace if isinstance(receiver, Class) else receiver.members)[name] = value
        elif isinstance(receiver, Function):
            pass  # function attributes never matter for cost
        elif isinstance(receiver, Tensor):
            self.framework.tensor_set_attribute(self, receiver, name, value, node)
        elif not isinstance(receiver, Unknown):
            self.unknown(f"cannot set attribute `{name}` on {_describe(receiver)}", node)

    def set_item(self, container, key, value, node) -> None:
        if isinstance(container, (list, dict)):
            try:
                container[key] = value
            except (TypeError, IndexError, KeyError):
                self.unknown("item assignment could not be followed", node)
        elif isinstance(container, Instance) and container.module is not None:
            self.framework.module_set_item(self, container, key, value, node)
        elif isinstance(container, Tensor):
            pass  # in-place writes keep the shape
        elif not isinstance(container, Unknown):
            self.unknown(f"item assignment on {_describe(container)} is not interpreted", node)

    # ---- expressions ---------------------------------------------------------------
    def eval(self, node, scope: Scope):
        handler = getattr(self, "_eval_" + type(node).__name__, None)
        if handler is None:
            return self.unknown(f"expression `{type(node).__name__}` is not interpreted", node)
        return handler(node, scope)

    def _eval_Name(self, node, scope):
        value = scope.lookup(node.value, self.builtins)
        if value is MISSING:
            return self.unknown(f"name `{node.value}` is not defined", node)
        return value

    def _eval_Integer(self, node, scope):
        return node.evaluated_value

    def _eval_Float(self, node, scope):
        return node.evaluated_value

    def _eval_SimpleString(self, node, scope):
        return node.evaluated_value

    def _eval_ConcatenatedString(self, node, scope):
        left, right = self.eval(node.left, scope), self.eval(node.right, scope)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        return left if isinstance(left, Unknown) else right

    def _eval_FormattedString(self, node, scope):
        pieces = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                pieces.append(part.value)
            else:
                value = self.eval(part.expression, scope)
                if isinstance(value, Unknown):
                    return value
                pieces.append(str(value))
        return "".join(pieces)

    def _eval_Ellipsis(self, node, scope):
        return Ellipsis

    def _eval_Tuple(self, node, scope):
        return tuple(self._elements(node.elements, scope))

    def _eval_List(self, node, scope):
        return self.budget.container(self, self._elements(node.elements, scope), node)

    def _eval_Set(self, node, scope):
        items = self._elements(node.elements, scope)
        try:
            return set(items)
        except TypeError:
            return list(items)

    def _elements(self, elements, scope) -> list:
        items = []
        for element in elements:
            value = self.eval(element.value, scope)
            if isinstance(element, cst.StarredElement):
                items.extend(self.iterate(value, element))
            else:
                items.append(value)
        return items

    def _eval_Dict(self, node, scope):
        result = {}
        for element in node.elements:
            if isinstance(element, cst.StarredDictElement):
                value = self.eval(element.value, scope)
                if isinstance(value, dict):
                    result.update(value)
                continue
            key = self.eval(element.key, scope)
            try:
                result[key] = self.eval(element.value, scope)
            except TypeError:
                return self.unknown("dictionary key cannot be used", element.key)
        return result

    def _eval_Attribute(self, node, scope):
        receiver = self.eval(node.value, scope)
        return self.get_attribute(receiver, node.attr.value, node)

    def _eval_Subscript(self, node, scope):
        container = self.eval(node.value, scope)
        key = self._subscript_key(node, scope)
        return self.get_item(container, key, node)

    def _subscript_key(self, node, scope):
        keys = []
        for element in node.slice:
            piece = element.slice
            if isinstance(piece, cst.Slice):
                parts = [None if p is None else self.eval(p, scope) for p in (piece.lower, piece.upper, piece.step)]
                keys.append(slice(*parts))
            else:
                keys.append(self.eval(piece.value, scope))
        return keys[0] if len(keys) == 1 else tuple(keys)

    def _eval_BinaryOperation(self, node, scope):
        left = self.eval(node.left, scope)
        right = self.eval(node.right, scope)
        return self.binary(type(node.operator), left, right, node)

    def _eval_UnaryOperation(self, node, scope):
        value = self.eval(node.expression, scope)
        op = type(node.operator)
        if op is cst.Not:
            truth = self.truth(value, node)
            return truth if isinstance(truth, Unknown) else not truth
        if isinstance(value, Unknown):
            return value
        if isinstance(value, Tensor):
            return self.framework.tensor_unary(self, op.__name__.lower(), value, node)
        try:
            return {cst.Minus: operator.neg, cst.Plus: operator.pos, cst.BitInvert: operator.invert}[op](value)
        except TypeError:
            return self.unknown(f"unary operator on {_describe(value)}", node)

    def _eval_BooleanOperation(self, node, scope):
        left = self.eval(node.left, scope)
        truth = self.truth(left, node.left)
        if isinstance(truth, Unknown):
            return truth
        if isinstance(node.operator, cst.And):
            return self.eval(node.right, scope) if truth else left
        return left if truth else self.eval(node.right, scope)

    def _eval_Comparison(self, node, scope):
        left = self.eval(node.left, scope)
        for target in node.comparisons:
            right = self.eval(target.comparator, scope)
            result = self.compare(type(target.operator), left, right, target)
            if isinstance(result, Unknown) or isinstance(result, Tensor) or not result:
                return result
            left = right
        return True

    def _eval_IfExp(self, node, scope):
        truth = self.decide(node.test, scope)
        return self.eval(node.body if truth else node.orelse, scope)

    def _eval_NamedExpr(self, node, scope):
        value = self.eval(node.value, scope)
        self.assign(node.target, value, scope)
        return value

    def _eval_Lambda(self, node, scope):
        return Function("<lambda>", node, scope, self.source, self._defaults(node.params, scope))

    def _eval_Call(self, node, scope):
        function = self.eval(node.func, scope)
        args, kwargs = [], {}
        for arg in node.args:
            value = self.eval(arg.value, scope)
            if arg.star == "*":
                if isinstance(value, Unknown):
                    return value
                args.extend(self.iterate(value, arg))
            elif arg.star == "**":
                if isinstance(value, dict):
                    kwargs.update(value)
                elif isinstance(value, Unknown):
                    return value
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        return self.call(function, args, kwargs, node)

    # comprehensions
    def _comprehension(self, for_in, scope, produce) -> None:
        inner = scope.child()

        def walk(clause):
            for item in self.iterate(self.eval(clause.iter, inner), clause.iter):
                self.budget.loop(self, clause)
                self.assign(clause.target, item, inner)
                if all(self.decide(condition.test, inner) for condition in clause.ifs):
                    if clause.inner_for_in is not None:
                        walk(clause.inner_for_in)
                    else:
                        produce(inner)

        walk(for_in)

    def _eval_ListComp(self, node, scope):
        items: list = []
        self._comprehension(node.for_in, scope, lambda s: items.append(self.eval(node.elt, s)))
        return self.budget.container(self, items, node)

    def _eval_GeneratorExp(self, node, scope):
        return self._eval_ListComp(node, scope)

    def _eval_SetComp(self, node, scope):
        items = self._eval_ListComp(node, scope)
        try:
            return set(items)
        except TypeError:
            return items

    def _eval_DictComp(self, node, scope):
        result: dict = {}
        self._comprehension(
            node.for_in, scope,
            lambda s: result.__setitem__(self.eval(node.key, s), self.eval(node.value, s)),
        )
        return result

    # ---- operations on values ----------------------------------------------------------
    def binary(self, op_class, left, right, node):
        if isinstance(left, Unknown):
            return left
        if isinstance(right, Unknown):
            return right
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            return self.framework.tensor_binary(self, op_class.__name__, left, right, node)
        if isinstance(left, Instance) or isinstance(right, Instance):
            return self.framework.instance_binary(self, op_class.__name__, left, right, node)
        if op_class is cst.Power and isinstance(right, int) and abs(right) > 4096 and left not in (0, 1, -1):
            self.budget.refuse(self, "integer power too large", node)
        if op_class is cst.Multiply:
            self.budget.check_repeat(self, left, right, node)
        try:
            return _BINARY[op_class](left, right)
        except ZeroDivisionError:
            raise self.fail("division by zero", node) from None
        except (TypeError, ValueError, Undecidable, OverflowError):
            return self.unknown(f"`{op_class.__name__}` of {_describe(left)} and {_describe(right)}", node)

    def compare(self, op_class, left, right, node):
        if op_class in (cst.Is, cst.IsNot):
            same = left is right or (left is None and right is None)
            return same if op_class is cst.Is else not same
        if isinstance(left, Unknown):
            return left
        if isinstance(right, Unknown):
            return right
        if op_class in (cst.In, cst.NotIn):
            try:
                found = left in right if not isinstance(right, Namespace) else left in right.members
            except (TypeError, Undecidable):
                return self.unknown("membership test could not be decided", node)
            return found if op_class is cst.In else not found
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            return self.framework.tensor_binary(self, "Compare", left, right, node)
        try:
            return _COMPARE[op_class](left, right)
        except Undecidable as error:
            return self.unknown(str(error), node)
        except TypeError:
            return self.unknown(f"comparison of {_describe(left)} and {_describe(right)}", node)

    def truth(self, value, node):
        if isinstance(value, Unknown):
            return value
        if isinstance(value, (Tensor, Class, Function, Builtin, BoundMethod, Namespace, Partial)):
            return True
        if isinstance(value, Instance):
            return self.framework.instance_truth(self, value, node)
        try:
            return bool(value)
        except Undecidable as error:
            return self.unknown(str(error), node)

    def decide(self, test, scope) -> bool:
        """Truth of a condition; an unknown one is reported and taken as true."""
        truth = self.truth(self.eval(test, scope), test)
        if isinstance(truth, Unknown):
            self.unknown(f"condition could not be decided ({truth.reason}); assumed true", test)
            return True
        return truth

    def iterate(self, value, node):
        if isinstance(value, (list, tuple, str, dict, set, frozenset)):
            return iter(list(value))
        if isinstance(value, range):
            return self.budget.bounded_range(self, value, node)
        if isinstance(value, Instance):
            return iter(self.framework.instance_iter(self, value, node))
        if isinstance(value, Tensor):
            return iter(self.framework.tensor_iter(self, value, node))
        if isinstance(value, Unknown):
            raise self.fail(f"cannot iterate over an unknown value ({value.reason})", node, "SF112")
        raise self.fail(f"cannot iterate over {_describe(value)}", node, "SF112")

    def get_item(self, container, key, node):
        if isinstance(container, Unknown):
            return container
        if isinstance(key, Unknown):
            return key
        if isinstance(container, Tensor):
            return self.framework.tensor_getitem(self, container, key, node)
        if isinstance(container, Instance):
            return self.framework.instance_getitem(self, container, key, node)
        if isinstance(container, Class):
            return container  # typing generics: Optional[X], List[int]
        if isinstance(container, Namespace):
            return container
        try:
            return container[key]
        except (IndexError, KeyError) as error:
            raise self.fail(f"index {_show(key)} is out of range for {_describe(container)}", node, "SF113") from error
        except (TypeError, Undecidable):
            return self.unknown(f"indexing {_describe(container)} with {_show(key)}", node)

    def get_attribute(self, receiver, name: str, node):
        if isinstance(receiver, Unknown):
            return receiver
        if isinstance(receiver, Instance):
            if name in receiver.attrs:
                return receiver.attrs[name]
            try:
                member, owner = receiver.cls.lookup_owner(name)
            except KeyError:
                return self.framework.instance_missing_attribute(self, receiver, name, node)
            return self._bind(receiver, member, owner, node)
        if isinstance(receiver, Class):
            try:
                member, owner = receiver.lookup_owner(name)
            except KeyError:
                if name == "__name__":
                    return receiver.name
                return self.unknown(f"class {receiver.name} has no attribute `{name}`", node)
            if isinstance(member, Function) and member.is_classmethod:
                return BoundMethod(receiver, member, owner)
            return member
        if isinstance(receiver, Namespace):
            if name in receiver.members:
                return receiver.members[name]
            return self.framework.namespace_missing(self, receiver, name, node)
        if isinstance(receiver, SuperProxy):
            mro = receiver.receiver.cls.mro() if isinstance(receiver.receiver, Instance) else receiver.receiver.mro()
            start = mro.index(receiver.start_after) + 1 if receiver.start_after in mro else 1
            for cls in mro[start:]:
                if name in cls.namespace:
                    return self._bind(receiver.receiver, cls.namespace[name], cls, node)
            return self.unknown(f"super() has no attribute `{name}`", node)
        if isinstance(receiver, Tensor):
            return self.framework.tensor_attribute(self, receiver, name, node)
        return self.framework.python_attribute(self, receiver, name, node)

    def _bind(self, receiver, member, owner, node):
        if isinstance(member, Function):
            if member.is_staticmethod:
                return member
            if member.is_classmethod:
                return BoundMethod(receiver.cls if isinstance(receiver, Instance) else receiver, member, owner)
            if member.is_property:
                return self.call(member, [receiver], {}, node)
            return BoundMethod(receiver, member, owner)
        if isinstance(member, Builtin) and member.bind_self:
            return BoundMethod(receiver, member, owner)
        return member

    # ---- calls ---------------------------------------------------------------------
    def call(self, function, args: list, kwargs: dict, node):
        if isinstance(function, Unknown):
            return function
        if isinstance(function, BoundMethod):
            if isinstance(function.function, Function) and function.owner is not None:
                self.frames.append((function.owner, function.receiver))
                try:
                    return self.call_function(function.function, [function.receiver, *args], kwargs, node)
                finally:
                    self.frames.pop()
            return self.call(function.function, [function.receiver, *args], kwargs, node)
        if isinstance(function, Builtin):
            return self.call_builtin(function, args, kwargs, node)
        if isinstance(function, Function):
            return self.call_function(function, args, kwargs, node)
        if isinstance(function, Class):
            return self.framework.instantiate(self, function, args, kwargs, node)
        if isinstance(function, Partial):
            return self.call(function.function, [*function.args, *args], {**function.kwargs, **kwargs}, node)
        if isinstance(function, Instance):
            try:
                method = function.cls.lookup("__call__")
            except KeyError:
                return self.unknown(f"{function.cls.name} instance is not callable", node)
            return self.call(self._bind(function, method, function.cls, node), args, kwargs, node)
        if isinstance(function, Tensor):
            return self.unknown("a tensor is called like a function", node)
        return self.unknown(f"calling {_describe(function)} is not interpreted", node)

    def call_builtin(self, builtin: Builtin, args, kwargs, node):
        try:
            return builtin.fn(self, args, kwargs, node)
        except CannotKnow as why:
            return self.unknown(f"`{builtin.name}` on {why}", node)
        except (TypeError, KeyError, IndexError, ValueError, AttributeError) as error:
            # A call shape we do not model (odd arguments): unknown, never a crash.
            return self.unknown(f"`{builtin.name}` called in a way that is not modelled ({error})", node)

    def current_method(self):
        return self.frames[-1] if self.frames else None

    def call_function(self, function: Function, args: list, kwargs: dict, node):
        self.budget.enter(self, node)
        scope = function.scope.child()
        previous_anchor = self.anchor
        if function.source is not None and function.source.internal and not (self.source and self.source.internal):
            self.anchor = self.location(node)
        previous, self.source = self.source, function.source
        try:
            self.bind_arguments(function, args, kwargs, scope, node)
            body = function.node.body
            if isinstance(function.node, cst.Lambda):
                return self.eval(body, scope)
            try:
                self.exec_statement(body, scope)
            except _Return as result:
                return result.value
            return None
        finally:
            self.source = previous
            self.anchor = previous_anchor
            self.budget.leave()

    def bind_arguments(self, function: Function, args, kwargs, scope: Scope, node) -> None:
        params = function.node.params
        positional = [*params.posonly_params, *params.params]
        kwargs = dict(kwargs)
        for index, param in enumerate(positional):
            name = param.name.value
            if index < len(args):
                if name in kwargs:
                    raise self._call_error(function, f"got multiple values for argument '{name}'", node)
                scope.vars[name] = args[index]
            elif name in kwargs:
                scope.vars[name] = kwargs.pop(name)
            elif name in function.defaults:
                scope.vars[name] = function.defaults[name]
            else:
                raise self._call_error(function, f"missing required argument '{name}'", node)
        extra = list(args[len(positional):])
        star = params.star_arg
        if isinstance(star, cst.Param):
            scope.vars[star.name.value] = tuple(extra)
        elif extra:
            raise self._call_error(function, f"takes {len(positional)} positional arguments but {len(args)} were given", node)
        for param in params.kwonly_params:
            name = param.name.value
            if name in kwargs:
                scope.vars[name] = kwargs.pop(name)
            elif name in function.defaults:
                scope.vars[name] = function.defaults[name]
            else:
                raise self._call_error(function, f"missing required keyword argument '{name}'", node)
        if params.star_kwarg is not None:
            scope.vars[params.star_kwarg.name.value] = kwargs
        elif kwargs:
            raise self._call_error(function, f"got an unexpected keyword argument '{next(iter(kwargs))}'", node)

    def _call_error(self, function: Function, message: str, node) -> AnalysisError:
        return self.fail(f"{function.name}() {message}", node, code="SF114")


def _dotted_name(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted_name(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    return ""


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return "a tensor"
    if isinstance(value, Instance):
        return f"a {value.cls.name}"
    if isinstance(value, Class):
        return f"class {value.name}"
    if isinstance(value, (Function, Builtin)):
        return f"function {value.name}"
    if isinstance(value, Unknown):
        return "an unknown value"
    return f"{type(value).__name__} {_show(value)}"


def _show(value) -> str:
    text = repr(value) if not isinstance(value, Expr) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."
