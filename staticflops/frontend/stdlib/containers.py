"""``collections``: defaultdict, OrderedDict, Counter, deque and namedtuple over our values.

The containers are Python's own (our values are hashable by identity), so every dict/list
operation the interpreter already does on known data works on them unchanged.  The one
difference is ``defaultdict``: its factory is a callable of the analysed program (``set``,
``list``, a class, a lambda), so a missing key is filled by *our* interpreter calling it —
see :func:`defaultdict_getitem` — never by Python.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, deque
from collections.abc import ItemsView, KeysView, ValuesView

from staticflops.diagnostics import reason
from staticflops.frontend import pyclasses
from staticflops.frontend.stdlib import regex  # Pattern and Match objects of `re`
from staticflops.frontend.values import BoundMethod, Builtin, Class, Instance, Unknown


class DefaultDict(dict):
    """``collections.defaultdict``: a dict plus the analysed program's factory."""

    def __init__(self, factory, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.default_factory = factory


def defaultdict_getitem(interp, container: DefaultDict, key, node):
    """``d[key]``: CPython's ``__missing__`` — call the factory, store and return its result;
    a defaultdict without factory raises KeyError as a plain dict does."""
    try:
        if key in container:
            return container[key]
    except TypeError:
        return interp.unknown(f"a key that cannot be hashed ({type(key).__name__})", node)
    if container.default_factory is None:
        raise interp.fail(f"key {key!r} is not in the dict (a defaultdict without default_factory)", node, "SF113")
    value = interp.call(container.default_factory, [], {}, node)
    container[key] = value
    return value


def _make(pytype, build):
    def fn(interp, args, kwargs, node):
        for value in [*args, *kwargs.values()]:
            if isinstance(value, Unknown):
                return value
        return build(interp, list(args), dict(kwargs), node)
    builtin = Builtin(pytype.__name__, fn, bind_self=False)
    builtin.pytype = pytype  # isinstance(x, OrderedDict) and subclassing checks
    return builtin


def _items(interp, value, node):
    """The contents a dict-like constructor takes: a mapping or an iterable of pairs."""
    if isinstance(value, dict):
        return value
    return list(interp.iterate(value, node))


def _defaultdict(interp, args, kwargs, node):
    factory = args[0] if args else None
    contents = _items(interp, args[1], node) if len(args) > 1 else {}
    return DefaultDict(factory, contents, **kwargs)


def _ordered_dict(interp, args, kwargs, node):
    return OrderedDict(_items(interp, args[0], node) if args else {}, **kwargs)


def _counter(interp, args, kwargs, node):
    # Counter("abca") counts characters, Counter(mapping) copies counts: Python's own rules
    return Counter(_items(interp, args[0], node) if args else {}, **kwargs)


def _deque(interp, args, kwargs, node):
    items = list(interp.iterate(args[0], node)) if args else []
    return deque(items, kwargs.get("maxlen", args[1] if len(args) > 1 else None))


_DICT_METHODS = {"get", "items", "keys", "values", "pop", "setdefault", "update", "copy", "clear", "popitem"}
# methods of the Python containers above, called on known contents (they never run analysed code)
_METHODS = {
    DefaultDict: _DICT_METHODS,
    OrderedDict: _DICT_METHODS | {"move_to_end"},
    Counter: _DICT_METHODS | {"most_common", "elements", "subtract", "total"},
    deque: {"append", "appendleft", "pop", "popleft", "extend", "extendleft", "rotate", "clear", "copy",
            "count", "index", "remove", "insert", "reverse"},
}


def attribute(interp, value, name: str, node):
    """An attribute of one of our Python-side stdlib objects, or None for anything else."""
    methods = _METHODS.get(type(value))
    if methods is None:
        return regex.attribute(interp, value, name, node)
    if name == "default_factory" and isinstance(value, DefaultDict):
        return value.default_factory
    if name == "maxlen" and isinstance(value, deque):
        return value.maxlen
    if name not in methods:
        return interp.unknown(f"attribute `{name}` of {type(value).__name__} is not modelled", node)
    method = getattr(value, name)

    def call(interp, args, kwargs, call_node):
        for argument in [*args, *kwargs.values()]:
            if isinstance(argument, Unknown):
                return argument
        try:
            result = method(*args, **kwargs)
        except (TypeError, ValueError, KeyError, IndexError) as error:
            return interp.unknown(f"`.{name}()` failed: {reason(error)}", call_node)
        if isinstance(result, (KeysView, ValuesView, ItemsView)) or type(result).__name__ == "itertools.chain":
            return list(result)  # views (OrderedDict's are odict_items, ...) as the lists the interpreter iterates
        return list(result) if name == "elements" else result
    return Builtin(name, call, bind_self=False)


def members(interp, abc_namespace) -> dict:
    ordered_dict = _make(OrderedDict, _ordered_dict)
    ordered_dict.base_class = dict_base_class("OrderedDict", interp.builtins["object"])
    return {
        "defaultdict": _make(DefaultDict, _defaultdict),
        "OrderedDict": ordered_dict,
        "Counter": _make(Counter, _counter),
        "deque": _make(deque, _deque),
        "namedtuple": pyclasses.namedtuple_builtin(),
        "abc": abc_namespace,
    }


# ---- classes deriving from dict / OrderedDict -------------------------------------------------
# diffusers' ``class FrozenDict(OrderedDict)``: an instance is both an object of the analysed
# class (attributes, methods, super()) and a real dict (``**config``, ``dict(config)``,
# iteration), so it is both: :class:`DictInstance`.  The base class's methods below work on
# the dict part, as CPython's dict methods do for a subclass.

class DictInstance(Instance, dict):
    """An instance of a class of the analysed program that derives from dict."""

    __hash__ = None  # dict subclasses are unhashable in CPython too


def _dict_method(name):
    def method(interp, args, kwargs, node):
        self, rest = args[0], list(args[1:])
        # an unknown stored under a known key stays there (the key is known: `to_tuple()` and
        # `keys()` still list it, and reading it gives the unknown with its first cause)
        checked = rest[:1] if name == "__setitem__" else [*rest, *kwargs.values()]
        for value in checked:
            if isinstance(value, Unknown):
                return value
        if name == "__init__" or name == "update":
            if rest:
                dict.update(self, _items(interp, rest[0], node))
            dict.update(self, kwargs)
            return None
        if name == "move_to_end":
            key = rest[0]
            value = dict.pop(self, key)
            if kwargs.get("last", rest[1] if len(rest) > 1 else True):
                dict.__setitem__(self, key, value)
            else:
                items = list(dict.items(self))
                dict.clear(self)
                dict.update(self, [(key, value), *items])
            return None
        if name == "__getitem__" and rest and rest[0] not in self:
            raise interp.fail(f"key {rest[0]!r} is not in the {self.cls.name}", node, "SF113")
        try:
            result = getattr(dict, name)(self, *rest, **kwargs)
        except (TypeError, KeyError, ValueError) as error:
            return interp.unknown(f"`{self.cls.name}.{name}()` failed: {reason(error)}", node)
        if name == "__iter__":
            return list(dict.keys(self))
        if type(result).__name__ in ("dict_items", "dict_keys", "dict_values"):
            return list(result)
        return result
    return Builtin(name, method)


_DICT_BASE_METHODS = ("__init__", "__getitem__", "__setitem__", "__delitem__", "__contains__", "__iter__", "__len__",
                      "get", "items", "keys", "values", "pop", "setdefault", "update", "copy", "clear", "popitem",
                      "move_to_end")


def dict_base_class(name: str, object_class) -> Class:
    """The class an analysed ``class X(dict)`` / ``class X(OrderedDict)`` derives from."""
    namespace = {method: _dict_method(method) for method in _DICT_BASE_METHODS}
    namespace["__setattr__"] = Builtin("__setattr__", lambda i, a, k, n: a[0].attrs.__setitem__(a[1], a[2]))
    namespace["__container__"] = dict
    return Class(name, (object_class,), namespace)


def container_type(cls: Class):
    """dict when ``cls`` derives from dict/OrderedDict, else None."""
    for klass in cls.mro():
        if "__container__" in klass.namespace:
            return klass.namespace["__container__"]
    return None


def instantiate_dict(interp, cls: Class, args, kwargs, node) -> DictInstance:
    instance = DictInstance(cls, location=interp.location(node))
    init, owner = cls.lookup_owner("__init__")
    interp.call(BoundMethod(instance, init, owner), list(args), dict(kwargs), node)
    return instance
