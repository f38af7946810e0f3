"""Which model to build: ``--model`` as a name, as a call expression, or chosen for the user.

``--model`` may name a class or a builder function, or be a call expression such as
``resnet50(weights=None)`` or ``GPT(GPTConfig(n_layer=12))``.  The expression is parsed with
libcst and evaluated by our interpreter in the file's namespace — never by Python.
"""

from __future__ import annotations

import re

from staticflops.frontend import syntax as cst

from staticflops.diagnostics import AnalysisError, Location
from staticflops.frontend.function_objects import unwrapped
from staticflops.frontend.identifiers import nfkc
from staticflops.frontend.source import SourceFile, parse_source
from staticflops.frontend.treewalk import names_in
from staticflops.frontend.values import Class, Function, Instance, LazyValue, Unknown

MODEL_ARGUMENT = "--model"


def build_model(interp, source: SourceFile, scope, framework, model: str | None, kwargs: dict):
    """Evaluate the model choice: returns (the built value, its name, the anchor node)."""
    if model is not None and not model.isidentifier():
        return _evaluate_expression(interp, scope, model, kwargs)
    built = _built_at_top_level(source, scope, framework, model)
    if built is not None:  # `model = get_peft_model(base, config)` in a script: the model it made
        if kwargs:
            raise AnalysisError(f"--kwargs cannot be given to `{built[1]}`: the file already built it", code="SF103")
        return built
    target, name = select_target(source, scope, framework, model)
    anchor = definition_node(source, name)
    interp.source = source
    kwargs = convert_kwargs(interp, target, kwargs, anchor)
    if isinstance(target, Class):
        missing = [argument for argument in _required_arguments(target) if argument not in kwargs]
        if missing and anchor is not None:
            # said at the class, as an unwrapped __init__ would: a wrapper's call inside a
            # library (diffusers' configuration_utils.py) is not where the user looks
            raise interp.fail(f"__init__() missing required argument '{missing[0]}'", anchor, code="SF114",
                              python="TypeError")
        return framework.instantiate(interp, target, [], kwargs, anchor), name, anchor
    return interp.call(target, [], kwargs, anchor), name, anchor


def _evaluate_expression(interp, scope, text: str, kwargs: dict):
    try:
        # not a file of the project: Python's parser reads it (a syntax error still goes to libcst's route)
        expression = parse_source(text + "\n", MODEL_ARGUMENT, library=True)
    except AnalysisError as error:
        raise AnalysisError(f"--model is not a name or a call expression: {error.message}", code="SF103") from None
    body = expression.module.body
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or not isinstance(body[0].body[0], cst.Expr):
        raise AnalysisError("--model must be a single expression, e.g. 'resnet50(weights=None)'", code="SF103")
    node = body[0].body[0].value
    interp.source = expression
    value = interp.evaluate_node(node, scope)
    if isinstance(value, (Class, Function)):
        value = interp.call(value, [], convert_kwargs(interp, value, kwargs, node), node)
    elif kwargs:
        raise AnalysisError("--kwargs cannot be combined with a --model call expression; "
                            "write the arguments into the expression", code="SF103")
    return value, text, node


def select_target(source: SourceFile, scope, framework, model: str | None):
    if model is not None:
        model = nfkc(model)  # the file's names are normalised (identifiers.py)
        value = scope.vars.get(model)
        if isinstance(value, LazyValue):
            value = value.force()
        if value is None:
            raise AnalysisError(f"no class or function named `{model}` at the top level of {source.path}"
                                + _listing(source, scope, framework), _whole_file(source), code="SF103")
        if isinstance(value, Unknown):  # its definition could not be followed: say why
            raise AnalysisError(f"`{model}` could not be defined: {value.reason}", value.location, code="SF103")
        if not isinstance(value, (Class, Function)):
            raise AnalysisError(f"`{model}` is not a class or a function", code="SF103")
        return value, model
    classes, builders = candidates(source, scope, framework)
    buildable = [n for n in classes if _needs_no_arguments(classes[n])]
    if len(buildable) == 1:
        return classes[buildable[0]], buildable[0]
    if not classes and len(builders) == 1:
        return builders[next(iter(builders))], next(iter(builders))
    if len(classes) == 1 and not builders:
        return classes[next(iter(classes))], next(iter(classes))
    if not classes and not builders:
        built = [name for name, value in scope.vars.items() if _is_module(value)]
        shown = f" (models built at its top level: {', '.join(built)})" if built else ""
        failed = next(((name, value) for name, value in scope.vars.items()
                       if isinstance(value, Unknown) and not name.startswith("__")), None)
        if not built and failed is not None:  # `model = get_peft_model(...)` whose statement was skipped
            raise AnalysisError(f"{source.path} defines no nn.Module class or builder function, and `{failed[0]}` "
                                f"could not be built: {failed[1].reason}", failed[1].location or _whole_file(source),
                                code="SF104")
        raise AnalysisError(f"{source.path} defines no nn.Module class or builder function; name one with --model"
                            + shown, _whole_file(source), code="SF104")
    raise AnalysisError(f"{source.path} defines several models; choose one with --model" + _listing(source, scope, framework),
                        _whole_file(source), code="SF105")


def _built_at_top_level(source: SourceFile, scope, framework, model: str | None):
    """(the module, its name, its assignment) for a model the file builds at its top level:
    ``--model NAME`` naming such a variable, or, when the file defines no model class or builder
    to choose, the one variable holding a module; None otherwise."""
    if model is not None:
        names = [nfkc(model)]
    elif any(candidates(source, scope, framework)):
        return None
    else:
        names = [name for name in scope.vars if _is_module(scope.vars[name])]
        if len(names) != 1:
            return None
    value = scope.vars.get(names[0])
    if not _is_module(value):
        return None
    if isinstance(value, LazyValue):  # bound under an assumption: reading it reports the assumption
        value = value.force()
    return value, names[0], _assignment_node(source, names[0])


def _is_module(value) -> bool:
    value = getattr(value, "assumed_value", value)  # a name bound under an assumed `if` (statements.py)
    return isinstance(value, Instance) and value.module is not None


def _assignment_node(source: SourceFile, name: str):
    """The target of the last top-level ``name = ...`` (the anchor of the model's locations)."""
    found = None
    for statement in source.module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name) and target.target.value == name:
                            found = target.target
    return found


def _whole_file(source: SourceFile) -> Location:
    """Where a message about the file as a whole points: its first line."""
    return Location(source.path, 1, 1)


def candidates(source: SourceFile, scope, framework) -> tuple[dict, dict]:
    """Top-level model classes and builder functions of this file that nothing else in it uses."""
    classes, builders = {}, {}
    for name, value in scope.vars.items():
        if isinstance(getattr(value, "assumed_value", None), (Class, Function)):
            value = value.force()  # defined under an assumed `if`: a candidate, the assumption reported
        if isinstance(value, LazyValue):
            continue
        if (isinstance(value, Class) and value.is_subclass_of(framework.module_class) and value.location
                and value.location.path == source.path):
            classes[name] = value
        elif isinstance(value, Function) and value.source is source and not name.startswith("_") and name != "main":
            builders[name] = value
    # a function the file applies as a decorator (`@register_to_config`) makes no model
    builders = {name: value for name, value in builders.items() if not _applied_as_decorator(source, name)}
    used = _names_used_outside_own_definition(source, {*classes, *builders})
    return ({name: value for name, value in classes.items() if not _used_elsewhere(name, used)},
            {name: value for name, value in builders.items() if not _used_elsewhere(name, used)})


def _listing(source, scope, framework) -> str:
    classes, builders = candidates(source, scope, framework)
    parts = []
    if classes:
        parts.append("model classes: " + ", ".join(classes))
    if builders:
        parts.append("builder functions: " + ", ".join(builders))
    return f" ({'; '.join(parts)})" if parts else ""  # one line: editors and CI annotations read one


def convert_kwargs(interp, target, kwargs: dict, node) -> dict:
    """JSON objects passed for parameters annotated with a dataclass build that dataclass
    (defaults filled in); without such an annotation they become objects with attributes."""
    function = target
    if isinstance(target, Class):
        try:
            function = target.lookup("__init__")
        except KeyError:
            return kwargs
    if not isinstance(function, Function):
        return kwargs
    converted = dict(kwargs)
    params = function.node.params
    annotated = {p.name.value: p.annotation for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
    for name, value in kwargs.items():
        if not isinstance(value, dict):
            continue
        annotation = annotated.get(name)
        cls = None
        if annotation is not None:
            previous, interp.source = interp.source, function.source
            try:
                cls = interp.evaluate_node(annotation.annotation, function.scope)
            finally:
                interp.source = previous
        if isinstance(cls, Class) and "__dataclass_fields__" in cls.namespace:
            converted[name] = interp.call(cls, [], value, node)
        elif annotation is None or isinstance(cls, Unknown):
            converted[name] = Instance(interp.builtins["object"], attrs=dict(value))
    return converted


def definition_node(source: SourceFile, name: str):
    for statement in source.module.body:
        if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) and statement.name.value == name:
            return statement.name
    return None


def _names_used_outside_own_definition(source: SourceFile, wanted: set) -> dict:
    """Map: each name of ``wanted`` -> the top-level definitions (other than itself) that mention it."""
    used: dict = {}
    body = source.module.body
    starts = [source.positions.get(statement, (None,))[0] for statement in body] + [None]
    lines = source.text.splitlines(keepends=True)
    for index, statement in enumerate(body):
        owner = statement.name.value if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) else "<module>"
        if isinstance(statement, cst.If):  # `if __name__ == "__main__":` demos use the model
            continue
        others = wanted - {owner}
        if not others:
            continue
        # A statement whose text names none of them needs no walk: a 20,000-line class body
        # holding the only model is skipped instead of visiting its 500,000 nodes.
        first, after = starts[index], starts[index + 1]
        if lines and first and (after or index + 1 == len(body)):
            segment = nfkc("".join(lines[first - 1:(after - 1) if after else None]))  # as the tree's names are
            if not any(name in segment for name in others):
                continue
        for name in names_in(statement, skip=(cst.Decorator,)):  # `@register_model()` does not make a builder a helper
            if name.value in wanted:
                used.setdefault(name.value, set()).add(owner)
    return used


def _applied_as_decorator(source: SourceFile, name: str) -> bool:
    """``@name`` or ``@name(...)`` on a line of the file (a text search: a decorator line can
    hold nothing else before it)."""
    return re.search(rf"^[ \t]*@[ \t]*{re.escape(name)}\b", nfkc(source.text), re.MULTILINE) is not None


def _used_elsewhere(name: str, used: dict) -> bool:
    return bool(used.get(name, set()) - {name})


def _needs_no_arguments(cls: Class) -> bool:
    return not _required_arguments(cls)


def _required_arguments(cls: Class) -> list[str]:
    """The parameters of ``cls.__init__`` without a default, as ``inspect.signature`` sees
    them: through ``functools.wraps`` wrappers (diffusers' ``@register_to_config`` takes
    ``*args, **kwargs`` and passes them on), to the ``def`` the class wrote."""
    try:
        init = unwrapped(cls.lookup("__init__"))
    except KeyError:
        return []
    if not isinstance(init, Function):
        return []
    params = init.node.params
    required = [p.name.value for p in [*params.posonly_params, *params.params][1:] if p.name.value not in init.defaults]
    return required + [p.name.value for p in params.kwonly_params if p.name.value not in init.defaults]
