"""``inspect``: signature (parameter names, defaults, kinds) and the is* predicates.

``signature`` reads the parameters from the function's syntax and the defaults we already
evaluated; like CPython it follows ``__wrapped__`` (set by ``functools.wraps``), drops the
receiver of a bound method and reads a class's ``__init__`` without ``self``.
"""

from __future__ import annotations

from staticflops.frontend import syntax as cst

from staticflops.frontend import pyclasses
from staticflops.frontend.values import (
    BoundMethod, Builtin, Class, Function, Instance, MethodWrapper, Namespace, Partial, Record,
)

# CPython's inspect._ParameterKind values (an IntEnum): compared with `p.kind == p.KEYWORD_ONLY`
POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD, VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD = range(5)
_KINDS = {"POSITIONAL_ONLY": POSITIONAL_ONLY, "POSITIONAL_OR_KEYWORD": POSITIONAL_OR_KEYWORD,
          "VAR_POSITIONAL": VAR_POSITIONAL, "KEYWORD_ONLY": KEYWORD_ONLY, "VAR_KEYWORD": VAR_KEYWORD}


def class_annotations(interp, cls: Class) -> dict:
    """A class body's own annotations, evaluated where they were written (``name: Type``); one
    we cannot evaluate is an unknown, reported only if used."""
    written = cls.namespace.get("__annotations__", {})
    scope = cls.namespace.get("__annotation_scope__")
    if scope is None:
        return {}
    found = {}
    for name, annotation in written.items():
        node = getattr(annotation, "annotation", annotation)
        found[name], _held = interp.quietly(lambda node=node: interp.evaluate_node(node, scope))
    return found


def type_hints(interp, args, kwargs, node):
    """``typing.get_type_hints(cls)``: the annotations of the class and its bases, the nearest winning."""
    target = args[0] if args else kwargs.get("obj")
    if not isinstance(target, Class):
        return interp.unknown("typing.get_type_hints of a value that is not a class of the analysed code", node)
    hints = {}
    for cls in reversed(target.mro()):
        hints.update(class_annotations(interp, cls))
    return hints


def _classes(object_class: Class):
    empty = Class("_empty", (object_class,), {})  # inspect.Parameter.empty is inspect._empty, a class
    parameter = pyclasses.make_record_class("Parameter", ["name", "kind", "default", "annotation"],
                                            {"default": empty, "annotation": empty}, (object_class,))
    parameter.namespace.update({"empty": empty, **_KINDS})
    signature = pyclasses.make_record_class("Signature", ["parameters", "return_annotation"],
                                            {"return_annotation": empty}, (object_class,))
    signature.namespace["empty"] = empty
    return empty, parameter, signature


def _unwrap(function):
    while isinstance(function, Function) and "__wrapped__" in function.attrs:
        function = function.attrs["__wrapped__"]
    return function


def members(builtins: dict) -> dict:
    empty, parameter_class, signature_class = _classes(builtins["object"])

    def parameters_of(interp, function, node):
        skip = 0
        if isinstance(function, MethodWrapper):
            function = function.function
        if isinstance(function, BoundMethod):
            function, skip = function.function, 1
        elif isinstance(function, Class):
            try:
                function, skip = function.lookup("__init__"), 1
            except KeyError:
                return None
        function = _unwrap(function)
        if isinstance(function, BoundMethod):
            function, skip = function.function, skip + 1
        if getattr(function, "dataclass", None) is not None:  # a dataclass's generated __init__
            return _dataclass_parameters(function.dataclass, skip)
        if not isinstance(function, Function):
            return None
        params = function.node.params
        found = []

        def add(param, kind):
            default = function.defaults.get(param.name.value, empty)
            found.append((param.name.value, Record.make(parameter_class, parameter_class.namespace["_fields"],
                                                        [param.name.value, kind, default, empty])))
        for param in params.posonly_params:
            add(param, POSITIONAL_ONLY)
        for param in params.params:
            add(param, POSITIONAL_OR_KEYWORD)
        if isinstance(params.star_arg, cst.Param):
            add(params.star_arg, VAR_POSITIONAL)
        for param in params.kwonly_params:
            add(param, KEYWORD_ONLY)
        if params.star_kwarg is not None:
            add(params.star_kwarg, VAR_KEYWORD)
        return dict(found[skip:])

    def _dataclass_parameters(cls, skip):
        """``(self, field=default, ...)``: every field positional-or-keyword, in field order."""
        found = [("self", Record.make(parameter_class, parameter_class.namespace["_fields"],
                                      ["self", POSITIONAL_OR_KEYWORD, empty, empty]))]
        for name, default in pyclasses.dataclass_fields(cls):
            if isinstance(default, pyclasses.FieldSpec):
                default = default.default
            default = empty if default is pyclasses.MISSING else default
            found.append((name, Record.make(parameter_class, parameter_class.namespace["_fields"],
                                            [name, POSITIONAL_OR_KEYWORD, default, empty])))
        return dict(found[skip:])

    def signature(interp, args, kwargs, node):
        target = args[0]
        if isinstance(target, Partial):
            return interp.unknown("inspect.signature of a functools.partial is not modelled", node)
        found = parameters_of(interp, target, node)
        if found is None:
            return interp.unknown("inspect.signature of a value that is not a function of the analysed code", node)
        return Record.make(signature_class, ("parameters", "return_annotation"), [found, empty])

    def get_annotations(interp, args, kwargs, node):
        target = args[0] if args else kwargs.get("obj")
        if not isinstance(target, Class):
            return interp.unknown("inspect.get_annotations of a value that is not a class of the analysed code", node)
        return class_annotations(interp, target)

    bound_class = Class("BoundArguments", (builtins["object"],), {})

    def bind(interp, args, kwargs, node):
        """``signature.bind(*args, **kwargs)``: the arguments by parameter name, as a call
        would bind them (transformers' output capturing reads one this way)."""
        params, positional, named, arguments = args[0][0], list(args[1:]), dict(kwargs), {}
        for name, parameter in params.items():
            kind, default = parameter[1], parameter[2]
            if kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD) and positional:
                arguments[name] = positional.pop(0)
            elif kind in (POSITIONAL_OR_KEYWORD, KEYWORD_ONLY) and name in named:
                arguments[name] = named.pop(name)
            elif kind == VAR_POSITIONAL:
                arguments[name], positional = tuple(positional), []
            elif kind == VAR_KEYWORD:
                arguments[name], named = named, {}
            elif default is empty:
                raise interp.fail(f"missing a required argument: '{name}'", node, python="TypeError")
        if positional or named:
            raise interp.fail("too many arguments" if positional else f"got an unexpected keyword argument "
                              f"'{next(iter(named))}'", node, python="TypeError")
        return Instance(bound_class, {"arguments": arguments, "signature": args[0]})

    def apply_defaults(interp, args, kwargs, node):
        bound = args[0]
        given, arguments = bound.attrs["arguments"], {}
        for name, parameter in bound.attrs["signature"][0].items():
            if name in given:
                arguments[name] = given[name]
            elif parameter[1] == VAR_POSITIONAL:
                arguments[name] = ()
            elif parameter[1] == VAR_KEYWORD:
                arguments[name] = {}
            elif parameter[2] is not empty:
                arguments[name] = parameter[2]
        bound.attrs["arguments"] = arguments

    bound_class.namespace["apply_defaults"] = Builtin("BoundArguments.apply_defaults", apply_defaults)
    signature_class.namespace["bind"] = Builtin("Signature.bind", bind)

    def getsource(interp, args, kwargs, node):
        """``inspect.getsource(module)``: the text of a file the analysis ran (transformers looks
        for a decorator's name in a model's module); of a class or function, an unknown."""
        target = args[0] if args else kwargs.get("object")
        if isinstance(target, Namespace) and target.source is not None and target.source.text:
            return target.source.text
        return interp.unknown("inspect.getsource of a value that is not a module of the analysed code", node)

    def predicate(name, test):
        return Builtin(f"inspect.{name}", lambda i, a, k, n: test(a[0]), bind_self=False)

    return {
        "signature": Builtin("inspect.signature", signature, bind_self=False),
        "get_annotations": Builtin("inspect.get_annotations", get_annotations, bind_self=False),
        "getsource": Builtin("inspect.getsource", getsource, bind_self=False),
        "Parameter": parameter_class, "Signature": signature_class, "_empty": empty,
        "isclass": predicate("isclass", lambda v: isinstance(v, Class)),
        "isfunction": predicate("isfunction", lambda v: isinstance(v, Function)),
        "ismethod": predicate("ismethod", lambda v: isinstance(v, BoundMethod)),
        "isbuiltin": predicate("isbuiltin", lambda v: isinstance(v, Builtin)),
        "isroutine": predicate("isroutine", lambda v: isinstance(v, (Function, Builtin, BoundMethod))),
        "unwrap": Builtin("inspect.unwrap", lambda i, a, k, n: _unwrap(a[0]), bind_self=False),
        "getmro": Builtin("inspect.getmro", lambda i, a, k, n: tuple(a[0].mro()), bind_self=False),
    }
