"""What code reads off a function object beyond its name: ``__code__`` (argument names),
``__globals__``, ``__defaults__``, and ``types.FunctionType(f.__code__, f.__globals__, ...)``
rebuilding a function from them.

transformers reads ``func.__code__.co_varnames`` in ``merge_with_config_defaults`` (which
argument positions hold ``use_cache`` ...), and copies ``from_config`` with
``types.FunctionType(f.__code__, f.__globals__, name=..., argdefs=f.__defaults__,
closure=f.__closure__)`` before rewriting its docstring.
"""

from __future__ import annotations

from dataclasses import replace

from staticflops.frontend import syntax as cst
from staticflops.frontend.bindings import bound_names
from staticflops.frontend.values import Builtin, CodeObject, Function

MISSING = object()
# attributes a bound method reads off its function, as CPython's method objects do
THROUGH_BOUND_METHOD = frozenset({"__func__", "__self__", "__code__", "__globals__", "__defaults__",
                                  "__kwdefaults__", "__name__", "__qualname__", "__module__", "__doc__",
                                  "__wrapped__"})


def _parameters(function: Function) -> tuple:
    """(positional names, keyword-only names, *args name, **kwargs name) of a def or lambda."""
    params = function.node.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    keyword_only = [p.name.value for p in params.kwonly_params]
    star = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
    double = params.star_kwarg.name.value if params.star_kwarg is not None else None
    return positional, keyword_only, star, double


def unwrapped(function):
    """The ``def`` under ``functools.wraps`` wrappers, as ``inspect.signature`` follows
    ``__wrapped__`` (transformers' ``@can_return_tuple`` forward, diffusers'
    ``@register_to_config`` constructor); ``function`` itself when it wraps nothing."""
    for _ in range(100):  # a chain of wrappers; a cycle of __wrapped__ ends here
        inner = function.attrs.get("__wrapped__") if isinstance(function, Function) else None
        if not isinstance(inner, Function):
            break
        function = inner
    return function


def positional_parameters(function: Function) -> list:
    """The names of a def's positional parameters, in order."""
    return _parameters(function)[0]


def code_attribute(code: CodeObject, name: str):
    """``co_varnames`` (arguments in CPython's order, then the body's local names),
    ``co_argcount``, ``co_kwonlyargcount``, ``co_posonlyargcount``, ``co_name``; else MISSING."""
    function = code.function
    positional, keyword_only, star, double = _parameters(function)
    if name == "co_varnames":
        arguments = [*positional, *keyword_only, *([star] if star else []), *([double] if double else [])]
        body = function.node.body
        local = bound_names(body) if isinstance(function.node, cst.FunctionDef) else []
        return tuple(dict.fromkeys([*arguments, *local]))
    if name == "co_argcount":
        return len(positional)
    if name == "co_kwonlyargcount":
        return len(keyword_only)
    if name == "co_posonlyargcount":
        return len(function.node.params.posonly_params)
    if name == "co_name":
        return function.name
    return MISSING


def function_dunder(function: Function, name: str):
    """``__code__``, ``__globals__``, ``__defaults__``, ``__kwdefaults__`` of a function; else MISSING."""
    if name == "__code__":
        return CodeObject(function)
    if name == "__globals__":
        return function.scope.module.vars
    positional, keyword_only, _, _ = _parameters(function)
    if name == "__defaults__":
        values = tuple(function.defaults[p] for p in positional if p in function.defaults)
        return values or None
    if name == "__kwdefaults__":
        values = {p: function.defaults[p] for p in keyword_only if p in function.defaults}
        return values or None
    return MISSING


def _function_type(interp, args, kwargs, node):
    """``types.FunctionType(code, globals, name=None, argdefs=None, closure=None)`` on the code
    of a function of the analysed code: a new function object for the same definition (its own
    attributes, so a new ``__doc__`` does not touch the original)."""
    code = args[0] if args else kwargs.get("code")
    if not isinstance(code, CodeObject):
        return interp.unknown("types.FunctionType of a code object that is not a function's `__code__`", node)
    name = args[2] if len(args) > 2 else kwargs.get("name")
    original = code.function
    return replace(original, attrs=dict(original.attrs), name=name if isinstance(name, str) else original.name)


def function_type_builtin() -> Builtin:
    builtin = Builtin("FunctionType", _function_type, bind_self=False)
    builtin.instance_check = lambda value: isinstance(value, Function)
    return builtin
