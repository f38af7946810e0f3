"""``functools``: partial, reduce, wraps, caches and cached_property.

``lru_cache``/``cache`` keep what CPython keeps: a call whose key is already cached returns the
cached result without running the body (transformers' ``@lru_cache is_torch_available()`` is
asked ~30 times per model and parsed package versions each time).  The key is CPython's
(``_make_key``: one exact int/str argument is its own key, else the arguments with the keyword
items after a marker, plus their types when ``typed``), and so is the eviction of the least
recently used entry past ``maxsize``.  Only keys made of plain literals (None, bools, numbers,
strings, bytes and tuples of them) are cached: their equality and hashing are Python's own,
never the analysed code's ``__eq__``/``__hash__``.  Other calls, a result that is not known, and
calls while a construction is being recorded (``construction_memo``) run the body, as Python
would the first time.
"""

from __future__ import annotations

from dataclasses import replace

from staticflops.frontend.scope import MISSING
from staticflops.frontend.values import Builtin, Function, MethodWrapper, Partial, Unknown


def _builtin(name, fn):
    return Builtin(name, fn, bind_self=False)


def _partial(interp, args, kwargs, node):
    return Partial(args[0], tuple(args[1:]), dict(kwargs))


def _reduce(interp, args, kwargs, node):
    items = list(interp.iterate(args[1], node))
    if len(args) > 2:
        items = [args[2], *items]
    if not items:
        # CPython: TypeError "reduce() of empty iterable with no initial value"
        raise interp.fail("reduce() of empty iterable with no initial value", node, "SF114")
    total = items[0]
    for item in items[1:]:
        total = interp.call(args[0], [total, item], {}, node)
    return total


_WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__")


def update_wrapper(interp, wrapper, wrapped, node):
    """What ``functools.update_wrapper`` copies: the wrapped function's names, and
    ``__wrapped__`` (which ``inspect.signature`` follows)."""
    if isinstance(wrapper, Function):
        if isinstance(wrapped, Function):
            for name in _WRAPPER_ASSIGNMENTS:
                wrapper.attrs[name] = interp.get_attribute(wrapped, name, node)
            wrapper.attrs.update(wrapped.attrs)  # __dict__ is updated too
        wrapper.attrs["__wrapped__"] = wrapped
    return wrapper


def _update_wrapper(interp, args, kwargs, node):
    wrapped = args[1] if len(args) > 1 else kwargs["wrapped"]
    return update_wrapper(interp, args[0], wrapped, node)


def _wraps(interp, args, kwargs, node):
    wrapped = args[0] if args else kwargs["wrapped"]
    return _builtin("wraps", lambda i, a, k, n: update_wrapper(i, a[0], wrapped, n))


_PLAIN = (type(None), bool, int, float, str, bytes)
_KEYWORDS = object()  # CPython's kwd_mark: separates positional arguments from keyword items


def _plain(value) -> bool:
    return type(value) in _PLAIN or (type(value) is tuple and all(map(_plain, value)))


class LruCache:
    """The entries of one ``lru_cache`` wrapper, oldest first (a dict keeps insertion order)."""

    def __init__(self, wrapped: Function, maxsize: int | None, typed: bool):
        self.wrapped, self.maxsize, self.typed = wrapped, maxsize, typed
        self.entries: dict = {}

    def key(self, args: list, kwargs: dict):
        if not (_plain(tuple(args)) and _plain(tuple(kwargs.values()))):
            return MISSING
        key = tuple(args)
        if kwargs:
            key += (_KEYWORDS, *kwargs.items())
        if self.typed:
            key += tuple(type(value) for value in args) + tuple(type(value) for value in kwargs.values())
        elif len(key) == 1 and type(key[0]) in (int, str):
            key = key[0]
        return key

    def call(self, interp, args: list, kwargs: dict, node):
        key = MISSING if self.maxsize == 0 or interp.construction_memo.recorders else self.key(args, kwargs)
        if key is MISSING:
            return interp.call_function(self.wrapped, args, kwargs, node)
        found = self.entries.pop(key, MISSING)
        if found is not MISSING:
            self.entries[key] = found  # now the most recently used
            return found
        value = interp.call_function(self.wrapped, args, kwargs, node)
        if not isinstance(value, Unknown):
            self.entries.pop(key, None)  # the body may have called itself with the same key
            self.entries[key] = value
            if self.maxsize is not None and len(self.entries) > self.maxsize:
                del self.entries[next(iter(self.entries))]
        return value


def _cached(function, maxsize, typed: bool):
    """The wrapper lru_cache returns: a copy of the function (its names, its attributes and
    ``__wrapped__``, as update_wrapper makes them) that owns the entries.  Anything but a
    function of the analysed code is returned as it is (called uncached)."""
    if not isinstance(function, Function):
        return function
    return replace(function, attrs={**function.attrs, "__wrapped__": function},
                   cache=LruCache(function, maxsize, bool(typed)))


def _lru_cache(interp, args, kwargs, node):
    """``@lru_cache``, ``@lru_cache()``, ``@lru_cache(maxsize)``, ``@lru_cache(maxsize=None, typed=True)``."""
    maxsize = args[0] if args else kwargs.get("maxsize", 128)
    typed = args[1] if len(args) > 1 else kwargs.get("typed", False)
    if len(args) == 1 and not kwargs and not isinstance(maxsize, (int, type(None))):
        return _cached(maxsize, 128, False)  # the bare decorator
    if isinstance(maxsize, int) and maxsize < 0:
        maxsize = 0
    if not isinstance(maxsize, (int, type(None))):
        return interp.unknown("functools.lru_cache: maxsize is not a known int or None", node)
    return _builtin("lru_cache", lambda i, a, k, n: _cached(a[0], maxsize, typed))


def _cache(interp, args, kwargs, node):
    """``@functools.cache``: lru_cache(maxsize=None)."""
    return _cached(args[0], None, False)


def cache_attribute(interp, function: Function, name: str, node):
    """``cache_clear()``/``cache_info()`` of an lru_cache wrapper, or None for other names."""
    cache = function.cache
    if name == "cache_clear":
        return _builtin("cache_clear", lambda i, a, k, n: cache.entries.clear())
    if name == "cache_parameters":
        return _builtin("cache_parameters", lambda i, a, k, n: {"maxsize": cache.maxsize, "typed": cache.typed})
    return None


def _cached_property(interp, args, kwargs, node):
    return MethodWrapper("cached_property", args[0])


def _total_ordering(interp, args, kwargs, node):
    return args[0]  # the comparison methods it adds are never needed for cost


def _cmp_to_key(interp, args, kwargs, node):
    return interp.unknown("functools.cmp_to_key: sorting with a comparison function is not modelled", node)


def members(builtins: dict) -> dict:
    partial = _builtin("partial", _partial)
    partial.instance_check = lambda value: isinstance(value, Partial)
    return {
        "partial": partial, "reduce": _builtin("reduce", _reduce), "wraps": _builtin("wraps", _wraps),
        "update_wrapper": _builtin("update_wrapper", _update_wrapper),
        "lru_cache": _builtin("lru_cache", _lru_cache), "cache": _builtin("cache", _cache),
        "cached_property": _builtin("cached_property", _cached_property),
        "total_ordering": _builtin("total_ordering", _total_ordering),
        "cmp_to_key": _builtin("cmp_to_key", _cmp_to_key),
        "WRAPPER_ASSIGNMENTS": _WRAPPER_ASSIGNMENTS,
    }

