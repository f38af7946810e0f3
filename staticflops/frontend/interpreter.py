"""A small, safe abstract interpreter over libcst syntax trees.

It evaluates the analysed program's module level, ``__init__`` and ``forward`` with our own
value model (``values.py``): nothing of the analysed code is ever imported, compiled or run
by Python.  Framework behaviour (tensors, layers) is supplied by a *framework model*
(``frontend/torch``); this file knows only Python.  Whatever cannot be known becomes an
``Unknown`` that is reported with its location, never a silent zero.
"""

from __future__ import annotations

import operator
import sys
from pathlib import Path
from fractions import Fraction

from staticflops.frontend import syntax as cst

from staticflops.diagnostics import AnalysisError, Location, Unresolved, code_of, reason
from staticflops.frontend import function_objects, pyclasses
from staticflops.frontend.budget import Budget
from staticflops.frontend import getattribute_memo
from staticflops.frontend.construction_memo import ConstructionMemo
from staticflops.frontend.datafiles import DATA_VALUES, DataFile, data_attribute
from staticflops.frontend.expressions import Expressions
from staticflops.frontend import partial_dict
from staticflops.frontend.partial_dict import PartialDict
from staticflops.frontend.statements import Raised, Statements, _Jump, _Return
from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend.source import SourceFile, parse_source
from staticflops.frontend.values import (
    describe, show, is_generator, BoundMethod, Builtin, CannotKnow, Class, CodeObject, Cycle, Function, Instance, Generated, LazyValue, MethodWrapper,
    GenericAlias, Namespace, Partial, Record, StrMember, SuperProxy, Tensor, TypeUnion, Unknown, stable_order,
)
from staticflops.frontend import stdlib
from staticflops.frontend.stdlib import containers as std_containers
from staticflops.frontend.stdlib import functools_ as std_functools
from staticflops.frontend.stdlib import typing_
from staticflops.shapes import Expr, Undecidable


_BINARY = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
    cst.Power: operator.pow, cst.MatrixMultiply: operator.matmul, cst.BitOr: operator.or_,
    cst.BitAnd: operator.and_, cst.BitXor: operator.xor, cst.LeftShift: operator.lshift,
    cst.RightShift: operator.rshift,
}
_COMPARE = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
    cst.Is: operator.is_, cst.IsNot: operator.is_not,
}
_SET_OPERATORS = (cst.BitOr, cst.BitAnd, cst.Subtract, cst.BitXor)
# a < b calls a.__lt__(b), then the reflection b.__gt__(a)
_RICH_COMPARISONS = {
    cst.LessThan: ("__lt__", "__gt__"), cst.LessThanEqual: ("__le__", "__ge__"), cst.Equal: ("__eq__", "__eq__"),
    cst.NotEqual: ("__ne__", "__ne__"), cst.GreaterThan: ("__gt__", "__lt__"), cst.GreaterThanEqual: ("__ge__", "__le__"),
}
_TENSOR_COMPARISONS = {cst.Equal: "Equal", cst.NotEqual: "NotEqual", cst.LessThan: "LessThan",
                       cst.LessThanEqual: "LessThanEqual", cst.GreaterThan: "GreaterThan",
                       cst.GreaterThanEqual: "GreaterThanEqual"}
# a + b calls a.__add__(b), then the reflection b.__radd__(a)
_OPERATOR_METHODS = {
    cst.Add: ("__add__", "__radd__"), cst.Subtract: ("__sub__", "__rsub__"), cst.Multiply: ("__mul__", "__rmul__"),
    cst.Divide: ("__truediv__", "__rtruediv__"), cst.FloorDivide: ("__floordiv__", "__rfloordiv__"),
    cst.Modulo: ("__mod__", "__rmod__"), cst.Power: ("__pow__", "__rpow__"),
    cst.MatrixMultiply: ("__matmul__", "__rmatmul__"), cst.BitOr: ("__or__", "__ror__"),
    cst.BitAnd: ("__and__", "__rand__"), cst.BitXor: ("__xor__", "__rxor__"),
    cst.LeftShift: ("__lshift__", "__rlshift__"), cst.RightShift: ("__rshift__", "__rrshift__"),
}
# Builtins that return a namespace's own dict, through which it could be written unseen.
_HANDS_OUT_NAMESPACES = frozenset({"globals", "vars"})
# Python's own data (exact types: a subclass may be one of ours), whose attributes only the
# framework's ``python_attribute`` answers: read without the chain of tests for our value kinds.
_PYTHON_DATA = frozenset({str, int, float, bool, type(None), tuple, list, dict, set, frozenset})
_NUMBERS = frozenset({int, float})  # exact types: not bool, not our symbolic sizes
# Arithmetic that CPython refuses with a TypeError when an operand is None and the other None or a
# number (`config.head_dim ** -0.5` with head_dim left None): its spelling in the message
_NONE_REFUSED = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
                 cst.Modulo: "%", cst.Power: "** or pow()"}
_SAFE_PLAIN = (int, float, Fraction, str, bool, type(None), tuple, list, dict, set, frozenset, range, Expr, slice)



# Python's values that hold nothing: `x in None` raises TypeError (diffusers' SDXL UNet given no
# added_cond_kwargs), as CPython does, instead of an undecided membership.
_NEVER_CONTAINERS = frozenset({type(None), bool, int, float, complex})
# The protocol methods of a str enum member that builtins (len, in, iteration, indexing) look up
_STR_PROTOCOL = frozenset({"__len__", "__contains__", "__getitem__", "__iter__"})


def _str_member_attribute(interp, value: str, name: str, node):
    """An attribute of a str enum member not found on its class: str's, on the member's value."""
    if name not in _STR_PROTOCOL:
        return interp.framework.python_attribute(interp, value, name, node)

    def call(interp, args, kwargs, node):
        if not all(isinstance(arg, (str, int, slice)) for arg in args) or kwargs:
            return interp.unknown(f"str.{name} of a value that is not known", node)
        result = getattr(value, name)(*args)
        return list(result) if name == "__iter__" else result
    return Builtin(f"str.{name}", call, bind_self=False)


def _class_path(builtin) -> str | None:
    """``module.Name`` of a builtin standing for a type: its Python repr's (``<class
    'torch.nn.parameter.Parameter'>``), or ``builtins.int`` for Python's own types."""
    shown = getattr(builtin, "python_repr", None)
    if isinstance(shown, str) and shown.startswith("<class '") and shown.endswith("'>"):
        return shown[len("<class '"):-2]
    pytype = getattr(builtin, "pytype", None)
    if isinstance(pytype, type) and pytype.__module__ == "builtins":
        return f"builtins.{pytype.__name__}"
    return None


# Containers whose `in` compares the item with each of theirs (an unknown one could be equal).
_SEARCHED = frozenset({list, tuple, set, frozenset})


def _type_operand(value) -> bool:
    """A side of ``A | B`` that makes a type union: a class, a union, None, or a builtin that
    stands for a type (``int``, ``list``, ``torch.Tensor``, ``collections.OrderedDict``)."""
    if value is None or isinstance(value, (Class, TypeUnion, GenericAlias)):
        return True
    return isinstance(value, Builtin) and (getattr(value, "pytype", None) is not None or any(
        getattr(value, name, None) for name in ("base_class", "is_tensor_type", "instance_check")))

# Python values that are never callable: calling one raises TypeError, which the code may catch
_NOT_CALLABLE = (bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset)
# Python's own values, whose operators raise TypeError in the analysis as in Python (a list plus
# a tuple); values the analysis stands in for (symbolic sizes, objects) are not among them
_PLAIN = (type(None), bool, int, float, str, list, tuple, dict, set, frozenset)


class Interpreter(Statements, Expressions):
    def __init__(self, framework, budget: Budget | None = None):
        self.framework = framework  # tensors, layers and the namespaces of torch/keras
        self.budget = budget or Budget()
        self.builtins: dict = {}
        self.unknowns: list[tuple[Location, str]] = []
        self._seen_unknowns: set = set()
        self.diagnostics: list = []
        self.installed_models: dict = {}  # dotted name -> our model of that installed library, or None
        self.noted: set = set()  # the diagnostics above, for the once-per-place test of `note`
        # [object being decorated, names of its attributes set or deleted meanwhile] per decorator
        # running (statements.decorate): an innermost-last stack
        self.decorating: list = []
        self.ignores: dict = {}  # path -> {line: codes}: the ignore comments of every file run (suppressions.py)
        self.source: SourceFile | None = None  # file whose code is running now
        self.frames: list = []  # (defining class, receiver) of running methods, for super()
        self.anchor: Location | None = None  # user call site while our stub code runs
        self.literals: dict = {}  # syntax node -> its constant value
        # tuple/list target node -> its element targets when all are plain names (`for pn, p in`), else ()
        self.name_targets: dict = {}
        self._signatures: dict = {}  # signature text -> Function (see signature())
        self.effectful_calls = 0  # calls made through `call` but of unknowns and pure builtins
        self.project = None  # ProjectImports: the analysed project's other files
        self.import_guards = 0  # `try` bodies with handlers being run: imports there are eager
        # inside getattr(obj, name, default): a missing instance attribute raises AttributeError
        # (as in Python, so the default is taken) instead of becoming an unknown
        self.missing_attributes_raise = 0
        # module calls being logged for the integers they read from instances (torch/replay.py)
        self.int_reads: list = []
        self.handling: list = []  # the exceptions whose `except` blocks are running (bare `raise`)
        # Module-level unknowns are reported only through the values the model uses (see
        # exec_module_body); the (location, reason) of assumed branches are reported anyway.
        self.demand_driven = False
        self.assumptions: set = set()
        self.environment: dict = {}  # os.environ of the analysed program: empty unless --env KEY=VALUE
        self.generators: list = []  # values yielded by each running generator function, innermost last
        self.sys_modules: dict = {}  # sys.modules as the analysed code sees it (and may replace entries of)
        self.identities: dict = {}  # Python id of a value -> the id() the analysed code was given for it
        # syntax node type -> its bound _eval_/_exec_ method (None: not interpreted)
        self.expression_handlers: dict = {}
        self.statement_handlers: dict = {}
        # Repeated blocks are built once and copied (construction_memo.py); its hooks below
        # cost one test of `recorders` each while nothing is being recorded.
        self.construction_memo = ConstructionMemo()

    def handler_for(self, node_type: type, prefix: str):
        """``_eval_Name`` for an expression node, ``_exec_If`` for a statement."""
        return getattr(self, prefix + node_type.__name__, None)

    # ---- reporting -------------------------------------------------------------
    def location(self, node) -> Location:
        if self.source is None:
            return Location("<unknown>", 1, 1)
        if self.source.internal:
            return self.anchor or Location("<unknown>", 1, 1)
        return self.source.location(node)

    def unknown(self, reason: str, node=None, location: Location | None = None, code: str = "SF400") -> Unknown:
        """``code``: staticflops/codes.py; an unknown that goes with a warning has the warning's."""
        where = location or self.location(node)
        key = (where, reason)
        if key not in self._seen_unknowns:
            self._seen_unknowns.add(key)
            self.unknowns.append(Unresolved(where, reason, code))
        return Unknown(reason, where)

    def note_ignores(self, source: SourceFile) -> None:
        if source.ignores:
            self.ignores[source.path] = source.ignores

    def quietly(self, evaluate):
        """Evaluate holding back what could not be resolved: returns (value, held reports),
        for values that only matter if used later (the base class of a class nobody builds)."""
        saved = self.unknowns, self._seen_unknowns
        self.unknowns, self._seen_unknowns = [], set()
        try:
            value = evaluate()
        finally:
            held = self.unknowns
            self.unknowns, self._seen_unknowns = saved
        return value, held

    def hold_back(self, mark: int) -> list:
        """The reports made since there were ``mark`` of them, taken back (as ``quietly`` would
        have held them): ``report_held`` makes them again if they turn out to matter."""
        held = self.unknowns[mark:]
        del self.unknowns[mark:]
        for report in held:
            self._seen_unknowns.discard(tuple(report))
        return held

    def report_held(self, held) -> None:
        for report in held:
            where, reason = report
            self.unknown(reason, location=where, code=code_of(report))

    def fail(self, message: str, node, code: str = "SF110", python: str | None = None) -> AnalysisError:
        """A located error; with ``python`` (a builtin exception's name) it is also the exception
        Python would raise there, which a `try` of the analysed code may catch."""
        if python is None:
            return AnalysisError(message, self.location(node), code)
        exception = Instance(self.builtins[python], {"args": (message,)}, self.location(node))
        return Raised(message, self.location(node), code, exception)

    # ---- modules -----------------------------------------------------------------
    def run_module(self, source: SourceFile, scope: Scope | None = None) -> Scope:
        scope = scope or Scope()
        scope.vars.setdefault("__name__", "__analysed__")
        previous, self.source = self.source, source
        self.note_ignores(source)
        try:
            self.exec_module_body(source.module.body, scope)
        except _Jump as jump:
            raise self.misplaced(jump) from None
        finally:
            self.source = previous
        return scope

    def import_module(self, dotted: str, node):
        """A module by its dotted name: modelled by the framework, a file of the analysed
        project, a third-party package's source file, or else an unknown (reported once,
        where it is imported).  A package the framework models is never read from disk."""
        known = self.framework.known_module(dotted)
        if known is not None:
            return known
        modelled = not dotted.startswith(".") and self.framework.models_package(dotted.split(".")[0])
        if self.project is not None and not modelled:
            # (a project rooted at a site-packages folder holds torch's own source: never read)
            found = self.project.find(dotted, self.source.origin if self.source else None, node)
            if found is None and not dotted.startswith("."):
                found = self._installed_model(dotted) or self.project.find_library(dotted, node)
            if found is not None:
                return found
        top = dotted.split(".")[0]
        if self.import_guards and top not in sys.stdlib_module_names and self.framework.known_module(top) is None:
            # Inside `try: import x / except ImportError:` a package we cannot find is taken as
            # not installed (a clean CI environment), so the `except` branch runs as it would;
            # the standard library is always there.
            raise self.fail(f"No module named '{dotted.lstrip('.')}'", node, "SF116", python="ModuleNotFoundError")
        return self.framework.import_module(self, dotted, node)

    def _installed_model(self, dotted: str):
        """Our model of a third-party module (``stdlib.installed_library``), when the environment
        has the package: an import of a package that is not there still fails as Python's would."""
        if dotted not in self.installed_models:
            model = stdlib.installed_library(dotted)
            libraries = self.project.libraries
            if model is not None and (libraries is None or libraries.locate(dotted) is None):
                model = None
            self.installed_models[dotted] = model
        return self.installed_models[dotted]

    def deferred(self, load):
        """A lazy value resolved later in the file and at the place where it was written."""
        source, anchor = self.source, self.anchor

        def run():
            # ... and outside any `try`: deferred imports are the unguarded ones (see _bind_import)
            previous = self.source, self.anchor, self.import_guards
            self.source, self.anchor, self.import_guards = source, anchor, 0
            try:
                return load()
            finally:
                self.source, self.anchor, self.import_guards = previous
        return LazyValue(run)

    def _watch_decorated(self, receiver, name: str) -> None:
        for target, names in self.decorating:
            if target is receiver:
                names.add(name)

    def set_attribute(self, receiver, name: str, value, node) -> None:
        if self.decorating:
            self._watch_decorated(receiver, name)
        if isinstance(receiver, (Class, Function)):  # memoised constructions recorded before it are stale
            self.construction_memo.definition_written()
        elif self.construction_memo.recorders:  # a write outside a construction makes it non-memoisable
            self.construction_memo.attribute_write(receiver, name, value)
        if isinstance(receiver, Instance):
            try:
                hook = receiver.cls.lookup("__setattr__")
            except KeyError:
                hook = None
            member = receiver.cls.lookup(name) if any(name in c.namespace for c in receiver.cls.mro()) else None
            if isinstance(member, MethodWrapper) and member.kind == "property":
                # a data descriptor wins over the instance dict, as object.__setattr__ does
                if member.setter is None:
                    raise self.fail(f"property '{name}' of '{receiver.cls.name}' object has no setter", node, "SF115")
                self.call(member.setter, [receiver, value], {}, node)
            elif isinstance(hook, Builtin):
                hook.fn(self, [receiver, name, value], {}, node)
            elif isinstance(hook, Function):  # a __setattr__ of the analysed code
                self.call(self._user_hook(receiver, "__setattr__"), [name, value], {}, node)
            else:
                receiver.attrs[name] = value
        elif isinstance(receiver, (Class, Namespace)):
            (receiver.namespace if isinstance(receiver, Class) else receiver.members)[name] = value
        elif isinstance(receiver, Function):
            receiver.attrs[name] = value  # registries mark their functions (fn.pretrained = ...)
        elif isinstance(receiver, Tensor):
            self.framework.tensor_set_attribute(self, receiver, name, value, node)
        elif not isinstance(receiver, Unknown):
            self.unknown(f"cannot set attribute `{name}` on {describe(receiver)}", node)

    def delete_attribute(self, receiver, name: str, node) -> None:
        """``del receiver.name`` / ``delattr(receiver, name)`` on an object or a class; a write
        for the construction memo, as setting it is."""
        if self.decorating:
            self._watch_decorated(receiver, name)
        if isinstance(receiver, Class):
            self.construction_memo.definition_written()
            receiver.namespace.pop(name, None)
        elif isinstance(receiver, Instance):
            if self.construction_memo.recorders:
                self.construction_memo.attribute_write(receiver)
            receiver.attrs.pop(name, None)
        elif not isinstance(receiver, Unknown):
            self.unknown(f"cannot delete attribute `{name}` of {describe(receiver)}", node)

    def set_item(self, container, key, value, node) -> None:
        if isinstance(container, std_containers.DictInstance) and self._defined_setitem(container):
            # `def __setitem__` of a dict subclass runs (transformers' ModelOutput mirrors keys as attributes)
            self.call(self.special_method(container, "__setitem__"), [key, value], {}, node)
        elif isinstance(container, (list, dict)):
            try:
                self.budget.check_new_entry(self, container, key, node)
                container[key] = value
            except (TypeError, IndexError, KeyError):
                self.unknown("item assignment could not be followed", node)
        elif isinstance(container, Instance) and container.module is not None and not self._defined_setitem(container):
            self.framework.module_set_item(self, container, key, value, node)  # ModuleDict/ParameterDict: a setattr
        elif isinstance(container, Instance) and self.special_method(container, "__setitem__") is not None:
            self.call(self.special_method(container, "__setitem__"), [key, value], {}, node)
        elif isinstance(container, Tensor):
            # in-place writes keep the shape; what is known of the values is updated or dropped
            written = getattr(self.framework, "tensor_setitem", None)
            if written is not None:
                written(self, container, key, value, node)
            else:
                container.values = None
        elif not isinstance(container, Unknown):
            self.unknown(f"item assignment on {describe(container)} is not interpreted", node)

    @staticmethod
    def _defined_setitem(instance: Instance) -> bool:
        """Whether the analysed code wrote a ``__setitem__`` for the instance's class."""
        try:
            return isinstance(instance.cls.lookup("__setitem__"), Function)
        except KeyError:
            return False

    def _contains(self, container: Instance, item, node):
        """``item in obj``: ``__contains__``, else a search of what ``__iter__`` yields."""
        method = self.special_method(container, "__contains__")
        if method is not None:
            return self.truth(self.call(method, [item], {}, node), node)
        for candidate in self.iterate(container, node):
            same = self.compare(cst.Equal, candidate, item, node)
            if isinstance(same, Unknown) or same is True:
                return same
        return False

    def delete_item(self, container, key, node) -> None:
        """``del container[key]``: a dict/list entry, or the class's ``__delitem__``."""
        if isinstance(container, Instance) and self.special_method(container, "__delitem__") is not None:
            self.call(self.special_method(container, "__delitem__"), [key], {}, node)
        elif isinstance(container, (list, dict)) and not isinstance(key, Unknown):
            try:
                del container[key]
            except (TypeError, IndexError, KeyError):
                self.unknown("item deletion could not be followed", node)
        elif not isinstance(container, (Unknown, Tensor)):
            self.unknown(f"item deletion on {describe(container)} is not interpreted", node)

    # ---- operations on values ----------------------------------------------------------
    def binary(self, op_class, left, right, node):
        if type(left) in _NUMBERS and type(right) in _NUMBERS:  # `0.02 / math.sqrt(2 * n)`: the tests below, decided
            if type(left) is int and type(right) is int:  # a float operand cannot grow past the int bound
                self.budget.check_int(self, op_class.__name__, left, right, node)
            # (numbers build no sequence, are no Expr and no set operand: check_built and
            # check_expr below have nothing to check)
            return self._python_binary(op_class, left, right, node)
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            # The framework may keep a symbolic tensor's graph going (Keras: `x + <unmodelled op>`).
            kept = self.framework.binary_with_unknown(self, op_class.__name__, left, right, node)
            if kept is not None:
                return kept
            return partial_dict.plain(left if isinstance(left, Unknown) else right)
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            return self.framework.tensor_binary(self, op_class.__name__, left, right, node)
        if isinstance(left, Instance) or isinstance(right, Instance):
            result = self._operator_method(op_class, left, right, node)
            if result is not MISSING:
                return result
            if isinstance(left, StrMember) or isinstance(right, StrMember):  # str's operator, on the value
                plain = [str.__str__(v) if isinstance(v, StrMember) else v for v in (left, right)]
                return self.binary(op_class, plain[0], plain[1], node)
            return self.framework.instance_binary(self, op_class.__name__, left, right, node)
        if op_class is cst.BitOr and _type_operand(left) and _type_operand(right) and (left, right) != (None, None):
            return TypeUnion.of(left, right)  # `int | None`, `list | tuple`: a union isinstance() accepts
        if op_class in _NONE_REFUSED and (left is None or right is None) and \
                all(side is None or isinstance(side, (int, float, Expr)) for side in (left, right)):
            names = ["NoneType" if side is None else "int" if isinstance(side, Expr) else type(side).__name__
                     for side in (left, right)]
            raise self.fail(f"unsupported operand type(s) for {_NONE_REFUSED[op_class]}: '{names[0]}' and "
                            f"'{names[1]}'", node, python="TypeError")
        self.budget.check_int(self, op_class.__name__, left, right, node)
        self.budget.check_built(self, op_class.__name__, left, right, node)
        if isinstance(left, Expr) or isinstance(right, Expr):
            self.budget.check_expr(self, op_class.__name__, left, right, node)
        if op_class in _SET_OPERATORS and isinstance(left, (list, set, frozenset)) and \
                isinstance(right, (list, set, frozenset)) and (isinstance(left, list) or isinstance(right, list)):
            # `d.keys() | e.values()`: dict views are lists here, and `|`/`&`/`-`/`^` on lists would be
            # a TypeError in Python, so a list reaching them is a view: the result is a set, as a view's
            try:
                left, right = set(left), set(right)
            except TypeError:
                return self.unknown(f"`{op_class.__name__}` of dict views holding unhashable values", node)
        return self._python_binary(op_class, left, right, node)

    def _python_binary(self, op_class, left, right, node):
        """Python's own operator on values the checks above let through."""
        try:
            return _BINARY[op_class](left, right)
        except ZeroDivisionError:
            raise self.fail("division by zero", node, python="ZeroDivisionError") from None
        except TypeError as error:
            if type(left) in _PLAIN and type(right) in _PLAIN:  # `[384] + (256, 128)`: Python's own TypeError
                raise self.fail(str(error), node, python="TypeError") from None
            return self.unknown(f"`{op_class.__name__}` of {describe(left)} and {describe(right)}", node)
        except (ValueError, Undecidable, OverflowError):
            return self.unknown(f"`{op_class.__name__}` of {describe(left)} and {describe(right)}", node)

    def _operator_method(self, op_class, left, right, node):
        """``a + b`` on objects: ``a.__add__(b)``, else the reflected ``b.__radd__(a)``, as
        Python does (``nn.ModuleList + nn.ModuleList``, a user's vector class).  NotImplemented
        is None in our value model, so a method returning None passes to the next."""
        name, reflected = _OPERATOR_METHODS.get(op_class, (None, None))
        if name is None:
            return MISSING
        for receiver, other, method_name in ((left, right, name), (right, left, reflected)):
            if isinstance(receiver, Instance):
                for cls in receiver.cls.mro():
                    if method_name in cls.namespace:
                        method = self._bind(receiver, cls.namespace[method_name], cls, node)
                        result = self.call(method, [other], {}, node)
                        if result is not None:
                            return result
                        break
        return MISSING

    def compare(self, op_class, left, right, node):
        if op_class in (cst.Is, cst.IsNot):
            same = left is right or (left is None and right is None)
            return same if op_class is cst.Is else not same
        if op_class in (cst.In, cst.NotIn) and isinstance(right, PartialDict):
            found = partial_dict.contains(right, left)
            return found if isinstance(found, Unknown) or op_class is cst.In else not found
        if isinstance(left, Unknown):
            return partial_dict.plain(left)
        if isinstance(right, Unknown):
            return partial_dict.plain(right)
        if op_class in (cst.In, cst.NotIn) and isinstance(right, Instance):  # a module container too (ModuleDict: its keys)
            found = self._contains(right, left, node)
            if isinstance(found, Unknown):
                return found
            return bool(found) if op_class is cst.In else not found
        if op_class in (cst.In, cst.NotIn) and type(right) in _SEARCHED and (
                self._own_equality(left) or any(self._own_equality(item) for item in right)):
            found = self._search(left, right, node)  # the objects' own __eq__ decides, as in CPython
            return found if isinstance(found, Unknown) or op_class is cst.In else not found
        if op_class in (cst.In, cst.NotIn) and type(right) in _NEVER_CONTAINERS:  # `key in None`: Python refuses
            raise self.fail(f"argument of type {type(right).__name__!r} is not iterable", node, python="TypeError")
        if op_class in (cst.In, cst.NotIn):
            try:
                found = left in right if not isinstance(right, Namespace) else left in right.members
            except (TypeError, Undecidable):
                return self.unknown("membership test could not be decided", node)
            if not found and type(right) in _SEARCHED:  # an unknown item might be equal to it
                unknown = next((item for item in right if isinstance(item, Unknown)), None)
                if unknown is not None:
                    return partial_dict.plain(unknown)
            return found if op_class is cst.In else not found
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            return self.framework.tensor_binary(self, _TENSOR_COMPARISONS.get(op_class, "Compare"), left, right, node)
        if op_class in _RICH_COMPARISONS and any(isinstance(v, Instance) and v.module is None for v in (left, right)):
            found = self._rich_compare(op_class, left, right, node)
            if found is not MISSING:
                return found
        try:
            return _COMPARE[op_class](left, right)
        except Undecidable as error:
            return self.unknown(str(error), node)
        except TypeError:
            return self.unknown(f"comparison of {describe(left)} and {describe(right)}", node)

    def _own_equality(self, value) -> bool:
        """An object of the analysed code whose class defines ``__eq__``."""
        return isinstance(value, Instance) and value.module is None and self.special_method(value, "__eq__") is not None

    def _search(self, needle, items, node):
        """``needle in items`` for a list or tuple: each item ``is`` it or ``==`` it, in order."""
        for item in items:
            if item is needle:
                return True
            same = self.truth(self.compare(cst.Equal, item, needle, node), node)
            if same is not False:
                return same  # True, or an unknown: the answer depends on it
        return False

    def _rich_compare(self, op_class, left, right, node):
        """``a < b`` on objects of the analysed code: ``a.__lt__(b)``, else the reflected
        ``b.__gt__(a)``, as Python does (packaging's Version).  NotImplemented is None in our
        value model, so a method returning None passes to the next; ``==``/``!=`` end with identity."""
        name, reflected = _RICH_COMPARISONS[op_class]
        for receiver, other, method_name in ((left, right, name), (right, left, reflected)):
            if isinstance(receiver, Instance) and receiver.module is None:
                method = self.special_method(receiver, method_name)
                if method is not None:
                    result = self.call(method, [other], {}, node)
                    if result is not None:
                        return result
        if op_class is cst.NotEqual:  # without __ne__, Python inverts __eq__
            equal = self.truth(self._rich_compare(cst.Equal, left, right, node), node)
            return equal if isinstance(equal, Unknown) else not equal
        if op_class is cst.Equal:
            return left is right
        return MISSING

    def truth(self, value, node):
        if type(value) is bool:  # most tests (`if name.endswith(...)`, comparisons): no isinstance chain
            return value
        if isinstance(value, Unknown):
            return value
        if isinstance(value, Tensor):
            return self._tensor_truth(value, node)
        if isinstance(value, (Class, Function, Builtin, BoundMethod, Namespace, Partial)):
            return True
        if isinstance(value, Instance):
            for name in ("__bool__", "__len__"):  # Python's order: __bool__, else __len__ != 0
                method = self.special_method(value, name)
                if method is not None:
                    return self.truth(self.call(method, [], {}, node), node)
            return self.framework.instance_truth(self, value, node)
        try:
            return bool(value)
        except Undecidable as error:
            return self.unknown(str(error), node)

    def _tensor_truth(self, tensor: Tensor, node):
        """``bool(tensor)``: a one-element tensor's value (known: ``index == 8``; else an unknown,
        the data decides); for more or fewer elements torch raises RuntimeError, as here."""
        if tensor.values is not None and len(tensor.values) == 1:
            return bool(tensor.values[0])
        shape = tensor.shape
        if shape is not None and all(type(d) is int for d in shape):
            count = 1
            for d in shape:
                count *= d
            if count != 1:
                raise self.fail(f"Boolean value of Tensor with {'no values' if count == 0 else 'more than one value'} "
                                "is ambiguous", node, "SF113", python="RuntimeError")
        return self.unknown("the truth of a one-element tensor whose value is not known while the model is built",
                            node)

    def decide(self, test, scope) -> bool:
        """Truth of a condition; an unknown one is reported and taken as true."""
        truth = self.truth(self.evaluate_node(test, scope), test)
        if isinstance(truth, Unknown):
            self.unknown(f"condition could not be decided ({truth.reason}); assumed true", test)
            return True
        return truth

    def iterate(self, value, node):
        if isinstance(value, Cycle):
            raise self.fail("iterating itertools.cycle() outside zip() (endless) is not modelled", node, "SF112")
        if isinstance(value, (set, frozenset)):
            return iter(stable_order(value))  # not by hash: the same order in every process
        if isinstance(value, (list, tuple, str, dict, std_containers.deque)):
            return iter(list(value))
        if isinstance(value, range):
            return self.budget.bounded_range(self, value, node)
        if isinstance(value, Instance):
            method = self.special_method(value, "__iter__")
            if method is not None:
                iterator = self.call(method, [], {}, node)
                step = self.special_method(iterator, "__next__") if isinstance(iterator, Instance) else None
                if step is not None:  # the iterator protocol: __next__ until it raises StopIteration
                    return self._stepped(step, node)
                if iterator is value:
                    raise self.fail(f"iter() returned non-iterator of type '{value.cls.name}'", node, "SF112",
                                    python="TypeError")
                return self.iterate(iterator, node)
            return iter(self.framework.instance_iter(self, value, node))
        if isinstance(value, Class) and pyclasses.is_enum(value):
            return iter(list(dict.fromkeys(pyclasses.enum_members(value).values())))
        if isinstance(value, Tensor):
            return iter(self.framework.tensor_iter(self, value, node))
        if isinstance(value, DataFile):  # `for line in open(path)`
            return iter(value.text.splitlines(keepends=True))
        if isinstance(value, Unknown):
            raise self.fail(f"cannot iterate over an unknown value ({value.reason})", node, "SF112")
        raise self.fail(f"cannot iterate over {describe(value)}", node, "SF112", python="TypeError")

    def _stepped(self, step, node):
        """The items ``step()`` (a bound ``__next__``) gives until it raises StopIteration; each
        one a loop iteration of the budget (an endless iterator stops there)."""
        while True:
            self.budget.loop(self, node)
            try:
                item = self.call(step, [], {}, node)
            except Raised as raised:
                if self.raises_stop_iteration(raised):
                    return
                raise
            yield item

    def raises_stop_iteration(self, raised) -> bool:
        stop = self.builtins.get("StopIteration")
        exception = getattr(raised, "exception", None)
        return isinstance(exception, Instance) and stop is not None and stop in exception.cls.mro()

    def get_item(self, container, key, node):
        if isinstance(container, PartialDict):
            return partial_dict.lookup(container, key)
        if isinstance(container, Unknown):
            return container
        if isinstance(key, Unknown):
            return key
        if isinstance(container, Tensor):
            return self.framework.tensor_getitem(self, container, key, node)
        if isinstance(container, Instance):
            method = self.special_method(container, "__getitem__")
            if method is not None:
                return self.call(method, [key], {}, node)
            return self.framework.instance_getitem(self, container, key, node)
        if isinstance(container, std_containers.DefaultDict):
            return std_containers.defaultdict_getitem(self, container, key, node)
        if isinstance(container, Class):
            if pyclasses.is_enum(container) and isinstance(key, str):
                members = pyclasses.enum_members(container)
                if key in members:
                    return members[key]
                raise self.fail(f"{container.name} has no member {key!r}", node, "SF113")
            return typing_.subscript(self, container, key, node)  # Sequence[int], Foo[T]: a GenericAlias
        if isinstance(container, Builtin):
            alias = typing_.subscript(self, container, key, node)  # Optional[X], list[int], Literal["a"]
            if alias is not None:
                return alias
            options = key if isinstance(key, tuple) else (key,)  # another builtin standing for a type
            return next((o for o in options if isinstance(o, Class)), options[-1])
        if isinstance(container, Namespace):
            return container
        try:
            return container[key]
        except (IndexError, KeyError) as error:
            if isinstance(error, KeyError) and type(container) is dict and self._complete_registries():
                return self.get_item(container, key, node)  # the imports that fill it have run now
            python = "KeyError" if isinstance(error, KeyError) else "IndexError"
            raise self.fail(f"index {show(key)} is out of range for {describe(container)}", node, "SF113",
                            python=python) from error
        except (TypeError, Undecidable):
            if container is None or type(container) in (bool, int, float, complex):  # a field left None
                raise self.fail(f"'{type(container).__name__}' object is not subscriptable", node,
                                python="TypeError") from None
            return self.unknown(f"indexing {describe(container)} with {show(key)}", node)

    def _complete_registries(self) -> bool:
        """A dict lookup missed in a library's code: run the imports its package bound lazily
        and nobody used (``ProjectImports.complete_package``), once per package; True when one
        ran (then the lookup is made again).  Inside a ``try`` too: Python had run them before
        any lookup, so a handler runs only for a key no module adds."""
        source, project = self.source, self.project
        if source is None or source.origin is None or project is None \
                or project.libraries is None:
            return False
        module = project.libraries.module_name(Path(source.origin))  # None: not a library's file
        return bool(module) and project.complete_package(module.split(".")[0])

    def _user_hook(self, instance: Instance, name: str):
        """``__getattribute__``/``__setattr__``/``__getattr__`` written in the analysed code
        (a ``def`` in the class or a base), bound to the instance; None for the built-in ones."""
        if instance.module is not None:
            return None
        for cls in instance.cls.mro():
            if name in cls.namespace:
                member = cls.namespace[name]
                return BoundMethod(instance, member, cls) if isinstance(member, Function) else None
        return None

    def get_attribute(self, receiver, name: str, node, strict: bool = False):
        """``receiver.name``; with ``strict`` an AttributeError a ``__getattr__`` raises propagates."""
        if isinstance(receiver, Instance) and name != "__class__":
            hook = self._user_hook(receiver, "__getattribute__")
            if hook is not None:  # transformers' configs map attribute aliases this way
                try:
                    return getattribute_memo.read(self, hook, receiver, name, node)
                except Raised as raised:
                    # its `super().__getattribute__(name)` raised AttributeError: Python then asks
                    # __getattr__; a plain read of a missing attribute is an unknown here
                    if strict or self.missing_attributes_raise or not self.is_attribute_error(raised):
                        raise
                    fallback = self._getattr_hook(receiver, name)
                    if fallback is not None:
                        return self.call(fallback, [name], {}, node)
                    return self.framework.instance_missing_attribute(self, receiver, name, node)
        return self.plain_attribute(receiver, name, node, strict)

    def _namespace_attribute(self, receiver: Namespace, name: str, node):
        if receiver.replaced_by is not None:
            return self._replaced_module_attribute(receiver, name, node)
        value = receiver.members[name] if name in receiver.members else MISSING
        if isinstance(value, LazyValue) and value.loading:
            # `from pkg import sub` in pkg/__init__.py asks pkg for `sub` while binding it:
            # Python finds no attribute yet and imports the submodule (the loader's job)
            value = MISSING
        if value is MISSING and receiver.loader is not None:
            value = receiver.loader(name)
            if receiver.replaced_by is not None:  # its __init__.py just ran and replaced it
                return self._replaced_module_attribute(receiver, name, node)
        if value is MISSING and isinstance(receiver.members.get("__getattr__"), Function):
            # PEP 562: a module's own __getattr__ answers for the names it does not bind
            return self.call(receiver.members["__getattr__"], [name], {}, node)
        if value is MISSING and receiver.loader is not None:
            return self.unknown(f"module `{receiver.name}` has no attribute `{name}`", node)
        if value is MISSING:
            return self.framework.namespace_missing(self, receiver, name, node)
        return value.force() if isinstance(value, LazyValue) else value

    def object_getattribute(self, receiver, name: str, node):
        """``object.__getattribute__(obj, name)`` called by the code (``super().__getattribute__``):
        a missing attribute raises AttributeError, which the code may catch."""
        self.missing_attributes_raise += 1
        try:
            return self.plain_attribute(receiver, name, node)
        finally:
            self.missing_attributes_raise -= 1

    def plain_attribute(self, receiver, name: str, node, strict: bool = False):
        """``object.__getattribute__``: the instance dict, then the class and its bases."""
        if self.int_reads and type(receiver) is Instance:
            if type(receiver.attrs.get(name)) is int:  # (a read that raises reads nothing)
                value = receiver.attrs[name]
                for log in self.int_reads:
                    log.read(receiver, name, value)
            elif name == "__dict__":
                self.whole_namespace_read()
        if not self.construction_memo.recorders:
            return self._plain_attribute(receiver, name, node, strict)
        try:
            value = self._plain_attribute(receiver, name, node, strict)
        except AnalysisError:  # AttributeError: that it is missing is a read too
            self.construction_memo.attribute_missed(receiver, name)
            raise
        self.construction_memo.attribute_read(receiver, name, value)  # a read from outside a construction is recorded
        return value

    def whole_namespace_read(self) -> None:
        """An instance's whole ``__dict__`` handed to the code (``vars``, a copy): the calls being
        logged may read any of its integers (torch/replay.py)."""
        for log in self.int_reads:
            log.everything = True

    def _plain_attribute(self, receiver, name: str, node, strict: bool = False):
        if type(receiver) is Instance and name in receiver.attrs:  # the most frequent read, first
            value = receiver.attrs[name]
            return value.force() if isinstance(value, LazyValue) else value
        if type(receiver) in _PYTHON_DATA:  # `name.endswith(...)`: none of the kinds tested below
            return self.framework.python_attribute(self, receiver, name, node)
        if type(receiver) is Namespace:  # `nn.init`, `math.sqrt`: none of the kinds tested before it below
            return self._namespace_attribute(receiver, name, node)
        if type(receiver) is SuperProxy:  # `super().__init__`: none of the kinds tested before it below either
            return self._super_attribute(receiver, name, node)
        if isinstance(receiver, PartialDict) and name == "get":
            return Builtin("dict.get", lambda interp, args, kwargs, node: partial_dict.lookup(receiver, *args[:1]),
                           bind_self=False)
        if isinstance(receiver, Unknown):
            return partial_dict.plain(receiver)
        if isinstance(receiver, Instance):
            if name in receiver.attrs:
                value = receiver.attrs[name]
                return value.force() if isinstance(value, LazyValue) else value
            try:
                member, owner = receiver.cls.lookup_owner(name)
            except KeyError:
                if name == "__class__":
                    return receiver.cls
                if name == "__dict__":
                    return receiver.attrs
                if isinstance(receiver, str):  # a str enum member: str's own methods, on its value
                    return _str_member_attribute(self, str.__str__(receiver), name, node)
                hook = self._getattr_hook(receiver, name)
                if hook is not None:
                    try:
                        return self.call(hook, [name], {}, node)
                    except Raised as raised:
                        # a missing attribute is an unknown, not an exception (hasattr asks the hook itself)
                        if strict or not self.is_attribute_error(raised):
                            raise
                if not self.missing_attributes_raise:
                    return self.framework.instance_missing_attribute(self, receiver, name, node)
                value, held = self.quietly(lambda: self.framework.instance_missing_attribute(self, receiver, name, node))
                if isinstance(value, Unknown):
                    raise self.fail(f"'{receiver.cls.name}' object has no attribute '{name}'", node, "SF115",
                                    python="AttributeError")
                self.report_held(held)
                return value
            return self._bind(receiver, member, owner, node)
        if isinstance(receiver, Record):
            return pyclasses.record_attribute(self, receiver, name, node)
        if isinstance(receiver, Class):
            try:
                member, owner = receiver.lookup_owner(name)
            except KeyError:
                if name == "__name__":
                    return receiver.name
                if name == "__mro__":
                    return tuple(receiver.mro())
                if name == "__dict__":  # the class body's own names (a read-only view in CPython)
                    return receiver.namespace
                if name == "__bases__":
                    return tuple(receiver.bases)
                return self.unknown(f"class {receiver.name} has no attribute `{name}`", node)
            if isinstance(member, MethodWrapper):
                if member.kind == "classmethod":
                    return BoundMethod(receiver, member.function, owner)
                if member.kind == "staticmethod":
                    return member.function
            if isinstance(member, Instance) and member.module is None:
                getter = self.special_method(member, "__get__")  # a descriptor read on the class
                if getter is not None:
                    return self.call(getter, [None, receiver], {}, node)
            return member
        if isinstance(receiver, Namespace):
            return self._namespace_attribute(receiver, name, node)
        if isinstance(receiver, SuperProxy):
            return self._super_attribute(receiver, name, node)
        if isinstance(receiver, Tensor):
            return self.framework.tensor_attribute(self, receiver, name, node)
        if isinstance(receiver, (Function, Builtin, Partial)):
            return self._function_attribute(receiver, name, node)
        if isinstance(receiver, DATA_VALUES):
            return data_attribute(self, receiver, name, node)
        if isinstance(receiver, MethodWrapper):
            return self._wrapper_attribute(receiver, name, node)
        if isinstance(receiver, BoundMethod) and name in function_objects.THROUGH_BOUND_METHOD:
            # a bound method answers for its function (`cls.from_config.__code__`)
            if name in ("__func__", "__self__"):
                return receiver.function if name == "__func__" else receiver.receiver
            return self.get_attribute(receiver.function, name, node)
        if isinstance(receiver, CodeObject):
            value = function_objects.code_attribute(receiver, name)
            if value is not function_objects.MISSING:
                return value
        if isinstance(receiver, (GenericAlias, TypeUnion)):
            return typing_.alias_attribute(self, receiver, name, node)
        known = std_containers.attribute(self, receiver, name, node)
        if known is not None:
            return known
        return self.framework.python_attribute(self, receiver, name, node)

    def _super_attribute(self, receiver: SuperProxy, name: str, node):
        mro = receiver.receiver.cls.mro() if isinstance(receiver.receiver, Instance) else receiver.receiver.mro()
        if receiver.start_after not in mro and isinstance(receiver.receiver, Class):
            mro = receiver.start_after.mro()  # super() in a metaclass method: the metaclass's order
        start = mro.index(receiver.start_after) + 1 if receiver.start_after in mro else 1
        for cls in mro[start:]:
            if name in cls.namespace:
                return self._bind(receiver.receiver, cls.namespace[name], cls, node)
        return self.unknown(f"super() has no attribute `{name}`", node)

    def _replaced_module_attribute(self, module: Namespace, name: str, node):
        """``module.name`` after the module's code replaced itself in ``sys.modules``: the
        replacement's attribute (its class's ``__getattr__`` included); if that raises
        AttributeError, the submodule ``module.name``, as ``from package import name`` does."""
        try:
            return self.get_attribute(module.replaced_by, name, node, strict=True)
        except Raised as raised:
            if not self.is_attribute_error(raised):
                raise
            found, held = self.quietly(lambda: self.import_module(f"{module.name}.{name}", node))
            if isinstance(found, Unknown):
                raise
            self.report_held(held)
            return found

    def is_attribute_error(self, raised: Raised) -> bool:
        return isinstance(raised.exception, Instance) and raised.exception.cls.is_subclass_of(self.builtins["AttributeError"])

    def _getattr_hook(self, instance: Instance, name: str):
        """The bound ``__getattr__`` the analysed code defines on the instance's class, called
        for a name found neither on the instance nor its class (as Python does), or None.  A
        layer's submodules are found first: they are where nn.Module's own ``__getattr__``
        would find them, the end of every override's ``super().__getattr__(name)``."""
        if instance.module is not None and (name in instance.module.children or name == "training"):
            return None
        for cls in instance.cls.mro():
            hook = cls.namespace.get("__getattr__")
            if hook is not None:
                return BoundMethod(instance, hook, cls) if isinstance(hook, Function) else None
        return None

    def _function_attribute(self, function, name: str, node):
        if isinstance(function, Function) and name in function.attrs:
            return function.attrs[name]
        if isinstance(function, Function) and function.cache is not None:
            found = std_functools.cache_attribute(self, function, name, node)
            if found is not None:
                return found
        if name == "__dict__" and isinstance(function, Function):
            return function.attrs
        if isinstance(function, Partial) and name in ("func", "args", "keywords"):
            return {"func": function.function, "args": function.args, "keywords": function.kwargs}[name]
        if name == "__qualname__" and isinstance(function, Function) and function.qualname:
            return function.qualname
        dotted = _class_path(function)  # a type we model: torch.Tensor, nn.Parameter, int
        if dotted is not None and name in ("__name__", "__qualname__", "__module__"):
            module, _, short = dotted.rpartition(".")
            return module if name == "__module__" else short
        if name in ("__name__", "__qualname__") and not isinstance(function, Partial):
            return function.name
        if name == "__module__" and isinstance(function, Function):
            return function.scope.module.vars.get("__name__")
        if name == "__doc__":
            return None
        if name == "__class__":
            return Class("function", (), {})
        if name in getattr(function, "class_members", {}):  # dict.fromkeys
            return function.class_members[name]
        if isinstance(function, Function):
            value = function_objects.function_dunder(function, name)
            if value is not function_objects.MISSING:
                return value
        return self.unknown(f"attribute `{name}` of {describe(function)} is not modelled", node)

    def _wrapper_attribute(self, wrapper: MethodWrapper, name: str, node):
        """``@name.setter`` and the wrapped function (``fget``, ``__func__``) of a descriptor."""
        if name in ("setter", "getter") and wrapper.kind == "property":
            def replace(interp, args, kwargs, call_node):
                if name == "setter":
                    return MethodWrapper("property", wrapper.function, args[0])
                return MethodWrapper("property", args[0], wrapper.setter)
            return Builtin(f"property.{name}", replace, bind_self=False)
        if name in ("fget", "func", "__func__", "__wrapped__"):
            return wrapper.function
        if name == "fset":
            return wrapper.setter
        if wrapper.kind == "property" and name in ("__get__", "__set__"):
            # `Base.prop.__set__(self, value)`: a subclass's setter reusing its base's (transformers' configs)
            def descriptor(interp, args, kwargs, call_node):
                if name == "__get__":
                    return interp.call(wrapper.function, [args[0]], {}, call_node)
                if wrapper.setter is None:
                    raise interp.fail(f"property '{wrapper.name}' has no setter", call_node, "SF115",
                                      python="AttributeError")
                return interp.call(wrapper.setter, [args[0], args[1]], {}, call_node)
            return Builtin(f"property.{name}", descriptor, bind_self=False)
        return self.get_attribute(wrapper.function, name, node)

    def special_method(self, instance: Instance, name: str):
        """``__getitem__``/``__iter__``/... of a plain object's class, bound, or None.  Module
        instances keep the framework's container behaviour unless a class of the analysed code
        (or of a library) defines the method (peft's ``BufferDict.__setitem__`` registers a buffer)."""
        if instance.module is not None:
            for cls in instance.cls.mro():
                member = cls.namespace.get(name)
                if member is not None:  # the first definition decides: the framework's (a stub's) or the code's
                    source = member.source if isinstance(member, Function) else None
                    return self._bind(instance, member, cls, None) if source is not None and not source.internal \
                        else None
            return None
        for cls in instance.cls.mro():
            if name in cls.namespace:
                return self._bind(instance, cls.namespace[name], cls, None)
        return None

    def _bind(self, receiver, member, owner, node):
        if isinstance(member, MethodWrapper):
            if member.kind == "staticmethod":
                return member.function
            if member.kind == "classmethod":
                return BoundMethod(receiver.cls if isinstance(receiver, Instance) else receiver, member.function, owner)
            if isinstance(receiver, Class):
                return member  # a property read on the class is the property object
            value = self.call(member.function, [receiver], {}, node)
            if member.kind == "cached_property" and isinstance(receiver, Instance):
                receiver.attrs[member.name] = value  # computed once, then an instance attribute
            return value
        if isinstance(member, Function):
            return BoundMethod(receiver, member, owner)
        if isinstance(member, Instance) and member.module is None:
            getter = self.special_method(member, "__get__")  # a descriptor object of the analysed code
            if getter is not None:
                instance = receiver if isinstance(receiver, Instance) else None
                return self.call(getter, [instance, receiver.cls if instance is not None else receiver], {}, node)
        if isinstance(member, Builtin) and member.bind_self:
            return BoundMethod(receiver, member, owner)
        return member

    # ---- calls ---------------------------------------------------------------------
    def call(self, function, args: list, kwargs: dict, node):
        kind = type(function)  # the two most frequent kinds first, by exact type (neither has subclasses)
        if kind is not Builtin or not function.pure:  # (Expressions._comprehension_argument asks)
            self.effectful_calls += 1
        if kind is Function:
            if args and type(args[0]) is Instance and args[0].module is not None:  # fn(module, ...): maybe memoised
                return self.framework.module_call(self, function, args, kwargs, node,
                                                  lambda: self.call_function(function, args, kwargs, node))
            return self.call_function(function, args, kwargs, node)
        if kind is Builtin:
            return self.call_builtin(function, args, kwargs, node)
        if isinstance(function, Unknown):
            self.effectful_calls -= 1  # calling an unknown runs nothing
            return partial_dict.plain(function)
        if isinstance(function, BoundMethod):
            if isinstance(function.function, Function) and function.owner is not None:
                if args and type(args[0]) is Instance and args[0].module is not None:  # obj.fn(module, ...)
                    return self.framework.module_call(self, function, args, kwargs, node,
                                                      lambda: self._call_method(function, args, kwargs, node))
                return self._call_method(function, args, kwargs, node)
            return self.call(function.function, [function.receiver, *args], kwargs, node)
        if isinstance(function, Builtin):
            return self.call_builtin(function, args, kwargs, node)
        if isinstance(function, Function):
            return self.call_function(function, args, kwargs, node)
        if isinstance(function, Class):
            for cls in function.mro():
                self.report_held(cls.namespace.pop("__held_reports__", ()))
            meta_call = self._metaclass_call(function)
            if meta_call is not None:  # class A(metaclass=Meta): A(...) is Meta.__call__(A, ...)
                return self.call(meta_call, args, kwargs, node)
            return self.construct(function, args, kwargs, node)
        return self._call_other(function, args, kwargs, node)

    def _call_method(self, method: BoundMethod, args: list, kwargs: dict, node):
        self.frames.append((method.owner, method.receiver))
        try:
            return self.call_function(method.function, [method.receiver, *args], kwargs, node)
        finally:
            self.frames.pop()

    def _metaclass_call(self, cls: Class):
        """``Meta.__call__`` bound to ``cls`` when its metaclass defines one, else None."""
        meta = next((c.namespace["__metaclass__"] for c in cls.mro() if "__metaclass__" in c.namespace), None)
        if not isinstance(meta, Class):
            return None
        for owner in meta.mro():
            member = owner.namespace.get("__call__")
            if isinstance(member, Function):
                return BoundMethod(cls, member, owner)
        return None

    def construct(self, function: Class, args, kwargs, node):
        """What ``type.__call__`` does: build an instance of ``function`` and initialise it."""
        if pyclasses.is_enum(function) and len(args) == 1 and not kwargs:
            return pyclasses.enum_lookup(self, function, args[0], node)
        if std_containers.container_type(function) is not None:
            return std_containers.instantiate_dict(self, function, args, kwargs, node)
        try:
            new = function.lookup("__new__")
        except KeyError:
            new = None
        if isinstance(new, Builtin):
            return self.call_builtin(new, args, kwargs, node)
        return self.framework.instantiate(self, function, args, kwargs, node)

    def _call_other(self, function, args: list, kwargs: dict, node):
        if isinstance(function, Partial):
            return self.call(function.function, [*function.args, *args], {**function.kwargs, **kwargs}, node)
        if isinstance(function, Instance):
            try:
                method = function.cls.lookup("__call__")
            except KeyError:
                return self.unknown(f"{function.cls.name} instance is not callable", node)
            return self.call(self._bind(function, method, function.cls, node), args, kwargs, node)
        if isinstance(function, GenericAlias):
            return typing_.call_alias(self, function, args, kwargs, node)
        if isinstance(function, Tensor):
            return self.unknown("a tensor is called like a function", node)
        if function is None or type(function) in _NOT_CALLABLE:  # a sub-model left None by its config
            raise self.fail(f"'{type(function).__name__}' object is not callable", node, python="TypeError")
        return self.unknown(f"calling {describe(function)} is not interpreted", node)

    def call_builtin(self, builtin: Builtin, args, kwargs, node):
        if self.construction_memo.recorders:
            if builtin.name in _HANDS_OUT_NAMESPACES:
                self.construction_memo.refuse(f"calls {builtin.name}()")
            self.construction_memo.builtin_called(builtin, args, kwargs)
        try:
            return builtin.fn(self, args, kwargs, node)
        except CannotKnow as why:
            return self.unknown(f"`{builtin.name}` on {why}", node)
        except (TypeError, KeyError, IndexError, ValueError, AttributeError) as error:
            # A call shape we do not model (odd arguments): unknown, never a crash.
            return self.unknown(f"`{builtin.name}` called in a way that is not modelled ({reason(error)})", node)

    def signature(self, text: str) -> Function:
        """A framework class's constructor signature (``"in_features, out_features, bias=True"``)
        as a Function to bind arguments with; parsed once, defaults evaluated by us."""
        cached = self._signatures.get(text)
        if cached is None:
            fn_node = parse_source(f"def _({text}): pass\n", "<signature>", internal=True).module.body[0]
            cached = self._signatures[text] = Function("_", fn_node, Scope(), None, self._defaults(fn_node.params, Scope()))
        return cached

    def bind_signature(self, text: str, name: str, args: list, kwargs: dict, node) -> dict:
        """A framework constructor's arguments bound to its signature text, by name; a wrong
        call is a located error naming the class (``Linear() missing 1 required ...``)."""
        function = self.signature(text)
        function.name = name
        scope = Scope()
        self.bind_arguments(function, list(args), dict(kwargs), scope, node)
        return dict(scope.vars)

    def current_globals(self, node):
        """``globals()``: the module namespace of the file whose code is running."""
        origin = self.source.origin if self.source is not None else None
        module = self.project.modules.get(origin) if self.project is not None and origin is not None else None
        return module.members if module is not None else self.unknown("globals() outside a file of the project", node)

    def current_method(self):
        return self.frames[-1] if self.frames else None

    def call_function(self, function: Function, args: list, kwargs: dict, node):
        owner = function.defining_class
        if owner is not None and args:  # a method, however it is called: super() in it needs its class
            self.frames.append((owner, args[0]))
            try:
                return self._in_mode(function, args, kwargs, node)
            finally:
                self.frames.pop()
        return self._in_mode(function, args, kwargs, node)

    def _in_mode(self, function: Function, args: list, kwargs: dict, node):
        if function.around is None:
            return self._run_function(function, args, kwargs, node)
        with function.around():  # `@torch.no_grad()`: the body runs in that mode
            return self._run_function(function, args, kwargs, node)

    def _run_function(self, function: Function, args: list, kwargs: dict, node):
        if function.cache is not None:  # an lru_cache wrapper: a known key answers without running the body
            return function.cache.call(self, args, kwargs, node)
        self.budget.enter(self, node)
        scope = function.scope.child()
        scope.qualname = function.qualname or function.name
        if self.construction_memo.recorders:  # a frame of the construction being recorded: its own state
            self.construction_memo.frame(scope, function)
        previous_anchor = self.anchor
        if function.source is not None and function.source.internal and not (self.source and self.source.internal):
            self.anchor = self.location(node)
        previous, self.source = self.source, function.source
        generator = not isinstance(function.node, cst.Lambda) and is_generator(function.node, function.source)
        if generator:
            self.generators.append(Generated())
        try:
            self.bind_arguments(function, args, kwargs, scope, node)
            body = function.node.body
            if isinstance(function.node, cst.Lambda):
                return self.evaluate_node(body, scope)
            try:
                self.exec_statement(body, scope)
            except _Return as result:
                return self.generators[-1] if generator else result.value
            except _Jump as jump:  # break/continue outside any loop of this function
                raise self.misplaced(jump) from None
            return self.generators[-1] if generator else None
        except AnalysisError as error:
            if error.reached_from is None and previous is not None:
                self._note_reached_from(error, previous, function.source, node)
            raise
        finally:
            if generator:
                self.generators.pop()
            self.source = previous
            self.anchor = previous_anchor
            self.budget.leave()

    def _note_reached_from(self, error: AnalysisError, caller: SourceFile, callee, node) -> None:
        """Mark ``error`` with the call site when this call crossed from a file of the analysed
        project into a library's (the innermost such call: errors pass here on their way out)."""
        libraries = self.project.libraries if self.project is not None else None
        if (libraries is None or callee is None or caller.internal or caller.origin is None
                or not str(caller.path).endswith(".py") or libraries.holds(caller.origin)):
            return
        if not callee.internal and libraries.holds(callee.origin):
            error.reached_from = caller.location(node)

    # ---- a frame entered more than once (contextlib.contextmanager: before and after its yield)
    def open_frame(self, function: Function, args: list, kwargs: dict, node) -> Scope:
        """The frame ``function`` would run in, its arguments bound, nothing run yet."""
        scope = function.scope.child()
        scope.qualname = function.qualname or function.name
        if self.construction_memo.recorders:
            self.construction_memo.frame(scope, function)
        previous, self.source = self.source, function.source
        try:
            self.bind_arguments(function, args, kwargs, scope, node)
        finally:
            self.source = previous
        return scope

    def run_in_frame(self, function: Function, scope: Scope, statements, node) -> bool:
        """Run part of ``function``'s body in its frame, as ``call_function`` runs all of it;
        True when a ``return`` ended it."""
        return self._in_frame(function, node, lambda: self.exec_block(statements, scope))

    def evaluate_in_frame(self, function: Function, scope: Scope, expression, node):
        found = []
        self._in_frame(function, node, lambda: found.append(self.evaluate_node(expression, scope)))
        return found[0]

    def _in_frame(self, function: Function, node, work) -> bool:
        self.budget.enter(self, node)
        previous_anchor = self.anchor
        if function.source is not None and function.source.internal and not (self.source and self.source.internal):
            self.anchor = self.location(node)
        previous, self.source = self.source, function.source
        try:
            work()
            return False
        except _Return:
            return True
        except _Jump as jump:
            raise self.misplaced(jump) from None
        finally:
            self.source = previous
            self.anchor = previous_anchor
            self.budget.leave()

    def bind_arguments(self, function: Function, args, kwargs, scope: Scope, node) -> None:
        params = function.node.params
        plan = _BIND_PLANS.get(params)
        if plan is None:
            plan = _BIND_PLANS[params] = _bind_plan(params)
        positional, star_name, kwonly, star_kwarg = plan
        kwargs = dict(kwargs)
        for index, name in enumerate(positional):
            if index < len(args):
                if name in kwargs:
                    raise self._call_error(function, f"got multiple values for argument '{name}'", node)
                scope.vars[name] = args[index]
            elif name in kwargs:
                scope.vars[name] = kwargs.pop(name)
            elif name in function.defaults:
                scope.vars[name] = function.defaults[name]
                if self.construction_memo.recorders:  # evaluated when the `def` ran: outside state
                    self.construction_memo.default_read(function, name, function.defaults[name])
            else:
                raise self._call_error(function, f"missing required argument '{name}'", node)
        extra = list(args[len(positional):])
        if star_name is not None:
            scope.vars[star_name] = tuple(extra)
        elif extra:
            raise self._call_error(function, f"takes {len(positional)} positional arguments but {len(args)} were given", node)
        for name in kwonly:
            if name in kwargs:
                scope.vars[name] = kwargs.pop(name)
            elif name in function.defaults:
                scope.vars[name] = function.defaults[name]
                if self.construction_memo.recorders:
                    self.construction_memo.default_read(function, name, function.defaults[name])
            else:
                raise self._call_error(function, f"missing required keyword argument '{name}'", node)
        if star_kwarg is not None:
            scope.vars[star_kwarg] = kwargs
        elif kwargs:
            raise self._call_error(function, f"got an unexpected keyword argument '{next(iter(kwargs))}'", node)

    def _call_error(self, function: Function, message: str, node) -> AnalysisError:
        return self.fail(f"{function.name}() {message}", node, code="SF114", python="TypeError")


# Parameters node -> its names in binding order (_bind_plan), read once per function rather than
# once per call: (positional, *name or None, keyword-only, **name or None).
_BIND_PLANS: dict = {}


def _bind_plan(params) -> tuple:
    star = params.star_arg
    return (tuple(param.name.value for param in (*params.posonly_params, *params.params)),
            star.name.value if isinstance(star, cst.Param) else None,
            tuple(param.name.value for param in params.kwonly_params),
            params.star_kwarg.name.value if params.star_kwarg is not None else None)
