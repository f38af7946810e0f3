"""``functools``: partial, reduce, wraps, caches and cached_property.

Caches change nothing an analysis can observe (our values are recomputed identically), so
``lru_cache``/``cache`` return the function itself, with or without their arguments.
"""

from __future__ import annotations

from staticflops.frontend.values import Builtin, Function, MethodWrapper, Partial


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


def _cache(interp, args, kwargs, node):
    """``@lru_cache``, ``@lru_cache()``, ``@lru_cache(maxsize=None)``, ``@cache``."""
    if len(args) == 1 and not kwargs and not isinstance(args[0], (int, type(None))):
        return args[0]
    return _builtin("lru_cache", lambda i, a, k, n: a[0])


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
        "lru_cache": _builtin("lru_cache", _cache), "cache": _builtin("cache", _cache),
        "cached_property": _builtin("cached_property", _cached_property),
        "total_ordering": _builtin("total_ordering", _total_ordering),
        "cmp_to_key": _builtin("cmp_to_key", _cmp_to_key),
        "WRAPPER_ASSIGNMENTS": _WRAPPER_ASSIGNMENTS,
    }

