"""Keras front end: a model file -> the same layer IR as the PyTorch front end.

The file's module level runs in our interpreter with the Keras framework model; the model is
a module-level variable or what a function returns (``--model`` names either; without it,
the single model variable or the single model class).  Its forward pass is then traced once
more from scratch on the input shapes the source declares (``Input(shape=...)``,
``InputLayer``, ``input_shape=``, ``batch_shape=``) or the ones given with ``--input``.
"""

from __future__ import annotations

from staticflops.frontend import syntax as cst

from staticflops.diagnostics import AnalysisError, BudgetExceeded, Location
from staticflops.frontend.imports import start_main_file
from staticflops.frontend.interpreter import Interpreter
from staticflops.frontend.detect import uses_keras  # noqa: F401  (re-exported: its old home)
from staticflops.frontend.keras.engine import is_layer
from staticflops.frontend.keras.framework import KerasFramework
from staticflops.frontend.keras.graph import KerasTensor
from staticflops.frontend.pytorch import _freeze, _op, _output_shapes, stopped_diagnostic
from staticflops.frontend.select import _names_used_outside_own_definition as _names_used_outside_own_class
from staticflops.frontend.select import _needs_no_arguments, _used_elsewhere
from staticflops.frontend.source import SourceFile
from staticflops.frontend.tracer import Tracer
from staticflops.frontend.values import Class, Function, Instance, Unknown, named_modules
from staticflops.ir import LayerNode, ModelIR, ParamDecl
from staticflops.shapes import InputSpec, parse_input_spec

_BUILDER_PREFIXES = ("build", "make", "create", "get", "model")


def analyse_keras(source: SourceFile, model: str | None, kwargs: dict, inputs: list[InputSpec],
                  batch: int | None = None, reader=None, budget=None, libraries=None,
                  env: dict | None = None, freeze: tuple = ()) -> ModelIR:
    framework = KerasFramework(batch)
    interp = Interpreter(framework, budget)
    interp.environment.update(env or {})  # os.environ of the analysed program (--env)
    framework.install(interp)
    scope = start_main_file(interp, source, reader, libraries)
    interp.source = source
    result, stopped = None, None
    try:
        root, name, anchor = _select_model(interp, source, scope, framework, model, kwargs)
    except BudgetExceeded as error:
        if error.building is None:  # stopped before the model's constructor: nothing of it exists
            raise
        root, name, anchor, stopped = error.building, model or error.building.cls.name, None, error  # as for PyTorch
    specs = list(inputs) or _declared_inputs(root, name)
    _freeze(root, freeze, complete=stopped is None)  # --freeze GLOB, as for PyTorch
    _untrain_frozen_weights(root)
    framework.tracer = Tracer(active=True, max_ops=interp.budget.max_ops)  # what construction traced is replaced by one clean forward pass
    if stopped is None:
        tensors = [KerasTensor(spec.shape, spec.dtype) for spec in specs]
        argument = tensors[0] if len(tensors) == 1 else tensors
        try:
            result = interp.call(root, [argument], {}, anchor)
        except BudgetExceeded as error:  # the layers called so far are kept; the result is partial
            stopped = error
    paths = {id(layer): path for path, layer in named_modules(root)}
    return ModelIR(
        name=name, framework="keras", file=source.path,
        root=_layer_tree(root, "", paths, framework.tracer, False),
        ops=[_op(op, paths) for op in framework.tracer.ops],
        inputs=specs, outputs=_output_shapes(result), unknowns=interp.unknowns, diagnostics=list(interp.diagnostics), stopped=stopped_diagnostic(stopped),
        ignores=interp.ignores,
    )


def _untrain_frozen_weights(root: Instance) -> None:
    """Weights a frozen layer (``trainable=False`` on it or on a model around it) made before the
    forward pass get no gradient: the ops that use them (``ops.matmul(x, self.w)``) ask the weight,
    not the layer.  Those made during the pass ask the running layers (``add_weight``)."""
    for _, layer in named_modules(root):
        if layer.module is not None and layer.module.frozen:
            for _, inner in named_modules(layer):
                for param in inner.module.parameters.values() if inner.module is not None else ():
                    param.trainable = param.requires_grad = False


def _select_model(interp, source, scope, framework, model: str | None, kwargs: dict):
    if model is not None:
        value = scope.vars.get(model)
        if value is None:
            raise AnalysisError(f"no model, class or function named `{model}` at the top level of {source.path}",
                                code="SF103")
        return _materialise(interp, source, framework, value, model, kwargs)
    models = {n: v for n, v in scope.vars.items() if is_layer(v) and v.cls.is_subclass_of(framework.engine.model_class)}
    nested = {id(child) for v in models.values() for _, child in named_modules(v) if child is not v}
    outermost = [n for n, v in models.items() if id(v) not in nested]
    if len(outermost) == 1:
        return models[outermost[0]], outermost[0], _definition_node(source, outermost[0])
    used = _names_used_outside_own_class(source, {n for n, v in scope.vars.items() if isinstance(v, (Class, Function))})
    classes = [n for n, v in scope.vars.items() if isinstance(v, Class) and v.is_subclass_of(framework.engine.model_class)
               and v.location and v.location.path == source.path and _needs_no_arguments(v) and not _used_elsewhere(n, used)]
    builders = [n for n, v in scope.vars.items() if isinstance(v, Function) and v.source is source
                and n.lower().startswith(_BUILDER_PREFIXES) and not _used_elsewhere(n, used)]
    candidates = outermost or classes + builders
    if len(candidates) == 1:
        return _materialise(interp, source, framework, scope.vars[candidates[0]], candidates[0], kwargs)
    if not candidates:
        _raise_failed_model(source, scope)
        raise AnalysisError(f"{source.path} defines no Keras model at the top level; name a model variable, class or "
                            f"builder function with --model", code="SF104")
    raise AnalysisError(f"{source.path} has several candidate models ({', '.join(sorted(candidates))}); "
                        f"choose one with --model", code="SF105")


_MODEL_CONSTRUCTORS = frozenset({"Model", "Sequential", "Functional"})


def _raise_failed_model(source: SourceFile, scope) -> None:
    """A top-level model that an error left unknown (``model = keras.Model(x, y)`` after a
    ``keras.ops`` call whose shapes do not fit): that error, located, is the answer, not "no
    model".  The model is a variable assigned a ``Model``/``Sequential`` call, or named so."""
    failed = []
    for name, value in scope.vars.items():
        if not isinstance(value, Unknown) or value.location is None or value.location.path != source.path:
            continue
        node = _definition_node(source, name)
        call = node.value if isinstance(node, cst.Assign) else None
        callee = call.func if isinstance(call, cst.Call) else None
        called = callee.attr.value if isinstance(callee, cst.Attribute) else callee.value if isinstance(callee, cst.Name) \
            else None
        if called in _MODEL_CONSTRUCTORS or "model" in name.lower():
            failed.append((name, value))
    if failed:
        name, value = failed[-1]  # the outermost model is built last
        reason = value.reason.removeprefix(f"{value.location}: ")  # the location is the error's own
        raise AnalysisError(f"the model `{name}` could not be built: {reason}", value.location, "SF101")


def _materialise(interp, source, framework, value, name: str, kwargs: dict):
    anchor = _definition_node(source, name)
    if isinstance(value, Class):
        value = framework.instantiate(interp, value, [], dict(kwargs), anchor)
    elif isinstance(value, Function):
        value = interp.call(value, [], dict(kwargs), anchor)
    if isinstance(value, Unknown):
        where = f" (at {value.location})" if value.location else ""
        raise AnalysisError(f"`{name}` did not produce a model: {value.reason}{where}",
                            source.location(anchor) if anchor else None, "SF101")
    if not is_layer(value):
        raise AnalysisError(f"`{name}` is not a Keras model or layer", source.location(anchor) if anchor else None,
                            "SF101")
    return value, name, anchor


def _definition_node(source: SourceFile, name: str):
    for statement in source.module.body:
        if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) and statement.name.value == name:
            return statement.name
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                     for t in small.targets):
                return small
    return None


def _declared_inputs(root: Instance, name: str) -> list[InputSpec]:
    declared = root.keras.declared_input
    if not declared:
        raise AnalysisError(f"`{name}` declares no input shape (no Input(shape=...), InputLayer or input_shape=); "
                            f"pass one with --input, e.g. --input 1x32x32x3", code="SF102")
    return [InputSpec(tuple(shape), "float32") for shape in declared]


def _layer_tree(layer: Instance, path: str, paths: dict, tracer, frozen_above: bool) -> LayerNode:
    state = layer.module
    frozen = frozen_above or state.frozen  # layer.trainable = False freezes everything inside
    children = [
        _layer_tree(child, f"{path}.{name}" if path else name, paths, tracer, frozen)
        for name, child in state.children.items()
        if child is not None and paths.get(id(child)) == (f"{path}.{name}" if path else name)
    ]
    params = [ParamDecl(name=name, shape=p.shape, trainable=p.trainable and not frozen)
              for name, p in state.parameters.items()]
    outputs = _output_shapes(tracer.module_outputs[id(layer)]) if id(layer) in tracer.module_outputs else []
    # A layer never built because its input's shape is unknown is reported by the engine; its
    # weights are unknown, not something for the rules to count.
    kind = None if getattr(layer, "keras", None) and layer.keras.extra.get("input_unknown") else state.kind
    return LayerNode(name=path, type=layer.cls.name, kind=kind, attrs=state.attrs,
                     location=layer.location or Location("<unknown>", 1, 1), children=children, params=params,
                     frozen=frozen, output_shapes=outputs, calls=tracer.module_calls.get(id(layer), 0))


__all__ = ["analyse_keras", "uses_keras", "parse_input_spec"]
