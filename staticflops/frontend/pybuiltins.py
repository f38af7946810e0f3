"""Python's builtins and the stdlib modules model code uses, over our own values."""

from __future__ import annotations

import collections
import itertools
import math

from staticflops.diagnostics import AnalysisError, reason
from staticflops.frontend import syntax as cst
from staticflops.frontend import datafiles, function_objects, pathqueries, pyclasses
from staticflops.frontend.pyargparse import argparse_namespace
from staticflops.frontend.scope import MISSING
from staticflops.frontend.stdlib import containers, inspect_, literals, typing_
from staticflops.frontend.values import (
    BoundMethod, Builtin, Class, Cycle, Function, Instance, LazyValue, MethodWrapper, ModuleState, Namespace, NoOpMembers, Parameter,
    Partial, Record, SuperProxy, Tensor, TypeUnion, Unknown,
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
    return Builtin(name, fn, bind_self=False, pure=True)


def _known_number(value) -> bool:
    """A plain number, or a one-element tensor whose value is known: comparable by value."""
    if isinstance(value, Tensor):
        return value.shape is not None and all(d == 1 for d in value.shape) and value.values is not None \
            and len(value.values) == 1 and type(value.values[0]) in (int, float, bool)
    return type(value) in (int, float, bool)


def _known_number_value(value):
    return value.values[0] if isinstance(value, Tensor) else value


def _bounded_pow(interp, args, kwargs, node):
    """``pow(2, 10**9)`` is ``2 ** 10**9``: the same integer-size budget applies."""
    if len(args) == 2 and not kwargs:
        interp.budget.check_int(interp, "Power", args[0], args[1], node)
    return _plain(pow, "pow").fn(interp, args, kwargs, node)


def _bounded_repr(interp, args, kwargs, node):
    """``repr`` of a list holding one long string a million times: bounded as ``str()`` is."""
    if len(args) == 1 and not kwargs:
        interp.budget.check_text(interp, args[0], node)
        if isinstance(args[0], Instance) and args[0].module is None:
            return interp.display_text(args[0], "r", "", node)  # its class's __repr__
    return _plain(repr, "repr").fn(interp, args, kwargs, node)


def _iterable(interp, value, node):
    return list(interp.iterate(value, node))


def _seeded(value) -> bool:
    """Does Python's hash of ``value`` change with ``PYTHONHASHSEED`` (strings and bytes)?"""
    if isinstance(value, (str, bytes)):
        return True
    return isinstance(value, (tuple, frozenset)) and any(map(_seeded, value))


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

    @_fn("slice", slice)
    def slice_(interp, args, kwargs, node):
        """``slice(start, stop, step)``, the object ``x[a:b]`` builds; bounds may be symbolic."""
        for value in args:
            if isinstance(value, Unknown):
                return value
        if not 1 <= len(args) <= 3 or kwargs:
            raise interp.fail("slice() takes 1 to 3 positional arguments", node, python="TypeError")
        return slice(*args)
    b["slice"] = slice_

    @_fn("len")
    def len_(interp, args, kwargs, node):
        value = args[0]
        if isinstance(value, Unknown):
            return value
        if isinstance(value, Tensor):
            return value.shape[0] if value.shape else interp.unknown("len() of a tensor of unknown shape", node)
        if isinstance(value, Instance):
            return interp.call(interp.get_attribute(value, "__len__", node), [], {}, node)
        if isinstance(value, Class) and pyclasses.is_enum(value):  # len(Color): its members, aliases once
            return len(set(pyclasses.enum_members(value).values()))
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
                if pytype in (int, float, bool) and _known_number(value):  # int(t) of a one-element tensor
                    return pytype(_known_number_value(value))
                return interp.unknown(f"{name}() of a tensor's value", node)
            if pytype is str:
                if isinstance(value, Builtin) and hasattr(value, "python_repr"):  # a framework class: str(type(t))
                    return value.python_repr
                if isinstance(value, Instance) and value.module is None and len(args) == 1:
                    return interp.display_text(value, "s", "", node)  # its class's __str__ or __repr__
                interp.budget.check_text(interp, value, node)
            try:
                return pytype(*args)
            except (TypeError, ValueError) as error:
                if all(type(a) in (str, int, float, bool, type(None)) for a in args):  # int("x"): Python's own error
                    raise interp.fail(f"{name}(): {error}", node, python=type(error).__name__) from None
                return interp.unknown(f"{name}() of {value!r}", node)
            except Undecidable:
                return interp.unknown(f"{name}() of {value!r}", node)
        return convert
    for pytype in (int, float, str, bool, list, tuple, dict, set, frozenset):
        b[pytype.__name__] = converter(pytype, pytype.__name__)
    b["dict"].base_class = containers.dict_base_class("dict", object_class)  # class X(dict)
    # dict.fromkeys(iterable, value=None): transformers' state-space caches, one entry per layer
    b["dict"].class_members = {"fromkeys": Builtin("dict.fromkeys", lambda i, a, k, n: dict.fromkeys(
        _iterable(i, a[0], n), a[1] if len(a) > 1 else k.get("value")), bind_self=False)}

    def reducer(python_fn, name):
        @_fn(name)
        def reduce(interp, args, kwargs, node):
            # sum(iterable, start) takes one iterable; min/max(a, b, ...) compare their arguments
            many = len(args) > 1 and name != "sum"
            items = list(args) if many else _iterable(interp, args[0], node)
            if any(isinstance(v, Unknown) for v in items):
                return next(v for v in items if isinstance(v, Unknown))
            if any(isinstance(v, Tensor) for v in items):
                if name in ("min", "max") and not kwargs and items and all(map(_known_number, items)):
                    # max(pad, tensor(3)): each comparison is a one-element tensor's truth, decided
                    # by the known values; the winner is the item itself (first of equals, as CPython)
                    return python_fn(items, key=_known_number_value)
                return interp.unknown(f"{name}() over tensors", node)
            ordering = {k: v for k, v in kwargs.items() if k in ("key", "reverse") and v is not None}
            if ordering and name in ("min", "max", "sorted"):
                return _ordered(interp, name, items, ordering, kwargs, node)
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

    def _ordered(interp, name, items, ordering, kwargs, node):
        """min/max/sorted with ``key=`` (called on each item, in order) or ``reverse=``: the
        items ordered by their keys; ties keep the items' order, as CPython's are stable (min
        and max give the first of equal ones)."""
        key, reverse = ordering.get("key"), ordering.get("reverse", False)
        if isinstance(reverse, Unknown):
            return reverse
        if name != "sorted" and "reverse" in ordering:
            return interp.unknown(f"{name}() got an unexpected keyword argument 'reverse'", node)
        keys = items
        if key is not None:
            keys = [interp.call(key, [item], {}, node) for item in items]
            for found in keys:
                if isinstance(found, Unknown):
                    return found
        try:
            if name == "sorted":
                return [items[i] for i in sorted(range(len(items)), key=keys.__getitem__, reverse=bool(reverse))]
            if not items and "default" in kwargs:
                return kwargs["default"]
            return items[(min if name == "min" else max)(range(len(items)), key=keys.__getitem__)]
        except (Undecidable, TypeError, ValueError) as error:
            return interp.unknown(f"{name}() could not be evaluated ({reason(error)})", node)

    b["min"], b["max"], b["sum"] = reducer(min, "min"), reducer(max, "max"), reducer(sum, "sum")
    b["any"], b["all"] = reducer(any, "any"), reducer(all, "all")
    b["sorted"] = reducer(sorted, "sorted")

    plain_abs = _plain(abs, "abs").fn

    def abs_(interp, args, kwargs, node):
        # abs(x) is type(x).__abs__(x): a tensor's is Tensor.abs(), a class's its own
        if len(args) == 1 and not kwargs and isinstance(args[0], (Tensor, Instance)):
            method = "abs" if isinstance(args[0], Tensor) else "__abs__"
            return interp.call(interp.get_attribute(args[0], method, node), [], {}, node)
        return plain_abs(interp, args, kwargs, node)
    b["abs"] = Builtin("abs", abs_, bind_self=False)
    b["round"] = _plain(round, "round")
    b["divmod"] = _plain(divmod, "divmod")
    b["pow"] = Builtin("pow", _bounded_pow, bind_self=False)
    b["repr"] = Builtin("repr", _bounded_repr, bind_self=False)
    plain_hash = _plain(hash, "hash").fn

    @_fn("hash")
    def hash_(interp, args, kwargs, node):
        if args and _seeded(args[0]):
            return interp.unknown("hash() of a string differs in every Python process (PYTHONHASHSEED)", node)
        return plain_hash(interp, args, kwargs, node)
    b["hash"] = hash_

    @_fn("id")
    def id_(interp, args, kwargs, node):
        """An object's identity: equal for the same object, distinct for two alive at once (all
        code may rely on).  CPython's numbers are addresses, different in every process; these
        are numbered in the order the analysis first asks, so a report never depends on memory."""
        if len(args) != 1 or kwargs:
            raise interp.fail(f"id() takes exactly one argument ({len(args)} given)", node, python="TypeError")
        table = interp.identities
        return table.setdefault(id(args[0]), 0x7F0000000000 + 16 * len(table))
    b["id"] = id_
    b["chr"], b["ord"] = _plain(chr, "chr"), _plain(ord, "ord")

    @_fn("zip")
    def zip_(interp, args, kwargs, node):
        # itertools.cycle(x) beside finite iterables: repeated up to the shortest of them
        finite = [_iterable(interp, a, node) if not isinstance(a, Cycle) else None for a in args]
        if any(items is None for items in finite):
            lengths = [len(items) for items in finite if items is not None]
            if not lengths:
                return interp.unknown("zip() of itertools.cycle alone (endless)", node)
            length = min(lengths)
            # zip stops at the first finite iterable of that length to run out: a cycle before
            # it has already given one more item (lost), one after it has not
            first_out = next(i for i, items in enumerate(finite) if items is not None and len(items) == length)
            finite = [items if items is not None else a.take(length + (i < first_out))[:length]
                      for i, (items, a) in enumerate(zip(finite, args))]
        return list(zip(*finite))
    b["zip"] = zip_

    @_fn("enumerate")
    def enumerate_(interp, args, kwargs, node):
        return list(enumerate(_iterable(interp, args[0], node), args[1] if len(args) > 1 else kwargs.get("start", 0)))
    b["enumerate"] = enumerate_

    @_fn("next")
    def next_(interp, args, kwargs, node):
        """``next(it[, default])`` on what ``iter()`` or a generator gave (our lists): takes the
        first item off, so the next call and a later loop continue after it."""
        items = args[0]
        if isinstance(items, Unknown):
            return items
        step = interp.special_method(items, "__next__") if isinstance(items, Instance) else None
        if step is not None:  # an iterator object of the analysed code
            try:
                return interp.call(step, [], {}, node)
            except AnalysisError as raised:
                if len(args) > 1 and interp.raises_stop_iteration(raised):
                    return args[1]
                raise
        if isinstance(items, Cycle):
            taken = items.take(1)
            if taken:
                return taken[0]
        elif not isinstance(items, list):
            return interp.unknown(f"next() of {type(items).__name__}", node)
        if items:
            return items.pop(0)
        if len(args) > 1:
            return args[1]
        raise interp.fail("next() of an exhausted iterator (StopIteration)", node, "SF111", python="StopIteration")
    b["next"] = next_

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
        if typing_.refuses_instance_checks(kinds):
            raise interp.fail("Subscripted generics cannot be used with class and instance checks", node,
                              python="TypeError")
        if isinstance(value, Unknown):
            return value  # undecidable: it carries its first cause to the `if` that asks
        return is_instance(value, kinds)
    b["isinstance"] = isinstance_

    @_fn("issubclass")
    def issubclass_(interp, args, kwargs, node):
        cls, kinds = args
        if not isinstance(cls, Class):
            return interp.unknown("issubclass() of a value that is not a class", node)
        return any(isinstance(k, Class) and cls.is_subclass_of(k) for k in _options(kinds))
    b["issubclass"] = issubclass_

    def _own_getattribute(value) -> bool:
        """The instance's class (or a base written in the analysed code) defines __getattribute__."""
        return any(isinstance(c.namespace.get("__getattribute__"), Function) for c in value.cls.mro())

    @_fn("hasattr")
    def hasattr_(interp, args, kwargs, node):
        value, name = args
        if isinstance(value, Instance) and _own_getattribute(value):
            # Python's hasattr is getattr catching AttributeError: the class's __getattribute__
            # answers (transformers' configs map `layer_types` to `layers_block_type` there)
            interp.missing_attributes_raise += 1
            try:
                found = interp.get_attribute(value, name, node)
            except AnalysisError as raised:  # statements.Raised: the analysed code's exception
                if hasattr(raised, "exception") and interp.is_attribute_error(raised):
                    return False
                raise
            finally:
                interp.missing_attributes_raise -= 1
            return found if isinstance(found, Unknown) else True
        if isinstance(value, Instance):
            if name in value.attrs:
                return True
            try:
                value.cls.lookup(name)
                return True
            except KeyError:
                pass
            hook = interp._getattr_hook(value, name)
            if hook is None:
                return False
            # the class's __getattr__ decides: AttributeError means no such attribute, also one
            # raised by a read it makes (peft's tuners forward a missing name to the wrapped model)
            interp.missing_attributes_raise += 1
            try:
                found = interp.call(hook, [name], {}, node)
            except AnalysisError as raised:  # statements.Raised: the analysed code's exception
                if hasattr(raised, "exception") and interp.is_attribute_error(raised):
                    return False
                raise
            finally:
                interp.missing_attributes_raise -= 1
            return found if isinstance(found, Unknown) else True
        if isinstance(value, Class):
            try:
                value.lookup(name)
                return True
            except KeyError:  # the attributes every class has, which the interpreter answers too
                return name in ("__name__", "__mro__", "__dict__", "__bases__")
        if isinstance(value, Namespace):
            if value.replaced_by is not None:  # sys.modules[__name__] = ...: the replacement answers
                return hasattr_.fn(interp, [value.replaced_by, name], {}, node)
            declared = getattr(value.loader, "declared", None)  # a lazy package's type-checking names
            return name in value.members or declared is not None and declared(name) is not MISSING
        if isinstance(value, Function):
            return name in value.attrs or name in ("__name__", "__qualname__", "__module__", "__doc__", "__call__")
        if isinstance(value, BoundMethod):  # a method object: its own two, the rest its function's
            if name in ("__func__", "__self__"):
                return name == "__self__" or isinstance(value.function, Function)
            return hasattr_.fn(interp, [value.function, name], {}, node)
        if isinstance(value, Record):
            return name in value.fields or hasattr_.fn(interp, [value.cls, name], {}, node)
        if isinstance(value, _PLAIN_DATA) and not isinstance(value, Expr):
            return hasattr(value, name)  # Python's own answer for its own data types (never analysed code)
        if isinstance(value, Tensor) and isinstance(name, str):
            found = interp.framework.tensor_has_attribute(value, name)
            if found is not None:  # set by the code, or a name torch's tensors lack (transformers' probes)
                return found
        return interp.unknown("hasattr() on this value", node)
    b["hasattr"] = hasattr_

    @_fn("dir")
    def dir_(interp, args, kwargs, node):
        """The names an object has, sorted as CPython lists them: for a modelled module (``'silu'
        in dir(torch.nn.functional)``, timm's feature probe) the names we model."""
        if not args:
            return interp.unknown("dir() without an argument", node)
        value = args[0]
        if isinstance(value, Namespace) and not isinstance(value.members, NoOpMembers):
            return sorted(str(name) for name in value.members)
        if isinstance(value, Class):
            return sorted({str(name) for cls in value.mro() for name in cls.namespace})
        if isinstance(value, Instance):
            return sorted({*value.attrs, *(str(name) for cls in value.cls.mro() for name in cls.namespace)})
        if isinstance(value, _PLAIN_DATA) and not isinstance(value, Expr):
            return dir(value)  # Python's own answer for its own data types
        return interp.unknown("dir() of this value", node)
    b["dir"] = dir_

    @_fn("vars")
    def vars_(interp, args, kwargs, node):
        """``vars(obj)``: the object's own namespace (a class's body, an instance's attributes,
        a module's names), the dict itself as in CPython; without an argument, an unknown."""
        if not args:
            return interp.unknown("vars() without an argument", node)
        value = args[0]
        if isinstance(value, Class):
            return value.namespace
        if isinstance(value, Instance):
            interp.whole_namespace_read()
            return value.attrs
        if isinstance(value, Namespace) and not isinstance(value.members, NoOpMembers):
            return value.members
        if isinstance(value, Function):
            return value.attrs
        return interp.unknown("vars() of this value", node)
    b["vars"] = vars_

    @_fn("getattr")
    def getattr_(interp, args, kwargs, node):
        value, name = args[0], args[1]
        if isinstance(name, Unknown):
            return name
        if len(args) > 2 and hasattr_.fn(interp, [value, name], {}, node) is False:
            return args[2]
        if len(args) <= 2:
            return interp.get_attribute(value, name, node)
        # the attribute exists on the class (a property): its getter may still raise AttributeError
        # reading an instance attribute not set yet (transformers' config._attn_implementation)
        interp.missing_attributes_raise += 1
        try:
            return interp.get_attribute(value, name, node)
        except AnalysisError as raised:  # statements.Raised: the analysed code's exception
            if hasattr(raised, "exception") and interp.is_attribute_error(raised):
                return args[2]
            raise
        finally:
            interp.missing_attributes_raise -= 1
    b["getattr"] = getattr_

    @_fn("setattr")
    def setattr_(interp, args, kwargs, node):
        interp.set_attribute(args[0], args[1], args[2], node)
    b["setattr"] = setattr_

    @_fn("delattr")
    def delattr_(interp, args, kwargs, node):
        interp.delete_attribute(args[0], args[1], node)
    b["delattr"] = delattr_

    @_fn("callable")
    def callable_(interp, args, kwargs, node):
        value = args[0]
        if isinstance(value, Instance):
            # an instance is callable when its class defines __call__ (every nn.Module does:
            # `callable(SnakeBeta(dim))` guards an activation argument)
            return any("__call__" in cls.namespace for cls in value.cls.mro())
        return isinstance(value, (Function, Builtin, Class, BoundMethod, Partial))
    b["callable"] = callable_

    @_fn("type")
    def type_(interp, args, kwargs, node):
        value = args[0]
        if isinstance(value, Instance):
            return value.cls
        if isinstance(value, Unknown):
            return value  # its first cause, not "type() of this value"
        if isinstance(value, Record):
            return value.cls
        if isinstance(value, Tensor):
            kind = interp.framework.tensor_type(value)
            if kind is not None:
                return kind
        if value is None:  # NoneType is no builtin name
            return NONE_TYPE
        found = b.get(type(value).__name__)  # int, str, list, ...: the builtin standing for the type
        return found if found is not None else interp.unknown("type() of this value", node)
    b["type"] = type_
    # isinstance(x, type): a class (transformers' @requires attaches metadata to classes, wraps functions)
    b["type"].instance_check = lambda value: isinstance(value, Class) or (
        isinstance(value, Builtin) and getattr(value, "pytype", None) is not None)

    # class Meta(type): its __call__ may end in super().__call__(...), which builds the instance
    b["type"].base_class = Class("type", (object_class,), {"__call__": Builtin(
        "type.__call__", lambda interp, args, kwargs, node: interp.construct(args[0], list(args[1:]), kwargs, node))})

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

    def method_wrapper(kind):
        def wrap(interp, args, kwargs, node):
            if kind == "property":  # property(fget, fset=None, ...)
                return MethodWrapper(kind, args[0] if args else kwargs.get("fget"),
                                     args[1] if len(args) > 1 else kwargs.get("fset"))
            return MethodWrapper(kind, args[0])
        return Builtin(kind, wrap, bind_self=False)
    for name in ("staticmethod", "classmethod", "property"):
        b[name] = method_wrapper(name)

    # class classproperty(property): def __get__(self, obj, owner): return self.fget(owner)
    # An instance of a property subclass holds fget/fset; reading it from a class or an
    # instance goes through its `__get__` (the descriptor protocol, in Interpreter._bind).
    def property_init(interp, args, kwargs, node):
        this, rest = args[0], list(args[1:])
        for position, name in enumerate(("fget", "fset", "fdel", "doc")):
            this.attrs[name] = rest[position] if position < len(rest) else kwargs.get(name)
        return None

    def property_get(interp, args, kwargs, node):
        this, obj = args[0], args[1] if len(args) > 1 else None
        if obj is None:
            return this
        return interp.call(this.attrs.get("fget"), [obj], {}, node)
    b["property"].base_class = Class("property", (object_class,), {
        "__init__": Builtin("property.__init__", property_init),
        "__get__": Builtin("property.__get__", property_get)})

    @_fn("globals")
    def globals_(interp, args, kwargs, node):
        return interp.current_globals(node)
    b["globals"] = globals_
    @_fn("__import__")
    def import_(interp, args, kwargs, node):
        """``__import__("a.b")``: imports as ``import a.b`` does and returns package ``a``."""
        name = args[0] if args else kwargs.get("name")
        if not isinstance(name, str) or len(args) > 1 or set(kwargs) - {"name"}:
            return interp.unknown("__import__() other than of one known module name", node)
        module = interp.import_module(name, node)
        return module if isinstance(module, Unknown) or "." not in name else interp.import_module(name.split(".")[0], node)
    b["__import__"] = import_

    # `locals()` is answered where it is called (expressions.py); reached any other way
    # (`f = locals; f()`) the scope is not known
    b["locals"] = Builtin("locals", lambda interp, args, kwargs, node: interp.unknown(
        "locals() not called by its name", node), bind_self=False)

    b["object"] = object_class
    # object.__init_subclass__ ends the super() chain of a class's __init_subclass__
    object_class.namespace.setdefault("__init_subclass__", Builtin(
        "object.__init_subclass__", lambda interp, args, kwargs, node: None, bind_self=False))
    b.update(_exception_classes(object_class))
    b["True"], b["False"], b["None"], b["NotImplemented"] = True, False, None, None
    b["Ellipsis"] = Ellipsis  # what `...` evaluates to (`args[1] is Ellipsis` tells tuple[int, ...] apart)
    b["__name__"] = "__analysed__"
    b.update(datafiles.builtins())
    b.update(literals.builtins())
    for name in _PURE_BUILTINS:
        if isinstance(b.get(name), Builtin):
            b[name].pure = True
    return b


# Builtins that change nothing they are given nor anything else (``Builtin.pure``); one that
# calls the analysed code (a key function, ``__len__``) runs its statements, which the
# question this answers (Expressions._comprehension_argument) also counts.
_PURE_BUILTINS = ("range", "len", "abs", "round", "divmod", "pow", "min", "max", "sum", "isinstance", "issubclass",
                  "callable", "chr", "ord", "slice")


# CPython's built-in exception hierarchy (name -> base), so that `except LookupError` catches a
# KeyError and `except ImportError` a ModuleNotFoundError, as in Python.
_EXCEPTIONS = {
    "BaseException": None, "SystemExit": "BaseException", "KeyboardInterrupt": "BaseException",
    "Exception": "BaseException", "ArithmeticError": "Exception", "ZeroDivisionError": "ArithmeticError",
    "OverflowError": "ArithmeticError", "AssertionError": "Exception", "AttributeError": "Exception",
    "ImportError": "Exception", "ModuleNotFoundError": "ImportError", "LookupError": "Exception",
    "IndexError": "LookupError", "KeyError": "LookupError", "NameError": "Exception", "OSError": "Exception",
    "FileNotFoundError": "OSError", "RuntimeError": "Exception", "NotImplementedError": "RuntimeError",
    "RecursionError": "RuntimeError", "StopIteration": "Exception", "TypeError": "Exception",
    "ValueError": "Exception", "SyntaxError": "Exception", "Warning": "Exception", "UserWarning": "Warning",
    "DeprecationWarning": "Warning", "FutureWarning": "Warning", "RuntimeWarning": "Warning",
    # the rest of CPython 3.11's (but the exception groups), each after its base
    "GeneratorExit": "BaseException", "BufferError": "Exception", "EOFError": "Exception",
    "MemoryError": "Exception", "ReferenceError": "Exception", "StopAsyncIteration": "Exception",
    "SystemError": "Exception", "FloatingPointError": "ArithmeticError", "UnboundLocalError": "NameError",
    "IndentationError": "SyntaxError", "TabError": "IndentationError", "UnicodeError": "ValueError",
    "UnicodeDecodeError": "UnicodeError", "UnicodeEncodeError": "UnicodeError", "UnicodeTranslateError": "UnicodeError",
    "BlockingIOError": "OSError", "ChildProcessError": "OSError", "ConnectionError": "OSError",
    "BrokenPipeError": "ConnectionError", "ConnectionAbortedError": "ConnectionError",
    "ConnectionRefusedError": "ConnectionError", "ConnectionResetError": "ConnectionError",
    "FileExistsError": "OSError", "InterruptedError": "OSError", "IsADirectoryError": "OSError",
    "NotADirectoryError": "OSError", "PermissionError": "OSError", "ProcessLookupError": "OSError",
    "TimeoutError": "OSError", "BytesWarning": "Warning", "EncodingWarning": "Warning", "ImportWarning": "Warning",
    "PendingDeprecationWarning": "Warning", "ResourceWarning": "Warning", "SyntaxWarning": "Warning",
    "UnicodeWarning": "Warning",
}


def _exception_init(interp, args, kwargs, node):
    args[0].attrs["args"] = tuple(args[1:])  # what BaseException.__init__ keeps: `e.args`


def _exception_classes(object_class: Class) -> dict:
    classes: dict = {}
    for name, base in _EXCEPTIONS.items():
        namespace = {"__init__": Builtin("BaseException.__init__", _exception_init)} if base is None else {}
        classes[name] = Class(name, (classes[base] if base else object_class,), namespace)
    classes["EnvironmentError"] = classes["IOError"] = classes["OSError"]
    return classes


_PLAIN_DATA = (int, float, complex, str, bytes, bool, type(None), tuple, list, dict, set, frozenset, range,
               collections.deque)


NONE_TYPE = typing_.NONE_TYPE  # type(None)


def _options(kinds) -> tuple:
    """isinstance's second argument as a flat tuple: a class, a tuple of them (nested), or a union."""
    if isinstance(kinds, TypeUnion):
        return tuple(NONE_TYPE if option is None else option for option in kinds.options)
    if isinstance(kinds, tuple):
        return tuple(option for kind in kinds for option in _options(kind))
    return (kinds,)


def is_instance(value, kinds) -> bool:
    for kind in _options(kinds):
        if isinstance(kind, Class) and isinstance(value, Instance) and value.cls.is_subclass_of(kind):
            return True
        base = getattr(kind, "base_class", None)  # class X(OrderedDict): an instance is an OrderedDict
        if base is not None and isinstance(value, Instance) and value.cls.is_subclass_of(base):
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


def build_stdlib(builtins: dict, interp=None) -> dict:
    """Modules importable by name: math, functools, collections, typing, ..."""
    def namespace(name, members):
        return Namespace(name, members)

    math_members = {name: _plain(getattr(math, name), f"math.{name}") for name in
                    ("sqrt", "log", "log2", "log10", "exp", "gcd", "isclose", "cos", "sin", "pow", "fabs", "erf",
                     "isqrt", "tan", "tanh", "atan", "atan2", "hypot", "isfinite", "isinf", "isnan")}
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
                    "Iterable", "Mapping", "Set", "TypeVar", "cast", "Literal", "overload", "Final", "ClassVar",
                    # annotations only: no behaviour at run time (CPython's typing makes them no-ops too)
                    "Unpack", "Annotated", "Self", "ParamSpec", "Concatenate", "TypeAlias", "NotRequired",
                    "Required", "Never", "NoReturn", "Iterator", "Generator", "Deque", "DefaultDict",
                    "OrderedDict", "Counter", "FrozenSet", "Hashable", "Sized", "Awaitable", "Coroutine", "IO",
                    "TextIO", "BinaryIO", "AnyStr", "Text", "MutableMapping", "MutableSequence", "Collection",
                    "Container", "Reversible", "SupportsInt", "SupportsFloat", "TypeGuard", "LiteralString",
                    "final", "runtime_checkable", "no_type_check", "dataclass_transform", "override",
                    "assert_never", "assert_type", "reveal_type", "TypeVarTuple", "NewType")
    identity = Builtin("typing", lambda interp, args, kwargs, node: args[-1] if args else None, bind_self=False)
    typing = {name: identity for name in typing_names}
    typing["TYPE_CHECKING"] = False  # the `if TYPE_CHECKING:` imports are for type checkers only
    typing["NewType"] = Builtin("NewType", lambda i, a, k, n: _identity_function(), bind_self=False)
    typing["get_type_hints"] = Builtin("get_type_hints", inspect_.type_hints, bind_self=False)

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
    # classes one subclasses in annotations-only code: Protocol, Generic[T]; a TypedDict call
    # builds a plain dict, as in CPython
    typing["Protocol"] = Class("Protocol", (object_class,), {})
    typing["Generic"] = Class("Generic", (object_class,), {})
    typing["ForwardRef"] = Class("ForwardRef", (object_class,), {})  # a string annotation's object: none made here
    typing["TypedDict"] = Class("TypedDict", (object_class,), {"__new__": Builtin(
        "TypedDict", lambda i, a, k, n: dict(*a[1:], **k) if a and isinstance(a[0], str) else dict(*a, **k),
        bind_self=False)})
    sequence = Builtin("Sequence", identity.fn, bind_self=False)
    sequence.pytype = (list, tuple, str, range)
    abc = {"Sequence": sequence, "Mapping": Builtin("Mapping", identity.fn, bind_self=False),
           "Callable": identity, "Iterable": identity, "Iterator": identity}
    abc["Mapping"].pytype = dict
    typing["Sequence"] = sequence
    function_type = function_objects.function_type_builtin()
    # logging.getLogger(...).info(...) and the like: every member returns the namespace again
    quiet = Namespace("quiet", NoOpMembers(None))
    quiet.members.anything = Builtin("no-op", lambda i, a, k, n: quiet, bind_self=False)
    modules = {
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
        "argparse": argparse_namespace(builtins["object"]),
        "copy": namespace("copy", {"deepcopy": Builtin("deepcopy", lambda i, a, k, n: _copied(i, a[0]), bind_self=False),
                                   "copy": Builtin("copy", lambda i, a, k, n: shallow_copy(i, a[0], n), bind_self=False)}),
        "__future__": namespace("__future__", {"annotations": pyclasses.FUTURE_ANNOTATIONS}),
        "enum": namespace("enum", pyclasses.enum_members_for(None, object_class)),
        "dataclasses": namespace("dataclasses", pyclasses.dataclasses_members(object_class)),
        "types": namespace("types", {"FunctionType": function_type, "ModuleType": _module_type(object_class),
                                     "SimpleNamespace": object_class}),
        **datafiles.namespaces(),
        **pathqueries.namespaces(),
        "itertools": namespace("itertools", {"chain": Builtin("chain", lambda i, a, k, n: [x for v in a for x in _iterable(i, v, n)], bind_self=False),
                                             "repeat": Builtin("repeat", lambda i, a, k, n: [a[0]] * (a[1] if len(a) > 1 else k["times"]), bind_self=False),
                                             "product": Builtin("product", _itertools_product, bind_self=False),
                                             "combinations": Builtin("combinations", _itertools_combinations, bind_self=False),
                                             "cycle": Builtin("cycle", _itertools_cycle, bind_self=False),
                                             "accumulate": Builtin("accumulate", _itertools_accumulate, bind_self=False),
                                             "islice": Builtin("islice", _itertools_islice, bind_self=False),
                                             "zip_longest": Builtin("zip_longest", _itertools_zip_longest, bind_self=False),
                                             "pairwise": Builtin("pairwise", _itertools_pairwise, bind_self=False),
                                             "permutations": Builtin("permutations", _itertools_permutations,
                                                                     bind_self=False)}),
    }
    typing.update(typing_.forms(builtins))
    typing.update(typing_.members())
    modules["types"].members.update({**typing_.types_members(), "NoneType": NONE_TYPE})
    if interp is not None:  # collections, functools, inspect, re, os, sys, logging, ...: see frontend/stdlib
        from staticflops.frontend import stdlib
        modules.update(stdlib.build(interp, builtins))
        abc_classes = modules["collections.abc"]
        for name in typing_.ABC_NAMES:  # typing.Mapping is collections.abc.Mapping, read on first use
            typing[name] = LazyValue(lambda name=name: abc_classes.loader(name))
    return modules


def _itertools_cycle(interp, args, kwargs, node):
    return Cycle(_iterable(interp, args[0], node))


def _itertools_product(interp, args, kwargs, node):
    """``itertools.product(*iterables, repeat=1)``, as a list: TinyViT's attention offsets
    iterate ``product(range(h), range(w))``.  Its length is checked before it is built."""
    repeat = kwargs.get("repeat", 1)
    if isinstance(repeat, Unknown):
        return repeat  # carries its first cause
    pools = [tuple(_iterable(interp, a, node)) for a in args] * _itertools_count(interp, repeat, node)
    length = math.prod(len(p) for p in pools)
    interp.budget.build(interp, length, length * _ITEM_BYTES * max(1, len(pools)), node, "`itertools.product()`")
    return list(itertools.product(*pools))


def _itertools_combinations(interp, args, kwargs, node):
    """``itertools.combinations(iterable, r)``, as a list, its length checked first."""
    pool = tuple(_iterable(interp, args[0], node))
    r = args[1] if len(args) > 1 else kwargs.get("r")
    if isinstance(r, Unknown):
        return r
    r = _itertools_count(interp, r, node)
    length = math.comb(len(pool), r)
    interp.budget.build(interp, length, length * _ITEM_BYTES * max(1, r), node, "`itertools.combinations()`")
    return list(itertools.combinations(pool, r))


def _itertools_accumulate(interp, args, kwargs, node):
    """``itertools.accumulate(iterable, func=operator.add, *, initial=None)``, as a list: running
    totals (``func``, when given, called by our interpreter on each pair, in order)."""
    items = _iterable(interp, args[0], node)
    func = args[1] if len(args) > 1 else kwargs.get("func")
    initial = kwargs.get("initial")
    interp.budget.build(interp, len(items) + 1, (len(items) + 1) * _ITEM_BYTES, node, "`itertools.accumulate()`")
    found = [] if initial is None else [initial]
    for item in items:
        if not found:
            found.append(item)
            continue
        total = found[-1]
        found.append(interp.binary(cst.Add, total, item, node) if func is None else interp.call(func, [total, item], {}, node))
    return found


def _itertools_islice(interp, args, kwargs, node):
    """``itertools.islice(iterable, stop)`` / ``(iterable, start, stop[, step])``, as a list."""
    bounds = list(args[1:])
    if any(isinstance(b, Unknown) for b in bounds):
        return next(b for b in bounds if isinstance(b, Unknown))
    if not all(b is None or type(b) is int for b in bounds) or not 1 <= len(bounds) <= 3:
        raise interp.fail("islice: indices must be None or integers", node, python="ValueError")
    window = slice(None, bounds[0]) if len(bounds) == 1 else slice(*bounds)
    if any(b is not None and b < 0 for b in (window.start, window.stop)) or (window.step is not None and window.step < 1):
        raise interp.fail("islice: indices must be None or non-negative integers, the step positive", node,
                          python="ValueError")
    return _iterable(interp, args[0], node)[window]


def _itertools_zip_longest(interp, args, kwargs, node):
    """``itertools.zip_longest(*iterables, fillvalue=None)``, as a list of tuples."""
    pools = [_iterable(interp, a, node) for a in args]
    longest = max((len(p) for p in pools), default=0)
    interp.budget.build(interp, longest, longest * _ITEM_BYTES * max(1, len(pools)), node, "`itertools.zip_longest()`")
    return list(itertools.zip_longest(*pools, fillvalue=kwargs.get("fillvalue")))


def _itertools_pairwise(interp, args, kwargs, node):
    """``itertools.pairwise(iterable)``: each item with the next, as a list of pairs."""
    return list(itertools.pairwise(_iterable(interp, args[0], node)))


def _itertools_permutations(interp, args, kwargs, node):
    """``itertools.permutations(iterable, r=None)``, as a list, its length checked first."""
    pool = tuple(_iterable(interp, args[0], node))
    r = args[1] if len(args) > 1 else kwargs.get("r")
    if isinstance(r, Unknown):
        return r
    r = len(pool) if r is None else _itertools_count(interp, r, node)
    length = math.perm(len(pool), r)
    interp.budget.build(interp, length, length * _ITEM_BYTES * max(1, r), node, "`itertools.permutations()`")
    return list(itertools.permutations(pool, r))


def _itertools_count(interp, value, node) -> int:
    if type(value) is not int:  # an unknown or symbolic count is not guessed
        raise interp.fail(f"itertools: the count must be an integer, not {type(value).__name__}", node, python="TypeError")
    return max(0, value)


_ITEM_BYTES = 8  # a reference per item, as the budget counts list items


def _module_type(object_class: Class) -> Class:
    """``types.ModuleType``, the base of lazy-import modules (``class _LazyModule(ModuleType)``):
    ``ModuleType(name, doc=None)`` sets ``__name__`` and ``__doc__``."""
    def init(interp, args, kwargs, node):
        module, name = args[0], args[1] if len(args) > 1 else kwargs.get("name")
        module.attrs["__name__"] = name
        module.attrs["__doc__"] = args[2] if len(args) > 2 else kwargs.get("doc")
    return Class("ModuleType", (object_class,), {"__init__": Builtin("ModuleType.__init__", init)})


def _identity_function() -> Builtin:
    """What ``typing.NewType("UserId", int)`` returns: a callable giving back its argument."""
    return Builtin("NewType", lambda i, a, k, n: a[0] if a else None, bind_self=False)


def _product(items, start=1):
    total = start
    for item in items:
        total = total * item
    return total


def shallow_copy(interp, value, node):
    """``copy.copy``: a new object whose attributes are the same values (its class's ``__copy__``
    when it defines one); transformers' per-layer configs are copies of the model config with a
    few attributes set, which must not change the original.  A module instance stays itself
    (Python's copy would share its ``_modules`` and ``_parameters`` dicts); lists, dicts and sets
    are copied as Python copies them."""
    if isinstance(value, Instance) and value.module is None:
        method = interp.special_method(value, "__copy__")
        if method is not None:
            return interp.call(method, [], {}, node)
        return Instance(value.cls, dict(value.attrs), value.location)
    if type(value) in (list, dict, set):
        return type(value)(value)
    return value


def _copied(interp, value):
    """``copy.deepcopy``: a copy reads the whole namespace of each instance it copies (a module
    reached from it among them; ``copy.copy`` of a module returns the module itself)."""
    interp.whole_namespace_read()
    return deepcopy(value)


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
