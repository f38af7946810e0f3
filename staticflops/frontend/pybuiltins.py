"""Python's builtins and the stdlib modules model code uses, over our own values."""

from __future__ import annotations

import math

from staticflops.diagnostics import reason
from staticflops.frontend import pyclasses
from staticflops.frontend.values import (
    BoundMethod, Builtin, Class, Function, Instance, ModuleState, Namespace, NoOpMembers, Parameter, Partial, Record,
    SuperProxy, Tensor, Unknown,
)
from staticflops.shapes import Expr, Undecidable


def _fn(name, pytype=None):
    def register(fn):
        builtin = Builtin(name, fn, bind_self=False)
        builtin.pytype = pytype
        return builtin
    return register


def _plain(python_fn, name):
    """Wrap a pure Python function of known values; unknown or odd inputs give Unknown."""
    def fn(interp, args, kwargs, node):
        for value in [*args, *kwargs.values()]:
            if isinstance(value, Unknown):
                return value
        try:
            return python_fn(*args, **kwargs)
        except (TypeError, ValueError, Undecidable, OverflowError) as error:
            return interp.unknown(f"{name}() could not be evaluated ({reason(error)})", node)
    return Builtin(name, fn, bind_self=False)


def _bounded_pow(interp, args, kwargs, node):
    """``pow(2, 10**9)`` is ``2 ** 10**9``: the same integer-size budget applies."""
    if len(args) == 2 and not kwargs:
        interp.budget.check_int(interp, "Power", args[0], args[1], node)
    return _plain(pow, "pow").fn(interp, args, kwargs, node)


def _bounded_repr(interp, args, kwargs, node):
    """``repr`` of a list holding one long string a million times: bounded as ``str()`` is."""
    if len(args) == 1 and not kwargs:
        interp.budget.check_text(interp, args[0], node)
    return _plain(repr, "repr").fn(interp, args, kwargs, node)


def _iterable(interp, value, node):
    return list(interp.iterate(value, node))


def build_builtins(object_class: Class) -> dict:
    b: dict = {}

    @_fn("range", range)
    def range_(interp, args, kwargs, node):
        for value in args:
            if isinstance(value, Unknown):
                return value
            if not isinstance(value, int):
                return interp.unknown(f"range() over a symbolic or non-integer bound {value}", node)
        return range(*args)
    b["range"] = range_

    @_fn("len")
    def len_(interp, args, kwargs, node):
        value = args[0]
        if isinstance(value, Unknown):
            return value
        if isinstance(value, Tensor):
            return value.shape[0] if value.shape else interp.unknown("len() of a tensor of unknown shape", node)
        if isinstance(value, Instance):
            return interp.call(interp.get_attribute(value, "__len__", node), [], {}, node)
        try:
            return len(value)
        except TypeError:
            return interp.unknown(f"len() of {type(value).__name__}", node)
        except OverflowError:  # len(range(2**63)) fails in Python too
            return interp.unknown("len() of a sequence of 2**63 items or more", node)
    b["len"] = len_

    def converter(pytype, name):
        @_fn(name, pytype)
        def convert(interp, args, kwargs, node):
            if not args:
                return dict(kwargs) if pytype is dict else pytype()
            value = args[0]
            if isinstance(value, Unknown):
                return value
            if pytype in (list, tuple, set) :
                return pytype(_iterable(interp, value, node))
            if pytype is dict:
                return dict(value if isinstance(value, dict) else _iterable(interp, value, node), **kwargs)
            if isinstance(value, Expr) and pytype is int:
                return _floor(value)
            if isinstance(value, Tensor):
                return interp.unknown(f"{name}() of a tensor's value", node)
            if pytype is str:
                interp.budget.check_text(interp, value, node)
            try:
                return pytype(*args)
            except (TypeError, ValueError, Undecidable):
                return interp.unknown(f"{name}() of {value!r}", node)
        return convert
    for pytype in (int, float, str, bool, list, tuple, dict, set, frozenset):
        b[pytype.__name__] = converter(pytype, pytype.__name__)

    def reducer(python_fn, name):
        @_fn(name)
        def reduce(interp, args, kwargs, node):
            items = _iterable(interp, args[0], node) if len(args) == 1 else list(args)
            if any(isinstance(v, Unknown) for v in items):
                return next(v for v in items if isinstance(v, Unknown))
            if any(isinstance(v, Tensor) for v in items):
                return interp.unknown(f"{name}() over tensors", node)
            try:
                if name == "sum":
                    total = args[1] if len(args) > 1 else kwargs.get("start", 0)
                    for v in items:
                        total = total + v
                    return total
                return python_fn(items, **{k: v for k, v in kwargs.items() if k == "default"})
            except (Undecidable, TypeError, ValueError) as error:
                return interp.unknown(f"{name}() could not be evaluated ({reason(error)})", node)
        return reduce
    b["min"], b["max"], b["sum"] = reducer(min, "min"), reducer(max, "max"), reducer(sum, "sum")
    b["any"], b["all"] = reducer(any, "any"), reducer(all, "all")
    b["sorted"] = reducer(sorted, "sorted")

    b["abs"] = _plain(abs, "abs")
    b["round"] = _plain(round, "round")
    b["divmod"] = _plain(divmod, "divmod")
    b["pow"] = Builtin("pow", _bounded_pow, bind_self=False)
    b["repr"] = Builtin("repr", _bounded_repr, bind_self=False)
    b["hash"] = _plain(hash, "hash")
    b["chr"], b["ord"] = _plain(chr, "chr"), _plain(ord, "ord")

    @_fn("zip")
    def zip_(interp, args, kwargs, node):
        return list(zip(*[_iterable(interp, a, node) for a in args]))
    b["zip"] = zip_

    @_fn("enumerate")
    def enumerate_(interp, args, kwargs, node):
        return list(enumerate(_iterable(interp, args[0], node), args[1] if len(args) > 1 else kwargs.get("start", 0)))
    b["enumerate"] = enumerate_

    @_fn("reversed")
    def reversed_(interp, args, kwargs, node):
        return list(reversed(_iterable(interp, args[0], node)))
    b["reversed"] = reversed_

    @_fn("iter")
    def iter_(interp, args, kwargs, node):
        return _iterable(interp, args[0], node)
    b["iter"] = iter_

    @_fn("map")
    def map_(interp, args, kwargs, node):
        columns = [_iterable(interp, a, node) for a in args[1:]]
        return [interp.call(args[0], list(items), {}, node) for items in zip(*columns)]
    b["map"] = map_

    @_fn("filter")
    def filter_(interp, args, kwargs, node):
        items = _iterable(interp, args[1], node)
        if args[0] is None:
            return [v for v in items if interp.truth(v, node) is True]
        return [v for v in items if interp.truth(interp.call(args[0], [v], {}, node), node) is True]
    b["filter"] = filter_

    @_fn("isinstance")
    def isinstance_(interp, args, kwargs, node):
        value, kinds = args
        return is_instance(value, kinds)
    b["isinstance"] = isinstance_

    @_fn("issubclass")
    def issubclass_(interp, args, kwargs, node):
        cls, kinds = args
        if not isinstance(cls, Class):
            return interp.unknown("issubclass() of a value that is not a class", node)
        options = kinds if isinstance(kinds, tuple) else (kinds,)
        return any(isinstance(k, Class) and cls.is_subclass_of(k) for k in options)
    b["issubclass"] = issubclass_

    @_fn("hasattr")
    def hasattr_(interp, args, kwargs, node):
        value, name = args
        if isinstance(value, Instance):
            if name in value.attrs:
                return True
            try:
                value.cls.lookup(name)
                return True
            except KeyError:
                return False
        if isinstance(value, Class):
            try:
                value.lookup(name)
                return True
            except KeyError:
                return False
        if isinstance(value, Namespace):
            return name in value.members
        return interp.unknown("hasattr() on this value", node)
    b["hasattr"] = hasattr_

    @_fn("getattr")
    def getattr_(interp, args, kwargs, node):
        value, name = args[0], args[1]
        if isinstance(name, Unknown):
            return name
        if len(args) > 2 and hasattr_.fn(interp, [value, name], {}, node) is False:
            return args[2]
        return interp.get_attribute(value, name, node)
    b["getattr"] = getattr_

    @_fn("setattr")
    def setattr_(interp, args, kwargs, node):
        interp.set_attribute(args[0], args[1], args[2], node)
    b["setattr"] = setattr_

    @_fn("callable")
    def callable_(interp, args, kwargs, node):
        return isinstance(args[0], (Function, Builtin, Class, BoundMethod, Partial))
    b["callable"] = callable_

    @_fn("type")
    def type_(interp, args, kwargs, node):
        value = args[0]
        if isinstance(value, Instance):
            return value.cls
        return b.get(type(value).__name__, interp.unknown("type() of this value", node))
    b["type"] = type_

    @_fn("print")
    def print_(interp, args, kwargs, node):
        return None
    b["print"] = print_

    @_fn("super")
    def super_(interp, args, kwargs, node):
        if len(args) == 2:
            return SuperProxy(args[1], args[0])
        frame = interp.current_method()
        if frame is None:
            return interp.unknown("super() outside a method", node)
        owner, receiver = frame
        return SuperProxy(receiver, owner)
    b["super"] = super_

    for name in ("staticmethod", "classmethod", "property"):
        b[name] = Builtin(name, lambda interp, args, kwargs, node: args[0], bind_self=False)

    b["object"] = object_class
    for name in ("Exception", "ValueError", "TypeError", "KeyError", "IndexError", "RuntimeError",
                 "NotImplementedError", "AssertionError", "AttributeError", "ImportError", "Warning",
                 "UserWarning", "DeprecationWarning", "FutureWarning", "RuntimeWarning", "StopIteration",
                 "LookupError", "ArithmeticError", "ZeroDivisionError", "OSError", "ModuleNotFoundError"):
        b[name] = Class(name, (object_class,), {})
    b["True"], b["False"], b["None"], b["NotImplemented"] = True, False, None, None
    b["__name__"] = "__analysed__"
    return b


def is_instance(value, kinds) -> bool:
    options = kinds if isinstance(kinds, tuple) else (kinds,)
    for kind in options:
        if isinstance(kind, Class) and isinstance(value, Instance) and value.cls.is_subclass_of(kind):
            return True
        pytype = getattr(kind, "pytype", None)
        if pytype is not None:
            if pytype is int and isinstance(value, Expr):
                return True
            if isinstance(value, pytype) and not (pytype is int and isinstance(value, bool)):
                return True
        if getattr(kind, "is_tensor_type", False) and isinstance(value, Tensor):
            return True
        if isinstance(kind, Class) and isinstance(value, Record) and value.cls.is_subclass_of(kind):
            return True
        check = getattr(kind, "instance_check", None)
        if check is not None and check(value):
            return True
    return False


def _floor(value):
    if isinstance(value, Expr):
        scale = math.lcm(*(c.denominator for c in value.terms.values()))
        return (value * scale) // scale
    return math.floor(value)


def _ceil(value):
    if isinstance(value, Expr):
        return -_floor(-value)
    return math.ceil(value)


def build_stdlib(builtins: dict) -> dict:
    """Modules importable by name: math, functools, collections, typing, ..."""
    def namespace(name, members):
        return Namespace(name, members)

    math_members = {name: _plain(getattr(math, name), f"math.{name}") for name in
                    ("sqrt", "log", "log2", "log10", "exp", "gcd", "isclose", "cos", "sin", "pow", "fabs")}
    math_members.update({"ceil": _plain(_ceil, "math.ceil"), "floor": _plain(_floor, "math.floor"),
                         "prod": _plain(lambda items, start=1: _product(items, start), "math.prod"),
                         "pi": math.pi, "e": math.e, "inf": math.inf})

    @_fn("partial")
    def partial(interp, args, kwargs, node):
        return Partial(args[0], tuple(args[1:]), dict(kwargs))

    @_fn("OrderedDict", dict)
    def ordered_dict(interp, args, kwargs, node):
        return builtins["dict"].fn(interp, args, kwargs, node)

    typing_names = ("Any", "Callable", "Dict", "List", "Optional", "Tuple", "Type", "Union", "Sequence",
                    "Iterable", "Mapping", "Set", "TypeVar", "cast", "Literal", "overload", "Final", "ClassVar")
    identity = Builtin("typing", lambda interp, args, kwargs, node: args[-1] if args else None, bind_self=False)
    typing = {name: identity for name in typing_names}

    @_fn("reduce")
    def reduce(interp, args, kwargs, node):
        items = _iterable(interp, args[1], node)
        if len(args) > 2:
            items = [args[2], *items]
        if not items:
            return interp.unknown("reduce() of an empty sequence", node)
        total = items[0]
        for item in items[1:]:
            total = interp.call(args[0], [total, item], {}, node)
        return total

    object_class = builtins["object"]
    typing["NamedTuple"] = pyclasses.typing_namedtuple(object_class)
    sequence = Builtin("Sequence", identity.fn, bind_self=False)
    sequence.pytype = (list, tuple, str, range)
    abc = {"Sequence": sequence, "Mapping": Builtin("Mapping", identity.fn, bind_self=False),
           "Callable": identity, "Iterable": identity, "Iterator": identity}
    abc["Mapping"].pytype = dict
    typing["Sequence"] = sequence
    function_type = Builtin("FunctionType", identity.fn, bind_self=False)
    function_type.instance_check = lambda value: isinstance(value, Function)
    # logging.getLogger(...).info(...) and the like: every member returns the namespace again
    quiet = Namespace("quiet", NoOpMembers(None))
    quiet.members.anything = Builtin("no-op", lambda i, a, k, n: quiet, bind_self=False)
    return {
        "math": namespace("math", math_members),
        "functools": namespace("functools", {"partial": partial, "reduce": reduce,
                                             "lru_cache": identity, "wraps": identity, "cache": identity}),
        "collections": namespace("collections", {"OrderedDict": ordered_dict, "namedtuple": pyclasses.namedtuple_builtin(),
                                                 "defaultdict": builtins["dict"], "abc": namespace("collections.abc", abc)}),
        "collections.abc": namespace("collections.abc", abc),
        "typing": namespace("typing", typing),
        "typing_extensions": namespace("typing_extensions", typing),
        "warnings": namespace("warnings", {"warn": identity, "filterwarnings": identity, "simplefilter": identity}),
        "logging": quiet,
        "copy": namespace("copy", {"deepcopy": Builtin("deepcopy", lambda i, a, k, n: deepcopy(a[0]), bind_self=False),
                                   "copy": Builtin("copy", lambda i, a, k, n: a[0], bind_self=False)}),
        "__future__": namespace("__future__", {"annotations": None}),
        "enum": namespace("enum", pyclasses.enum_members_for(None, object_class)),
        "dataclasses": namespace("dataclasses", pyclasses.dataclasses_members()),
        "types": namespace("types", {"FunctionType": function_type, "ModuleType": identity,
                                     "SimpleNamespace": object_class}),
        "itertools": namespace("itertools", {"chain": Builtin("chain", lambda i, a, k, n: [x for v in a for x in _iterable(i, v, n)], bind_self=False),
                                             "repeat": Builtin("repeat", lambda i, a, k, n: [a[0]] * (a[1] if len(a) > 1 else k["times"]), bind_self=False)}),
    }


def _product(items, start=1):
    total = start
    for item in items:
        total = total * item
    return total


def deepcopy(value, memo: dict | None = None):
    """``copy.deepcopy`` of our values: new module instances, so each copy has its own parameters."""
    memo = {} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, Instance):
        clone = Instance(value.cls, location=value.location)
        memo[id(value)] = clone
        clone.attrs = {k: deepcopy(v, memo) for k, v in value.attrs.items()}
        if value.module is not None:
            state = value.module
            clone.module = ModuleState(
                children={k: deepcopy(v, memo) for k, v in state.children.items()},
                parameters={k: deepcopy(v, memo) for k, v in state.parameters.items()},
                kind=state.kind, attrs=dict(state.attrs), frozen=state.frozen)
        return clone
    if isinstance(value, Parameter):
        clone = Parameter(value.shape, value.dtype, value.requires_grad, value.trainable, None)
        memo[id(value)] = clone
        clone.owner = deepcopy(value.owner, memo) if value.owner is not None else None
        return clone
    if isinstance(value, list):
        return [deepcopy(v, memo) for v in value]
    if isinstance(value, tuple):
        return tuple(deepcopy(v, memo) for v in value)
    if isinstance(value, dict):
        return {k: deepcopy(v, memo) for k, v in value.items()}
    return value
